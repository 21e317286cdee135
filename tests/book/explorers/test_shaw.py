"""The chapter 6 explorer: every control changes the picture; the page draws it live."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest

from book.explorers.explorer import LiveRange
from book.explorers.shaw import shaw_index_explorer
from book.figures.png import palette_png
from book.figures.shaw import shaw_key_bias_row


def test_controls_and_defaults():
    ex = shaw_index_explorer()
    assert [c.name for c in ex.controls] == ["n", "k", "query"]
    n, k, query = ex.controls
    assert n.values == (8, 16, 32) and k.values == (0, 1, 2, 4, 8)
    assert query.values == (0, 4, 8, 16, 31)
    assert [c.kind for c in ex.controls] == ["slider", "slider", "slider"]
    assert {c.name: c.values[c.default_index] for c in ex.controls} == {
        "n": 16,
        "k": 2,
        "query": 8,
    }
    assert ex.n_combinations == 75
    left, _ = ex.figure().axes
    assert left.images[0].get_array().shape == (16, 16)
    assert "clip(j − i, −2, 2)" in ex.figure().texts[0].get_text()
    assert left.patches[0].get_y() == 8 - 0.5  # the middle query is outlined
    with_query = shaw_index_explorer(queries=("first", "middle", "last"))
    assert [c.name for c in with_query.controls] == ["n", "k", "query"]
    named = with_query.controls[2]
    assert named.kind == "select" and named.live is None and with_query.n_combinations == 45
    assert named.values[named.default_index] == "middle"
    assert with_query.figure().axes[0].patches[0].get_y() == 8 - 0.5


def test_the_explorer_is_live_with_its_ranges():
    ex = shaw_index_explorer()
    assert ex.live == "shaw"
    ranges = {c.name: c.live for c in ex.controls}
    assert ranges == {
        "n": LiveRange(2, 128, step=1),
        "k": LiveRange(0, 32, step=1),
        "query": LiveRange(0, 127, step=1),
    }
    # the ranges widen to a listed length beyond them; a named query is a drop-down
    wider = shaw_index_explorer(lengths=(1, 200), queries=(0, 199))
    assert {c.name: c.live for c in wider.controls} == {
        "n": LiveRange(1, 200, step=1),
        "k": LiveRange(0, 32, step=1),
        "query": LiveRange(0, 199, step=1),
    }
    named = shaw_index_explorer(queries=("first", 3))
    assert [c.live is None for c in named.controls] == [False, False, True]
    # the page carries q·w^K_r/√d for r = −32..32, the figure's own seeded numbers: any n,
    # k and query gathers its bars from them
    data = ex.live_data
    assert data["distance"] == 32 and len(data["bias"]) == 65
    assert len(json.dumps(data)) < 2000
    bias = np.asarray(data["bias"])
    for n, k, i in [(16, 2, 8), (8, 0, 4), (32, 8, 0), (32, 4, 31), (50, 32, 20)]:
        offsets = np.clip(np.arange(n) - i, -k, k)
        np.testing.assert_allclose(bias[32 + offsets], shaw_key_bias_row(n, k, i), rtol=1e-12)


def test_every_control_changes_the_image():
    ex = shaw_index_explorer()
    base = ex.png()
    assert ex.png(n=8) != base
    assert ex.png(k=4) != base
    assert ex.png(query=0) != base
    # a query at or past the end is the last one, as the page draws it
    assert ex.png(n=8, query=16) == ex.png(n=8, query=31)
    last, _ = ex.figure(n=8, query=31).axes
    assert last.patches[0].get_y() == 7 - 0.5
    named = shaw_index_explorer(queries=("first", "middle"))
    assert named.png(query="first") != named.png()


def test_static_html_is_live_and_holds_the_default_figure_only():
    ex = shaw_index_explorer()
    html = ex.static_html()
    assert 'data-live="shaw"' in html and "data-live-data=" in html
    default = base64.b64encode(palette_png(ex.png())).decode("ascii")
    assert default in html and html.count("data:image/png;base64,") == 1
    assert len(html) < 60_000  # one figure, not 15 (about 300 kB pre-rendered)


def test_live_widget_redraws_and_bad_defaults():
    ex = shaw_index_explorer(defaults={"k": 1})
    widget = ex.widget
    before = widget.image.value
    widget.inputs[1].value = 8
    assert widget.image.value != before
    with pytest.raises(ValueError, match="default 3 of control 'k'"):
        shaw_index_explorer(defaults={"k": 3})


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        ({"lengths": ()}, ValueError, "lengths must hold at least one value"),
        ({"lengths": 3}, TypeError, "lengths must be a sequence"),
        ({"lengths": (True, 8)}, TypeError, r"lengths\[0\] must be an integer, got bool"),
        ({"lengths": (-1, 8)}, ValueError, r"lengths\[0\] must be positive"),
        ({"distances": "ab"}, TypeError, "distances must be a sequence"),
        ({"distances": (-1, 2)}, ValueError, r"distances\[0\] must be >= 0"),
        ({"distances": (2, 33)}, ValueError, r"distances\[1\] must be <= 32"),
        ({"queries": ()}, ValueError, "queries must hold at least one value"),
        ({"queries": ("centre",)}, ValueError, r"queries\[0\] must be one of"),
        ({"queries": (128,)}, ValueError, r"queries\[0\] must be < 128 \(the longest n\)"),
        ({"queries": (-1,)}, ValueError, r"queries\[0\] must be >= 0"),
        ({"queries": (2.5,)}, TypeError, r"queries\[0\]"),
        ({"queries": ("first", None)}, TypeError, r"queries\[1\]"),
        ({"defaults": "ab"}, TypeError, r"^defaults must be a mapping control name -> value"),
        ({"defaults": ["k"]}, TypeError, r"^defaults must be a mapping"),
    ],
)
def test_explorer_refuses_bad_values(kwargs, error, match):
    with pytest.raises(error, match=match):
        shaw_index_explorer(**kwargs)


def test_a_query_may_be_any_position_below_the_longest_n():
    widget = shaw_index_explorer(lengths=(8, 16), distances=(2,), queries=("first", 3))
    assert [c.values for c in widget.controls if c.name == "query"] == [("first", 3)]
    far = shaw_index_explorer(lengths=(8, 16), distances=(2,), queries=(3, 100))
    last = shaw_index_explorer(lengths=(8, 16), distances=(2,), queries=(7,))
    assert far.png(n=8, query=100) == last.png(n=8, query=7)
    assert far.figure(n=16, query=100).axes[0].patches[0].get_y() == 15 - 0.5
