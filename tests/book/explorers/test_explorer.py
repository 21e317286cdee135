"""The explorer mechanism: live widget and static HTML show the same pictures."""

import base64
import html as html_module
import json
import math
import re

import numpy as np
import pytest
from matplotlib.figure import Figure

from book.explorers import explorer
from book.explorers.explorer import (
    COLUMN_PX,
    LIVE_COLORMAPS,
    LIVE_DRAWERS,
    LIVE_WORDS,
    PHONE_TEXT_PX,
    RULE_WORDS,
    WIDGET_VIEW_MIME,
    LiveRange,
    colormap_hex,
)
from book.ext.twin import DRAWERS, SCRIPTS, STATIC
from book.figures.png import palette_png, png_size

CALLS = []


def render(n, flip, colour):
    """A figure whose pixels depend on every control."""
    CALLS.append((n, flip, colour))
    fig = Figure(figsize=(2, 1.5))
    ax = fig.add_subplot()
    ys = list(range(n))
    ax.plot(ys[::-1] if flip else ys, color=colour)
    return fig


def make(**kwargs):
    return explorer(
        render,
        {"n": [2, 3, 5], "flip": [False, True], "colour": {"red": "r", "blue": "b"}},
        **kwargs,
    )


def decoded_payload(html):
    match = re.search(r"var data = (\{.*?\});\n", html)
    return json.loads(match.group(1))


def test_control_kinds_and_defaults():
    ex = make(defaults={"n": 3, "colour": "b"})
    kinds = [c.kind for c in ex.controls]
    assert kinds == ["slider", "checkbox", "select"]
    assert [c.default_index for c in ex.controls] == [1, 0, 1]
    assert ex.n_combinations == 12


def test_png_is_cached_and_depends_on_every_control():
    ex = make()
    CALLS.clear()
    first = ex.png(n=2)
    assert ex.png(n=2) == first and len(CALLS) == 1
    others = {ex.png(n=5), ex.png(flip=True, n=3), ex.png(colour="b")}
    assert first not in others and len(others) == 3
    assert first.startswith(b"\x89PNG")


def test_static_html_holds_every_combination_in_row_major_order():
    ex = make()
    html = ex.static_html()
    data = decoded_payload(html)
    assert data["shape"] == [3, 2, 2]
    assert len(data["table"]) == 12
    # every combination's image is the one png() gives for those values (last control fastest)
    for flat, (i, j, k) in enumerate(ex.all_indices()):
        values = {"n": [2, 3, 5][i], "flip": [False, True][j], "colour": ["r", "b"][k]}
        assert base64.b64decode(data["images"][data["table"][flat]]) == palette_png(
            ex.png(**values)
        )
    assert len(set(data["images"])) == len(data["images"])  # deduplicated
    # the controls are in the page, with the slider over indices 0..2 and the shown default
    assert 'type="range"' in html and 'max="2"' in html
    assert 'type="checkbox"' in html and "<select" in html and ">blue</option>" in html
    assert "<script>" in html and "cdn" not in html.lower()


def test_identical_figures_are_stored_once():
    ex = explorer(lambda a, b: render(3, False, "r"), {"a": [1, 2, 3], "b": [False, True]})
    data = decoded_payload(ex.static_html())
    assert len(data["images"]) == 1 and data["table"] == [0] * 6


def test_mimebundle_carries_live_widget_and_static_html():
    bundle = make()._repr_mimebundle_()
    assert WIDGET_VIEW_MIME in bundle
    assert bundle["text/html"].startswith('<div class="posenc-explorer"')
    assert bundle["text/plain"].startswith("Explorer(")


def test_live_widget_redraws_when_a_control_moves():
    ex = make()
    box = ex.widget
    slider, checkbox, dropdown = box.inputs
    before = box.image.value
    assert before == ex.png()
    slider.value = 5
    assert box.image.value == ex.png(n=5) != before
    checkbox.value = True
    dropdown.value = "b"
    assert box.image.value == ex.png(n=5, flip=True, colour="b")


