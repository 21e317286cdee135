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
    permutation_matrix,
    query_key_positions,
    sentence_attention,
    sentence_vectors,
    shuffled_attention,
    toy_attention_layer,
    word_vectors,
)
from posenc.sinusoidal import sinusoidal_encoding


def reference_self_attention(layer: SelfAttention, x: torch.Tensor) -> torch.Tensor:
    """A float64, loop-over-heads transcription of multi-head self-attention."""
    d, h = layer.dim, layer.num_heads
    w = layer.qkv.weight.detach().double()
    b = layer.qkv.bias.detach().double()
    x = x.double()
    heads = []
    for head in range(h):
        rows = slice(head * d // h, (head + 1) * d // h)
        q = x @ w[:d][rows].T + b[:d][rows]
        k = x @ w[d : 2 * d][rows].T + b[d : 2 * d][rows]
        v = x @ w[2 * d :][rows].T + b[2 * d :][rows]
        logits = q @ k.transpose(-1, -2) / math.sqrt(d // h)
        a = torch.exp(logits - logits.amax(-1, keepdim=True))
        heads.append((a / a.sum(-1, keepdim=True)) @ v)
    z = torch.cat(heads, dim=-1)
    return z @ layer.out.weight.detach().double().T + layer.out.bias.detach().double()


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
    p = permutation_matrix(perm).double()
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
        (lambda: permutation_matrix([0, 0, 1]), ValueError, "permutation"),
        (lambda: permutation_matrix(torch.tensor([0.0, 1.0])), TypeError, "integers"),
        (lambda: permutation_matrix([]), ValueError, "permutation"),
        (lambda: word_vectors("dog bites man", 4), TypeError, "sequence of strings"),
        (lambda: word_vectors([], 4), ValueError, "at least one word"),
        (lambda: word_vectors(["a", 3], 4), TypeError, "strings"),
        (lambda: word_vectors(["a"], 0), ValueError, "dim must be positive"),
    ],
)
def test_argument_errors(call, error, words):
    with pytest.raises(error, match=words):
        call()


def test_permutation_matrix_reorders_rows_and_is_orthogonal():
    perm = [2, 0, 3, 1]
    p = permutation_matrix(perm)
    x = torch.arange(12.0).reshape(4, 3)
    torch.testing.assert_close(p @ x, x[perm])
    torch.testing.assert_close(p @ p.T, torch.eye(4))
    torch.testing.assert_close(permutation_matrix(torch.tensor(perm)), p)
    assert p.tolist() == [[0, 0, 1, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 1, 0, 0]]


def test_word_vectors_depend_on_the_word_only():
    a = word_vectors(["dog", "bites", "man"], 8)
    b = word_vectors(["man", "bites", "dog"], 8)
    torch.testing.assert_close(a[[2, 1, 0]], b, rtol=0, atol=0)
    assert a.shape == (3, 8) and a.dtype == torch.float32
    assert not torch.equal(a[0], a[1])
    assert not torch.equal(word_vectors(["dog"], 8, seed=1), word_vectors(["dog"], 8, seed=0))
    # deterministic and independent of the global random state
    torch.manual_seed(123)
    first = word_vectors(["dog"], 8)
    torch.manual_seed(456)
    torch.testing.assert_close(word_vectors(["dog"], 8), first, rtol=0, atol=0)


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


# -- the toy layer of chapter 1 ----------------------------------------------------------------


def test_toy_layer_is_seeded_and_leaves_global_rng_alone():
    torch.manual_seed(7)
    before = torch.get_rng_state()
    a, b = toy_attention_layer(8, seed=3), toy_attention_layer(8, seed=3)
    assert torch.equal(torch.get_rng_state(), before)
    assert isinstance(a, SelfAttention) and not a.training and a.num_heads == 1
    torch.testing.assert_close(a.qkv.weight, b.qkv.weight, rtol=0, atol=0)
    assert not torch.equal(toy_attention_layer(8, seed=4).qkv.weight, a.qkv.weight)


