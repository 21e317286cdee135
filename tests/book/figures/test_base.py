"""The shared drawing helpers of book.figures._base, against values written out here."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from matplotlib import colormaps
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure

from book.figures._base import (
    DIVERGING,
    UNDEFINED,
    grey_undefined,
    heatmap,
    index_ticks,
    inset_colorbar,
    new_figure,
    panel_grid,
    sequence_position,
    signed_label,
    table_image,
)


def _axes():
    return new_figure().add_subplot()


# -- table_image --------------------------------------------------------------------------------


def test_table_image_draws_the_table_on_the_fixed_scale():
    table = torch.linspace(-1, 1, 12).reshape(4, 3)
    ax = _axes()
    image = table_image(ax, table)
    np.testing.assert_array_equal(np.asarray(image.get_array()), table.double().numpy())
    assert image.get_clim() == (-1.0, 1.0) and image.get_cmap().name == DIVERGING
    assert image.get_extent() == [-0.5, 2.5, 3.5, -0.5]  # row 0 at the top
    assert len(ax.figure.axes) == 1  # no colour bar unless asked
    fig = new_figure()
    table_image(fig.add_subplot(), table, colorbar=True)
    assert len(fig.axes) == 2


def test_table_image_averages_blocks_of_rows_beyond_max_rows():
    rng = np.random.default_rng(0)
    table = rng.uniform(-1, 1, size=(10, 2))
    image = table_image(_axes(), table, max_rows=4)  # blocks of 3 rows, the last padded
    padded = [list(table[min(r, 9)]) for r in range(12)]  # the last row repeated twice
    expected = [
        [sum(padded[3 * b + k][c] for k in range(3)) / 3 for c in range(2)] for b in range(4)
    ]
    np.testing.assert_allclose(np.asarray(image.get_array()), expected, rtol=0, atol=1e-15)
    assert image.get_extent() == [-0.5, 1.5, 9.5, -0.5]  # still the table's rows
    same = table_image(_axes(), table, max_rows=10)  # not more rows than that: unchanged
    np.testing.assert_array_equal(np.asarray(same.get_array()), table)


def test_table_image_errors():
    with pytest.raises(ValueError, match=r"table must be a 2-D"):
        table_image(_axes(), np.zeros(3))
    with pytest.raises(ValueError, match=r"max_rows must be positive"):
        table_image(_axes(), np.zeros((3, 2)), max_rows=0)


# -- grey_undefined -------------------------------------------------------------------------------


@pytest.mark.parametrize("cmap", [DIVERGING, colormaps["viridis"]])
def test_grey_undefined_paints_nan_grey_and_nothing_else(cmap):
    base = colormaps[cmap] if isinstance(cmap, str) else cmap
    grey = grey_undefined(cmap)
    values = np.array([0.0, 0.25, np.nan, 1.0])
    colours = grey(values)
    np.testing.assert_array_equal(colours[2], to_rgba(UNDEFINED))
    np.testing.assert_array_equal(colours[[0, 1, 3]], base(values[[0, 1, 3]]))
    assert base.get_bad()[3] == 0.0  # the registered colormap keeps its transparent "bad"


def test_grey_undefined_in_an_image():
    ax = _axes()
    image = ax.imshow(np.array([[0.0, np.nan]]), cmap=grey_undefined(DIVERGING), vmin=-1, vmax=1)
    rgba = image.to_rgba(image.get_array())  # [1, 2, 4]: what the image paints
    np.testing.assert_array_equal(rgba[0, 1], to_rgba(UNDEFINED))
    np.testing.assert_array_equal(rgba[0, 0], colormaps[DIVERGING](0.5))


# -- index_ticks ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "n, kwargs, expected",
    [
        (50, {}, [0, 25, 49]),
        (50, {"mark": 30}, [0, 30, 49]),
        (50, {"mark": 49}, [0, 25, 49]),  # an end is no news: the middle stays
        (50, {"mark": 0}, [0, 25, 49]),
        (50, {"mark": -3}, [0, 25, 49]),
        (50, {"mark": None}, [0, 25, 49]),
        (2, {}, [0, 1]),
        (1, {}, [0]),
        (1, {"round_steps": True}, [0]),
        (3, {"round_steps": True}, [0, 1, 2]),
        (10, {"round_steps": True}, [0, 2, 4, 6, 8]),
        (50, {"round_steps": True}, [0, 20, 40]),
        (101, {"round_steps": True}, [0, 50, 100]),
        (200, {"round_steps": True}, [0, 50, 100, 150]),
        (200, {"round_steps": True, "mark": 123}, [0, 50, 100, 123, 150]),
        (200, {"round_steps": True, "mark": 250}, [0, 50, 100, 150]),
    ],
)
def test_index_ticks_golden(n, kwargs, expected):
    assert index_ticks(n, **kwargs) == expected


@given(n=st.integers(1, 2001), mark=st.none() | st.integers(-5, 2005), round_steps=st.booleans())
def test_index_ticks_are_few_sorted_indices_on_the_axis(n, mark, round_steps):
    ticks = index_ticks(n, mark=mark, round_steps=round_steps)
    assert ticks == sorted(set(ticks)) and all(0 <= t < n for t in ticks)
    assert 1 <= len(ticks) <= (6 if round_steps else 3)
    if n >= 2:
        assert len(ticks) >= 2 and ticks[0] == 0
    if mark is not None and (0 < mark < n - 1 or (round_steps and 0 <= mark < n)):
        assert mark in ticks
    if round_steps:
        steps = {b - a for a, b in itertools.pairwise(ticks) if mark not in (a, b)}
        assert len(steps) <= 1  # equally spaced (apart from the mark)


def test_index_ticks_errors():
    with pytest.raises(ValueError, match=r"^n must be positive"):
        index_ticks(0)
    with pytest.raises(TypeError, match=r"^mark must be an integer"):
        index_ticks(5, mark=2.5)


# -- inset_colorbar ------------------------------------------------------------------------------


def test_inset_colorbar_sits_right_of_its_axes_without_taking_space():
    fig = Figure(figsize=(4, 3))
    ax = fig.add_axes((0.1, 0.1, 0.6, 0.8))
    image = ax.imshow(np.linspace(0, 1, 6).reshape(2, 3), vmin=0.0, vmax=1.0, aspect="auto")
    cbar = inset_colorbar(ax, image, ticks=[0.0, 0.5, 1.0], label="weight", gap=0.05, width=0.06)
    assert ax.child_axes == [cbar.ax]
    assert ax.get_position().bounds == pytest.approx((0.1, 0.1, 0.6, 0.8))  # unchanged
    assert cbar.ax.get_ylabel() == "weight" and cbar.ax.yaxis.label.get_fontsize() == 8.0
    assert list(cbar.get_ticks()) == [0.0, 0.5, 1.0]
    assert all(t.get_fontsize() == 7.0 for t in cbar.ax.get_yticklabels())
    fig.canvas.draw()
    inset = cbar.ax.get_position()
    assert inset.x0 == pytest.approx(0.1 + 1.05 * 0.6) and inset.width == pytest.approx(0.06 * 0.6)
    assert (inset.y0, inset.height) == pytest.approx((0.1, 0.8))


def test_inset_colorbar_widens_to_show_a_rounded_maximum():
    ax = _axes()
    image = ax.imshow(np.array([[0.0, 199.0]]), vmin=0.0)
    cbar = inset_colorbar(ax, image, ticks=[0.0, 100.0, 200.0])
    assert not cbar.ax.get_ylabel()
    assert list(cbar.get_ticks()) == [0.0, 100.0, 200.0]
    assert cbar.ax.get_ylim()[1] >= 200.0


@pytest.mark.parametrize(
    "count, columns, grid", [(1, 3, (1, 1)), (5, 2, (3, 2)), (4, 4, (1, 4)), (7, 3, (3, 3))]
)
def test_panel_grid_shows_count_panels_and_hides_the_rest(count, columns, grid):
    fig, axes = panel_grid(count, columns, (2.0, 1.5), margin=(0.5, 0.25))
    assert len(axes) == count
    assert len(fig.axes) == grid[0] * grid[1]
    assert sum(ax.get_visible() for ax in fig.axes) == count
    assert tuple(fig.get_size_inches()) == pytest.approx(
        (2.0 * grid[1] + 0.5, 1.5 * grid[0] + 0.25)
    )
    assert axes[0].get_gridspec().get_geometry() == grid


# ---------------------------------------------------------------------------------------------
# bad input: every helper refuses empty or impossible values with a message naming the argument


@pytest.mark.parametrize(
    "call,error,match",
    [
        (lambda: new_figure(0.0, 3.0), ValueError, "width must be a finite number > 0"),
        (lambda: new_figure(4.0, float("nan")), ValueError, "height must be a finite number"),
        (lambda: new_figure(True, 3.0), TypeError, "width must be a real number, got bool"),
        (lambda: panel_grid(0, 2, (1.0, 1.0)), ValueError, "count must be positive"),
        (lambda: panel_grid(3, True, (1.0, 1.0)), TypeError, "columns must be an integer"),
        (lambda: panel_grid(3, 2, (1.0, -1.0)), ValueError, r"panel_size\[1\] must be"),
        (lambda: panel_grid(3, 2, (1.0, 1.0), (-0.1, 0.0)), ValueError, r"margin\[0\] must"),
        (lambda: panel_grid(3, 2, 1.0), TypeError, "panel_size must be a pair of numbers"),
        (lambda: heatmap(_ax(), torch.zeros(0, 3)), ValueError, "matrix must have at least one"),
        (lambda: heatmap(_ax(), torch.zeros(3)), ValueError, r"matrix must be a 2-D"),
        (lambda: heatmap(_ax(), torch.ones(2, 2).bool()), TypeError, "matrix must hold real"),
        (lambda: heatmap(_ax(), torch.ones(2, 2, dtype=torch.cfloat)), TypeError, "real"),
        (lambda: heatmap(_ax(), np.ones((2, 2), bool)), TypeError, "matrix must hold real"),
        (lambda: heatmap(_ax(), torch.ones(2, 2), symmetric="no"), TypeError, "symmetric"),
        (lambda: heatmap(_ax(), torch.ones(2, 2), colorbar=1), TypeError, "colorbar must be"),
        (lambda: heatmap(_ax(), torch.ones(2, 2), vmax=0.0), ValueError, "vmax must be"),
        (lambda: heatmap(_ax(), torch.ones(2, 2), vmax=float("inf")), ValueError, "vmax"),
        (lambda: table_image(_ax(), torch.zeros(4, 0)), ValueError, "table must have at least"),
        (lambda: table_image(_ax(), torch.zeros(4, 2), colorbar="no"), TypeError, "colorbar"),
        (lambda: table_image(_ax(), torch.zeros(4, 2), max_rows=0), ValueError, "max_rows"),
        (lambda: index_ticks(10, round_steps=1), TypeError, "round_steps must be a bool"),
        (lambda: index_ticks(0), ValueError, "n must be positive"),
        (lambda: sequence_position("nonsense", 5, name="highlight"), ValueError, "highlight"),
        (lambda: sequence_position(5, 5, name="highlight"), ValueError, "highlight must be < n"),
        (lambda: sequence_position(True, 5), TypeError, "query must be an integer"),
        (lambda: signed_label("2"), TypeError, "v must be a real number"),
        (lambda: grey_undefined("nonsense"), ValueError, "cmap must name a registered colormap"),
        (lambda: grey_undefined(3), TypeError, "cmap must be a colormap or its name"),
        (lambda: inset_colorbar(*_image(), ticks=3), TypeError, "ticks must be a sequence"),
        (lambda: inset_colorbar(*_image(), ticks=[0, "1"]), TypeError, r"ticks\[1\] must be"),
        (lambda: inset_colorbar(*_image(), ticks=[np.nan]), ValueError, r"ticks\[0\] must be"),
        (lambda: inset_colorbar(*_image(), ticks=[0], width=0), ValueError, "width must be"),
        (lambda: inset_colorbar(*_image(), ticks=[0], gap=np.inf), ValueError, "gap must be"),
        (lambda: inset_colorbar(*_image(), ticks=[0], tick_size=-1), ValueError, "tick_size"),
        (lambda: signed_label(float("nan")), ValueError, "v must be a finite number"),
    ],
)
def test_base_helpers_refuse_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_heatmap_keeps_undefined_entries_and_a_nonsymmetric_vmax():
    image = heatmap(_ax(), np.array([[np.nan, 1.0], [0.5, -1.0]]))
    assert np.ma.getmaskarray(image.get_array())[0, 0]  # drawn in the "bad" colour
    image = heatmap(_ax(), -np.ones((2, 2)), symmetric=False, vmin=-3.0, vmax=-2.0)
    assert image.get_clim() == (-3.0, -2.0)  # without symmetry any finite limit is allowed


def _ax():
    return Figure().add_subplot()


def _image():
    ax = _ax()
    return ax, heatmap(ax, np.eye(2), colorbar=False)


def test_fit_column_scales_a_wide_figure_and_raises_small_text():
    from book.figures._base import MIN_FONT_SIZE, fit_column
    from book.figures.measure import smallest_text

    fig = new_figure(10.0, 4.0)
    ax = fig.add_subplot()
    ax.set_title("title", fontsize=6)
    ax.tick_params(labelsize=5)
    ax.legend(handles=ax.plot([0, 1], label="line"), fontsize=4)
    assert fit_column(fig, max_width=6.8) is fig
    assert tuple(fig.get_size_inches()) == pytest.approx((6.8, 4.0 * 0.68))
    px, _, points, _ = smallest_text(fig, css_dpi=100, tight=False)
    assert points == MIN_FONT_SIZE and px == pytest.approx(8 * 100 / 72)
    narrow = new_figure(3.0, 2.0)
    fit_column(narrow)
    assert tuple(narrow.get_size_inches()) == (3.0, 2.0)  # a narrow figure keeps its size
    with pytest.raises(ValueError, match="max_width"):
        fit_column(narrow, max_width=0.0)


def test_retina_palette_png_is_twice_the_pixels_with_the_1x_size():
    import base64

    from book.figures._base import PAD_INCHES, retina_palette_png
    from book.figures.png import png_size

    fig = new_figure(3.0, 2.0, layout=None)
    fig.patch.set_facecolor("0.5")  # the tight box is then the whole figure
    encoded, shown = retina_palette_png(fig)
    width, height = png_size(base64.b64decode(encoded))
    assert (width, height) == (2 * shown["width"], 2 * shown["height"])
    assert shown["width"] == round((3.0 + 2 * PAD_INCHES) * 100)


def test_retina_palette_png_reports_its_smallest_text_at_1x():
    from book.figures._base import retina_palette_png

    fig = new_figure(3.0, 2.0, layout=None)
    ax = fig.add_subplot()
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title("big", fontsize=14)
    ax.text(0.5, 0.5, "small", fontsize=7.2)
    shown = retina_palette_png(fig)[1]
    assert shown["text_px"] == round(7.2 * fig.dpi / 72, 1)  # points at the figure's CSS dpi
    assert "text_px" not in retina_palette_png(new_figure(3.0, 2.0, layout=None))[1]


def test_text_overlaps_counts_pairs_of_texts_and_grid_labels():
    from book.figures._base import text_overlaps
    from book.figures._grid import draw_labels

    fig = new_figure(3.0, 2.0, layout=None)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_axis_off()
    ax.set_xlim(0, 3)
    ax.set_ylim(0, 2)
    ax.text(0.2, 1.0, "apart", fontsize=10)
    ax.text(2.0, 1.0, "apart", fontsize=10)
    fig.canvas.draw()
    assert text_overlaps(fig) == 0
    ax.text(0.25, 1.02, "on top", fontsize=10)  # over the first text
    draw_labels(ax, ["10", "11"], [(1.5, 0.3), (1.52, 0.3)], fontsize=10)  # over each other
    fig.canvas.draw()
    assert text_overlaps(fig) == 2


def _page_and_slide(fig):
    from book.figures._base import retina_palette_png

    return retina_palette_png(fig)[1]


def test_slide_version_has_larger_text_for_its_size_and_leaves_the_figure_as_it_was():
    import base64

    from book.figures._base import SLIDE_BOX, SLIDE_TEXT_PX
    from book.figures.png import png_size

    fig = new_figure(6.5, 3.0, layout="constrained")
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 1])
    ax.set_xlabel("position", fontsize=8)
    ax.tick_params(labelsize=8)
    size = tuple(fig.get_size_inches())
    shown = _page_and_slide(fig)
    assert tuple(fig.get_size_inches()) == size
    page_fit = min(SLIDE_BOX[0] / shown["width"], SLIDE_BOX[1] / shown["height"])
    assert shown["text_px"] * page_fit < SLIDE_TEXT_PX  # too small on a slide as it is
    slide = shown["slide"]
    fit = min(SLIDE_BOX[0] / slide["width"], SLIDE_BOX[1] / slide["height"])
    assert slide["text_px"] == shown["text_px"]
    assert slide["text_px"] * fit >= SLIDE_TEXT_PX
    assert slide["width"] < shown["width"]
    width, height = png_size(base64.b64decode(slide["png"]))
    assert width == pytest.approx(1.5 * fit * slide["width"], rel=0.02)  # projector pixels
    assert height == pytest.approx(1.5 * fit * slide["height"], rel=0.02)


def test_no_slide_version_when_the_page_version_is_large_enough_or_cannot_shrink():
    from book.figures._base import text_overlaps
    from book.figures._grid import draw_labels

    big = new_figure(4.0, 1.5, layout=None)
    big.text(0.1, 0.5, "large", fontsize=20)
    assert "slide" not in _page_and_slide(big)
    # digits side by side, 1% into each other (under the half-pixel each side that
    # text_overlaps forgives), on a figure too tall for a slide: the first 6% step makes them
    # overlap by 1.5 px, so the figure cannot shrink and gets no slide version
    packed = new_figure(10.0, 6.0, layout=None)
    ax = packed.add_axes((0, 0, 1, 1))
    ax.set_axis_off()
    ax.set_xlim(0, 10.0)
    ax.set_ylim(0, 6.0)
    probe = draw_labels(ax, ["88"], [(1.0, 1.0)], fontsize=14)
    packed.canvas.draw()
    box = probe.get_transform().transform_bbox(probe.get_paths()[0].get_extents())
    probe.remove()
    gap = 0.99 * box.width / packed.dpi  # inches
    draw_labels(ax, ["88"] * 30, [(0.3 + gap * k, 3.0) for k in range(30)], fontsize=14)
    packed.canvas.draw()
    assert text_overlaps(packed) == 0
    assert "slide" not in _page_and_slide(packed)


def test_text_overlaps_counts_texts_inside_subfigures() -> None:
    from matplotlib.figure import Figure

    from book.figures._base import text_overlaps

    fig = Figure()
    left, right = fig.subfigures(1, 2)
    left.text(0.5, 0.5, "hello")
    left.text(0.5, 0.5, "hello")
    right.text(0.5, 0.5, "apart")
    fig.canvas.draw()
    assert text_overlaps(fig) == 1
