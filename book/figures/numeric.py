"""Figures for chapter 2: the raw index, the normalised index and a single sine as codes."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator
from torch import Tensor

from book._checks import check_values
from book.demos.numeric import adjacent_distances, closest_distinct_pair, pairwise_distances
from book.figures._base import (
    fit_column,
    heatmap,
    index_ticks,
    inset_colorbar,
    new_figure,
    to_numpy,
    with_slide_version,
)
from posenc._checks import check_bool, check_int, check_positive_float
from posenc.numeric import numeric_encoding, periodic_encoding

__all__ = ["ENCODINGS", "encoding_table", "naive_encodings_figure", "numeric_codes_figure"]

#: label shown in the book -> key understood by :func:`encoding_table`
ENCODINGS = {
    "index p": "index",
    "p / (T-1)": "normalized",
    "sin(p/α)": "sine",
    "sin & cos(p/α)": "circle",
}


def encoding_table(kind: str, n_positions: int, *, alpha: float = 1.0) -> Tensor:
    """The ``[n, 1]`` or ``[n, 2]`` code table of one naive encoding.

    ``kind`` is ``"index"`` (``p``), ``"normalized"`` (``p/(T-1)``), ``"sine"``
    (``sin(p/α)``) or ``"circle"`` (``sin`` and ``cos`` of ``p/α``); ``alpha`` is used by the
    last two only.

    Args:
        kind: ``"index"``, ``"normalized"``, ``"sine"`` or ``"circle"``.
        n_positions: ``T``, the number of positions.
        alpha: ``α``, the scale of the sine and the circle.

    Returns:
        the float table, ``[T, 1]`` (``[T, 2]`` for ``"circle"``).
    """
    if kind == "index":
        return numeric_encoding(n_positions)
    if kind == "normalized":
        return numeric_encoding(n_positions, normalize=True)
    if kind == "sine":
        return periodic_encoding(n_positions, alpha=alpha)
    if kind == "circle":
        return periodic_encoding(n_positions, alpha=alpha, cosine=True)
    raise ValueError(f"kind must be one of {sorted(ENCODINGS.values())}, got {kind!r}")


_SLIDE_FONT = 12.5
"""The font size, in points, of :func:`naive_encodings_figure`'s slide layout: 25 px on a
1080p projector in a figure about 3.8 inches high, shown 380 CSS px high."""


def naive_encodings_figure(
    lengths: Sequence[int] = (11, 101), *, alpha: float = 5.0, slide: bool = False
) -> Figure:
    """The three naive codes for a short and a long sequence, position on the x-axis.

    Left: ``p`` grows without bound, far outside the range of word-embedding entries
    (shaded, ±3 for standard-normal entries). Middle: ``p/(T-1)`` stays in ``[0, 1]`` but the
    same code (0.2, dotted) sits at different positions in the two sequences. Right:
    ``sin(p/α)`` is bounded and the same for every length, but it repeats every ``2πα``
    positions. The page's figure carries a slide layout
    (:func:`book.figures._base.with_slide_version`): the same panels, wider, with larger text,
    fewer tick labels and one legend beside the panels instead of one inside each.

    Args:
        lengths: ``(T_short, T_long)``, the two sequence lengths (each at least 2).
        alpha: ``α``, the sine's scale (a finite number ``> 0``).
        slide: draw the slide layout.

    Returns:
        a Figure with three axes (index, normalized, sine), one line per length in each.
    """
    lengths = check_values("lengths", lengths, lambda name, t: check_int(name, t, minimum=2))
    if len(lengths) != 2:
        raise ValueError(f"lengths must hold two sequence lengths, got {lengths!r}")
    short, long = lengths
    alpha = check_positive_float("alpha", alpha)
    slide = check_bool("slide", slide)
    font = _SLIDE_FONT if slide else None
    fig = new_figure(11.6, 3.75) if slide else new_figure(6.8, 3.6)
    axes = fig.subplots(1, 3)
    styles = {
        short: {"color": "tab:blue", "marker": "o", "ms": 4, "lw": 1.5},
        long: {"color": "tab:orange", "lw": 1.5},
    }
    for t, style in styles.items():
        p = np.arange(t)
        axes[0].plot(p, to_numpy(numeric_encoding(t))[:, 0], label=f"T = {t}", **style)
        axes[1].plot(
            p, to_numpy(numeric_encoding(t, normalize=True))[:, 0], label=f"T = {t}", **style
        )
    # the sine does not depend on T: draw the long one, mark the short one's positions
    p_long = np.arange(long)
    axes[2].plot(
        p_long,
        to_numpy(periodic_encoding(long, alpha=alpha))[:, 0],
        color="tab:orange",
        lw=1.5,
        label=f"T = {long}",
    )
    axes[2].plot(
        np.arange(short),
        to_numpy(periodic_encoding(short, alpha=alpha))[:, 0],
        "o",
        color="tab:blue",
        ms=4,
        label=f"T = {short}",
    )
    axes[0].axhspan(-3, 3, color="0.8", label="word-embedding entries\n(±3; standard-normal)")
    axes[0].set_title("PE(p) = p:\nunbounded", fontsize=font or 9)
    axes[1].axhline(0.2, color="0.3", ls=":", lw=1)
    for t in (short, long):
        axes[1].axvline(0.2 * (t - 1), color=styles[t]["color"], ls=":", lw=1)
    axes[1].set_title(
        f"PE(p) = p/(T−1): 0.2 is\np = {0.2 * (short - 1):g} or p = {0.2 * (long - 1):g}",
        fontsize=font or 9,
    )
    period = 2 * np.pi * alpha
    for k in range(1, int((long - 1) // period) + 1):
        axes[2].axvline(k * period, color="0.6", ls="--", lw=0.8)
    axes[2].set_title(f"PE(p) = sin(p/{alpha:g}):\nrepeats every {period:.1f}", fontsize=font or 9)
    if slide:
        for ax in axes:
            ax.set_xlabel("position p", fontsize=font)
            ax.tick_params(labelsize=font)
        axes[2].yaxis.set_major_locator(MaxNLocator(5))  # not every quarter: larger labels
        axes[0].set_ylabel("code value", fontsize=font)
        # one legend for the three panels, beside them: inside, it would hide data and ticks
        fig.legend(*axes[0].get_legend_handles_labels(), loc="outside right center", fontsize=font)
        return fig
    for ax in axes:
        ax.set_xlabel("position p")
        ax.legend(fontsize=8, loc="best")
    axes[0].set_ylabel("code value")
    return with_slide_version(
        fit_column(fig), lambda: naive_encodings_figure(lengths, alpha=alpha, slide=True)
    )


def numeric_codes_figure(kind: str, alpha: float, n_positions: int) -> Figure:
    """One naive code: its values by position (closest pair marked) and its distance matrix.

    Left: the code of each position as dots (not joined: for small ``α`` consecutive
    positions are far apart on the wave), the two distinct positions with the closest codes
    circled in red. When several pairs tie for closest (within a relative ``1e-4``), the title
    says so: for ``p``, ``p/(T-1)`` or a circle that makes less than a full turn every pair of
    neighbours ties and none is circled; when all tied pairs are ``k > 1`` apart (a circle
    after a full turn) one of them is circled as an example. Right: ``‖PE(i) − PE(j)‖``
    for all pairs; dark cells off the diagonal are positions the code cannot tell apart.
    The title quotes the closest pair and the smallest step between neighbours (too small:
    neighbours blur together). Drawn without constrained layout, small, for a fast redraw.

    Args:
        kind: the code, one of ``"index"``, ``"normalized"``, ``"sine"``, ``"circle"``.
        alpha: ``α``, the scale of the sine and the circle (ignored by the others).
        n_positions: ``T``, the sequence length (at least 2: a pair is needed).

    Returns:
        a Figure with two axes (the codes, the distance matrix) and the matrix's colour bar.
    """
    n_positions = check_int("n_positions", n_positions, minimum=2)
    table = encoding_table(kind, n_positions, alpha=alpha)  # [n, 1] or [n, 2]
    codes = to_numpy(table)
    i, j, dist = closest_distinct_pair(table)
    step = float(adjacent_distances(table).min())
    n = codes.shape[0]
    p = np.arange(n)
    dmat = to_numpy(pairwise_distances(table))  # [n, n]
    rows, cols = np.triu_indices(n, 1)
    tied = dmat[rows, cols] <= dist * (1 + 1e-4) + 1e-12  # pairs as close as the closest
    ties = int(tied.sum())
    offsets = set((cols - rows)[tied].tolist())  # how far apart the tied pairs are
    mark = ties == 1 or (len(offsets) == 1 and offsets != {1})  # one pair, or one offset k > 1
    fig = new_figure(6.8, 3.1, layout=None)
    fig.subplots_adjust(left=0.11, right=0.9, bottom=0.16, top=0.8, wspace=0.3)
    axes = fig.subplots(1, 2, width_ratios=[1.6, 1])
    names = ["sin(p/α)", "cos(p/α)"] if kind == "circle" else ["PE(p)"]
    for c, name in enumerate(names):
        axes[0].plot(p, codes[:, c], "o", ms=3 if n > 30 else 4, label=name)
        if mark:
            axes[0].plot([i, j], codes[[i, j], c], "o", ms=10, mfc="none", mec="tab:red", mew=2)
    low, high = float(codes.min()), float(codes.max())
    span = (high - low) or 1.0
    axes[0].set_ylim(low - 0.08 * span, high + 0.35 * span)  # headroom for the legend
    axes[0].legend(fontsize=8, loc="upper right", ncols=2, handletextpad=0.2, borderaxespad=0.3)
    axes[0].set_xlabel("position p", fontsize=9)
    axes[0].set_ylabel("code value", fontsize=9)
    # few, fixed ticks: each tick is five artists and ticks dominate the time of a redraw
    axes[0].set_xticks(index_ticks(n, round_steps=True))
    axes[0].set_yticks(_few_ticks_between(low, high))
    axes[0].tick_params(labelsize=8)
    if ties == 1:
        head = f"closest pair: positions {i} and {j} (distance {dist:.3f})"
    elif offsets == {1}:
        head = f"all {ties} neighbour pairs tie for closest (distance {dist:.3f})"
    elif len(offsets) == 1:
        head = f"all {ties} pairs {j - i} apart tie, e.g. {i} and {j} (distance {dist:.3f})"
    else:
        head = f"{ties} pairs tie for closest (distance {dist:.3f})"
    # explicit title heights skip matplotlib's costly automatic title placement
    axes[0].set_title(f"{head}\nsmallest neighbour step: {step:.3f}", fontsize=9, y=1.02)
    image = heatmap(axes[1], dmat, symmetric=False, cmap="magma", colorbar=False, vmin=0.0)
    inset_colorbar(axes[1], image, ticks=_few_ticks_between(0.0, float(dmat.max())))
    axes[1].set_title("distance ‖PE(i) − PE(j)‖", fontsize=9, y=1.02)
    axes[1].set_xlabel("j", fontsize=9)
    axes[1].set_ylabel("i", fontsize=9)
    axes[1].set_xticks(index_ticks(n, round_steps=True))
    axes[1].set_yticks(index_ticks(n, round_steps=True))
    axes[1].tick_params(labelsize=8)
    return fit_column(fig)


def _few_ticks_between(low: float, high: float) -> list[float]:
    """The ends and the middle of ``[low, high]``, rounded to 2 significant digits."""
    if high <= low:
        return [low]
    return [float(f"{v:.2g}") for v in (low, (low + high) / 2, high)]
