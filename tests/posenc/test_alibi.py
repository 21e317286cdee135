"""posenc.alibi against the paper's slopes, the official get_slopes, Bloom and MPT, and properties."""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from transformers.models.bloom.modeling_bloom import _get_alibi_slopes, build_alibi_tensor
from transformers.models.mpt.modeling_mpt import build_mpt_alibi_tensor

from book.toy import TinyTransformer
from posenc.alibi import ALiBiBias, alibi_bias, alibi_distances, alibi_slopes
from posenc.attention import attention_weights, causal_mask
from tests.references import official_get_slopes

F64 = torch.float64


# -- slopes -----------------------------------------------------------------------------------


def test_golden_slopes():
    assert alibi_slopes(8).tolist() == [
        1 / 2,
        1 / 4,
        1 / 8,
        1 / 16,
        1 / 32,
        1 / 64,
        1 / 128,
        1 / 256,
    ]
    r = 2**-0.5
    # 12 heads: the 8 slopes of 8 heads, then slopes 1, 3, 5, 7 of 16 heads (2^-0.5 · 2^-k)
    twelve = [1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64, 1 / 128, 1 / 256, r, r / 2, r / 4, r / 8]
    torch.testing.assert_close(
        alibi_slopes(12), torch.tensor(twelve, dtype=F64), rtol=1e-15, atol=0
    )
    # 6 heads: the 4 slopes of 4 heads (2^-2k), then slopes 1 and 3 of 8 heads
    assert alibi_slopes(6).tolist() == [1 / 4, 1 / 16, 1 / 64, 1 / 256, 1 / 2, 1 / 8]
    assert alibi_slopes(1).tolist() == [1 / 256]
    sixteen = alibi_slopes(16)
    torch.testing.assert_close(
        sixteen, torch.tensor([r**k for k in range(1, 17)], dtype=F64), rtol=1e-14, atol=0
    )


@pytest.mark.parametrize("n", range(1, 65))
def test_slopes_match_official_code(n):
    torch.testing.assert_close(
        alibi_slopes(n), torch.tensor(official_get_slopes(n), dtype=F64), rtol=1e-14, atol=0
    )


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 12, 16, 20, 24, 32, 40, 48, 64, 96, 112])
def test_slopes_match_bloom_and_mpt(n):
    ours = alibi_slopes(n)
    torch.testing.assert_close(
        _get_alibi_slopes(n, torch.device("cpu")).double(), ours, rtol=1e-6, atol=0
    )
    # MPT builds slopes·(j − (L − 1)) for L keys: at j = 0 that is −(L − 1)·slope
    mpt = build_mpt_alibi_tensor(n, 2)  # [h, 1, 2]
    torch.testing.assert_close(-mpt[:, 0, 0].double(), ours, rtol=1e-6, atol=0)


@given(n=st.integers(1, 300))
def test_slope_properties(n):
    s = alibi_slopes(n)
    assert s.shape == (n,) and s.dtype == F64
    assert len(set(s.tolist())) == n  # no two heads alike
    assert (s > 0).all() and (s < 1).all()
    low = 1 << (n.bit_length() - 1)
    assert (s[1:low] < s[: low - 1]).all()  # the power-of-two part decreases geometrically
    torch.testing.assert_close(
        s[1:low] / s[: low - 1], torch.full((low - 1,), 2 ** (-8 / low), dtype=F64)
    )


# -- biases -----------------------------------------------------------------------------------


def test_golden_bias():
    # 2 heads: slopes 1/16 and 1/256; 3 queries at positions 2, 3, 4 of 5 keys
    expected_head0 = (
        -torch.tensor([[2, 1, 0, 0, 0], [3, 2, 1, 0, 0], [4, 3, 2, 1, 0]], dtype=F64) / 16
    )
    bias = alibi_bias(3, 5, 2, dtype=F64)
    assert bias.shape == (2, 3, 5)
    torch.testing.assert_close(bias[0], expected_head0, rtol=0, atol=0)
    torch.testing.assert_close(bias[1], expected_head0 * 16 / 256, rtol=0, atol=0)
    assert not torch.signbit(bias).logical_and(bias == 0).any()  # zeros print as 0, not -0
    symmetric = alibi_bias(3, 3, 1, causal=False, dtype=F64)[0]
    torch.testing.assert_close(
        symmetric, -torch.tensor([[0, 1, 2], [1, 0, 1], [2, 1, 0]], dtype=F64) / 256
    )
    assert alibi_bias(4, 4, 3).dtype == torch.float32


