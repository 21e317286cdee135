"""posenc.rotary.stretched_rotary_frequencies: plain, NTK-aware and partial RoPE, and the rest.

References: float64 transcriptions of bloc97's NTK-aware base, written here; transformers
5.23.0 ``ROPE_INIT_FUNCTIONS["dynamic"]`` (the same base at one length) and
``_compute_default_rope_parameters`` with ``partial_rotary_factor``; GPT-NeoX's
``apply_rotary_pos_emb`` (partial rotation of the first ``rotary_ndims`` channels).
"""

import math

import pytest
import torch
from transformers import GPTNeoXConfig, LlamaConfig
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
from transformers.models.gpt_neox.modeling_gpt_neox import (
    GPTNeoXRotaryEmbedding,
    apply_rotary_pos_emb,
)

from posenc.rotary import apply_rotary, scaled_rotary_frequencies, stretched_rotary_frequencies

F64 = torch.float64


def test_plain_is_base_to_the_minus_2i_over_d():
    inv_freq, scale = stretched_rotary_frequencies(12, "plain", base=500.0)
    expected = torch.tensor([500.0 ** (-2 * i / 12) for i in range(6)], dtype=F64)
    torch.testing.assert_close(inv_freq, expected, rtol=1e-15, atol=0)
    assert scale == 1.0 and inv_freq.dtype == F64


