"""Tests for book.figures._grid: grids of labelled cells, fast labels, outlines, canvases."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from book.figures._grid import (
    Highlights,
    _label_path,
    draw_label,
    draw_labels,
    draw_number_grid,
    inch_canvas,
    outline_cells,
)
from book.figures.measure import label_collections


def test_number_grid_draws_values_and_readable_labels():
    fig = Figure()
    ax = fig.add_subplot()
    values = np.array([[0, 5], [9, 2]])
    image = draw_number_grid(ax, values, vmin=0, vmax=9)
    np.testing.assert_array_equal(image.get_array(), values)
    (labels,) = label_collections(fig)
    assert labels.labels == ["0", "5", "9", "2"]
    # cell (r, c) is centred on (c, r)
    assert labels.centres == [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)]
    colours = labels.get_facecolors()
    # viridis: 0 is dark purple (white text), 9 is yellow (black text)
    np.testing.assert_allclose(colours[0][:3], [1, 1, 1])
    np.testing.assert_allclose(colours[2][:3], [0, 0, 0])
    assert not ax.axison
    with pytest.raises(ValueError, match="values must be a 2-D matrix"):
        draw_number_grid(ax, np.zeros((2, 2, 2)))


def test_number_grid_with_origin_shares_one_axes():
    fig, ax = inch_canvas(4.0, 3.0)
    assert ax.get_xlim() == (0.0, 4.0) and ax.get_ylim() == (3.0, 0.0)
    image = draw_number_grid(
        ax, np.arange(6).reshape(2, 3), origin=(1.0, 0.5), cell=0.25, fmt=lambda v: f"<{v:.0f}>"
    )
    assert image.get_extent() == [1.0, 1.75, 1.0, 0.5]
    (labels,) = label_collections(fig)
    assert labels.labels[4] == "<4>" and labels.centres[4] == (1.375, 0.875)  # row 1, column 1
    patch = outline_cells(ax, 1, 2, origin=(1.0, 0.5), cell=0.25)
    box = (patch.get_x(), patch.get_y(), patch.get_width(), patch.get_height())
    assert box == (1.5, 0.75, 0.25, 0.25)
    assert ax.get_xlim() == (0.0, 4.0) and ax.get_ylim() == (3.0, 0.0)  # limits untouched
    plain = outline_cells(Figure().add_subplot(), 2, 1, 3, 4)
    assert (plain.get_x(), plain.get_y(), plain.get_width(), plain.get_height()) == (0.5, 1.5, 4, 3)


def test_draw_labels_checks_lengths_and_scales_with_dpi():
    fig, ax = inch_canvas(2.0, 1.0)
    labels = draw_labels(ax, ["12", "a\nb"], [(0.5, 0.5), (1.5, 0.5)], fontsize=10)
    renderer = FigureCanvasAgg(fig).get_renderer()
    height_at_dpi = labels.get_window_extent(renderer).height
    fig.set_dpi(2 * fig.dpi)
    renderer = FigureCanvasAgg(fig).get_renderer()
    assert math.isclose(labels.get_window_extent(renderer).height, 2 * height_at_dpi, rel_tol=0.05)
    with pytest.raises(ValueError, match="one point per label"):
        draw_labels(ax, ["1", "2"], [(0, 0)])


def test_cached_label_outlines_cannot_be_changed_by_a_caller():
    _fig, ax = inch_canvas(2.0, 1.0)
    first = draw_labels(ax, ["17", ""], [(0.5, 0.5), (1.5, 0.5)]).get_paths()
    kept = [(p.vertices.copy(), None if p.codes is None else p.codes.copy()) for p in first]
    for path in first:  # every caller shares these paths: writing to them must fail
        with pytest.raises(ValueError, match="read-only"):
            path.vertices[:] = 0.0
        with pytest.raises(AttributeError):
            path.vertices = np.zeros((1, 2))
    with pytest.raises(ValueError, match="read-only"):
        first[0].codes[:] = 1
    again = draw_labels(ax, ["17", ""], [(0.5, 0.5), (1.5, 0.5)]).get_paths()
    for path, (vertices, codes) in zip(again, kept):
        np.testing.assert_array_equal(path.vertices, vertices)
        np.testing.assert_array_equal(path.codes, codes)
    assert again[0] is _label_path("17", 8.0)  # still cached
    assert len(kept[0][0]) > 0 and len(kept[1][0]) == 0


@pytest.mark.parametrize(
    "ha,va,expected",
    [("left", "center", (1, 0)), ("center", "top", (0, 1)), ("right", "bottom", (-1, -1))],
)
def test_draw_label_aligns_like_text(ha, va, expected):
    _fig, ax = inch_canvas(3.0, 2.0)
    label = draw_label(ax, "12", 1.5, 1.0, ha=ha, va=va, fontsize=10)
    assert label.labels == ["12"]
    width, height = np.ptp(label.get_paths()[0].vertices, axis=0) / 72  # inches
    (x, y), (sx, sy) = label.get_offsets()[0], expected
    assert math.isclose(x, 1.5 + sx * width / 2) and math.isclose(y, 1.0 + sy * height / 2)


def test_highlights_draw_halos_under_outlines_in_one_collection():
    _fig, ax = inch_canvas(3.0, 2.0)
    marks = Highlights()
    marks.add(1, 2, origin=(0.5, 0.25), cell=0.5)
    marks.add(0, 0, 2, 3, origin=(0.0, 0.0), cell=0.25, color="red", lw=1.0)
    collection = marks.draw(ax)
    assert collection.boxes == [(1.5, 0.75, 0.5, 0.5, "black"), (0.0, 0.0, 0.75, 0.5, "red")]
    assert len(collection.get_segments()) == 4  # two halos, then two outlines
    np.testing.assert_allclose(collection.get_linewidths(), [2.2 + 2.4, 1.0 + 2.4, 2.2, 1.0])
    np.testing.assert_allclose(collection.get_colors()[:2, :3], 1.0)  # white halos first


# ---------------------------------------------------------------------------------------------
# bad input


def _ax():
    return inch_canvas(3.0, 2.0)[1]


@pytest.mark.parametrize(
    "call,error,match",
    [
        (lambda: inch_canvas(0.0, 1.0), ValueError, "width must be a finite number > 0"),
        (lambda: inch_canvas(2.0, float("inf")), ValueError, "height must be a finite number"),
        (lambda: inch_canvas("2", 1.0), TypeError, "width must be a real number"),
        (lambda: draw_labels(_ax(), "12", [(0, 0), (1, 0)]), TypeError, "labels must be a seq"),
        (lambda: draw_labels(_ax(), ["1"], [(0, 0)], fontsize=0), ValueError, "fontsize"),
        (lambda: draw_labels(_ax(), ["1"], 0), TypeError, "centres must be a sequence"),
        (lambda: draw_label(_ax(), 12, 0.0, 0.0), TypeError, "text must be a string"),
        (lambda: draw_label(_ax(), "a", float("nan"), 0.0), ValueError, "x must be a finite"),
        (lambda: draw_label(_ax(), "a", 0.0, 0.0, ha="middle"), ValueError, "ha must be one"),
        (lambda: draw_label(_ax(), "a", 0.0, 0.0, va="baseline"), ValueError, "va must be one"),
        (lambda: draw_number_grid(_ax(), np.zeros((0, 3))), ValueError, "values must have at"),
        (lambda: draw_number_grid(_ax(), torch.zeros(2, 0)), ValueError, "values must have at"),
        (lambda: draw_number_grid(_ax(), np.array([[1.0, np.nan]])), ValueError, "finite"),
        (lambda: draw_number_grid(_ax(), torch.ones(2, 2).bool()), TypeError, "real numbers"),
        (lambda: draw_number_grid(_ax(), np.array([["a"]])), TypeError, "real numbers"),
        (lambda: draw_number_grid(_ax(), [[1, 2]]), TypeError, "a tensor or an array"),
        (lambda: draw_number_grid(_ax(), np.ones((2, 2)), vmin=np.nan), ValueError, "vmin"),
        (lambda: draw_number_grid(_ax(), np.ones((2, 2)), cmap="nope"), ValueError, "cmap must"),
        (lambda: draw_number_grid(_ax(), np.ones((2, 2)), vmax=True), TypeError, "vmax"),
        (lambda: draw_number_grid(_ax(), np.ones((2, 2)), fontsize=-1), ValueError, "fontsize"),
        (lambda: draw_number_grid(_ax(), np.ones((2, 2)), show_numbers="no"), TypeError, "show"),
        (lambda: draw_number_grid(_ax(), np.ones((2, 2)), cell=0.0), ValueError, "cell must"),
        (lambda: draw_number_grid(_ax(), np.ones((2, 2)), origin=(1.0,)), TypeError, "origin"),
        (lambda: draw_number_grid(_ax(), np.ones((2, 2)), origin=(0, np.inf)), ValueError, "orig"),
        (lambda: outline_cells(_ax(), -1, 0), ValueError, "row must be >= 0"),
        (lambda: outline_cells(_ax(), 0, True), TypeError, "col must be an integer"),
        (lambda: outline_cells(_ax(), 0, 0, 0), ValueError, "height must be positive"),
        (lambda: outline_cells(_ax(), 0, 0, 1, 1.5), TypeError, "width must be an integer"),
        (lambda: outline_cells(_ax(), 0, 0, cell=float("nan")), ValueError, "cell must be"),
    ],
)
def test_grid_helpers_refuse_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_number_grid_cells_may_be_wider_than_tall() -> None:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from book.figures._grid import draw_number_grid

    fig = Figure()
    ax = fig.add_subplot()
    ax.set_xlim(0, 10)
    ax.set_ylim(10, 0)
    image = draw_number_grid(
        ax, np.array([[1, 2, 3], [4, 5, 6]]), origin=(1.0, 2.0), cell=1.0, cell_width=1.5
    )
    assert list(image.get_extent()) == [1.0, 5.5, 4.0, 2.0]  # 3 cells of 1.5 across, 2 of 1 down
    labels = ax.collections[-1]
    x = sorted({round(float(v), 6) for v in labels.get_offsets()[:, 0]})
    assert x == [1.75, 3.25, 4.75]  # each label at its cell's centre
    import pytest

    with pytest.raises(ValueError, match="cell_width"):
        draw_number_grid(ax, np.ones((1, 1)), origin=(0.0, 0.0), cell_width=0.0)
