"""The chapter 2 explorer: every control visibly changes the picture; the static page is small."""

import pytest

from book.explorers.explorer import LiveRange
from book.explorers.numeric import numeric_explorer


def test_every_control_changes_image_and_the_static_page_draws_live():
    ex = numeric_explorer()
    assert [c.name for c in ex.controls] == ["encoding", "alpha", "T"]
    assert ex.n_combinations == 2 * 4 * 2  # the kernel's widget: encodings × alphas × lengths
    base = ex.png()
    assert ex.png(encoding="circle") != base
    assert ex.png(alpha=32.0) != base
    assert ex.png(T=60) != base
    # the static page: drawn in the browser over the ranges, the default PNG alone
    assert ex.live == "numeric"
    assert [c.live for c in ex.controls] == [
        None,
        LiveRange(0.1, 1000.0, step=None, log=True),
        LiveRange(2, 1000, step=1),
    ]
    html = ex.static_html()
    assert html.count("data:image/png;base64,") == 1 and '"images"' not in html
    assert 'data-live="numeric"' in html and "<canvas" in html
    assert len(html) < 60_000  # was about 420 kB with 16 frames


def test_the_ranges_take_in_values_offered_beyond_them():
    ex = numeric_explorer(alphas=(0.05, 2000.0), lengths=(3, 1500))
    alpha, length = (c.live for c in ex.controls[1:])
    assert (alpha.min, alpha.max, alpha.log) == (0.05, 2000.0, True)
    assert (length.min, length.max) == (2, 1500)


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
