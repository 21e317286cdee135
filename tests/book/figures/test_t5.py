"""Chapter 9 T5 figures carry transformers' buckets and Shaw's clipped index."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from transformers.models.t5.modeling_t5 import T5Attention

from book.figures.t5 import t5_buckets_figure, t5_explorer_figure

hf_bucket = T5Attention._relative_position_bucket


def step_data(ax):
    line = ax.lines[-1]  # the step plot is drawn last
    return np.asarray(line.get_xdata()), np.asarray(line.get_ydata())


def test_buckets_figure_compares_shaw_and_t5():
    fig = t5_buckets_figure(32, 128, max_offset=150, shaw_distance=8)
    top, bottom = fig.axes
    x, shaw = step_data(top)
    np.testing.assert_array_equal(x, np.arange(-150, 151))
    np.testing.assert_array_equal(shaw, np.clip(x, -8, 8) + 8)
    x, buckets = step_data(bottom)
    expected = hf_bucket(torch.from_numpy(x), bidirectional=True, num_buckets=32, max_distance=128)
    np.testing.assert_array_equal(buckets, expected.numpy())
    assert 16 not in set(buckets.tolist())
    assert any("bucket 16: never used" in t.get_text() for t in bottom.texts)
    # grey bucket edges: the logarithmic buckets begin at 8, 12, 16, 23, 32, 46, 64, 91 on each side
    edges = sorted(bottom.collections[0].get_segments(), key=lambda s: s[0][0])
    starts = [8, 12, 16, 23, 32, 46, 64, 91]
    assert [s[0][0] for s in edges] == [-d - 0.5 for d in starts[::-1]] + [d - 0.5 for d in starts]


@pytest.mark.parametrize(
    ("num_buckets", "max_distance", "bidirectional"),
    [(32, 128, True), (8, 256, False), (64, 64, True), (64, 64, False)],
)
def test_explorer_figure_buckets_and_matrix(num_buckets, max_distance, bidirectional):
    fig = t5_explorer_figure(num_buckets, max_distance, bidirectional, max_offset=100, n=20)
    left, right = fig.axes
    x, buckets = step_data(left)
    expected = hf_bucket(
        torch.from_numpy(x),
        bidirectional=bidirectional,
        num_buckets=num_buckets,
        max_distance=max_distance,
    ).numpy()
    np.testing.assert_array_equal(buckets, expected)
    rel = torch.arange(20)[None, :] - torch.arange(20)[:, None]  # key minus query
    matrix = hf_bucket(
        rel, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    )
    np.testing.assert_array_equal(np.asarray(right.images[0].get_array()), matrix.numpy())
    # each count names the offsets it covers: ±max_offset on the left, ±(n − 1) on the right
    left_title, right_title = (t.get_text() for t in fig.texts)
    assert left_title.endswith(f"offsets −100 … 100 use {len(np.unique(expected))} buckets")
    assert right_title.endswith(f"offsets −19 … 19 use {len(np.unique(matrix.numpy()))}")
    ticks = set(left.get_xticks().tolist())  # ±max_distance where the dashed lines are, if in range
    if max_distance <= 100:
        assert -max_distance in ticks and (max_distance in ticks) == bidirectional
    if not bidirectional:
        assert set(buckets[x >= 0].tolist()) == {0}  # keys after the query share bucket 0


def test_explorer_figures_sharing_a_frame_are_independent():
    first = t5_explorer_figure(8, 64, False, max_offset=100, n=20)
    second = t5_explorer_figure(32, 64, True, max_offset=100, n=20)  # the same frame, anew
    assert first.axes[0].get_yticks().tolist() == [0, 7]
    assert second.axes[0].get_yticks().tolist() == [0, 31]
    assert len(first.axes[1].images) == len(second.axes[1].images) == 1


@pytest.mark.parametrize(
    "call,error,match",
    [
        (lambda: t5_buckets_figure(num_buckets="8"), TypeError, "num_buckets must be an integer"),
        (lambda: t5_buckets_figure(max_distance=0), ValueError, "max_distance must be positive"),
        (lambda: t5_explorer_figure(bidirectional="False"), TypeError, "bidirectional must be"),
        (lambda: t5_explorer_figure(bidirectional=0), TypeError, "bidirectional must be a bool"),
        (lambda: t5_explorer_figure(num_buckets=True), TypeError, "num_buckets must be an int"),
    ],
)
def test_figures_refuse_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()
