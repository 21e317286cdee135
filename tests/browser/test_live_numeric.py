"""Chapter 2's live explorer: what it draws is posenc's and the figure's, and its controls behave.

The checks every live explorer gets (the canvas in place of the PNG, values no frame had, text
size, redraw time, the fallbacks) are in ``test_live_explorers.py``; these read back what the
numeric drawer (``book/ext/twin_static/drawers/numeric.js``) computed and drew: the codes
(posenc's float32 tables), the closest pair, the neighbour step and the distances
(``book.demos.numeric``), the titles and tick labels matplotlib writes for the same values
(``book.figures.numeric.numeric_codes_figure``), the heatmap's colours (magma), and try its
number boxes, sliders and drop-down the way a reader would, refused entries included.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from matplotlib import colormaps
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_hex

from book.demos.numeric import adjacent_distances, closest_distinct_pair, pairwise_distances
from book.explorers.numeric import numeric_explorer
from book.figures.numeric import encoding_table, numeric_codes_figure

from .live import (
    LAPTOP,
    Watched,
    drawn,
    enter,
    enter_new_values,
    enter_values,
    live_fixtures,
    live_page,
    on_a_phone,
    opened,
    pixels,
    press_sliders,
    refused,
    slide,
    state,
)

pytestmark = pytest.mark.xdist_group("test_live_numeric")  # its pages, on one worker

TITLE = "Naive position codes: α and T"
# values no pre-rendered frame had: alphas were {0.5, 2, 8, 32}, lengths {20, 60}
NEW_VALUES = {"encoding": "circle", "alpha": 1, "T": 50}

# Draw with the page's drawer at `values` (no control moved): the same function the controls
# call, for values a control need not offer (every encoding, exact ties, tiny codes).
DRAW = """(values) => {
  const c = document.querySelector('canvas.posenc-explorer-canvas');
  window.posencExplorers.numeric(c, values, null);
}"""


folder, page_url, laptop = live_fixtures("numeric")


@pytest.fixture(scope="module")
def every_code(browser: Any, folder: Path) -> Iterator[Watched]:
    """A page offering all four codes (the raw and normalised index as well)."""
    html = numeric_explorer(encodings=("index", "normalized", "sine", "circle")).static_html()
    with opened(browser, live_page(folder / "all", html).as_uri(), viewport=LAPTOP) as watched:
        yield watched


def expected(kind: str, alpha: float, n: int) -> dict[str, Any]:
    """What the chapter's Python computes and matplotlib writes for these values."""
    table = encoding_table(kind, n, alpha=alpha)
    i, j, dist = closest_distinct_pair(table)
    fig = numeric_codes_figure(kind, alpha, n)
    FigureCanvasAgg(fig).draw()  # tick labels are written when drawn
    codes, heat = fig.axes[0], fig.axes[1]
    bar = heat.child_axes[-1]
    return {
        "table": table,
        "i": i,
        "j": j,
        "dist": dist,
        "step": float(adjacent_distances(table).min()),
        "vmax": float(pairwise_distances(table).max()),
        "titles": [codes.get_title(), heat.get_title()],
        "xlim": list(codes.get_xlim()),
        "ylim": list(codes.get_ylim()),
        "yLabels": [t.get_text() for t in codes.get_yticklabels()],
        "cellLabels": [t.get_text() for t in heat.get_xticklabels()],
        "barLabels": [t.get_text() for t in bar.get_yticklabels()],
        "offsets": [
            codes.yaxis.get_offset_text().get_text(),
            bar.yaxis.get_offset_text().get_text(),
        ],
        # the dots of each channel (not the rings: matplotlib gives them a colour of the
        # cycle too, so the cosine's dots are green when a pair is circled, orange otherwise)
        "colors": [to_hex(line.get_color()) for line in codes.lines if line.get_label()[0] != "_"],
        "marked": len(codes.lines) > table.shape[1],
    }


