"""posenc.rotary_nd against transformers' Qwen2-VL (M-RoPE and its vision RoPE), timm and the formula."""

import math

import pytest
import torch
from transformers.models.qwen2_vl.configuration_qwen2_vl import (
    Qwen2VLTextConfig,
    Qwen2VLVisionConfig,
)
from transformers.models.qwen2_vl.modeling_qwen2_vl import (
    Qwen2VLRotaryEmbedding,
    Qwen2VLVisionRotaryEmbedding,
    apply_rotary_pos_emb,
)

from posenc.rotary import rotary_angles
from posenc.rotary_nd import (
    apply_rotary_nd,
    rotary_angles_2d,
    rotary_angles_nd,
    rotary_cos_sin_nd,
    rotary_pair_axes,
)

F64 = torch.float64

# (dim, mrope_section, rope_theta)
MROPE_CONFIGS = [
    (32, [8, 4, 4], 1e6),
    (128, [16, 24, 24], 1e6),
    (48, [8, 8, 8], 1e4),
    (16, [2, 3, 3], 500.0),
]


def qwen2_vl_cos_sin(dim, sections, theta, position_ids):
    """transformers' Qwen2VLRotaryEmbedding: position_ids [3, b, n] -> cos, sin [b, n, d]."""
    config = Qwen2VLTextConfig(
        hidden_size=2 * dim,
        num_attention_heads=2,
        rope_parameters={"rope_type": "default", "rope_theta": theta, "mrope_section": sections},
    )
    rope = Qwen2VLRotaryEmbedding(config)
    return rope(torch.zeros(1, dtype=torch.float32), position_ids)


def grid_positions(b, n, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, 40, (b, n, 3), generator=g)  # [b, n, 3]: (t, h, w)


