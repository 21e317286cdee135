"""book.demos.absolute_2d against formulas written out here and float64 resampling of them."""

import math

import numpy as np
import pytest
import torch

from book.demos.absolute_2d import (
    position_similarity_map,
    resampling_error_map,
    resampling_error_per_pair,
    sincos_resampling_error,
    stretched_sincos_encoding_2d,
)
from posenc.absolute_2d import resample_positional_embedding, sinusoidal_encoding_2d
from tests.references import pil_bicubic_reference, torch_bicubic_reference

NAN, INF = float("nan"), float("inf")

# ---------------------------------------------------------------------------------------------
# position_similarity_map and stretched_sincos_encoding_2d, against formulas written out here


def test_similarity_map_matches_a_loop_over_positions():
    torch.manual_seed(0)
    table = torch.randn(3 * 4, 5)
    sim = position_similarity_map(table, 3, 4, row=1, col=2)
    ref = torch.tensor(
        [
            [
                float(
                    torch.dot(table[6], table[r * 4 + c])
                    / (table[6].norm() * table[r * 4 + c].norm())
                )
                for c in range(4)
            ]
            for r in range(3)
        ],
        dtype=torch.float64,
    )
    assert sim.shape == (3, 4) and sim.dtype == torch.float64
    torch.testing.assert_close(sim, ref, rtol=0, atol=1e-6)
    assert sim[1, 2] == pytest.approx(1.0)


