"""Figures for Shaw et al.'s relative position representations (chapter 6).

The index matrix and the key bias of one query (the explorer's figure), the strided "skew"
view that turns ``q_i·w^K_r`` into the ``n × n`` key term, and the cost of the naive and the
efficient computation (analytic memory and measured time, from :mod:`posenc.shaw`).

Every function returns a new ``Figure``; nothing touches pyplot.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import torch
from matplotlib import colormaps
from matplotlib.collections import PolyCollection
from matplotlib.colors import Colormap, ListedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from book._checks import check_values
from book.demos.shaw import shaw_intermediate_bytes
from book.figures._base import fit_column, new_figure, sequence_position
from posenc._checks import check_int, check_positive_float, check_real
from posenc.shaw import shaw_relative_index

__all__ = [
    "shaw_cost_figure",
    "shaw_index_figure",
    "shaw_key_bias_row",
    "shaw_skew_figure",
]

_TABLE_DISTANCE = 32  # the explorer's tables cover distances −32..32; k picks the centre rows
# Seed of the explorer's random query and table: chosen so that q·w_0/√d (the single bias left
# at k = 0) is clearly non-zero (−1.29) and the clipped edges differ visibly for k = 1, 2.
_SEED = 29


def _index_colormap(max_relative_position: int) -> Colormap:
    """One colour per index ``0..2k`` (distance ``−k`` dark blue … ``+k`` yellow)."""
    size = 2 * max_relative_position + 1
    if size == 1:
        return ListedColormap(["#5b8fc9"])
    return ListedColormap(colormaps["viridis"](np.linspace(0.0, 1.0, size)))


def shaw_key_bias_row(
    n: int, max_relative_position: int, query: str | int, *, dim: int = 16, seed: int = _SEED
) -> np.ndarray:
    """The key term ``q_i·w^K_{I_ij} / √d`` of one query against every key (random ``q``, ``w^K``).

    The tables come from one fixed random table over distances ``−32..32``; ``max_relative_position``
    keeps its centre rows ``−k..k``, so changing ``k`` only changes which keys are clipped.

    .. math::

        b_j = \\frac{q_i \\cdot w^K_{I_{ij}}}{\\sqrt d}, \\qquad j = 0, \\dots, n - 1

    Args:
        n: sequence length.
        max_relative_position: ``k`` (at most 32).
        query: the query ``i``: ``"first"``, ``"middle"``, ``"last"`` or a position.
        dim: ``d``, channels of the random query and table.
        seed: their random seed.

    Returns:
        float64 array ``[n]``.
    """
    n = check_int("n", n)
    k = check_int("max_relative_position", max_relative_position, minimum=0)
    query = sequence_position(query, n)
    if k > _TABLE_DISTANCE:
        raise ValueError(f"max_relative_position must be <= {_TABLE_DISTANCE} here, got {k}")
    g = torch.Generator().manual_seed(seed)
    table = torch.randn(2 * _TABLE_DISTANCE + 1, dim, generator=g, dtype=torch.float64)  # [65, d]
    q = torch.randn(dim, generator=g, dtype=torch.float64)  # [d]
    rel_k = table[_TABLE_DISTANCE - k : _TABLE_DISTANCE + k + 1]  # [2k+1, d]
    idx = shaw_relative_index(n, n, k)[query]  # [n]
    per_distance = rel_k @ q / math.sqrt(dim)  # [2k+1]: q·w^K_r / √d for every r
    return per_distance[idx].numpy()  # [n]


def shaw_index_figure(
    n: int = 16,
    max_relative_position: int = 2,
    *,
    query: str | int = "middle",
    dim: int = 16,
    seed: int = _SEED,
) -> Figure:
    """Left: the index matrix ``I_ij = clip(j − i, −k, k) + k``; right: one query's key bias.

    Both panels use one colour per index, so the right panel's bars take the colour of the
    cells in the highlighted row on the left. Inside the grey window ``|j − i| <= k − 1`` each
    key has a table row of its own; from ``|j − i| = k`` on, the keys on each side share one
    bias (the colour of index ``0`` or ``2k``). Drawn with fixed axes and no
    layout engine, and the bars drawn as one collection, so that an explorer redraw stays fast.

    Args:
        n: sequence length (queries and keys).
        max_relative_position: ``k``.
        query: the highlighted query, ``"first"``, ``"middle"``, ``"last"`` or a position.
        dim: channels of the random query and table behind the right panel.
        seed: their random seed.

    Returns:
        a Figure with two axes: the index image (``axes[0]``) and the bias bars (``axes[1]``).
    """
    n = check_int("n", n)
    k = check_int("max_relative_position", max_relative_position, minimum=0)
    dim = check_int("dim", dim)
    seed = check_int("seed", seed, minimum=0)
    i = sequence_position(query, n)
    idx = shaw_relative_index(n, n, k).numpy()  # [n, n]
    cmap = _index_colormap(k)
    fig = new_figure(7.2, 2.9, layout=None)
    left = fig.add_axes((0.07, 0.17, 0.32, 0.68))
    right = fig.add_axes((0.51, 0.17, 0.46, 0.68))
    left.imshow(
        idx, cmap=cmap, vmin=-0.5, vmax=2 * k + 0.5, interpolation="nearest", aspect="equal"
    )
    left.add_patch(Rectangle((-0.5, i - 0.5), n, 1, fill=False, ec="red", lw=1.5))
    # No tick machinery on the image (it is most of a redraw's cost): labels as plain text.
    left.set_axis_off()
    pad = 0.03 * n
    for pos in (0, n - 1):
        left.text(pos, n - 0.5 + pad, str(pos), ha="center", va="top", fontsize=8)
        left.text(-0.5 - pad, pos, str(pos), ha="right", va="center", fontsize=8)
    left.text(n / 2 - 0.5, n - 0.5 + pad, "key j", ha="center", va="top", fontsize=9)
    left.text(-0.5 - pad, n / 2 - 0.5, "query i ", ha="right", va="center", fontsize=9, rotation=90)
    # titles as figure text: plain text (no mathtext parse) at fixed places keeps redraws fast
    title = f"index I = clip(j − i, −{k}, {k}) + {k}" if k else "k = 0: index I = 0 for every pair"
    fig.text(0.23, 0.9, title, ha="center", fontsize=10)
    fig.text(
        0.23, 0.015, "colour: offset j − i, from −k (dark) to +k (yellow)", ha="center", fontsize=8
    )

    bias = shaw_key_bias_row(n, k, i, dim=dim, seed=seed)  # [n]
    colours = cmap(idx[i] / max(2 * k, 1))
    verts = [
        ((j - 0.42, 0.0), (j - 0.42, b), (j + 0.42, b), (j + 0.42, 0.0)) for j, b in enumerate(bias)
    ]
    right.add_collection(PolyCollection(verts, facecolors=colours, edgecolors="none"))
    if k:  # the keys with a row of their own, |j − i| <= k − 1 (at ±k the end rows begin)
        right.axvspan(i - k + 0.5, i + k - 0.5, color="0.9", zorder=0)
    right.axhline(0.0, color="0.4", lw=0.6)
    limit = 3.2
    right.set_ylim(-limit, limit)
    right.set_xlim(-0.6, n - 0.4)
    right.set_xticks(sorted({0, i, n - 1}))
    right.set_yticks([-3, 0, 3])
    right.set_xlabel("key j", labelpad=1)
    fig.text(0.74, 0.935, f"key term of query i = {i}:  q·w[I]/√d", ha="center", fontsize=10)
    if k:
        note = f"grey: |j − i| < {k}, one bias per key; outside: flat"
    else:
        note = f"one bias for every key: q·w₀/√d = {bias[0]:.2f}"
    fig.text(0.74, 0.87, note, ha="center", fontsize=8)
    return fit_column(fig)


def shaw_skew_figure(n: int = 6, max_relative_position: int = 2) -> Figure:
    """How the strided view turns the small ``n × (2k+1)`` matrix into the ``n × n`` key term.

    Panel 1: ``R = Q w^Kᵀ``, one column per distance; a cell marked ``r`` holds ``q_i·w^K_r``
    (the cells show the table row ``r``, not the values, as a note in the figure says).
    Panel 2: each row of ``R`` padded on both sides by repeating its first and last entry,
    so that column ``m`` of the padded row holds offset ``j − i = m − (n−1) − k``; the cells
    read by the view are outlined. Row ``i``'s window starts one column further left than row
    ``i−1``'s, which is a view with row stride ``L − 1`` (``L`` the padded width; no copy). Panel 3: what the view
    reads, ``R_{i, I_ij}``: exactly the index matrix.

    Args:
        n: sequence length (kept small so every cell can be labelled).
        max_relative_position: ``k``.

    Returns:
        a Figure with three axes.
    """
    n = check_int("n", n)
    k = check_int("max_relative_position", max_relative_position, minimum=0)
    width = 2 * n + 2 * k - 1
    offsets = np.arange(width) - (n - 1) - k  # [W], the offset j − i of each padded column
    padded = np.tile(np.clip(offsets, -k, k) + k, (n, 1))  # [n, W]
    small = np.tile(np.arange(2 * k + 1), (n, 1))  # [n, 2k+1]
    idx = shaw_relative_index(n, n, k).numpy()  # [n, n]
    cmap = _index_colormap(k)
    fig = new_figure(6.8, 3.1, layout=None)
    total = (2 * k + 1) + width + n
    scale = 0.82 / total
    x0 = 0.06
    axes = []
    for cols in (2 * k + 1, width, n):
        ax = fig.add_axes((x0, 0.2, cols * scale, 0.58))
        ax.set_anchor("S")  # equal aspect: each grid sits on the same baseline
        axes.append(ax)
        x0 += cols * scale + 0.04
    for ax, matrix in zip(axes, (small, padded, idx)):
        ax.imshow(
            matrix, cmap=cmap, vmin=-0.5, vmax=2 * k + 0.5, interpolation="nearest", aspect="equal"
        )
        for (r, c), value in np.ndenumerate(matrix):
            ax.text(
                c,
                r,
                str(value),
                ha="center",
                va="center",
                fontsize=8,
                color="white" if value < max(k, 1) else "black",
            )
        ax.set_yticks(range(n))
        ax.tick_params(length=0, labelsize=8)
    outside = np.ones((n, width, 4))  # RGBA overlay: white, opaque outside the band
    outside[..., 3] = 0.7
    for i in range(n):
        start = n - 1 + k - i
        outside[i, start : start + n, 3] = 0.0
        axes[1].add_patch(
            Rectangle((start - 0.45, i - 0.45), n - 0.1, 0.9, fill=False, ec="red", lw=1.2)
        )
    axes[1].imshow(outside, interpolation="nearest", aspect="equal")
    centre = n - 1 + k  # the padded column of offset 0
    axes[0].set_xticks(range(2 * k + 1))
    axes[1].set_xticks(sorted({0, centre - k, centre, centre + k, width - 1}))
    axes[2].set_xticks(range(n))
    for ax in axes:
        ax.tick_params(axis="x", labelsize=7, pad=1)
    fig.text(
        0.5,
        0.005,
        "cells show the table row r, not the values q_i·w^K_r",
        ha="center",
        va="bottom",
        fontsize=8,
        style="italic",
        color="0.3",
    )
    axes[0].set_ylabel("query i")
    axes[0].set_xlabel("column r", fontsize=8)
    axes[1].set_xlabel(f"column m (offset j − i = m − {n - 1 + k})", fontsize=8)
    axes[2].set_xlabel("key j", fontsize=8)
    axes[0].set_title(f"R = Q·(w^K)ᵀ:\n{n} × {2 * k + 1}", fontsize=9)
    axes[1].set_title(
        f"each row padded to every offset\n−{n - 1 + k} … {n - 1 + k}: {n} × {width}; "
        f"red: the view,\nrow stride {width - 1} (one column left per row)",
        fontsize=9,
    )
    axes[2].set_title(f"the view:\nR[i, I_ij], {n} × {n}", fontsize=9)
    return fit_column(fig)


_MARKERS = {"naive": "s", "posenc": "o", "attention": "^", "plain": "^"}
"""One marker per way of computing, the same in both panels of :func:`shaw_cost_figure`."""


_TIMED = ("plain", "posenc", "naive")  # the series of shaw_attention_timings, besides "n"


def _check_timings(timings: object) -> None:
    """Refuse anything but :func:`book.demos.shaw.shaw_attention_timings`'s result: a mapping
    with the sizes ``"n"`` (positive numbers) and, for each of :data:`_TIMED`, one time per
    size (a number ``>= 0``, or ``None`` where it was not measured)."""
    if not isinstance(timings, Mapping):
        raise TypeError(
            "timings must be a mapping {'n': sizes, 'plain': times, 'posenc': times, 'naive': "
            f"times}} (as shaw_attention_timings returns), got {type(timings).__name__}"
        )
    missing = [key for key in ("n", *_TIMED) if key not in timings]
    if missing:
        raise ValueError(
            f"timings must have the entries 'n', 'plain', 'posenc' and 'naive', missing {missing}"
        )

    def series(name: str, values: object) -> list[object]:
        if isinstance(values, np.ndarray):
            values = values.tolist()
        return check_values(name, values)

    sizes = [
        check_positive_float(f"timings['n'][{i}]", v)
        for i, v in enumerate(series("timings['n']", timings["n"]))
    ]
    for key in _TIMED:
        times = series(f"timings[{key!r}]", timings[key])
        if len(times) != len(sizes):
            raise ValueError(
                f"timings[{key!r}] must hold one time per size in timings['n'] ({len(sizes)}), "
                f"got {len(times)}"
            )
        for i, t in enumerate(times):
            if t is not None:
                check_real(f"timings[{key!r}][{i}]", t, minimum=0)


def shaw_cost_figure(
    timings: Mapping[str, Sequence[float | None]], *, dim: int = 64, max_relative_position: int = 16
) -> Figure:
    """Left: analytic memory of the intermediate tensors against ``n``; right: measured time.

    Args:
        timings: the result of :func:`book.demos.shaw.shaw_attention_timings`: ``"n"``, the
            sizes, and ``"plain"``, ``"posenc"``, ``"naive"``, one time per size (``None``
            entries are skipped).
        dim: ``d`` used for the memory count (the timings' ``dim``).
        max_relative_position: ``k`` used for the memory count.

    Returns:
        a Figure with two axes (memory, time), both log–log.
    """
    _check_timings(timings)
    sizes = np.asarray(timings["n"], dtype=float)
    fig = new_figure(9.0, 3.3, layout=None)
    mem_ax = fig.add_axes((0.08, 0.14, 0.39, 0.76))
    time_ax = fig.add_axes((0.59, 0.14, 0.39, 0.76))
    grid = np.unique(np.round(np.geomspace(64, 8192, 15)).astype(int))
    counts = [shaw_intermediate_bytes(int(n), dim, max_relative_position) for n in grid]
    styles = {
        "naive": ("C3", "naive: a^K, a^V (n × n × d)"),
        "posenc": ("C0", "posenc: one block's buffers"),
        "attention": ("0.5", "plain attention, unblocked (n × n)"),
    }
    for key, (colour, label) in styles.items():
        mem_ax.loglog(
            grid,
            [c[key] / 2**20 for c in counts],
            color=colour,
            label=label,
            ls="--" if key == "attention" else "-",
            marker=_MARKERS[key],
            markevery=3,
            ms=4,
        )
    mem_ax.set_xlabel("sequence length n")
    mem_ax.set_ylabel("MiB (float32, one head)")
    mem_ax.set_title(
        f"memory of the intermediates (analytic),\nd = {dim}, k = {max_relative_position}",
        fontsize=9,
    )
    mem_ax.legend(fontsize=7, loc="upper left")
    series = (
        ("plain", "0.5", "plain attention"),
        ("posenc", "C0", "posenc shaw_attention"),
        ("naive", "C3", "naive (reference)"),
    )
    for key, colour, label in series:
        pairs = [(n, t) for n, t in zip(sizes, timings[key]) if t is not None]
        if pairs:
            xs, ys = zip(*pairs)
            time_ax.loglog(
                xs,
                ys,
                marker=_MARKERS[key],
                color=colour,
                label=label,
                ls="--" if key == "plain" else "-",
            )
    time_ax.set_xlabel("sequence length n")
    time_ax.set_ylabel("ms per call")
    time_ax.set_title("time per call, measured\nat build time (1 thread)", fontsize=9)
    time_ax.legend(fontsize=7, loc="lower right")
    time_ax.set_xticks(sizes, [str(int(n)) for n in sizes])
    time_ax.minorticks_off()
    for ax in (mem_ax, time_ax):
        ax.grid(True, which="major", alpha=0.3)
    return fit_column(fig, max_width=6.5)  # labels reach past the axes
