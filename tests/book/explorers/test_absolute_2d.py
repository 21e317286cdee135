"""The chapter 5 explorer: controls, distinct images, static HTML."""

import base64
import json
import re

import pytest

from book.explorers.absolute_2d import absolute_2d_explorer


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
    assert ex.n_combinations == 64
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
    ):
        assert ex.png(**change) != base, change
    # the base (DETR: temperature) leaves the fastest pair alone but changes the similarity panel
    assert ex.png(base=10.0) != base


def test_static_html_has_one_image_per_combination():
    ex = absolute_2d_explorer(heights=(12,), widths=(12, 24), dims=(16,), bases=(10.0, 10000.0))
    html = ex.static_html()
    data = json.loads(re.search(r"var data = (\{.*?\});\n", html).group(1))
    assert data["shape"] == [1, 2, 1, 2, 2, 2]
    assert len(data["table"]) == 16 and len(data["images"]) == 16  # all distinct
    assert all(base64.b64decode(img).startswith(b"\x89PNG") for img in data["images"])
    assert "<select" in html and 'type="checkbox"' in html


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
        ({"canvas": 0}, ValueError, "canvas must be positive"),
        ({"defaults": [("dim", 16)]}, TypeError, "defaults must be a mapping"),
        ({"defaults": {"dim": 32}}, ValueError, "default 32 of control 'dim' is not one of"),
    ],
)
def test_explorer_refuses_bad_control_values(kwargs, error, match):
    with pytest.raises(error, match=match):
        absolute_2d_explorer(**kwargs)