def test_the_kernels_widget_takes_any_value_of_a_live_range():
    """In JupyterLab a live control is a slider over its range (log for a base), and the
    figure is drawn for any value the range admits, not only the listed ones."""
    import ipywidgets as w

    ex = make(live="sinusoidal", ranges={"n": LiveRange(2, 40)})
    slider, checkbox, dropdown = ex.widget.inputs
    assert isinstance(slider, w.IntSlider) and (slider.min, slider.max, slider.step) == (2, 40, 1)
    assert slider.value == 2 and not slider.continuous_update
    assert isinstance(checkbox, w.Checkbox) and isinstance(dropdown, w.Dropdown)
    before = ex.widget.image.value
    slider.value = 17  # listed: 2, 3, 5
    assert ex.widget.image.value == ex.png(n=17) != before
    assert CALLS[-1] == (17, False, "r")
    assert ex.alt_text(n=17) == "Explorer (n 17, flip False, colour red)"
    with pytest.raises(
        ValueError, match=r"n must be one of \(2, 3, 5\), or an integer from 2 to 40"
    ):
        ex.png(n=41)
    with pytest.raises(ValueError, match=r"n must be one of \(2, 3, 5\), got 17"):
        make().png(n=17)
    logged = explorer(
        lambda base: Figure(),
        {"base": [100.0, 10000.0]},
        live="sinusoidal",
        ranges={"base": LiveRange(10, 1e6, step=None, log=True)},
    ).widget.inputs[0]
    assert isinstance(logged, w.FloatLogSlider) and logged.value == pytest.approx(100.0)
    assert (logged.min, logged.max) == (1.0, 6.0)
    real = explorer(
        lambda a: Figure(),
        {"a": [0.5]},
        live="sinusoidal",
        ranges={"a": LiveRange(0, 2, step=None)},
    ).widget.inputs[0]
    assert isinstance(real, w.FloatSlider) and (real.min, real.max) == (0, 2)


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match="max_combinations"):
        explorer(
            render,
            {"n": list(range(20)), "flip": [False, True], "colour": list("rgbcmyk")},
            max_combinations=100,
        )
    with pytest.raises(ValueError, match="default 4 of control 'n'"):
        make(defaults={"n": 4})
    with pytest.raises(ValueError, match="unknown control"):
        make(defaults={"m": 4})
    with pytest.raises(ValueError, match="n must be one of"):
        make().png(n=7)
    with pytest.raises(TypeError, match="render must be callable"):
        explorer(None, {"n": [1]})
    with pytest.raises(ValueError, match="at least one value"):
        explorer(render, {"n": []})
    with pytest.raises(TypeError, match="render must return a matplotlib Figure"):
        explorer(lambda n: None, {"n": [1]}).png()


def test_one_does_not_select_true():
    ex = explorer(lambda flag: render(2, flag, "r"), {"flag": [False, True]})
    with pytest.raises(ValueError):
        ex.png(flag=1)


def test_two_displays_of_one_explorer_get_different_ids():
    ex = make()
    ids = {
        re.search(r'id="(posenc-explorer-[0-9a-f]+)"', ex.static_html()).group(1) for _ in range(2)
    }
    assert len(ids) == 2


def test_true_false_order_is_a_select_not_a_checkbox():
    """The static checkbox maps ticked to index 1, so only (False, True) may be a checkbox."""
    ex = explorer(lambda flag: render(2, flag, "r"), {"flag": [True, False]})
    assert ex.controls[0].kind == "select"
    html = ex.static_html()
    assert 'type="checkbox"' not in html and ">True</option>" in html


def _pixels(data):
    import io

    import numpy as np
    from PIL import Image

    image = Image.open(io.BytesIO(data))
    return image.mode, np.asarray(image.convert("RGB"), dtype=np.int16)


