"""The chapter 7 explorer: every control changes the picture; the page draws it live."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest
from matplotlib import colormaps

from book.explorers.explorer import LiveRange
from book.explorers.window import window_bias_explorer
from book.figures.png import palette_png


def test_controls_and_defaults():
    ex = window_bias_explorer()
    assert [c.name for c in ex.controls] == ["Wh", "Ww", "query", "sign"]
    assert [c.kind for c in ex.controls] == ["slider", "slider", "select", "select"]
    # the heights and widths of the windows 2×3, 3×4, 4×3 and 7×7
    assert ex.controls[0].values == (2, 3, 4, 7)
    assert ex.controls[1].values == (3, 4, 7)
    assert ex.controls[2].values == ("top-left", "centre", "bottom-right")
    assert ex.controls[3].values == ("swin", "shaw")
    assert ex.controls[3].labels == ("query − key (Swin)", "key − query (Shaw)")
    assert ex.n_combinations == 4 * 3 * 3 * 2
    first = {c.name: c.values[c.default_index] for c in ex.controls}
    assert first == {"Wh": 3, "Ww": 4, "query": "centre", "sign": "swin"}
    fig = ex.figure()
    index_row = np.asarray(fig.axes[0].images[0].get_array())
    assert index_row.shape == (3, 4) and len(fig.axes[0].images) == 2 + 2 * 4
    # the centre query of a 3 x 4 window is cell (1, 1), token 5: offset (0, 0) is table row
    # (5·7 − 1)/2 = 17; with the key on its left (token 4) at offset (0, +1), row 18
    assert index_row[1, 1] == 17 and index_row[1, 0] == 18
    # one window's sides: a tall one and a wide one from the same sliders
    tall = np.asarray(ex.figure(Wh=7, Ww=3).axes[0].images[0].get_array())
    assert tall.shape == (7, 3)


def test_the_explorer_is_live_with_its_ranges():
    ex = window_bias_explorer()
    assert ex.live == "window_bias"
    ranges = {c.name: c.live for c in ex.controls}
    assert ranges == {
        "Wh": LiveRange(1, 7, step=1),
        "Ww": LiveRange(1, 7, step=1),
        "query": None,
        "sign": None,
    }
    # the page carries the figure's 256 greys of the index cells (its colormap's bins, as
    # imshow paints them), nothing else: the twin computes the index, the drawer the tables
    data = ex.live_data
    assert set(data) == {"index_colors"} and len(json.dumps(data)) < 2000
    hex_colours = data["index_colors"]
    greys = np.array(
        [
            [int(hex_colours[6 * i + 2 * j : 6 * i + 2 * j + 2], 16) for j in range(3)]
            for i in range(256)
        ]
    )
    want = colormaps["Greys"](np.linspace(0.02, 0.36, 256), bytes=True)[:, :3]
    np.testing.assert_array_equal(greys, want)
    # a window no listed pair gives (1 × 7), as the page may draw it: the figure draws it too
    fig = ex.figure(Wh=1, Ww=7)
    assert np.asarray(fig.axes[0].images[0].get_array()).shape == (1, 7)


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
        {"Wh": 2, "Ww": 3},
        {"Wh": 4, "Ww": 3},
        {"Wh": 7, "Ww": 7},
        {"Wh": 2},
        {"Ww": 7},
        {"query": "top-left"},
        {"query": "bottom-right"},
        {"sign": "shaw"},
    )
    for change in changes:
        assert ex.png(**change) != base, change


def test_static_html_is_live_and_holds_the_default_figure_only():
    ex = window_bias_explorer()
    html = ex.static_html()
    assert 'data-live="window_bias"' in html and "data-live-data=" in html
    default = base64.b64encode(palette_png(ex.png(), ex.colors)).decode("ascii")
    assert default in html and html.count("data:image/png;base64,") == 1
    assert html.count("<select") == 2 and "query − key (Swin)" in html
    assert html.count('type="range"') == 2 and html.count('type="number"') == 2
    assert ex.colors == 32  # the one tall frame of flat cells
    assert len(html) < 100_000  # one figure, not 24 (about 1.5 MB pre-rendered)


def test_live_widget_redraws_and_bad_arguments():
    ex = window_bias_explorer(defaults={"Wh": 2, "Ww": 3})
    widget = ex.widget
    before = widget.image.value
    widget.inputs[3].value = "shaw"
    assert widget.image.value != before
    before = widget.image.value
    widget.inputs[0].value = 7
    assert widget.image.value != before
    with pytest.raises(ValueError, match="queries must be among"):
        window_bias_explorer(queries=("middle",))
    with pytest.raises(ValueError, match="conventions must be among"):
        window_bias_explorer(conventions=("key-query",))
    with pytest.raises(ValueError, match=r"default 5 of control 'Wh'"):
        window_bias_explorer(defaults={"Wh": 5})


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
