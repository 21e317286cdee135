"""Shaw relative attention against a float64 double loop, tensor2tensor's index and properties.

Both computation paths of ``shaw_attention`` (``strategy="blocked"``, the CPU's, and
``strategy="whole"``, every other device's) are forced here on the CPU, so the GPU path is
checked without a GPU.
"""

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from book.demos.shaw import shaw_attention_reference
from posenc.shaw import ShawRelativeMultiheadAttention, shaw_attention, shaw_relative_index
from tests.references import loop_reference, t2t_relative_positions_matrix

STRATEGIES = ("blocked", "whole")


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
def test_fast_matches_the_float64_loop(n_q, n_k, k):
    q, kk, v, rk, rv = random_inputs(n_q * 100 + n_k, (), n_q, n_k, 6, 3, k)
    expected = torch.from_numpy(loop_reference(q, kk, v, rk, rv))
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


def test_batch_dimensions_that_do_not_broadcast_are_a_value_error():
    q, kk, v, rk, rv = random_inputs(13, (2,), 5, 5, 4, 4, 2)
    with pytest.raises(ValueError, match="batch dimensions of q, k, v and mask must broadcast"):
        shaw_attention(q, kk, torch.cat([v, v[:1]]), rk, rv)  # v: [3, 5, 4] against q: [2, 5, 4]


# --- both paths, forced -------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize(
    "n_q,n_k,k",
    [(1, 1, 0), (5, 5, 2), (7, 4, 1), (3, 9, 4), (6, 6, 20), (4, 1, 3), (9, 2, 2), (2, 9, 1)],
)
def test_each_path_matches_the_float64_loop(strategy, n_q, n_k, k):
    q, kk, v, rk, rv = random_inputs(n_q * 100 + n_k + 7, (), n_q, n_k, 6, 3, k)
    expected = torch.from_numpy(loop_reference(q, kk, v, rk, rv))
    got = shaw_attention(q, kk, v, rk, rv, strategy=strategy)
    torch.testing.assert_close(got, expected, rtol=1e-12, atol=1e-12)


