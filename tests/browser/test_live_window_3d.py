"""Chapter 8's live explorer: what it draws is posenc's, and its controls behave.

The checks every live explorer gets (the canvas in place of the PNG, values no frame had, text
size, redraw time, the fallbacks) are in ``test_live_explorers.py``; these read back what the
window_3d drawer (``book/ext/twin_static/drawers/window_3d.js``) computed and drew (the frame
offsets, the offsets no pair uses, the spread step, RSTT's verdict, the index row of the
highlighted token), and try its number boxes and sliders the way a reader would, refused
entries included.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from matplotlib import colormaps

from book.demos.window import frame_offset_counts, spread_key_step
from book.figures._base import sequence_position
from book.figures.window_3d import _rstt_verdict
from posenc.window import relative_offsets, relative_position_index, relative_table_size

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

pytestmark = pytest.mark.xdist_group("test_live_window_3d")  # one page, on one worker

TITLE = "Frame offsets and the 3-D relative position index"
# values no pre-rendered frame had: query frames were {4, 6, 7}, key frames {2, 3, 4}, windows
# 2×2 and 3×3
NEW_VALUES = {
    "D1_query_frames": 8,
    "D2_key_frames": 5,
    "Wh": 4,
    "Ww": 1,
    "highlighted_query_frame": "last",
}
GREY = "#595959"
folder, page_url, laptop = live_fixtures("window_3d")


def expected(d1: int, d2: int, wh: int, ww: int, highlight: str) -> dict[str, Any]:
    """What posenc and the book's figure say the drawer should show."""
    step = spread_key_step(d1, d2)
    chosen = sequence_position(highlight, d1, name="highlight")
    index = relative_position_index((d1, wh, ww), (d2, wh, ww), key_step=(step, 1, 1))
    r0, c0 = (wh - 1) // 2, (ww - 1) // 2
    counts = frame_offset_counts(d1, d2, step)
    verdict, colour = _rstt_verdict(d1, d2, step)
    return {
        "step": step,
        "chosen": chosen,
        "token": [r0, c0],
        "offsets": relative_offsets((d1,), (d2,), key_step=(step,))[..., 0].flatten().tolist(),
        "counts": counts.tolist(),
        "unused": [int(u) - (d1 - 1) for u in np.flatnonzero(counts.numpy() == 0)],
        "row": index[chosen * wh * ww + r0 * ww + c0].tolist(),
        "size": relative_table_size((d1, wh, ww)),
        "verdict": [verdict, GREY if colour == "0.35" else colour],
    }


def check_drawn(watched: Watched, d1: int, d2: int, wh: int, ww: int, highlight: str) -> None:
    got = drawn(watched)
    want = expected(d1, d2, wh, ww, highlight)
    assert got["keyFrames"] == d2
    for name, value in want.items():
        assert got[name] == value, name


def test_every_number_box_takes_a_value_no_frame_had_and_the_drawing_follows(
    laptop: Watched,
) -> None:
    s = enter_new_values(laptop, NEW_VALUES)
    assert s["label"] == (
        f"{TITLE} (D1_query_frames 8, D2_key_frames 5, Wh 4, Ww 1, highlighted_query_frame last)"
    )
    assert s["sliders"] == {"D1_query_frames": "8", "D2_key_frames": "5", "Wh": "4", "Ww": "1"}
    # what was drawn is posenc's: offsets, counts, the index row, the table's size
    check_drawn(laptop, 8, 5, 4, 1, "last")
    # the chapter's cases: keys at 0, 2, 4 never reach frame 5 (Δt = −5 unused); RSTT's
    # stride gives six frames for 6 and 4 (red); 4 and 2: the right count, short of frame 3
    for d1, d2, wh, ww, highlight in [
        (6, 3, 3, 3, "middle"),
        (6, 4, 2, 5, "last"),
        (4, 2, 7, 7, "middle"),
        (10, 10, 1, 1, "last"),
        (1, 1, 3, 2, "middle"),
    ]:
        values = {
            "D1_query_frames": d1,
            "D2_key_frames": d2,
            "Wh": wh,
            "Ww": ww,
            "highlighted_query_frame": highlight,
        }
        enter_values(laptop, values)
        check_drawn(laptop, d1, d2, wh, ww, highlight)
    got = drawn(laptop)
    assert got["unused"] == []
    enter(laptop, "D1_query_frames", 6)
    enter(laptop, "D2_key_frames", 3)
    assert drawn(laptop)["unused"] == [-5]
    assert laptop.errors == []


