"""Chapter 9's live ALiBi explorer: what it draws is posenc's, and its controls behave.

The checks every live explorer gets (the canvas in place of the PNG, values no frame had, text
size, redraw time, the fallbacks) are in ``test_live_explorers.py``; these read back what the
ALiBi drawer (``book/ext/twin_static/drawers/alibi.js``) computed and drew, and try its number
boxes and sliders the way a reader would, refused entries included.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import torch
from matplotlib import colormaps

from book.figures.alibi import _content_free_weights, _slope_label
from posenc.alibi import alibi_bias, alibi_slopes

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
    state,
    toggle,
)

pytestmark = pytest.mark.xdist_group("test_live_alibi")  # one page, on one worker

TITLE = "ALiBi: one query's bias and attention, head by head"

folder, page_url, laptop = live_fixtures("alibi")


@pytest.mark.parametrize(
    "heads,causal,tokens",
    [(24, False, 101), (5, True, 9), (64, True, 401), (1, False, 3)],
)
def test_what_is_drawn_is_posencs_for_values_no_frame_had(
    laptop: Watched, heads: int, causal: bool, tokens: int
) -> None:
    """Heads were {4, 8, 12, 16} and tokens 41: the slopes (non-powers of two too), the bias
    and the content-free attention of the middle query, as posenc computes them."""
    enter_values(laptop, {"heads": heads, "causal": causal, "tokens": tokens})
    s = state(laptop)
    assert s["values"] == {"heads": heads, "causal": causal, "tokens": tokens}
    assert s["message"] == ""
    causal_word = "True" if causal else "False"
    assert s["label"] == f"{TITLE} (heads {heads}, causal {causal_word}, tokens {tokens})"
    got = drawn(laptop)
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
    viewport = {"width": 1366, "height": 900}
    with opened(browser, page_url, viewport=viewport, device_scale_factor=3) as watched:
        enter(watched, "heads", 4)
        d = drawn(watched, "query", "slopes")
        low, high = state(watched)["plot"]["axes"][0]["ylim"]
        x = -d["query"] + 1.5
        lines = pixels(watched, 0, [(x, -m * (d["query"] - 1.5)) for m in d["slopes"]])
        masked = pixels(watched, 0, [(d["query"] / 4, low + 0.1 * (high - low))])
        want = colormaps["viridis"](np.linspace(0.0, 0.9, 4), bytes=True)[:, :3]
        assert lines == want.tolist()
        assert masked == [[230, 230, 230]]
        assert watched.errors == []


def test_every_control_takes_a_value_as_a_reader_enters_it(laptop: Watched) -> None:
    enter_values(laptop, {"heads": 8, "causal": True, "tokens": 41})
    # the number boxes
    enter_new_values(laptop, {"heads": 20, "tokens": 201}, sliders=True)
    # the sliders: heads by one, tokens by two (odd numbers only)
    press_sliders(laptop, {"heads": ("ArrowRight", 21), "tokens": ("ArrowLeft", 199)})
    assert len(drawn(laptop, "slopes")["slopes"]) == 21
    # the checkbox
    assert toggle(laptop, "causal")["values"]["causal"] is False
    assert laptop.errors == []


def test_a_refused_entry_is_named_and_replaced_by_the_nearest_allowed_value(
    laptop: Watched,
) -> None:
    refused(laptop, "tokens", 40, 41, "an odd number from 3 to 401")
    refused(laptop, "heads", 0, 1, "an integer from 1 to 64")
    refused(laptop, "heads", 100, 64)
    enter(laptop, "heads", 8)
    assert "heads" not in state(laptop)["message"]
    assert laptop.errors == []


def test_the_canvas_redraws_at_its_new_width(browser: Any, page_url: str) -> None:
    with opened(browser, page_url, viewport={"width": 1366, "height": 900}) as watched:
        wide = state(watched)["plot"]
        assert wide["axes"][0]["top"] == wide["axes"][1]["top"], "side by side"
        narrow = on_a_phone(watched, wide)
        assert narrow["axes"][1]["top"] > narrow["axes"][0]["top"] + narrow["axes"][0]["height"]
        assert narrow["height"] > narrow["width"], "stacked panels on a phone"
        assert watched.errors == []


def test_slope_labels_round_as_python_does() -> None:
    """The drawer rounds the exponents as round(x, 2) does (ties to even: -0.375 -> -0.38);
    the ties are real for 64 heads."""
    exponents = [math.log2(m) for m in alibi_slopes(64).tolist()]
    assert any(abs(e * 100 - round(e * 100)) == 0.5 for e in exponents)