def test_similarity_of_2d_sincos_is_the_mean_of_row_and_column_terms():
    d, h, w = 32, 7, 9
    omega = 10000.0 ** (-4 * np.arange(d // 4) / d)
    rho = lambda k: np.cos(k * omega).mean()
    sim = position_similarity_map(sinusoidal_encoding_2d(h, w, d), h, w, 2, 3).numpy()
    ref = np.array([[0.5 * rho(r - 2) + 0.5 * rho(c - 3) for c in range(w)] for r in range(h)])
    np.testing.assert_allclose(sim, ref, atol=1e-6)


def test_similarity_map_errors():
    with pytest.raises(ValueError, match=r"expected height\*width = 6"):
        position_similarity_map(torch.zeros(5, 2), 2, 3, 0, 0)
    with pytest.raises(ValueError, match=r"must lie on the 2x3 grid"):
        position_similarity_map(torch.ones(6, 2), 2, 3, 2, 0)


def test_stretched_table_is_the_encoding_at_the_sampled_coordinates():
    old, new, d = 14, 16, 8
    table = stretched_sincos_encoding_2d(old, new, d).double()
    s = [(o + 0.5) * old / new - 0.5 for o in range(new)]
    assert s[0] == pytest.approx(-0.0625) and s[-1] == pytest.approx(13.0625)
    omega = [10000.0 ** (-4 * i / d) for i in range(d // 4)]

    def one_d(p):
        return [f(p * w) for w in omega for f in (math.sin, math.cos)]

    for r, c in [(0, 0), (3, 11), (15, 15)]:
        expected = torch.tensor(one_d(s[r]) + one_d(s[c]), dtype=torch.float64)
        torch.testing.assert_close(table[r * new + c], expected, rtol=0, atol=1e-6)


def test_stretched_table_at_the_same_size_is_the_plain_table():
    assert torch.equal(stretched_sincos_encoding_2d(6, 6, 16), sinusoidal_encoding_2d(6, 6, 16))


def test_stretched_table_is_what_a_smooth_table_resamples_to():
    # with base 1e8 every pair but the first (ω = 1) turns by at most 0.01 per cell: nearly
    # linear, so bilinear interpolation is nearly exact away from the border for those channels,
    # and clearly not for the fast pair
    table = sinusoidal_encoding_2d(14, 14, 16, base=1e8).double()
    out = resample_positional_embedding(table, 14, 16, mode="bilinear").reshape(16, 16, 16)
    exact = stretched_sincos_encoding_2d(14, 16, 16, base=1e8).double().reshape(16, 16, 16)
    slow = [k for k in range(16) if k % 8 >= 2]
    torch.testing.assert_close(out[1:-1, 1:-1, slow], exact[1:-1, 1:-1, slow], rtol=0, atol=2e-5)
    assert (out[..., :2] - exact[..., :2]).abs().max() > 0.05


# ---------------------------------------------------------------------------------------------
# sincos_resampling_error and its summaries, against float64 resampling of the formula


def torch_bilinear_reference(image, out_h, out_w):
    """PyTorch's bilinear (align_corners=False) in NumPy float64: source (o + 0.5)·in/out − 0.5,
    clamped at 0, and the next index clamped at the last row."""

    def resize_axis(arr, n_out, axis):
        n_in = arr.shape[axis]
        out = []
        for o in range(n_out):
            src = max((o + 0.5) * n_in / n_out - 0.5, 0.0)
            i0 = math.floor(src)
            i1 = min(i0 + 1, n_in - 1)
            lam = src - i0
            out.append((1 - lam) * np.take(arr, i0, axis=axis) + lam * np.take(arr, i1, axis=axis))
        return np.moveaxis(np.stack(out), 0, axis)

    return resize_axis(resize_axis(image, out_h, 0), out_w, 1)


def sincos_2d_at(coords, d, base=10000.0):
    """The seed layout [PE(r) | PE(c)] at every (r, c) of coords × coords, row-major, float64."""
    omega = [base ** (-4 * i / d) for i in range(d // 4)]

    def one_d(p):
        return [f(p * w) for w in omega for f in (math.sin, math.cos)]

    return np.array([one_d(r) + one_d(c) for r in coords for c in coords])  # [len², d]


@pytest.mark.parametrize(
    "kw, resize",
    [
        ({}, torch_bicubic_reference),
        ({"antialias": True}, pil_bicubic_reference),
        ({"mode": "bilinear"}, torch_bilinear_reference),
    ],
)
@pytest.mark.parametrize("old, new, base", [(14, 16, 10000.0), (8, 5, 100.0)])
def test_resampling_error_is_the_resized_formula_minus_the_formula(kw, resize, old, new, base):
    d = 16
    table = sincos_2d_at(range(old), d, base).reshape(old, old, d)
    resized = resize(table, new, new).reshape(new * new, d)
    s = [(o + 0.5) * old / new - 0.5 for o in range(new)]
    expected = torch.from_numpy(resized - sincos_2d_at(s, d, base))
    ours = sincos_resampling_error(old, new, d, base=base, **kw)
    assert ours.shape == (new * new, d) and ours.dtype == torch.float64
    # the function resizes the float32 table in float32: agreement to float32 rounding
    torch.testing.assert_close(ours, expected, rtol=0, atol=1e-6)
    assert ours.abs().max() > 1e-3  # and there is an error to measure


@pytest.mark.parametrize("mode", ["bicubic", "bilinear"])
def test_resampling_to_the_same_grid_has_no_error(mode):
    error = sincos_resampling_error(6, 6, 16, mode=mode)
    assert torch.equal(error, torch.zeros(36, 16, dtype=torch.float64))


def test_resampling_error_per_pair_matches_a_loop_over_the_four_channels():
    g = torch.Generator().manual_seed(5)
    d, n = 12, 10
    error = torch.randn(n, d, generator=g, dtype=torch.float64)
    ours = resampling_error_per_pair(error)
    expected = []
    for i in range(d // 4):
        channels = [2 * i, 2 * i + 1, d // 2 + 2 * i, d // 2 + 2 * i + 1]  # sin, cos; row, column
        squares = [float(error[p, k]) ** 2 for p in range(n) for k in channels]
        expected.append(math.sqrt(sum(squares) / len(squares)))
    assert ours.dtype == torch.float64
    expected = torch.tensor(expected, dtype=torch.float64)
    torch.testing.assert_close(ours, expected, rtol=1e-12, atol=0)
    single = error.float()  # taken to float64 first
    assert torch.equal(
        resampling_error_per_pair(single), resampling_error_per_pair(single.double())
    )


@pytest.mark.parametrize("max_frequency, base", [(0.1, 10000.0), (0.5, 100.0), (2.0, 10000.0)])
def test_resampling_error_map_is_the_rms_over_the_slow_channels(max_frequency, base):
    g = torch.Generator().manual_seed(6)
    d, side = 16, 3
    error = torch.randn(side * side, d, generator=g, dtype=torch.float64)
    ours = resampling_error_map(error, base=base, max_frequency=max_frequency)
    omega = [base ** (-4 * i / d) for i in range(d // 4)]  # the frequency of pair i
    slow = [k for k in range(d) if omega[(k % (d // 2)) // 2] < max_frequency]
    expected = torch.tensor(
        [
            [
                math.sqrt(sum(float(error[r * side + c, k]) ** 2 for k in slow) / len(slow))
                for c in range(side)
            ]
            for r in range(side)
        ],
        dtype=torch.float64,
    )
    assert ours.shape == (side, side)
    torch.testing.assert_close(ours, expected, rtol=1e-12, atol=0)


def test_resampling_error_summaries_check_their_input():
    with pytest.raises(ValueError, match=r"error.shape\[1\] must be a multiple of 4"):
        resampling_error_per_pair(torch.zeros(4, 6))
    with pytest.raises(ValueError, match=r"error must have 2 dimensions"):
        resampling_error_per_pair(torch.zeros(4))
    with pytest.raises(ValueError, match=r"square grid of positions .* got 6 rows"):
        resampling_error_map(torch.zeros(6, 8))
    with pytest.raises(ValueError, match=r"max_frequency must exceed the slowest frequency"):
        resampling_error_map(torch.zeros(4, 8), max_frequency=1e-9)
    with pytest.raises(ValueError, match=r"max_frequency must be a finite number > 0"):
        resampling_error_map(torch.zeros(4, 8), max_frequency=0.0)
    with pytest.raises(ValueError, match=r"dim must be a multiple of 4"):
        sincos_resampling_error(4, 5, 6)


# ---------------------------------------------------------------------------------------------
# Strict inputs (issue 11): each bad argument is refused with a message naming it


@pytest.mark.parametrize(
    ("call", "error", "name"),
    [
        (lambda: sincos_resampling_error(4, 6, 8, antialias=1), TypeError, "antialias"),
        (lambda: stretched_sincos_encoding_2d(0, 4, 8), ValueError, "old_size"),
        (lambda: stretched_sincos_encoding_2d(4, True, 8), TypeError, "new_size"),
        (lambda: sincos_resampling_error(0, 4, 8), ValueError, "old_size"),
        (lambda: sincos_resampling_error(4, 0, 8), ValueError, "new_size"),
        (lambda: sincos_resampling_error(4, 6, 6), ValueError, "dim"),
        (lambda: position_similarity_map(torch.ones(6, 4), 2, 3, True, 0), TypeError, "row"),
        (lambda: position_similarity_map(torch.ones(6, 4), 2, 3, 0, -1), ValueError, "col"),
        (lambda: position_similarity_map(torch.ones(6, 4), 2, 3, 0, 3), ValueError, "col"),
        (lambda: stretched_sincos_encoding_2d(4, 6, 8, base=-2.0), ValueError, "base"),
        (lambda: sincos_resampling_error(4, 6, 8, base=INF), ValueError, "base"),
        (lambda: resampling_error_map(torch.zeros(16, 8), base=1.0), ValueError, "base"),
        (
            lambda: resampling_error_map(torch.zeros(16, 8), max_frequency=NAN),
            ValueError,
            "max_frequency",
        ),
        (lambda: sincos_resampling_error(4, 6, 8, mode="area"), ValueError, "mode"),
        (
            lambda: position_similarity_map(torch.ones(6, 4, dtype=torch.bool), 2, 3, 0, 0),
            TypeError,
            "table",
        ),
        (lambda: position_similarity_map(torch.ones(6, 0), 2, 3, 0, 0), ValueError, "table"),
        (lambda: resampling_error_per_pair(torch.zeros(0, 8)), ValueError, "error"),
        (
            lambda: resampling_error_per_pair(torch.zeros(4, 8, dtype=torch.long)),
            TypeError,
            "error",
        ),
        (lambda: resampling_error_per_pair(torch.full((4, 8), NAN)), ValueError, "error"),
        (lambda: resampling_error_map(torch.zeros(16, 8, dtype=torch.bool)), TypeError, "error"),
    ],
)
def test_bad_arguments_are_refused_by_name(call, error, name):
    with pytest.raises(error) as info:
        call()
    assert name in str(info.value)


def test_resampling_error_map_keeps_the_error_device():
    out = resampling_error_map(torch.empty(16, 8, dtype=torch.float64, device="meta"))
    assert out.device.type == "meta" and out.shape == (4, 4)
