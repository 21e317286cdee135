"""The chapter 9 RoPE explorer: every control changes the picture; the static page stays small."""

from __future__ import annotations

import base64

import pytest

from book.explorers.rotary import rotary_explorer
from book.figures.png import palette_png


def test_controls_defaults_and_size():
    ex = rotary_explorer()
    assert [c.name for c in ex.controls] == ["dim", "base"]
    assert [c.kind for c in ex.controls] == ["slider", "slider"]
    assert ex.controls[1].labels == ("100", "10000", "500000")
    assert ex.n_combinations == 6  # well under ~60
    texts = [t.get_text() for t in ex.figure().texts]
    assert "d = 128, base = 10000" in texts[1]
    assert "pairs 0, 32, 63" in texts[0]  # fastest, middle and slowest of 64 pairs


def test_every_control_changes_the_image():
    ex = rotary_explorer(context=256)
    start = ex.png()
    assert ex.png(dim=16) != start
    assert ex.png(base=100.0) != start


def test_static_html_holds_every_distinct_image():
    ex = rotary_explorer(dims=(16, 32), bases=(100.0, 10000.0), context=512)
    html = ex.static_html()
    distinct = {ex.png(**ex._values(key)) for key in ex.all_indices()}
    assert len(distinct) == ex.n_combinations == 4
    for data in distinct:
        assert base64.b64encode(palette_png(data)).decode("ascii") in html
    assert len(html) < 4 * 90_000  # each image under ~65 kB (base64 adds a third)


def test_live_widget_redraws_and_bad_defaults():
    ex = rotary_explorer(dims=(16, 32), bases=(100.0,), context=128, defaults={"dim": 32})
    widget = ex.widget
    before = widget.image.value
    widget.inputs[0].value = 16
    assert widget.image.value != before
    with pytest.raises(ValueError, match="default 48 of control 'dim'"):
        rotary_explorer(defaults={"dim": 48})


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        ({"dims": ()}, ValueError, "dims must hold at least one"),
        ({"dims": (2,)}, ValueError, "dims\\[0\\] must be >= 4"),
        ({"dims": (True,)}, TypeError, "dims\\[0\\] must be an integer"),
        ({"dims": (15,)}, ValueError, "dims\\[0\\] must be even"),
        ({"bases": (float("nan"),)}, ValueError, "bases\\[0\\] must be a finite number > 1"),
        ({"bases": (0.5,)}, ValueError, "bases\\[0\\] must be a finite number > 1"),
        ({"bases": ()}, ValueError, "bases must hold at least one"),
        ({"context": 1}, ValueError, "context must be >= 2"),
        ({"defaults": 3}, TypeError, "defaults must be a mapping"),
    ],
)
def test_explorer_refuses_bad_control_values(kwargs, error, match):
    with pytest.raises(error, match=match):
        rotary_explorer(**kwargs)


# -- Chapter 11: the stretching explorer (the "ch11" section) ------------------------------------


def test_stretch_explorer_controls_and_frames():
    from book.explorers.rotary import rotary_stretch_explorer

    ex = rotary_stretch_explorer()
    assert [c.name for c in ex.controls] == ["method", "factor"]
    assert ex.controls[1].labels == ("2", "4", "8", "16")
    assert ex.n_combinations == 20  # under ~60
    start = ex.png()
    assert ex.png(method="linear") != start
    assert ex.png(factor=2.0) != start


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        ({"methods": ("partial",)}, ValueError, r"methods\[0\] must be one of"),
        ({"methods": ()}, ValueError, "methods must hold at least one"),
        ({"factors": (1.0,)}, ValueError, r"factors\[0\] must be"),
        ({"factors": (True,)}, TypeError, r"factors\[0\]"),
        ({"dim": 3}, ValueError, "dim must be"),
        ({"defaults": {"method": "plain"}}, ValueError, "method"),
    ],
)
def test_stretch_explorer_refuses_bad_values(kwargs, error, match):
    from book.explorers.rotary import rotary_stretch_explorer

    with pytest.raises(error, match=match):
        rotary_stretch_explorer(**kwargs)
