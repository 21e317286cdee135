"""Window relative position indices against Swin, Video Swin, RSTT, Hugging Face and the seeds."""

import itertools
import math

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from transformers.models.swin.modeling_swin import (
    SwinRelativePositionBias as HFSwinRelativePositionBias,
)

from posenc.window import (
    SwinRelativePositionBias,
    WindowAttention,
    relative_offsets,
    relative_position_index,
    relative_table_size,
    shifted_window_mask,
    window_merge,
    window_partition,
)
from tests.references import swin_index, video_swin_index

# ---------------------------------------------------------------------------------------------
# Transcriptions of the official index code (integer arithmetic, 'ij' indexing made explicit)


def rstt_index(d1, d2, wh, ww):
    """llmpass/RSTT models/layers.py WindowAttention3D.__init__ (frames of keys by stride)."""
    coords_d_q = torch.arange(d1)
    coords_d_kv = torch.arange(0, d1, int((d1 + 1) // d2))
    h, w = torch.arange(wh), torch.arange(ww)
    cq = torch.flatten(torch.stack(torch.meshgrid(coords_d_q, h, w, indexing="ij")), 1)
    ck = torch.flatten(torch.stack(torch.meshgrid(coords_d_kv, h, w, indexing="ij")), 1)
    rel = (cq[:, :, None] - ck[:, None, :]).permute(1, 2, 0).contiguous()
    rel[:, :, 0] += d1 - 1
    rel[:, :, 1] += wh - 1
    rel[:, :, 2] += ww - 1
    rel[:, :, 0] *= (2 * wh - 1) * (2 * ww - 1)
    rel[:, :, 1] *= 2 * ww - 1
    return rel.sum(-1)


# The seeds' constructions, bugs included (REFERENCES.md §3)


def seed_000_index(height, width):
    """Seed 000: correct apart from meshgrid without indexing= (torch's default is 'ij')."""
    m1, m2 = torch.meshgrid(torch.arange(height), torch.arange(width), indexing="ij")
    coords_f = torch.flatten(torch.stack((m1, m2), dim=0), 1)
    rel = coords_f[:, :, None] - coords_f[:, None, :]
    rel[0] += height - 1
    rel[1] += width - 1
    rel[0] *= rel[1].max() + 1
    return rel[0] + rel[1]


def seed_001_index(height, width):
    """Seed 001 as written: `[:, :, :None]` (a slice, not a new axis) on a 2-D tensor."""
    m1, m2 = torch.meshgrid(torch.arange(height), torch.arange(width), indexing="ij")
    flat = torch.flatten(torch.stack([m1, m2]), 1)  # [2, N]
    rel = flat[:, :, :None] - flat[:, None, :]  # three indices for two dimensions
    return rel.sum(0)


def seed_001_index_slice_fixed(height, width):
    """Seed 001 with only the slice fixed: the `+=` bug alone."""
    m1, m2 = torch.meshgrid(torch.arange(height), torch.arange(width), indexing="ij")
    flat = torch.flatten(torch.stack([m1, m2]), 1)
    rel = flat[:, :, None] - flat[:, None, :]
    rel[0] += height - 1
    rel[1] += width - 1
    rel[0] += rel[1].max() + 1
    return rel.sum(0)


def multiply_by_2w_minus_2(height, width):
    """The near miss: radix 2·Ww − 2 instead of 2·Ww − 1."""
    coords = torch.stack(
        torch.meshgrid(torch.arange(height), torch.arange(width), indexing="ij")
    ).flatten(1)
    rel = coords[:, :, None] - coords[:, None, :]
    return (rel[0] + height - 1) * (2 * width - 2) + (rel[1] + width - 1)


def offsets(query_shape, key_shape=None, key_step=None):
    """All (query, key) coordinate differences, [N_q, N_k, rank], by brute force."""
    key_shape = key_shape or query_shape
    key_step = key_step or (1,) * len(query_shape)
    qs = list(itertools.product(*(range(s) for s in query_shape)))
    ks = [
        tuple(c * st for c, st in zip(k, key_step))
        for k in itertools.product(*(range(s) for s in key_shape))
    ]
    return torch.tensor([[[a - b for a, b in zip(q, k)] for k in ks] for q in qs])


def assert_index_properties(index, query_shape, key_shape=None, key_step=None):
    """Range, and: equal offsets ⇔ equal indices."""
    size = math.prod(2 * s - 1 for s in query_shape)
    assert index.min() >= 0 and index.max() < size
    diffs = offsets(query_shape, key_shape, key_step).reshape(-1, len(query_shape))
    flat = index.reshape(-1)
    by_offset = {}
    for d, i in zip(map(tuple, diffs.tolist()), flat.tolist()):
        assert by_offset.setdefault(d, i) == i, f"offset {d} got two indices"
    assert len(set(by_offset.values())) == len(by_offset), "two offsets share an index"


def index_has_properties(index, query_shape):
    try:
        assert_index_properties(index, query_shape)
    except (AssertionError, RuntimeError):
        return False
    return True


# ---------------------------------------------------------------------------------------------


def test_golden_2x2_window():
    expected = torch.tensor([[4, 3, 1, 0], [5, 4, 2, 1], [7, 6, 4, 3], [8, 7, 5, 4]])
    assert torch.equal(relative_position_index((2, 2)), expected)


@pytest.mark.parametrize("wh,ww", [(1, 1), (2, 2), (3, 5), (7, 7), (4, 1)])
def test_swin(wh, ww):
    assert torch.equal(relative_position_index((wh, ww)), swin_index(wh, ww))


@pytest.mark.parametrize("shape", [(2, 7, 7), (1, 3, 3), (4, 2, 3)])
def test_video_swin(shape):
    assert torch.equal(relative_position_index(shape), video_swin_index(*shape))


@pytest.mark.parametrize("wh,ww", [(2, 2), (4, 4), (3, 5)])
def test_rstt_cross_attention_7_query_frames_4_key_frames(wh, ww):
    ours = relative_position_index((7, wh, ww), (4, wh, ww), key_step=(2, 1, 1))
    assert ours.shape == (7 * wh * ww, 4 * wh * ww)
    assert torch.equal(ours, rstt_index(7, 4, wh, ww))
    assert relative_table_size((7, wh, ww)) == (2 * 7 - 1) * (2 * wh - 1) * (2 * ww - 1)


def test_rstt_equals_video_swin_when_frame_counts_match():
    assert torch.equal(rstt_index(3, 3, 2, 2), video_swin_index(3, 2, 2))
    assert torch.equal(relative_position_index((3, 2, 2)), rstt_index(3, 3, 2, 2))


def test_rstt_stride_pitfall():
    """(D1 + 1) // D2 is the right stride for 7 → 4 frames, but gives 6 key frames for 6 → 4."""
    assert len(range(0, 7, (7 + 1) // 4)) == 4
    assert len(range(0, 6, (6 + 1) // 4)) == 6
    assert rstt_index(6, 4, 2, 2).shape[1] == 6 * 4  # silently 6 frames, not 4


def test_hugging_face_swin_bias():
    torch.manual_seed(0)
    hf = HFSwinRelativePositionBias(num_heads=3, window_size=(3, 4))
    torch.nn.init.normal_(hf.relative_position_bias_table)
    ours = SwinRelativePositionBias((3, 4), num_heads=3)
    ours.load_state_dict({"relative_position_bias_table": hf.relative_position_bias_table.detach()})
    assert torch.equal(ours.relative_position_index.reshape(-1), hf.relative_position_index)
    assert torch.equal(ours(), hf()[0])


@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3))
def test_self_attention_index_properties(shape):
    shape = tuple(shape)
    index = relative_position_index(shape)
    n = math.prod(shape)
    assert index.shape == (n, n)
    assert_index_properties(index, shape)
    assert torch.all(
        index.diagonal() == (relative_table_size(shape) - 1) // 2
    )  # offset 0 in the middle


@given(
    q=st.lists(st.integers(1, 5), min_size=1, max_size=3).flatmap(
        lambda q: st.tuples(st.just(q), st.tuples(*(st.integers(1, s) for s in q)))
    )
)
def test_cross_attention_index_properties(q):
    q_shape, step = tuple(q[0]), q[1]
    key_shape = tuple((s - 1) // st + 1 for s, st in zip(q_shape, step))  # as many keys as fit
    index = relative_position_index(q_shape, key_shape, key_step=step)
    assert_index_properties(index, q_shape, key_shape, step)


@pytest.mark.parametrize("shape", [(2, 2), (3, 4), (5, 5)])
def test_seed_bugs_fail_the_properties(shape):
    assert index_has_properties(relative_position_index(shape), shape)
    assert index_has_properties(seed_000_index(*shape), shape)  # seed 000's index is right
    with pytest.raises(IndexError, match="too many indices"):
        seed_001_index(*shape)  # the seed's slice does not even run
    assert not index_has_properties(seed_001_index_slice_fixed(*shape), shape)
    assert not index_has_properties(multiply_by_2w_minus_2(*shape), shape)


def test_bias_module_names_shapes_and_buffers():
    bias = SwinRelativePositionBias((2, 7, 7), num_heads=4)
    assert bias.relative_position_bias_table.shape == (3 * 13 * 13, 4)
    assert bias().shape == (4, 98, 98)
    assert list(bias.state_dict()) == ["relative_position_bias_table"]  # index not persisted
    table = bias.relative_position_bias_table
    # Swin: trunc_normal_(std=.02) with the default bounds ±2 (absolute), i.e. effectively N(0, 0.02²)
    assert abs(table.std().item() - 0.02) < 0.003 and table.abs().max() > 0.04


def test_official_checkpoint_with_index_loads_and_a_wrong_index_is_refused():
    bias = SwinRelativePositionBias((2, 3), num_heads=2)
    table = torch.randn(3 * 5, 2)
    bias.load_state_dict(
        {"relative_position_bias_table": table, "relative_position_index": swin_index(2, 3)}
    )
    assert torch.equal(bias.relative_position_bias_table.detach(), table)
    with pytest.raises(ValueError, match=r"relative_position_index in the checkpoint differs"):
        bias.load_state_dict(
            {"relative_position_bias_table": table, "relative_position_index": swin_index(2, 3).T}
        )


def test_index_errors():
    with pytest.raises(ValueError, match=r"key_shape must have as many axes as query_shape"):
        relative_position_index((2, 2), (2,))
    with pytest.raises(
        ValueError, match=r"key coordinates on axis 0 reach 6 .* outside the query extent 0..5"
    ):
        relative_position_index((6, 2, 2), (4, 2, 2), key_step=(2, 1, 1))
    with pytest.raises(ValueError, match=r"query_shape\[1\] must be positive"):
        relative_position_index((2, 0))
    with pytest.raises(TypeError, match=r"query_shape must be a tuple of ints"):
        relative_position_index(7)
    with pytest.raises(ValueError, match=r"key_step must have as many axes"):
        relative_position_index((2, 2), key_step=(1,))


# ---------------------------------------------------------------------------------------------
# Windows, shifted-window mask and the attention module


def test_partition_and_merge_are_inverse():
    x = torch.randn(2, 6, 8, 3)
    windows = window_partition(x, (3, 4))
    assert windows.shape == (2 * 2 * 2, 12, 3)
    assert torch.equal(windows[1], x[0, 0:3, 4:8].reshape(12, 3))
    assert torch.equal(window_merge(windows, (3, 4), 6, 8), x)


def swin_attn_mask(h, w, ws, shift):
    """Swin's additive mask (0 or −100), transcribed, with square windows."""
    img_mask = torch.zeros((1, h, w, 1))
    cnt = 0
    slices = (slice(0, -ws), slice(-ws, -shift), slice(-shift, None))
    for hs in slices:
        for wsl in slices:
            img_mask[:, hs, wsl, :] = cnt
            cnt += 1
    mask_windows = window_partition(img_mask, (ws, ws)).squeeze(-1)
    attn = mask_windows.unsqueeze(1) - mask_windows.unsqueeze(2)
    return attn.masked_fill(attn != 0, -100.0).masked_fill(attn == 0, 0.0)


@pytest.mark.parametrize("h,w,ws,shift", [(8, 8, 4, 2), (12, 8, 4, 1), (14, 14, 7, 3)])
def test_shifted_window_mask_matches_swin(h, w, ws, shift):
    ours = shifted_window_mask(h, w, (ws, ws), (shift, shift))
    assert torch.equal(ours, swin_attn_mask(h, w, ws, shift) == 0)


def test_window_attention_matches_a_float64_transcription():
    torch.manual_seed(1)
    attn = WindowAttention(8, (2, 3), num_heads=2).double()
    x = torch.randn(4, 6, 8, dtype=torch.float64)
    mask = shifted_window_mask(4, 6, (2, 3), (1, 1))  # 4 windows
    out = attn(x, mask)
    # by hand, Swin style: additive bias from table[index], additive −inf mask
    qkv = attn.qkv(x).reshape(4, 6, 3, 2, 4).permute(2, 0, 3, 1, 4)
    q, k, v = qkv[0] * 4**-0.5, qkv[1], qkv[2]
    table = attn.relative_position.relative_position_bias_table
    bias = table[swin_index(2, 3).reshape(-1)].reshape(6, 6, 2).permute(2, 0, 1)
    logits = q @ k.transpose(-2, -1) + bias + torch.where(mask, 0.0, -math.inf)[:, None].double()
    ref = attn.proj((logits.softmax(-1) @ v).transpose(1, 2).reshape(4, 6, 8))
    torch.testing.assert_close(out, ref)
    with pytest.raises(ValueError, match=r"x must be \[windows, 6, 8\]"):
        attn(torch.randn(2, 5, 8, dtype=torch.float64))
    with pytest.raises(TypeError, match=r"mask must be a boolean"):
        attn(x, mask.double())


def test_window_shapes_are_checked_with_named_errors():
    with pytest.raises(
        ValueError, match=r"height and width \(5, 6\) must be multiples of window_size"
    ):
        window_merge(torch.zeros(6, 4, 1), (2, 2), 5, 6)
    with pytest.raises(ValueError, match=r"windows must be \[b·6, 4, c\]"):
        window_merge(torch.zeros(5, 4, 1), (2, 2), 4, 6)
    with pytest.raises(ValueError, match=r"height and width \(7, 8\) must be multiples"):
        shifted_window_mask(7, 8, (4, 4), (2, 2))
    attn = WindowAttention(8, (2, 2), num_heads=2)
    with pytest.raises(ValueError, match=r"mask must be \[n_w, 4, 4\]"):
        attn(torch.zeros(2, 4, 8), torch.ones(2, 3, 3, dtype=torch.bool))
    with pytest.raises(TypeError, match=r"mask must be a torch.Tensor"):
        attn(torch.zeros(2, 4, 8), [[True]])
    with pytest.raises(ValueError, match=r"multiple of mask's windows \(3\)"):
        attn(torch.zeros(2, 4, 8), torch.ones(3, 4, 4, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"^num_heads must divide dim, got dim=10, num_heads=3$"):
        WindowAttention(10, (2, 2), num_heads=3)


def test_window_attention_gives_every_image_the_mask_of_its_windows():
    torch.manual_seed(2)
    attn = WindowAttention(8, (2, 3), num_heads=2).double()
    mask = shifted_window_mask(4, 6, (2, 3), (1, 1))  # 4 windows per image
    x = torch.randn(3 * 4, 6, 8, dtype=torch.float64)  # 3 images
    out = attn(x, mask)
    for b in range(3):  # image by image, each with the 4 windows of the mask in order
        torch.testing.assert_close(out[4 * b : 4 * b + 4], attn(x[4 * b : 4 * b + 4], mask))
    # a mask that allows everything is no mask
    torch.testing.assert_close(attn(x, torch.ones_like(mask)), attn(x))


# ---------------------------------------------------------------------------------------------
# relative_offsets: the differences behind the index (added with chapter 8)


@pytest.mark.parametrize(
    "query_shape,key_shape,key_step",
    [
        ((2, 2), None, None),
        ((3, 2, 2), None, None),
        ((7, 2, 3), (4, 2, 3), (2, 1, 1)),
        ((5,), (2,), (4,)),
    ],
)
def test_relative_offsets_match_brute_force(query_shape, key_shape, key_step):
    ours = relative_offsets(query_shape, key_shape, key_step=key_step)
    assert ours.dtype == torch.long
    assert torch.equal(ours, offsets(query_shape, key_shape, key_step))


def test_relative_offsets_are_the_digits_of_the_index():
    """Undo the mixed-radix number digit by digit: the last axis first."""
    q_shape = (7, 3, 4)
    index = relative_position_index(q_shape, (4, 3, 4), key_step=(2, 1, 1))
    diff = relative_offsets(q_shape, (4, 3, 4), key_step=(2, 1, 1))
    rest = index.clone()
    for a in reversed(range(3)):
        radix = 2 * q_shape[a] - 1
        assert torch.equal(rest % radix - (q_shape[a] - 1), diff[..., a])
        rest = rest // radix
    assert torch.all(rest == 0)


def test_relative_offsets_errors_name_the_rule():
    with pytest.raises(
        ValueError, match=r"key coordinates on axis 0 reach 6 .* outside the query extent 0..5"
    ):
        relative_offsets((6, 4, 4), (4, 4, 4), key_step=(2, 1, 1))
    with pytest.raises(ValueError, match=r"key_step\[0\] must be positive"):
        relative_offsets((6, 4, 4), (4, 4, 4), key_step=(0, 1, 1))


def test_rstt_stride_pitfall_fails_only_when_the_bias_meets_the_logits():
    """RSTT's 6 → 4 frame module builds; the forward pass fails at `attn + bias`, and with two
    heads the message is about dimension 1 (heads), far from the cause (chapter 8)."""
    heads, n1, n2 = 2, 6 * 4 * 4, 4 * 4 * 4
    index = rstt_index(6, 4, 4, 4)  # built without complaint: 96 key columns for 64 keys
    table = torch.zeros((2 * 6 - 1) * 7 * 7, heads)
    bias = table[index.view(-1)].view(n1, n2, -1).permute(2, 0, 1)  # the view still succeeds
    assert bias.shape == (3, n1, n2)
    with pytest.raises(
        RuntimeError,
        match=r"size of tensor a \(2\) must match the size of tensor b \(3\) at non-singleton dimension 1",
    ):
        torch.zeros(1, heads, n1, n2) + bias.unsqueeze(0)


@given(
    d1=st.integers(1, 7),
    d2=st.integers(1, 7),
    step=st.integers(1, 3),
    wh=st.integers(1, 3),
    ww=st.integers(1, 3),
)
def test_cross_index_is_the_self_index_at_the_key_frames_times(d1, d2, step, wh, ww):
    """Chapter 8: RSTT's cross-attention index (attn2, keys at times s·m) is its self-attention
    index (attn1) restricted to the key frames' columns, so a table row means the same offset."""
    from hypothesis import assume

    assume((d2 - 1) * step <= d1 - 1)
    cross = relative_position_index((d1, wh, ww), (d2, wh, ww), key_step=(step, 1, 1))
    self_index = relative_position_index((d1, wh, ww))  # [N_q, N_q]
    columns = self_index.reshape(d1 * wh * ww, d1, wh * ww)[:, 0 : (d2 - 1) * step + 1 : step]
    assert torch.equal(cross, columns.reshape(d1 * wh * ww, d2 * wh * ww))


# ---------------------------------------------------------------------------------------------
# Strict inputs (issue 11): each bad argument is refused with a message naming it


@pytest.mark.parametrize(
    ("call", "error", "name"),
    [
        # shapes: wrong type, wrong length, bools and non-positive sizes
        (lambda: relative_table_size(7), TypeError, "query_shape"),
        (lambda: relative_table_size("77"), TypeError, "query_shape"),
        (lambda: relative_table_size(b"\x07\x07"), TypeError, "query_shape"),
        (lambda: relative_table_size(()), ValueError, "query_shape"),
        (lambda: relative_table_size((7, True)), TypeError, "query_shape[1]"),
        (lambda: relative_table_size((7, 0)), ValueError, "query_shape[1]"),
        (lambda: relative_table_size((7, 2.0)), TypeError, "query_shape[1]"),
        (
            lambda: relative_position_index((2, 2), (2, 2), key_step=(1, False)),
            TypeError,
            "key_step[1]",
        ),
        (lambda: relative_offsets((2, 2), 2), TypeError, "key_shape"),
        (lambda: window_partition(torch.zeros(1, 4, 4, 2), (2, 2, 2)), ValueError, "window_size"),
        (lambda: window_partition(torch.zeros(1, 4, 4, 2), 2), TypeError, "window_size"),
        (lambda: window_partition(torch.zeros(1, 4, 4, 2), (2,)), ValueError, "window_size"),
        (lambda: window_merge(torch.zeros(4, 4, 2), (2, 2, 1), 4, 4), ValueError, "window_size"),
        (lambda: window_merge(torch.zeros(4, 4, 2), (2, 2), True, 4), TypeError, "height"),
        (lambda: shifted_window_mask(4, 4, (2, 2), 1), TypeError, "shift"),
        (lambda: shifted_window_mask(4, 4, (2, 2), (1,)), ValueError, "shift"),
        (lambda: shifted_window_mask(4, 4, (2, 2), (1, 1, 1)), ValueError, "shift"),
        (lambda: shifted_window_mask(4, 4, (2, 2), (1, -1)), ValueError, "shift[1]"),
        (lambda: shifted_window_mask(4, 4, (2, 2), (1, 1.5)), TypeError, "shift[1]"),
        (lambda: shifted_window_mask(4, 4, (2, 2), (2, 0)), ValueError, "shift"),
        (lambda: shifted_window_mask(4, 4, (2,), (1, 1)), ValueError, "window_size"),
        (lambda: shifted_window_mask(4.0, 4, (2, 2), (1, 1)), TypeError, "height"),
        # modules' constructors
        (lambda: SwinRelativePositionBias((2, 2), True), TypeError, "num_heads"),
        (lambda: SwinRelativePositionBias(2, 2), TypeError, "query_shape"),
        (lambda: SwinRelativePositionBias((2, 0), 2), ValueError, "query_shape[1]"),
        (lambda: WindowAttention(8, (2, 2), 2, qkv_bias="False"), TypeError, "qkv_bias"),
        (lambda: WindowAttention(8, (2, 2, 2), 2), ValueError, "window_size"),
        (lambda: WindowAttention(8, 2, 2), TypeError, "window_size"),
        (lambda: WindowAttention(8, (2, 2), 3), ValueError, "num_heads"),
        (lambda: WindowAttention(True, (2, 2), 1), TypeError, "dim"),
        # forwards: dtypes and shapes
        (
            lambda: WindowAttention(8, (2, 2), 2)(torch.zeros(3, 4, 8, dtype=torch.long)),
            TypeError,
            "x",
        ),
        (
            lambda: WindowAttention(8, (2, 2), 2)(torch.zeros(3, 4, 8, dtype=torch.float64)),
            TypeError,
            "x",
        ),
        (lambda: WindowAttention(8, (2, 2), 2)(torch.zeros(3, 5, 8)), ValueError, "x"),
        (
            lambda: WindowAttention(8, (2, 2), 2)(torch.zeros(4, 4, 8), torch.ones(2, 4, 4)),
            TypeError,
            "mask",
        ),
        (
            lambda: WindowAttention(8, (2, 2), 2)(
                torch.zeros(4, 4, 8), torch.ones(2, 3, 4, dtype=torch.bool)
            ),
            ValueError,
            "(2, 3, 4)",
        ),
        (
            lambda: WindowAttention(8, (2, 2), 2)(
                torch.zeros(4, 4, 8), torch.ones(0, 4, 4, dtype=torch.bool)
            ),
            ValueError,
            "mask",
        ),
        (
            lambda: WindowAttention(8, (2, 2), 2)(
                torch.zeros(3, 4, 8), torch.ones(2, 4, 4, dtype=torch.bool)
            ),
            ValueError,
            "mask",
        ),
        (
            lambda: WindowAttention(8, (2, 2), 2)(
                torch.zeros(4, 4, 8), shifted_window_mask(4, 4, (2, 2), (1, 1)).to("meta")
            ),
            ValueError,
            "mask",
        ),
    ],
)
def test_bad_arguments_are_refused_by_name(call, error, name):
    with pytest.raises(error) as info:
        call()
    assert name in str(info.value)


def test_empty_maps_and_batches_partition_and_merge():
    x = torch.zeros(0, 4, 6, 3)
    windows = window_partition(x, (2, 3))
    assert windows.shape == (0, 6, 3)
    assert window_merge(windows, (2, 3), 4, 6).shape == (0, 4, 6, 3)
    no_channels = torch.zeros(2, 4, 6, 0)
    assert window_partition(no_channels, (2, 3)).shape == (8, 6, 0)
    assert window_merge(torch.zeros(8, 6, 0), (2, 3), 4, 6).shape == (2, 4, 6, 0)
    attention = WindowAttention(8, (2, 2), 2)
    assert attention(torch.zeros(0, 4, 8)).shape == (0, 4, 8)
    mask = shifted_window_mask(4, 4, (2, 2), (1, 1))
    assert attention(torch.zeros(0, 4, 8), mask).shape == (0, 4, 8)


@pytest.mark.parametrize(
    ("build", "key", "saved"),
    [
        (
            lambda: SwinRelativePositionBias((3, 3), 2),
            "relative_position_bias_table",
            lambda: SwinRelativePositionBias((2, 2), 2),
        ),
        (
            lambda: SwinRelativePositionBias((2, 2), 3),
            "relative_position_bias_table",
            lambda: SwinRelativePositionBias((2, 2), 2),
        ),
        (
            lambda: WindowAttention(8, (3, 3), 2),
            "relative_position.relative_position_bias_table",
            lambda: WindowAttention(8, (2, 2), 2),
        ),
        (
            lambda: WindowAttention(16, (2, 2), 2),
            "qkv.weight",
            lambda: WindowAttention(8, (2, 2), 2),
        ),
    ],
)
def test_state_dict_of_the_wrong_size_names_the_table_and_both_sizes(build, key, saved):
    state = saved().state_dict()
    module = build()
    with pytest.raises(ValueError) as info:
        module.load_state_dict(state)
    message = str(info.value)
    assert repr(key) in message
    assert str(tuple(state[key].shape)) in message
    assert str(tuple(module.state_dict()[key].shape)) in message


def test_state_dict_index_that_is_not_a_tensor_is_refused():
    module = SwinRelativePositionBias((2, 2), 2)
    state = dict(module.state_dict(), relative_position_index=[[0]])
    with pytest.raises(TypeError, match="relative_position_index"):
        module.load_state_dict(state)


def test_window_modules_keep_the_meta_device():
    attention = WindowAttention(8, (2, 2), 2).to("meta")
    mask = shifted_window_mask(4, 4, (2, 2), (1, 1)).to("meta")
    out = attention(torch.empty(8, 4, 8, device="meta"), mask)
    assert out.device.type == "meta" and out.shape == (8, 4, 8)
    bias = SwinRelativePositionBias((2, 3), 2).to("meta")()
    assert bias.device.type == "meta" and bias.shape == (2, 6, 6)


def test_window_attention_follows_autocast():
    layer = WindowAttention(8, (2, 3), 2)
    x = torch.randn(3, 6, 8)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = layer(x)
    assert y.dtype == torch.bfloat16
    torch.testing.assert_close(y.float(), layer(x), atol=5e-2, rtol=5e-2)