def check_drawn(got: dict[str, Any], kind: str, alpha: float, n: int) -> None:
    want = expected(kind, alpha, n)
    # the codes are posenc's float32 values, exactly
    assert got["table"] == want["table"].tolist(), (kind, alpha, n)
    for key in ("i", "j", "titles", "yLabels", "cellLabels", "barLabels", "offsets", "colors"):
        assert got[key] == want[key], (key, kind, alpha, n)
    assert got["marked"] == want["marked"]
    for key in ("dist", "step", "vmax"):
        assert got[key] == pytest.approx(want[key], rel=1e-12, abs=0), (key, kind, alpha, n)
    for key in ("xlim", "ylim"):
        assert got[key] == pytest.approx(want[key], rel=1e-12, abs=1e-12), (key, kind, alpha, n)


def test_every_control_takes_a_value_no_frame_had_and_the_drawing_is_the_figures(
    laptop: Watched,
) -> None:
    s = enter_new_values(laptop, NEW_VALUES)
    assert s["label"] == f"{TITLE} (encoding sin & cos(p/α), alpha 1, T 50)"
    assert s["sliders"]["T"] == "50"
    assert float(s["sliders"]["alpha"]) == pytest.approx(0.0)  # log10(1)
    got = drawn(laptop)
    check_drawn(got, "circle", 1.0, 50)
    # the chapter's example: positions 4 and 48, 44 apart, 0.018 apart
    assert (got["i"], got["j"]) == (4, 48) and "(distance 0.018)" in got["titles"][0]
    # every distance the heatmap shows is posenc's
    table = encoding_table("circle", 50, alpha=1.0)
    dmat = pairwise_distances(table)
    picks = [(0, 1), (4, 48), (48, 4), (17, 17), (0, 49), (23, 31)]
    distances = laptop.page.evaluate(
        "(picks) => picks.map(([i, j]) => document.querySelector("
        "'canvas.posenc-explorer-canvas').posencData.distance(i, j))",
        picks,
    )
    assert distances == pytest.approx([float(dmat[i, j]) for i, j in picks], rel=1e-12, abs=0)
    # the chapter's three rows at T = 1000: collisions 710 and 201 apart, then neighbours
    enter(laptop, "T", 1000)
    for alpha, apart in ((1, 710), (16, 201), (160, 1)):
        enter(laptop, "alpha", alpha)
        got = drawn(laptop)
        assert got["j"] - got["i"] == apart, alpha
        check_drawn(got, "circle", float(alpha), 1000)
    enter(laptop, "encoding", "sine")
    check_drawn(drawn(laptop), "sine", 160.0, 1000)
    assert laptop.errors == []


@pytest.mark.parametrize(
    ("kind", "alpha", "n"),
    [
        ("index", 1.0, 126),  # ticks 0, 62, 120: 62.5 and 125 rounded half to even
        ("normalized", 1.0, 17),  # a step of exactly 0.0625, written 0.062
        ("normalized", 1.0, 2),
        ("index", 1.0, 1000),
        ("sine", 1.0, 10),  # a mirror pair: 1 and 2
        ("sine", 2.0, 10),
        ("circle", 2.0, 10),  # no full turn: every neighbour pair ties, none circled
        ("circle", 0.5, 3),
        ("circle", 1000.0, 2),
        ("sine", 0.1, 1000),
        ("circle", 7.3, 333),
        ("sine", 1 / math.pi, 300),  # codes below 1e-12: labels in units of 1e−13
        ("circle", 1 / (2 * math.pi), 300),  # every pair ties
    ],
)
def test_every_code_is_drawn_as_the_figure_draws_it(
    every_code: Watched, kind: str, alpha: float, n: int
) -> None:
    every_code.page.evaluate(DRAW, {"encoding": kind, "alpha": alpha, "T": n})
    check_drawn(drawn(every_code), kind, alpha, n)
    assert every_code.errors == []


