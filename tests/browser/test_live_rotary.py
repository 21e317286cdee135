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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from matplotlib.colors import to_rgb

from book.explorers.rotary import rotary_explorer
from book.figures.rotary import _log_bins, rotary_decay_curves
from posenc.rotary import rotary_angles
from posenc.sinusoidal import sinusoidal_frequencies

from .live import PIXELS, Watched, enter, live_page, settle, state

pytestmark = pytest.mark.xdist_group("test_live_rotary")  # one page, on one worker

# values no pre-rendered frame had: dims were {16, 128}, bases {100, 10000, 500000}, the
# context 4096 alone
NEW_VALUES = {"dim": 48, "base": 3000, "context": 5000}
TITLE = "RoPE: how fast the channel pairs turn, and the score of a matching key"


@pytest.fixture(scope="module")
def page_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    folder: Path = tmp_path_factory.mktemp("live_rotary")
    return live_page(folder, rotary_explorer().static_html()).as_uri()


@pytest.fixture(scope="module")
def laptop(browser: Any, page_url: str) -> Iterator[Watched]:
    watched = Watched(browser, page_url, viewport={"width": 1366, "height": 768})
    try:
        yield watched
    finally:
        watched.close()


def computed(watched: Watched, key: str) -> Any:
    """``canvas.posencData[key]`` as plain lists (typed arrays too)."""
    return watched.page.evaluate(
        """(key) => {
          const plain = (v) => (ArrayBuffer.isView(v) ? Array.from(v)
            : Array.isArray(v) ? v.map(plain)
            : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(
                ([k, x]) => [k, plain(x)])) : v);
          return plain(document.querySelector('canvas.posenc-explorer-canvas').posencData[key]);
        }""",
        key,
    )


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
    assert s["label"] == f"{TITLE} (dim 48, base 3000, context 5000)"
    assert s["sliders"]["dim"] == "48" and s["sliders"]["context"] == "5000"
    assert float(s["sliders"]["base"]) == pytest.approx(math.log10(3000), abs=0.01)
    # what was drawn is posenc's: frequencies, turns, dots, the three pairs
    dim, base, context = 48, 3000.0, 5000
    theta = sinusoidal_frequencies(dim, base=base).numpy()
    assert computed(laptop, "theta") == pytest.approx(theta.tolist(), rel=1e-12)
    turns = context * theta / (2 * math.pi)
    assert computed(laptop, "turns") == pytest.approx(turns.tolist(), rel=1e-12)
    assert computed(laptop, "pairs") == [0, 12, 23]
    dots = rotary_angles(16, dim, base=base).numpy()  # [16, d/2]
    assert np.array(computed(laptop, "dots")) == pytest.approx(dots, rel=1e-12, abs=1e-15)
    # the score of a key equal to the query at every offset 1 .. context − 1, and each shown
    # pair's own cosine
    r = torch.arange(1, context, dtype=torch.float64)
    matched = rotary_decay_curves(r, dim, base=base, bound=False)["matched"]
    got = np.array(computed(laptop, "matched"))
    assert got.shape == matched.shape
    assert got == pytest.approx(matched, rel=1e-9, abs=1e-11)
    x = r.numpy()
    own = [np.cos(x * theta[i]) for i in (0, 12, 23)]
    assert np.array(computed(laptop, "own")) == pytest.approx(np.array(own), rel=1e-9, abs=1e-12)
    # summarised per log bin exactly as the figure summarises them
    bins = computed(laptop, "bins")
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
    for name, value in {"dim": 256, "base": 1e6, "context": 32768}.items():
        enter(laptop, name, value)
    r = torch.arange(1, 32768, dtype=torch.float64)
    matched = rotary_decay_curves(r, 256, base=1e6, bound=False)["matched"]
    got = np.array(computed(laptop, "matched"))
    assert np.abs(got - matched).max() < 1e-11
    assert laptop.errors == []


