"""Chapter 6's live explorer: what it draws is posenc's, and its controls behave.

The checks every live explorer gets (the canvas in place of the PNG, values no frame had, text
size, redraw time, the fallbacks) are in ``test_live_explorers.py``; these read back what the
shaw drawer (``book/ext/twin_static/drawers/shaw.js``) computed and drew: the index of
``posenc.shaw.shaw_relative_index``, the key term of the figure's own seeded random query and
table (``book.figures.shaw.shaw_key_bias_row``), and the colours of
``book.figures.shaw._index_colormap``; and they try its number boxes and sliders the way a
reader would, a query past the end of the sequence and refused entries included.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from matplotlib.colors import Normalize, to_rgb

from book.explorers.shaw import shaw_index_explorer
from book.figures.shaw import _index_colormap, shaw_key_bias_row
from posenc.shaw import shaw_relative_index

from .live import (
    PIXELS,
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
    state,
)

pytestmark = pytest.mark.xdist_group("test_live_shaw")  # one page, on one worker

TITLE = "Shaw relative index and the key bias of one query"
# values no pre-rendered frame had: lengths were {8, 16, 32}, k {0, 1, 2, 4, 8}, and the query
# was fixed at the middle
NEW_VALUES = {"n": 50, "k": 5, "query": 20}

folder, page_url, laptop = live_fixtures("shaw")


def test_every_number_box_takes_a_value_no_frame_had_and_the_drawing_follows(
    laptop: Watched,
) -> None:
    s = enter_new_values(laptop, NEW_VALUES)
    assert s["label"] == f"{TITLE} (n 50, k 5, query 20)"
    assert s["sliders"] == {"n": "50", "k": "5", "query": "20"}
    # what was drawn is posenc's: the index, and the key term of the figure's random vectors
    d = drawn(laptop)
    assert d["i"] == 20 and not d["clipped"]
    assert np.array_equal(np.array(d["index"]), shaw_relative_index(50, 50, 5).numpy())
    assert d["bias"] == pytest.approx(shaw_key_bias_row(50, 5, 20).tolist(), rel=1e-9, abs=1e-12)
    assert laptop.errors == []


@pytest.mark.parametrize(
    "values", [{"n": 16, "k": 2, "query": 8}, {"n": 32, "k": 8, "query": 0}, {"n": 8, "k": 0}]
)
def test_at_listed_values_the_bars_are_the_python_figures(
    laptop: Watched, values: dict[str, Any]
) -> None:
    """Same seeded numbers as the matplotlib figure: its bars' heights, to 1e-9."""
    enter_values(laptop, {"query": 4, **values})
    figure = shaw_index_explorer().figure(**{"query": 4, **values})
    paths = figure.axes[1].collections[0].get_paths()
    heights = [float(p.vertices[1, 1]) for p in paths]  # (j − 0.42, 0) → (j − 0.42, b)
    assert drawn(laptop)["bias"] == pytest.approx(heights, rel=1e-9, abs=1e-12)
    assert laptop.errors == []


def test_a_query_past_the_end_is_drawn_as_the_last_and_the_figure_says_so(
    laptop: Watched,
) -> None:
    enter_values(laptop, {"n": 50, "k": 5, "query": 20})
    before = laptop.page.evaluate(PIXELS)
    enter(laptop, "query", 100)
    s = state(laptop)
    assert s["values"]["query"] == 100 and s["message"] == ""
    assert s["label"] == f"{TITLE} (n 50, k 5, query 100)"
    assert laptop.page.evaluate(PIXELS) != before
    d = drawn(laptop)
    assert d["i"] == 49 and d["clipped"]
    assert d["bias"] == pytest.approx(shaw_key_bias_row(50, 5, 49).tolist(), rel=1e-9)
    # shrinking n below a query clips it too; growing n again frees it
    enter(laptop, "query", 40)
    enter(laptop, "n", 32)
    assert drawn(laptop)["i"] == 31
    enter(laptop, "n", 41)
    assert drawn(laptop)["i"] == 40 and not drawn(laptop)["clipped"]
    assert laptop.errors == []


