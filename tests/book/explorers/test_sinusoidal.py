"""The chapter 3 explorer: every control visibly changes the picture; the static page is small."""

import pytest

from book.explorers.explorer import LiveRange
from book.explorers.sinusoidal import sinusoidal_explorer


def test_every_control_changes_image_and_the_static_page_draws_live():
    ex = sinusoidal_explorer()
    assert [c.name for c in ex.controls] == ["dim", "base", "positions"]
    assert ex.n_combinations == 2 * 3 * 2  # the kernel's widget: dims × bases × lengths
    assert ex.figure().axes[0].get_title() == "PE table: 128 positions × 64 channels"
    base = ex.png()
    assert ex.png(dim=16) != base
    assert ex.png(base=100.0) != base
    assert ex.png(positions=512) != base
    # the static page: drawn in the browser over the ranges, the default PNG alone
    assert ex.live == "sinusoidal"
    assert [c.live for c in ex.controls] == [
        LiveRange(2, 256, step=2),
        LiveRange(10.0, 1e6, step=None, log=True, above=1),
        LiveRange(8, 1024, step=1),
    ]
    html = ex.static_html()
    assert html.count("data:image/png;base64,") == 1 and '"images"' not in html
    assert 'data-live="sinusoidal"' in html and "<canvas" in html
    assert len(html) < 60_000  # was about 520 kB with 12 frames


def test_the_ranges_take_in_values_offered_beyond_them():
    ex = sinusoidal_explorer(dims=(300,), bases=(2.0, 1e7), n_positions=(4, 2000))
    dim, base, positions = (c.live for c in ex.controls)
    assert (dim.min, dim.max) == (2, 300)
    assert (base.min, base.max, base.above) == (2.0, 1e7, 1)
    assert (positions.min, positions.max) == (4, 2000)


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
