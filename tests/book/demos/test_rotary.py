"""book.demos.rotary against RoFormer's rotations one pair at a time and the paper's sums."""

import cmath
import math

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from book.demos.rotary import rotary_decay_bound, rotary_offset_logits
from tests.posenc.test_rotary import F64, dims, randn, small
from tests.references import roformer_loop

NON_FINITE = st.sampled_from([math.nan, math.inf, -math.inf])

# -- the logit against the offset -------------------------------------------------------------


@pytest.mark.parametrize("interleaved", [True, False])
def test_offset_logits_match_roformer_loop_at_any_query_position(interleaved):
    d, base = 12, 500.0
    q, k = randn(d, seed=20), randn(d, seed=21)
    offsets = [0, 1, 2, 5, 17, 300, -4, 2.5]
    got = rotary_offset_logits(
        q, k, torch.tensor(offsets, dtype=F64), base=base, interleaved=interleaved
    )
    assert got.shape == (len(offsets),) and got.dtype == F64
    for m in (0.0, 7.0, 1234.0):  # query at m, key at m + r, rotated one pair at a time
        rq = roformer_loop(q[None].numpy(), [m], base, interleaved)[0]
        rk = roformer_loop(
            np.tile(k.numpy(), (len(offsets), 1)), [m + r for r in offsets], base, interleaved
        )
        np.testing.assert_allclose(got.numpy(), rk @ rq, rtol=0, atol=1e-11)


def test_offset_logits_of_equal_all_ones_vectors_are_twice_the_cosine_sum():
    # q = k = (1, …, 1): every pair contributes (1, 1)·R(φ)(1, 1) = 2 cos φ, in either layout
    d = 32
    r = np.arange(200)
    expected = 2 * np.cos(r[:, None] * 10000.0 ** (-np.arange(0, d, 2) / d)[None, :]).sum(1)
    ones = torch.ones(d, dtype=F64)
    for inter in (True, False):
        np.testing.assert_allclose(
            rotary_offset_logits(ones, ones, 200, interleaved=inter).numpy(),
            expected,
            rtol=0,
            atol=1e-11,
        )


def test_offset_logits_broadcast_and_errors():
    q, k = randn(3, 1, 8, seed=22), randn(5, 8, seed=23)
    got = rotary_offset_logits(q, k, 4)  # [3, 5, 4]
    assert got.shape == (3, 5, 4)
    torch.testing.assert_close(
        got[2, 4], rotary_offset_logits(q[2, 0], k[4], 4), rtol=0, atol=1e-14
    )
    with pytest.raises(ValueError, match="q and k must be \\[..., d\\] with the same d"):
        rotary_offset_logits(randn(8), randn(6), 3)
    with pytest.raises(ValueError, match="q and k must broadcast in their leading dimensions"):
        rotary_offset_logits(randn(3, 8), randn(5, 8), 2)
    with pytest.raises(
        TypeError, match="^q must be a floating-point tensor, got dtype torch.int64"
    ):
        rotary_offset_logits(torch.ones(4, dtype=torch.long), randn(4), 3)
    with pytest.raises(ValueError, match="offsets must have 1 dimension"):
        rotary_offset_logits(randn(4), randn(4), torch.zeros(2, 2))
    with pytest.raises(ValueError, match="offsets must be positive"):
        rotary_offset_logits(randn(4), randn(4), 0)


