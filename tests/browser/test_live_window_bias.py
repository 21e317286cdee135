"""Chapter 7's live explorer: what it draws is posenc's, and its controls behave.

The checks every live explorer gets (the canvas in place of the PNG, values no frame had, text
size, redraw time, the fallbacks) are in ``test_live_explorers.py``; these read back what the
window_bias drawer (``book/ext/twin_static/drawers/window_bias.js``) computed and drew (the
index, the hand-made tables, each head's bias, the block the query reads), and try its number
boxes and sliders the way a reader would, refused entries included.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from matplotlib import colormaps

from book.explorers.window import window_bias_explorer
from book.figures.window import example_bias_table, window_query_token
from posenc.window import SwinRelativePositionBias, relative_position_index

from .live import PIXELS, Watched, enter, live_page, settle, state

pytestmark = pytest.mark.xdist_group("test_live_window_bias")  # one page, on one worker

TITLE = "Swin relative position bias: one query's index row, its bias per head, and the tables"
# values no pre-rendered frame had: the windows were 2×3, 3×4, 4×3 and 7×7
NEW_VALUES = {"Wh": 5, "Ww": 6, "query": "bottom-right", "sign": "shaw"}
DATA = """() => {
  const d = document.querySelector('canvas.posenc-explorer-canvas').posencData;
  return {...d, indexRow: Array.from(d.indexRow), bias: d.bias.map((b) => Array.from(b))};
}"""
# the colour of the canvas at fractions (fx, fy) of a cell (r, c) of axes k: [[k, r, c, fx, fy]]
COLOURS = """(picks) => {
  const c = document.querySelector('canvas.posenc-explorer-canvas');
  const dpr = c.posencPlot.dpr, ctx = c.getContext('2d');
  return picks.map(([k, r, col, fx, fy]) => {
    const ax = c.posencPlot.axes[k];
    const cw = ax.width / (ax.xlim[1] - ax.xlim[0]), ch = ax.height / (ax.ylim[0] - ax.ylim[1]);
    const x = ax.left + (col + fx) * cw, y = ax.top + (r + fy) * ch;
    return Array.from(ctx.getImageData(Math.floor(x * dpr), Math.floor(y * dpr), 1, 1).data
      .slice(0, 3));
  });
}"""


@pytest.fixture(scope="module")
def page_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    folder: Path = tmp_path_factory.mktemp("live_window_bias")
    return live_page(folder, window_bias_explorer().static_html()).as_uri()


@pytest.fixture(scope="module")
def laptop(browser: Any, page_url: str) -> Iterator[Watched]:
    watched = Watched(browser, page_url, viewport={"width": 1366, "height": 768})
    try:
        yield watched
    finally:
        watched.close()


def expected(wh: int, ww: int, query: str, sign: str) -> dict[str, Any]:
    """What posenc says the drawer should show, in float64."""
    index = relative_position_index((wh, ww))  # [N, N], query − key
    table = example_bias_table((wh, ww), 4)  # [(2Wh-1)(2Ww-1), 4] float64
    i = window_query_token(query, (wh, ww))
    r, c = divmod(i, ww)
    row = index[i] if sign == "swin" else index[:, i]  # Shaw's sign reads the transpose
    module = SwinRelativePositionBias((wh, ww), 4).double()
    module.load_state_dict({"relative_position_bias_table": table})
    with torch.no_grad():
        full = module()  # [4, N, N]: B[k, i, j] = T[I[i, j], k]
    bias = full[:, i] if sign == "swin" else full[:, :, i]
    block = [r, c] if sign == "swin" else [wh - 1 - r, ww - 1 - c]
    return {
        "index": index,
        "table": table,
        "token": i,
        "query": [r, c],
        "row": row,
        "bias": bias,
        "block": block,
    }


def test_every_number_box_takes_a_value_no_frame_had_and_the_drawing_follows(
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
    assert s["label"] == f"{TITLE} (Wh 5, Ww 6, query bottom-right, sign key − query (Shaw))"
    assert s["sliders"] == {"Wh": "5", "Ww": "6"}
    # what was drawn is posenc's: the index, the tables and the bias of each head
    for values in (NEW_VALUES, {**NEW_VALUES, "sign": "swin", "query": "centre"}):
        for name, value in values.items():
            enter(laptop, name, value)
        got = laptop.page.evaluate(DATA)
        want = expected(values["Wh"], values["Ww"], values["query"], values["sign"])
        assert got["query"] == want["query"] and got["token"] == want["token"]
        assert got["block"] == want["block"]
        assert got["index"] == want["index"].tolist()
        assert got["indexRow"] == want["row"].tolist()
        table = np.array(got["table"])
        assert table.shape == (9 * 11, 4)
        np.testing.assert_allclose(table, want["table"].numpy(), rtol=1e-9, atol=1e-12)
        bias = np.array(got["bias"])
        assert bias.shape == (4, 30)
        np.testing.assert_allclose(bias, want["bias"].numpy(), rtol=1e-9, atol=1e-12)
    assert laptop.errors == []


def test_every_slider_moves_its_value_and_the_number_box(laptop: Watched) -> None:
    enter(laptop, "Wh", 3)
    enter(laptop, "Ww", 4)
    moves = {"Wh": ("ArrowRight", 4), "Ww": ("ArrowLeft", 3)}
    for name, (key, value) in moves.items():
        before = laptop.page.evaluate(PIXELS)
        slider = laptop.page.locator(f'[data-role="slider"][data-name="{name}"]')
        slider.focus()
        slider.press(key)
        settle(laptop)
        s = state(laptop)
        assert s["values"][name] == value and s["entries"][name] == str(value), name
        assert laptop.page.evaluate(PIXELS) != before, name
    assert len(laptop.page.evaluate(DATA)["indexRow"]) == 4 * 3
    assert laptop.errors == []


def test_a_refused_entry_is_named_and_replaced_by_the_nearest_allowed_value(
    laptop: Watched,
) -> None:
    enter(laptop, "query", "centre")
    enter(laptop, "Wh", 8)
    s = state(laptop)
    assert s["values"]["Wh"] == 7 and s["entries"]["Wh"] == "7"
    assert "Wh: 8 is not allowed (an integer from 1 to 7); drawn with 7." in s["message"]
    enter(laptop, "Ww", 2.5)
    s = state(laptop)
    assert s["values"]["Ww"] == 3 and "Ww: 2.5 is not allowed" in s["message"]
    enter(laptop, "Ww", 0)
    assert state(laptop)["values"]["Ww"] == 1
    # a 7 × 1 window: one column of keys, a 13 × 1 table
    got = laptop.page.evaluate(DATA)
    assert len(got["table"]) == 13 and got["query"] == [3, 0]
    enter(laptop, "Wh", 3)
    enter(laptop, "Ww", 4)
    s = state(laptop)
    assert "Wh" not in s["message"] and "Ww" not in s["message"]
    assert laptop.errors == []


def test_the_cells_have_matplotlibs_colours(laptop: Watched) -> None:
    """At the defaults (3 × 4, the centre query, Swin's sign): the index cells are painted
    with the figure's greys and the bias and table cells with imshow's RdBu_r colour of the
    value, away from the numbers and the outlines."""
    for name, value in {"Wh": 3, "Ww": 4, "query": "centre", "sign": "swin"}.items():
        enter(laptop, name, value)
    want = expected(3, 4, "centre", "swin")
    size = 35
    rdbu = colormaps["RdBu_r"]
    greys = colormaps["Greys"]
    light = np.linspace(0.02, 0.36, 256)  # the figure's 256 greys (book.figures.window)
    picks: list[list[float]] = []
    colours: list[list[int]] = []
    for r, c in [(0, 0), (0, 3), (2, 2)]:  # the index row, near each cell's corner
        picks.append([0, r, c, 0.12, 0.12])
        bin_ = min(int(int(want["row"][r * 4 + c]) / (size - 1) * 256), 255)
        colours.append([int(x) for x in greys(light[bin_], bytes=True)[:3]])
    for r, c in [(0, 6), (4, 0), (2, 5)]:  # the table of row numbers
        picks.append([1, r, c, 0.12, 0.12])
        bin_ = min(int((r * 7 + c) / (size - 1) * 256), 255)
        colours.append([int(x) for x in greys(light[bin_], bytes=True)[:3]])
    for k in range(4):
        for r, c in [(0, 0), (2, 3), (1, 0)]:  # the bias of head k on the window
            picks.append([2 + k, r, c, 0.5, 0.5])
            colours.append(
                [int(x) for x in rdbu((float(want["bias"][k, r * 4 + c]) + 1) / 2, bytes=True)[:3]]
            )
        for r, c in [(0, 0), (4, 6), (2, 0)]:  # its table by offset
            picks.append([6 + k, r, c, 0.5, 0.5])
            colours.append(
                [int(x) for x in rdbu((float(want["table"][r * 7 + c, k]) + 1) / 2, bytes=True)[:3]]
            )
    got = laptop.page.evaluate(COLOURS, picks)
    for pick, rgb, colour in zip(picks, got, colours, strict=True):
        assert rgb == colour, pick


def test_the_canvas_redraws_at_its_new_width(browser: Any, page_url: str) -> None:
    watched = Watched(browser, page_url, viewport={"width": 1366, "height": 900})
    try:
        enter(watched, "Wh", 7)
        enter(watched, "Ww", 7)
        wide = state(watched)["plot"]
        data = watched.page.evaluate(DATA)
        assert data["side"] and data["perRow"] == 4 and data["tableNumbers"]
        watched.page.set_viewport_size({"width": 390, "height": 900})
        watched.page.wait_for_timeout(200)
        settle(watched)
        narrow = state(watched)["plot"]
        assert narrow["width"] < wide["width"] and narrow["width"] <= 390
        assert narrow["height"] > narrow["width"], "stacked panels on a phone"
        data = watched.page.evaluate(DATA)
        assert not data["side"] and data["perRow"] == 2
        # a 13 × 13 table of 3-digit rows has no room for its numbers at 12 px on a phone:
        # its greys alone; a 5 × 7 one keeps them
        assert not data["tableNumbers"]
        enter(watched, "Wh", 3)
        enter(watched, "Ww", 4)
        assert watched.page.evaluate(DATA)["tableNumbers"]
        assert watched.errors == []
    finally:
        watched.close()
