"""Tests for book.figures.window: the figures show the offsets, indices and biases they claim.

References are written here independently: offsets and indices by plain loops over the
window (Swin's formula, query minus key), the shifted partition by its definition.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import torch
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure

from book.figures._base import SLIDE_BOX, retina_palette_png, text_overlaps
from book.figures.measure import label_collections
from book.figures.window import (
    CONVENTIONS,
    draw_window_borders,
    example_bias_table,
    index_radix_figure,
    meshgrid_order_figure,
    relative_offsets_figure,
    shifted_window_figure,
    window_bias_figure,
    window_coordinates_figure,
    window_query_token,
)
from posenc.window import shifted_window_mask


def loop_index(wh: int, ww: int, radix: int | None = None) -> np.ndarray:
    """Swin's index by a double loop: (r_i − r_j + Wh − 1)·radix + (c_i − c_j + Ww − 1)."""
    radix = 2 * ww - 1 if radix is None else radix
    cells = [(n // ww, n % ww) for n in range(wh * ww)]
    return np.array(
        [[(ri - rj + wh - 1) * radix + (ci - cj + ww - 1) for rj, cj in cells] for ri, ci in cells]
    )


def images(fig: Figure) -> list[np.ndarray]:
    return [np.asarray(im.get_array()) for ax in fig.axes for im in ax.images]


def all_labels(fig: Figure) -> list[str]:
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    return texts + [label for c in label_collections(fig) for label in c.labels]


def assert_inside_figure(fig: Figure) -> None:
    """No text or label collection runs off the figure (a cut title is a defect)."""
    renderer = FigureCanvasAgg(fig).get_renderer()
    box = fig.bbox
    artists = [t for ax in fig.axes for t in ax.texts] + label_collections(fig)
    for artist in artists:
        extent = artist.get_window_extent(renderer)
        assert box.x0 - 1 <= extent.x0 and extent.x1 <= box.x1 + 1, artist
        assert box.y0 - 1 <= extent.y0 and extent.y1 <= box.y1 + 1, artist


# ---------------------------------------------------------------------------------------------
# helpers


def test_window_borders_with_offset():
    fig = Figure()
    ax = fig.add_subplot()
    draw_window_borders(ax, 9, 8, (3, 4), offset=(1, 2))  # Swin's shifted partition
    horizontal = sorted(
        {
            line.get_ydata()[0] + 0.5
            for line in ax.lines
            if line.get_ydata()[0] == line.get_ydata()[1]
        }
    )
    assert horizontal == [0, 1, 4, 7, 9]
    ax2 = Figure().add_subplot()
    draw_window_borders(ax2, 6, 9, (3, 3))
    vertical = sorted(
        {
            line.get_xdata()[0] + 0.5
            for line in ax2.lines
            if line.get_xdata()[0] == line.get_xdata()[1]
        }
    )
    assert vertical == [0, 3, 6, 9]


@pytest.mark.parametrize(
    "query,expected",
    [
        ("top-left", 0),
        ("top-right", 3),
        ("centre", 5),
        ("bottom-left", 8),
        ("bottom-right", 11),
        (7, 7),
        ((2, 1), 9),
    ],
)
def test_window_query_token(query, expected):
    assert window_query_token(query, (3, 4)) == expected


def test_window_query_token_errors():
    with pytest.raises(ValueError, match="query must be one of"):
        window_query_token("middle", (3, 4))
    with pytest.raises(ValueError, match=r"query must be < Wh·Ww = 12"):
        window_query_token(12, (3, 4))
    with pytest.raises(ValueError, match=r"must lie in the 3x4 window"):
        window_query_token((3, 0), (3, 4))
    with pytest.raises(TypeError, match=r"window_size must be a pair"):
        window_query_token(0, 7)
    with pytest.raises(ValueError, match=r"window_size must have two entries"):
        window_query_token(0, (2, 7, 7))


def test_example_bias_table_formula_and_layout():
    wh, ww = 3, 4
    table = example_bias_table((wh, ww), 4)
    assert table.shape == ((2 * wh - 1) * (2 * ww - 1), 4) and table.dtype == torch.float64
    for dr, dc in itertools.product(range(-(wh - 1), wh), range(-(ww - 1), ww)):
        row = (dr + wh - 1) * (2 * ww - 1) + (dc + ww - 1)
        expected = [
            1.5 * math.exp(-(dr**2 + dc**2) / 4) - 0.5,
            1.5 * math.exp(-(dr**2 + (dc - 1) ** 2) / 1.5) - 0.5,
            1.5 * math.exp(-(dr**2)) - 0.5,
            1.5 * math.exp(-((dr - 1) ** 2 + dc**2) / 1.5) - 0.5,
        ]
        np.testing.assert_allclose(table[row].numpy(), expected, rtol=1e-12)
    assert table.min() >= -0.5 and table.max() <= 1.0
    with pytest.raises(ValueError, match="num_heads must be <= 4"):
        example_bias_table((2, 2), 5)


# ---------------------------------------------------------------------------------------------
# figures of the construction


def test_coordinates_figure_lists_every_token():
    fig = window_coordinates_figure((3, 4))
    checker, coords = images(fig)
    assert checker.shape == (3, 4)
    np.testing.assert_array_equal(coords, [[n // 4 for n in range(12)], [n % 4 for n in range(12)]])
    labels = all_labels(fig)
    for n in range(12):
        assert str(n) in labels and f"({n // 4}, {n % 4})" in labels
    assert any("token n = r·4 + c" in t for t in labels)
    assert any("coords[:, n] = (r, c) of token n" in t for t in labels)
    assert_inside_figure(fig)


@pytest.mark.parametrize("shape", [(3, 4), (3, 3), (2, 3), (4, 3)])
def test_offsets_figure_shows_query_minus_key_and_the_index(shape):
    wh, ww = shape
    fig = relative_offsets_figure(shape)
    dr, dc, index = images(fig)
    n = wh * ww
    for i, j in itertools.product(range(n), repeat=2):
        assert dr[i, j] == i // ww - j // ww and dc[i, j] == i % ww - j % ww
    np.testing.assert_array_equal(index, loop_index(wh, ww))
    labels = all_labels(fig)
    assert "−1" in labels and "+1" in labels  # signed offsets with a real minus sign
    assert any(f"I = (Δr + {wh - 1})·{2 * ww - 1} + (Δc + {ww - 1})" in t for t in labels)
    assert_inside_figure(fig)


def test_offsets_figure_labels_are_legible():
    """The 3 x 4 window's 144 pairs: labels of 7 pt or more, each narrower than its cell."""
    fig = relative_offsets_figure((3, 4))
    grids = [c for c in label_collections(fig) if len(c.labels) == 144]
    assert len(grids) == 3
    (x0, _), (x1, _) = fig.axes[0].transData.transform([(0.0, 0.0), (0.2, 0.0)])
    cell_points = (x1 - x0) / fig.dpi * 72  # a cell is 0.2 inch wide
    for grid in grids:
        sizes = {round(np.ptp(path.vertices[:, 1]), 3) for path in grid.get_paths()}
        assert min(sizes) >= 0.6 * 7  # digit height is about 0.73 of the font size
        for path in grid.get_paths():
            assert np.ptp(path.vertices[:, 0]) < 0.8 * cell_points  # label widths in points


def test_radix_figure_marks_exactly_the_colliding_cells():
    fig = index_radix_figure((2, 3))
    swin, small = images(fig)
    assert not swin.any()
    expected = np.zeros((3, 5))
    expected[0, 4] = expected[1, 0] = expected[1, 4] = expected[2, 0] = 1  # 4 = 4 and 8 = 8
    np.testing.assert_array_equal(small, expected)
    numbers = [c.labels for c in label_collections(fig) if len(c.labels) == 15]
    assert numbers[0] == [str(v) for v in range(15)]
    assert numbers[1] == [str(a * 4 + b) for a in range(3) for b in range(5)]
    labels = all_labels(fig)
    assert any("15 indices for 15 offsets" in t for t in labels)
    assert any("13 indices for 15 offsets" in t for t in labels)
    assert any("(−1, +2) and (0, −2) → 4" in t for t in labels)
    assert_inside_figure(fig)
    wide = index_radix_figure((2, 3), radices=(6,))
    assert not images(wide)[0].any() and any("gaps" in t for t in all_labels(wide))


def test_radix_figure_headers_give_offsets_and_digits():
    """Step 3 in the headers: the offset (grey) and the shifted digit (blue) of every row/column."""
    fig = index_radix_figure((3, 4))
    headers = [c for c in label_collections(fig) if len(c.labels) == 7 + 5]
    offsets_, digits = headers[0], headers[1]  # first panel
    assert offsets_.labels == [
        "−3",
        "−2",
        "−1",
        "0",
        "+1",
        "+2",
        "+3",  # Δc
        "−2",
        "−1",
        "0",
        "+1",
        "+2",
    ]  # Δr
    assert digits.labels == [str(v) for v in range(7)] + [str(v) for v in range(5)]
    # each digit sits in line with its offset: same column (x) or same row (y)
    for k in range(12):
        axis = 0 if k < 7 else 1
        assert offsets_.centres[k][axis] == digits.centres[k][axis]
    labels = all_labels(fig)
    assert any("Δr + 2, Δc + 3" in t for t in labels)
    assert any("(−2, +3) and (−1, −3) → 6" in t for t in labels)
    assert any("31 indices for 35 offsets" in t for t in labels)
    assert_inside_figure(fig)


@pytest.mark.parametrize("shape", [(2, 3), (3, 4), (3, 3)])
def test_meshgrid_figure_orders(shape):
    wh, ww = shape
    fig = meshgrid_order_figure(shape)
    ij_other, xy_other = images(fig)
    bold = [
        c
        for c in label_collections(fig)
        if c.labels and not c.labels[0].startswith("token") and len(c.labels) == wh * ww
    ]
    ij, xy = (np.array([int(v) for v in c.labels]).reshape(wh, ww) for c in bold)
    for r, c in itertools.product(range(wh), range(ww)):
        assert ij[r, c] == r * ww + c  # row-major: the tokens' own order
        assert xy[r, c] == c * wh + r  # column by column
    token = np.arange(wh * ww).reshape(wh, ww)
    assert not ij_other.any()
    np.testing.assert_array_equal(xy_other, xy != token)  # shaded: another token's cell
    labels = all_labels(fig)
    assert any("coords[:, n] is the cell of token n" in t for t in labels)
    assert any(
        f"another token's cell\nin {int((xy != token).sum())} of {wh * ww} cells" in t
        for t in labels
    )
    assert_inside_figure(fig)


# ---------------------------------------------------------------------------------------------
# the explorer's figure


def outlines(fig: Figure, colour: str) -> list[tuple[float, float, float, float]]:
    """The boxes outlined in ``colour``, checked against what the collection really draws."""
    (collection,) = [c for c in fig.axes[0].collections if hasattr(c, "boxes")]
    n = len(collection.boxes)
    segments = collection.get_segments()
    drawn = [tuple(seg[0]) + (seg[2][0] - seg[0][0], seg[2][1] - seg[0][1]) for seg in segments]
    colours = [tuple(c[:3]) for c in collection.get_colors()]
    assert drawn[:n] == drawn[n:] and all(c == (1.0, 1.0, 1.0) for c in colours[:n])  # halos
    rgb = to_rgb(colour)
    return [box for box, c in zip(drawn[n:], colours[n:]) if c == rgb]


@pytest.mark.parametrize(
    "shape,heads,query,convention",
    [
        ((3, 4), 4, "centre", "swin"),
        ((3, 4), 4, "centre", "shaw"),
        ((4, 4), 3, "top-left", "swin"),
        ((7, 7), 1, "bottom-right", "shaw"),
        ((2, 7), 4, (1, 2), "swin"),
        ((7, 3), 2, "top-right", "shaw"),
    ],
)
def test_bias_figure_is_the_lookup_of_the_query_row(shape, heads, query, convention):
    wh, ww = shape
    fig = window_bias_figure(shape, query, convention, heads)
    i = window_query_token(query, shape)
    r, c = divmod(i, ww)
    index = loop_index(wh, ww)
    read = index[i] if convention == "swin" else index[:, i]  # Shaw's sign: the transpose
    table = example_bias_table(shape, heads).float().numpy()
    imgs = images(fig)
    assert len(imgs) == 2 + 2 * heads
    np.testing.assert_array_equal(imgs[0], read.reshape(wh, ww))
    rows, cols = 2 * wh - 1, 2 * ww - 1
    np.testing.assert_array_equal(imgs[1], np.arange(rows * cols).reshape(rows, cols))
    for k in range(heads):
        bias_map, table_map = imgs[2 + 2 * k], imgs[3 + 2 * k]
        np.testing.assert_allclose(bias_map, table[read, k].reshape(wh, ww))
        np.testing.assert_allclose(table_map, table[:, k].reshape(rows, cols))
        if convention == "swin":  # the block from cell (r, c), turned by 180 degrees
            block = table_map[r : r + wh, c : c + ww][::-1, ::-1]
        else:  # the block from cell (Wh − 1 − r, Ww − 1 − c), not turned
            block = table_map[wh - 1 - r : 2 * wh - 1 - r, ww - 1 - c : 2 * ww - 1 - c]
        np.testing.assert_allclose(bias_map, block)
    # black: the query (index row and every bias map) and offset (0, 0) (index table and every
    # head table); green: the block read, in the index table and every head table
    black, green = outlines(fig, "black"), outlines(fig, "#00a03c")
    assert len(black) == 2 + 2 * heads and len(green) == 1 + heads
    assert {round(w / h, 6) for _, _, w, h in green} == {round(ww / wh, 6)}
    assert {round(w / h, 6) for _, _, w, h in black} == {1.0}
    labels = all_labels(fig)
    assert any(f"query ({r}, {c}) = token {i}" in t for t in labels)
    turned = "turned by 180°" if convention == "swin" else "not turned"
    assert any(f"query ({r}, {c}) reads" in t and turned in t for t in labels)
    assert_inside_figure(fig)


def test_bias_figure_labels_every_index_cell():
    fig = window_bias_figure((7, 7), "centre")
    grids = [c for c in label_collections(fig) if len(c.labels) in (49, 169)]
    assert sorted(len(c.labels) for c in grids) == [49, 169]
    table_labels = next(c for c in grids if len(c.labels) == 169)
    assert table_labels.labels == [str(v) for v in range(169)]
    assert table_labels.get_facecolors()[:, :3].max() == 0  # black on light grey throughout


def test_bias_figure_follows_the_query_and_the_sign_turns_it():
    """Head 0 peaks at the query; head 1 at the key to its left, or its right with Shaw's sign;
    head 3 at the key above, or below."""
    for query in ("top-left", "centre", "bottom-right", (2, 3)):
        i = window_query_token(query, (4, 5))
        r, c = divmod(i, 5)
        for convention, step in (("swin", -1), ("shaw", +1)):
            imgs = images(window_bias_figure((4, 5), query, convention))
            near, side, above = imgs[2], imgs[4], imgs[8]
            assert np.unravel_index(near.argmax(), near.shape) == (r, c)
            if 0 <= c + step < 5:
                assert np.unravel_index(side.argmax(), side.shape) == (r, c + step)
            if 0 <= r + step < 4:
                assert np.unravel_index(above.argmax(), above.shape) == (r + step, c)


def test_bias_figure_errors():
    with pytest.raises(ValueError, match="convention must be one of"):
        window_bias_figure((3, 4), "centre", "t5")
    with pytest.raises(ValueError, match=r"window_size must be at most \(7, 7\)"):
        window_bias_figure((8, 4))
    assert CONVENTIONS == ("swin", "shaw")


# ---------------------------------------------------------------------------------------------
# shifted windows


def shifted_partition_labels(
    height: int, width: int, wh: int, ww: int, sh: int, sw: int
) -> np.ndarray:
    """Window of the shifted partition for every map cell, by scanning the window rectangles.

    Swin rolls the map by −shift and cuts regular windows, so regular window (0, 0) of the
    rolled map holds original rows sh … sh + Wh − 1: the windows start at shift + k·W.
    """
    labels = -np.ones((height, width), dtype=int)
    tops = range(sh - wh if sh else 0, height, wh)
    lefts = range(sw - ww if sw else 0, width, ww)
    for k, (top, left) in enumerate(itertools.product(tops, lefts)):
        labels[max(top, 0) : top + wh, max(left, 0) : left + ww] = k
    return labels


@pytest.mark.parametrize(
    "height,width,wh,ww,sh,sw",
    [(8, 8, 4, 4, 2, 2), (6, 9, 3, 3, 1, 2), (14, 14, 7, 7, 3, 3), (8, 8, 4, 4, 0, 0)],
)
def test_shifted_window_figure_colours_match_the_mask(height, width, wh, ww, sh, sw):
    fig = shifted_window_figure(height, width, (wh, ww), (sh, sw))
    partition, rolled, mask_image = images(fig)
    expected = shifted_partition_labels(height, width, wh, ww, sh, sw)
    same_window = expected[:, :, None, None] == expected[None, None]
    np.testing.assert_array_equal(partition[:, :, None, None] == partition[None, None], same_window)
    np.testing.assert_array_equal(rolled, np.roll(partition, (-sh, -sw), axis=(0, 1)))
    mask = shifted_window_mask(height, width, (wh, ww), (sh, sw))
    # in every rolled window: same colour <=> the mask lets the pair attend
    for w, (top, left) in enumerate(itertools.product(range(0, height, wh), range(0, width, ww))):
        colours = rolled[top : top + wh, left : left + ww].reshape(-1)
        np.testing.assert_array_equal(colours[:, None] == colours[None, :], mask[w].numpy())
    np.testing.assert_array_equal(mask_image, mask[-1].numpy())
    assert_inside_figure(fig)


# ---------------------------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize(
    "call,error,match",
    [
        (lambda: draw_window_borders(Figure().add_subplot(), 0, 8, (4, 4)), ValueError, "height"),
        (lambda: draw_window_borders(Figure().add_subplot(), 8, True, (4, 4)), TypeError, "width"),
        (
            lambda: draw_window_borders(Figure().add_subplot(), 8, 8, (4, 4), offset=(1,)),
            ValueError,
            "offset must have two entries",
        ),
        (lambda: index_radix_figure((3, 4), radices=()), ValueError, "radices must hold at"),
        (lambda: index_radix_figure((3, 4), radices=7), TypeError, "radices must be a sequence"),
        (lambda: index_radix_figure((3, 4), radices=(7, 0)), ValueError, r"radices\[1\] must"),
        (lambda: shifted_window_figure(8, 8, (4, 4), ()), ValueError, "shift must have two"),
        (lambda: shifted_window_figure(8, 8, (4, 4), 2), TypeError, "shift must be a pair"),
        (lambda: shifted_window_figure(8, 8, (4, 4), (-1, 2)), ValueError, r"shift\[0\] must"),
        (lambda: shifted_window_figure(True, 8), TypeError, "height must be an integer"),
        (lambda: shifted_window_figure(8, 0), ValueError, "width must be positive"),
        (lambda: window_coordinates_figure((0, 4)), ValueError, r"window_size\[0\] must be"),
        (lambda: relative_offsets_figure("34"), TypeError, "window_size must be a pair"),
        (lambda: meshgrid_order_figure((3, True)), TypeError, r"window_size\[1\] must be"),
        (lambda: window_bias_figure((3, 4), "centre", "swin", 0), ValueError, "num_heads"),
        (lambda: window_bias_figure((3, 4), (3, 0)), ValueError, "must lie in the 3x4 window"),
        (lambda: window_bias_figure((3, 4), 12), ValueError, "query must be < Wh·Ww = 12"),
    ],
)
def test_figures_refuse_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


def slide_text_at_1080p(fig: Figure) -> float:
    """The smallest text of ``fig``'s slide version on a 1080p projector, in px (the slide
    version at most 1180 × 380 CSS px, so that a deck never shows it below its 1× size)."""
    _, shown = retina_palette_png(fig)
    slide = shown["slide"]
    assert slide["width"] <= SLIDE_BOX[0] and slide["height"] <= SLIDE_BOX[1]
    fit = min(SLIDE_BOX[0] / slide["width"], SLIDE_BOX[1] / slide["height"])
    return slide["text_px"] * fit * 1.5


def overlaps(fig: Figure) -> int:
    """Pairs of overlapping texts of ``fig`` (drawn first)."""
    fig.draw_without_rendering()
    return text_overlaps(fig)


def test_meshgrid_figure_has_a_slide_layout_legible_on_a_projector():
    fig = meshgrid_order_figure((3, 4))  # chapter 7's call
    assert slide_text_at_1080p(fig) >= 24.0
    slide = fig.slide_version()
    for shown, page in zip(images(slide), images(fig)):  # the same shading
        np.testing.assert_array_equal(shown, page)
    page_labels = [c.labels for c in label_collections(fig)]
    assert [c.labels for c in label_collections(slide)] == page_labels
    texts = [t.get_text() for ax in slide.axes for t in ax.texts]
    assert all(t.get_text() in texts for ax in fig.axes for t in ax.texts[1:])  # verdicts
    assert "red line: n = 0, 1, 2, …" in texts[0]  # the key, beside the panels
    assert overlaps(slide) <= overlaps(fig)
    assert_inside_figure(slide)


def test_meshgrid_figure_refuses_a_slide_flag_that_is_not_a_bool():
    with pytest.raises(TypeError, match="slide must be a bool"):
        meshgrid_order_figure((3, 4), slide=None)
