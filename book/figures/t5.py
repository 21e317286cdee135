"""Figures for T5's bucketed relative position bias (chapter 9).

The bucket of every offset, next to Shaw et al.'s clipped index (T5 as a "log-clipped"
version of it), and the explorer's figure (buckets against offsets for chosen settings,
and the bucket index matrix of a short sequence).

Every function returns a new ``Figure``; nothing touches pyplot.
"""

from __future__ import annotations

import functools
import pickle

import numpy as np
import torch
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from book.figures._base import fit_column, new_figure
from posenc._checks import check_bool, check_int
from posenc.shaw import shaw_relative_index
from posenc.t5 import t5_bucket_index, t5_bucket_starts, t5_relative_bucket

__all__ = ["t5_buckets_figure", "t5_explorer_figure"]


def _draw_buckets(
    ax: Axes, offsets: np.ndarray, *, bidirectional: bool, num_buckets: int, max_distance: int
) -> np.ndarray:
    """Step plot of the bucket of each offset, exact range shaded, bucket starts as grey ticks."""
    buckets = t5_relative_bucket(
        torch.from_numpy(offsets),
        bidirectional=bidirectional,
        num_buckets=num_buckets,
        max_distance=max_distance,
    ).numpy()
    per_side = num_buckets // 2 if bidirectional else num_buckets
    exact = per_side // 2
    ax.axvspan(-exact + 0.5, exact - 0.5 if bidirectional else 0.5, color="C2", alpha=0.15, lw=0)
    starts = t5_bucket_starts(
        bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    ).numpy()
    starts = starts[starts >= exact]  # the logarithmic buckets' first distances
    edges = -starts - 0.5 if not bidirectional else np.concatenate((-starts - 0.5, starts - 0.5))
    edges = edges[(edges > offsets[0]) & (edges < offsets[-1])]
    ax.vlines(edges, 0, 1, transform=ax.get_xaxis_transform(), color="0.8", lw=0.6)
    for sign in (-1, 1) if bidirectional else (-1,):
        if abs(max_distance) <= abs(offsets).max():
            ax.axvline(sign * max_distance, color="C3", ls="--", lw=0.9)
    ax.step(offsets, buckets, where="mid", color="black", lw=1.2)
    ax.set_xlim(offsets[0] - 0.5, offsets[-1] + 0.5)
    ax.set_ylim(-1, num_buckets)
    return buckets


def t5_buckets_figure(
    num_buckets: int = 32, max_distance: int = 128, *, max_offset: int = 160, shaw_distance: int = 8
) -> Figure:
    """T5's buckets against the offset, below Shaw et al.'s clipped index for comparison.

    Top: Shaw's index ``clip(j − i, −k, k) + k`` with ``k = shaw_distance``: one entry per
    offset up to ``k``, then flat. Bottom: T5's bucket (bidirectional): one bucket per offset
    for the exact range (shaded), then buckets that widen with the distance (their first
    offsets as grey lines), and from a certain distance on the last bucket of each side; the
    dashed red lines mark ``±max_distance``. Bucket ``num_buckets/2`` (offset "+0") is never
    used.

    Args:
        num_buckets: T5's ``num_buckets``.
        max_distance: T5's ``max_distance``.
        max_offset: offsets ``−max_offset..max_offset`` are drawn.
        shaw_distance: Shaw's clipping distance ``k``.

    Returns:
        a Figure with two axes (Shaw, then T5); the last line of each is its step plot.
    """
    max_offset = check_int("max_offset", max_offset)
    num_buckets = check_int("num_buckets", num_buckets)
    max_distance = check_int("max_distance", max_distance)
    k = check_int("shaw_distance", shaw_distance, minimum=0)
    offsets = np.arange(-max_offset, max_offset + 1)
    fig = new_figure(8.4, 4.8)
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=[1, 1.6])
    # the query at position max_offset sees the keys 0..2·max_offset: offsets −max_offset..max_offset
    shaw = shaw_relative_index(max_offset + 1, 2 * max_offset + 1, k)[max_offset].numpy()
    top.axvspan(-k - 0.5, k + 0.5, color="C2", alpha=0.15, lw=0)
    top.step(offsets, shaw, where="mid", color="C0", lw=1.2)
    top.set_ylim(-1, 2 * k + 1)
    top.set_ylabel("table row")
    top.set_title(
        f"Shaw et al.: clip(j − i, −{k}, {k}) + {k}: {2 * k + 1} rows, exact up to k, then flat",
        fontsize=10,
    )
    per_side = num_buckets // 2
    bottom.axhline(per_side, color="C1", ls=":", lw=1.0)
    bottom.text(
        -max_offset + 2,
        per_side + 0.6,
        f"bucket {per_side}: never used",
        color="C1",
        fontsize=8,
        va="bottom",
    )
    _draw_buckets(
        bottom, offsets, bidirectional=True, num_buckets=num_buckets, max_distance=max_distance
    )
    bottom.set_ylabel("bucket")
    bottom.set_xlabel("offset j − i (key minus query)")
    bottom.set_title(
        f"T5: {num_buckets} buckets, max_distance = {max_distance}: exact near, "
        "logarithmic far (grey: bucket edges)",
        fontsize=10,
    )
    return fit_column(fig)


