"""book.figures.long_context: the masks, the depth grid and the angle errors drawn are the data."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest
import torch

from book.demos.rotary import rotary_angle_error
from book.experiments.passkey import (
    DEPTH_BINS,
    PasskeyScore,
    passkey_retrieval,
)
from book.figures._base import text_overlaps
from book.figures.long_context import (
    angle_error_figure,
    attention_pattern_figure,
    passkey_depth_figure,
    streaming_figure,
)
from posenc.attention import causal_mask, sliding_window_mask


@pytest.fixture(scope="module")
def results():
    return passkey_retrieval(
        (0,),
        train_lengths=(6, 8),
        eval_lengths=(8, 16),
        steps=20,
        num_sequences=40,
        window=5,
        sinks=2,
        local_window=3,
        workers=1,
        progress=False,
    )


def test_attention_patterns_are_the_masks_and_hatch_the_sinks():
    fig = attention_pattern_figure(n=10, window=3, sinks=2)
    images = [ax.get_images()[0].get_array() for ax in fig.axes]
    expected = [
        causal_mask(10, 10),
        sliding_window_mask(10, 10, 3),
        sliding_window_mask(10, 10, 3, sinks=2),
    ]
    for image, mask in zip(images, expected):
        assert np.array_equal(np.asarray(image, dtype=bool), mask.numpy())
    hatched = [(round(p.get_x() + 0.5), round(p.get_y() + 0.5)) for p in fig.axes[2].patches]
    extra = (sliding_window_mask(10, 10, 3, sinks=2) & ~sliding_window_mask(10, 10, 3)).nonzero()
    assert sorted(hatched) == sorted((j, i) for i, j in extra.tolist())
    assert all(p.get_hatch() for p in fig.axes[2].patches) and not fig.axes[0].patches
    fig.savefig(io.BytesIO(), format="png")  # lay it out as drawn
    assert fig.get_figwidth() <= 6.7 and text_overlaps(fig) == 0


def test_depth_grid_prints_every_cell_of_by_depth(results):
    fig = passkey_depth_figure(results)
    assert [ax.get_title() for ax in fig.axes] == list(results.scores)
    for ax, setup in zip(fig.axes, results.scores):
        grid = torch.stack([results.by_depth(setup, n) for n in (8, 16)], dim=1)  # [B, 2]
        np.testing.assert_allclose(ax.get_images()[0].get_array(), grid.numpy())
        texts = {
            (round(t.get_position()[0]), round(t.get_position()[1])): t.get_text() for t in ax.texts
        }
        for m in range(DEPTH_BINS):
            for c in range(2):
                value = float(grid[m, c])
                assert texts[(c, m)] == ("–" if math.isnan(value) else str(round(100 * value)))
    with pytest.raises(ValueError, match="setups must be among"):
        passkey_depth_figure(results, ["nope"])
    with pytest.raises(TypeError, match="results must be PasskeyResults"):
        passkey_depth_figure({})


def test_angle_errors_drawn_are_the_demo_s():
    fig = angle_error_figure(max_position=2**10, dim=16)
    lines = [ln for ln in fig.axes[0].get_lines() if not ln.get_label().startswith("_")]
    assert [ln.get_label() for ln in lines] == ["bfloat16 angles", "float32 angles"]
    assert len({ln.get_marker() for ln in lines}) == 2
    for line, dtype in zip(lines, (torch.bfloat16, torch.float32)):
        x = torch.tensor(line.get_xdata(), dtype=torch.float64)
        want = rotary_angle_error(x, 16, dtype=dtype).amax(-1).clamp(min=1e-6)
        np.testing.assert_allclose(line.get_ydata(), want.numpy())
    fig.savefig(io.BytesIO(), format="png")  # lay it out as drawn
    assert text_overlaps(fig) == 0


def test_streaming_figure_bars_are_retrieval_by_depth():
    depth = torch.tensor([0.0, 0.1, 0.5, 0.55, 0.9, 1.0], dtype=torch.float64)
    hits = torch.tensor([True, False, False, True, True, True])
    score = PasskeyScore(retrieval=4 / 6, perplexity=1.2, depth=depth, hits=hits)
    fig = streaming_figure(score, length=64, window=8, sinks=2)
    heights = [b.get_height() for b in fig.axes[0].containers[0]]
    expected = [0.5, math.nan, math.nan, math.nan, 0.5, math.nan, math.nan, 1.0]
    assert all((math.isnan(a) and math.isnan(b)) or a == b for a, b in zip(heights, expected))
    assert "retrieval 0.67" in fig.axes[0].get_title()
    with pytest.raises(TypeError, match="score must be a PasskeyScore"):
        streaming_figure(0.5, length=64, window=8, sinks=2)  # type: ignore[arg-type]
