"""The chapter 8 explorer: every control changes the picture; the static page holds each image."""

from __future__ import annotations

import base64

import numpy as np
import pytest

from book.explorers.window_3d import window_3d_explorer
from book.figures.png import palette_png


def test_controls_and_defaults():
    ex = window_3d_explorer()
    # the names are also the labels: say which number of frames is which, and which frame is shown
    assert [c.name for c in ex.controls] == [
        "D1_query_frames",
        "D2_key_frames",
        "window",
        "highlighted_query_frame",
    ]
    assert ex.controls[0].values == (4, 6, 7) and ex.controls[1].values == (2, 3, 4)
    assert ex.controls[2].labels == ("2×2", "3×3") and ex.controls[2].values == ((2, 2), (3, 3))
    assert [c.kind for c in ex.controls] == ["slider", "slider", "select", "select"]
    assert ex.n_combinations == 36
    (ax,) = ex.figure().axes
    grid, *blocks = ax.images
    assert np.asarray(grid.get_array()).shape == (7, 4)  # D1 = 7, D2 = 4 by default
    assert np.asarray(grid.get_array())[0].tolist() == [0, -2, -4, -6]  # key_step 2
    assert len(blocks) == 4 and np.asarray(blocks[0].get_array()).shape == (2, 2)
    labels = [s for c in ax.collections if hasattr(c, "labels") for s in c.labels]
    assert "table rows read by token (0, 0) of query frame 3" in labels  # the middle frame


def test_every_control_changes_the_image():
    ex = window_3d_explorer()
    base = ex.png()
    for change in (
        {"D1_query_frames": 6},
        {"D2_key_frames": 3},
        {"window": (3, 3)},
        {"highlighted_query_frame": "last"},
    ):
        assert ex.png(**change) != base, change


def test_static_html_holds_every_distinct_image_and_stays_small():
    small = window_3d_explorer((4, 7), (2, 4), ((2, 2),), ("middle",))
    html = small.static_html()
    distinct = {small.png(**small._values(key)) for key in small.all_indices()}
    assert len(distinct) == small.n_combinations == 4
    for data in distinct:
        assert base64.b64encode(palette_png(data)).decode("ascii") in html
    assert len(html) < 4 * 80_000  # each image well under 80 kB (the page must stay < 3 MB)
    assert 'aria-label="D1_query_frames"' in html and 'aria-label="highlighted_query_frame"' in html


def test_live_widget_redraws_and_bad_arguments():
    ex = window_3d_explorer(defaults={"D2_key_frames": 2})
    widget = ex.widget
    before = widget.image.value
    widget.inputs[1].value = 4
    assert widget.image.value != before
    with pytest.raises(ValueError, match="default 5 of control 'D2_key_frames'"):
        window_3d_explorer(defaults={"D2_key_frames": 5})
    with pytest.raises(ValueError, match=r"key_frames \(4\) must not exceed query_frames \(3\)"):
        window_3d_explorer(query_frames=(3, 7))


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        ({"query_frames": ()}, ValueError, "query_frames must hold at least one"),
        ({"query_frames": (True, 7)}, TypeError, "query_frames\\[0\\] must be an integer"),
        ({"key_frames": (0,)}, ValueError, "key_frames\\[0\\] must be positive"),
        ({"key_frames": 7}, TypeError, "key_frames must be a sequence"),
        ({"windows": ((2,),)}, ValueError, "windows\\[0\\] must have two entries"),
        ({"windows": ((2, -2),)}, ValueError, "windows\\[0\\]\\[1\\] must be positive"),
        ({"highlighted": ()}, ValueError, "highlighted must hold at least one"),
        ({"highlighted": (3,)}, ValueError, "highlighted\\[0\\] must be one of"),
        ({"highlighted": ("centre",)}, ValueError, "highlighted\\[0\\] must be one of"),
        ({"defaults": [1]}, TypeError, "defaults must be a mapping"),
    ],
)
def test_explorer_refuses_bad_control_values(kwargs, error, match):
    with pytest.raises(error, match=match):
        window_3d_explorer(**kwargs)
