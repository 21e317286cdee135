"""The chapter 12 explorer of Swin V2's continuous bias: controls, frames and bad arguments."""

from __future__ import annotations

import pytest

from book.explorers.window_v2 import continuous_bias_explorer


def test_a_given_mlp_is_drawn():
    from book.demos.grids import window_bias_transfer

    mlp = window_bias_transfer((4, 4), (4, 4), steps=5, hidden_dim=16).mlp
    ex = continuous_bias_explorer((4, 6), mlp=mlp)
    assert ex.n_combinations == 8 and ex.png() != continuous_bias_explorer((4, 6)).png()


def test_controls_and_frames():
    ex = continuous_bias_explorer()
    assert [c.name for c in ex.controls] == ["window", "scale", "head"]
    assert ex.n_combinations == 8 * 2 * 2
    assert ex.controls[0].values[ex.controls[0].default_index] == 16
    fig = ex.figure()
    assert fig.get_figwidth() <= 6.8 and len(fig.axes) == 3
    base = ex.png()
    for change in ({"window": 8}, {"scale": None}, {"head": 1}):
        assert ex.png(**change) != base, change


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"windows": (1, 8)}, ValueError, r"windows\[0\]"),
        ({"windows": ()}, ValueError, "windows must hold"),
        ({"defaults": {"window": 5}}, ValueError, "window"),
        ({"mlp": [1, 2]}, TypeError, "mlp must be a cpb_mlp state dict"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        continuous_bias_explorer(**kwargs)