@given(
    n_q=st.integers(1, 9),
    n_k=st.integers(1, 9),
    k=st.integers(0, 12),
    heads=st.integers(1, 3),
    seed=st.integers(0, 2**16),
    mask_kind=st.sampled_from([None, "full", "row", "key", "batched"]),
)
def test_whole_and_blocked_equal_the_reference_and_each_other(n_q, n_k, k, heads, seed, mask_kind):
    q, kk, v, rk, rv = random_inputs(seed, (2, heads), n_q, n_k, 4, 5, k)
    g = torch.Generator().manual_seed(seed)
    shape = {
        None: None,
        "full": (n_q, n_k),
        "row": (1, n_k),
        "key": (n_k,),
        "batched": (3, 1, 1, n_q, n_k),  # a batch dimension only the mask has
    }[mask_kind]
    mask = None
    if shape is not None:
        mask = torch.rand(shape, generator=g) > 0.4
        mask[..., 0] = True  # every query sees at least one key
    ref = shaw_attention_reference(q, kk, v, rk, rv, mask=mask)
    outs = [shaw_attention(q, kk, v, rk, rv, mask=mask, strategy=s) for s in STRATEGIES]
    for out in outs:
        assert out.shape == ref.shape
        torch.testing.assert_close(out, ref, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(outs[0], outs[1], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_gradcheck_each_path(strategy):
    inputs = tuple(t.requires_grad_() for t in random_inputs(21, (2,), 5, 7, 3, 2, 2))
    mask = torch.ones(5, 7, dtype=torch.bool).tril(1)

    def call(*a):
        return shaw_attention(*a, mask=mask, strategy=strategy)

    assert torch.autograd.gradcheck(call, inputs)
    # k larger than both lengths, and more queries than keys
    inputs = tuple(t.requires_grad_() for t in random_inputs(22, (), 6, 3, 2, 2, 8))
    assert torch.autograd.gradcheck(lambda *a: shaw_attention(*a, strategy=strategy), inputs)


def test_whole_path_is_twice_differentiable():
    """Its custom backward (lookup and bucket sums are each other's adjoints) is differentiable."""
    inputs = tuple(t.requires_grad_() for t in random_inputs(23, (), 4, 5, 3, 2, 2))
    assert torch.autograd.gradgradcheck(lambda *a: shaw_attention(*a, strategy="whole"), inputs)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_gradients_of_each_path_match_the_reference(strategy):
    inputs = [t.requires_grad_() for t in random_inputs(24, (2, 3), 9, 11, 4, 3, 3)]
    mask = torch.rand(9, 11, generator=torch.Generator().manual_seed(0)) > 0.3
    mask[:, 0] = True
    shaw_attention(*inputs, mask=mask, strategy=strategy).square().sum().backward()
    grads = [t.grad.clone() for t in inputs]
    for t in inputs:
        t.grad = None
    shaw_attention_reference(*inputs, mask=mask).square().sum().backward()
    for a, b in zip(grads, (t.grad for t in inputs)):
        torch.testing.assert_close(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("dtype,tol", [(torch.bfloat16, 3e-2), (torch.float16, 4e-3)])
def test_low_precision_is_close_to_float64(strategy, dtype, tol):
    """In bf16/fp16 both paths stay within a few units of the format's rounding of the output."""
    q, kk, v, rk, rv = random_inputs(25, (2,), 64, 64, 16, 16, 4)
    low = [t.to(dtype) for t in (q, kk, v, rk, rv)]
    expected = shaw_attention_reference(*(t.double() for t in low))  # same rounded inputs
    got = shaw_attention(*low, strategy=strategy)
    assert got.dtype == dtype
    torch.testing.assert_close(got.double(), expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("strategy", ("auto", *STRATEGIES))
def test_meta_device_gives_meta_outputs(strategy):
    q = torch.empty(2, 3, 10, 8, device="meta")
    kk = torch.empty(2, 3, 12, 8, device="meta")
    v = torch.empty(2, 3, 12, 5, device="meta")
    rk, rv = torch.empty(9, 8, device="meta"), torch.empty(9, 5, device="meta")
    mask = torch.empty(10, 12, dtype=torch.bool, device="meta")
    out = shaw_attention(q, kk, v, rk, rv, mask=mask, strategy=strategy)
    assert out.device.type == "meta" and out.shape == (2, 3, 10, 5)
    assert shaw_relative_index(4, 6, 2, device="meta").device.type == "meta"


def test_meta_device_module():
    layer = ShawRelativeMultiheadAttention(16, 4, 3).to("meta")
    y = layer(torch.empty(2, 7, 16, device="meta"), torch.empty(2, 5, 16, device="meta"))
    assert y.device.type == "meta" and y.shape == (2, 7, 16)


def test_auto_chooses_blocked_on_the_cpu_and_whole_elsewhere(monkeypatch):
    import posenc.shaw

    q, kk, v, rk, rv = random_inputs(26, (2,), 6, 6, 4, 4, 2)
    assert torch.equal(
        shaw_attention(q, kk, v, rk, rv), shaw_attention(q, kk, v, rk, rv, strategy="blocked")
    )
    calls = []
    original = posenc.shaw._shaw_whole

    def spy(*args):
        calls.append(args[0].device.type)
        return original(*args)

    monkeypatch.setattr(posenc.shaw, "_shaw_whole", spy)
    shaw_attention(q, kk, v, rk, rv)
    assert calls == []  # the CPU keeps the blocked path
    shaw_attention(*(t.to("meta") for t in (q, kk, v, rk, rv)))
    assert calls == ["meta"]


@pytest.mark.parametrize("strategy", ("auto", *STRATEGIES))
def test_empty_inputs_give_empty_results(strategy):
    q, kk, v, rk, rv = random_inputs(27, (2,), 0, 5, 4, 3, 2)
    out = shaw_attention(q, kk, v, rk, rv, strategy=strategy)
    assert out.shape == (2, 0, 3)
    # an empty batch, and values without channels, give empty results too
    q, kk, v, rk, rv = random_inputs(27, (0,), 4, 5, 4, 3, 2)
    assert shaw_attention(q, kk, v, rk, rv, strategy=strategy).shape == (0, 4, 3)
    q, kk, v, rk, rv = random_inputs(27, (2,), 4, 5, 4, 0, 2)
    assert shaw_attention(q, kk, v, rk, rv, strategy=strategy).shape == (2, 4, 0)


# --- strict inputs ------------------------------------------------------------------------


def test_strategy_is_checked():
    q, kk, v, rk, rv = random_inputs(28, (), 3, 3, 4, 4, 1)
    with pytest.raises(ValueError, match=r"strategy must be one of \('auto', 'blocked', 'whole'\)"):
        shaw_attention(q, kk, v, rk, rv, strategy="fast")
    with pytest.raises(TypeError, match=r"strategy must be one of"):
        shaw_attention(q, kk, v, rk, rv, strategy=None)


def assert_tensors_must_be_float_of_one_dtype_on_one_device(fn):
    """The dtype, device and shape checks that Shaw attention (and its reference) make."""
    q, kk, v, rk, rv = random_inputs(29, (), 3, 4, 4, 4, 1)
    with pytest.raises(
        TypeError, match=r"q must be a floating-point tensor, got dtype torch.int64"
    ):
        fn(q.long(), kk, v, rk, rv)
    with pytest.raises(TypeError, match=r"v must be a floating-point tensor, got dtype torch.bool"):
        fn(q, kk, v > 0, rk, rv)
    with pytest.raises(TypeError, match=r"rel_k must be a floating-point tensor"):
        fn(q, kk, v, rk.to(torch.complex128), rv)
    with pytest.raises(
        TypeError, match=r"q, k, v, rel_k, rel_v must have one dtype.*k torch.float32"
    ):
        fn(q, kk.float(), v, rk, rv)
    with pytest.raises(TypeError, match=r"rel_v torch.float32"):
        fn(q, kk, v, rk, rv.float())
    with pytest.raises(ValueError, match=r"must be on one device, got q meta"):
        fn(q.to("meta"), kk, v, rk, rv)
    with pytest.raises(ValueError, match=r"must be on one device.*mask meta"):
        fn(q, kk, v, rk, rv, mask=torch.ones(3, 4, dtype=torch.bool, device="meta"))
    with pytest.raises(ValueError, match=r"k must have at least one key position"):
        fn(q, kk[:0], v[:0], rk, rv)
    with pytest.raises(ValueError, match=r"q must have at least one channel"):
        fn(q[:, :0], kk[:, :0], v, rk[:, :0], rv)
    with pytest.raises(ValueError, match=r"rel_k must have 2 dimensions"):
        fn(q, kk, v, rk[None], rv)


def test_tensors_must_be_float_of_one_dtype_on_one_device():
    assert_tensors_must_be_float_of_one_dtype_on_one_device(shaw_attention)


def assert_masks_that_do_not_broadcast_name_both_shapes(fn):
    """The mask checks that Shaw attention (and its reference) make."""
    q, kk, v, rk, rv = random_inputs(30, (2,), 3, 4, 4, 4, 1)
    with pytest.raises(ValueError, match=r"mask of shape \(3, 3\) does not broadcast.*\(2, 3, 4\)"):
        fn(q, kk, v, rk, rv, mask=torch.ones(3, 3, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"mask of shape \(5,\) does not broadcast"):
        fn(q, kk, v, rk, rv, mask=torch.ones(5, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"batch dimensions of q, k, v and mask must broadcast"):
        fn(q, kk, v, rk, rv, mask=torch.ones(3, 3, 4, dtype=torch.bool))


def test_masks_that_do_not_broadcast_name_both_shapes():
    assert_masks_that_do_not_broadcast_name_both_shapes(shaw_attention)


def test_module_arguments_are_strict():
    with pytest.raises(TypeError, match=r"qkv_bias must be a bool"):
        ShawRelativeMultiheadAttention(8, 2, 2, qkv_bias="False")
    with pytest.raises(TypeError, match=r"max_relative_position must be an integer"):
        ShawRelativeMultiheadAttention(8, 2, True)
    with pytest.raises(TypeError, match=r"dim must be an integer"):
        ShawRelativeMultiheadAttention(8.0, 2, 2)
    layer = ShawRelativeMultiheadAttention(8, 2, 2)
    with pytest.raises(TypeError, match=r"x must be a floating-point tensor"):
        layer(torch.ones(1, 3, 8, dtype=torch.long))
    with pytest.raises(TypeError, match=r"x, context, rel_k must have one dtype"):
        layer(torch.ones(1, 3, 8, dtype=torch.float64))
    with pytest.raises(ValueError, match=r"context must have x's batch size 2"):
        layer(torch.ones(2, 3, 8), torch.ones(3, 4, 8))
    with pytest.raises(
        ValueError, match=r"mask of shape \(3, 5\) does not broadcast.*\(1, 2, 3, 4\)"
    ):
        layer(torch.ones(1, 3, 8), torch.ones(1, 4, 8), mask=torch.ones(3, 5, dtype=torch.bool))


def test_state_dict_with_tables_of_another_size_is_refused():
    small = ShawRelativeMultiheadAttention(8, 2, 2)
    big = ShawRelativeMultiheadAttention(8, 2, 4)
    with pytest.raises(ValueError, match=r"'rel_k' has shape \(9, 4\).*shape \(5, 4\)"):
        small.load_state_dict(big.state_dict())
    state = small.state_dict()
    state["rel_v"] = torch.zeros(5, 2)
    with pytest.raises(ValueError, match=r"'rel_v' has shape \(5, 2\).*shape \(5, 4\)"):
        ShawRelativeMultiheadAttention(8, 2, 2).load_state_dict(state)
    # nested under a prefix, and a matching state dict still loads
    outer = torch.nn.Sequential(ShawRelativeMultiheadAttention(8, 2, 2))
    with pytest.raises(ValueError, match=r"'0.rel_k' has shape \(9, 4\)"):
        outer.load_state_dict({f"0.{key}": t for key, t in big.state_dict().items()})
    fresh = ShawRelativeMultiheadAttention(8, 2, 2)
    fresh.load_state_dict(small.state_dict())
    assert torch.equal(fresh.rel_k, small.rel_k)


def test_whole_path_runs_no_running_sum():
    """A GPU's cumsum of bf16/fp16 accumulates in that format; the whole-row path avoids it."""
    from torch.overrides import TorchFunctionMode

    class Record(TorchFunctionMode):
        def __init__(self):
            super().__init__()
            self.names = set()

        def __torch_function__(self, func, types, args=(), kwargs=None):
            self.names.add(getattr(func, "__name__", str(func)))
            return func(*args, **(kwargs or {}))

    inputs = [t.to(torch.bfloat16).requires_grad_() for t in random_inputs(31, (2,), 6, 7, 4, 4, 2)]
    with Record() as whole:
        shaw_attention(*inputs, strategy="whole").float().square().sum().backward()
    assert "cumsum" not in whole.names and "scatter_" in whole.names
    with Record() as blocked:
        shaw_attention(*inputs, strategy="blocked")
    assert "cumsum" in blocked.names  # the recorder does see it where it is used


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_long_rows_in_bfloat16_keep_their_bucket_mass(strategy):
    """Near-uniform weights over 1024 keys: the clipped buckets hold almost all the mass."""
    n, d, k = 1024, 8, 3
    g = torch.Generator().manual_seed(32)
    q = (0.01 * torch.randn(1, n, d, generator=g)).to(torch.bfloat16)
    kk = (0.01 * torch.randn(1, n, d, generator=g)).to(torch.bfloat16)
    v = torch.zeros(1, n, d, dtype=torch.bfloat16)  # only the value term is left
    rk = torch.zeros(2 * k + 1, d, dtype=torch.bfloat16)
    rv = torch.eye(2 * k + 1, d, dtype=torch.bfloat16)  # channel r of the output is bucket r
    got = shaw_attention(q, kk, v, rk, rv, strategy=strategy).double()  # [1, n, d]
    ref = shaw_attention_reference(*(t.double() for t in (q, kk, v, rk, rv)))
    torch.testing.assert_close(got, ref, rtol=2e-2, atol=2e-3)


def test_module_follows_autocast_and_takes_an_empty_sequence():
    layer = ShawRelativeMultiheadAttention(8, 2, 2)
    x = torch.randn(2, 5, 8)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = layer(x)
    assert y.dtype == torch.bfloat16
    torch.testing.assert_close(y.float(), layer(x), atol=5e-2, rtol=5e-2)
    assert layer(torch.randn(2, 0, 8)).shape == (2, 0, 8)
