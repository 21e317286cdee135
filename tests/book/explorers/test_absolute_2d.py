"""The chapter 5 explorer: controls, distinct images, the live static HTML."""

import json
import re

import pytest

from book.explorers.absolute_2d import absolute_2d_explorer
from book.explorers.explorer import LiveRange


def test_controls_and_defaults():
    ex = absolute_2d_explorer()
    names = ["height", "width", "dim", "base", "normalize", "channel"]
    assert [c.name for c in ex.controls] == names
    assert [c.kind for c in ex.controls] == [
        "slider",
        "slider",
        "slider",
        "slider",
        "checkbox",
        "select",
    ]
    assert ex.n_combinations == 2 * 2 * 2 * 2 * 2 * 3  # the kernel's widget
    first = {c.name: c.values[c.default_index] for c in ex.controls}
    assert first == {
        "height": 24,
        "width": 24,
        "dim": 16,
        "base": 10000.0,
        "normalize": False,
        "channel": "fastest",
    }


def test_every_control_changes_the_image():
    ex = absolute_2d_explorer()
    base = ex.png()
    for change in (
        {"height": 12},
        {"width": 16},
        {"dim": 64},
        {"base": 10.0, "channel": "middle"},
        {"normalize": True, "height": 12, "width": 16},
        {"channel": "middle"},
        {"channel": "slowest"},
    ):
        assert ex.png(**change) != base, change
    # the base (DETR: temperature) leaves the fastest pair alone but changes the similarity panel
    assert ex.png(base=10.0) != base


def test_the_static_page_draws_live_over_the_ranges():
    ex = absolute_2d_explorer()
    assert ex.live == "absolute_2d"
    assert ex.live_data == {"canvas": 24}
    assert [c.live for c in ex.controls] == [
        LiveRange(1, 24, step=1),
        LiveRange(1, 24, step=1),
        LiveRange(4, 256, step=4),
        LiveRange(10.0, 1e6, step=None, log=True, above=1),
        None,
        None,
    ]
    # the channel stays a choice relative to dim, the same three words at every dim
    assert ex.controls[5].labels == ("fastest pair", "middle pair", "slowest pair")
    html = ex.static_html()
    assert html.count("data:image/png;base64,") == 1 and '"images"' not in html
    assert 'data-live="absolute_2d"' in html and "<canvas" in html
    assert "<select" in html and 'type="checkbox"' in html
    data = json.loads(re.search(r'data-live-data="([^"]*)"', html).group(1).replace("&quot;", '"'))
    assert data == {"canvas": 24}
    assert len(html) < 80_000  # was about 1 MB with 64 frames


def test_the_ranges_follow_the_canvas_and_take_in_values_offered_beyond_them():
    ex = absolute_2d_explorer(
        heights=(8,), widths=(3, 16), dims=(512,), bases=(2.0, 1e7), pairs=("middle",), canvas=16
    )
    height, width, dim, base = (c.live for c in ex.controls[:4])
    assert (height.min, height.max, width.min, width.max) == (1, 16, 1, 16)
    assert (dim.min, dim.max, dim.step) == (4, 512, 4)
    assert (base.min, base.max, base.above) == (2.0, 1e7, 1)
    assert ex.live_data == {"canvas": 16}
    assert ex.controls[5].labels == ("middle pair",)


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        ({"heights": ()}, ValueError, "heights must hold at least one"),
        ({"heights": (True, 12)}, TypeError, "heights\\[0\\] must be an integer"),
        ({"widths": (16.0,)}, TypeError, "widths\\[0\\] must be an integer"),
        ({"widths": (30,)}, ValueError, "must be <= canvas = 24"),
        ({"dims": (18,)}, ValueError, "dims\\[0\\] must be a multiple of 4"),
        ({"bases": (float("nan"),)}, ValueError, "bases\\[0\\] must be a finite number > 1"),
        ({"bases": (True,)}, TypeError, "bases\\[0\\] must be a real number"),
        ({"bases": (1.0,)}, ValueError, "bases\\[0\\] must be a finite number > 1"),
        ({"pairs": ("fast",)}, ValueError, "pairs\\[0\\] must be one of"),
        ({"pairs": ()}, ValueError, "pairs must hold at least one"),
        ({"canvas": 1}, ValueError, "canvas must be >= 2"),
        ({"defaults": [("dim", 16)]}, TypeError, "defaults must be a mapping"),
        ({"defaults": {"dim": 32}}, ValueError, "default 32 of control 'dim' is not one of"),
    ],
)
def test_explorer_refuses_bad_control_values(kwargs, error, match):
    with pytest.raises(error, match=match):
        absolute_2d_explorer(**kwargs)
