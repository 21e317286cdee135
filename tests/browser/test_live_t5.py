"""Chapter 9's live T5 explorer: what it draws is posenc's, and its controls behave.

The checks every live explorer gets (the canvas in place of the PNG, values no frame had, text
size, redraw time, the fallbacks) are in ``test_live_explorers.py``; these read back what the
T5 drawer (``book/ext/twin_static/drawers/t5.js``) computed and drew, and try its number boxes
and sliders the way a reader would, refused entries included.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from matplotlib import colormaps

from posenc.t5 import t5_bucket_index, t5_bucket_starts, t5_relative_bucket

from .live import (
    Watched,
    drawn,
    enter_new_values,
    enter_values,
    live_fixtures,
    on_a_phone,
    opened,
    pixels,
    press_sliders,
    refused,
    state,
    toggle,
)

pytestmark = pytest.mark.xdist_group("test_live_t5")  # one page, on one worker

TITLE = "T5 buckets: exact near, logarithmic far"
MAX_OFFSET = 200  # the explorer's offsets on the left: −200..200

folder, page_url, laptop = live_fixtures("t5")


def expected_edges(bidirectional: bool, num_buckets: int, max_distance: int) -> list[float]:
    """The grey bucket edges of book.figures.t5._draw_buckets."""
    per_side = num_buckets // 2 if bidirectional else num_buckets
    exact = per_side // 2
    starts = t5_bucket_starts(
        bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    ).numpy()
    starts = starts[starts >= exact]
    edges = -starts - 0.5 if not bidirectional else np.concatenate((-starts - 0.5, starts - 0.5))
    return edges[(edges > -MAX_OFFSET) & (edges < MAX_OFFSET)].tolist()


@pytest.mark.parametrize(
    "num_buckets,max_distance,bidirectional,tokens",
    [(20, 40, True, 20), (6, 300, False, 100), (64, 33, True, 256), (46, 150, False, 2)],
)
def test_what_is_drawn_is_posencs_for_values_no_frame_had(
    laptop: Watched, num_buckets: int, max_distance: int, bidirectional: bool, tokens: int
) -> None:
    """num_buckets were {8, 32, 64}, max_distance {64, 128}, tokens 48: the bucket of every
    offset, the edges, the ticks and the bucket matrix, as posenc computes them."""
    values = {
        "num_buckets": num_buckets,
        "max_distance": max_distance,
        "bidirectional": bidirectional,
        "tokens": tokens,
    }
    enter_values(laptop, values)
    s = state(laptop)
    assert s["values"] == values and s["message"] == ""
    word = "True" if bidirectional else "False"
    assert s["label"] == (
        f"{TITLE} (num_buckets {num_buckets}, max_distance {max_distance}, "
        f"bidirectional {word}, tokens {tokens})"
    )
    got = drawn(laptop)
    assert got["maxOffset"] == MAX_OFFSET
    offsets = torch.arange(-MAX_OFFSET, MAX_OFFSET + 1)
    assert got["offsets"] == offsets.tolist()
    buckets = t5_relative_bucket(
        offsets, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    )
    assert got["buckets"] == buckets.tolist()
    assert got["used"] == len(buckets.unique())
    assert got["edges"] == expected_edges(bidirectional, num_buckets, max_distance)
    index = t5_bucket_index(
        tokens,
        tokens,
        bidirectional=bidirectional,
        num_buckets=num_buckets,
        max_distance=max_distance,
    )
    assert got["index"] == index.flatten().tolist()
    assert got["usedNear"] == len(index.unique())
    # the figure's ticks: 0, ±max_distance where drawn, the ends when there is room
    ticks = {0}
    if max_distance <= MAX_OFFSET:
        ticks |= {-max_distance, max_distance} if bidirectional else {-max_distance}
    if MAX_OFFSET - max_distance > 0.15 * MAX_OFFSET:
        ticks |= {-MAX_OFFSET, MAX_OFFSET}
    assert got["xTicks"] == sorted(ticks)
    assert laptop.errors == []


def test_the_bucket_image_has_matplotlibs_turbo_colours(laptop: Watched) -> None:
    """At 12 tokens, 32 buckets: cell (i, j) is painted with the colour imshow gives its
    bucket (turbo, 0 to num_buckets − 1)."""
    enter_values(
        laptop, {"num_buckets": 32, "max_distance": 128, "bidirectional": True, "tokens": 12}
    )
    picks = [(0, 0), (0, 11), (11, 0), (5, 2), (3, 9), (7, 7)]
    got = pixels(laptop, 1, [(j, i) for i, j in picks])
    index = t5_bucket_index(12, 12).numpy()
    cmap = colormaps["turbo"]
    for (i, j), rgb in zip(picks, got, strict=True):
        want = cmap(index[i, j] / 31, bytes=True)[:3]
        assert rgb == [int(v) for v in want], (i, j)


def test_every_control_takes_a_value_as_a_reader_enters_it(laptop: Watched) -> None:
    enter_values(
        laptop, {"num_buckets": 32, "max_distance": 128, "bidirectional": True, "tokens": 48}
    )
    # the number boxes
    enter_new_values(laptop, {"num_buckets": 24, "max_distance": 77, "tokens": 200}, sliders=True)
    # the sliders: num_buckets by two (even only), the others by one
    moves = {
        "num_buckets": ("ArrowRight", 26),
        "max_distance": ("ArrowLeft", 76),
        "tokens": ("ArrowLeft", 199),
    }
    press_sliders(laptop, moves)
    # the checkbox
    assert toggle(laptop, "bidirectional")["values"]["bidirectional"] is False
    assert laptop.errors == []


def test_a_refused_entry_is_named_and_replaced_by_the_nearest_allowed_value(
    laptop: Watched,
) -> None:
    """An odd number of buckets (an encoder needs halves), and a max_distance inside the exact
    range of the most decoder buckets, are refused: every value drawn is valid in both modes."""
    refused(laptop, "num_buckets", 31, 32, "an even number from 4 to 64")
    refused(laptop, "max_distance", 20, 33, "an integer from 33 to 1024")
    refused(laptop, "tokens", 1000, 256)
    enter_values(laptop, {"num_buckets": 32, "max_distance": 128, "tokens": 48})
    assert state(laptop)["message"] == ""
    assert laptop.errors == []


def test_the_canvas_redraws_at_its_new_width(browser: Any, page_url: str) -> None:
    with opened(browser, page_url, viewport={"width": 1366, "height": 900}) as watched:
        wide = state(watched)["plot"]
        assert wide["axes"][0]["top"] == wide["axes"][1]["top"], "side by side"
        narrow = on_a_phone(watched, wide)
        assert narrow["axes"][1]["top"] > narrow["axes"][0]["top"] + narrow["axes"][0]["height"]
        assert narrow["height"] > narrow["width"], "stacked panels on a phone"
        image = narrow["axes"][1]
        assert image["width"] == pytest.approx(image["height"]), "the bucket image is square"
        assert watched.errors == []
