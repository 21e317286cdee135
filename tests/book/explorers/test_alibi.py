"""The chapter 9 ALiBi explorer: both controls change the picture; the static page stays small."""

from __future__ import annotations

import base64

import pytest

from book.explorers.alibi import alibi_explorer
from book.figures.png import palette_png


def test_controls_and_defaults():
    ex = alibi_explorer()
    assert [c.name for c in ex.controls] == ["heads", "causal"]
    assert [c.kind for c in ex.controls] == ["slider", "checkbox"]
    assert ex.n_combinations == 8
    fig = ex.figure()
    assert len(fig.axes[0].collections[0].get_segments()) == 8  # one line per head, 8 by default
    assert any("causal" in t.get_text() for t in fig.texts)


def test_every_control_changes_the_image_and_static_html():
    ex = alibi_explorer(heads=(4, 12), n=21)
    start = ex.png()
    assert ex.png(heads=12) != start
    assert ex.png(causal=False) != start
    html = ex.static_html()
    distinct = {ex.png(**ex._values(key)) for key in ex.all_indices()}
    assert len(distinct) == ex.n_combinations == 4
    for data in distinct:
        assert base64.b64encode(palette_png(data)).decode("ascii") in html
    assert len(html) < 4 * 60_000
    assert len(alibi_explorer().static_html()) < 8 * 60_000


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        ({"heads": ()}, ValueError, "heads must hold at least one"),
        ({"heads": (True, 8)}, TypeError, "heads\\[0\\] must be an integer"),
        ({"heads": (-4,)}, ValueError, "heads\\[0\\] must be positive"),
        ({"heads": (2.5,)}, TypeError, "heads\\[0\\] must be an integer"),
        ({"heads": 8}, TypeError, "heads must be a sequence"),
        ({"n": 2}, ValueError, "n must be >= 3"),
        ({"defaults": "heads"}, TypeError, "defaults must be a mapping"),
        ({"defaults": {"heads": 5}}, ValueError, "default 5 of control 'heads' is not one of"),
    ],
)
def test_explorer_refuses_bad_control_values(kwargs, error, match):
    with pytest.raises(error, match=match):
        alibi_explorer(**kwargs)
