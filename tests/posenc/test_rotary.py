"""posenc.rotary against RoFormer's formula, rotary-embedding-torch, transformers' Llama and properties."""

import math
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from rotary_embedding_torch import RotaryEmbedding as LucidRotaryEmbedding
from rotary_embedding_torch.rotary_embedding_torch import rotate_half as lucid_rotate_half
from transformers import LlamaConfig
from transformers.core_model_loading import PermuteForRope
from transformers.models.llama.modeling_llama import (
    LlamaRotaryEmbedding,
    apply_rotary_pos_emb,
)
from transformers.models.llama.modeling_llama import rotate_half as llama_rotate_half

from posenc.rotary import (
    RotaryEmbedding,
    apply_rotary,
    rotary_angles,
    rotary_cos_sin,
    rotary_matrix,
    rotary_permutation,
    rotary_quarter_turn,
)
from tests.references import roformer_loop

F64 = torch.float64


def randn(*shape, seed=0, dtype=F64):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


# -- the formula ------------------------------------------------------------------------------


def test_golden_values_dim4():
    # θ_0 = 1, θ_1 = 10000^(-1/2) = 0.01. The unit vector e_0 at position 1 turns to (cos 1, sin 1);
    # e_2 (first channel of pair 1 when interleaved) turns by 0.01 rad.
    x = torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]], dtype=F64)
    y = apply_rotary(x[:, None, :].expand(2, 2, 4), torch.tensor([0, 1]))
    expected_e0 = torch.tensor(
        [[1.0, 0.0, 0.0, 0.0], [0.5403023058681398, 0.8414709848078965, 0.0, 0.0]], dtype=F64
    )
    expected_e2 = torch.tensor(
        [[0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.9999500004166653, 0.009999833334166664]], dtype=F64
    )
    torch.testing.assert_close(y[0], expected_e0, rtol=0, atol=1e-15)
    torch.testing.assert_close(y[1], expected_e2, rtol=0, atol=1e-15)
    # rotate-half: e_0 is paired with e_2 (channel 0 with channel d/2)
    y_half = apply_rotary(x[:1].expand(2, 4), interleaved=False)
    torch.testing.assert_close(
        y_half[1],
        torch.tensor([0.5403023058681398, 0.0, 0.8414709848078965, 0.0], dtype=F64),
        rtol=0,
        atol=1e-15,
    )


@pytest.mark.parametrize("interleaved", [True, False])
@pytest.mark.parametrize(
    ("dim", "base"), [(2, 10000.0), (6, 10000.0), (32, 10000.0), (16, 500000.0), (8, 10.0)]
)
def test_matches_roformer_loop(dim, base, interleaved):
    pos = [0, 1, 2, 7, 50, 511, 2.5, -3.25, 123456]
    x = randn(len(pos), dim, seed=dim)
    got = apply_rotary(x, torch.tensor(pos, dtype=F64), base=base, interleaved=interleaved)
    expected = roformer_loop(x, pos, base, interleaved)
    np.testing.assert_allclose(got.numpy(), expected, rtol=0, atol=1e-12)


def test_angles_and_tables():
    angles = rotary_angles(5, 8, base=100.0)
    assert angles.shape == (5, 4) and angles.dtype == F64
    expected = [[m * 100.0 ** (-2 * i / 8) for i in range(4)] for m in range(5)]
    np.testing.assert_allclose(angles.numpy(), expected, rtol=1e-15)
    cos, _sin = rotary_cos_sin(5, 8, base=100.0)
    assert cos.dtype == torch.float32 and cos.shape == (5, 8)
    torch.testing.assert_close(
        cos, torch.cos(angles).repeat_interleave(2, dim=-1).float(), rtol=0, atol=0
    )
    _cos_h, sin_h = rotary_cos_sin(5, 8, base=100.0, interleaved=False, dtype=F64)
    torch.testing.assert_close(sin_h, torch.sin(torch.cat((angles, angles), -1)), rtol=0, atol=0)
    # positions [..., n] give tables [..., n, d]
    assert rotary_angles(torch.zeros(3, 1, 5), 8).shape == (3, 1, 5, 4)