def test_toy_layer_scales_query_and_key_weights_only():
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(3)
        plain = SelfAttention(8, num_heads=1)
    sharp = toy_attention_layer(8, seed=3, gain=2.5)
    w, w0 = sharp.qkv.weight.detach(), plain.qkv.weight.detach()
    torch.testing.assert_close(w[:16], 2.5 * w0[:16], rtol=0, atol=0)  # queries and keys
    assert torch.equal(w[16:], w0[16:])  # values
    assert torch.equal(sharp.qkv.bias, plain.qkv.bias)
    assert torch.equal(sharp.out.weight, plain.out.weight)
    with pytest.raises(ValueError, match=r"^gain must be a finite number > 0"):
        toy_attention_layer(8, gain=0.0)


def test_sentence_vectors_add_the_sinusoidal_code_of_each_slot():
    words = ["the", "dog", "chased", "a", "ball"]
    plain = sentence_vectors(words, 8)
    assert torch.equal(plain, word_vectors(words, 8))
    with_positions = sentence_vectors(words, 8, positions=True)
    assert with_positions.shape == (5, 8) and with_positions.dtype == torch.float32
    torch.testing.assert_close(with_positions - plain, sinusoidal_encoding(5, 8), rtol=0, atol=1e-6)


def test_sentence_attention_is_the_layer_on_a_batch_of_one():
    layer = toy_attention_layer(8, seed=1)
    x = sentence_vectors(["man", "bites", "dog"], 8)
    y, a = sentence_attention(layer, x)
    assert y.shape == (3, 8) and a.shape == (3, 3) and not y.requires_grad
    expected = reference_self_attention(layer, x[None])[0]
    torch.testing.assert_close(y.double(), expected, atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(a.sum(-1), torch.ones(3))
    with pytest.raises(ValueError, match=r"^x must have 2 dimensions"):
        sentence_attention(layer, x[None])


def test_shuffled_attention_against_the_layer_run_by_hand():
    words = ["the", "dog", "chased", "a", "red", "ball"]
    perm = [5, 2, 0, 4, 1, 3]
    for positions in (False, True):
        a, a_perm, delta = shuffled_attention(words, perm, positions=positions, dim=16, seed=0)
        layer = toy_attention_layer(16, seed=0)
        x = word_vectors(words, 16).double()
        x_perm = word_vectors([words[i] for i in perm], 16).double()
        if positions:
            pe = sinusoidal_encoding(6, 16, dtype=torch.float64)
            x, x_perm = x + pe, x_perm + pe
        y, y_perm = (reference_self_attention(layer, t[None])[0] for t in (x, x_perm))
        # the word at slot i of the shuffle is words[perm[i]]: its output moved by this much
        moved = [float((y_perm[i] - y[perm[i]]).norm()) for i in range(6)]
        expected = torch.zeros(6, dtype=torch.float64)
        expected[perm] = torch.tensor(moved, dtype=torch.float64)
        torch.testing.assert_close(delta.double(), expected, atol=1e-5, rtol=1e-4)
        assert a.shape == a_perm.shape == (6, 6)
        if not positions:  # equivariance: the same matrix with rows and columns reordered
            torch.testing.assert_close(a_perm, a[perm][:, perm], atol=1e-6, rtol=0)
            assert float(delta.max()) < 1e-5
        else:
            assert float(delta.min()) > 1e-3


def test_shuffled_attention_rejects_a_bad_permutation():
    with pytest.raises(ValueError, match=r"^perm must be a permutation of 0\.\.2"):
        shuffled_attention(["a", "b", "c"], [0, 1], positions=False)
    with pytest.raises(ValueError, match=r"^perm must be a permutation of 0\.\.2"):
        shuffled_attention(["a", "b", "c"], [0, 1, 1], positions=False)
