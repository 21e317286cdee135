"""The chapter 2 explorer: every control visibly changes the picture."""

import re

import pytest

from book.explorers.numeric import numeric_explorer


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


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        ({"alphas": ()}, ValueError, "alphas must hold at least one"),
        ({"alphas": (0.0,)}, ValueError, "alphas\\[0\\] must be a finite number > 0"),
        ({"alphas": (float("inf"),)}, ValueError, "alphas\\[0\\] must be a finite number"),
        ({"lengths": (True,)}, TypeError, "lengths\\[0\\] must be an integer"),
        ({"lengths": (1,)}, ValueError, "lengths\\[0\\] must be >= 2"),
        ({"lengths": ()}, ValueError, "lengths must hold at least one"),
        ({"encodings": ()}, ValueError, "encodings must hold at least one"),
        ({"encodings": "sine"}, TypeError, "encodings must be a sequence"),
    ],
)
def test_explorer_refuses_bad_control_values(kwargs, error, match):
    with pytest.raises(error, match=match):
        numeric_explorer(**kwargs)