def mrope_loop(positions, dim, sections, base):
    """The formula pair by pair in float64: pair j turns with the axis of its section."""
    out = torch.zeros(*positions.shape[:-1], dim // 2, dtype=F64)
    axis_of = []
    for axis, count in enumerate(sections):
        axis_of += [axis] * count
    for j in range(dim // 2):
        out[..., j] = positions[..., axis_of[j]].to(F64) * base ** (-2 * j / dim)
    return out


@pytest.mark.parametrize(("dim", "sections", "theta"), MROPE_CONFIGS)
def test_mrope_matches_qwen2_vl_cos_sin(dim, sections, theta):
    positions = grid_positions(2, 7, dim)  # [b, n, 3]
    cos_ref, sin_ref = qwen2_vl_cos_sin(dim, sections, theta, positions.permute(2, 0, 1))
    angles = rotary_angles_nd(positions, dim, base=theta, sections=sections)  # [b, n, d/2]
    assert angles.dtype == F64 and angles.shape == (2, 7, dim // 2)
    cos, sin = rotary_cos_sin_nd(angles, interleaved=False)  # [b, n, d]
    # Qwen2-VL computes the angles in float32: positions < 40 give errors below 1e-5
    torch.testing.assert_close(cos, cos_ref, rtol=0, atol=2e-5)
    torch.testing.assert_close(sin, sin_ref, rtol=0, atol=2e-5)
    # the half of the angles, as they lay them out: cat((freq, freq))
    ref_angles = torch.atan2(sin_ref.double(), cos_ref.double())[..., : dim // 2]
    wrapped = torch.remainder(angles - ref_angles + math.pi, 2 * math.pi) - math.pi
    assert wrapped.abs().max() < 2e-5


@pytest.mark.parametrize(("dim", "sections", "theta"), MROPE_CONFIGS)
def test_mrope_matches_the_formula_in_float64(dim, sections, theta):
    positions = grid_positions(3, 5, dim + 1).double() + 0.25  # real coordinates too
    got = rotary_angles_nd(positions, dim, base=theta, sections=sections)
    torch.testing.assert_close(got, mrope_loop(positions, dim, sections, theta), rtol=1e-13, atol=0)


@pytest.mark.parametrize(("dim", "sections", "theta"), MROPE_CONFIGS)
def test_apply_rotary_nd_matches_qwen2_vl_apply_rotary_pos_emb(dim, sections, theta):
    b, h, n = 2, 3, 6
    positions = grid_positions(b, n, dim + 2)  # [b, n, 3]
    g = torch.Generator().manual_seed(dim)
    q = torch.randn(b, h, n, dim, generator=g)
    k = torch.randn(b, h, n, dim, generator=g)
    cos, sin = qwen2_vl_cos_sin(dim, sections, theta, positions.permute(2, 0, 1))
    q_ref, k_ref = apply_rotary_pos_emb(q, k, cos, sin)
    pos = positions[:, None]  # [b, 1, n, 3]
    q_got = apply_rotary_nd(q, pos, base=theta, sections=sections, interleaved=False)
    k_got = apply_rotary_nd(k, pos, base=theta, sections=sections, interleaved=False)
    torch.testing.assert_close(q_got, q_ref, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(k_got, k_ref, rtol=1e-4, atol=1e-4)


def test_mrope_with_equal_coordinates_is_1d_rope():
    t = torch.arange(9.0)
    positions = t[:, None].expand(9, 3)  # text tokens: (t, t, t)
    got = rotary_angles_nd(positions, 48, sections=[4, 12, 8])
    torch.testing.assert_close(got, rotary_angles(t, 48), rtol=0, atol=0)


def test_default_sections_are_equal():
    assert rotary_pair_axes(12, 3).tolist() == [0, 0, 1, 1, 2, 2]
    assert rotary_pair_axes(8, 2).tolist() == [0, 0, 1, 1]
    assert rotary_pair_axes(128, 3, sections=[16, 24, 24]).bincount().tolist() == [16, 24, 24]
    assert rotary_pair_axes(8, 2, sections=[0, 4]).tolist() == [1, 1, 1, 1]
    positions = grid_positions(1, 4, 0)
    torch.testing.assert_close(
        rotary_angles_nd(positions, 12), rotary_angles_nd(positions, 12, sections=[2, 2, 2])
    )


@pytest.mark.parametrize("interleaved", [True, False])
def test_logits_depend_on_the_offset_per_axis(interleaved):
    g = torch.Generator().manual_seed(1)
    q, k = torch.randn(32, generator=g, dtype=F64), torch.randn(32, generator=g, dtype=F64)
    p_q = torch.tensor([[3.0, 1.0, 4.0]], dtype=F64)
    p_k = torch.tensor([[1.0, 5.0, 9.0]], dtype=F64)
    shift = torch.tensor([[7.0, -2.0, 11.0]], dtype=F64)

    def logit(pq, pk):
        kw = {"sections": [4, 6, 6], "interleaved": interleaved}
        return (apply_rotary_nd(q[None], pq, **kw) * apply_rotary_nd(k[None], pk, **kw)).sum()

    torch.testing.assert_close(logit(p_q, p_k), logit(p_q + shift, p_k + shift))
    assert not torch.allclose(logit(p_q, p_k), logit(p_q + shift, p_k))


# ---------------------------------------------------------------------------------------------
# 2-D axial RoPE


def timm_build_rotary_pos_embed(feat_shape, dim, temperature, rotate_half=False):
    """timm 1.0.31 layers/pos_embed_sincos.py build_rotary_pos_embed(feat_shape, dim=dim,
    in_pixels=False, temperature=temperature, rotate_half=rotate_half), transcribed in float64:
    freq_bands(dim // 4, temperature, step=1), grid 'index' with 'ij' indexing,
    pos = grid.unsqueeze(-1) * bands, flatten(-2).flatten(0, -2), then _rope_layout."""
    num_bands = dim // 4
    bands = 1.0 / (temperature ** (torch.arange(0, num_bands, 1, dtype=F64) / num_bands))
    t = [torch.arange(s, dtype=F64) for s in feat_shape]
    grid = torch.stack(torch.meshgrid(t, indexing="ij"), dim=-1)  # [H, W, 2]
    pos = grid.unsqueeze(-1) * bands  # [H, W, 2, d/4]
    sin_emb, cos_emb = pos.sin(), pos.cos()

    def layout(x):
        x = x.flatten(-2).flatten(0, -2)  # [H*W, d/2]
        return torch.cat([x, x], dim=-1) if rotate_half else x.repeat_interleave(2, -1)

    return layout(sin_emb), layout(cos_emb)


AXIAL_CONFIGS = [(3, 4, 16, 10000.0), (5, 5, 32, 10000.0), (2, 7, 64, 100.0), (1, 6, 8, 10000.0)]


@pytest.mark.parametrize(("height", "width", "dim", "theta"), AXIAL_CONFIGS)
def test_axial_2d_matches_qwen2_vl_vision_rope(height, width, dim, theta):
    config = Qwen2VLVisionConfig(embed_dim=2 * dim, num_heads=2)
    config.rope_parameters = {"rope_type": "axial", "rope_theta": theta}
    rope = Qwen2VLVisionRotaryEmbedding(config)
    rows, cols = torch.meshgrid(torch.arange(height), torch.arange(width), indexing="ij")
    position_ids = torch.stack((rows.flatten(), cols.flatten()), dim=-1)  # [N, 2]: (h, w)
    cos_ref, sin_ref = rope(torch.zeros(1), position_ids)  # [N, d]
    angles = rotary_angles_2d(height, width, dim, base=theta)  # [N, d/2]
    assert angles.dtype == F64 and angles.shape == (height * width, dim // 2)
    cos, sin = rotary_cos_sin_nd(angles, interleaved=False)
    torch.testing.assert_close(cos, cos_ref, rtol=0, atol=1e-5)
    torch.testing.assert_close(sin, sin_ref, rtol=0, atol=1e-5)


@pytest.mark.parametrize(("height", "width", "dim", "theta"), AXIAL_CONFIGS)
@pytest.mark.parametrize("interleaved", [True, False])
def test_axial_2d_matches_timm_build_rotary_pos_embed(height, width, dim, theta, interleaved):
    sin_ref, cos_ref = timm_build_rotary_pos_embed(
        [height, width], dim, theta, rotate_half=not interleaved
    )
    angles = rotary_angles_2d(height, width, dim, base=theta)
    cos, sin = rotary_cos_sin_nd(angles, interleaved=interleaved, dtype=F64)
    torch.testing.assert_close(cos, cos_ref, rtol=1e-13, atol=1e-13)
    torch.testing.assert_close(sin, sin_ref, rtol=1e-13, atol=1e-13)


def test_axial_2d_is_1d_rope_per_axis():
    angles = rotary_angles_2d(3, 5, 24, base=50.0).reshape(3, 5, 12)
    rows, cols = rotary_angles(3, 12, base=50.0), rotary_angles(5, 12, base=50.0)
    torch.testing.assert_close(angles[..., :6], rows[:, None].expand(3, 5, 6))
    torch.testing.assert_close(angles[..., 6:], cols[None].expand(3, 5, 6))


def test_cos_sin_layouts():
    angles = torch.tensor([[0.1, 0.2, 0.3]], dtype=F64)
    cos, _ = rotary_cos_sin_nd(angles, dtype=F64)
    torch.testing.assert_close(
        cos, torch.cos(torch.tensor([[0.1, 0.1, 0.2, 0.2, 0.3, 0.3]], dtype=F64))
    )
    cos, sin = rotary_cos_sin_nd(angles, interleaved=False)
    assert cos.dtype == torch.float32
    torch.testing.assert_close(
        sin, torch.sin(torch.tensor([[0.1, 0.2, 0.3, 0.1, 0.2, 0.3]])), rtol=0, atol=1e-7
    )


# ---------------------------------------------------------------------------------------------
# Refusals

POS = torch.zeros(4, 3)


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: rotary_angles_nd(POS, 13), ValueError, "dim must be even"),
        (lambda: rotary_angles_nd(POS, 8), ValueError, "multiple of the 3 axes"),
        (lambda: rotary_angles_nd(POS, 12, sections=[2, 2]), ValueError, "one entry per axis"),
        (lambda: rotary_angles_nd(POS, 12, sections=[2, 2, 3]), ValueError, "sum to dim/2"),
        (lambda: rotary_angles_nd(POS, 12, sections=[4, 4, -2]), ValueError, "sections[2]"),
        (lambda: rotary_angles_nd(POS, 12, sections=[2, True, 3]), TypeError, "sections[1]"),
        (lambda: rotary_angles_nd(POS, 12, sections=[2.0, 2, 2]), TypeError, "sections[0]"),
        (lambda: rotary_angles_nd(POS, 12, sections="222"), TypeError, "sections"),
        (lambda: rotary_angles_nd(POS, 12, sections=6), TypeError, "sections"),
        (lambda: rotary_angles_nd(POS, 12, base=1.0), ValueError, "base"),
        (lambda: rotary_angles_nd([[0, 1, 2]], 12), TypeError, "positions"),
        (lambda: rotary_angles_nd(torch.zeros(3), 12), ValueError, "at least 2 dimensions"),
        (lambda: rotary_angles_nd(torch.zeros(3, 0), 12), ValueError, "at least one axis"),
        (lambda: rotary_angles_nd(POS.bool(), 12), TypeError, "real numbers"),
        (lambda: rotary_angles_nd(POS.cfloat(), 12), TypeError, "real numbers"),
        (lambda: rotary_angles_nd(POS + float("nan"), 12), ValueError, "finite"),
        (lambda: rotary_pair_axes(12, 0), ValueError, "num_axes"),
        (lambda: rotary_pair_axes(12, 2.0), TypeError, "num_axes"),
        (lambda: rotary_angles_2d(3, 4, 18), ValueError, "multiple of 4"),
        (lambda: rotary_angles_2d(0, 4, 16), ValueError, "height"),
        (lambda: rotary_angles_2d(3, 4.0, 16), TypeError, "width"),
        (lambda: rotary_angles_2d(3, 4, 16, base=0.5), ValueError, "base"),
        (lambda: rotary_cos_sin_nd(POS.long()), TypeError, "angles"),
        (lambda: rotary_cos_sin_nd(torch.zeros(())), ValueError, "angles"),
        (lambda: rotary_cos_sin_nd(POS, interleaved=1), TypeError, "interleaved"),
        (lambda: rotary_cos_sin_nd(POS, dtype=torch.int64), ValueError, "dtype"),
        (lambda: apply_rotary_nd(torch.zeros(4, 12).long(), POS), TypeError, "x"),
        (lambda: apply_rotary_nd(torch.zeros(12), POS), ValueError, "at least 2"),
        (lambda: apply_rotary_nd(torch.zeros(4, 11), POS), ValueError, "even"),
        (lambda: apply_rotary_nd(torch.zeros(5, 12), POS), ValueError, "5 tokens"),
        (
            lambda: apply_rotary_nd(torch.zeros(2, 4, 12), torch.zeros(3, 4, 3)),
            ValueError,
            "broadcast",
        ),
        (
            lambda: apply_rotary_nd(torch.zeros(4, 12), POS, interleaved="no"),
            TypeError,
            "interleaved",
        ),
    ],
)
def test_refusals(call, error, words):
    with pytest.raises(error, match=words.replace("[", r"\[").replace("]", r"\]")):
        call()


def test_outputs_follow_the_device_of_the_inputs():
    meta = torch.device("meta")
    assert rotary_angles_nd(POS.to(meta), 12).device == meta
    assert rotary_angles_2d(2, 3, 8, device=meta).device == meta
    assert rotary_cos_sin_nd(torch.zeros(4, 6, device=meta))[0].device == meta
