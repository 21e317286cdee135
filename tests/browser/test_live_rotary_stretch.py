"""Chapter 11's live explorer of RoPE's stretching methods: what it draws is posenc's, and its
controls behave.

The checks every live explorer gets are in ``test_live_explorers.py``; these read back what the
rotary_stretch drawer (``book/ext/twin_static/drawers/rotary_stretch.js``) computed for factors
no pre-rendered frame had, for every method, and compare them with ``posenc.rotary``'s
frequencies as the figure asks for them (``book.figures.rotary._stretch_frequencies``) in
float64, check the colours it painted against matplotlib's, and try its number box, slider and
drop-down the way a reader would, refused entries included.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from matplotlib.colors import to_rgb

from book.figures.rotary import _stretch_frequencies
from posenc.rotary import scaled_rotary_frequencies
from posenc.sinusoidal import sinusoidal_frequencies

from .live import (
    PIXELS,
    Watched,
    drawn,
    enter,
    live_fixtures,
    on_a_phone,
    opened,
    pixels,
    refused,
    settle,
    slide,
    state,
)

pytestmark = pytest.mark.xdist_group("test_live_rotary_stretch")  # one page, on one worker

TITLE = "Stretching RoPE: which pairs each method squeezes, against the trained length"
METHODS = ("linear", "ntk", "dynamic", "yarn", "llama3")
DIM, BASE, TRAINED = 128, 500000.0, 8192  # the explorer's head (Llama 3.1's)

folder, page_url, laptop = live_fixtures("rotary_stretch")


def expected(method: str, factor: float) -> dict[str, Any]:
    """What the figure computes for ``method`` at ``factor``
    (:func:`book.figures.rotary.rotary_stretch_figure`)."""
    plain = sinusoidal_frequencies(DIM, base=BASE).numpy()
    theta = _stretch_frequencies(method, DIM, BASE, factor, TRAINED, DIM // 4)
    wave = 2 * math.pi / plain
    stretched = 2 * math.pi / theta
    return {
        "plain": plain,
        "invFreq": theta,
        "wave": wave,
        "stretched": stretched,
        "squeeze": plain / theta,
        "top": max(max(wave.max(), stretched.max()) * 4, factor * TRAINED * 10),
        "highest": max(factor, float((plain / theta).max())),
        "unseen": int(np.flatnonzero(wave > TRAINED)[0]),
    }


@pytest.mark.parametrize("factor", [3, 2.7, 40])
def test_every_method_at_a_factor_no_frame_had_is_posencs(laptop: Watched, factor: float) -> None:
    enter(laptop, "factor", factor)
    for method in METHODS:
        before = laptop.page.evaluate(PIXELS)
        enter(laptop, "method", method)
        s = state(laptop)
        assert s["values"] == {"method": method, "factor": factor}
        assert s["message"] == "", s["message"]
        assert laptop.page.evaluate(PIXELS) != before, method
        got = drawn(laptop)
        want = expected(method, float(factor))
        for key in ("plain", "invFreq", "wave", "stretched", "squeeze"):
            assert got[key] == pytest.approx(want[key].tolist(), rel=1e-12), (method, key)
        for key in ("top", "highest"):
            assert got[key] == pytest.approx(want[key], rel=1e-12), (method, key)
        assert got["unseen"] == want["unseen"] == 35
    assert laptop.errors == []


def test_dynamic_ntk_rounds_its_length_as_python_does(laptop: Watched) -> None:
    """s·L₀ = 12288.5: dynamic NTK is drawn at round(12288.5) = 12288 (half to even), as the
    figure asks posenc for it."""
    factor = 12288.5 / 8192
    enter(laptop, "method", "dynamic")
    enter(laptop, "factor", factor)
    got = drawn(laptop)
    assert got["options"] == {
        "base": BASE,
        "factor": factor,
        "originalMaxPositions": TRAINED,
        "seqLen": 12288,
    }
    theta, _ = scaled_rotary_frequencies(
        DIM, "dynamic", base=BASE, factor=factor, original_max_positions=TRAINED, seq_len=12288
    )
    assert got["invFreq"] == pytest.approx(theta.tolist(), rel=1e-12)
    assert state(laptop)["label"] == f"{TITLE} (method dynamic, factor 1.50006)"
    assert laptop.errors == []


def test_the_shading_and_the_markers_have_matplotlibs_colours(laptop: Watched) -> None:
    """The pairs that never turned in training are shaded in grey 0.92; the method's markers
    are painted in its tab10 colour (YaRN: tab:red, linear: tab:blue)."""
    enter(laptop, "factor", 8)
    picks = {}
    for method in ("yarn", "linear"):
        enter(laptop, "method", method)
        stretched = drawn(laptop, "stretched")["stretched"]
        shade, clear = pixels(laptop, 1, [(50, math.log10(2)), (10, math.log10(2.5))])
        (marker,) = pixels(laptop, 0, [(60, math.log10(stretched[60]))])
        picks[method] = {"shade": shade, "clear": clear, "marker": marker}

    def rgb(colour: str) -> list[int]:
        return [round(255 * v) for v in to_rgb(colour)]

    assert picks["yarn"]["shade"] == rgb("0.92") and picks["yarn"]["clear"] == rgb("white")
    assert picks["yarn"]["marker"] == rgb("tab:red")
    assert picks["linear"]["marker"] == rgb("tab:blue")
    assert laptop.errors == []


def test_the_slider_moves_the_factor_and_the_number_box(laptop: Watched) -> None:
    enter(laptop, "method", "yarn")
    enter(laptop, "factor", 8)
    # the factor slider runs over log10(factor): 10^0.5 is shown as 3.16 (3 significant digits)
    s = slide(laptop, "factor", 0.5)
    assert s["values"]["factor"] == 3.16 and s["entries"]["factor"] == "3.16"
    slider = laptop.page.locator('[data-role="slider"][data-name="factor"]')
    slider.focus()
    slider.press("End")
    settle(laptop)
    assert state(laptop)["values"]["factor"] == 64
    assert laptop.errors == []


def test_a_refused_factor_is_named_and_any_factor_above_1_is_taken(laptop: Watched) -> None:
    enter(laptop, "factor", 4)
    refused(laptop, "factor", 1, 4, "a number above 1")
    refused(laptop, "factor", 0.5, 4)
    # beyond the slider's ends: 1.01 and 200 are drawn (the slider rests at its nearer end)
    for factor in (1.01, 200):
        enter(laptop, "factor", factor)
        s = state(laptop)
        assert s["values"]["factor"] == factor and "factor" not in s["message"]
    assert laptop.errors == []


def test_the_canvas_redraws_at_its_new_width(browser: Any, page_url: str) -> None:
    with opened(browser, page_url, viewport={"width": 1366, "height": 900}) as watched:
        wide = state(watched)["plot"]
        assert wide["height"] < wide["width"], "two panels side by side"
        narrow = on_a_phone(watched, wide)
        assert narrow["height"] > narrow["width"], "stacked panels on a phone"
        first, second = narrow["axes"]
        assert second["top"] > first["top"] + first["height"]
        assert watched.errors == []
