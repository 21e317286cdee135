"""Shaw relative attention against a float64 double loop, tensor2tensor's index and properties."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from posenc.shaw import (
    ShawRelativeMultiheadAttention,
    shaw_attention,
    shaw_attention_reference,
    shaw_intermediate_bytes,
    shaw_relative_index,
)


def t2t_relative_positions_matrix(length_q, length_k, max_relative_position):
    """tensor2tensor's _generate_relative_positions_matrix (+ k), in NumPy."""
    range_vec_k = np.arange(length_k)
    range_vec_q = range_vec_k[-length_q:] if length_q <= length_k else np.arange(length_q)
    distance_mat = range_vec_k[None, :] - range_vec_q[:, None]
    clipped = np.clip(distance_mat, -max_relative_position, max_relative_position)
    return clipped + max_relative_position


def loop_reference(q, k, v, rel_k, rel_v, mask=None):
    """z_i = Σ_j softmax_j(q_i·(k_j + a^K_ij)/√d)(v_j + a^V_ij), one (i, j) at a time in float64."""
    q, k, v, rel_k, rel_v = (np.asarray(t, dtype=np.float64) for t in (q, k, v, rel_k, rel_v))
    n_q, n_k, d = q.shape[0], k.shape[0], q.shape[1]
    max_k = (rel_k.shape[0] - 1) // 2
    out = np.zeros((n_q, v.shape[1]))
    for i in range(n_q):
        logits = np.full(n_k, -np.inf)
        for j in range(n_k):
            if mask is None or mask[i, j]:
                r = min(max(j - i, -max_k), max_k) + max_k
                logits[j] = q[i] @ (k[j] + rel_k[r]) / math.sqrt(d)
        w = np.exp(logits - logits.max())
        w /= w.sum()
        for j in range(n_k):
            r = min(max(j - i, -max_k), max_k) + max_k
            out[i] += w[j] * (v[j] + rel_v[r])
    return out


def test_index_golden_values():
    expected = torch.tensor([[2, 3, 4, 4], [1, 2, 3, 4], [0, 1, 2, 3], [0, 0, 1, 2]])
    assert torch.equal(shaw_relative_index(4, 4, 2), expected)


@pytest.mark.parametrize("n,k", [(1, 0), (5, 1), (8, 3), (6, 10)])
def test_index_matches_tensor2tensor_for_self_attention(n, k):
    ours = shaw_relative_index(n, n, k).numpy()
    np.testing.assert_array_equal(ours, t2t_relative_positions_matrix(n, n, k))


@given(n_q=st.integers(1, 12), n_k=st.integers(1, 12), k=st.integers(0, 6))
def test_index_properties(n_q, n_k, k):
    idx = shaw_relative_index(n_q, n_k, k)
    assert idx.shape == (n_q, n_k) and idx.dtype == torch.long
    assert idx.min() >= 0 and idx.max() <= 2 * k
    i, j = torch.meshgrid(torch.arange(n_q), torch.arange(n_k), indexing="ij")
    # depends on j − i only, and is the clipped distance shifted by k
    assert torch.equal(idx, (j - i).clamp(-k, k) + k)
    if n_q > 1 and n_k > 1:
        assert torch.equal(idx[1:, 1:], idx[:-1, :-1])  # Toeplitz


