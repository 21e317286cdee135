"""Chapter 3 figures carry the data they claim to show."""

import math

import numpy as np
import pytest
from matplotlib.figure import Figure

from book.demos.sinusoidal import binary_digits
from book.figures.sinusoidal import (
    binary_vs_sinusoidal_figure,
    sinusoidal_dot_product_figure,
    sinusoidal_explorer_figure,
    sinusoidal_heatmap_figure,
    sinusoidal_precision_figure,
    sinusoidal_wavelengths_figure,
)
from posenc.sinusoidal import sinusoidal_encoding


def image_data(ax):
    return np.asarray(ax.get_images()[0].get_array())


@pytest.mark.parametrize("interleaved", [True, False])
def test_heatmap_shows_the_table(interleaved):
    fig = sinusoidal_heatmap_figure(40, 16, base=100.0, interleaved=interleaved)
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    expected = sinusoidal_encoding(40, 16, base=100.0, interleaved=interleaved).double().numpy()
    np.testing.assert_allclose(image_data(ax), expected, atol=1e-7)
    assert ax.get_ylabel() == "position p" and ax.get_xlabel() == "channel"
    assert len(fig.axes) == 2  # image + colourbar


def test_wavelengths_figure_is_geometric_from_2pi():
    fig = sinusoidal_wavelengths_figure(32, base=1000.0)
    ax = fig.axes[0]
    lam = ax.lines[0].get_ydata()
    assert len(lam) == 16
    assert lam[0] == pytest.approx(2 * math.pi)
    np.testing.assert_allclose(lam[1:] / lam[:-1], 1000.0 ** (2 / 32))
    assert ax.get_yscale() == "log"
    assert ax.lines[2].get_ydata()[0] == pytest.approx(2 * math.pi * 1000.0)


def test_binary_figure_shows_bits_and_table():
    fig = binary_vs_sinusoidal_figure(40, 8)
    bits_ax, table_ax = fig.axes[:2]
    np.testing.assert_array_equal(image_data(bits_ax), 2 * binary_digits(40, 6).numpy() - 1)
    np.testing.assert_allclose(image_data(table_ax), sinusoidal_encoding(40, 8).numpy(), atol=1e-7)
    with pytest.raises(ValueError, match="n_positions must be >= 2"):
        binary_vs_sinusoidal_figure(1)


def test_dot_product_figure_markers_lie_on_the_curve():
    fig = sinusoidal_dot_product_figure(32, max_offset=20, positions=(0, 300))
    ax = fig.axes[0]
    k, curve = ax.lines[0].get_xdata(), ax.lines[0].get_ydata()
    assert k[0] == -20 and k[-1] == 20
    np.testing.assert_allclose(curve, curve[::-1], atol=1e-12)  # symmetric in ±k
    assert curve.max() == pytest.approx(16.0)
    for line in ax.lines[1:3]:
        idx = np.searchsorted(k, line.get_xdata())
        np.testing.assert_allclose(line.get_ydata(), curve[idx], atol=1e-9)


def test_dot_product_figure_interleaves_markers_and_marks_slow_pairs():
    fig = sinusoidal_dot_product_figure(64, max_offset=64, positions=(0, 100, 1000))
    ax = fig.axes[0]
    k, curve = ax.lines[0].get_xdata(), ax.lines[0].get_ydata()
    xs = [set(line.get_xdata().tolist()) for line in ax.lines[1:4]]
    assert all(len(x) >= 30 for x in xs)
    assert not (xs[0] & xs[1] or xs[0] & xs[2] or xs[1] & xs[2])  # no marker hides another
    for line in ax.lines[1:4]:
        idx = np.searchsorted(k, line.get_xdata())
        np.testing.assert_allclose(line.get_ydata(), curve[idx], atol=1e-9)
    # slow pairs counted from the paper's frequencies, written out here
    omega = [10000.0 ** (-2 * i / 64) for i in range(32)]
    n_slow = sum(64 * w < 0.3 for w in omega)
    assert n_slow == 13
    floor = ax.lines[-1]
    assert floor.get_ydata()[0] == n_slow and floor.get_label().startswith("13 slow pairs")
    assert curve.min() > n_slow  # the floor the text explains


def test_precision_figure_separates_the_two_paths():
    fig = sinusoidal_precision_figure(64, max_position=1e5, n_points=50)
    ax = fig.axes[0]
    p = ax.lines[0].get_xdata()
    fast, good = ax.lines[0].get_ydata(), ax.lines[1].get_ydata()
    assert p.max() == 1e5 and ax.get_xscale() == "log"
    assert good.max() < 1e-6
    assert fast[p >= 1e4].min() > 1e-5
    with pytest.raises(ValueError, match="max_position must be a finite number >= 10"):
        sinusoidal_precision_figure(max_position=5)


def test_explorer_figure_averages_long_tables():
    fig = sinusoidal_explorer_figure(16, 100.0, 40)
    assert fig.get_layout_engine() is None  # fixed axes: savefig draws once
    table_ax, dot_ax = fig.axes
    short = sinusoidal_encoding(40, 16, base=100.0).numpy()
    np.testing.assert_allclose(image_data(table_ax), short, atol=1e-7)
    assert dot_ax.lines[0].get_xdata()[-1] == 40
    long = image_data(sinusoidal_explorer_figure(16, 100.0, 512).axes[0])
    assert long.shape == (128, 16)  # blocks of 4 rows
    table = sinusoidal_encoding(512, 16, base=100.0).double()
    np.testing.assert_allclose(long, table.reshape(128, 4, 16).mean(1).numpy(), atol=1e-7)
    extent = sinusoidal_explorer_figure(16, 100.0, 512).axes[0].get_images()[0].get_extent()
    assert extent[2] == pytest.approx(511.5)  # the axis still counts positions


@pytest.mark.parametrize(
    "call,error,match",
    [
        (lambda: sinusoidal_heatmap_figure(interleaved="False"), TypeError, "interleaved must"),
        (lambda: sinusoidal_heatmap_figure(interleaved=1), TypeError, "interleaved must be a"),
        (lambda: sinusoidal_heatmap_figure(n_positions=0), ValueError, "n_positions must be pos"),
        (lambda: sinusoidal_dot_product_figure(positions=(True,)), TypeError, r"positions\[0\]"),
        (lambda: sinusoidal_dot_product_figure(positions=(-1,)), ValueError, r"positions\[0\]"),
        (lambda: sinusoidal_dot_product_figure(positions=(1.5,)), TypeError, r"positions\[0\]"),
        (lambda: sinusoidal_dot_product_figure(positions="ab"), TypeError, "positions must be"),
        (lambda: sinusoidal_precision_figure(max_position=float("nan")), ValueError, "max_pos"),
        (lambda: sinusoidal_precision_figure(max_position="1e6"), TypeError, "max_position"),
    ],
)
def test_figures_refuse_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_dot_product_figure_without_marked_positions():
    fig = sinusoidal_dot_product_figure(positions=())  # no markers: only the closed form
    assert len(fig.axes) == 1
