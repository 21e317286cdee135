"""The chapter 8 explorer: every control changes the picture; the page draws it live."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest
from matplotlib import colormaps

from book.explorers.explorer import LiveRange
from book.explorers.window_3d import window_3d_explorer
from book.figures.png import palette_png


def test_controls_and_defaults():
    ex = window_3d_explorer()
    # the names are also the labels: say which number of frames is which, and which frame is shown
    assert [c.name for c in ex.controls] == [
        "D1_query_frames",
        "D2_key_frames",
        "Wh",
        "Ww",
        "highlighted_query_frame",
    ]
    assert ex.controls[0].values == (4, 6, 7) and ex.controls[1].values == (2, 3, 4)
    # the heights and widths of the windows 2×2 and 3×3
    assert ex.controls[2].values == (2, 3) and ex.controls[3].values == (2, 3)
    assert [c.kind for c in ex.controls] == ["slider", "slider", "slider", "slider", "select"]
    assert ex.n_combinations == 3 * 3 * 2 * 2 * 2
    first = {c.name: c.values[c.default_index] for c in ex.controls}
    assert first == {
        "D1_query_frames": 7,
        "D2_key_frames": 4,
        "Wh": 2,
        "Ww": 2,
        "highlighted_query_frame": "middle",
    }
    (ax,) = ex.figure().axes
    grid, *blocks = ax.images
    assert np.asarray(grid.get_array()).shape == (7, 4)  # D1 = 7, D2 = 4 by default
    assert np.asarray(grid.get_array())[0].tolist() == [0, -2, -4, -6]  # key_step 2
    assert len(blocks) == 4 and np.asarray(blocks[0].get_array()).shape == (2, 2)
    labels = [s for c in ax.collections if hasattr(c, "labels") for s in c.labels]
    assert "table rows read by token (0, 0) of query frame 3" in labels  # the middle frame
    # a window that is not square, from the two sliders
    (ax,) = ex.figure(Wh=2, Ww=3).axes
    assert np.asarray(ax.images[1].get_array()).shape == (2, 3)


def test_the_explorer_is_live_with_its_ranges():
    ex = window_3d_explorer()
    assert ex.live == "window_3d"
    assert {c.name: c.live for c in ex.controls} == {
        "D1_query_frames": LiveRange(1, 10, step=1),
        "D2_key_frames": LiveRange(1, 10, step=1),
        "Wh": LiveRange(1, 7, step=1),
        "Ww": LiveRange(1, 7, step=1),
        "highlighted_query_frame": None,
    }
    # the ranges widen to take in a listed value beyond them
    wider = window_3d_explorer(query_frames=(7, 20), windows=((2, 9),))
    assert {c.name: c.live.max for c in wider.controls if c.live is not None} == {
        "D1_query_frames": 20,
        "D2_key_frames": 10,
        "Wh": 7,
        "Ww": 9,
    }
    # the page carries the figure's PuOr (the offsets' colours, imshow's 256 bins), no more
    data = ex.live_data
    assert set(data) == {"offset_colors"} and len(json.dumps(data)) < 2000
    hex_colours = data["offset_colors"]
    got = [
        [int(hex_colours[6 * i + 2 * j : 6 * i + 2 * j + 2], 16) for j in range(3)]
        for i in range(256)
    ]
    want = colormaps["PuOr"](np.arange(256), bytes=True)[:, :3]
    np.testing.assert_array_equal(np.array(got), want)


def test_every_control_changes_the_image():
    ex = window_3d_explorer()
    base = ex.png()
    for change in (
        {"D1_query_frames": 6},
        {"D2_key_frames": 3},
        {"Wh": 3, "Ww": 3},
        {"Wh": 3},
        {"Ww": 3},
        {"highlighted_query_frame": "last"},
    ):
        assert ex.png(**change) != base, change


def test_static_html_is_live_and_holds_the_default_figure_only():
    ex = window_3d_explorer()
    html = ex.static_html()
    assert 'data-live="window_3d"' in html and "data-live-data=" in html
    default = base64.b64encode(palette_png(ex.png())).decode("ascii")
    assert default in html and html.count("data:image/png;base64,") == 1
    assert 'aria-label="D1_query_frames"' in html and 'aria-label="highlighted_query_frame"' in html
    assert html.count('type="range"') == 4 and html.count('type="number"') == 4
    assert len(html) < 60_000  # one figure, not 36 (about 1.3 MB pre-rendered)


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
