"""The chapter 9 RoPE explorer: every control changes the picture; the static page stays small."""

from __future__ import annotations

import base64

import pytest

from book.explorers.explorer import LiveRange
from book.explorers.rotary import rotary_explorer
from book.figures.png import palette_png


def test_controls_defaults_and_size():
    ex = rotary_explorer()
    assert [c.name for c in ex.controls] == ["dim", "base", "context"]
    assert [c.kind for c in ex.controls] == ["slider", "slider", "slider"]
    assert ex.controls[1].labels == ("100", "10000", "500000")
    assert ex.controls[2].values == (4096,)  # the kernel's widget keeps the figure's context
    assert ex.n_combinations == 6  # well under ~60
    texts = [t.get_text() for t in ex.figure().texts]
    assert "d = 128, base = 10000" in texts[1]
    assert "pairs 0, 32, 63" in texts[0]  # fastest, middle and slowest of 64 pairs


def test_every_control_changes_the_image():
    ex = rotary_explorer(context=256)
    start = ex.png()
    assert ex.png(dim=16) != start
    assert ex.png(base=100.0) != start
    assert rotary_explorer(context=512).png() != start


def test_the_static_page_draws_live_with_the_default_png_alone():
    ex = rotary_explorer()
    assert ex.live == "rotary"
    assert [c.live for c in ex.controls] == [
        LiveRange(4, 256, step=2),
        LiveRange(10.0, 1e6, step=None, log=True, above=1),
        LiveRange(16, 32768, step=1),
    ]
    html = ex.static_html()
    assert html.count("data:image/png;base64,") == 1 and '"images"' not in html
    assert 'data-live="rotary"' in html and "<canvas" in html
    assert base64.b64encode(palette_png(ex.png())).decode("ascii") in html
    assert len(html) < 90_000  # was about 430 kB with 6 frames


def test_the_ranges_take_in_values_offered_beyond_them():
    ex = rotary_explorer(dims=(4, 512), bases=(2.0, 1e7), context=100_000)
    dim, base, context = (c.live for c in ex.controls)
    assert (dim.min, dim.max) == (4, 512)
    assert (base.min, base.max, base.above) == (2.0, 1e7, 1)
    assert (context.min, context.max) == (16, 100_000)
    assert rotary_explorer(context=8).controls[2].live.min == 8


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


def test_stretch_explorer_draws_live_with_the_default_png_alone():
    from book.explorers.rotary import rotary_stretch_explorer

    ex = rotary_stretch_explorer()
    assert ex.live == "rotary_stretch"
    assert [c.live for c in ex.controls] == [
        None,  # method: the drop-down of the kernel's widget
        LiveRange(1.1, 64.0, step=None, log=True, above=1),
    ]
    assert ex.live_data == {"dim": 128, "base": 500000.0, "original_max_positions": 8192}
    html = ex.static_html()
    assert html.count("data:image/png;base64,") == 1 and '"images"' not in html
    assert 'data-live="rotary_stretch"' in html and "<canvas" in html
    assert base64.b64encode(palette_png(ex.png())).decode("ascii") in html
    assert len(html) < 60_000  # was about 630 kB with 20 frames
    wide = rotary_stretch_explorer(factors=(1.05, 100.0), dim=64, base=10000.0)
    assert (wide.controls[1].live.min, wide.controls[1].live.max) == (1.05, 100.0)
    assert wide.live_data == {"dim": 64, "base": 10000.0, "original_max_positions": 8192}


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
