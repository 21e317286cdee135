"""Chapter 12's live explorer of RoPE on grids: what it draws is posenc's, and its controls behave.

The checks every live explorer gets (the canvas in place of the PNG, values no frame had, text
size, redraw time, the fallbacks) are in ``test_live_explorers.py``; these read back what the
rotary_grid drawer (``book/ext/twin_static/drawers/rotary_grid.js``) computed and drew, compare
it with posenc and with the matplotlib figure, and try its number boxes and sliders the way a
reader would, refused entries included.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import torch
from matplotlib import colormaps

from book.explorers.rotary_nd import rotary_grid_explorer
from book.figures.rotary_nd import rotary_grid_scores
from posenc.rotary_nd import rotary_pair_axes
from posenc.sinusoidal import sinusoidal_frequencies

from .live import (
    Watched,
    drawn,
    enter,
    enter_new_values,
    enter_values,
    live_fixtures,
    on_a_phone,
    opened,
    pixels,
    press_sliders,
    refused,
    slide,
    state,
)

pytestmark = pytest.mark.xdist_group("test_live_rotary_grid")  # one page, on one worker

TITLE = "RoPE on a grid: which pairs turn with which axis, and one query's scores"
# values no pre-rendered frame had: the query was one of (8, 8), (3, 12), (14, 2), the grid
# 16 × 16 and the base 10⁴
NEW_VALUES = {"pairs": "M-RoPE 8/4/20", "row": 5, "column": 11, "side": 24, "base": 500}

folder, page_url, laptop = live_fixtures("rotary_grid")


def figure_of(pairs: str, row: int, column: int, side: int, base: float) -> Any:
    return rotary_grid_explorer().figure(pairs=pairs, row=row, column=column, side=side, base=base)


def test_every_number_box_takes_a_value_no_frame_had_and_the_drawing_follows(
    laptop: Watched,
) -> None:
    s = enter_new_values(laptop, NEW_VALUES)
    assert s["label"] == f"{TITLE} (pairs M-RoPE 8/4/20, row 5, column 11, side 24, base 500)"
    assert s["sliders"]["row"] == "5" and s["sliders"]["side"] == "24"
    assert float(s["sliders"]["base"]) == pytest.approx(math.log10(500), abs=0.01)
    # what was drawn is posenc's: the pairs' axes and wavelengths, the scores over the grid
    d = drawn(laptop)
    assert d["layout"] == "mrope" and d["sections"] == [8, 4, 20] and d["query"] == [5, 11]
    assert d["axes"] == rotary_pair_axes(64, 3, sections=(8, 4, 20)).tolist()
    want = (2 * math.pi / sinusoidal_frequencies(64, base=500.0)).tolist()
    assert d["wavelengths"] == pytest.approx(want, rel=1e-12)
    scores = rotary_grid_scores("mrope", (5, 11), side=24, dim=64, sections=(8, 4, 20), base=500.0)
    assert len(d["scores"]) == 24 * 24
    np.testing.assert_allclose(d["scores"], scores.flatten().numpy(), rtol=1e-9, atol=1e-12)
    assert d["lowest"] == pytest.approx(float(scores.min()), rel=1e-9)
    assert laptop.errors == []


def test_axial_rope_is_posencs_and_the_titles_and_log_axis_are_the_figures(
    laptop: Watched,
) -> None:
    cases = [
        {"pairs": "axial 2-D (16 + 16)", "row": 2, "column": 13, "side": 20, "base": 300},
        {"pairs": "M-RoPE 0/16/16 (no time)", "row": 40, "column": 1, "side": 48, "base": 50000},
        {"pairs": "M-RoPE 8/12/12 (Qwen2-VL's shares)", "row": 0, "column": 0, "side": 2,
         "base": 1000000},  # a flat map: the colours still get a range, 0.999 to 1
        {"pairs": "axial 2-D (16 + 16)", "row": 1, "column": 2, "side": 3, "base": 10},
    ]  # fmt: skip
    for values in cases:
        enter_values(laptop, values)
        d = drawn(laptop)
        layout = "axial" if values["pairs"].startswith("axial") else "mrope"
        sections = None if layout == "axial" else tuple(d["sections"])
        query = (values["row"], values["column"])
        scores = rotary_grid_scores(
            layout, query, side=values["side"], dim=64, sections=sections,
            base=float(values["base"]),
        )  # fmt: skip
        np.testing.assert_allclose(d["scores"], scores.flatten().numpy(), rtol=1e-9, atol=1e-12)
        if layout == "axial":
            omega = sinusoidal_frequencies(32, base=float(values["base"]))
            want = (2 * math.pi / torch.cat((omega, omega))).tolist()
            assert d["wavelengths"] == pytest.approx(want, rel=1e-12)
            assert d["axes"] == [1] * 16 + [2] * 16
        fig = figure_of(**{**values, "base": float(values["base"])})
        pairs_ax, grid_ax, _ = fig.axes
        assert d["titles"] == [pairs_ax.get_title(), grid_ax.get_title()], values
        assert d["low"] == pytest.approx(grid_ax.images[0].norm.vmin, rel=1e-9)
        # the log axis: matplotlib's view (autoscaled, with the dashed side) and decades
        low, high = pairs_ax.get_ylim()
        assert d["yview"] == pytest.approx([low, high], rel=1e-9), values
        shown = [t for t in pairs_ax.get_yticks() if low <= t <= high]
        assert [t for t in d["yticks"] if low <= t <= high] == pytest.approx(shown, rel=1e-9)
    assert laptop.errors == []


def test_a_query_beyond_the_grid_is_drawn_at_its_nearest_place(laptop: Watched) -> None:
    enter_values(
        laptop, {"pairs": "M-RoPE 8/4/20", "row": 30, "column": 3, "side": 32, "base": 10000}
    )
    assert drawn(laptop)["query"] == [30, 3]
    enter(laptop, "side", 10)
    s = state(laptop)
    assert s["values"]["row"] == 30 and s["entries"]["row"] == "30" and s["message"] == ""
    d = drawn(laptop)
    assert d["query"] == [9, 3] and d["titles"][1].startswith("query (9, 3): scores")
    scores = rotary_grid_scores("mrope", (9, 3), side=10, dim=64, sections=(8, 4, 20))
    np.testing.assert_allclose(d["scores"], scores.flatten().numpy(), rtol=1e-9, atol=1e-12)
    fig = figure_of("M-RoPE 8/4/20", 30, 3, 10, 10000.0)  # the kernel draws the same place
    assert d["titles"][1] == fig.axes[1].get_title()
    assert laptop.errors == []


def test_the_heatmap_has_matplotlibs_colours(laptop: Watched) -> None:
    """Cell (r, c) of the scores is painted with the colour imshow gives it: viridis over
    [lowest score, 1]."""
    enter_values(laptop, {"pairs": "axial 2-D (16 + 16)", "row": 4, "column": 9, "side": 12,
                        "base": 100})  # fmt: skip
    picks = [(0, 0), (0, 11), (4, 3), (7, 9), (11, 5), (11, 11)]
    got = pixels(laptop, 1, [(c, r) for r, c in picks])
    scores = rotary_grid_scores("axial", (4, 9), side=12, dim=64, base=100.0).numpy()
    image = figure_of("axial 2-D (16 + 16)", 4, 9, 12, 100.0).axes[1].images[0]
    cmap = colormaps["viridis"]
    assert image.norm.vmax == 1 and image.norm.vmin == pytest.approx(scores.min())
    for (r, c), rgb in zip(picks, got, strict=True):
        want = cmap(image.norm(scores[r, c]), bytes=True)[:3]
        assert rgb == [int(v) for v in want], (r, c)
    # the colour bar: its 256 colours from the lowest score (bottom) to 1 (top), each less
    # than a pixel high, so a pixel a quarter down shows one of the bins about it
    fraction, rgb = laptop.page.evaluate(
        """() => {
          const c = document.querySelector('canvas.posenc-explorer-canvas');
          const ax = c.posencPlot.axes[2], dpr = c.posencPlot.dpr;
          const x = Math.round((ax.left + ax.width / 2) * dpr);
          const y = Math.round((ax.top + ax.height / 4) * dpr);
          return [(y / dpr - ax.top) / ax.height, Array.from(
            c.getContext('2d').getImageData(x, y, 1, 1).data.slice(0, 3))];
        }"""
    )
    near = math.floor(256 * (1 - fraction))
    colours = [[int(v) for v in cmap(b, bytes=True)[:3]] for b in range(near - 2, near + 2)]
    assert rgb in colours, (near, rgb)
    assert laptop.errors == []


def test_every_slider_moves_its_value_and_the_number_box(laptop: Watched) -> None:
    enter_values(laptop, {"pairs": "M-RoPE 8/12/12 (Qwen2-VL's shares)", "row": 8, "column": 8,
                        "side": 16, "base": 10000})  # fmt: skip
    moves = {"row": ("ArrowRight", 9), "column": ("ArrowLeft", 7), "side": ("ArrowLeft", 15)}
    press_sliders(laptop, moves)
    assert drawn(laptop)["query"] == [9, 7]
    # the base slider runs over log10(base): 10^2.7 is shown as 501 (3 significant digits)
    s = slide(laptop, "base", 2.7)
    assert s["values"]["base"] == 501 and s["entries"]["base"] == "501"
    assert laptop.errors == []


def test_a_refused_entry_is_named_and_replaced_by_the_nearest_allowed_value(
    laptop: Watched,
) -> None:
    refused(laptop, "side", 1, 2, "an integer from 2 to 64")
    refused(laptop, "row", 100, 63)
    s = refused(laptop, "column", 2.5, rule="an integer from 0 to 63")
    base = s["values"]["base"]
    s = refused(laptop, "base", 1, rule="a number above 1")
    assert s["values"]["base"] == base
    enter(laptop, "base", 3e7)  # any base above 1, beyond the slider's ends too
    s = state(laptop)
    assert s["values"]["base"] == 3e7 and "base" not in s["message"]
    assert laptop.errors == []


def test_the_canvas_redraws_at_its_new_width(browser: Any, page_url: str) -> None:
    with opened(browser, page_url, viewport={"width": 1366, "height": 900}) as watched:
        wide = state(watched)["plot"]
        assert len(wide["axes"]) == 3 and wide["axes"][0]["top"] == wide["axes"][1]["top"]
        narrow = on_a_phone(watched, wide)
        assert narrow["height"] > narrow["width"], "stacked panels on a phone"
        pairs, grid, bar = narrow["axes"]
        assert grid["top"] > pairs["top"] + pairs["height"], "the scores below the pairs"
        assert bar["left"] > grid["left"] + grid["width"] and bar["top"] == grid["top"]
        assert watched.errors == []
