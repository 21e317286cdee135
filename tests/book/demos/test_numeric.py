"""book.demos.numeric against brute force, math.dist and the naive codes' closed forms."""

import itertools
import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from book.demos.numeric import (
    adjacent_distances,
    closest_distinct_pair,
    magnitude_ratio,
    pairwise_distances,
)
from posenc.numeric import numeric_encoding, periodic_encoding

NON_FINITE = st.sampled_from([math.nan, math.inf, -math.inf])


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


@pytest.mark.parametrize("dtype", [torch.int64, torch.bool, torch.complex64])
def test_tables_must_be_floating(dtype):
    table = torch.zeros(3, 2, dtype=dtype)
    for fn in (adjacent_distances, pairwise_distances, closest_distinct_pair):
        with pytest.raises(TypeError, match=r"^encoding must be a floating-point tensor"):
            fn(table)
    with pytest.raises(TypeError, match=r"^embeddings must be a floating-point tensor"):
        magnitude_ratio(torch.ones(3, 1), table)


@pytest.mark.parametrize(
    "call, error, words",
    [
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


@given(bad=NON_FINITE)
def test_non_finite_tables_are_refused(bad):
    table = torch.tensor([[0.0], [bad], [1.0]])
    for fn in (adjacent_distances, pairwise_distances, closest_distinct_pair):
        with pytest.raises(ValueError, match=r"^encoding must be finite, got 1 NaN"):
            fn(table)
    with pytest.raises(ValueError, match=r"^embeddings must be finite"):
        magnitude_ratio(torch.ones(3, 1), table)


def test_empty_tables():
    assert pairwise_distances(torch.zeros(0, 3)).shape == (0, 0)
    with pytest.raises(ValueError, match=r"^encoding must have at least 2 rows"):
        closest_distinct_pair(torch.zeros(0, 3))


def test_meta_device():
    meta = torch.device("meta")
    outs = {
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