@pytest.mark.parametrize(
    ("dim", "base", "factor"), [(8, 1e4, 4.0), (128, 5e5, 8.0), (64, 1e4, 2.5)]
)
def test_ntk_is_bloc97s_larger_base(dim, base, factor):
    inv_freq, scale = stretched_rotary_frequencies(dim, "ntk", base=base, factor=factor)
    stretched = base * factor ** (dim / (dim - 2))
    expected = torch.tensor([stretched ** (-2 * i / dim) for i in range(dim // 2)], dtype=F64)
    torch.testing.assert_close(inv_freq, expected, rtol=1e-13, atol=0)
    assert scale == 1.0
    plain = base ** (-torch.arange(0, dim, 2, dtype=F64) / dim)
    assert inv_freq[0] == plain[0] == 1.0  # the fastest pair is kept
    assert math.isclose(float(plain[-1] / inv_freq[-1]), factor, rel_tol=1e-12)  # slowest: ÷ s


@pytest.mark.parametrize(("dim", "factor", "original"), [(8, 4.0, 16), (64, 8.0, 2048)])
def test_ntk_is_dynamic_frozen_at_one_length(dim, factor, original):
    # transformers' dynamic NTK with factor 1 at seq_len = s·L0 has base·s^(d/(d−2))
    config = LlamaConfig(
        hidden_size=2 * dim,
        num_attention_heads=2,
        head_dim=dim,
        max_position_embeddings=original,
        rope_parameters={"rope_type": "dynamic", "rope_theta": 10000.0, "factor": 1.0},
    )
    theirs, _ = ROPE_INIT_FUNCTIONS["dynamic"](config, "cpu", seq_len=round(factor * original))
    ours, _ = stretched_rotary_frequencies(dim, "ntk", factor=factor)
    torch.testing.assert_close(ours.float(), theirs, rtol=2e-6, atol=0)
    same, _ = scaled_rotary_frequencies(
        dim,
        "dynamic",
        factor=1.0,
        original_max_positions=original,
        seq_len=round(factor * original),
    )
    torch.testing.assert_close(ours, same, rtol=1e-12, atol=0)


@pytest.mark.parametrize(("dim", "rotary_dim"), [(64, 16), (32, 8), (8, 8), (8, 2)])
def test_partial_matches_transformers_partial_rotary_factor(dim, rotary_dim):
    config = GPTNeoXConfig(
        hidden_size=2 * dim,
        num_attention_heads=2,
        rope_parameters={
            "rope_type": "default",
            "rope_theta": 10000.0,
            "partial_rotary_factor": rotary_dim / dim,
        },
    )
    theirs, _ = GPTNeoXRotaryEmbedding.compute_default_rope_parameters(config, "cpu")
    ours, scale = stretched_rotary_frequencies(dim, "partial", rotary_dim=rotary_dim)
    assert ours.shape == (dim // 2,) and scale == 1.0
    torch.testing.assert_close(ours[: rotary_dim // 2].float(), theirs, rtol=1e-6, atol=0)
    assert (ours[rotary_dim // 2 :] == 0).all()  # not rotated: no position at all


@pytest.mark.parametrize(("dim", "rotary_dim"), [(16, 4), (12, 8), (8, 8)])
def test_partial_logits_equal_gpt_neox_up_to_a_channel_permutation(dim, rotary_dim):
    n, r, half = 7, rotary_dim, dim // 2
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(2, 1, 1, n, dim, generator=g, dtype=F64)  # [b, h, n, d] each
    # GPT-NeoX: rotate-half on the first r channels, the rest passed through
    inv = 10000.0 ** (-torch.arange(0, r, 2, dtype=F64) / r)  # [r/2]
    angles = torch.arange(n, dtype=F64)[:, None] * inv  # [n, r/2]
    emb = torch.cat((angles, angles), -1)[None]  # [1, n, r]
    q_neox, k_neox = apply_rotary_pos_emb(q, k, emb.cos(), emb.sin())
    logits_neox = q_neox @ k_neox.transpose(-1, -2)  # [1, 1, n, n]
    # ours: pair c = channels (c, c + d/2); NeoX's pair c = (c, c + r/2), then r.. passed
    perm = list(range(r // 2)) + list(range(r, r + half - r // 2))
    perm += list(range(r // 2, r)) + list(range(r + half - r // 2, dim))
    inv_freq, _ = stretched_rotary_frequencies(dim, "partial", rotary_dim=r)
    q_ours = apply_rotary(q[..., perm], torch.arange(n), inv_freq=inv_freq, interleaved=False)
    k_ours = apply_rotary(k[..., perm], torch.arange(n), inv_freq=inv_freq, interleaved=False)
    torch.testing.assert_close(
        q_ours @ k_ours.transpose(-1, -2), logits_neox, rtol=1e-12, atol=1e-12
    )


@pytest.mark.parametrize(
    ("method", "kwargs"),
    [
        ("linear", {"factor": 4.0}),
        ("dynamic", {"factor": 4.0, "original_max_positions": 16, "seq_len": 64}),
        ("yarn", {"factor": 4.0, "original_max_positions": 16}),
        ("llama3", {"factor": 8.0, "original_max_positions": 8192}),
    ],
)
def test_the_other_methods_are_scaled_rotary_frequencies(method, kwargs):
    ours = stretched_rotary_frequencies(32, method, base=500.0, **kwargs)
    theirs = scaled_rotary_frequencies(32, method, base=500.0, **kwargs)
    assert torch.equal(ours[0], theirs[0]) and ours[1] == theirs[1]


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: stretched_rotary_frequencies(8, "xpos"), ValueError, "method must be one of"),
        (lambda: stretched_rotary_frequencies(7, "plain"), ValueError, "dim must be even"),
        (lambda: stretched_rotary_frequencies(8, "plain", base=1.0), ValueError, "base"),
        (
            lambda: stretched_rotary_frequencies(8, "plain", factor=2.0),
            ValueError,
            "factor is not used",
        ),
        (lambda: stretched_rotary_frequencies(8, "ntk", factor=0.0), ValueError, "factor must be"),
        (
            lambda: stretched_rotary_frequencies(8, "ntk", factor=2.0, original_max_positions=4),
            ValueError,
            "original_max_positions is not used",
        ),
        (
            lambda: stretched_rotary_frequencies(8, "ntk", seq_len=4),
            ValueError,
            "seq_len is not used",
        ),
        (
            lambda: stretched_rotary_frequencies(8, "partial"),
            ValueError,
            "rotary_dim .* is required",
        ),
        (
            lambda: stretched_rotary_frequencies(8, "partial", rotary_dim=3),
            ValueError,
            "rotary_dim must be even",
        ),
        (
            lambda: stretched_rotary_frequencies(8, "partial", rotary_dim=10),
            ValueError,
            "rotary_dim must be <= dim",
        ),
        (
            lambda: stretched_rotary_frequencies(8, "partial", rotary_dim=True),
            TypeError,
            "rotary_dim",
        ),
        (
            lambda: stretched_rotary_frequencies(
                8, "yarn", factor=2.0, original_max_positions=4, rotary_dim=4
            ),
            ValueError,
            "rotary_dim is used by method='partial' only",
        ),
        (
            lambda: stretched_rotary_frequencies(8, "yarn", factor=2.0),
            ValueError,
            "original_max_positions",
        ),
    ],
)
def test_refusals_name_the_argument(call, error, match):
    with pytest.raises(error, match=match):
        call()
