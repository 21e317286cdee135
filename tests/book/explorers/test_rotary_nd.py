"""The chapter 12 explorer of RoPE on grids: controls, frames, the live page and bad arguments."""

from __future__ import annotations

import base64
import json

import pytest

from book.explorers.explorer import LiveRange
from book.explorers.rotary_nd import rotary_grid_explorer
from book.figures.png import palette_png


def test_controls_and_frames():
    ex = rotary_grid_explorer()
    assert [c.name for c in ex.controls] == ["pairs", "row", "column", "side", "base"]
    assert [c.kind for c in ex.controls] == ["select", "slider", "slider", "slider", "slider"]
    _, row, column, side, base = ex.controls
    # the three query places (8, 8), (3, 12), (14, 2): their rows and their columns
    assert row.values == (3, 8, 14) and column.values == (2, 8, 12)
    assert side.values == (16,) and base.values == (10000.0,) and base.labels == ("10000",)
    assert {c.name: c.values[c.default_index] for c in ex.controls} == {
        "pairs": "axial 2-D (16 + 16)",
        "row": 8,
        "column": 8,
        "side": 16,
        "base": 10000.0,
    }
    assert ex.n_combinations == 36
    fig = ex.figure()
    assert fig.get_figwidth() <= 6.8 and len(fig.axes) == 3  # pairs, scores, colour bar
    assert fig.axes[1].get_title() == "query (8, 8): scores 0.66 … 1"
    start = ex.png()
    assert ex.png(pairs="M-RoPE 8/4/20") != start
    assert ex.png(row=3, column=12) != start


def test_the_explorer_is_live_with_its_ranges():
    ex = rotary_grid_explorer()
    assert ex.live == "rotary_grid"
    assert {c.name: c.live for c in ex.controls} == {
        "pairs": None,
        "row": LiveRange(0, 63, step=1),
        "column": LiveRange(0, 63, step=1),
        "side": LiveRange(2, 64, step=1),
        "base": LiveRange(10.0, 1e6, step=None, log=True, above=1),
    }
    # the page carries the sharings of the pairs: label -> layout and sections
    assert ex.live_data == {
        "dim": 64,
        "pairs": {
            "axial 2-D (16 + 16)": {"layout": "axial", "sections": None},
            "M-RoPE 8/12/12 (Qwen2-VL's shares)": {"layout": "mrope", "sections": (8, 12, 12)},
            "M-RoPE 0/16/16 (no time)": {"layout": "mrope", "sections": (0, 16, 16)},
            "M-RoPE 8/4/20": {"layout": "mrope", "sections": (8, 4, 20)},
        },
    }
    assert len(json.dumps(ex.live_data)) < 400
    # the ranges widen to take in a listed value beyond them
    wider = rotary_grid_explorer(queries=((0, 0),), sides=(80,), bases=(2.0, 1e7))
    assert {c.name: c.live for c in wider.controls if c.live is not None} == {
        "row": LiveRange(0, 79, step=1),
        "column": LiveRange(0, 79, step=1),
        "side": LiveRange(2, 80, step=1),
        "base": LiveRange(2.0, 1e7, step=None, log=True, above=1),
    }


def test_the_static_page_draws_live_with_the_default_png_alone():
    ex = rotary_grid_explorer()
    html = ex.static_html()
    assert html.count("data:image/png;base64,") == 1 and '"images"' not in html
    assert 'data-live="rotary_grid"' in html and "<canvas" in html and "data-live-data" in html
    assert base64.b64encode(palette_png(ex.png())).decode("ascii") in html
    assert len(html) < 90_000  # was about 330 kB with 12 frames


def test_any_value_of_the_ranges_draws_and_a_query_beyond_the_grid_is_its_nearest_place():
    ex = rotary_grid_explorer()
    fig = ex.figure(row=5, column=11, side=24, base=500.0)
    assert fig.axes[1].images[0].get_array().shape == (24, 24)
    assert fig.axes[1].get_title().startswith("query (5, 11): scores")
    clamped = ex.figure(pairs="M-RoPE 8/4/20", row=63, column=2, side=10)
    assert clamped.axes[1].get_title().startswith("query (9, 2): scores")
    assert clamped.axes[1].patches[0].get_xy() == (2 - 0.5, 9 - 0.5)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"layouts": ("spiral",)}, ValueError, "layouts must be among"),
        ({"layouts": "axial"}, TypeError, "layouts must be a sequence"),
        ({"queries": ((16, 0),)}, ValueError, "inside the 16"),
        ({"queries": ((1.5, 0),)}, TypeError, r"queries\[0\]"),
        ({"queries": ((9, 0),), "sides": (8, 16)}, ValueError, "inside the 8 × 8 grid"),
        ({"sides": (1,)}, ValueError, r"sides\[0\]"),
        ({"sides": 16}, TypeError, "sides must be a sequence"),
        ({"bases": (1.0,)}, ValueError, r"bases\[0\]"),
        ({"defaults": 3}, TypeError, "defaults"),
        ({"defaults": {"row": 64}}, ValueError, "row"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        rotary_grid_explorer(**kwargs)
