"""The chapter 3 explorer: every control visibly changes the picture; the static page is small."""

import re

import pytest

from book.explorers.sinusoidal import sinusoidal_explorer


def test_every_control_changes_image_and_static_html_has_each_once():
    ex = sinusoidal_explorer()
    assert [c.name for c in ex.controls] == ["dim", "base", "positions"]
    assert ex.n_combinations == 2 * 3 * 2  # dims × bases × lengths, well under ~60
    assert ex.figure().axes[0].get_title() == "PE table: 128 positions × 64 channels"
    base = ex.png()
    assert ex.png(dim=16) != base
    assert ex.png(base=100.0) != base
    assert ex.png(positions=512) != base
    html = ex.static_html()
    images = re.search(r'"images": \[(.*?)\]', html).group(1).split(",")
    assert len(images) == len(set(images)) == ex.n_combinations
    assert len(html) < 2_500_000  # the chapter page must stay under ~3 MB


def test_custom_values_and_defaults():
    ex = sinusoidal_explorer(
        dims=(8, 16), bases=(10.0, 100.0), n_positions=(20,), defaults={"dim": 16}
    )
    assert ex.n_combinations == 4
    assert [c.labels for c in ex.controls][1] == ("10", "100")
    assert ex.figure().axes[0].get_title() == "PE table: 20 positions × 16 channels"
    with pytest.raises(ValueError, match="default 32 of control 'dim'"):
        sinusoidal_explorer(dims=(8, 16), defaults={"dim": 32})


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        ({"dims": ()}, ValueError, "dims must hold at least one"),
        ({"dims": (True,)}, TypeError, "dims\\[0\\] must be an integer"),
        ({"dims": (-2,)}, ValueError, "dims\\[0\\] must be >= 2"),
        ({"dims": (16.5,)}, TypeError, "dims\\[0\\] must be an integer"),
        ({"bases": (float("nan"),)}, ValueError, "bases\\[0\\] must be a finite number > 1"),
        ({"bases": (True,)}, TypeError, "bases\\[0\\] must be a real number"),
        ({"n_positions": ()}, ValueError, "n_positions must hold at least one"),
        ({"n_positions": (0,)}, ValueError, "n_positions\\[0\\] must be positive"),
        ({"defaults": ["dim"]}, TypeError, "defaults must be a mapping"),
    ],
)
def test_explorer_refuses_bad_control_values(kwargs, error, match):
    with pytest.raises(error, match=match):
        sinusoidal_explorer(**kwargs)
