"""The chapter 12 explorer of RoPE on grids: controls, frames and bad arguments."""

from __future__ import annotations

import pytest

from book.explorers.rotary_nd import rotary_grid_explorer


def test_controls_and_frames():
    ex = rotary_grid_explorer()
    assert [c.name for c in ex.controls] == ["pairs", "query"]
    assert ex.n_combinations == 12
    fig = ex.figure()
    assert fig.get_figwidth() <= 6.8 and len(fig.axes) == 3  # pairs, scores, colour bar
    base = ex.png()
    assert ex.png(pairs="M-RoPE 8/4/20") != base
    assert ex.png(query=(3, 12)) != base


def test_static_html_is_small():
    ex = rotary_grid_explorer(layouts=("M-RoPE 8/4/20",), queries=((8, 8), (0, 0)))
    html = ex.static_html()
    assert ex.n_combinations == 2 and len(html) < 2 * 120_000


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"layouts": ("spiral",)}, ValueError, "layouts must be among"),
        ({"layouts": "axial"}, TypeError, "layouts must be a sequence"),
        ({"queries": ((16, 0),)}, ValueError, "inside the 16"),
        ({"queries": ((1.5, 0),)}, TypeError, r"queries\[0\]"),
        ({"defaults": 3}, TypeError, "defaults"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        rotary_grid_explorer(**kwargs)