def test_palette_png_keeps_the_picture_in_fewer_bytes():
    from book.explorers.sinusoidal import sinusoidal_explorer

    original = sinusoidal_explorer().png()  # a heatmap with a diverging colour map and a curve
    small = palette_png(original)
    mode, pixels = _pixels(small)
    _, reference = _pixels(original)
    assert mode == "P" and pixels.shape == reference.shape
    assert pixels[0, 0].tolist() == reference[0, 0].tolist() == [255, 255, 255]  # white stays white
    assert np.abs(pixels - reference).max() <= 16  # every channel within 16 of 255 levels
    assert np.abs(pixels - reference).mean() < 1.0
    assert len(small) < 0.6 * len(original)
    assert palette_png(small) == small or _pixels(palette_png(small))[1].tolist() == pixels.tolist()


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        ({"dpi": 0}, ValueError, "dpi must be positive"),
        ({"dpi": 72.5}, TypeError, "dpi must be an integer"),
        ({"pixel_ratio": 0}, ValueError, "pixel_ratio must be positive"),
        ({"colors": 1}, ValueError, "colors must be >= 2"),
        ({"colors": 300}, ValueError, "colors must be <= 256"),
        ({"max_combinations": True}, TypeError, "max_combinations must be an integer"),
        ({"title": 3}, TypeError, "title must be a string"),
        ({"defaults": [("n", 1)]}, TypeError, "defaults must be a mapping"),
    ],
)
def test_explorer_refuses_bad_settings(kwargs, error, match):
    with pytest.raises(error, match=match):
        explorer(lambda n: Figure(), {"n": [1, 2]}, **kwargs)


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        ({"colors": 1}, ValueError, "colors must be >= 2"),
        ({"colors": 257}, ValueError, "colors must be <= 256"),
        ({"colors": True}, TypeError, "colors must be an integer"),
    ],
)
def test_palette_png_refuses_bad_settings(kwargs, error, match):
    with pytest.raises(error, match=match):
        palette_png(b"", **kwargs)
    with pytest.raises(TypeError, match="data must be the bytes of a PNG file"):
        palette_png("not bytes")


def test_frames_are_2x_pngs_shown_at_1x_size():
    """A 2 x 1.5 inch figure: 400 x 300 PNG pixels, shown 200 x 150 CSS px (100 per inch)."""
    ex = make()
    data = ex.png()
    assert png_size(data) == (400, 300) and ex.shown_size(data) == (200, 150)
    html = ex.static_html()
    assert 'width="200" height="150"' in html and "height:auto" in html
    sizes = decoded_payload(html)["sizes"]
    assert [size[:2] for size in sizes] == [[200, 150]] * len(decoded_payload(html)["images"])
    assert ex.widget.image.width == "200"
    sharp = explorer(render, {"n": [2], "flip": [False], "colour": ["r"]}, pixel_ratio=3)
    assert png_size(sharp.png()) == (600, 450) and sharp.shown_size(sharp.png()) == (200, 150)


def test_on_a_narrow_screen_a_frame_keeps_its_smallest_text_at_the_phone_minimum():
    """The tick labels are 10 pt (matplotlib's default): 10 / 72 * 100 = 13.89 CSS px at the
    shown size, so the frame may shrink to 9 / 13.89 of its 200 px: 130 px, and no further."""
    ex = make()
    text_px = 10 / 72 * 100
    assert ex.text_px() == pytest.approx(text_px)
    assert ex.min_width() == math.ceil(200 * PHONE_TEXT_PX / text_px) == 130
    html = ex.static_html()
    assert "min-width:130px" in html and f'data-text-px="{round(text_px, 2)}"' in html
    assert all(size[2:] == [130, round(text_px, 2)] for size in decoded_payload(html)["sizes"])
    # text already at the minimum: no shrinking at all
    small = explorer(lambda n: _text_figure(n, 6.48), {"n": [1, 2]})
    assert small.text_px() == pytest.approx(9.0) and small.min_width() == 200


def _text_figure(n, points):
    fig = Figure(figsize=(2, 1.5))
    fig.text(0.5, 0.5, f"n = {n}", fontsize=points)
    return fig


