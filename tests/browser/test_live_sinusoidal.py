"""Chapter 3's live explorer: what it draws is posenc's, and its controls behave.

The checks every live explorer gets (the canvas in place of the PNG, values no frame had, text
size, redraw time, the fallbacks) are in ``test_live_explorers.py``; these read back what the
sinusoidal drawer (``book/ext/twin_static/drawers/sinusoidal.js``) computed and drew, and try
its number boxes and sliders the way a reader would, refused entries included.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from matplotlib import colormaps

from posenc.sinusoidal import sinusoidal_dot_product, sinusoidal_encoding

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
    settle,
    slide,
    state,
)

pytestmark = pytest.mark.xdist_group("test_live_sinusoidal")  # one page, on one worker

# values no pre-rendered frame had: dims were {16, 64}, bases {100, 1000, 10000}, lengths {128, 512}
NEW_VALUES = {"dim": 128, "base": 500, "positions": 300}

folder, page_url, laptop = live_fixtures("sinusoidal")


def test_every_number_box_takes_a_value_no_frame_had_and_the_drawing_follows(
    laptop: Watched,
) -> None:
    title = "Sinusoidal encoding: table and dot product against offset"
    s = enter_new_values(laptop, NEW_VALUES)
    assert s["label"] == f"{title} (dim 128, base 500, positions 300)"
    assert s["sliders"]["dim"] == "128" and s["sliders"]["positions"] == "300"
    assert float(s["sliders"]["base"]) == pytest.approx(np.log10(500), abs=0.01)
    # what was drawn is posenc's: the table and the dot product the drawer computed
    dim, base, n = 128, 500.0, 300
    table = sinusoidal_encoding(n, dim, base=base, dtype=torch.float64)
    picks = [(0, 0), (1, 1), (299, 1), (123, 64), (250, 127)]
    d = drawn(laptop, "table", "offsets", "dot")
    got = [d["table"][p][c] for p, c in picks]
    want = [float(table[p, c]) for p, c in picks]
    assert got == pytest.approx(want, rel=1e-9, abs=1e-12)
    ks = [-300, -17, 0, 5, 300]
    dots = [[d["offsets"][k + 300], d["dot"][k + 300]] for k in ks]
    expected = sinusoidal_dot_product(torch.tensor(ks, dtype=torch.float64), dim, base=base)
    assert [k for k, _ in dots] == ks
    assert [v for _, v in dots] == pytest.approx(expected.tolist(), rel=1e-9, abs=1e-9)
    assert laptop.errors == []


def test_every_slider_moves_its_value_and_the_number_box(laptop: Watched) -> None:
    enter_values(laptop, {"dim": 64, "base": 10000, "positions": 128})
    press_sliders(laptop, {"dim": ("ArrowRight", 66), "positions": ("ArrowLeft", 127)})
    # the base slider runs over log10(base): 10^2.7 is shown as 501 (3 significant digits)
    s = slide(laptop, "base", 2.7)
    assert s["values"]["base"] == 501 and s["entries"]["base"] == "501"
    aria = laptop.page.locator('[data-role="slider"][data-name="base"]')
    assert aria.get_attribute("aria-valuetext") == "501"
    assert laptop.errors == []


def test_a_refused_entry_is_named_and_replaced_by_the_nearest_allowed_value(
    laptop: Watched,
) -> None:
    refused(laptop, "dim", 127, 128, "an even number from 2 to 256")
    refused(laptop, "positions", 5000, 1024)
    base = state(laptop)["values"]["base"]
    s = refused(laptop, "base", 0.5, rule="a number above 1")
    assert s["values"]["base"] == base and s["entries"]["base"] == str(base)
    # any base above 1 is taken, beyond the slider's ends too
    enter(laptop, "base", 2.5)
    s = state(laptop)
    assert s["values"]["base"] == 2.5 and float(s["sliders"]["base"]) == pytest.approx(1.0)
    # while typing, a value out of range is not drawn, and named unless more digits may
    # make it right
    draws = s["draws"]
    box = laptop.page.locator('[data-role="entry"][data-name="positions"]')
    box.fill("7")
    settle(laptop)
    s = state(laptop)
    assert s["draws"] == draws and "positions" not in s["message"]
    assert box.get_attribute("aria-invalid") == "true"
    box.fill("5000")
    settle(laptop)
    s = state(laptop)
    assert s["draws"] == draws and "positions: 5000 is not allowed" in s["message"]
    assert box.get_attribute("aria-invalid") == "true"
    enter(laptop, "positions", 128)
    s = state(laptop)
    assert "positions" not in s["message"] and box.get_attribute("aria-invalid") is None
    assert laptop.errors == []


def test_the_heatmap_has_matplotlibs_colours(laptop: Watched) -> None:
    """At d = 4, 16 positions, base 10 (no averaging of rows): cell (p, c) is painted with
    the colour imshow gives PE(p, c)."""
    enter_values(laptop, {"dim": 4, "base": 10, "positions": 16})
    picks = [(0, 0), (0, 1), (3, 0), (5, 2), (15, 3)]
    got = pixels(laptop, 0, [(ch, p) for p, ch in picks])
    table = sinusoidal_encoding(16, 4, base=10.0, dtype=torch.float64).numpy()
    cmap = colormaps["RdBu_r"]
    for (p, c), rgb in zip(picks, got, strict=True):
        want = cmap((table[p, c] + 1) / 2, bytes=True)[:3]
        assert rgb == [int(v) for v in want], (p, c)


def test_the_canvas_redraws_at_its_new_width(browser: Any, page_url: str) -> None:
    with opened(browser, page_url, viewport={"width": 1366, "height": 900}) as watched:
        narrow = on_a_phone(watched, state(watched)["plot"])
        assert narrow["height"] > narrow["width"], "stacked panels on a phone"
        assert watched.errors == []