@pytest.mark.parametrize("heads", [4, 5, 12])
def test_masked_softmax_equals_bloom_and_mpt(heads):
    # Bloom adds slope·j, MPT slope·(j − (n−1)): a constant per row away from ours, so after the causal
    # mask the attention weights agree (the official fairseq code uses Bloom's form).
    n = 9
    g = torch.Generator().manual_seed(heads)
    q, k = torch.randn(heads, n, 8, generator=g), torch.randn(heads, n, 8, generator=g)
    mask = causal_mask(n, n)
    ours = attention_weights(q, k, bias=alibi_bias(n, n, heads), mask=mask)
    bloom = build_alibi_tensor(
        torch.ones(1, n, dtype=torch.long), heads, torch.float32
    )  # [h, 1, n]
    theirs = attention_weights(q, k, bias=bloom, mask=mask)
    torch.testing.assert_close(ours, theirs, rtol=1e-5, atol=1e-6)
    mpt = build_mpt_alibi_tensor(heads, n)  # [h, 1, n]
    torch.testing.assert_close(
        ours, attention_weights(q, k, bias=mpt, mask=mask), rtol=1e-5, atol=1e-6
    )
    # and the differences really are constant along each row (on the allowed keys)
    diff = (alibi_bias(n, n, heads, dtype=F64) - bloom.double()).masked_fill(~mask, 0.0)
    row_const = diff[..., :1].expand_as(diff).masked_fill(~mask, 0.0)
    torch.testing.assert_close(diff, row_const, rtol=0, atol=1e-6)


def test_matches_sdpa_with_a_float_mask():
    n, h = 7, 4
    g = torch.Generator().manual_seed(3)
    q, k, v = (torch.randn(2, h, n, 8, generator=g) for _ in range(3))
    bias = alibi_bias(n, n, h)
    float_mask = bias.masked_fill(~causal_mask(n, n), float("-inf"))
    expected = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=float_mask)
    torch.testing.assert_close(
        attention_weights(q, k, bias=bias, mask=causal_mask(n, n)) @ v, expected
    )


@settings(max_examples=50)
@given(n_q=st.integers(1, 12), extra=st.integers(0, 6), heads=st.integers(1, 9))
def test_bias_properties(n_q, extra, heads):
    n_k = n_q + extra
    causal = alibi_bias(n_q, n_k, heads, dtype=F64)
    both = alibi_bias(n_q, n_k, heads, causal=False, dtype=F64)
    mask = causal_mask(n_q, n_k)
    assert (causal <= 0).all() and (both <= 0).all()
    # the causal bias is the symmetric one on the allowed keys and 0 on the future
    torch.testing.assert_close(causal, both.masked_fill(~mask, 0.0), rtol=0, atol=0)
    # queries are the last n_q positions: the rows of the square bias for n_k keys
    square = alibi_bias(n_k, n_k, heads, dtype=F64)
    torch.testing.assert_close(causal, square[:, n_k - n_q :], rtol=0, atol=0)
    assert torch.equal(mask, causal_mask(n_k, n_k)[n_k - n_q :])
    # square: symmetric when not causal, and Toeplitz (a function of i − j only)
    full = alibi_bias(n_k, n_k, heads, causal=False, dtype=F64)
    torch.testing.assert_close(full, full.transpose(1, 2), rtol=0, atol=0)
    if n_k > 1:
        torch.testing.assert_close(square[:, 1:, 1:], square[:, :-1, :-1], rtol=0, atol=0)
    # each head's bias is its slope times the distance
    dist = alibi_distances(n_q, n_k).to(F64)
    torch.testing.assert_close(causal, -alibi_slopes(heads)[:, None, None] * dist, rtol=0, atol=0)


def test_explicit_query_offset():
    assert alibi_distances(2, 3, query_offset=0).tolist() == [[0, 0, 0], [1, 0, 0]]
    assert alibi_distances(2, 3, causal=False, query_offset=0).tolist() == [[0, 1, 2], [1, 0, 1]]
    # more queries than keys is allowed once the offset is explicit
    assert alibi_distances(4, 2, query_offset=0).tolist() == [[0, 0], [1, 0], [2, 1], [3, 2]]


# -- the module -------------------------------------------------------------------------------