def test_alt_text_is_the_title_and_what_each_control_shows():
    ex = make(title="Lines, flipped or not")
    assert ex.alt_text() == "Lines, flipped or not (n 2, flip False, colour red)"
    assert ex.alt_text(n=5, colour="b") == "Lines, flipped or not (n 5, flip False, colour blue)"
    html = ex.static_html()
    assert 'alt="Lines, flipped or not (n 2, flip False, colour red)"' in html
    assert 'data-title="Lines, flipped or not"' in html
    # the page's switcher builds the same text from each control's labels and aria-label
    assert (
        'aria-label="colour"' in html
        and 'data-labels="[&quot;red&quot;, &quot;blue&quot;]"' in html
    )
    assert make().alt_text().startswith("Explorer (")


def test_a_frame_wider_than_the_column_is_rendered_no_wider_than_twice_it():
    ex = explorer(lambda k: Figure(figsize=(13.6, 2.0)), {"k": [1]})
    width, height = png_size(ex.png())
    assert width == 2 * COLUMN_PX and height == 200  # shown 680 x 100 CSS px
    assert ex.shown_size(ex.png()) == (COLUMN_PX, 100)


def test_png_size_refuses_other_data():
    with pytest.raises(ValueError, match="no PNG header"):
        png_size(b"GIF89a" + bytes(30))
    with pytest.raises(TypeError, match="bytes of a PNG file"):
        png_size("x")


# -- live explorers: drawn in the reader's browser, the default PNG for print and no JavaScript


def make_live(**kwargs):
    return explorer(
        render,
        {"n": [2, 3, 5], "flip": [False, True], "colour": {"red": "r", "blue": "b"}},
        live="sinusoidal",
        ranges={"n": LiveRange(1, 10)},
        title="Lines",
        **kwargs,
    )


def _attributes(html, role, name):
    tag = re.search(rf'<input [^>]*data-role="{role}" data-name="{name}"[^>]*>', html).group(0)
    return dict(re.findall(r'([\w-]+)="([^"]*)"', tag))


def test_a_live_explorer_stores_one_png_and_the_controls_take_any_value_of_their_ranges():
    ex = make_live(defaults={"n": 3})
    assert ex.live == "sinusoidal" and ex.controls[0].live == LiveRange(1, 10)
    assert [c.live for c in ex.controls[1:]] == [None, None]
    html = ex.static_html()
    # one PNG, the default figure's, and no switcher
    pngs = re.findall(r'src="data:image/png;base64,([^"]+)"', html)
    assert len(pngs) == 1 and base64.b64decode(pngs[0]) == palette_png(ex.png(n=3))
    assert "<script" not in html and '"images"' not in html
    assert html.startswith('<div class="posenc-explorer posenc-explorer-live"')
    assert 'data-live="sinusoidal"' in html
    # the ranged control: a slider and a number box over its range, in step
    slider = _attributes(html, "slider", "n")
    entry = _attributes(html, "entry", "n")
    assert slider["type"] == "range" and entry["type"] == "number"
    assert (slider["min"], slider["max"], slider["step"], slider["value"]) == ("1", "10", "1", "3")
    assert (entry["min"], entry["max"], entry["step"], entry["value"]) == ("1", "10", "1", "3")
    assert slider["data-control"] == entry["data-control"] == "0"
    assert slider["aria-label"] == entry["aria-label"] == "n"
    assert json.loads(html_module.unescape(entry["data-range"])) == {
        "min": 1,
        "max": 10,
        "step": 1,
        "log": False,
        "above": None,
        "integer": True,
    }
    assert entry["data-rule"] == "an integer from 1 to 10"
    # the others as pre-rendered, with the values their indices stand for
    assert 'data-role="index" data-name="flip"' in html and 'type="checkbox"' in html
    assert 'data-values="[false, true]"' in html
    assert 'data-values="[&quot;r&quot;, &quot;b&quot;]"' in html and ">blue</option>" in html
    # the canvas, hidden until the page's script draws it, says what the PNG says
    canvas = re.search(r"<canvas [^>]*>", html).group(0)
    alt = "Lines (n 3, flip False, colour red)"
    assert f'aria-label="{alt}"' in canvas and " hidden " in canvas and 'role="img"' in canvas
    assert f'alt="{alt}"' in html
    assert 'class="posenc-explorer-message" role="status"' in html
    words = json.loads(html_module.unescape(re.search(r'data-words="([^"]*)"', html).group(1)))
    assert words == {**LIVE_WORDS, "rules": RULE_WORDS}
    assert "Explorer('Lines'" in repr(ex) and "live='sinusoidal'" in repr(ex)


