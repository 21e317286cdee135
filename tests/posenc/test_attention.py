"""posenc.attention against float64 transcriptions, torch's fused attention and nn.MultiheadAttention."""

import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc.attention import (
    SelfAttention,
    attention_weights,
    causal_mask,
    dot_product_attention,
    masked_softmax,
    query_key_positions,
    sliding_window_mask,
)
from tests.references import reference_self_attention


@pytest.mark.parametrize("heads", [1, 2, 4])
def test_self_attention_matches_float64_transcription(heads):
    torch.manual_seed(0)
    layer = SelfAttention(8, num_heads=heads)
    x = torch.randn(3, 5, 8)
    torch.testing.assert_close(
        layer(x).double(), reference_self_attention(layer, x), atol=1e-5, rtol=1e-5
    )


def test_self_attention_matches_torch_multihead_attention():
    torch.manual_seed(1)
    layer = SelfAttention(12, num_heads=3)
    mha = torch.nn.MultiheadAttention(12, 3, batch_first=True)
    with torch.no_grad():
        mha.in_proj_weight.copy_(layer.qkv.weight)
        mha.in_proj_bias.copy_(layer.qkv.bias)
        mha.out_proj.weight.copy_(layer.out.weight)
        mha.out_proj.bias.copy_(layer.out.bias)
    x = torch.randn(2, 7, 12)
    y, w = layer(x, return_weights=True)
    y_ref, w_ref = mha(x, x, x, average_attn_weights=False)
    torch.testing.assert_close(y, y_ref, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(w, w_ref, atol=1e-6, rtol=1e-5)


@settings(max_examples=25, deadline=None)
@given(perm=st.permutations(list(range(6))), seed=st.integers(0, 1000))
def test_self_attention_is_permutation_equivariant_without_positions(perm, seed):
    torch.manual_seed(seed)
    layer = SelfAttention(8, num_heads=2).double()
    x = torch.randn(1, 6, 8, dtype=torch.float64)
    y, a = layer(x, return_weights=True)
    y_p, a_p = layer(x[:, perm], return_weights=True)
    p = torch.eye(6, dtype=torch.float64)[perm]  # P @ y == y[perm]
    torch.testing.assert_close(y_p[0], p @ y[0])  # Z(PX) = P Z(X)
    torch.testing.assert_close(a_p[0, 0], p @ a[0, 0] @ p.T)  # A(PX) = P A(X) Pᵀ


def test_positions_break_equivariance():
    from posenc.sinusoidal import sinusoidal_encoding

    torch.manual_seed(0)
    layer = SelfAttention(8).double()
    x = torch.randn(1, 6, 8, dtype=torch.float64)
    pe = sinusoidal_encoding(6, 8, dtype=torch.float64)
    perm = [5, 4, 3, 2, 1, 0]
    y = layer(x + pe)
    y_p = layer(x[:, perm] + pe)
    assert (y_p - y[:, perm]).abs().max() > 1e-2


def test_attention_weights_match_torch_sdpa_with_bias_and_mask():
    torch.manual_seed(2)
    q, k, v = torch.randn(2, 3, 5, 4), torch.randn(2, 3, 6, 4), torch.randn(2, 3, 6, 7)
    bias = torch.randn(3, 5, 6)
    mask = torch.rand(5, 6) > 0.3
    mask[:, 0] = True  # no fully masked row
    ours = dot_product_attention(q, k, v, bias=bias, mask=mask)
    torch.testing.assert_close(
        dot_product_attention(q, k, v, bias=bias),
        F.scaled_dot_product_attention(q, k, v, attn_mask=bias),
        atol=1e-5,
        rtol=1e-5,
    )
    # mask and bias together: sdpa takes one float mask holding both
    combined = bias.masked_fill(~mask, float("-inf"))
    torch.testing.assert_close(
        ours, F.scaled_dot_product_attention(q, k, v, attn_mask=combined), atol=1e-5, rtol=1e-5
    )
    torch.testing.assert_close(
        dot_product_attention(q, k, v, mask=mask),
        F.scaled_dot_product_attention(q, k, v, attn_mask=mask),
        atol=1e-5,
        rtol=1e-5,
    )


def test_attention_weights_rows_sum_to_one_and_masked_entries_are_zero():
    torch.manual_seed(3)
    q, k = torch.randn(4, 8), torch.randn(5, 8)
    mask = torch.ones(4, 5, dtype=torch.bool)
    mask[:, 2] = False
    a = attention_weights(q, k, mask=mask)
    torch.testing.assert_close(a.sum(-1), torch.ones(4))
    assert torch.all(a[:, 2] == 0)
    # golden: two keys, logits 0 and 1/√1 -> softmax(0, 1)
    a = attention_weights(torch.tensor([[1.0]]), torch.tensor([[0.0], [1.0]]))
    torch.testing.assert_close(a, torch.tensor([[1 / (1 + math.e), math.e / (1 + math.e)]]))


@pytest.mark.parametrize(
    "call, error, words",
    [
        (
            lambda: attention_weights([[1.0]], torch.ones(1, 1)),
            TypeError,
            "q must be a torch.Tensor",
        ),
        (
            lambda: attention_weights(torch.ones(3), torch.ones(3)),
            ValueError,
            "at least 2 dimensions",
        ),
        (
            lambda: attention_weights(torch.ones(2, 3), torch.ones(2, 4)),
            ValueError,
            "last dimension",
        ),
        (
            lambda: attention_weights(torch.ones(2, 3), torch.ones(2, 3), mask=torch.ones(2, 2)),
            TypeError,
            "boolean",
        ),
        (
            lambda: attention_weights(torch.ones(2, 3), torch.ones(2, 3), bias=1.0),
            TypeError,
            "bias must be",
        ),
        (
            lambda: dot_product_attention(torch.ones(2, 3), torch.ones(2, 3), torch.ones(4, 3)),
            ValueError,
            "same number",
        ),
        (
            lambda: dot_product_attention(torch.ones(2, 3), torch.ones(2, 3), torch.ones(3)),
            ValueError,
            "v must have",
        ),
        (lambda: SelfAttention(6, num_heads=4), ValueError, "num_heads must divide"),
        (lambda: SelfAttention(0), ValueError, "dim must be positive"),
        (lambda: SelfAttention(4)(torch.ones(2, 4)), ValueError, "x must have 3 dimensions"),
        (lambda: SelfAttention(4)(torch.ones(1, 2, 5)), ValueError, "4 channels"),
        (
            lambda: SelfAttention(8, 2, rotary=lambda q, k: (q, k)),
            TypeError,
            "rotary must be an nn.Module",
        ),
        (
            lambda: SelfAttention(8, 2, rotary=_rotary(8)),
            ValueError,
            "rotary must act on the 4 channels",
        ),
    ],
)
def test_argument_errors(call, error, words):
    with pytest.raises(error, match=words):
        call()


@given(n_q=st.integers(1, 12), extra=st.integers(0, 12), offset=st.none() | st.integers(0, 20))
def test_query_key_positions_and_causal_mask_match_a_double_loop(n_q, extra, offset):
    n_k = n_q + extra
    q_pos, k_pos = query_key_positions(n_q, n_k, query_offset=offset)
    first = n_k - n_q if offset is None else offset
    assert q_pos.tolist() == [first + i for i in range(n_q)]
    assert k_pos.tolist() == list(range(n_k))
    expected = [[j <= first + i for j in range(n_k)] for i in range(n_q)]
    assert causal_mask(n_q, n_k, query_offset=offset).tolist() == expected


def test_causal_mask_is_the_lower_triangle_and_sees_the_cache():
    assert torch.equal(causal_mask(4, 4), torch.ones(4, 4, dtype=torch.bool).tril())
    # two new tokens after three cached ones: each sees the cache, itself and earlier new tokens
    assert causal_mask(2, 5).int().tolist() == [[1, 1, 1, 1, 0], [1, 1, 1, 1, 1]]
    # the same mask as torch's is_causal for square inputs
    q, k, v = torch.randn(3, 1, 6, 4, dtype=torch.float64).unbind(0)
    torch.testing.assert_close(
        F.scaled_dot_product_attention(q, k, v, attn_mask=causal_mask(6, 6)),
        F.scaled_dot_product_attention(q, k, v, is_causal=True),
    )


def test_query_key_positions_errors_name_the_argument():
    with pytest.raises(ValueError, match="n_q must be <= n_k when query_offset is not given"):
        query_key_positions(5, 4)
    with pytest.raises(ValueError, match="query_offset must be >= 0"):
        causal_mask(2, 4, query_offset=-1)
    with pytest.raises(TypeError, match="n_k must be an integer"):
        query_key_positions(2, 4.0)
    assert query_key_positions(4, 2, query_offset=0)[0].tolist() == [0, 1, 2, 3]


# -- the query/key hook (RoPE) and the mask of SelfAttention ------------------------------------


def _rotary(dim):
    from posenc.rotary import RotaryEmbedding

    return RotaryEmbedding(dim)


def _heads(layer, x):
    """q, k, v of ``layer`` for ``x``, ``[b, h, n, d/h]`` each, in float64."""
    d, h = layer.dim, layer.num_heads
    w, b = layer.qkv.weight.detach().double(), layer.qkv.bias.detach().double()
    parts = (x.double() @ w.T + b).split(d, dim=-1)  # q, k, v: [b, n, d] each
    return [t.reshape(*t.shape[:2], h, d // h).transpose(1, 2) for t in parts]


@pytest.mark.parametrize("heads", [1, 2])
def test_rotary_hook_rotates_queries_and_keys_as_rotary_embedding_torch_does(heads):
    from rotary_embedding_torch import RotaryEmbedding as Reference

    torch.manual_seed(4)
    layer = SelfAttention(8, num_heads=heads, rotary=_rotary(8 // heads))
    x = torch.randn(2, 7, 8)
    y, weights = layer(x, return_weights=True)
    q, k, v = _heads(layer, x)
    reference = Reference(dim=8 // heads)  # interleaved pairs, base 10000, like posenc's default
    q, k = reference.rotate_queries_or_keys(q), reference.rotate_queries_or_keys(k)
    logits = q @ k.transpose(-1, -2) / math.sqrt(8 // heads)
    expected = torch.softmax(logits, dim=-1)  # [b, h, n, n]
    torch.testing.assert_close(weights.double(), expected, atol=1e-6, rtol=1e-5)
    z = (expected @ v).transpose(1, 2).reshape(2, 7, 8)
    out = z @ layer.out.weight.detach().double().T + layer.out.bias.detach().double()
    torch.testing.assert_close(y.double(), out, atol=1e-5, rtol=1e-5)


def test_rotary_hook_makes_logits_depend_on_offsets_only():
    # the same token at every position: with RoPE the weights depend on i - j only
    torch.manual_seed(5)
    layer = SelfAttention(8, num_heads=2, rotary=_rotary(4)).double()
    x = torch.randn(1, 1, 8, dtype=torch.float64).expand(1, 9, 8)
    _, weights = layer(x, return_weights=True, mask=causal_mask(9, 9))
    logits = weights.log()  # [1, h, n, n]; differences of logits along a row are kept
    for i in range(2, 9):
        # row i, keys i-1 and i-2, minus the same pair in row i-1: equal offsets, equal logits
        a = logits[0, :, i, i - 1] - logits[0, :, i, i - 2]
        b = logits[0, :, i - 1, i - 2] - logits[0, :, i - 1, i - 3] if i >= 3 else a
        torch.testing.assert_close(a, b)
    assert (weights[0, :, -1] - 1 / 9).abs().max() > 1e-3  # the hook does tell keys apart
    # without the hook all keys look alike
    plain = SelfAttention(8, num_heads=2).double()
    plain.load_state_dict(layer.state_dict())
    _, flat = plain(x, return_weights=True)
    torch.testing.assert_close(flat, torch.full_like(flat, 1 / 9))


def test_self_attention_mask_matches_torch_sdpa_causal():
    torch.manual_seed(6)
    layer = SelfAttention(12, num_heads=3)
    x = torch.randn(2, 6, 12)
    y, weights = layer(x, mask=causal_mask(6, 6), return_weights=True)
    q, k, v = (t.float() for t in _heads(layer, x))
    z = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(2, 6, 12)
    torch.testing.assert_close(y, layer.out(z), atol=1e-5, rtol=1e-5)
    assert bool((weights.triu(1) == 0).all())
    # the hook and the mask together: still nothing from the future
    rotated = SelfAttention(12, num_heads=3, rotary=_rotary(4))
    changed = x.clone()
    changed[:, -1] += 1.0
    a, b = rotated(x, mask=causal_mask(6, 6)), rotated(changed, mask=causal_mask(6, 6))
    torch.testing.assert_close(a[:, :-1], b[:, :-1])


# -- masked_softmax: the last step shared by attention_weights, WindowAttention and Shaw -------


@settings(max_examples=30, deadline=None)
@given(n_q=st.integers(1, 6), n_k=st.integers(1, 7), seed=st.integers(0, 99))
def test_masked_softmax_matches_exponentials_summed_over_allowed_keys(n_q, n_k, seed):
    g = torch.Generator().manual_seed(seed)
    logits = 3 * torch.randn(2, n_q, n_k, generator=g, dtype=torch.float64)
    mask = torch.rand(n_q, n_k, generator=g) > 0.4
    mask[:, seed % n_k] = True  # every row keeps one key
    expected = torch.zeros(2, n_q, n_k, dtype=torch.float64)
    for b in range(2):
        for i in range(n_q):
            allowed = [j for j in range(n_k) if mask[i, j]]
            total = sum(math.exp(float(logits[b, i, j])) for j in allowed)
            for j in allowed:
                expected[b, i, j] = math.exp(float(logits[b, i, j])) / total
    torch.testing.assert_close(masked_softmax(logits, mask), expected, rtol=1e-12, atol=1e-15)
    torch.testing.assert_close(masked_softmax(logits), torch.softmax(logits, -1), rtol=0, atol=0)


def test_masked_softmax_is_the_last_step_of_attention_weights():
    g = torch.Generator().manual_seed(3)
    q, k = torch.randn(2, 4, 5, 3, generator=g).unbind(0)
    bias, mask = torch.randn(5, 5, generator=g), causal_mask(5, 5)
    logits = q @ k.transpose(-1, -2) / math.sqrt(3) + bias
    assert torch.equal(attention_weights(q, k, bias=bias, mask=mask), masked_softmax(logits, mask))
    assert masked_softmax(torch.zeros(1, 2), torch.zeros(1, 2, dtype=torch.bool)).isnan().all()
    with pytest.raises(TypeError, match=r"^mask must be a boolean tensor \(True = attend\)"):
        masked_softmax(logits, mask.float())
    with pytest.raises(TypeError, match=r"^mask must be a torch.Tensor"):
        masked_softmax(logits, [[True]])
    with pytest.raises(TypeError, match=r"^logits must be a torch.Tensor"):
        masked_softmax([[0.0]])


# -- strict inputs -------------------------------------------------------------------------------

Q, K, V = torch.zeros(2, 3, 4), torch.zeros(2, 5, 4), torch.zeros(2, 5, 6)


@pytest.mark.parametrize("fn", [attention_weights, dot_product_attention])
@pytest.mark.parametrize("name", ["q", "k", "v"])
@pytest.mark.parametrize("dtype", [torch.int64, torch.bool, torch.complex64])
def test_attention_refuses_non_float_inputs_naming_them(fn, name, dtype):
    args = {"q": Q, "k": K, "v": V}
    if fn is attention_weights and name == "v":
        return
    args[name] = args[name].to(dtype)
    call = [args["q"], args["k"]] + ([args["v"]] if fn is dot_product_attention else [])
    with pytest.raises(TypeError, match=rf"^{name} must be a floating-point tensor, got dtype"):
        fn(*call)


def test_attention_refuses_mixed_dtypes():
    with pytest.raises(TypeError, match=r"^q, k must have one dtype, got q torch.float32, k torch"):
        attention_weights(Q, K.double())
    with pytest.raises(TypeError, match=r"^q, k, v must have one dtype.*v torch.float16"):
        dot_product_attention(Q, K, V.half())
    with pytest.raises(TypeError, match=r"^q, k, bias must have one dtype.*bias torch.float64"):
        attention_weights(Q, K, bias=torch.zeros(3, 5, dtype=torch.float64))


@pytest.mark.parametrize("fn", [attention_weights, dot_product_attention])
def test_a_bool_bias_is_refused_pointing_to_mask(fn):
    causal = causal_mask(3, 5)
    args = (Q, K, V) if fn is dot_product_attention else (Q, K)
    with pytest.raises(TypeError, match=r"^bias must be a floating-point .*bool tensor.*mask="):
        fn(*args, bias=causal)
    with pytest.raises(TypeError, match=r"^bias must be a floating-point .*bool tensor.*mask="):
        SelfAttention(4)(torch.zeros(1, 3, 4), bias=causal_mask(3, 3))


@pytest.mark.parametrize(
    "kwargs, words",
    [
        (
            {"bias": torch.zeros(3, 4)},
            r"^bias of shape \(3, 4\) does not broadcast to .*\(2, 3, 5\)",
        ),
        ({"bias": torch.zeros(3, 3, 5)}, r"^bias of shape \(3, 3, 5\) does not broadcast"),
        ({"mask": torch.ones(5, 3, dtype=torch.bool)}, r"^mask of shape \(5, 3\) does not broad"),
        ({"mask": torch.ones(4, 3, 5, dtype=torch.bool)}, r"^mask of shape \(4, 3, 5\) does not"),
    ],
)
def test_attention_refuses_bias_and_mask_that_do_not_broadcast(kwargs, words):
    with pytest.raises(ValueError, match=words):
        attention_weights(Q, K, **kwargs)
    with pytest.raises(ValueError, match=words.replace("(2, 3, 5)", "(2, 3, 6)")):
        dot_product_attention(Q, K, V, **kwargs)


def test_attention_refuses_a_float_mask_and_batches_that_do_not_broadcast():
    with pytest.raises(TypeError, match=r"^mask must be a boolean tensor .*torch.float32"):
        attention_weights(Q, K, mask=torch.ones(3, 5))
    with pytest.raises(ValueError, match=r"^q and k must have batch dimensions that broadcast"):
        attention_weights(torch.zeros(2, 3, 4), torch.zeros(3, 5, 4))
    with pytest.raises(ValueError, match=r"^v's batch dimensions \(3,\) do not broadcast"):
        dot_product_attention(torch.zeros(2, 3, 4), torch.zeros(2, 5, 4), torch.zeros(3, 5, 6))
    with pytest.raises(
        ValueError, match=r"^mask of shape \(5, 6\) does not broadcast with logits'"
    ):
        masked_softmax(torch.zeros(60), torch.ones(5, 6, dtype=torch.bool))


def test_empty_inputs_give_empty_results_or_a_clear_error():
    assert attention_weights(torch.zeros(2, 0, 4), K).shape == (2, 0, 5)
    assert dot_product_attention(torch.zeros(0, 3, 4), K[:0], V[:0]).shape == (0, 3, 6)
    assert dot_product_attention(torch.zeros(2, 0, 4), torch.zeros(2, 0, 4), V[:, :0]).shape == (
        2,
        0,
        6,
    )
    with pytest.raises(ValueError, match=r"^k must hold at least one key position"):
        attention_weights(Q, torch.zeros(2, 0, 4))
    with pytest.raises(ValueError, match=r"^q and k must have at least one channel"):
        attention_weights(torch.zeros(3, 0), torch.zeros(5, 0))
    layer = SelfAttention(4)
    assert layer(torch.zeros(2, 0, 4)).shape == (2, 0, 4)
    assert layer(torch.zeros(0, 3, 4)).shape == (0, 3, 4)


def test_self_attention_strict_inputs():
    layer = SelfAttention(4, num_heads=2)
    x = torch.zeros(1, 3, 4)
    with pytest.raises(
        TypeError, match=r"^x must be a floating-point tensor, got dtype torch.int64"
    ):
        layer(x.long())
    with pytest.raises(TypeError, match=r"^x must have the layer's dtype torch.float32"):
        layer(x.double())
    with pytest.raises(TypeError, match=r"^return_weights must be a bool"):
        layer(x, return_weights="False")
    with pytest.raises(
        ValueError, match=r"^bias of shape \(3, 4\) does not broadcast .*\(1, 2, 3, 3\)"
    ):
        layer(x, bias=torch.zeros(3, 4))
    with pytest.raises(ValueError, match=r"^mask of shape \(2, 3\) does not broadcast"):
        layer(x, mask=torch.ones(2, 3, dtype=torch.bool))
    with pytest.raises(TypeError, match=r"^x, bias must have one dtype"):
        layer(x, bias=torch.zeros(3, 3, dtype=torch.float64))
    with pytest.raises(TypeError, match=r"^num_heads must be an integer"):
        SelfAttention(4, num_heads=True)


def test_self_attention_refuses_a_state_dict_of_another_width_by_name():
    saved = SelfAttention(dim=8, num_heads=2).state_dict()
    layer = SelfAttention(dim=16, num_heads=2)
    with pytest.raises(ValueError, match=r"'qkv\.weight' has shape \(24, 8\).*\(48, 16\)"):
        layer.load_state_dict(saved)
    # nested under a prefix, each learned table is checked under its full key
    outer = torch.nn.Sequential(SelfAttention(dim=16, num_heads=2))
    saved = {f"0.{k}": v for k, v in SelfAttention(dim=16, num_heads=4).state_dict().items()}
    saved["0.out.bias"] = torch.zeros(8)
    with pytest.raises(ValueError, match=r"'0\.out\.bias' has shape \(8,\).*\(16,\)"):
        outer.load_state_dict(saved)
    # a state dict of the same width (any number of heads) still loads
    layer.load_state_dict(SelfAttention(dim=16, num_heads=4).state_dict())


@pytest.mark.parametrize("value", [True, 2.0, "3"])
def test_query_key_positions_refuse_non_int_sizes(value):
    with pytest.raises(TypeError, match=r"^n_q must be an integer"):
        causal_mask(value, 4)


# -- the meta device: nothing built on the CPU ---------------------------------------------------


def test_functions_and_module_on_the_meta_device():
    meta = torch.device("meta")
    q, k, v = (torch.empty(2, n, 4, device=meta) for n in (3, 5, 5))
    bias = torch.empty(3, 5, device=meta)
    mask = causal_mask(3, 5, device=meta)
    assert mask.device == meta and mask.shape == (3, 5) and mask.dtype == torch.bool
    for p, n in zip(query_key_positions(3, 5, device=meta), (3, 5)):
        assert p.device == meta and p.shape == (n,)
    a = attention_weights(q, k, bias=bias, mask=mask)
    assert a.device == meta and a.shape == (2, 3, 5)
    z = dot_product_attention(q, k, v, bias=bias, mask=mask)
    assert z.device == meta and z.shape == (2, 3, 4)
    assert masked_softmax(torch.empty(3, 5, device=meta), mask).device == meta
    layer = SelfAttention(8, num_heads=2, rotary=_rotary(4)).to(meta)
    y, w = layer(
        torch.empty(2, 6, 8, device=meta), mask=causal_mask(6, 6, device=meta), return_weights=True
    )
    assert y.device == meta and y.shape == (2, 6, 8)
    assert w.device == meta and w.shape == (2, 2, 6, 6)


def test_inputs_on_two_devices_are_refused_by_name():
    q, k, v = torch.zeros(2, 3, 4), torch.zeros(2, 5, 4, device="meta"), torch.zeros(2, 5, 6)
    with pytest.raises(ValueError, match=r"^q, k must be on one device, got q on cpu, k on meta"):
        attention_weights(q, k)
    with pytest.raises(ValueError, match=r"must be on one device, .*mask on meta"):
        attention_weights(q, q, mask=torch.ones(3, 3, dtype=torch.bool, device="meta"))
    with pytest.raises(ValueError, match=r"^q, k, v must be on one device"):
        dot_product_attention(q, torch.zeros(2, 5, 4), v.to("meta"))


def test_self_attention_follows_autocast():
    layer = SelfAttention(8, 2)
    x = torch.randn(2, 5, 8)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = layer(x, bias=torch.zeros(2, 5, 5))
    assert y.dtype == torch.bfloat16
    torch.testing.assert_close(y.float(), layer(x), atol=5e-2, rtol=5e-2)


@given(
    n_q=st.integers(1, 12),
    extra=st.integers(0, 12),
    window=st.integers(1, 14),
    sinks=st.integers(0, 5),
    offset=st.none() | st.integers(0, 20),
)
def test_sliding_window_mask_matches_a_double_loop(n_q, extra, window, sinks, offset):
    n_k = n_q + extra
    first = n_k - n_q if offset is None else offset
    expected = [
        [j <= first + i and (j > first + i - window or j < sinks) for j in range(n_k)]
        for i in range(n_q)
    ]
    mask = sliding_window_mask(n_q, n_k, window, sinks=sinks, query_offset=offset)
    assert mask.dtype == torch.bool and mask.tolist() == expected


@pytest.mark.parametrize("window", [1, 3, 8])
def test_sliding_window_mask_matches_transformers(window):
    masking = pytest.importorskip("transformers.masking_utils")
    allowed = masking.sliding_window_causal_mask_function(window)
    n = 9
    index = torch.arange(n)
    expected = allowed(0, 0, index[:, None], index[None, :]).tolist()  # tensors, as it is called
    assert sliding_window_mask(n, n, window).tolist() == expected
    # a window as long as the sequence is the causal mask
    assert torch.equal(sliding_window_mask(n, n, n), causal_mask(n, n))


def test_sliding_window_mask_refuses_bad_sizes():
    with pytest.raises(ValueError, match="window must be positive"):
        sliding_window_mask(4, 4, 0)
    with pytest.raises(TypeError, match="window must be an integer"):
        sliding_window_mask(4, 4, 2.0)
    with pytest.raises(ValueError, match="sinks must be >= 0"):
        sliding_window_mask(4, 4, 2, sinks=-1)
    assert sliding_window_mask(3, 3, 2, device="meta").device.type == "meta"
