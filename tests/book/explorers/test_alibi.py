"""The chapter 9 ALiBi explorer: every control changes the picture; the static page draws live."""

from __future__ import annotations

import pytest

from book.explorers.alibi import alibi_explorer
from book.explorers.explorer import LiveRange


def test_controls_and_defaults():
    ex = alibi_explorer()
    assert [c.name for c in ex.controls] == ["heads", "causal", "tokens"]
    assert [c.kind for c in ex.controls] == ["slider", "checkbox", "slider"]
    assert ex.n_combinations == 8  # the kernel's widget: 4 head counts × causal, 41 tokens
    fig = ex.figure()
    assert len(fig.axes[0].collections[0].get_segments()) == 8  # one line per head, 8 by default
    assert any("causal" in t.get_text() for t in fig.texts)


def test_every_control_changes_the_image_and_the_static_page_draws_live():
    ex = alibi_explorer(heads=(4, 12), n=21)
    start = ex.png()
    assert ex.png(heads=12) != start
    assert ex.png(causal=False) != start
    # the static page: drawn in the browser for any value of the ranges, the default PNG alone
    assert ex.live == "alibi"
    assert [c.live for c in ex.controls] == [
        LiveRange(1, 64, step=1),
        None,
        LiveRange(3, 401, step=2),
    ]
    html = ex.static_html()
    assert html.count("data:image/png;base64,") == 1 and '"images"' not in html
    assert 'data-live="alibi"' in html and "<canvas" in html
    assert len(alibi_explorer().static_html()) < 60_000  # was about 290 kB with 8 frames


def test_the_ranges_take_in_values_offered_beyond_them():
    ex = alibi_explorer(heads=(4, 100), n=501)
    heads, _, tokens = (c.live for c in ex.controls)
    assert (heads.min, heads.max) == (1, 100)
    assert (tokens.min, tokens.max, tokens.step) == (3, 501, 2)
    assert ex.controls[2].values == (501,)


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        ({"heads": ()}, ValueError, "heads must hold at least one"),
        ({"heads": (True, 8)}, TypeError, "heads\\[0\\] must be an integer"),
        ({"heads": (-4,)}, ValueError, "heads\\[0\\] must be positive"),
        ({"heads": (2.5,)}, TypeError, "heads\\[0\\] must be an integer"),
        ({"heads": 8}, TypeError, "heads must be a sequence"),
        ({"n": 2}, ValueError, "n must be >= 3"),
        ({"n": 40}, ValueError, "n must be odd"),
        ({"defaults": "heads"}, TypeError, "defaults must be a mapping"),
        ({"defaults": {"heads": 5}}, ValueError, "default 5 of control 'heads' is not one of"),
    ],
)
def test_explorer_refuses_bad_control_values(kwargs, error, match):
    with pytest.raises(error, match=match):
        alibi_explorer(**kwargs)