def test_module_is_the_function_with_a_buffer():
    mod = ALiBiBias(12)
    assert len(list(mod.parameters())) == 0 and mod.state_dict() == {}
    assert mod.slopes.dtype == torch.float32 and mod.slopes.shape == (12,)
    torch.testing.assert_close(mod(6), alibi_bias(6, 6, 12))
    torch.testing.assert_close(mod(3, 8), alibi_bias(3, 8, 12))
    torch.testing.assert_close(
        ALiBiBias(4, causal=False)(5, 5, query_offset=0), alibi_bias(5, 5, 4, causal=False)
    )
    assert mod.double()(4).dtype == F64


def test_module_plugs_into_the_tiny_transformer_and_symmetric_alibi_cannot_tell_left_from_right():
    torch.manual_seed(0)
    symmetric = TinyTransformer(10, 16, 4, 1, attention_bias=ALiBiBias(4, causal=False))
    tokens = torch.randint(0, 10, (2, 7))
    out = symmetric(tokens)
    assert out.shape == (2, 7, 10)
    # −m|i − j| is unchanged when the sequence is mirrored, so the model commutes with reversal ...
    torch.testing.assert_close(symmetric(tokens.flip(1)).flip(1), out, rtol=1e-5, atol=1e-5)
    # ... but not with other permutations: it does see order, only not direction
    perm = torch.tensor([1, 0, 2, 3, 4, 5, 6])
    assert not torch.allclose(symmetric(tokens[:, perm])[:, perm], out, atol=1e-3)
    # the causal bias (here unmasked) distinguishes the two directions
    torch.manual_seed(0)
    one_sided = TinyTransformer(10, 16, 4, 1, attention_bias=ALiBiBias(4, causal=True))
    assert not torch.allclose(one_sided(tokens.flip(1)).flip(1), one_sided(tokens), atol=1e-3)


# -- errors -----------------------------------------------------------------------------------


def test_errors_name_the_argument():
    with pytest.raises(ValueError, match="num_heads must be positive"):
        alibi_slopes(0)
    with pytest.raises(TypeError, match="num_heads must be an integer"):
        alibi_slopes(8.0)
    with pytest.raises(ValueError, match="n_q must be positive"):
        alibi_bias(0, 4, 2)
    with pytest.raises(TypeError, match="n_k must be an integer"):
        alibi_bias(2, "4", 2)
    with pytest.raises(ValueError, match="n_q must be <= n_k when query_offset is not given"):
        alibi_bias(5, 4, 2)
    with pytest.raises(ValueError, match="query_offset must be >= 0"):
        alibi_bias(2, 4, 2, query_offset=-1)
    with pytest.raises(ValueError, match="dtype must be a floating"):
        alibi_bias(2, 2, 2, dtype=torch.long)
    with pytest.raises(ValueError, match="num_heads must be positive"):
        ALiBiBias(-2)
    with pytest.raises(ValueError, match="n_q must be <= n_k"):
        ALiBiBias(2)(3, 2)


# -- strict inputs -----------------------------------------------------------------------------


@pytest.mark.parametrize("flag", ["False", 0, 1, None, torch.tensor(True)])
def test_causal_must_be_a_bool(flag):
    for call in (
        lambda: alibi_distances(3, 3, causal=flag),
        lambda: alibi_bias(3, 3, 2, causal=flag),
        lambda: ALiBiBias(2, causal=flag),
    ):
        with pytest.raises(TypeError, match=r"^causal must be a bool"):
            call()


@pytest.mark.parametrize("value", [True, 2.0, "2"])
def test_sizes_must_be_ints(value):
    with pytest.raises(TypeError, match=r"^num_heads must be an integer"):
        ALiBiBias(value)
    with pytest.raises(TypeError, match=r"^n_q must be an integer"):
        ALiBiBias(2)(value)


def test_meta_device():
    meta = torch.device("meta")
    outs = {
        "slopes": (alibi_slopes(12, device=meta), (12,)),
        "distances": (alibi_distances(3, 5, causal=False, device=meta), (3, 5)),
        "bias": (alibi_bias(3, 5, 4, device=meta), (4, 3, 5)),
        "module": (ALiBiBias(4).to(meta)(3, 5, query_offset=1), (4, 3, 5)),
    }
    for name, (out, shape) in outs.items():
        assert out.device == meta and out.shape == shape, name