def test_the_bars_and_dots_have_matplotlibs_colours(laptop: Watched) -> None:
    """The turns panel paints the fastest, middle and slowest pairs' bars in tab10's C3, C1
    and C0 and the others in grey 0.65; the dots are painted in their pair's colour."""
    for name, value in {"dim": 16, "base": 100, "context": 4096}.items():
        enter(laptop, name, value)
    got = laptop.page.evaluate(
        """() => {
          const c = document.querySelector('canvas.posenc-explorer-canvas');
          const plot = c.posencPlot, dpr = plot.dpr, ctx = c.getContext('2d');
          const at = (ax, x, y) => {
            const px = ax.left + (x - ax.xlim[0]) / (ax.xlim[1] - ax.xlim[0]) * ax.width;
            const py = ax.top + ax.height - (y - ax.ylim[0]) / (ax.ylim[1] - ax.ylim[0]) * ax.height;
            return Array.from(ctx.getImageData(Math.round(px * dpr), Math.round(py * dpr), 1, 1)
              .data.slice(0, 3));
          };
          const circle = plot.axes[0], turns = plot.axes[1];
          const d = c.posencData;
          const dot = (j, m, radius) => {
            const a = d.dots[m][d.pairs[j]];
            return at(circle, radius * Math.cos(a), radius * Math.sin(a));
          };
          return {
            bars: [0, 1, 4, 7].map((i) => at(turns, i, -3.5)),
            dots: [dot(0, 5, 1.0), dot(1, 15, 0.68), dot(2, 15, 0.36)],
          };
        }"""
    )

    def rgb(colour: str) -> list[int]:
        return [round(255 * v) for v in to_rgb(colour)]

    assert got["bars"] == [rgb("C3"), rgb("0.65"), rgb("C1"), rgb("C0")]
    assert got["dots"] == [rgb("C3"), rgb("C1"), rgb("C0")]


def test_every_slider_moves_its_value_and_the_number_box(laptop: Watched) -> None:
    enter(laptop, "dim", 128)
    enter(laptop, "base", 10000)
    enter(laptop, "context", 4096)
    moves = {"dim": ("ArrowRight", 130), "context": ("ArrowLeft", 4095)}
    for name, (key, value) in moves.items():
        before = laptop.page.evaluate(PIXELS)
        slider = laptop.page.locator(f'[data-role="slider"][data-name="{name}"]')
        slider.focus()
        slider.press(key)
        settle(laptop)
        s = state(laptop)
        assert s["values"][name] == value and s["entries"][name] == str(value), name
        assert laptop.page.evaluate(PIXELS) != before, name
    # the base slider runs over log10(base): 10^5.7 is shown as 501000 (3 significant digits)
    before = laptop.page.evaluate(PIXELS)
    laptop.page.locator('[data-role="slider"][data-name="base"]').evaluate(
        "el => { el.value = '5.7'; el.dispatchEvent(new Event('input')); }"
    )
    settle(laptop)
    s = state(laptop)
    assert s["values"]["base"] == 501000 and s["entries"]["base"] == "501000"
    assert laptop.page.evaluate(PIXELS) != before
    assert laptop.errors == []


def test_a_refused_entry_is_named_and_replaced_by_the_nearest_allowed_value(
    laptop: Watched,
) -> None:
    enter(laptop, "dim", 127)
    s = state(laptop)
    assert s["values"]["dim"] == 128 and s["entries"]["dim"] == "128"
    assert "dim: 127 is not allowed (an even number from 4 to 256); drawn with 128." in s["message"]
    enter(laptop, "dim", 2)
    assert state(laptop)["values"]["dim"] == 4  # d = 2 has no middle pair to show
    enter(laptop, "context", 100000)
    s = state(laptop)
    assert s["values"]["context"] == 32768
    assert "context: 100000 is not allowed (an integer from 16 to 32768)" in s["message"]
    enter(laptop, "base", 1)
    s = state(laptop)
    assert "base: 1 is not allowed (a number above 1)" in s["message"]
    # any base above 1 is taken, beyond the slider's ends too
    enter(laptop, "base", 1.5)
    s = state(laptop)
    assert s["values"]["base"] == 1.5 and "base" not in s["message"]
    enter(laptop, "base", 1e9)
    assert state(laptop)["values"]["base"] == 1e9
    assert laptop.errors == []


def test_the_canvas_redraws_at_its_new_width(browser: Any, page_url: str) -> None:
    watched = Watched(browser, page_url, viewport={"width": 1366, "height": 900})
    try:
        wide = state(watched)["plot"]
        assert wide["height"] < wide["width"], "three panels side by side"
        watched.page.set_viewport_size({"width": 390, "height": 900})
        watched.page.wait_for_timeout(200)
        settle(watched)
        narrow = state(watched)["plot"]
        assert narrow["width"] < wide["width"] and narrow["width"] <= 390
        assert narrow["height"] > 2 * narrow["width"], "stacked panels on a phone"
        tops = [ax["top"] for ax in narrow["axes"]]
        assert tops == sorted(tops) and len(tops) == 3
        assert watched.errors == []
    finally:
        watched.close()
