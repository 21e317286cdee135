"""The chapter 3 explorer: every control visibly changes the picture; the static page is small."""

import re

import pytest

from posenc.widgets.sinusoidal import sinusoidal_explorer


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
