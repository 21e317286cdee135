"""Chapter 9's live ALiBi explorer: what it draws is posenc's, and its controls behave.

The checks every live explorer gets (the canvas in place of the PNG, values no frame had, text
size, redraw time, the fallbacks) are in ``test_live_explorers.py``; these read back what the
ALiBi drawer (``book/ext/twin_static/drawers/alibi.js``) computed and drew, and try its number
boxes and sliders the way a reader would, refused entries included.
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

from book.explorers.alibi import alibi_explorer
from book.figures.alibi import _content_free_weights, _slope_label
from posenc.alibi import alibi_bias, alibi_slopes

from .live import PIXELS, Watched, enter, live_page, settle, state

pytestmark = pytest.mark.xdist_group("test_live_alibi")  # one page, on one worker

TITLE = "ALiBi: one query's bias and attention, head by head"
# what the drawer computed, as plain arrays
DATA = """() => {
  const d = document.querySelector('canvas.posenc-explorer-canvas').posencData;
  return {query: d.query, slopes: d.slopes, labels: d.labels, keys: Array.from(d.keys),
    bias: d.bias.map(b => Array.from(b)), weights: d.weights.map(w => Array.from(w)),
    yTicks: d.yTicks, colours: d.colours};
}"""


@pytest.fixture(scope="module")
def page_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    folder: Path = tmp_path_factory.mktemp("live_alibi")
    return live_page(folder, alibi_explorer().static_html()).as_uri()


@pytest.fixture(scope="module")
def laptop(browser: Any, page_url: str) -> Iterator[Watched]:
    watched = Watched(browser, page_url, viewport={"width": 1366, "height": 768})
    try:
        yield watched
    finally:
        watched.close()


@pytest.mark.parametrize(
    "heads,causal,tokens",
    [(24, False, 101), (5, True, 9), (64, True, 401), (1, False, 3)],
)
def test_what_is_drawn_is_posencs_for_values_no_frame_had(
    laptop: Watched, heads: int, causal: bool, tokens: int
) -> None:
    """Heads were {4, 8, 12, 16} and tokens 41: the slopes (non-powers of two too), the bias
    and the content-free attention of the middle query, as posenc computes them."""
    for name, value in {"heads": heads, "causal": causal, "tokens": tokens}.items():
        enter(laptop, name, value)
    s = state(laptop)
    assert s["values"] == {"heads": heads, "causal": causal, "tokens": tokens}
    assert s["message"] == ""
    causal_word = "True" if causal else "False"
    assert s["label"] == f"{TITLE} (heads {heads}, causal {causal_word}, tokens {tokens})"
    got = laptop.page.evaluate(DATA)
    i = tokens // 2
    assert got["query"] == i
    assert got["keys"] == list(range(-i, tokens - i))
    slopes = alibi_slopes(heads)
    assert got["slopes"] == pytest.approx(slopes.tolist(), rel=1e-12)
    assert got["labels"] == [_slope_label(m) for m in slopes.tolist()]
    bias = alibi_bias(tokens, tokens, heads, causal=causal, dtype=torch.float64)[:, i]
    assert np.array(got["bias"]) == pytest.approx(bias.numpy(), rel=1e-9, abs=1e-12)
    weights = _content_free_weights(heads, tokens, i, causal=causal)
    assert np.array(got["weights"]) == pytest.approx(weights.numpy(), rel=1e-9, abs=1e-15)
    floor = -float(slopes.max()) * i
    assert got["yTicks"] == sorted({round(floor), 0})
    assert laptop.errors == []


def test_the_lines_have_matplotlibs_colours(browser: Any, page_url: str) -> None:
    """4 causal heads: a point well inside each head's bias line, near the far left where the
    lines are apart, is painted with viridis at linspace(0, 0.9, 4), as in the figure; the
    masked keys are shaded 0.9 grey."""
    watched = Watched(
        browser, page_url, viewport={"width": 1366, "height": 900}, device_scale_factor=3
    )
    try:
        enter(watched, "heads", 4)
        got = watched.page.evaluate(
            """() => {
              const c = document.querySelector('canvas.posenc-explorer-canvas');
              const d = c.posencData, plot = c.posencPlot, ax = plot.axes[0], dpr = plot.dpr;
              const ctx = c.getContext('2d');
              const at = (x, y) => {
                const px = ax.left + (x - ax.xlim[0]) / (ax.xlim[1] - ax.xlim[0]) * ax.width;
                const py = ax.top + ax.height - (y - ax.ylim[0]) / (ax.ylim[1] - ax.ylim[0]) * ax.height;
                return Array.from(ctx.getImageData(Math.round(px * dpr), Math.round(py * dpr), 1, 1).data.slice(0, 3));
              };
              const x = -d.query + 1.5;
              return {lines: d.slopes.map(m => at(x, -m * (d.query - 1.5))),
                masked: at(d.query / 4, ax.ylim[0] + 0.1 * (ax.ylim[1] - ax.ylim[0]))};
            }"""
        )
        want = colormaps["viridis"](np.linspace(0.0, 0.9, 4), bytes=True)[:, :3]
        assert got["lines"] == want.tolist()
        assert got["masked"] == [230, 230, 230]
        assert watched.errors == []
    finally:
        watched.close()


def test_every_control_takes_a_value_as_a_reader_enters_it(laptop: Watched) -> None:
    enter(laptop, "heads", 8)
    enter(laptop, "causal", True)
    enter(laptop, "tokens", 41)
    # the number boxes
    for name, value in {"heads": 20, "tokens": 201}.items():
        before = laptop.page.evaluate(PIXELS)
        enter(laptop, name, value)
        s = state(laptop)
        assert s["values"][name] == value and s["sliders"][name] == str(value)
        assert laptop.page.evaluate(PIXELS) != before, name
    # the sliders: heads by one, tokens by two (odd numbers only)
    moves = {"heads": ("ArrowRight", 21), "tokens": ("ArrowLeft", 199)}
    for name, (key, value) in moves.items():
        before = laptop.page.evaluate(PIXELS)
        slider = laptop.page.locator(f'[data-role="slider"][data-name="{name}"]')
        slider.focus()
        slider.press(key)
        settle(laptop)
        s = state(laptop)
        assert s["values"][name] == value and s["entries"][name] == str(value), name
        assert laptop.page.evaluate(PIXELS) != before, name
    assert len(laptop.page.evaluate(DATA)["slopes"]) == 21
    # the checkbox
    before = laptop.page.evaluate(PIXELS)
    laptop.page.locator('[data-role="index"][data-name="causal"]').click()
    settle(laptop)
    assert state(laptop)["values"]["causal"] is False
    assert laptop.page.evaluate(PIXELS) != before
    assert laptop.errors == []


def test_a_refused_entry_is_named_and_replaced_by_the_nearest_allowed_value(
    laptop: Watched,
) -> None:
    enter(laptop, "tokens", 40)
    s = state(laptop)
    assert s["values"]["tokens"] == 41 and s["entries"]["tokens"] == "41"
    refused = "tokens: 40 is not allowed (an odd number from 3 to 401); drawn with 41."
    assert refused in s["message"]
    enter(laptop, "heads", 0)
    s = state(laptop)
    assert s["values"]["heads"] == 1
    assert "heads: 0 is not allowed (an integer from 1 to 64); drawn with 1." in s["message"]
    enter(laptop, "heads", 100)
    assert state(laptop)["values"]["heads"] == 64
    enter(laptop, "heads", 8)
    assert "heads" not in state(laptop)["message"]
    assert laptop.errors == []


def test_the_canvas_redraws_at_its_new_width(browser: Any, page_url: str) -> None:
    watched = Watched(browser, page_url, viewport={"width": 1366, "height": 900})
    try:
        wide = state(watched)["plot"]
        assert wide["axes"][0]["top"] == wide["axes"][1]["top"], "side by side"
        watched.page.set_viewport_size({"width": 390, "height": 900})
        watched.page.wait_for_timeout(200)
        settle(watched)
        narrow = state(watched)["plot"]
        assert narrow["width"] < wide["width"] and narrow["width"] <= 390
        assert narrow["axes"][1]["top"] > narrow["axes"][0]["top"] + narrow["axes"][0]["height"]
        assert narrow["height"] > narrow["width"], "stacked panels on a phone"
        assert watched.errors == []
    finally:
        watched.close()


def test_slope_labels_round_as_python_does() -> None:
    """The drawer rounds the exponents as round(x, 2) does (ties to even: -0.375 -> -0.38);
    the ties are real for 64 heads."""
    exponents = [math.log2(m) for m in alibi_slopes(64).tolist()]
    assert any(abs(e * 100 - round(e * 100)) == 0.5 for e in exponents)
