"""posenc.numeric against golden values, brute force and the formulas written out in float64."""

import itertools
import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc.numeric import (
    adjacent_distances,
    closest_distinct_pair,
    magnitude_ratio,
    numeric_encoding,
    pairwise_distances,
    periodic_encoding,
    periodic_shift_matrix,
)


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


def brute_force_closest(table):
    best = None
    for i, j in itertools.combinations(range(table.shape[0]), 2):
        d = math.sqrt(sum((float(a) - float(b)) ** 2 for a, b in zip(table[i], table[j])))
        if best is None or d < best[2]:
            best = (i, j, d)
    return best


def float32_tables(channels, min_rows, max_rows):
    """Tables ``[n, channels]`` (lists of rows) of float32 numbers in ±100."""
    number = st.floats(-100, 100, allow_nan=False, width=32)
    row = st.lists(number, min_size=channels, max_size=channels)
    return st.lists(row, min_size=min_rows, max_size=max_rows)


@settings(max_examples=40, deadline=None)
@given(rows=float32_tables(2, 2, 12))
def test_closest_distinct_pair_matches_brute_force(rows):
    table = torch.tensor(rows, dtype=torch.float32)
    i, j, d = closest_distinct_pair(table)
    _bi, _bj, bd = brute_force_closest(table.double())
    assert i < j
    assert math.isclose(d, bd, rel_tol=1e-9, abs_tol=1e-12)
    # the pair found is at the minimal distance (ties may pick another pair)
    assert math.isclose(
        float((table[i].double() - table[j].double()).norm()), bd, rel_tol=1e-9, abs_tol=1e-12
    )


@pytest.mark.parametrize("alpha, n", [(1.0, 50), (2.0, 100), (0.5, 30)])
def test_closest_pair_of_periodic_codes_matches_brute_force(alpha, n):
    for cosine in (False, True):
        table = periodic_encoding(n, alpha=alpha, cosine=cosine)
        i, j, _d = closest_distinct_pair(table)
        assert (i, j) == brute_force_closest(table.double())[:2]


def test_periodic_collision_golden():
    # period 2π ≈ 6.283: 44 positions are 7.003 periods, so 4 and 48 nearly coincide
    i, j, d = closest_distinct_pair(periodic_encoding(50, alpha=1.0, cosine=True))
    assert (i, j) == (4, 48)
    assert math.isclose(d, 2 * abs(math.sin(44 / 2)), rel_tol=1e-5)
    # a lone sine also confuses mirror images within one period: sin 1 ≈ sin 2 (1 + 2 ≈ π)
    assert closest_distinct_pair(periodic_encoding(10, alpha=1.0))[:2] == (1, 2)


@settings(max_examples=40, deadline=None)
@given(rows=float32_tables(3, 1, 10))
def test_pairwise_distances_match_math_dist_in_float64(rows):
    table = torch.tensor(rows, dtype=torch.float32)
    dist = pairwise_distances(table)
    n = len(rows)
    assert dist.shape == (n, n) and dist.dtype == torch.float64
    points = [[float(v) for v in row] for row in table]  # the float32 values, exactly
    expected = torch.tensor(
        [[math.dist(a, b) for b in points] for a in points], dtype=torch.float64
    )
    torch.testing.assert_close(dist, expected, rtol=1e-12, atol=1e-12)
    assert torch.equal(dist, dist.T) and bool((dist.diagonal() == 0).all())


def test_pairwise_distances_of_the_naive_codes():
    # the index: |i − j|; the circle: the chord 2·sin(|i − j| / 2α)
    n = 12
    steps = torch.arange(n, dtype=torch.float64)
    gap = (steps[:, None] - steps[None, :]).abs()  # [n, n]
    assert torch.equal(pairwise_distances(numeric_encoding(n)), gap)
    circle = pairwise_distances(periodic_encoding(n, alpha=3.0, cosine=True))
    torch.testing.assert_close(circle, 2 * torch.sin(gap / 6.0), rtol=0, atol=1e-6)
    # small distances survive (no ‖a‖² + ‖b‖² − 2a·b cancellation)
    far = torch.tensor([[1e4, 0.0], [1e4, 1e-3]], dtype=torch.float64)
    assert pairwise_distances(far)[0, 1].item() == pytest.approx(1e-3, rel=1e-9)
    with pytest.raises(ValueError, match="encoding must have 2 dimensions"):
        pairwise_distances(torch.ones(3))


def test_closest_distinct_pair_exact_duplicate():
    table = torch.tensor([[0.0], [1.0], [0.5], [1.0]])
    assert closest_distinct_pair(table) == (1, 3, 0.0)


def test_adjacent_distances():
    torch.testing.assert_close(
        adjacent_distances(numeric_encoding(5)), torch.ones(4, dtype=torch.float64)
    )
    for alpha in (2.0, 50.0):
        steps = adjacent_distances(periodic_encoding(20, alpha=alpha, cosine=True))
        # a chord of the unit circle for an angle 1/alpha
        torch.testing.assert_close(
            steps,
            torch.full((19,), 2 * math.sin(0.5 / alpha), dtype=torch.float64),
            atol=1e-6,
            rtol=0,
        )


