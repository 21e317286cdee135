"""The chapter 6 explorer: every control changes the picture; the static page holds each image."""

from __future__ import annotations

import base64

import pytest

from book.explorers.shaw import shaw_index_explorer
from book.figures.png import palette_png


def test_controls_and_defaults():
    ex = shaw_index_explorer()
    assert [c.name for c in ex.controls] == ["n", "k"]
    assert ex.controls[0].values == (8, 16, 32) and ex.controls[1].values == (0, 1, 2, 4, 8)
    assert [c.kind for c in ex.controls] == ["slider", "slider"]
    assert ex.n_combinations == 15
    left, _ = ex.figure().axes
    assert left.images[0].get_array().shape == (16, 16)
    assert "clip(j − i, −2, 2)" in ex.figure().texts[0].get_text()
    assert left.patches[0].get_y() == 8 - 0.5  # the middle query is outlined
    with_query = shaw_index_explorer(queries=("first", "middle", "last"))
    assert [c.name for c in with_query.controls] == ["n", "k", "query"]
    assert with_query.controls[2].kind == "select" and with_query.n_combinations == 45
    assert with_query.figure().axes[0].patches[0].get_y() == 8 - 0.5


def test_every_control_changes_the_image():
    ex = shaw_index_explorer(queries=("first", "middle"))
    base = ex.png()
    assert ex.png(n=8) != base
    assert ex.png(k=4) != base
    assert ex.png(query="first") != base


def test_static_html_holds_every_distinct_image_and_stays_small():
    ex = shaw_index_explorer(lengths=(8, 16), distances=(0, 2), queries=("first", "last"))
    assert len(shaw_index_explorer().static_html()) < 15 * 40_000
    html = ex.static_html()
    distinct = {ex.png(**ex._values(key)) for key in ex.all_indices()}
    assert len(distinct) == ex.n_combinations == 8
    for data in distinct:
        assert base64.b64encode(palette_png(data)).decode("ascii") in html
    assert len(html) < 8 * 40_000  # each image well under 40 kB


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
        ({"queries": ()}, ValueError, "queries must hold at least one value"),
        ({"queries": ("centre",)}, ValueError, r"queries\[0\] must be one of"),
        ({"queries": (8,)}, ValueError, r"queries\[0\] must be < n = 8"),
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


def test_a_query_may_be_a_position_below_every_length():
    widget = shaw_index_explorer(lengths=(8, 16), distances=(2,), queries=("first", 3))
    assert [c.values for c in widget.controls if c.name == "query"] == [("first", 3)]
