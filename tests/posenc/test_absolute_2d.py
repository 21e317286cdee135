"""2-D absolute encodings against MAE, seed 000, DETR (Hugging Face) and a NumPy bicubic."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from transformers.models.detr.modeling_detr import (
    DetrLearnedPositionEmbedding,
    DetrSinePositionEmbedding,
)

from posenc.absolute_2d import (
    LearnedRowColEmbedding,
    detr_sine_encoding,
    resample_positional_embedding,
    sinusoidal_2d_channel_permutation,
    sinusoidal_encoding_2d,
)
from tests.references import pil_bicubic_reference, torch_bicubic_reference

# ---------------------------------------------------------------------------------------------
# Independent float64 transcriptions (written here from the published algorithms)


def mae_2d_sincos(embed_dim, grid_h, grid_w):
    """MAE util/pos_embed.py get_2d_sincos_pos_embed, generalised to a grid_h x grid_w grid."""

    def one_d(d, pos):
        omega = np.arange(d // 2, dtype=np.float64) / (d / 2.0)
        omega = 1.0 / 10000**omega
        out = np.einsum("m,d->md", pos.reshape(-1), omega)
        return np.concatenate([np.sin(out), np.cos(out)], axis=1)

    gh = np.arange(grid_h, dtype=np.float64)
    gw = np.arange(grid_w, dtype=np.float64)
    grid = np.stack(np.meshgrid(gw, gh), axis=0)  # w first, numpy's default "xy" indexing
    emb_h = one_d(embed_dim // 2, grid[0])  # the name says h; grid[0] holds the columns
    emb_w = one_d(embed_dim // 2, grid[1])
    return np.concatenate([emb_h, emb_w], axis=1)


def seed000_2d_sincos(height, width, dim):
    """Seed 000's create_2d_absolute_sincos_pe, in float64 with explicit 'ij' indexing."""

    def one_d(pos, d):
        omega = 1.0 / 1e4 ** (np.arange(d // 2, dtype=np.float64) / (d / 2))
        out = pos[:, None] * omega[None, :]
        pe = np.zeros((pos.size, d))
        pe[:, 0::2] = np.sin(out)
        pe[:, 1::2] = np.cos(out)
        return pe

    rows, cols = np.meshgrid(
        np.arange(height, dtype=np.float64), np.arange(width, dtype=np.float64), indexing="ij"
    )
    return np.concatenate([one_d(rows.ravel(), dim // 2), one_d(cols.ravel(), dim // 2)], axis=1)


# ---------------------------------------------------------------------------------------------
# sinusoidal_encoding_2d


@pytest.mark.parametrize("h,w,dim", [(1, 1, 4), (3, 5, 8), (14, 14, 64), (7, 4, 32)])
def test_mae_layout_reproduces_mae_exactly(h, w, dim):
    ours = sinusoidal_encoding_2d(h, w, dim, interleaved=False, row_first=False)
    ref = torch.from_numpy(mae_2d_sincos(dim, h, w)).float()
    assert ours.shape == (h * w, dim) and ours.dtype == torch.float32
    torch.testing.assert_close(ours, ref, rtol=0, atol=1e-6)


@pytest.mark.parametrize("h,w,dim", [(2, 2, 4), (4, 3, 16), (8, 8, 128)])
def test_defaults_reproduce_seed_000(h, w, dim):
    ours = sinusoidal_encoding_2d(h, w, dim)
    ref = torch.from_numpy(seed000_2d_sincos(h, w, dim)).float()
    torch.testing.assert_close(ours, ref, rtol=0, atol=1e-6)


def test_golden_2x2_dim4():
    s1, c1 = math.sin(1.0), math.cos(1.0)
    expected = torch.tensor(
        [[0, 1, 0, 1], [0, 1, s1, c1], [s1, c1, 0, 1], [s1, c1, s1, c1]], dtype=torch.float32
    )
    torch.testing.assert_close(sinusoidal_encoding_2d(2, 2, 4), expected, rtol=0, atol=1e-7)


def layout_permutation(dim, interleaved, row_first):
    """Where channel j of a layout comes from in the seed layout (interleaved, row first)."""
    q = dim // 2
    within = (
        list(range(q))
        if interleaved
        else [2 * i for i in range(q // 2)] + [2 * i + 1 for i in range(q // 2)]
    )
    first, second = (0, q) if row_first else (q, 0)
    return [first + k for k in within] + [second + k for k in within]


@pytest.mark.parametrize("interleaved", [True, False])
@pytest.mark.parametrize("row_first", [True, False])
def test_every_layout_is_a_fixed_channel_permutation_of_the_seed_layout(interleaved, row_first):
    dim = 16
    seed = sinusoidal_encoding_2d(5, 6, dim)
    other = sinusoidal_encoding_2d(5, 6, dim, interleaved=interleaved, row_first=row_first)
    perm = layout_permutation(dim, interleaved, row_first)
    assert sorted(perm) == list(range(dim))
    assert torch.equal(other, seed[:, perm])
    assert (
        sinusoidal_2d_channel_permutation(
            dim, interleaved=interleaved, row_first=row_first
        ).tolist()
        == perm
    )


def test_row_major_flattening():
    pe = sinusoidal_encoding_2d(3, 4, 8)
    # positions in the same row share the row half; in the same column, the column half
    assert torch.equal(pe[4 + 1, :4], pe[4 + 3, :4])
    assert torch.equal(pe[0 * 4 + 2, 4:], pe[2 * 4 + 2, 4:])


@pytest.mark.parametrize("dim", [2, 6, 10])
def test_dim_not_multiple_of_four_is_rejected(dim):
    with pytest.raises(ValueError, match=r"dim must be a multiple of 4"):
        sinusoidal_encoding_2d(2, 2, dim)


def test_bad_sizes():
    with pytest.raises(ValueError, match=r"height must be positive"):
        sinusoidal_encoding_2d(0, 2, 8)
    with pytest.raises(TypeError, match=r"width must be an integer"):
        sinusoidal_encoding_2d(2, 2.5, 8)


# ---------------------------------------------------------------------------------------------
# detr_sine_encoding


def random_padding(b, h, w, seed):
    """DETR pads each image at the bottom and right: valid region is a top-left rectangle."""
    g = torch.Generator().manual_seed(seed)
    mask = torch.ones(b, h, w, dtype=torch.bool)
    for i in range(b):
        vh = int(torch.randint(1, h + 1, (1,), generator=g))
        vw = int(torch.randint(1, w + 1, (1,), generator=g))
        mask[i, :vh, :vw] = False
    return mask


@pytest.mark.parametrize("normalize,scale", [(False, None), (True, None), (True, 1.0)])
@pytest.mark.parametrize("base", [10, 10000])
def test_detr_sine_matches_hugging_face(normalize, scale, base):
    mask = random_padding(3, 9, 11, seed=base)
    ours = detr_sine_encoding(mask, 32, base, normalize=normalize, scale=scale)
    hf = DetrSinePositionEmbedding(32, base, normalize=normalize, scale=scale)
    # Hugging Face's mask is 1 at valid pixels: the opposite of DETR's padding mask
    ref = hf((3, 3, 9, 11), "cpu", torch.float64, mask=~mask).float()
    assert ours.shape == (3, 64, 9, 11)
    torch.testing.assert_close(ours, ref, rtol=0, atol=1e-6)


def test_detr_sine_positions_start_at_one_and_y_comes_first():
    mask = torch.zeros(1, 3, 4, dtype=torch.bool)
    pe = detr_sine_encoding(mask, num_pos_feats=4, base=10000)
    # channel 0 = sin(y / 1) with y = r + 1; channel 4 = sin(x / 1) with x = c + 1
    torch.testing.assert_close(pe[0, 0, :, 0], torch.sin(torch.tensor([1.0, 2.0, 3.0])))
    torch.testing.assert_close(pe[0, 4, 0, :], torch.sin(torch.tensor([1.0, 2.0, 3.0, 4.0])))
    torch.testing.assert_close(pe[0, 1, 2, 0], torch.cos(torch.tensor(3.0)))


def test_detr_sine_seed_example_shape():
    # seed 002: num_pos_feats=64, base=10 on 20x20 maps gives 128 x 20 x 20
    pe = detr_sine_encoding(torch.zeros(2, 20, 20, dtype=torch.bool), 64, 10)
    assert pe.shape == (2, 128, 20, 20)


@settings(max_examples=40, deadline=None)
@given(h=st.integers(1, 8), w=st.integers(1, 8), pad_h=st.integers(0, 5), pad_w=st.integers(0, 5))
def test_padding_changes_only_padded_positions(h, w, pad_h, pad_w):
    unpadded = detr_sine_encoding(torch.zeros(1, h, w, dtype=torch.bool), 8)
    mask = torch.ones(1, h + pad_h, w + pad_w, dtype=torch.bool)
    mask[0, :h, :w] = False
    padded = detr_sine_encoding(mask, 8)
    assert torch.equal(padded[..., :h, :w], unpadded)


def test_detr_sine_errors():
    mask = torch.zeros(1, 2, 2, dtype=torch.bool)
    with pytest.raises(ValueError, match=r"scale is only used with normalize=True"):
        detr_sine_encoding(mask, 8, scale=1.0)
    with pytest.raises(ValueError, match=r"num_pos_feats must be even"):
        detr_sine_encoding(mask, 7)
    with pytest.raises(TypeError, match=r"padding_mask must be a boolean tensor"):
        detr_sine_encoding(mask.float(), 8)
    with pytest.raises(ValueError, match=r"padding_mask must have 3 dimensions"):
        detr_sine_encoding(mask[0], 8)


# ---------------------------------------------------------------------------------------------
# LearnedRowColEmbedding


def test_learned_row_col_matches_hugging_face():
    torch.manual_seed(0)
    ours = LearnedRowColEmbedding(num_pos_feats=6, max_positions=50)
    hf = DetrLearnedPositionEmbedding(embedding_dim=6)
    hf.row_embeddings.weight.data.copy_(ours.row_embed.weight)
    hf.column_embeddings.weight.data.copy_(ours.col_embed.weight)
    x = torch.randn(2, 3, 7, 9)
    ref = hf((2, 3, 7, 9), "cpu", torch.float32)
    assert torch.equal(ours(x), ref)


def test_learned_row_col_puts_columns_first():
    emb = LearnedRowColEmbedding(num_pos_feats=3, max_positions=10)
    pos = emb(torch.zeros(1, 1, 4, 5))
    assert pos.shape == (1, 6, 4, 5)
    assert torch.equal(pos[0, :3, 2, 4], emb.col_embed.weight[4])
    assert torch.equal(pos[0, 3:, 2, 4], emb.row_embed.weight[2])


def test_learned_row_col_init_is_uniform_unit_interval():
    torch.manual_seed(1)
    emb = LearnedRowColEmbedding()
    w = torch.cat([emb.row_embed.weight, emb.col_embed.weight])
    assert w.min() >= 0 and w.max() < 1 and abs(w.mean().item() - 0.5) < 0.01


def test_learned_row_col_too_large_map_is_a_value_error():
    emb = LearnedRowColEmbedding(num_pos_feats=4, max_positions=50)
    assert emb(torch.zeros(1, 1, 50, 50)).shape == (1, 8, 50, 50)
    with pytest.raises(ValueError, match=r"feature map of 51x20 exceeds max_positions=50"):
        emb(torch.zeros(1, 1, 51, 20))
    with pytest.raises(ValueError, match=r"x must have 4 dimensions"):
        emb(torch.zeros(1, 50, 50))


def test_learned_row_col_gradients_reach_only_used_rows():
    emb = LearnedRowColEmbedding(num_pos_feats=2, max_positions=10)
    emb(torch.zeros(1, 1, 3, 4)).sum().backward()
    assert (
        emb.row_embed.weight.grad[:3].abs().sum() > 0
        and emb.row_embed.weight.grad[3:].abs().sum() == 0
    )
    assert (
        emb.col_embed.weight.grad[:4].abs().sum() > 0
        and emb.col_embed.weight.grad[4:].abs().sum() == 0
    )


# ---------------------------------------------------------------------------------------------
# resample_positional_embedding


@pytest.mark.parametrize("old,new", [((14, 14), (16, 16)), ((4, 6), (7, 3)), ((5, 5), (2, 2))])
def test_bicubic_matches_numpy_transcription(old, new):
    torch.manual_seed(2)
    d = 5
    table = torch.randn(old[0] * old[1], d, dtype=torch.float64)
    ours = resample_positional_embedding(table, old, new)
    image = table.reshape(old[0], old[1], d).numpy()
    ref = torch_bicubic_reference(image, new[0], new[1]).reshape(new[0] * new[1], d)
    torch.testing.assert_close(ours, torch.from_numpy(ref), rtol=0, atol=1e-10)


@pytest.mark.parametrize("mode", ["bicubic", "bilinear", "nearest"])
def test_resampling_to_the_same_size_is_the_identity(mode):
    table = torch.randn(1, 12, 4)
    assert torch.equal(resample_positional_embedding(table, (3, 4), (3, 4), mode=mode), table)


def test_bilinear_upsampling_preserves_a_constant_and_stays_in_range():
    table = torch.full((9, 3), 0.25)
    out = resample_positional_embedding(table, 3, 5, mode="bilinear")
    assert out.shape == (25, 3)
    torch.testing.assert_close(out, torch.full((25, 3), 0.25))


def test_prefix_tokens_are_kept_and_batch_rank_preserved():
    torch.manual_seed(3)
    table = torch.randn(1, 1 + 14 * 14, 8)
    out = resample_positional_embedding(table, 14, 16, num_prefix_tokens=1)
    assert out.shape == (1, 1 + 16 * 16, 8)
    assert torch.equal(out[0, 0], table[0, 0])
    grid_only = resample_positional_embedding(table[:, 1:], 14, 16)
    assert torch.equal(out[:, 1:], grid_only)


@pytest.mark.parametrize("old,new", [((8, 8), (12, 12)), ((8, 8), (3, 3)), ((14, 14), (16, 16))])
def test_antialias_is_the_pil_filter_with_a_minus_half(old, new):
    torch.manual_seed(4)
    table = torch.randn(old[0] * old[1], 3, dtype=torch.float64)
    ours = resample_positional_embedding(table, old, new, antialias=True)
    image = table.reshape(old[0], old[1], 3).numpy()
    ref = pil_bicubic_reference(image, new[0], new[1]).reshape(-1, 3)
    torch.testing.assert_close(ours, torch.from_numpy(ref), rtol=0, atol=1e-10)
    # ... which is not MAE's filter, even when enlarging
    assert not torch.allclose(ours, resample_positional_embedding(table, old, new, antialias=False))


def test_resample_errors():
    with pytest.raises(
        ValueError, match=r"table has 10 rows but num_prefix_tokens \+ old_size gives 0 \+ 3\*3 = 9"
    ):
        resample_positional_embedding(torch.zeros(10, 2), 3, 4)
    with pytest.raises(ValueError, match=r"mode must be"):
        resample_positional_embedding(torch.zeros(9, 2), 3, 4, mode="area")
    with pytest.raises(ValueError, match=r"leading 1"):
        resample_positional_embedding(torch.zeros(2, 9, 2), 3, 4)
    with pytest.raises(TypeError, match=r"table must be a floating-point tensor"):
        resample_positional_embedding(torch.zeros(9, 2, dtype=torch.long), 3, 4)
    with pytest.raises(ValueError, match=r"new_size must be an int or a pair"):
        resample_positional_embedding(torch.zeros(9, 2), 3, (1, 2, 3))


def test_which_filters_reproduce_a_ramp_when_enlarging_14_to_16():
    # the chapter's explanation of resampling error: Keys' cubic reproduces linear functions only
    # for a = -0.5 (antialias=True); PyTorch's a = -0.75 leaves an interior ripple; bilinear is
    # exact inside; at the border the missing samples cost |s_0| = 1/16 for bilinear
    ramp = torch.arange(14, dtype=torch.float64).repeat_interleave(14)[:, None]  # value = row r
    s = (torch.arange(16, dtype=torch.float64) + 0.5) * 14 / 16 - 0.5  # [16]

    def error(**kw):
        return resample_positional_embedding(ramp, 14, 16, **kw).reshape(16, 16)[:, 5] - s

    bilinear, keys_half, keys_mae = error(mode="bilinear"), error(antialias=True), error()
    assert bilinear[1:-1].abs().max() < 1e-12
    assert bilinear[0].item() == pytest.approx(0.0625) and bilinear[-1].item() == pytest.approx(
        -0.0625
    )
    assert keys_half[2:-2].abs().max() < 1e-12 and keys_half[:2].abs().min() > 0.02
    assert 0.045 < keys_mae[2:-2].abs().max() < 0.05


# ---------------------------------------------------------------------------------------------
# Strict inputs (issue 11): each bad argument is refused with a message naming it

NAN, INF = float("nan"), float("inf")
MASK = torch.zeros(1, 3, 4, dtype=torch.bool)


@pytest.mark.parametrize(
    ("call", "error", "name"),
    [
        # flags must be real bools
        (lambda: sinusoidal_encoding_2d(2, 3, 8, interleaved="False"), TypeError, "interleaved"),
        (lambda: sinusoidal_encoding_2d(2, 3, 8, row_first=1), TypeError, "row_first"),
        (lambda: sinusoidal_2d_channel_permutation(8, interleaved=0), TypeError, "interleaved"),
        (lambda: sinusoidal_2d_channel_permutation(8, row_first="no"), TypeError, "row_first"),
        (lambda: detr_sine_encoding(MASK, 4, normalize="True"), TypeError, "normalize"),
        (
            lambda: resample_positional_embedding(torch.zeros(9, 4), 3, 4, antialias="yes"),
            TypeError,
            "antialias",
        ),
        # sizes must be ints (not bools) in their domain
        (lambda: sinusoidal_encoding_2d(True, 3, 8), TypeError, "height"),
        (lambda: sinusoidal_encoding_2d(2, 3.0, 8), TypeError, "width"),
        (lambda: sinusoidal_encoding_2d(2, 3, 6), ValueError, "dim"),
        (lambda: sinusoidal_2d_channel_permutation(True), TypeError, "dim"),
        (lambda: detr_sine_encoding(MASK, True), TypeError, "num_pos_feats"),
        (lambda: detr_sine_encoding(MASK, 5), ValueError, "num_pos_feats"),
        (lambda: LearnedRowColEmbedding(True), TypeError, "num_pos_feats"),
        (lambda: LearnedRowColEmbedding(4, 0), ValueError, "max_positions"),
        (lambda: LearnedRowColEmbedding(4, 2.5), TypeError, "max_positions"),
        (
            lambda: resample_positional_embedding(torch.zeros(9, 4), (3, 3, 1), 4),
            ValueError,
            "old_size",
        ),
        (
            lambda: resample_positional_embedding(torch.zeros(9, 4), 3, (True, 4)),
            TypeError,
            "new_size[0]",
        ),
        (lambda: resample_positional_embedding(torch.zeros(9, 4), 3, "4"), TypeError, "new_size"),
        (
            lambda: resample_positional_embedding(torch.zeros(9, 4), 3, 4, num_prefix_tokens=-1),
            ValueError,
            "num_prefix_tokens",
        ),
        # bases must be finite and > 1; scales finite and > 0
        (lambda: sinusoidal_encoding_2d(2, 3, 8, base=1.0), ValueError, "base"),
        (lambda: sinusoidal_encoding_2d(2, 3, 8, base=NAN), ValueError, "base"),
        (lambda: sinusoidal_encoding_2d(2, 3, 8, base=True), TypeError, "base"),
        (lambda: detr_sine_encoding(MASK, 4, base=1), ValueError, "base"),
        (lambda: detr_sine_encoding(MASK, 4, base=0.5), ValueError, "base"),
        (lambda: detr_sine_encoding(MASK, 4, base="10000"), TypeError, "base"),
        (lambda: detr_sine_encoding(MASK, 4, normalize=True, scale=INF), ValueError, "scale"),
        (lambda: detr_sine_encoding(MASK, 4, normalize=True, scale=0.0), ValueError, "scale"),
        (lambda: detr_sine_encoding(MASK, 4, normalize=True, scale=1j), TypeError, "scale"),
        # modes
        (
            lambda: resample_positional_embedding(torch.zeros(9, 4), 3, 4, mode=["bicubic"]),
            ValueError,
            "mode",
        ),
        (
            lambda: resample_positional_embedding(
                torch.zeros(9, 4), 3, 4, mode="nearest", antialias=True
            ),
            ValueError,
            "antialias",
        ),
        # tensors of the wrong kind
        (lambda: detr_sine_encoding(MASK.float(), 4), TypeError, "padding_mask"),
        (lambda: detr_sine_encoding(MASK[0], 4), ValueError, "padding_mask"),
        (
            lambda: LearnedRowColEmbedding(4, 6)(torch.zeros(1, 3, 2, 2, dtype=torch.long)),
            TypeError,
            "x",
        ),
        (
            lambda: LearnedRowColEmbedding(4, 6)(torch.zeros(1, 3, 2, 2, dtype=torch.bool)),
            TypeError,
            "x",
        ),
        (lambda: LearnedRowColEmbedding(4, 6)(torch.zeros(3, 2, 2)), ValueError, "x"),
        (
            lambda: resample_positional_embedding(torch.zeros(9, 4, dtype=torch.complex64), 3, 4),
            TypeError,
            "table",
        ),
        (lambda: resample_positional_embedding(torch.zeros(9, 0), 3, 4), ValueError, "table"),
    ],
)
def test_bad_arguments_are_refused_by_name(call, error, name):
    with pytest.raises(error) as info:
        call()
    assert name in str(info.value)


def test_detr_sine_encoding_of_empty_maps_is_empty():
    for shape in [(0, 3, 4), (2, 0, 4), (2, 3, 0)]:
        out = detr_sine_encoding(torch.zeros(shape, dtype=torch.bool), 4, normalize=True)
        assert out.shape == (shape[0], 8, shape[1], shape[2])


def test_learned_row_col_of_an_empty_batch_or_map_is_empty():
    module = LearnedRowColEmbedding(4, 6)
    assert module(torch.zeros(0, 3, 2, 5)).shape == (0, 8, 2, 5)
    assert module(torch.zeros(2, 3, 0, 5)).shape == (2, 8, 0, 5)


def test_learned_row_col_state_dict_of_the_wrong_size_names_the_table():
    saved = LearnedRowColEmbedding(4, 6).state_dict()
    for key, build in [
        ("row_embed.weight", lambda: LearnedRowColEmbedding(4, 7)),
        ("col_embed.weight", lambda: LearnedRowColEmbedding(4, 7)),
        ("row_embed.weight", lambda: LearnedRowColEmbedding(5, 6)),
    ]:
        with pytest.raises(ValueError) as info:
            build().load_state_dict(saved)
        message = str(info.value)
        assert "row_embed.weight" in message or "col_embed.weight" in message
        assert "(6, 4)" in message
    # nested under a prefix, the key keeps it
    outer = torch.nn.Sequential(LearnedRowColEmbedding(4, 7))
    with pytest.raises(ValueError, match=r"'0\.row_embed\.weight' has shape \(6, 4\).*\(7, 4\)"):
        outer.load_state_dict({f"0.{k}": v for k, v in saved.items()})
    # the right size still loads
    fresh = LearnedRowColEmbedding(4, 6)
    fresh.load_state_dict(saved)
    assert torch.equal(fresh.row_embed.weight, saved["row_embed.weight"])


def test_detr_sine_encoding_keeps_the_mask_device():
    mask = torch.zeros(2, 3, 4, dtype=torch.bool, device="meta")
    out = detr_sine_encoding(mask, 4, normalize=True)
    assert out.device.type == "meta" and out.shape == (2, 8, 3, 4)
