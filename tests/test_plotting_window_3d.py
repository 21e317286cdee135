"""Tests for posenc.plotting.window_3d: the figures show the frame offsets and indices they claim."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PathCollection
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from posenc.plotting.window_3d import frame_offset_figure, window_3d_index_figure


def index_by_loops(query_shape, key_shape, key_step):
    """Swin-style index from the coordinates, one pair at a time (query minus key, radix 2Q−1)."""
    qs = list(itertools.product(*(range(s) for s in query_shape)))
    ks = [tuple(c * s for c, s in zip(k, key_step)) for k in itertools.product(*(range(s) for s in key_shape))]
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
    return [label for c in ax.collections if isinstance(c, PathCollection) and hasattr(c, "labels")
            for label in c.labels]


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
    [((7, 2, 2), (4, 2, 2), (2, 1, 1), 3), ((3, 2, 2), None, None, 1), ((6, 2, 3), (3, 2, 3), (2, 1, 1), 5)],
)
def test_index_figure_draws_the_index_in_frame_blocks(query_shape, key_shape, key_step, chosen):
    fig = window_3d_index_figure(query_shape, key_shape, key_step=key_step, query_frame=chosen)
    assert isinstance(fig, Figure) and len(fig.axes) == 4
    timeline, bars, matrix, colorbar = fig.axes
    key_shape = key_shape or query_shape
    step = key_step or (1,) * len(query_shape)
    d1, d2 = query_shape[0], key_shape[0]
    np.testing.assert_array_equal(np.asarray(matrix.images[0].get_array()),
                                  index_by_loops(query_shape, key_shape, step))
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
    # bars: pair counts per Δt; red exactly where the chosen frame has a key
    heights = [p.get_height() for p in bars.patches]
    counts = Counter(expected)
    assert heights == [counts.get(d, 0) for d in range(-(d1 - 1), d1)]
    red = [round(p.get_x() + p.get_width() / 2) for p in bars.patches
           if np.allclose(p.get_facecolor()[:3], (0.839, 0.153, 0.157), atol=0.01)]
    assert red == sorted(chosen - step[0] * j for j in range(d2))
    texts_inside_figure(fig)


def test_index_figure_marks_unused_offsets_and_works_without_a_chosen_frame():
    fig = window_3d_index_figure((6, 2, 2), (3, 2, 2), key_step=(2, 1, 1), query_frame=None)
    bars = fig.axes[1]
    assert "never used" in bars.get_title()
    assert [t.get_text() for t in bars.texts] == ["×"]  # Δt = −5
    assert not [p for p in fig.axes[2].patches if isinstance(p, Rectangle)]
    assert "never used" not in window_3d_index_figure().axes[1].get_title()


@pytest.mark.parametrize(
    "d1,d2,step,window,query,frame",
    [(7, 4, 2, (2, 2), "middle", 3), (7, 4, 2, (3, 3), "last", 6), (6, 3, 2, (2, 3), "first", 0),
     (4, 4, 1, (2, 2), 2, 2)],
)
def test_explorer_figure_shows_frame_offsets_and_one_query_row(d1, d2, step, window, query, frame):
    fig = frame_offset_figure(d1, d2, step, window, query_frame=query)
    (ax,) = fig.axes
    grid, *blocks = ax.images
    offsets = np.array([[t - step * j for j in range(d2)] for t in range(d1)])
    np.testing.assert_array_equal(np.asarray(grid.get_array()), offsets)
    wh, ww = window
    index = index_by_loops((d1, wh, ww), (d2, wh, ww), (step, 1, 1))
    token = frame * wh * ww + ((wh - 1) // 2) * ww + (ww - 1) // 2
    assert len(blocks) == d2
    for j, block in enumerate(blocks):
        np.testing.assert_array_equal(np.asarray(block.get_array()),
                                      index[token, j * wh * ww:(j + 1) * wh * ww].reshape(wh, ww))
        # each block is the same 2-D pattern, shifted by the frame offset's rows
        rows_per = (2 * wh - 1) * (2 * ww - 1)
        shift = (offsets[frame, j] - offsets[frame, 0]) * rows_per
        np.testing.assert_array_equal(np.asarray(block.get_array()) - shift,
                                      np.asarray(blocks[0].get_array()))
    (outline,) = [p for p in ax.patches if isinstance(p, Rectangle)]
    cell = outline.get_height()
    assert outline.get_width() == pytest.approx(d2 * cell)
    assert outline.get_y() == pytest.approx(0.95 + frame * cell)
    labels = labels_of(ax)
    assert [f"t={t}" for t in range(d1)] == [s for s in labels if s.startswith("t=") and "\n" not in s]
    headers = [f"t={step * j}\nΔt={signed(frame - step * j)}" for j in range(d2)]
    assert [s for s in labels if "\n" in s and s.startswith("t=")] == headers
    texts = labels_of(ax)
    assert any(f"query ({(wh - 1) // 2}, {(ww - 1) // 2}) of frame {frame}" in t for t in texts)
    unused = sorted(set(range(-(d1 - 1), d1)) - set(offsets.ravel().tolist()))
    assert any("never used" in t for t in texts) == bool(unused)
    labels_inside_canvas(fig)


def test_explorer_figure_reports_rstts_stride():
    def rstt_line(fig):
        (line,) = [s for s in labels_of(fig.axes[0]) if s.startswith("RSTT")]
        return line

    assert rstt_line(frame_offset_figure(7, 4, 2)) == "RSTT's arange(0, 7, 2): the same frames"
    assert rstt_line(frame_offset_figure(6, 4, 1)) == "RSTT's arange(0, 6, 1): 6 frames!"
    assert rstt_line(frame_offset_figure(4, 2, 3)) == "RSTT's arange(0, 4, 2): t = 0, 2"


def test_explorer_figure_bad_arguments():
    with pytest.raises(ValueError, match=r"key coordinates on axis 0 reach 6"):
        frame_offset_figure(6, 4, 2)
    with pytest.raises(ValueError, match=r"query must be < n = 7"):
        frame_offset_figure(7, 4, 2, query_frame=7)
    with pytest.raises(ValueError, match=r"window\[1\] must be positive"):
        frame_offset_figure(7, 4, 2, (2, 0))
