"""Tests for book.figures.shaw: the figures show the index, the bias and the costs they claim."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from book.demos.shaw import shaw_attention_timings, shaw_intermediate_bytes
from book.figures.shaw import (
    shaw_cost_figure,
    shaw_index_figure,
    shaw_key_bias_row,
    shaw_skew_figure,
)


def clipped_index(n: int, k: int) -> np.ndarray:
    """clip(j − i, −k, k) + k by a double loop."""
    return np.array([[min(max(j - i, -k), k) + k for j in range(n)] for i in range(n)])


def bar_heights(ax) -> np.ndarray:
    (bars,) = [c for c in ax.collections if isinstance(c, PolyCollection)]
    return np.array([path.vertices[1, 1] for path in bars.get_paths()])


@pytest.mark.parametrize(
    "n,k,query,row", [(8, 2, "middle", 4), (16, 0, "first", 0), (32, 8, "last", 31), (6, 1, 2, 2)]
)
def test_index_figure_shows_the_index_and_the_row_of_the_query(n, k, query, row):
    fig = shaw_index_figure(n, k, query=query)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    left, right = fig.axes
    np.testing.assert_array_equal(np.asarray(left.images[0].get_array()), clipped_index(n, k))
    (outline,) = [p for p in left.patches if isinstance(p, Rectangle)]
    assert outline.get_y() == row - 0.5
    heights = bar_heights(right)
    np.testing.assert_allclose(heights, shaw_key_bias_row(n, k, query))
    # beyond the window every key gets the bias of the edge distance
    far_left = heights[: row - k + 1] if row - k >= 0 else heights[:0]  # j − i <= −k
    far_right = heights[row + k :]  # j − i >= k (empty when row + k >= n)
    for side in (far_left, far_right):
        if side.size:
            np.testing.assert_allclose(side, side[0])
    texts = [t.get_text() for t in fig.texts]
    if k:
        assert f"clip(j − i, −{k}, {k}) + {k}" in texts[0]
        assert any(f"|j − i| < {k}" in t for t in texts)  # the grey window, title not cut
        # grey covers exactly the keys with a row of their own, |j − i| <= k − 1
        (span,) = right.patches
        x0, x1 = span.get_x(), span.get_x() + span.get_width()
        assert (x0, x1) == (row - k + 0.5, row + k - 0.5)
        inside = heights[max(0, row - k + 1) : row + k]
        assert len(np.unique(np.round(inside, 12))) == len(inside)  # one bias per key
    else:  # no "clip(j − i, −0, 0) + 0": the single index and the single bias, printed
        assert not right.patches  # no grey window: every key shares the one row
        assert "I = 0 for every pair" in texts[0]
        assert any(f"= {heights[0]:.2f}" in t for t in texts)
    renderer = FigureCanvasAgg(fig).get_renderer()
    box = fig.bbox
    for t in fig.texts:  # no title runs off the figure (the right one used to lose its ")")
        extent = t.get_window_extent(renderer)
        margin = 0.01 * box.width  # a title ending within 1 % of the edge gets cut in a PNG
        assert box.x0 + margin <= extent.x0 and extent.x1 <= box.x1 - margin, t.get_text()
        assert extent.y1 <= box.y1, t.get_text()


def test_index_figure_single_bias_at_k0_is_clearly_visible():
    """The explorer's default seed gives a bias at k = 0 that is not close to zero."""
    assert abs(shaw_key_bias_row(16, 0, "middle")[0]) > 1.0


def test_key_bias_row_is_the_a_k_tensor_contracted_with_q():
    """Transcribe the draws, build a^K as an n × n × d tensor and contract it with q."""
    n, k, d = 10, 3, 16
    g = torch.Generator().manual_seed(29)  # the default seed
    table = torch.randn(65, d, generator=g, dtype=torch.float64)
    q = torch.randn(d, generator=g, dtype=torch.float64)
    rel_k = table[32 - k : 32 + k + 1]
    a_k = rel_k[torch.from_numpy(clipped_index(n, k))]  # [n, n, d]
    expected = (a_k @ q / math.sqrt(d)).numpy()  # [n, n]
    for i in range(n):
        np.testing.assert_allclose(shaw_key_bias_row(n, k, i), expected[i], rtol=1e-12)
    # k = 0: one vector for every pair, so every key gets the same bias
    assert np.ptp(shaw_key_bias_row(n, 0, "middle")) == 0.0


def test_index_figure_bad_arguments():
    with pytest.raises(ValueError, match="query must be one of"):
        shaw_index_figure(8, 2, query="centre")
    with pytest.raises(ValueError, match="query must be < n = 8"):
        shaw_index_figure(8, 2, query=8)
    with pytest.raises(ValueError, match="max_relative_position must be >= 0"):
        shaw_index_figure(8, -1)
    with pytest.raises(ValueError, match="max_relative_position must be <= 32"):
        shaw_key_bias_row(8, 33, 0)
    with pytest.raises(TypeError, match="dim must be an integer, got bool"):
        shaw_index_figure(8, 2, dim=True)
    with pytest.raises(ValueError, match="dim must be positive"):
        shaw_index_figure(8, 2, dim=0)
    with pytest.raises(TypeError, match="seed must be an integer, got str"):
        shaw_index_figure(8, 2, seed="3")


