"""The chapter 9 T5 explorer: every control changes the picture; invalid settings are refused."""

from __future__ import annotations

import re

import pytest

from book.explorers.explorer import DRAWERS, LiveRange, colormap_hex
from book.explorers.t5 import t5_explorer


def test_controls_and_defaults():
    ex = t5_explorer()
    assert [c.name for c in ex.controls] == [
        "num_buckets",
        "max_distance",
        "bidirectional",
        "tokens",
    ]
    assert [c.kind for c in ex.controls] == ["slider", "slider", "checkbox", "slider"]
    assert ex.n_combinations == 12  # the kernel's widget: 3 × 2 × 2, 48 tokens
    heading = " ".join(ex.figure().texts[0].get_text().split())  # its lines joined
    assert "32 buckets, max_distance 128, bidirectional" in heading


def test_every_control_changes_the_image_and_the_static_page_draws_live():
    ex = t5_explorer(num_buckets=(8, 32), max_distances=(64, 128), n=24)
    start = ex.png()
    assert ex.png(num_buckets=8) != start
    assert ex.png(max_distance=64) != start
    assert ex.png(bidirectional=False) != start
    # the static page: drawn in the browser for any value of the ranges, the default PNG alone
    assert ex.live == "t5"
    assert ex.live_data == {"max_offset": 200}
    assert [c.live for c in ex.controls] == [
        LiveRange(4, 64, step=2),
        LiveRange(33, 1024, step=1),
        None,
        LiveRange(2, 256, step=1),
    ]
    html = ex.static_html()
    assert html.count("data:image/png;base64,") == 1 and '"images"' not in html
    assert 'data-live="t5"' in html and "<canvas" in html
    assert len(t5_explorer().static_html()) < 60_000  # was about 280 kB with 12 frames


def test_every_pair_of_the_ranges_is_valid():
    """The most decoder buckets' exact range (num_buckets/2) stays below the least
    max_distance, for the default lists and for others."""
    for kwargs in (
        {},
        {"num_buckets": (8,), "max_distances": (16, 32)},
        {"num_buckets": (4, 100), "max_distances": (51, 60)},
        {"num_buckets": (8,), "max_distances": (2000,), "n": 400},
    ):
        ex = t5_explorer(**kwargs)
        buckets, distance, _, _ = (c.live for c in ex.controls)
        assert buckets.max // 2 < distance.min
        for c in ex.controls:
            assert c.live is None or all(c.live.admits(v) for v in c.values)
    ex = t5_explorer(num_buckets=(4, 100), max_distances=(51, 60))
    assert (ex.controls[0].live.max, ex.controls[1].live.min) == (100, 51)
    ex = t5_explorer(num_buckets=(8,), max_distances=(2000,), n=400)
    assert (ex.controls[1].live.max, ex.controls[3].live.max) == (2000, 400)


def test_the_drawers_turbo_is_matplotlibs():
    text = (DRAWERS / "t5.js").read_text(encoding="utf-8")
    block = re.search(r"var TURBO =\n(.*?);\n", text, re.DOTALL).group(1)
    assert "".join(re.findall(r'"([0-9a-f]+)"', block)) == colormap_hex("turbo")


def test_every_combination_must_be_valid():
    with pytest.raises(ValueError, match="max_distances must all exceed 32"):
        t5_explorer(num_buckets=(8, 64), max_distances=(32, 128))


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        ({"num_buckets": ()}, ValueError, "num_buckets must hold at least one"),
        ({"num_buckets": (True,)}, TypeError, "num_buckets\\[0\\] must be an integer"),
        ({"num_buckets": (-8,)}, ValueError, "num_buckets\\[0\\] must be >= 4"),
        ({"num_buckets": (2,)}, ValueError, "num_buckets\\[0\\] must be >= 4"),
        ({"num_buckets": (7,)}, ValueError, "num_buckets\\[0\\] must be even"),
        ({"max_distances": ()}, ValueError, "max_distances must hold at least one"),
        ({"max_distances": (128.0,)}, TypeError, "max_distances\\[0\\] must be an integer"),
        ({"max_offset": 0}, ValueError, "max_offset must be positive"),
        ({"n": True}, TypeError, "n must be an integer"),
        ({"defaults": 1}, TypeError, "defaults must be a mapping"),
    ],
)
def test_explorer_refuses_bad_control_values(kwargs, error, match):
    with pytest.raises(error, match=match):
        t5_explorer(**kwargs)
