"""posenc.numeric against golden values, brute force and the formulas written out in float64."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc.numeric import numeric_encoding, periodic_encoding, periodic_shift_matrix


def test_numeric_encoding_golden_values():
    assert numeric_encoding(4).tolist() == [[0.0], [1.0], [2.0], [3.0]]
    assert numeric_encoding(5, normalize=True).flatten().tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert numeric_encoding(1, normalize=True).tolist() == [[0.0]]  # T = 1: no division by zero
    assert numeric_encoding(3).dtype == torch.float32 and numeric_encoding(3).shape == (3, 1)


def test_normalized_step_depends_on_length():
    # the seed article's example: a code difference of 0.2 is 2 words in 11, 20 words in 101
    for t, words in [(11, 2), (101, 20)]:
        enc = numeric_encoding(t, normalize=True)[:, 0].double()
        assert math.isclose(float(enc[words] - enc[0]), 0.2, abs_tol=1e-7)
        assert math.isclose(float(enc[1] - enc[0]), 1 / (t - 1), rel_tol=1e-6)


@pytest.mark.parametrize("alpha", [0.3, 1.0, 7.5])
def test_periodic_encoding_matches_formula(alpha):
    p = torch.tensor([0.0, 1.0, 2.5, 100.0, 12345.0, -3.0], dtype=torch.float64)
    expected = torch.stack([torch.sin(p / alpha), torch.cos(p / alpha)], dim=-1)
    torch.testing.assert_close(
        periodic_encoding(p, alpha=alpha).double(), expected[:, :1], atol=1e-7, rtol=0
    )
    torch.testing.assert_close(
        periodic_encoding(p, alpha=alpha, cosine=True).double(), expected, atol=1e-7, rtol=0
    )
    assert periodic_encoding(6, alpha=alpha, cosine=True).shape == (6, 2)


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: numeric_encoding(0), ValueError, "n_positions must be positive"),
        (lambda: numeric_encoding(2.5), TypeError, "n_positions must be an integer"),
        (lambda: periodic_encoding(5, alpha=0.0), ValueError, "alpha must be a finite number > 0"),
        (lambda: periodic_encoding(5, alpha="1"), TypeError, "alpha must be a real number"),
        (
            lambda: periodic_encoding(torch.ones(2, 2), alpha=1.0),
            ValueError,
            "positions must have 1",
        ),
    ],
)
def test_argument_errors(call, error, words):
    with pytest.raises(error, match=words):
        call()


@settings(max_examples=40, deadline=None)
@given(
    offset=st.integers(-50, 50) | st.floats(-50, 50, allow_nan=False),
    alpha=st.floats(0.3, 200.0),
)
def test_periodic_shift_matrix_moves_every_position_by_the_offset(offset, alpha):
    m = periodic_shift_matrix(offset, alpha=alpha)
    # the rotation written out in float64
    theta = offset / alpha
    expected = torch.tensor(
        [[math.cos(theta), math.sin(theta)], [-math.sin(theta), math.cos(theta)]],
        dtype=torch.float64,
    )
    torch.testing.assert_close(m, expected, rtol=0, atol=1e-12)
    # one matrix, every position: PE(p + k) = M_k PE(p), computed from sin/cos of (p + k)/alpha
    p = torch.arange(30, dtype=torch.float64)
    codes = torch.stack((torch.sin(p / alpha), torch.cos(p / alpha)), dim=-1)  # [n, 2]
    shifted = torch.stack(
        (torch.sin((p + offset) / alpha), torch.cos((p + offset) / alpha)), dim=-1
    )
    torch.testing.assert_close(codes @ m.T, shifted, rtol=0, atol=1e-9)


def test_periodic_shift_matrix_on_the_float32_table_and_errors():
    table = periodic_encoding(40, alpha=4.0, cosine=True).double()  # [n, 2]
    torch.testing.assert_close(
        table[:-3] @ periodic_shift_matrix(3, alpha=4.0).T, table[3:], rtol=0, atol=1e-6
    )
    with pytest.raises(TypeError, match="offset"):
        periodic_shift_matrix("3", alpha=1.0)
    with pytest.raises(ValueError, match="offset"):
        periodic_shift_matrix(math.inf, alpha=1.0)
    with pytest.raises(ValueError, match="alpha"):
        periodic_shift_matrix(1, alpha=0.0)


# -- strict inputs -------------------------------------------------------------------------------
NON_FINITE = st.sampled_from([math.nan, math.inf, -math.inf])


@pytest.mark.parametrize("flag", ["False", 0, 1, None])
def test_flags_must_be_bools(flag):
    with pytest.raises(TypeError, match=r"^normalize must be a bool"):
        numeric_encoding(4, normalize=flag)
    with pytest.raises(TypeError, match=r"^cosine must be a bool"):
        periodic_encoding(4, alpha=1.0, cosine=flag)


@given(bad=NON_FINITE)
def test_non_finite_positions_offsets_and_alpha_are_refused(bad):
    with pytest.raises(ValueError, match=r"^positions must be finite"):
        periodic_encoding(torch.tensor([0.0, bad]), alpha=1.0)
    with pytest.raises(ValueError, match=r"^alpha must be a finite number > 0"):
        periodic_encoding(3, alpha=bad)
    with pytest.raises(ValueError, match=r"^offset must be a finite number"):
        periodic_shift_matrix(bad, alpha=1.0)


@pytest.mark.parametrize("dtype", [torch.bool, torch.complex64])
def test_positions_must_be_real(dtype):
    with pytest.raises(TypeError, match=rf"^positions must hold real numbers, got dtype {dtype}"):
        periodic_encoding(torch.zeros(3, dtype=dtype), alpha=1.0)
    with pytest.raises(TypeError, match=r"^n_positions must be an integer"):
        numeric_encoding(True)
    with pytest.raises(TypeError, match=r"^offset must be a real number"):
        periodic_shift_matrix(True, alpha=1.0)


def test_empty_positions():
    assert periodic_encoding(torch.zeros(0), alpha=1.0).shape == (0, 1)


def test_meta_device():
    meta = torch.device("meta")
    outs = {
        "numeric": (numeric_encoding(5, normalize=True, device=meta), (5, 1)),
        "periodic(int)": (periodic_encoding(5, alpha=2.0, cosine=True, device=meta), (5, 2)),
        "periodic": (periodic_encoding(torch.empty(5, device=meta), alpha=2.0), (5, 1)),
        "shift": (periodic_shift_matrix(1.5, alpha=2.0, device=meta), (2, 2)),
    }
    for name, (out, shape) in outs.items():
        assert out.device == meta and out.shape == shape, name
