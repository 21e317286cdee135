"""The chapter 7 explorer: every control changes the picture; the static page holds each image."""

from __future__ import annotations

import base64
import json
import re

import numpy as np
import pytest

from posenc.widgets.window import window_bias_explorer


def test_controls_and_defaults():
    ex = window_bias_explorer()
    assert [c.name for c in ex.controls] == ["Wh", "Ww", "heads", "query"]
    assert [c.kind for c in ex.controls] == ["slider", "slider", "slider", "select"]
    assert ex.controls[0].values == (3, 7) and ex.controls[1].values == (4, 7)
    assert ex.controls[2].values == (1, 2, 3)
    assert ex.controls[3].values == ("top-left", "centre", "bottom-right")
    assert ex.n_combinations == 36
    first = {c.name: c.values[c.default_index] for c in ex.controls}
    assert first == {"Wh": 3, "Ww": 4, "heads": 3, "query": "centre"}
    fig = ex.figure()
    index_row = np.asarray(fig.axes[0].images[0].get_array())
    assert index_row.shape == (3, 4) and len(fig.axes[0].images) == 2 + 2 * 3
    # the centre query of a 3 x 4 window is token 5: offset (0, 0) is table row (5·7 − 1)/2 = 17
    assert index_row[1, 1] == 17


def test_every_control_changes_the_image():
    ex = window_bias_explorer()
    base = ex.png()
    changes = ({"Wh": 7}, {"Ww": 7}, {"heads": 1}, {"query": "top-left"},
               {"query": "bottom-right"})
    for change in changes:
        assert ex.png(**change) != base, change


def test_static_html_holds_every_distinct_image_and_stays_small():
    ex = window_bias_explorer(heights=(2, 3), widths=(3,), heads=(1, 2),
                              queries=("top-left", "centre"))
    html = ex.static_html()
    data = json.loads(re.search(r"var data = (\{.*?\});\n", html).group(1))
    assert data["shape"] == [2, 1, 2, 2]
    distinct = {ex.png(**ex._values(key)) for key in ex.all_indices()}
    assert len(distinct) == ex.n_combinations == 8 == len(data["images"])
    for png in distinct:
        assert base64.b64encode(png).decode("ascii") in html
    assert "<select" in html and 'type="range"' in html
    # the book's page must stay small: every image well under 45 kB
    assert all(len(png) < 45_000 for png in distinct)


def test_live_widget_redraws_and_bad_arguments():
    ex = window_bias_explorer(defaults={"heads": 1})
    widget = ex.widget
    before = widget.image.value
    widget.inputs[3].value = "bottom-right"
    assert widget.image.value != before
    with pytest.raises(ValueError, match="queries must be among"):
        window_bias_explorer(queries=("middle",))
    with pytest.raises(ValueError, match="default 5 of control 'Wh'"):
        window_bias_explorer(defaults={"Wh": 5})