def test_every_slider_moves_its_value_and_the_number_box(laptop: Watched) -> None:
    enter_values(laptop, {"encoding": "sine", "alpha": 0.5, "T": 20})
    press_sliders(laptop, {"T": ("ArrowRight", 21)})
    # the alpha slider runs over log10(alpha): 10^1.2 is shown as 15.8 (3 significant digits)
    s = slide(laptop, "alpha", 1.2)
    assert s["values"]["alpha"] == 15.8 and s["entries"]["alpha"] == "15.8"
    aria = laptop.page.locator('[data-role="slider"][data-name="alpha"]')
    assert aria.get_attribute("aria-valuetext") == "15.8"
    check_drawn(drawn(laptop), "sine", 15.8, 21)
    assert laptop.errors == []


def test_a_refused_entry_is_named_and_replaced_by_the_nearest_allowed_value(
    laptop: Watched,
) -> None:
    refused(laptop, "alpha", 0.05, 0.1, "a number from 0.1 to 1000")
    refused(laptop, "T", 1500, 1000, "an integer from 2 to 1000")
    enter_values(laptop, {"alpha": 2, "T": 20})
    s = state(laptop)
    assert s["message"] == "" and (s["values"]["alpha"], s["values"]["T"]) == (2, 20)
    assert laptop.errors == []


def test_the_heatmap_has_matplotlibs_colours(laptop: Watched) -> None:
    """At T = 12 (no sampling, cells several pixels wide): cell (i, j) is painted with the
    colour imshow gives ‖PE(i) − PE(j)‖ on magma from 0 to the largest distance."""
    enter_values(laptop, {"encoding": "circle", "alpha": 3, "T": 12})
    picks = [(0, 0), (0, 1), (3, 9), (5, 2), (11, 0), (7, 7)]
    got = pixels(laptop, 1, [(j, i) for i, j in picks])
    dmat = pairwise_distances(encoding_table("circle", 12, alpha=3.0)).numpy()
    cmap = colormaps["magma"]
    for (i, j), rgb in zip(picks, got, strict=True):
        want = cmap(dmat[i, j] / dmat.max(), bytes=True)[:3]
        assert rgb == [int(v) for v in want], (i, j)
    # the colour bar: bin k of magma at the height of the values it stands for (a band of
    # 256 in some 200 px: the pixel may show a neighbouring bin)
    top = max(float(dmat.max()), 2.0)  # the bar's axis reaches its top tick, 2.0
    bins = [1, 100, 254]
    ys = [1 - dmat.max() * (k + 0.5) / 256 / top for k in bins]  # from the top, in bar heights
    colours = laptop.page.evaluate(
        """(ys) => {
          const c = document.querySelector('canvas.posenc-explorer-canvas');
          const bar = c.posencPlot.axes[2], dpr = c.posencPlot.dpr;
          const ctx = c.getContext('2d');
          const x = Math.round((bar.left + bar.width / 2) * dpr);
          return ys.map(y => Array.from(ctx.getImageData(
            x, Math.round((bar.top + y * bar.height) * dpr), 1, 1).data.slice(0, 3)));
        }""",
        ys,
    )
    lut = cmap(np.arange(256), bytes=True)[:, :3]
    for k, rgb in zip(bins, colours, strict=True):
        assert rgb in lut[k - 1 : k + 2].tolist(), k
    assert laptop.errors == []


def test_the_canvas_redraws_at_its_new_width(browser: Any, page_url: str) -> None:
    with opened(browser, page_url, viewport={"width": 1366, "height": 900}) as watched:
        wide = state(watched)["plot"]
        assert wide["axes"][0]["top"] == wide["axes"][1]["top"], "side by side"
        narrow = on_a_phone(watched, wide)
        assert narrow["height"] > narrow["width"], "stacked panels on a phone"
        codes, heat = narrow["axes"][0], narrow["axes"][1]
        assert heat["top"] > codes["top"] + codes["height"], "the heatmap below the codes"
        assert watched.errors == []
