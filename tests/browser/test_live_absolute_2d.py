"""Chapter 5's live explorer: what it draws is posenc's DETR sine encoding, and its controls behave.

The checks every live explorer gets (the canvas in place of the PNG, values no frame had, text
size, redraw time, the fallbacks) are in ``test_live_explorers.py``; these read back what the
absolute_2d drawer (``book/ext/twin_static/drawers/absolute_2d.js``) computed and drew, and try
its number boxes, sliders and the channel choice the way a reader would, refused entries
included.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from matplotlib import colormaps
from matplotlib.colors import to_rgb

from book.demos.absolute_2d import position_similarity_map
from book.explorers.absolute_2d import absolute_2d_explorer
from book.figures._base import UNDEFINED
from book.figures.absolute_2d import absolute_2d_explorer_figure
from posenc.absolute_2d import detr_sine_encoding
from posenc.sinusoidal import sinusoidal_encoding

from .live import PIXELS, Watched, enter, live_page, settle, state

pytestmark = pytest.mark.xdist_group("test_live_absolute_2d")  # one page, on one worker

CANVAS = 24
# values no pre-rendered frame had: heights were {24, 12}, widths {24, 16}, dims {16, 64},
# bases {10, 10000}; the slowest pair had no frame either
NEW_VALUES = {
    "height": 17,
    "width": 9,
    "dim": 32,
    "base": 500,
    "normalize": True,
    "channel": "slowest",
}
TITLE = "DETR sine encoding of a padded image: two channels and the similarity to the centre"
DATA = "document.querySelector('canvas.posenc-explorer-canvas').posencData"


@pytest.fixture(scope="module")
def page_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    folder: Path = tmp_path_factory.mktemp("live_absolute_2d")
    return live_page(folder, absolute_2d_explorer().static_html()).as_uri()


@pytest.fixture(scope="module")
def laptop(browser: Any, page_url: str) -> Iterator[Watched]:
    watched = Watched(browser, page_url, viewport={"width": 1366, "height": 768})
    try:
        yield watched
    finally:
        watched.close()


def _detr_positions(size: int, normalize: bool) -> torch.Tensor:
    """DETR's positions along one axis of a valid run of ``size`` pixels, in float64: the
    cumulative count of valid pixels, with ``normalize`` over the last count plus 1e-6, times
    2π (posenc.absolute_2d.detr_sine_encoding's own steps)."""
    count = torch.ones(size, dtype=torch.float64).cumsum(0)  # [size], 1 .. size
    if normalize:
        count = count / (count[-1:] + 1e-6) * (2 * math.pi)
    return count


def _reference(
    height: int, width: int, dim: int, base: float, normalize: bool
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """posenc's float64 numbers for the valid image: the y half [h, F], the x half [w, F], and
    the cosine similarity of the centre to every valid pixel [h, w]."""
    feats = dim // 2
    kw = {"base": base, "dtype": torch.float64}
    rows = sinusoidal_encoding(_detr_positions(height, normalize), feats, **kw)  # [h, F]
    cols = sinusoidal_encoding(_detr_positions(width, normalize), feats, **kw)  # [w, F]
    table = torch.cat(
        (
            rows[:, None, :].expand(height, width, feats),
            cols[None, :, :].expand(height, width, feats),
        ),
        dim=-1,
    ).reshape(height * width, dim)  # [h*w, d], y first, as DETR
    sim = position_similarity_map(table, height, width, height // 2, width // 2)  # [h, w]
    return rows, cols, sim


def _read(watched: Watched, expression: str, picks: list[Any]) -> list[Any]:
    return watched.page.evaluate(
        f"(picks) => {{ const d = {DATA}; return picks.map({expression}); }}", picks
    )


def test_every_control_takes_a_value_no_frame_had_and_the_drawing_is_posencs(
    laptop: Watched,
) -> None:
    for name, value in NEW_VALUES.items():
        before = laptop.page.evaluate(PIXELS)
        enter(laptop, name, value)
        s = state(laptop)
        assert s["values"][name] == value, name
        assert s["message"] == "", s["message"]
        assert laptop.page.evaluate(PIXELS) != before, f"{name} = {value} changed nothing"
    s = state(laptop)
    assert s["label"] == (
        f"{TITLE} (height 17, width 9, dim 32, base 500, normalize True, channel slowest pair)"
    )
    assert s["sliders"]["height"] == "17" and s["sliders"]["width"] == "9"
    assert s["sliders"]["dim"] == "32"
    assert float(s["sliders"]["base"]) == pytest.approx(np.log10(500), abs=0.01)

    h, w, dim, base, feats = 17, 9, 32, 500.0, 16
    pair = feats // 2 - 1  # the slowest pair
    meta = laptop.page.evaluate(
        f"() => {{ const d = {DATA}; return [d.pair, d.channels, d.centre, d.titles, d.suptitle]; }}"
    )
    assert meta[:3] == [pair, [2 * pair, feats + 2 * pair], [h // 2, w // 2]]
    # the same words as the matplotlib figure
    fig = absolute_2d_explorer_figure(h, w, dim, base, True, "slowest", canvas=CANVAS)
    assert meta[3] == [t.get_text() for t in fig.axes[0].texts[:3]]
    assert meta[4] == fig.get_suptitle()

    rows, cols, sim = _reference(h, w, dim, base, normalize=True)
    picks = [(0, 0), (0, 1), (3, 7), (8, 14), (16, 15), (16, 30)]  # (pixel, channel)
    got_rows = _read(laptop, "([r, j]) => d.rows[r][j % 16]", picks)
    assert got_rows == pytest.approx(
        [float(rows[r, j % 16]) for r, j in picks], rel=1e-9, abs=1e-12
    )
    got_cols = _read(laptop, "([c, j]) => d.cols[c % 9][j % 16]", picks)
    assert got_cols == pytest.approx(
        [float(cols[c % 9, j % 16]) for c, j in picks], rel=1e-9, abs=1e-12
    )
    cells = [(0, 0), (8, 4), (3, 7), (16, 8), (11, 2)]
    got_sim = _read(laptop, "([r, c]) => d.sim[r * 9 + c]", cells)
    assert got_sim == pytest.approx([float(sim[r, c]) for r, c in cells], rel=1e-9, abs=1e-12)
    got_maps = _read(laptop, "([r, c]) => [d.yMap[r * 9 + c], d.xMap[r * 9 + c]]", cells)
    want_maps = [[float(rows[r, 2 * pair]), float(cols[c, 2 * pair])] for r, c in cells]
    assert got_maps == [pytest.approx(m, rel=1e-9, abs=1e-12) for m in want_maps]

    # and it is DETR's encoding of the padded batch (float32 there, y channels first)
    mask = torch.ones(1, CANVAS, CANVAS, dtype=torch.bool)
    mask[0, :h, :w] = False
    pos = detr_sine_encoding(mask, feats, base, normalize=True)[0]  # [2F, S, S]
    detr = [[float(pos[2 * pair, r, c]), float(pos[feats + 2 * pair, r, c])] for r, c in cells]
    assert got_maps == [pytest.approx(m, abs=2e-6) for m in detr]
    assert laptop.errors == []


def test_without_normalize_a_pixel_keeps_its_code_as_the_image_shrinks(laptop: Watched) -> None:
    """Positions count valid pixels from 1: padding changes no valid pixel's channels."""
    start = {"width": 9, "normalize": False, "dim": 64, "base": 10000, "channel": "middle"}
    for name, value in start.items():
        enter(laptop, name, value)
    seen = []
    for height in (24, 13):
        enter(laptop, "height", height)
        seen.append(_read(laptop, "([r, c]) => d.yMap[r * 9 + c]", [(0, 0), (5, 3), (12, 8)]))
    assert seen[0] == seen[1]
    rows, _, _ = _reference(13, 9, 64, 10000.0, normalize=False)
    pair = 32 // 4  # the middle pair of F = 32
    assert seen[1] == pytest.approx([float(rows[r, 2 * pair]) for r in (0, 5, 12)], rel=1e-9)
    assert laptop.errors == []


def test_every_slider_moves_its_value_and_the_number_box(laptop: Watched) -> None:
    for name, value in {"height": 24, "width": 24, "dim": 16, "base": 10000}.items():
        enter(laptop, name, value)
    moves = {
        "height": ("ArrowLeft", 23),
        "width": ("ArrowLeft", 23),
        "dim": ("ArrowRight", 20),
    }
    for name, (key, value) in moves.items():
        before = laptop.page.evaluate(PIXELS)
        slider = laptop.page.locator(f'[data-role="slider"][data-name="{name}"]')
        slider.focus()
        slider.press(key)
        settle(laptop)
        s = state(laptop)
        assert s["values"][name] == value and s["entries"][name] == str(value), name
        assert laptop.page.evaluate(PIXELS) != before, name
    # the base slider runs over log10(base): 10^1.5 is shown as 31.6 (3 significant digits)
    enter(laptop, "channel", "slowest")  # the fastest pair does not depend on the base
    before = laptop.page.evaluate(PIXELS)
    laptop.page.locator('[data-role="slider"][data-name="base"]').evaluate(
        "el => { el.value = '1.5'; el.dispatchEvent(new Event('input')); }"
    )
    settle(laptop)
    s = state(laptop)
    assert s["values"]["base"] == 31.6 and s["entries"]["base"] == "31.6"
    assert laptop.page.evaluate(PIXELS) != before
    assert laptop.errors == []


def test_a_refused_entry_is_named_and_replaced_by_the_nearest_allowed_value(
    laptop: Watched,
) -> None:
    enter(laptop, "dim", 30)
    s = state(laptop)
    assert s["values"]["dim"] == 32 and s["entries"]["dim"] == "32"
    assert "dim: 30 is not allowed (a multiple of 4 from 4 to 256); drawn with 32." in s["message"]
    enter(laptop, "height", 30)
    s = state(laptop)
    assert s["values"]["height"] == 24
    assert "height: 30 is not allowed (an integer from 1 to 24); drawn with 24." in s["message"]
    enter(laptop, "width", 0)
    assert state(laptop)["values"]["width"] == 1
    base = state(laptop)["values"]["base"]
    enter(laptop, "base", 1)
    s = state(laptop)
    assert (
        s["values"]["base"] == base and "base: 1 is not allowed (a number above 1)" in s["message"]
    )
    enter(laptop, "base", 1.5)  # any base above 1, beyond the slider's end
    s = state(laptop)
    assert s["values"]["base"] == 1.5 and "base" not in s["message"]
    assert laptop.errors == []


def test_the_maps_have_matplotlibs_colours_and_the_padding_is_grey(laptop: Watched) -> None:
    """A 12 × 16 image at d = 16, base 10, the fastest pair: each sampled cell is painted with
    the colour imshow gives its value (RdBu_r over −1 … 1 for the channels, viridis over
    −0.5 … 1 for the similarity), and a padded cell with the padding grey."""
    values = {"height": 12, "width": 16, "dim": 16, "base": 10, "normalize": False}
    for name, value in {**values, "channel": "fastest"}.items():
        enter(laptop, name, value)
    cells = [(0, 0), (2, 5), (4, 12), (10, 1), (9, 14), (20, 3), (5, 20)]
    got = laptop.page.evaluate(
        """(cells) => {
          const c = document.querySelector('canvas.posenc-explorer-canvas');
          const dpr = c.posencPlot.dpr, ctx = c.getContext('2d');
          return c.posencPlot.axes.slice(0, 3).map((ax) => cells.map(([r, col]) => {
            const x = ax.left + (col - ax.xlim[0]) / (ax.xlim[1] - ax.xlim[0]) * ax.width;
            const y = ax.top + ax.height - (r - ax.ylim[0]) / (ax.ylim[1] - ax.ylim[0]) * ax.height;
            return Array.from(ctx.getImageData(Math.round(x * dpr), Math.round(y * dpr), 1, 1).data.slice(0, 3));
          }));
        }""",
        cells,
    )
    rows, cols, sim = _reference(12, 16, 16, 10.0, normalize=False)
    grey = [round(255 * v) for v in to_rgb(UNDEFINED)]
    maps = [
        (lambda r, c: float(rows[r, 0]), colormaps["RdBu_r"], -1.0, 1.0),
        (lambda r, c: float(cols[c, 0]), colormaps["RdBu_r"], -1.0, 1.0),
        (lambda r, c: float(sim[r, c]), colormaps["viridis"], -0.5, 1.0),
    ]
    for (value, cmap, vmin, vmax), painted in zip(maps, got, strict=True):
        for (r, c), rgb in zip(cells, painted, strict=True):
            if r < 12 and c < 16:
                want = [int(v) for v in cmap((value(r, c) - vmin) / (vmax - vmin), bytes=True)[:3]]
            else:
                want = grey
            assert rgb == want, (r, c)
    assert laptop.errors == []


def test_the_canvas_stacks_the_similarity_below_on_a_phone(browser: Any, page_url: str) -> None:
    watched = Watched(browser, page_url, viewport={"width": 1366, "height": 900})
    try:
        wide = state(watched)["plot"]
        tops = [round(ax["top"]) for ax in wide["axes"][:3]]
        assert len(set(tops)) == 1, "three maps side by side"
        watched.page.set_viewport_size({"width": 390, "height": 900})
        watched.page.wait_for_timeout(200)
        settle(watched)
        narrow = state(watched)["plot"]
        assert narrow["width"] < wide["width"] and narrow["width"] <= 390
        y_map, x_map, similarity = narrow["axes"][:3]
        assert y_map["top"] == x_map["top"] and y_map["left"] < x_map["left"]
        assert similarity["top"] > y_map["top"] + y_map["height"], "the similarity below"
        assert narrow["height"] > narrow["width"]
        assert watched.errors == []
    finally:
        watched.close()