def test_magnitude_ratio():
    emb = torch.ones(3, 4)  # norm 2 each
    torch.testing.assert_close(
        magnitude_ratio(numeric_encoding(3), emb),
        torch.tensor([0.0, 1.0, 2.0], dtype=torch.float64),
    )
    code = torch.tensor([[3.0, 0, 0, 4.0]] * 3)
    torch.testing.assert_close(
        magnitude_ratio(code, emb), torch.full((3,), 2.5, dtype=torch.float64)
    )


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
        (lambda: closest_distinct_pair(torch.ones(1, 3)), ValueError, "at least 2 rows"),
        (
            lambda: closest_distinct_pair(torch.ones(3)),
            ValueError,
            "encoding must have 2 dimensions",
        ),
        (lambda: adjacent_distances(torch.ones(1, 1)), ValueError, "at least 2 rows"),
        (
            lambda: magnitude_ratio(torch.ones(3, 2), torch.ones(3, 4)),
            ValueError,
            r"\[3, 1\] or \[3, 4\]",
        ),
        (
            lambda: magnitude_ratio(torch.ones(2, 1), torch.ones(3, 4)),
            ValueError,
            "encoding must have shape",
        ),
        (
            lambda: magnitude_ratio([[1.0]], torch.ones(1, 1)),
            TypeError,
            "encoding must be a torch.Tensor",
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
def test_non_finite_positions_offsets_alpha_and_tables_are_refused(bad):
    with pytest.raises(ValueError, match=r"^positions must be finite"):
        periodic_encoding(torch.tensor([0.0, bad]), alpha=1.0)
    with pytest.raises(ValueError, match=r"^alpha must be a finite number > 0"):
        periodic_encoding(3, alpha=bad)
    with pytest.raises(ValueError, match=r"^offset must be a finite number"):
        periodic_shift_matrix(bad, alpha=1.0)
    table = torch.tensor([[0.0], [bad], [1.0]])
    for fn in (adjacent_distances, pairwise_distances, closest_distinct_pair):
        with pytest.raises(ValueError, match=r"^encoding must be finite, got 1 NaN"):
            fn(table)
    with pytest.raises(ValueError, match=r"^embeddings must be finite"):
        magnitude_ratio(torch.ones(3, 1), table)


@pytest.mark.parametrize("dtype", [torch.bool, torch.complex64])
def test_positions_must_be_real(dtype):
    with pytest.raises(TypeError, match=rf"^positions must hold real numbers, got dtype {dtype}"):
        periodic_encoding(torch.zeros(3, dtype=dtype), alpha=1.0)
    with pytest.raises(TypeError, match=r"^n_positions must be an integer"):
        numeric_encoding(True)
    with pytest.raises(TypeError, match=r"^offset must be a real number"):
        periodic_shift_matrix(True, alpha=1.0)


@pytest.mark.parametrize("dtype", [torch.int64, torch.bool, torch.complex64])
def test_tables_must_be_floating(dtype):
    table = torch.zeros(3, 2, dtype=dtype)
    for fn in (adjacent_distances, pairwise_distances, closest_distinct_pair):
        with pytest.raises(TypeError, match=r"^encoding must be a floating-point tensor"):
            fn(table)
    with pytest.raises(TypeError, match=r"^embeddings must be a floating-point tensor"):
        magnitude_ratio(torch.ones(3, 1), table)


def test_empty_tables():
    assert pairwise_distances(torch.zeros(0, 3)).shape == (0, 0)
    assert periodic_encoding(torch.zeros(0), alpha=1.0).shape == (0, 1)
    with pytest.raises(ValueError, match=r"^encoding must have at least 2 rows"):
        closest_distinct_pair(torch.zeros(0, 3))


def test_meta_device():
    meta = torch.device("meta")
    outs = {
        "numeric": (numeric_encoding(5, normalize=True, device=meta), (5, 1)),
        "periodic(int)": (periodic_encoding(5, alpha=2.0, cosine=True, device=meta), (5, 2)),
        "periodic": (periodic_encoding(torch.empty(5, device=meta), alpha=2.0), (5, 1)),
        "shift": (periodic_shift_matrix(1.5, alpha=2.0, device=meta), (2, 2)),
        "adjacent": (adjacent_distances(torch.empty(5, 3, device=meta)), (4,)),
        "ratio": (
            magnitude_ratio(torch.empty(5, 1, device=meta), torch.empty(5, 3, device=meta)),
            (5,),
        ),
        "pairwise": (pairwise_distances(torch.empty(5, 3, device=meta)), (5, 5)),
    }
    for name, (out, shape) in outs.items():
        assert out.device == meta and out.shape == shape, name
    with pytest.raises(ValueError, match=r"^encoding must hold values to compare"):
        closest_distinct_pair(torch.empty(5, 3, device=meta))