def test_a_log_range_slides_over_log10_and_may_take_any_value_above_a_bound():
    ex = explorer(
        lambda base: render(2, False, "r"),
        {"base": {"100": 100.0, "10000": 10000.0}},
        defaults={"base": 10000.0},
        live="sinusoidal",
        ranges={"base": {"min": 10, "max": 1e6, "step": None, "log": True, "above": 1}},
    )
    html = ex.static_html()
    slider = _attributes(html, "slider", "base")
    entry = _attributes(html, "entry", "base")
    assert (slider["min"], slider["max"], slider["step"], slider["value"]) == (
        "1",
        "6",
        "0.01",
        "4",
    )
    assert slider["aria-valuetext"] == "10000"
    assert "min" not in entry and "max" not in entry and entry["step"] == "any"
    assert entry["data-rule"] == "a number above 1"
    assert ex.controls[0].live.admits(1.5) and ex.controls[0].live.admits(1e9)
    assert not ex.controls[0].live.admits(1.0) and not ex.controls[0].live.admits(float("inf"))


@pytest.mark.parametrize(
    "live_range,integer,rule,admitted,refused",
    [
        (
            LiveRange(2, 256, step=2),
            True,
            "an even number from 2 to 256",
            [2, 128, 256],
            [3, 0, 258],
        ),
        (LiveRange(8, 1024), True, "an integer from 8 to 1024", [8, 300], [7, 8.5, 1025, True]),
        (LiveRange(0, 1, step=0.25), False, "a multiple of 0.25 from 0 to 1", [0.5], [0.3]),
        (LiveRange(1, 9, step=4), True, "1 plus a multiple of 4, up to 9", [5], [4]),
        (LiveRange(3, 401, step=2), True, "an odd number from 3 to 401", [3, 41], [4, 403]),
        (LiveRange(0.5, 2.0, step=None), False, "a number from 0.5 to 2", [0.7], [2.1, "1"]),
    ],
)
def test_a_live_range_says_its_rule_and_admits_what_it_says(
    live_range, integer, rule, admitted, refused
):
    assert live_range.integer is integer
    assert live_range.rule() == rule
    assert all(live_range.admits(v) for v in admitted)
    assert not any(live_range.admits(v) for v in refused)


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        ({"min": "1", "max": 3}, TypeError, "min must be a real number"),
        ({"min": 1, "max": float("inf")}, ValueError, "max must be a finite number"),
        ({"min": 5, "max": 5}, ValueError, "max must be > min=5"),
        ({"min": 1, "max": 3, "step": 0}, ValueError, "step must be a finite number > 0"),
        ({"min": 1, "max": 3, "step": 5}, ValueError, "step must be <= max - min"),
        ({"min": 1, "max": 10, "log": True}, ValueError, "step must be None with log=True"),
        ({"min": 0, "max": 10, "step": None, "log": True}, ValueError, "min must be > 0"),
        ({"min": 1, "max": 3, "log": "yes"}, TypeError, "log must be a bool"),
        ({"min": 1, "max": 3, "step": None, "above": 2}, ValueError, "above must be < min=1"),
        ({"min": 1, "max": 3, "above": True}, TypeError, "above must be a real number"),
        ({"min": 1, "max": 3, "above": 0}, ValueError, "above needs step=None"),
    ],
)
def test_a_live_range_refuses_bad_fields(kwargs, error, match):
    with pytest.raises(error, match=match):
        LiveRange(**kwargs)


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        ({"live": 3}, TypeError, "live must be a drawer's name or None"),
        (
            {"live": "lines"},
            ValueError,
            "live must name a drawer of book/ext/twin_static/drawers, one of",
        ),
        ({"live": "Sinusoidal"}, ValueError, "live must name a drawer"),
        ({"ranges": {"n": LiveRange(1, 10)}}, ValueError, "ranges need live="),
        ({"live": "sinusoidal", "ranges": "n"}, TypeError, "ranges must be a mapping"),
        ({"live": "sinusoidal", "ranges": {"m": LiveRange(1, 3)}}, ValueError, "unknown control"),
        (
            {"live": "sinusoidal", "ranges": {"colour": LiveRange(0, 1)}},
            ValueError,
            "only a numeric control takes a live range, and 'colour' is a select",
        ),
        (
            {"live": "sinusoidal", "ranges": {"flip": LiveRange(0, 1)}},
            ValueError,
            "'flip' is a checkbox",
        ),
        (
            {"live": "sinusoidal", "ranges": {"n": LiveRange(3, 10)}},
            ValueError,
            r"ranges\['n'\] must admit every value of the control .*got \[2\]",
        ),
        (
            {"live": "sinusoidal", "ranges": {"n": LiveRange(2, 10, step=2)}},
            ValueError,
            r"must admit every value .*an even number from 2 to 10.*got \[3, 5\]",
        ),
        ({"live": "sinusoidal", "ranges": {"n": (1, 10)}}, TypeError, "must be a LiveRange"),
        ({"live": "sinusoidal", "ranges": {"n": {"min": 1}}}, ValueError, "must give min and max"),
        (
            {"live": "sinusoidal", "ranges": {"n": {"min": 1, "max": 9, "low": 0}}},
            ValueError,
            r"unknown field\(s\) \['low'\]",
        ),
        ({"live": "sinusoidal", "ranges": {"n": {"min": 1, "max": "9"}}}, TypeError, "max must be"),
        ({"live_data": {"q": [1]}}, ValueError, "live_data needs live="),
        ({"live": "sinusoidal", "live_data": [1]}, TypeError, "live_data must be a mapping"),
        (
            {"live": "sinusoidal", "live_data": {"q": [1.0, float("nan")]}},
            ValueError,
            "live_data must hold only finite numbers",
        ),
        (
            {"live": "sinusoidal", "live_data": {"q": object()}},
            ValueError,
            "live_data must hold only finite numbers",
        ),
    ],
)
def test_live_options_are_checked(kwargs, error, match):
    with pytest.raises(error, match=match):
        make(**kwargs)