def test_every_slider_moves_its_value_and_the_number_box(laptop: Watched) -> None:
    enter_values(laptop, {"n": 16, "k": 2, "query": 8})
    press_sliders(
        laptop, {"n": ("ArrowRight", 17), "k": ("ArrowRight", 3), "query": ("ArrowLeft", 7)}
    )
    d = drawn(laptop)
    assert d["i"] == 7
    assert d["bias"] == pytest.approx(shaw_key_bias_row(17, 3, 7).tolist(), rel=1e-9)
    assert laptop.errors == []


def test_a_refused_entry_is_named_and_replaced_by_the_nearest_allowed_value(
    laptop: Watched,
) -> None:
    refused(laptop, "k", 40, 32, "an integer from 0 to 32")
    s = refused(laptop, "query", 2.5)
    assert s["values"]["query"] in (2, 3)
    refused(laptop, "n", 500, 128, "an integer from 2 to 128")
    enter_values(laptop, {"n": 16, "k": 2, "query": 8})
    assert state(laptop)["message"] == ""
    assert laptop.errors == []


@pytest.mark.parametrize("k", [0, 1, 3, 8, 32])
def test_cells_and_bars_have_the_figures_colours(laptop: Watched, k: int) -> None:
    """Cell (i, j) of the index image and bar j are painted with the colour imshow gives the
    index I_ij through _index_colormap(k); the grey window is matplotlib's "0.9"."""
    n, query = 8, 3
    enter_values(laptop, {"n": n, "k": k, "query": query})
    index = shaw_relative_index(n, n, k).numpy()
    cmap, norm = _index_colormap(k), Normalize(-0.5, 2 * k + 0.5)

    def want(m: int) -> list[int]:
        return [int(v) for v in cmap(norm(m), bytes=True)[:3]]

    cells = [(0, 0), (0, 7), (2, 5), (6, 1), (7, 7), (5, 4)]  # (row i, column j), not row 3
    got = pixels(laptop, 0, [(j, i) for i, j in cells], floor=True)
    assert got == [want(index[i, j]) for i, j in cells]
    bias = shaw_key_bias_row(n, k, query)
    tops = [(j, float(np.clip(b, -3.1, 3.1)) / 2) for j, b in enumerate(bias)]
    assert pixels(laptop, 1, tops, floor=True) == [want(m) for m in index[query]]
    assert drawn(laptop)["colours"] == [
        "#{:02x}{:02x}{:02x}".format(*want(m)) for m in index[query]
    ]
    if k:  # above the query's own bar (q·w_0/√d < 0): inside the window
        grey = [round(255 * v) for v in to_rgb("0.9")]
        assert pixels(laptop, 1, [(query, 3.15)], floor=True) == [grey]
    assert laptop.errors == []


def test_named_queries_are_a_drop_down_and_every_one_draws(browser: Any, folder: Path) -> None:
    explorer = shaw_index_explorer(queries=("first", "middle", "last"))
    url = live_page(folder / "named", explorer.static_html()).as_uri()
    with opened(browser, url, viewport={"width": 1366, "height": 768}) as watched:
        assert state(watched)["values"] == {"n": 16, "k": 2, "query": "middle"}
        assert drawn(watched)["i"] == 8
        enter(watched, "n", 21)
        for query, i in (("first", 0), ("last", 20), ("middle", 10)):
            before = watched.page.evaluate(PIXELS)
            enter(watched, "query", query)
            assert state(watched)["values"]["query"] == query
            assert watched.page.evaluate(PIXELS) != before, query
            d = drawn(watched)
            assert d["i"] == i and not d["clipped"]
            assert d["bias"] == pytest.approx(shaw_key_bias_row(21, 2, query).tolist(), rel=1e-9)
        assert watched.errors == []


def test_the_canvas_redraws_at_its_new_width(browser: Any, page_url: str) -> None:
    with opened(browser, page_url, viewport={"width": 1366, "height": 900}) as watched:
        wide = state(watched)["plot"]
        assert wide["height"] < wide["width"], "side by side on a laptop"
        narrow = on_a_phone(watched, wide)
        assert narrow["height"] > narrow["width"], "stacked panels on a phone"
        image, bars = narrow["axes"]
        assert bars["top"] > image["top"] + image["height"], "the bars below the index"
        assert watched.errors == []