@pytest.mark.parametrize(("dim", "base"), [(2, 10000.0), (16, 10000.0), (64, 100.0)])
def test_decay_bound_matches_the_papers_sum(dim, base):
    offsets = [0, 1, 3, 10, 99, 1000, 2.5]
    got = rotary_decay_bound(torch.tensor(offsets, dtype=F64), dim, base=base)
    thetas = [base ** (-2 * i / dim) for i in range(dim // 2)]
    for value, r in zip(got.tolist(), offsets):
        partial = [sum(cmath.exp(1j * r * t) for t in thetas[:j]) for j in range(1, dim // 2 + 1)]
        assert value == pytest.approx(sum(abs(s) for s in partial) / (dim // 2), abs=1e-10)
    assert got[0].item() == pytest.approx((dim // 2 + 1) / 2)  # |S_j(0)| = j


@small
@given(r=st.floats(-500, 500, allow_nan=False), dim=dims, seed=st.integers(0, 99))
def test_decay_bound_bounds_the_logit(r, dim, seed):
    # |q·R_r k| <= max_i |h_{i+1} − h_i| · Σ_j |S_j(r)| with h_i = q_(i) conj(k_(i)), h_{d/2} = 0
    q, k = randn(dim, seed=seed), randn(dim, seed=seed + 1)
    h = torch.complex(q[0::2], q[1::2]) * torch.complex(k[0::2], -k[1::2])  # [d/2]
    jumps = (torch.cat((h, h.new_zeros(1)))[1:] - h).abs().max().item()
    bound = jumps * rotary_decay_bound(torch.tensor([r], dtype=F64), dim)[0].item() * (dim // 2)
    logit = rotary_offset_logits(q, k, torch.tensor([r], dtype=F64))[0].item()
    assert abs(logit) <= bound + 1e-9


# -- strict inputs -----------------------------------------------------------------------------


@pytest.mark.parametrize("flag", ["False", 0, 1, None, torch.tensor(False)])
def test_interleaved_must_be_a_bool(flag):
    x = torch.zeros(3, 4)
    with pytest.raises(TypeError, match=r"^interleaved must be a bool"):
        rotary_offset_logits(x[0], x[0], 3, interleaved=flag)


@given(bad=NON_FINITE)
def test_offsets_must_be_finite(bad):
    with pytest.raises(ValueError, match=r"^offsets must be finite"):
        rotary_offset_logits(torch.zeros(4), torch.zeros(4), torch.tensor([bad]))
    with pytest.raises(ValueError, match=r"^offsets must be finite"):
        rotary_decay_bound(torch.tensor([bad]), 4)


def test_mixed_dtypes_are_refused():
    with pytest.raises(TypeError, match=r"^q, k must have one dtype"):
        rotary_offset_logits(torch.zeros(4), torch.zeros(4, dtype=torch.float64), 3)


# -- the meta device: nothing built on the CPU -------------------------------------------------


def test_functions_on_the_meta_device():
    meta = torch.device("meta")
    x = torch.empty(2, 5, 8, device=meta)
    outs = {
        "offsets": (rotary_offset_logits(x[:, 0], x[:, 1], 6), (2, 6)),
        "decay": (rotary_decay_bound(6, 8, device=meta), (6,)),
    }
    for name, (out, shape) in outs.items():
        assert out.device == meta and out.shape == shape, name


def _round_significant(x: float, bits: int) -> float:
    """Round ``x`` to ``bits`` significant bits, ties to even (bfloat16: 8, float32: 24)."""
    if x == 0:
        return 0.0
    m, e = math.frexp(x)  # x = m · 2^e, 0.5 <= |m| < 1
    return math.ldexp(round(m * 2**bits) / 2**bits, e)


@pytest.mark.parametrize(("dtype", "bits"), [(torch.bfloat16, 8), (torch.float32, 24)])
def test_rotary_angle_error_matches_rounding_written_out(dtype, bits):
    from book.demos.rotary import rotary_angle_error

    positions = [0, 3, 255, 257, 1000, 4097, 10000, 65537]
    got = rotary_angle_error(torch.tensor(positions), 16, dtype=dtype)  # [8, 8]
    for row, m in enumerate(positions):
        for i in range(8):
            theta = 10000.0 ** (-2 * i / 16)
            angle = _round_significant(
                _round_significant(m, bits) * _round_significant(theta, bits), bits
            )
            diff = math.remainder(angle - m * theta, 2 * math.pi)  # in [-π, π]
            assert got[row, i].item() == pytest.approx(abs(diff), abs=1e-9)
    exact = rotary_angle_error(torch.tensor(positions), 16, dtype=torch.float64)
    assert float(exact.max()) < 1e-12
    assert float(got.max()) <= math.pi + 1e-12
