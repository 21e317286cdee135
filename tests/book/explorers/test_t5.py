"""The chapter 9 T5 explorer: every control changes the picture; invalid settings are refused."""

from __future__ import annotations

import base64

import pytest

from book.explorers.t5 import t5_explorer
from book.figures.png import palette_png


def test_controls_and_defaults():
    ex = t5_explorer()
    assert [c.name for c in ex.controls] == ["num_buckets", "max_distance", "bidirectional"]
    assert [c.kind for c in ex.controls] == ["slider", "slider", "checkbox"]
    assert ex.n_combinations == 12
    heading = " ".join(ex.figure().texts[0].get_text().split())  # its lines joined
    assert "32 buckets, max_distance 128, bidirectional" in heading


def test_every_control_changes_the_image_and_static_html():
    ex = t5_explorer(num_buckets=(8, 32), max_distances=(64, 128), n=24)
    start = ex.png()
    assert ex.png(num_buckets=8) != start
    assert ex.png(max_distance=64) != start
    assert ex.png(bidirectional=False) != start
    html = ex.static_html()
    distinct = {ex.png(**ex._values(key)) for key in ex.all_indices()}
    assert len(distinct) == ex.n_combinations == 8
    for data in distinct:
        assert base64.b64encode(palette_png(data)).decode("ascii") in html
    assert len(html) < 8 * 40_000


def test_every_combination_must_be_valid():
    with pytest.raises(ValueError, match="max_distances must all exceed 32"):
        t5_explorer(num_buckets=(8, 64), max_distances=(32, 128))


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        ({"num_buckets": ()}, ValueError, "num_buckets must hold at least one"),
        ({"num_buckets": (True,)}, TypeError, "num_buckets\\[0\\] must be an integer"),
        ({"num_buckets": (-8,)}, ValueError, "num_buckets\\[0\\] must be >= 2"),
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