def test_a_live_explorers_listed_values_reach_the_page_as_json():
    with pytest.raises(TypeError, match="control 'pair' of a live explorer must offer numbers"):
        explorer(lambda pair: Figure(), {"pair": {"a": {1: 2}, "b": (3, 4)}}, live="sinusoidal")
    with pytest.raises(TypeError, match="control 'pair' of a live explorer must offer numbers"):
        explorer(lambda pair: Figure(), {"pair": {"a": ((1,), 2)}}, live="sinusoidal")
    # lists of plain values (a permutation) reach the drawer as arrays
    ex = explorer(lambda pair: Figure(), {"pair": {"a": (1, 0), "b": (0, 1)}}, live="sinusoidal")
    found = re.search(r'data-values="([^"]*)"', ex.static_html())
    assert json.loads(html_module.unescape(found.group(1))) == [[1, 0], [0, 1]]
    with pytest.raises(TypeError, match="control 'x' of a live explorer"):
        explorer(lambda x: Figure(), {"x": [1.0, float("nan")]}, live="sinusoidal")


@pytest.mark.parametrize(
    "reshuffle,error,match",
    [
        (("order", "b"), None, None),
        (["order", "b"], TypeError, "reshuffle must be a pair"),
        (("order",), TypeError, "reshuffle must be a pair"),
        (("n", "b"), ValueError, "reshuffle must name a drop-down control, got 'n'"),
        (("order", "z"), ValueError, "reshuffle's option 'z' is not one of"),
        (("order", "c"), ValueError, "reshuffle's option 'c' must hold a permutation"),
    ],
)
def test_a_reshuffle_button_names_a_drop_down_option_holding_a_permutation(reshuffle, error, match):
    def build(**kwargs):
        return explorer(
            lambda n, order: Figure(),
            {"n": [1, 2], "order": {"a": (0, 1, 2), "b": (2, 0, 1), "c": (0, 0, 1)}},
            **kwargs,
        )

    with pytest.raises(ValueError, match="reshuffle needs live="):
        build(reshuffle=("order", "b"))
    if error is not None:
        with pytest.raises(error, match=match):
            build(live="sinusoidal", reshuffle=reshuffle)
        return
    page = build(live="sinusoidal", reshuffle=reshuffle).static_html()
    button = re.search(r"<button [^>]*>([^<]*)</button>", page)
    assert button.group(1) == LIVE_WORDS["reshuffle"]
    assert 'data-reshuffle="1" data-option="1" hidden' in button.group(0)


