"""Tests for book.figures.window_3d: the figures show the frame offsets and indices they claim."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PathCollection
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from book.figures._base import SLIDE_BOX, retina_palette_png, text_overlaps
from book.figures.window_3d import frame_offset_figure, window_3d_index_figure


def index_by_loops(query_shape, key_shape, key_step):
    """Swin-style index from the coordinates, one pair at a time (query minus key, radix 2Q−1)."""
    qs = list(itertools.product(*(range(s) for s in query_shape)))
    ks = [
        tuple(c * s for c, s in zip(k, key_step))
        for k in itertools.product(*(range(s) for s in key_shape))
    ]
    out = np.zeros((len(qs), len(ks)), dtype=np.int64)
    for i, q in enumerate(qs):
        for j, k in enumerate(ks):
            value = 0
            for a, size in enumerate(query_shape):
                value = value * (2 * size - 1) + (q[a] - k[a] + size - 1)
            out[i, j] = value
    return out


def signed(d: int) -> str:
    return f"{d:+d}".replace("-", "−") if d else "0"


def labels_of(ax) -> list[str]:
    return [
        label
        for c in ax.collections
        if isinstance(c, PathCollection) and hasattr(c, "labels")
        for label in c.labels
    ]


def labels_inside_canvas(fig) -> None:
    """Every glyph-outline label of an inch canvas (data units = inches) lies on the figure."""
    (ax,) = fig.axes
    width, height = fig.get_size_inches()
    for c in ax.collections:
        if not hasattr(c, "labels"):
            continue
        for path, (x, y), label in zip(c.get_paths(), c.get_offsets(), c.labels):
            v = path.vertices / 72  # points → inches, y up
            assert 0 <= x + v[:, 0].min() and x + v[:, 0].max() <= width, label
            assert 0 <= y - v[:, 1].max() and y - v[:, 1].min() <= height, label


def texts_inside_figure(fig) -> None:
    renderer = FigureCanvasAgg(fig).get_renderer()
    box = fig.bbox
    for ax in fig.axes:
        for t in [*ax.texts, ax.title, *fig.texts]:
            if not t.get_visible() or not t.get_text():
                continue
            extent = t.get_window_extent(renderer)
            assert box.x0 - 1 <= extent.x0 and extent.x1 <= box.x1 + 1, t.get_text()
            assert box.y0 - 1 <= extent.y0 and extent.y1 <= box.y1 + 1, t.get_text()


@pytest.mark.parametrize(
    "query_shape,key_shape,key_step,chosen",
    [
        ((7, 2, 2), (4, 2, 2), (2, 1, 1), 3),
        ((3, 2, 2), None, None, 1),
        ((6, 2, 3), (3, 2, 3), (2, 1, 1), 5),
    ],
)
def test_index_figure_draws_the_index_in_frame_blocks(query_shape, key_shape, key_step, chosen):
    fig = window_3d_index_figure(query_shape, key_shape, key_step=key_step, highlight=chosen)
    assert isinstance(fig, Figure) and len(fig.axes) == 4
    timeline, bars, matrix, _colorbar = fig.axes
    key_shape = key_shape or query_shape
    step = key_step or (1,) * len(query_shape)
    d1, d2 = query_shape[0], key_shape[0]
    np.testing.assert_array_equal(
        np.asarray(matrix.images[0].get_array()), index_by_loops(query_shape, key_shape, step)
    )
    # one label per block: the frame offset t − s·j, row by row
    block_labels = [t.get_text() for t in matrix.texts if not t.get_text().startswith("t=")]
    expected = [t - step[0] * j for t in range(d1) for j in range(d2)]
    assert block_labels == [signed(d) for d in expected]
    (outline,) = [p for p in matrix.patches if isinstance(p, Rectangle)]
    per_frame = int(np.prod(query_shape[1:]))
    assert outline.get_y() == chosen * per_frame - 0.5 and outline.get_height() == per_frame
    # timeline: query frames at y = 1 and t = 0…D1−1, key frames at y = 0 and t = s·j
    queries, keys = timeline.collections[:2]
    np.testing.assert_array_equal(queries.get_offsets(), [[t, 1] for t in range(d1)])
    np.testing.assert_array_equal(keys.get_offsets(), [[step[0] * j, 0] for j in range(d2)])
    # bars: pair counts per Δt; black exactly where the chosen frame has a key
    heights = [p.get_height() for p in bars.patches]
    counts = Counter(expected)
    assert heights == [counts.get(d, 0) for d in range(-(d1 - 1), d1)]
    black = [
        round(p.get_x() + p.get_width() / 2)
        for p in bars.patches
        if np.allclose(p.get_facecolor()[:3], (0, 0, 0))
    ]
    assert black == sorted(chosen - step[0] * j for j in range(d2))
    # the title names what a block is: a pair of frames (there are more blocks than offsets)
    (title,) = [t.get_text() for t in fig.texts]
    assert title == (
        f"index I: {matrix.images[0].get_array().shape[0]} × "
        f"{matrix.images[0].get_array().shape[1]}, one block per\n"
        "(query frame, key frame) pair, labelled Δt"
    )
    assert len(block_labels) == d1 * d2 > len(set(expected))
    texts_inside_figure(fig)


def test_index_figure_leaves_space_between_key_frames_and_their_offsets():
    fig = window_3d_index_figure((7, 2, 2), (4, 2, 2), key_step=(2, 1, 1), highlight=3)
    timeline = fig.axes[0]
    renderer = FigureCanvasAgg(fig).get_renderer()
    keys = timeline.collections[1]
    half_side = np.sqrt(keys.get_sizes()[0]) / 2 * fig.dpi / 72  # pixels
    box_bottom = timeline.transData.transform((0, 0))[1] - half_side
    offsets = [t for t in timeline.texts if t.get_text() in {"+3", "+1", "−1", "−3"}]
    assert len(offsets) == 4
    for t in offsets:
        assert t.get_window_extent(renderer).y1 < box_bottom - 3  # at least 3 px apart
    keys_label = [t.get_text() for t in timeline.texts if t.get_text().startswith("key")]
    assert keys_label == ["key frames m"]


def test_index_figure_marks_unused_offsets_and_works_without_a_chosen_frame():
    fig = window_3d_index_figure((6, 2, 2), (3, 2, 2), key_step=(2, 1, 1), highlight=None)
    bars = fig.axes[1]
    assert "never used" in bars.get_title()
    assert [t.get_text() for t in bars.texts] == ["×"]  # Δt = −5
    assert not [p for p in fig.axes[2].patches if isinstance(p, Rectangle)]
    assert "never used" not in window_3d_index_figure().axes[1].get_title()


@pytest.mark.parametrize(
    "d1,d2,step,window,query,frame",
    [
        (7, 4, 2, (2, 2), "middle", 3),
        (7, 4, 2, (3, 3), "last", 6),
        (6, 3, 2, (2, 3), "first", 0),
        (4, 4, 1, (2, 2), 2, 2),
    ],
)
def test_explorer_figure_shows_frame_offsets_and_one_query_row(d1, d2, step, window, query, frame):
    fig = frame_offset_figure(d1, d2, step, window, highlight=query)
    (ax,) = fig.axes
    grid, *blocks = ax.images
    offsets = np.array([[t - step * j for j in range(d2)] for t in range(d1)])
    np.testing.assert_array_equal(np.asarray(grid.get_array()), offsets)
    assert grid.get_cmap().name == "PuOr"  # red stays free for warnings
    wh, ww = window
    index = index_by_loops((d1, wh, ww), (d2, wh, ww), (step, 1, 1))
    token = frame * wh * ww + ((wh - 1) // 2) * ww + (ww - 1) // 2
    assert len(blocks) == d2
    for j, block in enumerate(blocks):
        np.testing.assert_array_equal(
            np.asarray(block.get_array()),
            index[token, j * wh * ww : (j + 1) * wh * ww].reshape(wh, ww),
        )
        # each block is the same 2-D pattern, shifted by the frame offset's rows
        rows_per = (2 * wh - 1) * (2 * ww - 1)
        shift = (offsets[frame, j] - offsets[frame, 0]) * rows_per
        np.testing.assert_array_equal(
            np.asarray(block.get_array()) - shift, np.asarray(blocks[0].get_array())
        )
    (outline,) = [p for p in ax.patches if isinstance(p, Rectangle)]
    cell = outline.get_height()
    assert outline.get_width() == pytest.approx(d2 * cell)
    assert outline.get_y() == pytest.approx(1.35 + frame * cell)
    labels = labels_of(ax)
    assert [f"t={t}" for t in range(d1)] == [
        s for s in labels if s.startswith("t=") and "\n" not in s
    ]
    headers = [f"t={step * j}\nΔt={signed(frame - step * j)}" for j in range(d2)]
    assert [s for s in labels if "\n" in s and s.startswith("t=")] == headers
    texts = labels_of(ax)
    centre = f"({(wh - 1) // 2}, {(ww - 1) // 2})"
    assert f"table rows read by token {centre} of query frame {frame}" in texts
    unused = sorted(set(range(-(d1 - 1), d1)) - set(offsets.ravel().tolist()))
    assert any("never used" in t for t in texts) == bool(unused)
    labels_inside_canvas(fig)


RED = (0.839, 0.153, 0.157)


def red_labels(fig) -> list[str]:
    return [
        label
        for c in fig.axes[0].collections
        if hasattr(c, "labels")
        for label, colour in zip(c.labels, np.broadcast_to(c.get_facecolor(), (len(c.labels), 4)))
        if np.allclose(colour[:3], RED, atol=0.01)
    ]


def test_explorer_figure_reports_rstts_stride_in_red_only_for_a_wrong_count():
    def rstt_line(fig):
        (line,) = [s for s in labels_of(fig.axes[0]) if s.startswith("RSTT")]
        return line

    same = frame_offset_figure(7, 4, 2)
    assert rstt_line(same) == "RSTT's arange(0, 7, 2): the same frames"
    wrong = frame_offset_figure(6, 4, 1)
    assert rstt_line(wrong) == "RSTT's arange(0, 6, 1): 6 key frames, not 4: the forward pass fails"
    short = frame_offset_figure(4, 2, 3)
    assert rstt_line(short) == "RSTT's arange(0, 4, 2): t = 0, 2: right count, but short of t = 3"
    # red is for warnings only: the wrong count, and offsets that no pair uses
    assert red_labels(same) == []
    assert red_labels(short) == []  # keys at 0 and 3 use every offset; RSTT's 0, 2 would run
    assert red_labels(wrong) == [rstt_line(wrong), "never used: Δt = −5, −4 (18 of 99 rows)"]
    for d1, d2 in [(7, 2), (6, 2), (4, 2)]:
        step = (d1 - 1) // (d2 - 1)
        red = red_labels(frame_offset_figure(d1, d2, step))
        assert not [s for s in red if s.startswith("RSTT")]
    for d1, d2 in [(7, 3), (4, 3), (6, 4)]:
        step = (d1 - 1) // (d2 - 1)
        assert [s for s in red_labels(frame_offset_figure(d1, d2, step)) if s.startswith("RSTT")]


def test_explorer_figure_bad_arguments():
    with pytest.raises(ValueError, match=r"key coordinates on axis 0 reach 6"):
        frame_offset_figure(6, 4, 2)
    with pytest.raises(ValueError, match=r"highlight must be < n = 7"):
        frame_offset_figure(7, 4, 2, highlight=7)
    with pytest.raises(ValueError, match=r"window\[1\] must be positive"):
        frame_offset_figure(7, 4, 2, (2, 0))


@pytest.mark.parametrize(
    "call,error,match",
    [
        (lambda: window_3d_index_figure(3), TypeError, "query_shape must be a sequence"),
        (lambda: window_3d_index_figure(()), ValueError, "query_shape must hold at least one"),
        (lambda: window_3d_index_figure((3, 0, 2)), ValueError, r"query_shape\[1\] must be"),
        (lambda: window_3d_index_figure((3, 2, 2), (True, 2, 2)), TypeError, r"key_shape\[0\]"),
        (
            lambda: window_3d_index_figure((3, 2, 2), None, key_step=(1.5, 1, 1)),
            TypeError,
            r"key_step\[0\] must be an integer",
        ),
        (
            lambda: window_3d_index_figure((3, 2, 2), None, key_step=None, highlight="mid"),
            ValueError,
            "highlight must be one of",
        ),
        (lambda: frame_offset_figure(7, 4, 2, ()), ValueError, "window must have two entries"),
        (lambda: frame_offset_figure(7, 4, 2, 2), TypeError, "window must be a pair"),
        (lambda: frame_offset_figure(7, 4, 2, (2, -2)), ValueError, r"window\[1\] must be"),
        (lambda: frame_offset_figure(7, 4, 2, highlight="mid"), ValueError, "highlight must be"),
        (lambda: frame_offset_figure(7, 4, True), TypeError, "key_step must be an integer"),
        (lambda: frame_offset_figure(0, 4, 2), ValueError, "query_frames must be positive"),
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


@pytest.mark.parametrize(
    "query_shape,key_shape,key_step,chosen",
    [
        ((3, 2, 2), None, None, 1),  # chapter 8's self-attention call
        ((7, 2, 2), (4, 2, 2), (2, 1, 1), 3),  # and its cross-attention call
    ],
)
def test_index_figure_has_a_slide_layout_legible_on_a_projector(
    query_shape, key_shape, key_step, chosen
):
    fig = window_3d_index_figure(query_shape, key_shape, key_step=key_step, highlight=chosen)
    assert slide_text_at_1080p(fig) >= 24.0
    slide = fig.slide_version()
    assert len(slide.axes) == 4
    (timeline, bars, matrix, _), page = slide.axes, fig.axes
    np.testing.assert_array_equal(matrix.images[0].get_array(), page[2].images[0].get_array())
    assert [t.get_text() for t in matrix.texts] == [t.get_text() for t in page[2].texts]
    assert [p.get_height() for p in bars.patches] == [p.get_height() for p in page[1].patches]
    assert [p.get_facecolor() for p in bars.patches] == [p.get_facecolor() for p in page[1].patches]
    for shown, drawn in zip(timeline.collections, page[0].collections):
        np.testing.assert_array_equal(shown.get_offsets(), drawn.get_offsets())
    assert overlaps(slide) <= overlaps(fig)
    texts_inside_figure(slide)


@pytest.mark.parametrize(
    "query_shape,key_shape,key_step,chosen",
    [((6, 2, 3), (3, 2, 3), (2, 1, 1), 5), ((6, 2, 2), (3, 2, 2), (2, 1, 1), None)],
)
def test_index_figure_slide_layout_keeps_long_titles_apart(
    query_shape, key_shape, key_step, chosen
):
    # four lines over the bars ("×: never used"), a narrow matrix: nothing may overlap
    slide = window_3d_index_figure(
        query_shape, key_shape, key_step=key_step, highlight=chosen, slide=True
    )
    assert overlaps(slide) == 0
    texts_inside_figure(slide)


def test_index_figure_refuses_a_slide_flag_that_is_not_a_bool():
    with pytest.raises(TypeError, match="slide must be a bool"):
        window_3d_index_figure(slide="true")
