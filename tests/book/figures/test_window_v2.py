"""book.figures.window_v2: coordinates, transfer and explorer frames show what they claim."""

from __future__ import annotations

import math

import numpy as np
import pytest
from matplotlib.figure import Figure

from book.demos.grids import window_bias_transfer
from book.figures._base import SLIDE_BOX, retina_palette_png, text_overlaps
from book.figures.window_v2 import (
    bias_transfer_figure,
    continuous_bias_figure,
    log_spaced_coords_figure,
)


def log_spaced(delta, scale):
    x = 8 * delta / (scale - 1)
    return math.copysign(math.log2(abs(x) + 1) / 3, x) if x else 0.0


@pytest.fixture(scope="module")
def small_result():
    return window_bias_transfer((4, 4), (6, 6), steps=20, hidden_dim=16)


def test_coordinates_figure_draws_the_formula():
    fig = log_spaced_coords_figure(12, 5)
    lines = [ln for ln in fig.axes[0].get_lines() if not ln.get_label().startswith("_")]
    assert [ln.get_label() for ln in lines] == ["W = 5, own", "W = 12, pretrained 5", "W = 12, own"]
    assert len({(ln.get_marker(), ln.get_linestyle()) for ln in lines}) == 3
    for line, scale in zip(lines, (5, 5, 12)):
        x, y = line.get_xdata(), line.get_ydata()
        np.testing.assert_allclose(y, [log_spaced(d, scale) for d in x], atol=1e-12)
    assert fig.get_figwidth() <= 6.8


def test_transfer_figure_titles_give_the_errors(small_result):
    fig = bias_transfer_figure(small_result)
    assert isinstance(fig, Figure) and fig.get_figwidth() <= 6.8
    titles = [ax.get_title() for ax in fig.axes[:6]]
    err = ((small_result.continuous[0] - small_result.target[0]) ** 2).mean().sqrt().item()
    assert titles[1] == f"continuous, RMSE {err:.2f}"
    np.testing.assert_allclose(fig.axes[0].images[0].get_array(), small_result.target[0].numpy())


def test_transfer_figure_slide_version_sets_the_six_panels_in_a_row_legibly():
    # chapter 12's windows (8 × 8 to 16 × 16), fitted briefly: the same shapes and titles
    result = window_bias_transfer((8, 8), (16, 16), steps=20, hidden_dim=16)
    page = bias_transfer_figure(result)
    _, metadata = retina_palette_png(page)
    slide = metadata["slide"]
    assert slide["width"] <= SLIDE_BOX[0] and slide["height"] <= SLIDE_BOX[1]
    fit = min(SLIDE_BOX[0] / slide["width"], SLIDE_BOX[1] / slide["height"])
    assert slide["text_px"] * fit * 1.5 >= 24.0  # px on a 1920 × 1080 projector
    layout = page.slide_version()
    layout.draw_without_rendering()
    assert text_overlaps(layout) == 0
    panels = [ax for ax in layout.axes if ax.images][:6]
    assert len({round(ax.get_position().y0, 6) for ax in panels}) == 1  # in a row
    for shown, again in zip(page.axes[:6], panels):
        np.testing.assert_array_equal(shown.images[0].get_array(), again.images[0].get_array())
        # the same title, the head's name moved above its three panels
        assert shown.get_title().endswith(again.get_title().replace(",\n", ", "))
    assert [t.get_text() for t in layout.texts] == ["head 0 (near)", "head 1 (row)"]


def test_transfer_figure_refuses_a_slide_that_is_not_a_bool(small_result):
    with pytest.raises(TypeError, match="slide must be a bool"):
        bias_transfer_figure(small_result, slide=1)


def test_explorer_frame_draws_the_mlp_bias(small_result):
    fig = continuous_bias_figure(6, 4, small_result.mlp, head=1)
    image = fig.axes[1].images[0].get_array()
    np.testing.assert_allclose(image, small_result.continuous[1].numpy(), atol=1e-5)
    assert len(fig.axes[1].patches) == 1  # the pretrained window's offsets
    assert len(continuous_bias_figure(6, None, small_result.mlp).axes[1].patches) == 0


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: log_spaced_coords_figure(4, 8), ValueError, "pretrained must be at most"),
        (lambda: log_spaced_coords_figure(8, 1), ValueError, "pretrained"),
        (lambda: bias_transfer_figure(None), TypeError, "result must be a BiasTransfer"),
        (lambda: continuous_bias_figure(1, None, {}), ValueError, "window"),
        (lambda: continuous_bias_figure(4, None, {}, head=2), ValueError, "head must be one of"),
        (lambda: continuous_bias_figure(4, None, {}), TypeError, "mlp must be a cpb_mlp"),
    ],
)
def test_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()