def test_live_data_reaches_the_page_as_json():
    data = {"query": [0.5, -1.25], "words": ["the", "<cat>"]}
    page = make(live="sinusoidal", live_data=data).static_html()
    found = re.search(r'data-live-data="([^"]*)"', page)
    assert found and json.loads(html_module.unescape(found.group(1))) == data
    assert "data-live-data" not in make(live="sinusoidal").static_html()


def test_an_explorer_without_live_is_pre_rendered_as_before():
    html = make().static_html()
    assert "data-live" not in html and "<canvas" not in html and "data-role" not in html
    assert len(decoded_payload(html)["images"]) == 12
    assert all(c.live is None for c in make().controls)


def test_plot_js_carries_matplotlibs_colormaps():
    """plot.js's colormaps are the bytes the pinned matplotlib paints (regenerate them with
    colormap_hex when matplotlib changes them)."""
    source = (STATIC / "plot.js").read_text(encoding="utf-8")
    block = re.search(r"var COLORMAPS = \{(.*?)\n  \};", source, re.DOTALL).group(1)
    stored = {
        name: "".join(re.findall(r'"([0-9a-f]+)"', body))
        for name, body in re.findall(r"\n    (\w+):\n((?:\s+\"[0-9a-f]+\"(?: \+)?\n?)+)", block)
    }
    assert sorted(stored) == sorted(LIVE_COLORMAPS)
    for name in LIVE_COLORMAPS:
        assert stored[name] == colormap_hex(name), f"{name} differs from matplotlib's"
    assert colormap_hex("RdBu_r")[:6] == "053061" and colormap_hex("RdBu_r")[-6:] == "67001f"
    assert len(colormap_hex("viridis")) == 6 * 256


def test_each_drawer_file_adds_the_drawer_it_is_named_for_and_nothing_else():
    assert "sinusoidal" in LIVE_DRAWERS
    for name in LIVE_DRAWERS:
        source = (DRAWERS / f"{name}.js").read_text(encoding="utf-8")
        added = re.findall(r"window\.posencExplorers\.(\w+) = function", source)
        assert added == [name], f"drawers/{name}.js adds {added}"
        assert source.startswith("// SPDX-License-Identifier: MIT"), name
    assert "posencExplorers." not in (STATIC / "explorers.js").read_text(encoding="utf-8")


def test_every_page_loads_the_twin_before_what_uses_it():
    assert SCRIPTS == ("posenc.js", "plot.js", "explorers.js")  # explorers.js loads a drawer
    assert all((STATIC / name).is_file() for name in SCRIPTS)
