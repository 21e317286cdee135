"""The chapter 7 explorer: every control changes the picture; the static page holds each image."""

from __future__ import annotations

import base64
import json
import re

import numpy as np
import pytest

from book.explorers.window import window_bias_explorer
from book.figures.png import palette_png


def test_controls_and_defaults():
    ex = window_bias_explorer()
    assert [c.name for c in ex.controls] == ["window", "query", "sign"]
    assert [c.kind for c in ex.controls] == ["select", "select", "select"]
    assert ex.controls[0].values == ((2, 3), (3, 4), (4, 3), (7, 7))
    assert ex.controls[0].labels == ("2×3", "3×4", "4×3", "7×7")
    assert ex.controls[1].values == ("top-left", "centre", "bottom-right")
    assert ex.controls[2].values == ("swin", "shaw")
    assert ex.controls[2].labels == ("query − key (Swin)", "key − query (Shaw)")
    assert ex.n_combinations == 24
    first = {c.name: c.values[c.default_index] for c in ex.controls}
    assert first == {"window": (3, 4), "query": "centre", "sign": "swin"}
    fig = ex.figure()
    index_row = np.asarray(fig.axes[0].images[0].get_array())
    assert index_row.shape == (3, 4) and len(fig.axes[0].images) == 2 + 2 * 4
    # the centre query of a 3 x 4 window is cell (1, 1), token 5: offset (0, 0) is table row
    # (5·7 − 1)/2 = 17; with the key on its left (token 4) at offset (0, +1), row 18
    assert index_row[1, 1] == 17 and index_row[1, 0] == 18


def test_the_sign_control_reads_the_transpose():
    ex = window_bias_explorer()
    swin = np.asarray(ex.figure(sign="swin").axes[0].images[0].get_array())
    shaw = np.asarray(ex.figure(sign="shaw").axes[0].images[0].get_array())
    # key − query: the key on the left reads the row of offset (0, −1), 16
    assert shaw[1, 1] == 17 and shaw[1, 0] == 16
    np.testing.assert_array_equal(shaw, 34 - swin)  # offsets negated: rows mirrored about 17


def test_every_control_changes_the_image():
    ex = window_bias_explorer()
    base = ex.png()
    changes = (
        {"window": (2, 3)},
        {"window": (4, 3)},
        {"window": (7, 7)},
        {"query": "top-left"},
        {"query": "bottom-right"},
        {"sign": "shaw"},
    )
    for change in changes:
        assert ex.png(**change) != base, change


def test_static_html_holds_every_distinct_image_and_stays_small():
    ex = window_bias_explorer(windows=((2, 3), (3, 4)), queries=("top-left", "centre"))
    html = ex.static_html()
    data = json.loads(re.search(r"var data = (\{.*?\});\n", html).group(1))
    assert data["shape"] == [2, 2, 2]
    distinct = {ex.png(**ex._values(key)) for key in ex.all_indices()}
    assert len(distinct) == ex.n_combinations == 8 == len(data["images"])
    for png in distinct:
        assert base64.b64encode(palette_png(png, ex.colors)).decode("ascii") in html
    assert html.count("<select") == 3 and "query − key (Swin)" in html
    # the book's page must stay under 3 MB: 24 images, none of the small windows over 75 kB
    # in the page (the palette PNG it stores; the live widget shows the full 2x PNG)
    assert ex.colors == 32  # the page's palette for this explorer's many tall frames
    assert all(len(palette_png(png, ex.colors)) < 75_000 for png in distinct)
    assert len(palette_png(ex.png(window=(3, 4), query="centre"), ex.colors)) < 75_000


def test_live_widget_redraws_and_bad_arguments():
    ex = window_bias_explorer(defaults={"window": (2, 3)})
    widget = ex.widget
    before = widget.image.value
    widget.inputs[2].value = "shaw"
    assert widget.image.value != before
    with pytest.raises(ValueError, match="queries must be among"):
        window_bias_explorer(queries=("middle",))
    with pytest.raises(ValueError, match="conventions must be among"):
        window_bias_explorer(conventions=("key-query",))
    with pytest.raises(ValueError, match=r"default \(5, 5\) of control 'window'"):
        window_bias_explorer(defaults={"window": (5, 5)})


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        ({"windows": ()}, ValueError, "windows must hold at least one"),
        ({"windows": ((-1, 2),)}, ValueError, "windows\\[0\\]\\[0\\] must be positive"),
        ({"windows": ((8, 2),)}, ValueError, "windows must be at most \\(7, 7\\) each"),
        ({"windows": ((2,),)}, ValueError, "windows\\[0\\] must have two entries"),
        ({"windows": "34"}, TypeError, "windows must be a sequence"),
        ({"windows": ((True, 2),)}, TypeError, "windows\\[0\\]\\[0\\] must be an integer"),
        ({"queries": ()}, ValueError, "queries must hold at least one"),
        ({"queries": ("middle",)}, ValueError, "queries must be among"),
        ({"conventions": ()}, ValueError, "conventions must hold at least one"),
        ({"conventions": "swin"}, TypeError, "conventions must be a sequence"),
        ({"defaults": 2}, TypeError, "defaults must be a mapping"),
    ],
)
def test_explorer_refuses_bad_control_values(kwargs, error, match):
    with pytest.raises(error, match=match):
        window_bias_explorer(**kwargs)