def test_more_key_frames_than_query_frames_are_drawn_as_many_as_the_query_frames(
    laptop: Watched,
) -> None:
    enter(laptop, "D1_query_frames", 5)
    enter(laptop, "D2_key_frames", 9)
    s = state(laptop)
    assert s["values"]["D2_key_frames"] == 9 and s["message"] == ""
    check_drawn(laptop, 5, 5, s["values"]["Wh"], s["values"]["Ww"], "middle")
    enter(laptop, "D1_query_frames", 10)  # now all nine fit
    check_drawn(laptop, 10, 9, s["values"]["Wh"], s["values"]["Ww"], "middle")
    assert laptop.errors == []


def test_every_slider_moves_its_value_and_the_number_box(laptop: Watched) -> None:
    enter_values(laptop, {"D1_query_frames": 7, "D2_key_frames": 4, "Wh": 2, "Ww": 2})
    press_sliders(
        laptop,
        {
            "D1_query_frames": ("ArrowRight", 8),
            "D2_key_frames": ("ArrowLeft", 3),
            "Wh": ("ArrowLeft", 1),
            "Ww": ("ArrowRight", 3),
        },
    )
    check_drawn(laptop, 8, 3, 1, 3, "middle")
    assert laptop.errors == []


def test_a_refused_entry_is_named_and_replaced_by_the_nearest_allowed_value(
    laptop: Watched,
) -> None:
    refused(laptop, "D1_query_frames", 11, 10, "an integer from 1 to 10")
    refused(laptop, "Wh", 0, 1)
    refused(laptop, "Ww", 3.5, 4)  # 1 plus a whole number of steps, rounded
    enter_values(laptop, {"D1_query_frames": 7, "Wh": 2, "Ww": 2})
    s = state(laptop)
    assert all(name not in s["message"] for name in ("D1_query_frames", "Wh", "Ww"))
    assert laptop.errors == []


def test_the_cells_have_matplotlibs_colours(laptop: Watched) -> None:
    """At the defaults (7 query frames, 4 key frames, 2 × 2, the middle frame): the frame
    offsets are painted with imshow's PuOr colour of Δt on [−D1 − 1, D1 + 1], the index row's
    blocks with its viridis colour on [0, size − 1], away from the numbers."""
    defaults = {
        "D1_query_frames": 7,
        "D2_key_frames": 4,
        "Wh": 2,
        "Ww": 2,
        "highlighted_query_frame": "middle",
    }
    enter_values(laptop, defaults)
    want = expected(7, 4, 2, 2, "middle")
    puor, viridis = colormaps["PuOr"], colormaps["viridis"]
    picks: list[list[float]] = []
    colours: list[list[int]] = []
    for t, m in [(0, 0), (0, 3), (6, 0), (2, 2), (5, 1)]:
        picks.append([0, t, m, 0.15, 0.15])
        rgba = puor((want["offsets"][t * 4 + m] + 8) / 16, bytes=True)
        colours.append([int(x) for x in rgba[:3]])
    for m in range(4):
        for r, c in [(0, 0), (1, 1)]:
            picks.append([1 + m, r, c, 0.1, 0.1])
            rgba = viridis(want["row"][m * 4 + r * 2 + c] / (want["size"] - 1), bytes=True)
            colours.append([int(x) for x in rgba[:3]])
    got = cell_pixels(laptop, picks)
    for pick, rgb, colour in zip(picks, got, colours, strict=True):
        assert rgb == colour, pick


def test_the_canvas_redraws_at_its_new_width(browser: Any, page_url: str) -> None:
    with opened(browser, page_url, viewport={"width": 1366, "height": 900}) as watched:
        wide = state(watched)["plot"]
        data = drawn(watched)
        assert data["side"] and data["perRow"] == 4, "the blocks beside the grid, in one row"
        narrow = on_a_phone(watched, wide)
        assert narrow["height"] > narrow["width"], "stacked panels on a phone"
        assert not drawn(watched)["side"]
        # Video Swin's 7 × 7 window: one block of 4-digit rows a row on a phone
        enter(watched, "Wh", 7)
        enter(watched, "Ww", 7)
        assert drawn(watched)["perRow"] == 1
        assert watched.errors == []