@functools.lru_cache(maxsize=1)
def _explorer_frame() -> bytes:
    """The explorer figure's frame: the figure and its two axes with their ticks, pickled.

    Creating the axes and their ticks takes most of the time to build the figure; unpickling
    a ready frame is much faster. Every combination of the controls shares the frame, and
    :func:`t5_explorer_figure` unpickles a fresh copy for each render.
    """
    fig = new_figure(6.8, 3.2, layout=None)
    left = fig.add_axes((0.1, 0.16, 0.5, 0.6))
    right = fig.add_axes((0.68, 0.06, 0.3, 0.7))
    left.set_yticks([0, 1])  # tick artists made once, moved to their places on each render
    left.set_xticks([-2, -1, 0, 1, 2])
    left.set_xlabel("offset j − i")
    left.set_ylabel("bucket")
    right.set_axis_off()
    return pickle.dumps(fig)


def t5_explorer_figure(
    num_buckets: int = 32,
    max_distance: int = 128,
    bidirectional: bool = True,
    *,
    max_offset: int = 300,
    n: int = 48,
) -> Figure:
    """The explorer's panel: bucket against offset, and the bucket matrix of ``n`` tokens.

    Left: T5's bucket for offsets ``−max_offset..max_offset`` (exact range shaded, bucket
    edges grey, ``±max_distance`` dashed red). Unidirectional: keys after the query all share
    bucket 0. Right: the bucket of every query-key pair of a sequence of ``n`` tokens, one
    colour per bucket. Each panel's title counts the buckets its offsets use: those of
    ``±max_offset`` on the left, those of ``±(n − 1)`` on the right, which can be fewer.
    Drawn for a fast redraw: fixed axes and no layout engine, copied from a frame built once.

    Args:
        num_buckets: T5's ``num_buckets``.
        max_distance: T5's ``max_distance``.
        bidirectional: encoder (``True``) or decoder buckets.
        max_offset: offsets drawn on the left.
        n: tokens on the right.

    Returns:
        a Figure with two axes (the step plot, the bucket image).
    """
    max_offset = check_int("max_offset", max_offset)
    n = check_int("n", n)
    num_buckets = check_int("num_buckets", num_buckets)
    max_distance = check_int("max_distance", max_distance)
    bidirectional = check_bool("bidirectional", bidirectional)
    offsets = np.arange(-max_offset, max_offset + 1)
    fig = pickle.loads(_explorer_frame())
    left, right = fig.axes
    buckets = _draw_buckets(
        left,
        offsets,
        bidirectional=bidirectional,
        num_buckets=num_buckets,
        max_distance=max_distance,
    )
    left.set_yticks([0, num_buckets - 1])
    ticks = {0}
    if max_distance <= max_offset:  # where the dashed lines are: both sides, or the past only
        ticks |= {-max_distance, max_distance} if bidirectional else {-max_distance}
    if max_offset - max_distance > 0.15 * max_offset:  # room for the ends without overlap
        ticks |= {-max_offset, max_offset}
    left.set_xticks(sorted(ticks))
    kind = "bidirectional (encoder)" if bidirectional else "unidirectional (decoder)"
    # each panel says which offsets its count of buckets covers: the two counts differ
    fig.text(
        0.35,
        0.79,
        f"{num_buckets} buckets, max_distance {max_distance},\n{kind}\n"
        f"offsets −{max_offset} … {max_offset} use {len(np.unique(buckets))} buckets",
        ha="center",
        fontsize=9.5,
    )

    index = t5_bucket_index(
        n, n, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    ).numpy()  # [n, n]
    right.imshow(
        index, cmap=colormaps["turbo"], vmin=0, vmax=num_buckets - 1, interpolation="nearest"
    )
    fig.text(
        0.83,
        0.79,
        f"bucket of each pair, {n} tokens\noffsets −{n - 1} … {n - 1} use {len(np.unique(index))}",
        ha="center",
        fontsize=9,
    )
    return fit_column(fig)
