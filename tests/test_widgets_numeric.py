"""The chapter 2 explorer: every control visibly changes the picture."""

import re

import pytest

from posenc.widgets.numeric import numeric_explorer


def test_every_control_changes_image_and_static_html_has_each_once():
    ex = numeric_explorer()
    assert [c.name for c in ex.controls] == ["encoding", "alpha", "T"]
    assert ex.n_combinations <= 60
    base = ex.png()
    assert ex.png(encoding="circle") != base
    assert ex.png(alpha=32.0) != base
    assert ex.png(T=60) != base
    html = ex.static_html()
    images = re.search(r'"images": \[(.*?)\]', html).group(1).split(",")
    assert len(images) == len(set(images)) == ex.n_combinations


def test_alpha_is_ignored_by_non_periodic_codes():
    ex = numeric_explorer(alphas=(1.0, 4.0), lengths=(10,), encodings=("index", "sine"))
    assert ex.png(encoding="index", alpha=1.0) == ex.png(encoding="index", alpha=4.0)
    assert ex.png(encoding="sine", alpha=1.0) != ex.png(encoding="sine", alpha=4.0)
    with pytest.raises(ValueError, match="encodings must be among"):
        numeric_explorer(encodings=("sine", "square"))
