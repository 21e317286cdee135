"""Chapter 7's live explorer: what it draws is posenc's, and its controls behave.

The checks every live explorer gets (the canvas in place of the PNG, values no frame had, text
size, redraw time, the fallbacks) are in ``test_live_explorers.py``; these read back what the
window_bias drawer (``book/ext/twin_static/drawers/window_bias.js``) computed and drew (the
index, the hand-made tables, each head's bias, the block the query reads), and try its number
boxes and sliders the way a reader would, refused entries included.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from matplotlib import colormaps

from book.figures.window import example_bias_table, window_query_token
from posenc.window import SwinRelativePositionBias, relative_position_index

from .live import (
    Watched,
    cell_pixels,
    drawn,
    enter,
    enter_new_values,
    enter_values,
    live_fixtures,
    on_a_phone,
    opened,
    press_sliders,
    refused,
    state,
)

pytestmark = pytest.mark.xdist_group("test_live_window_bias")  # one page, on one worker

TITLE = "Swin relative position bias: one query's index row, its bias per head, and the tables"
# values no pre-rendered frame had: the windows were 2×3, 3×4, 4×3 and 7×7
NEW_VALUES = {"Wh": 5, "Ww": 6, "query": "bottom-right", "sign": "shaw"}


folder, page_url, laptop = live_fixtures("window_bias")


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
    s = enter_new_values(laptop, NEW_VALUES)
    assert s["label"] == f"{TITLE} (Wh 5, Ww 6, query bottom-right, sign key − query (Shaw))"
    assert s["sliders"] == {"Wh": "5", "Ww": "6"}
    # what was drawn is posenc's: the index, the tables and the bias of each head
    for values in (NEW_VALUES, {**NEW_VALUES, "sign": "swin", "query": "centre"}):
        enter_values(laptop, values)
        got = drawn(laptop)
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
    enter_values(laptop, {"Wh": 3, "Ww": 4})
    press_sliders(laptop, {"Wh": ("ArrowRight", 4), "Ww": ("ArrowLeft", 3)})
    assert len(drawn(laptop, "indexRow")["indexRow"]) == 4 * 3
    assert laptop.errors == []


def test_a_refused_entry_is_named_and_replaced_by_the_nearest_allowed_value(
    laptop: Watched,
) -> None:
    enter(laptop, "query", "centre")
    refused(laptop, "Wh", 8, 7, "an integer from 1 to 7")
    refused(laptop, "Ww", 2.5, 3)
    refused(laptop, "Ww", 0, 1)
    # a 7 × 1 window: one column of keys, a 13 × 1 table
    got = drawn(laptop, "table", "query")
    assert len(got["table"]) == 13 and got["query"] == [3, 0]
    enter_values(laptop, {"Wh": 3, "Ww": 4})
    s = state(laptop)
    assert "Wh" not in s["message"] and "Ww" not in s["message"]
    assert laptop.errors == []


def test_the_cells_have_matplotlibs_colours(laptop: Watched) -> None:
    """At the defaults (3 × 4, the centre query, Swin's sign): the index cells are painted
    with the figure's greys and the bias and table cells with imshow's RdBu_r colour of the
    value, away from the numbers and the outlines."""
    enter_values(laptop, {"Wh": 3, "Ww": 4, "query": "centre", "sign": "swin"})
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
    got = cell_pixels(laptop, picks)
    for pick, rgb, colour in zip(picks, got, colours, strict=True):
        assert rgb == colour, pick


def test_the_canvas_redraws_at_its_new_width(browser: Any, page_url: str) -> None:
    with opened(browser, page_url, viewport={"width": 1366, "height": 900}) as watched:
        enter_values(watched, {"Wh": 7, "Ww": 7})
        wide = state(watched)["plot"]
        data = drawn(watched)
        assert data["side"] and data["perRow"] == 4 and data["tableNumbers"]
        narrow = on_a_phone(watched, wide)
        assert narrow["height"] > narrow["width"], "stacked panels on a phone"
        data = drawn(watched)
        assert not data["side"] and data["perRow"] == 2
        # a 13 × 13 table of 3-digit rows has no room for its numbers at 12 px on a phone:
        # its greys alone; a 5 × 7 one keeps them
        assert not data["tableNumbers"]
        enter_values(watched, {"Wh": 3, "Ww": 4})
        assert drawn(watched, "tableNumbers")["tableNumbers"]
        assert watched.errors == []