@pytest.mark.parametrize("n,k", [(6, 2), (4, 0), (5, 3)])
def test_skew_figure_band_reads_the_index(n, k):
    fig = shaw_skew_figure(n, k)
    small, padded, view = (np.asarray(ax.images[0].get_array()) for ax in fig.axes)
    assert small.shape == (n, 2 * k + 1) and padded.shape == (n, 2 * n + 2 * k - 1)
    np.testing.assert_array_equal(view, clipped_index(n, k))
    boxes = [p for p in fig.axes[1].patches if isinstance(p, Rectangle)]
    outlines = sorted(boxes, key=lambda p: p.get_y())
    assert len(outlines) == n
    for i, box in enumerate(outlines):
        start = round(box.get_x() + 0.45)
        assert start == n - 1 + k - i  # one column further left per row
        # the outlined cells of the padded row are exactly row i of the index
        np.testing.assert_array_equal(padded[i, start : start + n], clipped_index(n, k)[i])
    # column ticks on every panel, including the offset-0 column of the padded buffer
    assert list(fig.axes[0].get_xticks()) == list(range(2 * k + 1))
    assert n - 1 + k in fig.axes[1].get_xticks()
    assert any("not the values" in t.get_text() for t in fig.texts)


def test_timings_and_cost_figure():
    before = torch.get_num_threads()
    timings = shaw_attention_timings(
        (8, 16), dim=4, max_relative_position=2, naive_max=8, repeats=1, threads=1
    )
    assert torch.get_num_threads() == before  # restored
    assert timings["n"] == [8.0, 16.0]
    assert timings["naive"][1] is None
    assert all(t > 0 for key in ("plain", "posenc") for t in timings[key])
    assert timings["naive"][0] > 0
    fig = shaw_cost_figure(timings, dim=4, max_relative_position=2)
    mem_ax, time_ax = fig.axes
    naive_line = mem_ax.lines[0]
    xs = naive_line.get_xdata()
    expected = [shaw_intermediate_bytes(int(n), 4, 2)["naive"] / 2**20 for n in xs]
    np.testing.assert_allclose(naive_line.get_ydata(), expected)
    by_label = {line.get_label(): line for line in time_ax.lines}
    np.testing.assert_allclose(by_label["posenc shaw_attention"].get_ydata(), timings["posenc"])
    np.testing.assert_allclose(by_label["naive (reference)"].get_xdata(), [8.0])  # None skipped
    assert "analytic" in mem_ax.get_title() and "measured" in time_ax.get_title()
    renderer = FigureCanvasAgg(fig).get_renderer()
    for ax in (mem_ax, time_ax):  # titles are not cut at the figure's edge
        extent = ax.title.get_window_extent(renderer)
        assert fig.bbox.x0 <= extent.x0 and extent.x1 <= fig.bbox.x1, ax.get_title()


_TIMINGS = {"n": [8.0, 16.0], "naive": [1e-4, None], "plain": [1e-4, 2e-4], "posenc": [1e-4, 3e-4]}


@pytest.mark.parametrize(
    "timings,error,match",
    [
        (None, TypeError, r"^timings must be a mapping .*, got NoneType"),
        ("ab", TypeError, r"^timings must be a mapping .*, got str"),
        (list(_TIMINGS.items()), TypeError, r"^timings must be a mapping .*, got list"),
        ({"n": [8.0, 16.0]}, ValueError, r"^timings must have the entries .*'plain'"),
        ({**_TIMINGS, "n": 8.0}, TypeError, r"^timings\['n'\] must be a sequence"),
        ({**_TIMINGS, "n": [8.0, 0.0]}, ValueError, r"^timings\['n'\]\[1\] must be a finite"),
        ({**_TIMINGS, "posenc": "ab"}, TypeError, r"^timings\['posenc'\] must be a sequence"),
        ({**_TIMINGS, "plain": [1e-4]}, ValueError, r"^timings\['plain'\] must hold one time"),
        ({**_TIMINGS, "naive": [1e-4, "x"]}, TypeError, r"^timings\['naive'\]\[1\] must be a real"),
        ({**_TIMINGS, "naive": [-1.0, None]}, ValueError, r"^timings\['naive'\]\[0\] must be a"),
    ],
)
def test_cost_figure_refuses_bad_timings_by_name(timings, error, match):
    with pytest.raises(error, match=match):
        shaw_cost_figure(timings, dim=4, max_relative_position=2)


def test_cost_figure_takes_arrays_of_timings():
    arrays = {key: np.asarray(values) for key, values in _TIMINGS.items()}
    assert len(shaw_cost_figure(arrays, dim=4, max_relative_position=2).axes) == 2
