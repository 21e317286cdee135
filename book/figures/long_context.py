"""Chapter 13's figures: who attends to whom, where a passkey is found, and how far an angle drifts.

* :func:`attention_pattern_figure`: the masks of global causal attention, a sliding window,
  and a window with attention sinks (:func:`posenc.attention.sliding_window_mask`);
* :func:`passkey_depth_figure`: passkey retrieval by the depth of the key and the test
  length, one panel per set-up of :func:`book.experiments.passkey.passkey_retrieval` (the
  "needle in a haystack" picture), every cell printed as a percentage;
* :func:`streaming_figure`: one windowed model's retrieval by the depth of the key, against
  the share of keys its cache still holds (chapter 13's explorer);
* :func:`angle_error_figure`: RoPE's worst angle error against the position when the angles
  are computed in bfloat16 or float32 (:func:`book.demos.rotary.rotary_angle_error`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from book._checks import check_values
from book.demos.rotary import rotary_angle_error
from book.experiments.passkey import (
    DEPTH_BINS,
    PasskeyResults,
    PasskeyScore,
    retrieval_by_depth,
)
from book.figures._base import new_figure
from posenc._checks import check_int
from posenc.attention import causal_mask, sliding_window_mask

__all__ = [
    "angle_error_figure",
    "attention_pattern_figure",
    "passkey_depth_figure",
    "streaming_figure",
]


def attention_pattern_figure(n: int = 12, window: int = 4, sinks: int = 2) -> Figure:
    """Draw which keys each query sees: global causal, a sliding window, a window with sinks.

    .. math::

        M^{\\text{global}}_{ij} = [j \\le i], \\quad
        M^{\\text{window}}_{ij} = [i - w < j \\le i], \\quad
        M^{\\text{sinks}}_{ij} = M^{\\text{window}}_{ij} \\lor [j < s,\\ j \\le i]

    Three panels of ``n × n`` cells, queries down and keys across; a filled cell is a key the
    query sees. In the third panel the sinks are hatched, so that the picture does not rest
    on colour.

    Args:
        n: the sequence length drawn.
        window: ``w``.
        sinks: ``s``.

    Returns:
        the figure (6.6 × 2.6 in).
    """
    n = check_int("n", n, minimum=2)
    window = check_int("window", window)
    sinks = check_int("sinks", sinks, minimum=0)
    masks = [
        ("global: every earlier key", causal_mask(n, n), None),
        (f"sliding window, w = {window}", sliding_window_mask(n, n, window), None),
        (
            f"window + {sinks} sinks",
            sliding_window_mask(n, n, window, sinks=sinks),
            sliding_window_mask(n, n, window, sinks=sinks) & ~sliding_window_mask(n, n, window),
        ),
    ]
    fig = new_figure(6.6, 2.6)
    axes = fig.subplots(1, 3)
    for index, (ax, (title, mask, sink)) in enumerate(zip(axes, masks)):
        ax.imshow(mask.numpy(), cmap="Blues", vmin=-0.3, vmax=1.2, interpolation="nearest")
        if sink is not None:
            for i, j in sink.nonzero().tolist():
                ax.add_patch(
                    Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, hatch="////",
                              edgecolor="#b35806", lw=0)
                )  # fmt: skip
        ax.set_title(title, fontsize=9)
        ax.set_xticks([0, n - 1])
        ax.set_yticks([0, n - 1])
        ax.tick_params(labelsize=8)
        ax.set_xlabel("key j", fontsize=8, labelpad=1)
        if index == 0:
            ax.set_ylabel("query i", fontsize=8, labelpad=1)
    return fig


def passkey_depth_figure(results: PasskeyResults, setups: Sequence[str] | None = None) -> Figure:
    """Draw passkey retrieval by the depth of the key and the test length, one panel per set-up.

    .. math::

        a_e(n, m) = \\frac{\\#\\{\\text{passkeys named, key depth in bin } m\\}}
        {\\#\\{\\text{sequences, key depth in bin } m\\}}

    over all seeds (:meth:`PasskeyResults.by_depth`). Columns are the test lengths, rows the
    depth of the key from the start (top) to the end of the sequence (bottom); each cell
    prints its percentage, so the figure does not rest on colour.

    Args:
        results: from :func:`book.experiments.passkey.passkey_retrieval`.
        setups: the set-ups to draw, in order (default: all four).

    Returns:
        the figure (6.7 in wide).
    """
    if not isinstance(results, PasskeyResults):
        raise TypeError(f"results must be PasskeyResults, got {type(results).__name__}")
    names = list(results.scores) if setups is None else check_values("setups", setups)
    for name in names:
        if name not in results.scores:
            raise ValueError(f"setups must be among {tuple(results.scores)}, got {name!r}")
    lengths = results.eval_lengths
    top = results.train_lengths[1]
    labels = ["L" if n == top else f"{n // top}L" if n % top == 0 else str(n) for n in lengths]
    fig = new_figure(6.7, 3.3)
    axes = np.atleast_1d(fig.subplots(1, len(names), sharey=True))
    for ax, name in zip(axes, names):
        grid = torch.stack([results.by_depth(name, n) for n in lengths], dim=1)  # [B, lengths]
        ax.imshow(grid.numpy(), cmap="Greens", vmin=0, vmax=1.15, aspect="auto",
                  interpolation="nearest")  # fmt: skip
        for m in range(DEPTH_BINS):
            for c in range(len(lengths)):
                value = float(grid[m, c])
                ax.text(c, m, "–" if np.isnan(value) else f"{round(100 * value)}",
                        ha="center", va="center", fontsize=8,
                        color="white" if value > 0.6 else "black")  # fmt: skip
        ax.set_title(name, fontsize=9)
        ax.set_xticks(range(len(lengths)), labels)
        ax.tick_params(labelsize=8, length=0)
        ax.set_xlabel("test length", fontsize=8, labelpad=1)
    axes[0].set_yticks([0, DEPTH_BINS - 1], ["start", "end"])
    axes[0].set_ylabel("depth of the key", fontsize=8)
    return fig


def angle_error_figure(max_position: int = 2**20, dim: int = 128, base: float = 10000.0) -> Figure:
    """Draw RoPE's worst angle error over the pairs against the position, per dtype.

    .. math::

        e(m) = \\max_i \\big|\\operatorname{wrap}(\\operatorname{fl}(m\\,\\theta_i) - m\\,\\theta_i)\\big|

    for angles computed in bfloat16 (circles) and float32 (squares), on a log scale of
    positions from 1 to ``max_position``; the dashed line is a quarter turn, the dotted one
    half a turn (the worst possible). Float64, what :mod:`posenc` uses, is exact on this
    scale and not drawn.

    Args:
        max_position: the last position drawn (a power of two or not).
        dim: ``d`` of the head.
        base: RoPE's base.

    Returns:
        the figure (6.4 × 2.8 in).
    """
    max_position = check_int("max_position", max_position, minimum=2)
    exponents = np.arange(0, np.log2(max_position) + 0.01, 0.5)
    positions = torch.tensor(np.unique(np.round(2.0**exponents)), dtype=torch.float64)
    fig = new_figure(6.4, 2.8)
    ax = fig.add_subplot()
    for dtype, marker, label in (
        (torch.bfloat16, "o", "bfloat16 angles"),
        (torch.float32, "s", "float32 angles"),
    ):
        error = rotary_angle_error(positions, dim, dtype=dtype, base=base).amax(-1)  # [n]
        ax.plot(positions.numpy(), np.maximum(error.numpy(), 1e-6), marker=marker,
                markersize=4, lw=1.2, label=label)  # fmt: skip
    ax.axhline(np.pi / 2, color="grey", ls="--", lw=1)
    ax.axhline(np.pi, color="grey", ls=":", lw=1)
    ax.text(1.2, np.pi / 2 * 0.45, "a quarter turn", fontsize=8, color="dimgrey")
    ax.text(1.2, np.pi * 1.3, "half a turn (worst)", fontsize=8, color="dimgrey")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_ylim(1e-6, 20)
    ax.set_xlabel("position m", fontsize=9)
    ax.set_ylabel("worst angle error (rad)", fontsize=9)
    ax.tick_params(labelsize=8)
    ax.legend(fontsize=8, loc="lower right", frameon=False, labelspacing=0.8)
    return fig


def streaming_figure(score: PasskeyScore, *, length: int, window: int, sinks: int) -> Figure:
    """Draw a windowed model's passkey retrieval by the depth of the key, and what its cache holds.

    .. math::

        \\text{kept}(s) = [\\, s + 1 \\ge n - w \\ \\lor\\ s + 1 < \\text{sinks} \\,]

    Bars: the share of passkeys named, for keys in each eighth of the sequence (the value
    right after the key at ``s + 1`` must still be in the last query's cache). Hatched band:
    the depths whose passkey the cache of the last query still holds, the last ``w`` positions
    and the first ``sinks``. The title gives the overall retrieval and the filler's perplexity.

    Args:
        score: :func:`book.experiments.passkey.passkey_scores` of the windowed model.
        length: ``n``, the test length of ``score``.
        window: ``w``.
        sinks: the number of sinks.

    Returns:
        the figure (6.4 × 3.2 in).
    """
    if not isinstance(score, PasskeyScore):
        raise TypeError(f"score must be a PasskeyScore, got {type(score).__name__}")
    length = check_int("length", length, minimum=4)
    window = check_int("window", window)
    sinks = check_int("sinks", sinks, minimum=0)
    share = retrieval_by_depth(score.depth, score.hits).numpy()  # [B]
    fig = new_figure(6.4, 3.2)
    ax = fig.add_subplot()
    # the passkey sits at s + 1 = depth * (n - 3) + 1; kept when inside the window or a sink
    lo_keep = max(0.0, (length - window - 1) / (length - 3))
    ax.axvspan(lo_keep, 1.0, facecolor="none", edgecolor="grey", hatch="//", lw=0,
               label=f"passkey in the last {window} positions")  # fmt: skip
    if sinks > 1:
        ax.axvspan(0, min(1.0, (sinks - 2) / (length - 3) + 1 / (length - 3)), facecolor="none",
                   edgecolor="#b35806", hatch="\\\\", lw=0, label=f"passkey in the {sinks} sinks")  # fmt: skip
    centres = (np.arange(DEPTH_BINS) + 0.5) / DEPTH_BINS
    ax.bar(centres, share, width=0.8 / DEPTH_BINS, color="#2c7fb8", label="passkeys named")
    ax.axhline(1 / 14, color="black", ls=":", lw=1, label="chance, 1 in 14")
    for x, y in zip(centres, share):
        ax.text(x, y + 0.03, "–" if np.isnan(y) else f"{round(100 * y)}%", ha="center", fontsize=8)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.12)
    ax.set_xlabel("depth of the key (0 = start, 1 = end)", fontsize=9)
    ax.set_ylabel("passkeys named", fontsize=9)
    ax.tick_params(labelsize=8)
    ax.set_title(
        f"n = {length}: retrieval {score.retrieval:.2f}, filler perplexity {score.perplexity:.2f}",
        fontsize=9,
    )
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.2), frameon=False, ncols=2)
    return fig