def test_quarter_turn_matches_both_libraries():
    x = randn(3, 5, 8, seed=1)
    torch.testing.assert_close(
        rotary_quarter_turn(x, interleaved=True), lucid_rotate_half(x), rtol=0, atol=0
    )
    torch.testing.assert_close(
        rotary_quarter_turn(x, interleaved=False), llama_rotate_half(x), rtol=0, atol=0
    )
    # two quarter turns are a half turn
    for inter in (True, False):
        twice = rotary_quarter_turn(rotary_quarter_turn(x, interleaved=inter), interleaved=inter)
        torch.testing.assert_close(twice, -x, rtol=0, atol=0)


# -- independent libraries --------------------------------------------------------------------


def test_matches_rotary_embedding_torch():
    # rotary-embedding-torch 0.9.1: theta defaults to 10000, freqs 1/theta^(arange(0, d, 2)/d)
    # repeated "(n r)": the interleaved layout. It computes the angles in float32.
    d, n = 32, 64
    theirs = LucidRotaryEmbedding(d)
    assert theirs.freqs.shape == (d // 2,)
    cos, _ = rotary_cos_sin(torch.tensor([1]), d)  # position 1: cos θ_i, interleaved
    torch.testing.assert_close(torch.cos(theirs(torch.tensor([1.0]))), cos, rtol=0, atol=1e-7)
    x = randn(2, 3, n, d, seed=2, dtype=torch.float32)  # [b, h, n, d]
    torch.testing.assert_close(apply_rotary(x), theirs.rotate_queries_or_keys(x), rtol=0, atol=2e-5)
    # queries at the end of a longer key sequence (decoding with a cache)
    q, k = (
        randn(2, 3, 5, d, seed=3, dtype=torch.float32),
        randn(2, 3, n, d, seed=4, dtype=torch.float32),
    )
    their_q, their_k = theirs.rotate_queries_with_cached_keys(q, k)
    our_q, our_k = RotaryEmbedding(d)(q, k)
    torch.testing.assert_close(our_q, their_q, rtol=0, atol=2e-5)
    torch.testing.assert_close(our_k, their_k, rtol=0, atol=2e-5)


def _llama_rope(head_dim, base):
    config = LlamaConfig(
        hidden_size=2 * head_dim,
        num_attention_heads=2,
        head_dim=head_dim,
        rope_parameters={"rope_type": "default", "rope_theta": base},
    )
    return LlamaRotaryEmbedding(config)


@pytest.mark.parametrize("base", [10000.0, 500000.0])
def test_matches_transformers_llama(base):
    # transformers 5.23: LlamaRotaryEmbedding (float32 angles) + apply_rotary_pos_emb, rotate-half
    d, n = 16, 40
    q, k = randn(2, 3, n, d, seed=5), randn(2, 3, n, d, seed=6)  # [b, h, n, d]
    position_ids = torch.tensor(
        [list(range(n)), list(range(7, 7 + n))]
    )  # [b, n]: second sequence shifted
    cos, sin = _llama_rope(d, base)(q, position_ids)  # [b, n, d]
    hf_q, hf_k = apply_rotary_pos_emb(q, k, cos, sin)
    pos = position_ids[:, None, :]  # [b, 1, n], broadcast over heads
    torch.testing.assert_close(
        apply_rotary(q, pos, base=base, interleaved=False), hf_q, rtol=0, atol=2e-5
    )
    torch.testing.assert_close(
        apply_rotary(k, pos, base=base, interleaved=False), hf_k, rtol=0, atol=2e-5
    )
    mod_q, mod_k = RotaryEmbedding(d, base=base, interleaved=False)(q, k)
    torch.testing.assert_close(mod_q[0], hf_q[0], rtol=0, atol=2e-5)
    torch.testing.assert_close(mod_k[0], hf_k[0], rtol=0, atol=2e-5)


def test_llama_arithmetic_with_float64_tables_agrees_to_rounding():
    # Feed HF's apply_rotary_pos_emb cos/sin tables built here in float64 NumPy (cat(freqs, freqs)):
    # the layout and the arithmetic then agree to 1e-12, without HF's float32 angles in the way.
    d, n = 24, 300
    inv_freq = 1.0 / 10000.0 ** (np.arange(0, d, 2) / d)
    freqs = np.arange(n)[:, None] * inv_freq[None, :]
    emb = torch.from_numpy(np.concatenate([freqs, freqs], axis=-1))[None]  # [1, n, d]
    q, k = randn(1, 2, n, d, seed=7), randn(1, 2, n, d, seed=8)
    hf_q, hf_k = apply_rotary_pos_emb(q, k, emb.cos(), emb.sin())
    torch.testing.assert_close(apply_rotary(q, interleaved=False), hf_q, rtol=0, atol=1e-12)
    torch.testing.assert_close(apply_rotary(k, interleaved=False), hf_k, rtol=0, atol=1e-12)


@pytest.mark.parametrize(("head_dim", "heads"), [(8, 1), (16, 4), (64, 2)])
def test_permutation_matches_transformers_conversion(head_dim, heads):
    w = torch.arange(heads * head_dim * 3, dtype=F64).reshape(
        heads * head_dim, 3
    )  # a W_q, rows = out channels
    theirs = PermuteForRope()._permute_for_rope(w, SimpleNamespace(num_attention_heads=heads))
    perm = rotary_permutation(head_dim, num_heads=heads)
    assert perm.dtype == torch.long and sorted(perm.tolist()) == list(range(heads * head_dim))
    torch.testing.assert_close(w[perm], theirs, rtol=0, atol=0)


# -- precision --------------------------------------------------------------------------------


def test_float32_inputs_get_float64_angles():
    # near position 10^6 a float32 angle m·θ_0 is off by up to 1/32 rad; ours rounds only cos and sin
    d = 16
    pos = torch.arange(10**6 - 50, 10**6, dtype=F64)
    x = randn(50, d, seed=9)
    exact = torch.from_numpy(roformer_loop(x, pos.tolist()))
    ours = apply_rotary(x.float(), pos)
    assert ours.dtype == torch.float32
    assert (ours.double() - exact).abs().max() < 1e-5
    float32_angles = LucidRotaryEmbedding(d).rotate_queries_or_keys(x.float(), offset=10**6 - 50)
    assert (float32_angles.double() - exact).abs().max() > 1e-2  # what float32 angles cost


# -- properties -------------------------------------------------------------------------------

dims = st.sampled_from([2, 4, 8, 16])
bases = st.sampled_from([100.0, 10000.0])
reals = st.floats(-1e3, 1e3, allow_nan=False)
small = settings(max_examples=40)


@small
@given(
    m=reals,
    n=reals,
    shift=reals,
    dim=dims,
    base=bases,
    interleaved=st.booleans(),
    seed=st.integers(0, 99),
)
def test_logit_depends_only_on_the_offset(m, n, shift, dim, base, interleaved, seed):
    q, k = randn(dim, seed=seed), randn(dim, seed=seed + 100)

    def logit(a, b):
        qa = apply_rotary(
            q[None], torch.tensor([a], dtype=F64), base=base, interleaved=interleaved
        )[0]
        kb = apply_rotary(
            k[None], torch.tensor([b], dtype=F64), base=base, interleaved=interleaved
        )[0]
        return qa @ kb

    assert logit(m, n).item() == pytest.approx(logit(m + shift, n + shift).item(), abs=1e-9)
    # ⟨R_m q, R_n k⟩ = ⟨q, R_{n-m} k⟩ (RoFormer)
    r = rotary_matrix(n - m, dim, base=base, interleaved=interleaved)
    assert logit(m, n).item() == pytest.approx((q @ (r @ k)).item(), abs=1e-9)


@small
@given(n=st.integers(1, 12), dim=dims, interleaved=st.booleans(), seed=st.integers(0, 99))
def test_rotation_keeps_each_pair_norm_and_undoes_with_negative_positions(
    n, dim, interleaved, seed
):
    x = randn(2, n, dim, seed=seed)
    pos = torch.rand(n, generator=torch.Generator().manual_seed(seed), dtype=F64) * 1e4 - 5e3
    y = apply_rotary(x, pos, interleaved=interleaved)
    perm = rotary_permutation(dim) if interleaved else torch.arange(dim)
    pair_norm = lambda t: t[..., perm].unflatten(-1, (2, dim // 2)).norm(dim=-2)
    torch.testing.assert_close(pair_norm(y), pair_norm(x), rtol=0, atol=1e-12)
    torch.testing.assert_close(
        apply_rotary(y, -pos, interleaved=interleaved), x, rtol=0, atol=1e-12
    )
    torch.testing.assert_close(
        apply_rotary(x, torch.zeros(n), interleaved=interleaved), x, rtol=0, atol=0
    )


@small
@given(n=st.integers(1, 10), dim=dims, base=bases, seed=st.integers(0, 99))
def test_layouts_agree_up_to_the_permutation(n, dim, base, seed):
    x = randn(3, n, dim, seed=seed)
    perm = rotary_permutation(dim)
    inter = apply_rotary(x, base=base)
    half = apply_rotary(x[..., perm], base=base, interleaved=False)
    torch.testing.assert_close(half, inter[..., perm], rtol=0, atol=1e-13)
    torch.testing.assert_close(inter[..., torch.argsort(perm)][..., perm], inter, rtol=0, atol=0)


@small
@given(m=reals, dim=dims, interleaved=st.booleans(), seed=st.integers(0, 99))
def test_rotary_matrix_is_the_rotation_apply_rotary_performs(m, dim, interleaved, seed):
    x = randn(4, dim, seed=seed)
    r = rotary_matrix(m, dim, interleaved=interleaved)
    torch.testing.assert_close(r @ r.T, torch.eye(dim, dtype=F64), rtol=0, atol=1e-12)
    pos = torch.full((4,), m, dtype=F64)
    torch.testing.assert_close(
        apply_rotary(x, pos, interleaved=interleaved), x @ r.T, rtol=0, atol=1e-9
    )


def test_swapping_layouts_without_the_permutation_gives_other_logits():
    # queries and keys made for the interleaved layout, rotated with rotate-half by mistake
    d, n = 16, 12
    q, k = randn(n, d, seed=10), randn(n, d, seed=11)
    right = apply_rotary(q) @ apply_rotary(k).T  # [n, n]
    wrong = apply_rotary(q, interleaved=False) @ apply_rotary(k, interleaved=False).T
    repaired = (
        apply_rotary(q[:, rotary_permutation(d)], interleaved=False)
        @ apply_rotary(k[:, rotary_permutation(d)], interleaved=False).T
    )
    torch.testing.assert_close(repaired, right, rtol=0, atol=1e-12)
    off_diagonal = ~torch.eye(n, dtype=torch.bool)  # at offset 0 there is no rotation to get wrong
    assert (wrong - right)[off_diagonal].abs().max() > 1.0
    torch.testing.assert_close(wrong.diagonal(), right.diagonal(), rtol=0, atol=1e-12)


# -- the module -------------------------------------------------------------------------------


def test_module_caches_out_of_state_dict_and_matches_the_function():
    mod = RotaryEmbedding(8, base=100.0, interleaved=False, max_positions=16)
    assert len(list(mod.parameters())) == 0
    assert set(dict(mod.named_buffers())) == {"cos_cached", "sin_cached"}
    assert mod.state_dict() == {}
    assert mod.cos_cached.shape == (16, 8) and mod.cos_cached.dtype == torch.float32
    q, k = (
        randn(2, 10, 8, seed=12, dtype=torch.float32),
        randn(2, 10, 8, seed=13, dtype=torch.float32),
    )
    q_rot, k_rot = mod(q, k)
    torch.testing.assert_close(
        q_rot, apply_rotary(q, base=100.0, interleaved=False), rtol=0, atol=0
    )
    torch.testing.assert_close(
        k_rot, apply_rotary(k, base=100.0, interleaved=False), rtol=0, atol=0
    )


def test_module_grows_its_cache_and_follows_the_dtype():
    mod = RotaryEmbedding(8, max_positions=4)
    x = randn(1, 37, 8, seed=14, dtype=torch.float32)
    q_rot, _ = mod(x, x)
    assert mod.cos_cached.shape == (64, 8)  # next power of two
    torch.testing.assert_close(q_rot, apply_rotary(x), rtol=0, atol=0)
    x64 = x.double()
    q64, _ = mod.double()(
        x64, x64
    )  # .double() casts the float32 tables: they are rebuilt from float64
    assert mod.cos_cached.dtype == F64
    torch.testing.assert_close(
        q64, torch.from_numpy(roformer_loop(x64[0], range(37)))[None], rtol=0, atol=1e-12
    )
    q32, _ = mod(x, x)
    assert q32.dtype == torch.float32 and mod.cos_cached.dtype == torch.float32


def test_module_query_offset():
    mod = RotaryEmbedding(8)
    q, k = randn(3, 8, seed=15), randn(10, 8, seed=16)
    q_rot, k_rot = mod(q, k)  # queries are positions 7, 8, 9
    torch.testing.assert_close(q_rot, apply_rotary(q, torch.arange(7, 10)), rtol=0, atol=1e-15)
    torch.testing.assert_close(k_rot, apply_rotary(k), rtol=0, atol=1e-15)
    q_rot, _ = mod(q, k, query_offset=20)  # beyond the keys: allowed when asked for
    torch.testing.assert_close(q_rot, apply_rotary(q, torch.arange(20, 23)), rtol=0, atol=1e-15)


# -- errors -----------------------------------------------------------------------------------


def test_errors_name_the_argument():
    x = torch.zeros(4, 6)
    with pytest.raises(ValueError, match="x's last dimension d must be even"):
        apply_rotary(torch.zeros(4, 5))
    with pytest.raises(ValueError, match=r"x must have at least 2 dimensions"):
        apply_rotary(torch.zeros(6))
    with pytest.raises(TypeError, match="x must be a floating-point tensor"):
        apply_rotary(torch.zeros(4, 6, dtype=torch.long))
    with pytest.raises(TypeError, match="x must be a torch.Tensor"):
        apply_rotary([[0.0, 1.0]])
    with pytest.raises(ValueError, match="positions must have x's 4 positions"):
        apply_rotary(x, torch.arange(5))
    with pytest.raises(ValueError, match="positions' leading dimensions"):
        apply_rotary(torch.zeros(2, 4, 6), torch.zeros(3, 4))
    with pytest.raises(TypeError, match="positions must be a torch.Tensor"):
        apply_rotary(x, [0, 1, 2, 3])
    with pytest.raises(TypeError, match="positions must hold real numbers"):
        rotary_angles(torch.ones(3, dtype=torch.bool), 4)
    with pytest.raises(ValueError, match="positions must have at least 1 dimension"):
        rotary_angles(torch.tensor(3), 4)
    with pytest.raises(ValueError, match="dim must be even"):
        rotary_angles(3, 5)
    with pytest.raises(ValueError, match="base must be a finite number > 1"):
        apply_rotary(x, base=-1.0)
    with pytest.raises(ValueError, match="dim must be even"):
        rotary_permutation(7)
    with pytest.raises(ValueError, match="num_heads must be positive"):
        rotary_permutation(8, num_heads=0)
    with pytest.raises(TypeError, match="position must be a real number"):
        rotary_matrix("1", 4)
    with pytest.raises(ValueError, match="x's last dimension must be even"):
        rotary_quarter_turn(torch.zeros(3))
    with pytest.raises(ValueError, match="dim must be even"):
        RotaryEmbedding(7)
    with pytest.raises(ValueError, match="max_positions must be positive"):
        RotaryEmbedding(8, max_positions=0)
    mod = RotaryEmbedding(6)
    with pytest.raises(ValueError, match=r"k must be \[..., n, 6\]"):
        mod(x, torch.zeros(4, 8))
    with pytest.raises(TypeError, match="^q, k must have one dtype"):
        mod(x, x.double())
    with pytest.raises(ValueError, match="n_q must be <= n_k when query_offset is not given"):
        mod(torch.zeros(5, 6), x)
    with pytest.raises(ValueError, match="query_offset must be >= 0"):
        mod(x, x, query_offset=-1)


# -- strict inputs -----------------------------------------------------------------------------

NON_FINITE = st.sampled_from([math.nan, math.inf, -math.inf])


@pytest.mark.parametrize("flag", ["False", 0, 1, None, torch.tensor(False)])
def test_interleaved_must_be_a_bool(flag):
    x = torch.zeros(3, 4)
    calls = {
        "cos_sin": lambda: rotary_cos_sin(3, 4, interleaved=flag),
        "quarter": lambda: rotary_quarter_turn(x, interleaved=flag),
        "apply": lambda: apply_rotary(x, interleaved=flag),
        "matrix": lambda: rotary_matrix(1.0, 4, interleaved=flag),
        "module": lambda: RotaryEmbedding(4, interleaved=flag),
    }
    for call in calls.values():
        with pytest.raises(TypeError, match=r"^interleaved must be a bool"):
            call()


def test_the_repr_cannot_lie_about_the_layout():
    # interleaved="False" used to be stored as is, read as True, and shown as 'False'
    assert "interleaved=False" in repr(RotaryEmbedding(4, interleaved=False))
    with pytest.raises(TypeError, match=r"^interleaved must be a bool.*'False'"):
        RotaryEmbedding(4, interleaved="False")


@given(base=st.floats(max_value=1.0, allow_nan=False) | NON_FINITE)
def test_base_must_be_finite_and_above_one(base):
    for call in (
        lambda: rotary_angles(3, 4, base=base),
        lambda: apply_rotary(torch.zeros(3, 4), base=base),
        lambda: RotaryEmbedding(4, base=base),
    ):
        with pytest.raises(ValueError, match=r"^base must be a finite number > 1, got "):
            call()


@given(bad=NON_FINITE)
def test_positions_and_position_must_be_finite(bad):
    with pytest.raises(ValueError, match=r"^positions must be finite"):
        rotary_angles(torch.tensor([0.0, bad]), 4)
    with pytest.raises(ValueError, match=r"^positions must be finite"):
        apply_rotary(torch.zeros(2, 4), torch.tensor([0.0, bad]))
    with pytest.raises(ValueError, match=r"^position must be a finite number"):
        rotary_matrix(bad, 4)


@pytest.mark.parametrize("dtype", [torch.int64, torch.bool, torch.complex64])
def test_cos_sin_dtype_must_be_floating(dtype):
    with pytest.raises(ValueError, match=r"^dtype must be a floating-point dtype"):
        rotary_cos_sin(3, 4, dtype=dtype)


@pytest.mark.parametrize("dtype", [torch.int64, torch.bool, torch.complex64])
def test_tensors_must_be_floating(dtype):
    bad = torch.zeros(3, 4, dtype=dtype)
    good = torch.zeros(3, 4)
    with pytest.raises(TypeError, match=r"^x must be a floating-point tensor"):
        rotary_quarter_turn(bad)
    with pytest.raises(TypeError, match=r"^k must be a floating-point tensor"):
        RotaryEmbedding(4)(good, bad)
    with pytest.raises(TypeError, match=r"^positions must hold real numbers"):
        apply_rotary(good, torch.zeros(3, dtype=torch.bool))


def test_mixed_dtypes_are_refused():
    with pytest.raises(TypeError, match=r"^q, k must have one dtype, got q torch.float32, k torch"):
        RotaryEmbedding(4)(torch.zeros(3, 4), torch.zeros(3, 4, dtype=torch.float64))


@pytest.mark.parametrize("value", [True, 4.0])
def test_sizes_must_be_ints(value):
    with pytest.raises(TypeError, match=r"^max_positions must be an integer"):
        RotaryEmbedding(4, max_positions=value)
    with pytest.raises(TypeError, match=r"^num_heads must be an integer"):
        rotary_permutation(4, num_heads=value)
    with pytest.raises(TypeError, match=r"^query_offset must be an integer"):
        RotaryEmbedding(4)(torch.zeros(2, 4), torch.zeros(3, 4), query_offset=value)


def test_module_query_offset_rules_match_query_key_positions():
    rope = RotaryEmbedding(4)
    with pytest.raises(ValueError, match=r"^n_q must be <= n_k when query_offset is not given"):
        rope(torch.zeros(5, 4), torch.zeros(3, 4))
    with pytest.raises(ValueError, match=r"^query_offset must be >= 0"):
        rope(torch.zeros(2, 4), torch.zeros(3, 4), query_offset=-1)
    q, k = torch.randn(2, 4, dtype=torch.float64), torch.randn(3, 4, dtype=torch.float64)
    q_rot, _ = rope(q, k, query_offset=7)
    torch.testing.assert_close(q_rot, apply_rotary(q, torch.arange(7, 9)), rtol=0, atol=1e-15)


def test_empty_inputs_give_empty_results():
    assert apply_rotary(torch.zeros(2, 0, 4)).shape == (2, 0, 4)
    q_rot, k_rot = RotaryEmbedding(4)(torch.zeros(1, 0, 4), torch.zeros(1, 0, 4))
    assert q_rot.shape == k_rot.shape == (1, 0, 4)
    q_rot, _ = RotaryEmbedding(4)(torch.zeros(0, 4), torch.zeros(3, 4))
    assert q_rot.shape == (0, 4)
    with pytest.raises(ValueError, match=r"^x's last dimension d must be even and >= 2"):
        apply_rotary(torch.zeros(3, 0))


# -- the meta device: nothing built on the CPU -------------------------------------------------


def test_functions_on_the_meta_device():
    meta = torch.device("meta")
    x = torch.empty(2, 5, 8, device=meta)
    cos, sin = rotary_cos_sin(5, 8, device=meta)
    outs = {
        "angles": (rotary_angles(torch.empty(5, device=meta), 8), (5, 4)),
        "angles(int)": (rotary_angles(5, 8, device=meta), (5, 4)),
        "cos": (cos, (5, 8)),
        "sin": (sin, (5, 8)),
        "quarter": (rotary_quarter_turn(x, interleaved=False), (2, 5, 8)),
        "apply": (apply_rotary(x), (2, 5, 8)),
        "apply(positions)": (apply_rotary(x, torch.empty(2, 5, device=meta)), (2, 5, 8)),
        "matrix": (rotary_matrix(2.0, 8, interleaved=False, device=meta), (8, 8)),
        "permutation": (rotary_permutation(8, num_heads=2, device=meta), (16,)),
    }
    for name, (out, shape) in outs.items():
        assert out.device == meta and out.shape == shape, name


def test_module_on_the_meta_device():
    meta = torch.device("meta")
    rope = RotaryEmbedding(8, max_positions=4).to(meta)
    q, k = torch.empty(2, 3, 8, device=meta), torch.empty(2, 9, 8, device=meta)
    q_rot, k_rot = rope(q, k)  # grows the cache, on the meta device
    assert q_rot.device == k_rot.device == meta
    assert q_rot.shape == (2, 3, 8) and k_rot.shape == (2, 9, 8)
    with torch.device(meta):
        built = RotaryEmbedding(8)
    assert built.cos_cached.device == meta
