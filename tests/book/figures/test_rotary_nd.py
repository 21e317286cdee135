"""book.figures.rotary_nd: the figures draw the pairs, positions and scores they claim."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from matplotlib.figure import Figure

from book.figures.rotary_nd import (
    multimodal_positions_figure,
    rotary_grid_figure,
    rotary_grid_scores,
    rotary_pair_axes_figure,
)


def scores_by_hand(layout, query, side, dim, sections, base):
    """Mean cosine of the angle differences, float64, written from the formulas."""
    out = np.zeros((side, side))
    half = dim // 2
    for r in range(side):
        for c in range(side):
            total = 0.0
            if layout == "axial":
                for j in range(dim // 4):
                    w = base ** (-4 * j / dim)
                    total += math.cos((query[0] - r) * w) + math.cos((query[1] - c) * w)
            else:
                axes = [a for a, n in enumerate(sections) for _ in range(n)]
                qp, kp = (0, *query), (0, r, c)
                for j in range(half):
                    total += math.cos((qp[axes[j]] - kp[axes[j]]) * base ** (-2 * j / dim))
            out[r, c] = total / half
    return out


@pytest.mark.parametrize(
    ("layout", "sections"), [("axial", None), ("mrope", (8, 12, 12)), ("mrope", (0, 16, 16))]
)
def test_scores_match_the_formula(layout, sections):
    got = rotary_grid_scores(layout, (3, 5), side=7, dim=64, sections=sections, base=100.0)
    want = scores_by_hand(layout, (3, 5), 7, 64, sections, 100.0)
    np.testing.assert_allclose(got.numpy(), want, atol=1e-12)
    assert got[3, 5].item() == pytest.approx(1.0)


@pytest.mark.parametrize("layout", ["axial", "mrope"])
def test_scores_depend_on_the_offset_only(layout):
    a = rotary_grid_scores(layout, (4, 4), side=12, dim=48)  # M-RoPE: 8 pairs per axis
    b = rotary_grid_scores(layout, (6, 7), side=12, dim=48)
    # the key at offset (Δr, Δc) from each query scores the same
    torch.testing.assert_close(a[0:8, 0:8], b[2:10, 3:11], atol=1e-12, rtol=0)


def test_mrope_with_slow_columns_is_flat_along_columns():
    s = rotary_grid_scores("mrope", (8, 8), side=16, dim=64, sections=(8, 12, 12))
    along_columns = (s - s[:, 8:9]).abs().max().item()
    along_rows = (s - s[8:9, :]).abs().max().item()
    assert along_columns < 1e-3 < along_rows


def test_figures_are_figures_of_the_book_width():
    for fig in (
        rotary_pair_axes_figure(),
        multimodal_positions_figure(),
        rotary_grid_figure(),
        rotary_grid_figure("axial", (2, 3), show_pairs=False),
    ):
        assert isinstance(fig, Figure) and fig.get_figwidth() <= 6.8


def test_pair_axes_figure_marks_each_axis():
    fig = rotary_pair_axes_figure(dim=12, sections=(1, 2, 3), axial_dim=8)
    left, right = fig.axes
    counts = {
        line.get_label(): len(line.get_xdata())
        for line in left.get_lines()
        if not line.get_label().startswith("_")
    }
    assert counts == {"time": 1, "row": 2, "column": 3}
    assert {line.get_marker() for line in left.get_lines()} >= {"o", "s", "^"}
    ys = [line.get_ydata() for line in right.get_lines() if line.get_marker() in "s^"]
    np.testing.assert_allclose(ys[0], ys[1])  # axial: both axes over the same wavelengths


def test_positions_figure_writes_every_position():
    fig = multimodal_positions_figure([2, (1, 1, 2), 1])
    texts = [t.get_text() for t in fig.axes[0].texts]
    numbers = [t for t in texts if t.isdigit()]
    # tokens: txt 0, txt 1, img (2, 2, 2), img (2, 2, 3), txt 4 — column by column
    assert numbers == ["0", "0", "0", "1", "1", "1", "2", "2", "2", "2", "2", "3", "4", "4", "4"]


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: rotary_grid_scores("xy", (0, 0)), ValueError, "layout must be one of"),
        (lambda: rotary_grid_scores("axial", (16, 0)), ValueError, "query must lie inside"),
        (lambda: rotary_grid_scores("axial", (0, 0), dim=62), ValueError, "dim"),
        (lambda: rotary_grid_scores("mrope", (0, 0), sections=(1, 2)), ValueError, "sections"),
        (lambda: rotary_grid_figure(show_pairs=1), TypeError, "show_pairs"),
        (lambda: rotary_pair_axes_figure(axial_dim=10), ValueError, "axial_dim"),
        (lambda: rotary_pair_axes_figure(side=0), ValueError, "side"),
        (lambda: multimodal_positions_figure([20]), ValueError, "at most 16 tokens"),
    ],
)
def test_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()