def random_inputs(seed, batch, n_q, n_k, d, d_v, k, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    shapes = [
        (*batch, n_q, d),
        (*batch, n_k, d),
        (*batch, n_k, d_v),
        (2 * k + 1, d),
        (2 * k + 1, d_v),
    ]
    return [torch.randn(s, generator=g, dtype=dtype) for s in shapes]


@pytest.mark.parametrize(
    "n_q,n_k,k", [(1, 1, 0), (5, 5, 2), (7, 4, 1), (3, 9, 4), (6, 6, 20), (4, 1, 3)]
)
def test_fast_and_reference_match_the_float64_loop(n_q, n_k, k):
    q, kk, v, rk, rv = random_inputs(n_q * 100 + n_k, (), n_q, n_k, 6, 3, k)
    expected = torch.from_numpy(loop_reference(q, kk, v, rk, rv))
    torch.testing.assert_close(
        shaw_attention_reference(q, kk, v, rk, rv), expected, rtol=1e-12, atol=1e-12
    )
    torch.testing.assert_close(shaw_attention(q, kk, v, rk, rv), expected, rtol=1e-12, atol=1e-12)


@given(
    n_q=st.integers(1, 9),
    n_k=st.integers(1, 9),
    k=st.integers(0, 5),
    heads=st.integers(1, 3),
    seed=st.integers(0, 2**16),
    masked=st.booleans(),
)
def test_fast_equals_reference_with_batches_and_masks(n_q, n_k, k, heads, seed, masked):
    q, kk, v, rk, rv = random_inputs(seed, (2, heads), n_q, n_k, 4, 5, k)
    mask = None
    if masked:
        mask = torch.rand(n_q, n_k, generator=torch.Generator().manual_seed(seed)) > 0.4
        mask[:, 0] = True  # every query sees at least one key
    fast = shaw_attention(q, kk, v, rk, rv, mask=mask)
    ref = shaw_attention_reference(q, kk, v, rk, rv, mask=mask)
    assert fast.shape == (2, heads, n_q, 5)
    torch.testing.assert_close(fast, ref, rtol=1e-12, atol=1e-12)
    if masked:
        loop = loop_reference(q[1, 0], kk[1, 0], v[1, 0], rk, rv, mask=mask.numpy())
        torch.testing.assert_close(fast[1, 0], torch.from_numpy(loop), rtol=1e-12, atol=1e-12)


def test_broadcasts_queries_against_keys():
    q, kk, v, rk, rv = random_inputs(3, (2, 1), 4, 6, 3, 3, 2)
    kk3 = kk.expand(2, 3, 6, 3)
    v3 = v.expand(2, 3, 6, 3)
    torch.testing.assert_close(
        shaw_attention(q, kk3, v3, rk, rv), shaw_attention_reference(q, kk3, v3, rk, rv)
    )


def test_zero_tables_give_plain_attention():
    q, kk, v, rk, rv = random_inputs(4, (3,), 5, 7, 8, 8, 3)
    plain = torch.nn.functional.scaled_dot_product_attention(q, kk, v)
    torch.testing.assert_close(
        shaw_attention(q, kk, v, torch.zeros_like(rk), torch.zeros_like(rv)), plain
    )


def test_mask_follows_sdpa_convention():
    q, kk, v, rk, rv = random_inputs(5, (2,), 4, 4, 8, 8, 0)
    causal = torch.ones(4, 4, dtype=torch.bool).tril()
    zeros_k, zeros_v = torch.zeros_like(rk), torch.zeros_like(rv)
    expected = torch.nn.functional.scaled_dot_product_attention(q, kk, v, attn_mask=causal)
    torch.testing.assert_close(shaw_attention(q, kk, v, zeros_k, zeros_v, mask=causal), expected)


def test_gradients_match_the_reference():
    inputs = [t.requires_grad_() for t in random_inputs(6, (2,), 5, 6, 4, 3, 2)]
    assert torch.autograd.gradcheck(shaw_attention, tuple(inputs))
    shaw_attention(*inputs).square().sum().backward()
    fast_grads = [t.grad.clone() for t in inputs]
    for t in inputs:
        t.grad = None
    shaw_attention_reference(*inputs).square().sum().backward()
    for a, b in zip(fast_grads, (t.grad for t in inputs)):
        torch.testing.assert_close(a, b)


def test_relative_property_shifting_everything_changes_nothing():
    """Only j − i enters: the same content at shifted positions gives the same outputs."""
    g = torch.Generator().manual_seed(7)
    x = torch.randn(6, 4, generator=g, dtype=torch.float64)
    rk, rv = (
        torch.randn(5, 4, generator=g, dtype=torch.float64),
        torch.randn(5, 4, generator=g, dtype=torch.float64),
    )
    pad = torch.randn(3, 4, generator=g, dtype=torch.float64)
    alone = shaw_attention(x, x, x, rk, rv)
    # the same six tokens placed after three others, with the others masked out as keys
    seq = torch.cat([pad, x])
    mask = torch.ones(9, 9, dtype=torch.bool)
    mask[:, :3] = False
    shifted = shaw_attention(seq, seq, seq, rk, rv, mask=mask)[3:]
    torch.testing.assert_close(shifted, alone)


def test_errors_name_the_argument():
    q, kk, v, rk, rv = random_inputs(8, (), 3, 3, 4, 4, 1)
    with pytest.raises(ValueError, match=r"rel_k must have an odd number of rows 2k\+1"):
        shaw_attention(q, kk, v, rk[:2], rv[:2])
    with pytest.raises(ValueError, match=r"rel_v must have as many rows as rel_k"):
        shaw_attention(q, kk, v, rk, rv[:1])
    with pytest.raises(ValueError, match=r"rel_k must have q's 4 channels"):
        shaw_attention(q, kk, v, rk[:, :2], rv)
    with pytest.raises(ValueError, match=r"k and v must have the same number of positions"):
        shaw_attention(q, kk, v[:2], rk, rv)
    with pytest.raises(TypeError, match=r"mask must be a boolean tensor"):
        shaw_attention(q, kk, v, rk, rv, mask=torch.ones(3, 3))
    with pytest.raises(TypeError, match=r"mask must be a boolean tensor"):
        shaw_attention_reference(q, kk, v, rk, rv, mask=torch.ones(3, 3))
    with pytest.raises(TypeError, match=r"mask must be a torch.Tensor"):
        shaw_attention(q, kk, v, rk, rv, mask=[[True] * 3] * 3)
    with pytest.raises(ValueError, match=r"max_relative_position must be >= 0"):
        shaw_relative_index(3, 3, -1)
    with pytest.raises(TypeError, match=r"n_q must be an integer"):
        shaw_relative_index(3.0, 3, 1)


def test_module_shapes_shared_tables_and_equivalence():
    torch.manual_seed(0)
    attn = ShawRelativeMultiheadAttention(dim=12, num_heads=3, max_relative_position=2).double()
    assert attn.rel_k.shape == (5, 4) and attn.rel_v.shape == (5, 4)
    x = torch.randn(2, 7, 12, dtype=torch.float64)
    y = attn(x)
    assert y.shape == (2, 7, 12)
    # per head, by hand with the reference
    q = attn.q_proj(x).reshape(2, 7, 3, 4).transpose(1, 2)
    k = attn.k_proj(x).reshape(2, 7, 3, 4).transpose(1, 2)
    v = attn.v_proj(x).reshape(2, 7, 3, 4).transpose(1, 2)
    z = shaw_attention_reference(q, k, v, attn.rel_k, attn.rel_v).transpose(1, 2).reshape(2, 7, 12)
    torch.testing.assert_close(y, attn.out_proj(z))
    ctx = torch.randn(2, 5, 12, dtype=torch.float64)
    assert attn(x, ctx).shape == (2, 7, 12)
    with pytest.raises(ValueError, match=r"num_heads must divide dim"):
        ShawRelativeMultiheadAttention(10, 3, 2)
    with pytest.raises(ValueError, match=r"x must have 12 channels"):
        attn(torch.randn(1, 3, 8, dtype=torch.float64))


@pytest.mark.parametrize("block_elements", [1, 5, 12])
@pytest.mark.parametrize("mask_shape", [None, (6, 8), (1, 8), (8,), (3, 1, 6, 8)])
def test_query_blocks_give_the_same_result(monkeypatch, block_elements, mask_shape):
    """Long inputs are processed in blocks of query rows; force tiny blocks at small sizes."""
    import posenc.shaw

    monkeypatch.setattr(posenc.shaw, "_BLOCK_ELEMENTS", block_elements)
    q, kk, v, rk, rv = random_inputs(11, (3, 2), 6, 8, 4, 5, 2)
    mask = None
    if mask_shape is not None:
        mask = torch.rand(mask_shape, generator=torch.Generator().manual_seed(1)) > 0.3
        mask[..., 0] = True
    fast = shaw_attention(q, kk, v, rk, rv, mask=mask)
    torch.testing.assert_close(
        fast, shaw_attention_reference(q, kk, v, rk, rv, mask=mask), rtol=1e-12, atol=1e-12
    )


def test_batch_dimensions_of_v_and_mask_broadcast_like_the_reference():
    q, kk, v, rk, rv = random_inputs(12, (), 5, 5, 4, 4, 2)
    v2 = torch.stack([v, 2 * v])  # [2, 5, 4]: a batch dimension only v has
    torch.testing.assert_close(
        shaw_attention(q, kk, v2, rk, rv), shaw_attention_reference(q, kk, v2, rk, rv)
    )
    mask = (
        torch.rand(3, 5, 5, generator=torch.Generator().manual_seed(2)) > 0.3
    )  # only the mask is batched
    mask[..., 0] = True
    fast = shaw_attention(q, kk, v, rk, rv, mask=mask)
    assert fast.shape == (3, 5, 4)
    torch.testing.assert_close(fast, shaw_attention_reference(q, kk, v, rk, rv, mask=mask))


def test_intermediate_bytes_golden_values():
    # Huang et al.'s example: L = 2048, D = 512 in float32, one n × n × d tensor ≈ 8.6 GB
    got = shaw_intermediate_bytes(2048, 512, 16)
    assert got["naive"] == 2 * 2048 * 2048 * 512 * 4
    assert got["attention"] == 2048 * 2048 * 4
    c = 2**18 // 2048  # query rows per block in shaw_attention
    assert got["posenc"] == (c * (c + 2048 + 31) + c * 2048 + 2 * c * 33) * 4
    assert (
        shaw_intermediate_bytes(64, 8, 2)["posenc"]
        == (64 * (64 + 64 + 3) + 64 * 64 + 2 * 64 * 5) * 4
    )
    # the naive count is the size of the two gathered tables for a small case
    n, d, k = 7, 3, 2
    idx = torch.as_tensor(t2t_relative_positions_matrix(n, n, k))
    a = torch.zeros(2 * k + 1, d)[idx]  # [n, n, d] float32
    assert shaw_intermediate_bytes(n, d, k)["naive"] == 2 * a.numel() * a.element_size()
    in_float64 = shaw_intermediate_bytes(n, d, k, element_size=8)["naive"]
    assert in_float64 == 4 * a.numel() * a.element_size()
    with pytest.raises(ValueError, match="dim must be positive"):
        shaw_intermediate_bytes(4, 0, 1)


def test_batch_dimensions_that_do_not_broadcast_are_a_value_error():
    q, kk, v, rk, rv = random_inputs(13, (2,), 5, 5, 4, 4, 2)
    with pytest.raises(ValueError, match="batch dimensions of q, k, v and mask must broadcast"):
        shaw_attention(q, kk, torch.cat([v, v[:1]]), rk, rv)  # v: [3, 5, 4] against q: [2, 5, 4]
