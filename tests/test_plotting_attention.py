"""Chapter 1 figures: right axes, right data, and the global random state left alone."""

import numpy as np
import pytest
import torch
from matplotlib.figure import Figure

from posenc.attention import SelfAttention, word_vectors
from posenc.plotting.attention import (
    SENTENCE,
    attention_pipeline_figure,
    permutation_attention_figure,
    shuffle_attention_figure,
    toy_attention_layer,
)


def image_data(ax):
    return np.asarray(ax.get_images()[0].get_array())


def test_toy_layer_is_seeded_and_leaves_global_rng_alone():
    torch.manual_seed(7)
    before = torch.get_rng_state()
    a, b = toy_attention_layer(8, seed=3), toy_attention_layer(8, seed=3)
    assert torch.equal(torch.get_rng_state(), before)
    assert isinstance(a, SelfAttention) and not a.training
    torch.testing.assert_close(a.qkv.weight, b.qkv.weight, rtol=0, atol=0)


def test_permutation_figure_difference_is_zero_without_positions_only():
    fig = permutation_attention_figure()
    assert isinstance(fig, Figure)
    heat = [ax for ax in fig.axes if ax.get_images()]
    assert len(heat) == 6
    first, shuffled, diff = (image_data(ax) for ax in heat[:3])
    assert np.abs(diff).max() < 1e-6  # no positions: PᵀA(PX)P = A(X)
    assert np.abs(image_data(heat[5])).max() > 1e-2  # positions: it is not
    np.testing.assert_allclose(first.sum(1), 1.0, atol=1e-5)  # attention rows
    # the shuffled matrix is the original with rows and columns reordered
    perm = [5, 2, 0, 4, 1, 3]
    np.testing.assert_allclose(shuffled, first[np.ix_(perm, perm)], atol=1e-6)
    assert [t.get_text() for t in heat[1].get_xticklabels()] == [SENTENCE[i] for i in perm]


def test_shuffle_figure_bars_zero_without_positions():
    perm = (5, 4, 3, 2, 1, 0)
    off = shuffle_attention_figure(perm, False)
    on = shuffle_attention_figure(perm, True)
    bars_off = [p.get_height() for p in off.axes[2].patches]
    bars_on = [p.get_height() for p in on.axes[2].patches]
    assert len(bars_off) == len(SENTENCE) == len(bars_on)
    assert max(bars_off) < 1e-5 < min(bars_on)
    assert off.axes[2].get_ylim() == on.axes[2].get_ylim()


def test_shuffle_figure_rejects_bad_perm():
    with pytest.raises(ValueError, match="permutation"):
        shuffle_attention_figure((0, 1, 1, 2, 3, 4), True)


def test_pipeline_figure_names_every_entry_point():
    fig = attention_pipeline_figure()
    text = " ".join(t.get_text() for t in fig.axes[0].texts)
    for name in ["absolute", "RoPE", "relative", "ALiBi", "Shaw", "T5", "Swin", "softmax"]:
        assert name in text
