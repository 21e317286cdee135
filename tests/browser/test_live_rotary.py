"""Chapter 9's live RoPE explorer: what it draws is posenc's, and its controls behave.

The checks every live explorer gets are in ``test_live_explorers.py``; these read back what the
rotary drawer (``book/ext/twin_static/drawers/rotary.js``) computed for values no pre-rendered
frame had (the frequencies, the turns, the dots, the score of a matching key at every offset
and its log bins) and compare them with posenc and ``book.figures.rotary`` in float64, check
the colours it painted against matplotlib's, and try its number boxes and sliders the way a
reader would, refused entries included.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import torch
from matplotlib.colors import to_rgb

from book.figures.rotary import _log_bins, rotary_decay_curves
from posenc.rotary import rotary_angles
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

pytestmark = pytest.mark.xdist_group("test_live_rotary")  # one page, on one worker

# values no pre-rendered frame had: dims were {16, 128}, bases {100, 10000, 500000}, the
# context 4096 alone
NEW_VALUES = {"dim": 48, "base": 3000, "context": 5000}
TITLE = "RoPE: how fast the channel pairs turn, and the score of a matching key"

folder, page_url, laptop = live_fixtures("rotary")


def test_every_number_box_takes_a_value_no_frame_had_and_the_drawing_follows(
    laptop: Watched,
) -> None:
    s = enter_new_values(laptop, NEW_VALUES)
    assert s["label"] == f"{TITLE} (dim 48, base 3000, context 5000)"
    assert s["sliders"]["dim"] == "48" and s["sliders"]["context"] == "5000"
    assert float(s["sliders"]["base"]) == pytest.approx(math.log10(3000), abs=0.01)
    # what was drawn is posenc's: frequencies, turns, dots, the three pairs
    dim, base, context = 48, 3000.0, 5000
    theta = sinusoidal_frequencies(dim, base=base).numpy()
    d = drawn(laptop)
    assert d["theta"] == pytest.approx(theta.tolist(), rel=1e-12)
    turns = context * theta / (2 * math.pi)
    assert d["turns"] == pytest.approx(turns.tolist(), rel=1e-12)
    assert d["pairs"] == [0, 12, 23]
    dots = rotary_angles(16, dim, base=base).numpy()  # [16, d/2]
    assert np.array(d["dots"]) == pytest.approx(dots, rel=1e-12, abs=1e-15)
    # the score of a key equal to the query at every offset 1 .. context − 1, and each shown
    # pair's own cosine
    r = torch.arange(1, context, dtype=torch.float64)
    matched = rotary_decay_curves(r, dim, base=base, bound=False)["matched"]
    got = np.array(d["matched"])
    assert got.shape == matched.shape
    assert got == pytest.approx(matched, rel=1e-9, abs=1e-11)
    x = r.numpy()
    own = [np.cos(x * theta[i]) for i in (0, 12, 23)]
    assert np.array(d["own"]) == pytest.approx(np.array(own), rel=1e-9, abs=1e-12)
    # summarised per log bin exactly as the figure summarises them
    bins = d["bins"]
    for j, y in enumerate([*own, matched]):
        centre, lo, mean, hi = _log_bins(x, y, 100)
        assert bins["centre"] == pytest.approx(centre.tolist(), rel=1e-12), j
        assert bins["lo"][j] == pytest.approx(lo.tolist(), rel=1e-9, abs=1e-11), j
        assert bins["mean"][j] == pytest.approx(mean.tolist(), rel=1e-9, abs=1e-11), j
        assert bins["hi"][j] == pytest.approx(hi.tolist(), rel=1e-9, abs=1e-11), j
    assert laptop.errors == []


def test_the_largest_values_match_posenc_too(laptop: Watched) -> None:
    """At d = 256 and a context of 32768 the score is turned 32767 times per pair, restarted
    exactly every few offsets: still posenc's to 1e-11."""
    enter_values(laptop, {"dim": 256, "base": 1e6, "context": 32768})
    r = torch.arange(1, 32768, dtype=torch.float64)
    matched = rotary_decay_curves(r, 256, base=1e6, bound=False)["matched"]
    got = np.array(drawn(laptop, "matched")["matched"])
    assert np.abs(got - matched).max() < 1e-11
    assert laptop.errors == []


def test_the_bars_and_dots_have_matplotlibs_colours(laptop: Watched) -> None:
    """The turns panel paints the fastest, middle and slowest pairs' bars in tab10's C3, C1
    and C0 and the others in grey 0.65; the dots are painted in their pair's colour."""
    enter_values(laptop, {"dim": 16, "base": 100, "context": 4096})
    d = drawn(laptop, "dots", "pairs")
    # the dot of pair j at m on its circle of `radius`: (r cos a, r sin a) of its angle a
    angles = [
        (d["dots"][m][d["pairs"][j]], radius)
        for j, m, radius in ((0, 5, 1.0), (1, 15, 0.68), (2, 15, 0.36))
    ]
    dots = pixels(laptop, 0, [(r * math.cos(a), r * math.sin(a)) for a, r in angles])
    bars = pixels(laptop, 1, [(i, -3.5) for i in (0, 1, 4, 7)])

    def rgb(colour: str) -> list[int]:
        return [round(255 * v) for v in to_rgb(colour)]

    assert bars == [rgb("C3"), rgb("0.65"), rgb("C1"), rgb("C0")]
    assert dots == [rgb("C3"), rgb("C1"), rgb("C0")]


def test_every_slider_moves_its_value_and_the_number_box(laptop: Watched) -> None:
    enter_values(laptop, {"dim": 128, "base": 10000, "context": 4096})
    press_sliders(laptop, {"dim": ("ArrowRight", 130), "context": ("ArrowLeft", 4095)})
    # the base slider runs over log10(base): 10^5.7 is shown as 501000 (3 significant digits)
    s = slide(laptop, "base", 5.7)
    assert s["values"]["base"] == 501000 and s["entries"]["base"] == "501000"
    assert laptop.errors == []


def test_a_refused_entry_is_named_and_replaced_by_the_nearest_allowed_value(
    laptop: Watched,
) -> None:
    refused(laptop, "dim", 127, 128, "an even number from 4 to 256")
    refused(laptop, "dim", 2, 4)  # d = 2 has no middle pair to show
    refused(laptop, "context", 100000, 32768, "an integer from 16 to 32768")
    refused(laptop, "base", 1, rule="a number above 1")
    # any base above 1 is taken, beyond the slider's ends too
    enter(laptop, "base", 1.5)
    s = state(laptop)
    assert s["values"]["base"] == 1.5 and "base" not in s["message"]
    enter(laptop, "base", 1e9)
    assert state(laptop)["values"]["base"] == 1e9
    assert laptop.errors == []


def test_the_canvas_redraws_at_its_new_width(browser: Any, page_url: str) -> None:
    with opened(browser, page_url, viewport={"width": 1366, "height": 900}) as watched:
        wide = state(watched)["plot"]
        assert wide["height"] < wide["width"], "three panels side by side"
        narrow = on_a_phone(watched, wide)
        assert narrow["height"] > 2 * narrow["width"], "stacked panels on a phone"
        tops = [ax["top"] for ax in narrow["axes"]]
        assert tops == sorted(tops) and len(tops) == 3
        assert watched.errors == []
