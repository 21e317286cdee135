"""Figures for rotary position embeddings (chapter 9).

The rotation picture (two positions, one pair of channels: the angle between query and key
depends on their offset only), what swapping the channel pairing does to a trained head and
how the permutation repairs it, and the score of a key against its offset ("long-term
decay"), with the explorer's figure.

Every function returns a new ``Figure``; nothing touches pyplot.
"""

from __future__ import annotations

import functools
import math
import pickle
from collections.abc import Sequence

import numpy as np
import torch
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection, PolyCollection
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.patches import Arc
from matplotlib.ticker import NullLocator
from torch import Tensor

from book._checks import check_values
from book.demos.rotary import rotary_decay_bound, rotary_offset_logits
from book.figures._base import (
    CSS_DPI,
    SLIDE_BOX,
    fit_column,
    heatmap,
    new_figure,
    to_numpy,
    with_slide_version,
)
from posenc._checks import (
    check_base,
    check_bool,
    check_choice,
    check_even,
    check_finite,
    check_float_tensor,
    check_int,
    check_pair,
    check_real,
    check_tensor,
)
from posenc.attention import attention_weights, causal_mask
from posenc.rotary import (
    apply_rotary,
    rotary_angles,
    rotary_permutation,
    rotary_scaling_reads,
    scaled_rotary_frequencies,
)
from posenc.sinusoidal import sinusoidal_frequencies

__all__ = [
    "rotary_convention_figure",
    "rotary_decay_curves",
    "rotary_decay_figure",
    "rotary_explorer_figure",
    "rotary_rotation_figure",
    "rotary_stretch_explorer_figure",
    "rotary_stretch_figure",
    "rotary_stretch_results_figure",
]

_SLIDE_FONT = 12.5
"""The smallest text of a slide layout, in points: a layout that fills the deck's box at 1×
needs 11.9 (``SLIDE_TEXT_PX``, 24.75 px on a 1080p projector); 12.5 leaves room (26 px)."""


def _log_offsets(max_offset: int, count: int = 96) -> Tensor:
    """About ``count`` distinct integer offsets from 1 to ``max_offset``, evenly spaced on a log axis."""
    grid = torch.logspace(0, math.log10(max_offset), count, dtype=torch.float64)  # [count]
    return torch.unique(torch.round(grid))  # [<= count]


def _log_bins(x: np.ndarray, y: np.ndarray, bins: int = 150) -> tuple[np.ndarray, ...]:
    """Summarise ``y(x)`` over log-spaced bins of ``x``: centre, min, mean and max per bin.

    A score sampled at every integer offset oscillates faster than a log axis can show at
    large offsets; drawn as a line it becomes a solid block that is slow to draw and heavy
    to store. The range it sweeps in each bin (and its mean) carries the same information.
    ``x`` must be increasing and ``>= 1``. Empty bins (narrower than one offset, near
    ``x = 1``) are dropped.
    """
    edges = np.logspace(0, np.log10(x[-1] + 1), bins + 1)
    which = np.digitize(x, edges)  # [R]: bin of each offset, non-decreasing
    starts = np.flatnonzero(np.diff(which, prepend=which[0] - 1))  # first offset of each bin
    counts = np.diff(np.append(starts, x.size))
    centre = np.add.reduceat(x, starts) / counts
    mean = np.add.reduceat(y, starts) / counts
    return centre, np.minimum.reduceat(y, starts), mean, np.maximum.reduceat(y, starts)


def _draw_swept(
    ax: Axes,
    x: np.ndarray,
    y: np.ndarray,
    colour: str,
    *,
    lw: float = 1.2,
    label: str | None = None,
    bins: int = 150,
    ls: str = "-",
    marker: str | None = None,
) -> None:
    """Draw ``y(x)`` on a log-x axis as its per-bin mean (line) and swept range (shaded).

    ``ls`` and ``marker`` (every 15th bin) tell curves apart without their colour."""
    centre, lo, mean, hi = _log_bins(x, y, bins)
    ax.fill_between(centre, lo, hi, color=colour, alpha=0.3, lw=0)
    ax.plot(
        centre, mean, color=colour, lw=lw, label=label, ls=ls, marker=marker, markevery=15, ms=4
    )


def rotary_decay_curves(
    offsets: Tensor,
    dim: int,
    *,
    base: float = 10000.0,
    bound: bool = True,
    draws: int = 0,
    seed: int = 0,
) -> dict[str, np.ndarray]:
    """The RoPE scores behind :func:`rotary_decay_figure`, divided by ``d``, for given offsets.

    .. math::

        \\text{matched}(r) = \\frac{\\langle \\mathbf 1, R_r \\mathbf 1\\rangle}{d}
        = \\frac{1}{d/2}\\sum_i \\cos r\\theta_i,
        \\qquad
        \\text{bound}(r) = \\frac{1}{d/2}\\sum_{j=1}^{d/2} |S_j(r)|
        \\;\\ge\\; |\\text{matched}(r)|

    and, with ``draws > 0``, the spread of ``⟨q, R_r k⟩ / d`` over independent standard
    normal ``q``, ``k`` (``draws`` pairs): its mean (about 0) and standard deviation (about
    ``1/√d``) at each offset. All three are in the same units, the logit divided by ``d``.

    The matched score is ``⟨q, R_r q⟩/d`` for ``q = (1, …, 1)``
    (:func:`book.demos.rotary.rotary_offset_logits` with ``q = k = 1``), evaluated by its closed
    form, which is much faster for long ranges; it is exactly 1 at ``r = 0`` and it is also
    the average of ``⟨q, R_r q⟩/d`` over standard normal ``q``. The bound is RoFormer's
    summation-by-parts bound for this query and key: with ``h_i = 2`` for every pair (and
    ``h_{d/2} = 0``) the factor ``max_i |h_{i+1} − h_i|`` is 2, so ``|⟨1, R_r 1⟩| ≤
    2 Σ_j |S_j(r)|``, which divided by ``d`` is :func:`book.demos.rotary.rotary_decay_bound`. It is
    an upper bound on ``|matched|`` at every offset, ``(d/2 + 1)/2`` at ``r = 0``.

    Args:
        offsets: 1-D tensor of offsets.
        dim: ``d`` (even).
        base: as in :func:`posenc.rotary.rotary_angles`.
        bound: also return RoFormer's bound.
        draws: number of random independent pairs ``(q, k)``; 0 for none.
        seed: their random seed.

    Returns:
        a dict of float64 arrays ``[R]``: ``"matched"``, ``"bound"`` (when asked for) and,
        with draws, ``"unrelated_mean"`` and ``"unrelated_std"``.
    """
    check_tensor("offsets", offsets, ndim=1)
    if offsets.numel() == 0:
        raise ValueError("offsets must hold at least one offset, got an empty tensor")
    if offsets.is_complex() or offsets.dtype == torch.bool:
        raise TypeError(f"offsets must hold real numbers, got dtype {offsets.dtype}")
    check_finite("offsets", offsets)
    dim = check_even("dim", dim)
    bound = check_bool("bound", bound)
    seed = check_int("seed", seed, minimum=0)
    r = offsets.to(torch.float64)  # [R]
    # ⟨1, R_r 1⟩ = Σ_i 2 cos rθ_i (each pair: (1, 1)·R(φ)(1, 1) = 2 cos φ), divided by d
    out = {"matched": to_numpy(torch.cos(rotary_angles(r, dim, base=base)).mean(-1))}
    if bound:
        out["bound"] = to_numpy(rotary_decay_bound(r, dim, base=base))  # 2 Σ_j |S_j| / d
    draws = check_int("draws", draws, minimum=0)
    if draws:
        g = torch.Generator().manual_seed(seed)
        q = torch.randn(draws, dim, generator=g, dtype=torch.float64)  # [draws, d]
        k = torch.randn(draws, dim, generator=g, dtype=torch.float64)  # [draws, d]
        scores = rotary_offset_logits(q, k, r, base=base) / dim  # [draws, R]
        out["unrelated_mean"] = to_numpy(scores.mean(0))
        out["unrelated_std"] = to_numpy(scores.std(0))
    return out


# -- the rotation picture ----------------------------------------------------------------------


def _vector_arrow(
    ax: Axes, vec: np.ndarray, colour: str, *, faint: bool = False, label: str = ""
) -> None:
    ax.annotate(
        "",
        xy=(vec[0], vec[1]),
        xytext=(0.0, 0.0),
        arrowprops={
            "arrowstyle": "-|>",
            "color": colour,
            "lw": 1.0 if faint else 2.0,
            "alpha": 0.35 if faint else 1.0,
            "shrinkA": 0,
            "shrinkB": 0,
        },
    )
    if label:
        ax.text(
            1.14 * vec[0],
            1.14 * vec[1],
            label,
            color=colour,
            ha="center",
            va="center",
            fontsize=9,
            alpha=0.5 if faint else 1.0,
        )


_SUBSCRIPTS = str.maketrans("-0123456789", "₋₀₁₂₃₄₅₆₇₈₉")


def _turn(v: np.ndarray, angle: float) -> np.ndarray:
    c, sn = math.cos(angle), math.sin(angle)
    return np.array([c * v[0] - sn * v[1], sn * v[0] + c * v[1]])


def _pair_panel(ax: Axes, q2: np.ndarray, k2: np.ndarray, m: int, n: int, theta: float) -> None:
    """One channel pair: q and k before (faint) and after (bold) the rotations by mθ and nθ."""
    circle = np.linspace(0, 2 * math.pi, 200)
    ax.plot(np.cos(circle), np.sin(circle), color="0.85", lw=0.8)
    qm, kn = _turn(q2, m * theta), _turn(k2, n * theta)
    _vector_arrow(ax, q2, "C0", faint=True, label="q")
    _vector_arrow(ax, k2, "C3", faint=True, label="k")
    # plain-text subscripts: no mathtext parser to load for the book's first figure
    _vector_arrow(ax, qm, "C0", label=f"R{str(m).translate(_SUBSCRIPTS)}q")
    _vector_arrow(ax, kn, "C3", label=f"R{str(n).translate(_SUBSCRIPTS)}k")
    a_q, a_k = math.degrees(math.atan2(qm[1], qm[0])), math.degrees(math.atan2(kn[1], kn[0]))
    gap = (a_k - a_q + 180.0) % 360.0 - 180.0  # signed, in (−180, 180]
    start, stop = (a_q, a_q + gap) if gap >= 0 else (a_q + gap, a_q)
    ax.add_patch(Arc((0, 0), 0.6, 0.6, theta1=start, theta2=stop, color="0.2", lw=1.4))
    ax.set_title(
        f"query at m = {m},\nkey at n = {n}\nangle from query\nto key: {gap:.0f}°", fontsize=9
    )
    ax.set_xlim(-1.35, 1.35)
    ax.set_ylim(-1.35, 1.35)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])


def rotary_rotation_figure(
    positions: Sequence[tuple[int, int]] = ((1, 4), (6, 9)),
    *,
    dim: int = 64,
    pair: int = 4,
    n: int = 32,
    base: float = 10000.0,
    seed: int = 0,
) -> Figure:
    """RoPE in one picture: rotations by absolute positions, a logit that sees only the offset.

    The first panels show one channel pair (pair ``pair`` of ``d = dim``, turning by
    ``θ = base^{−2·pair/d}`` per position) of a query and a key (unit vectors at 10° and
    60°), before (faint) and after (bold) rotating them by their positions: each ``(m, n)`` in ``positions`` with the same
    ``n − m`` leaves the same angle between them, so their dot product is the same. The last
    panel shows the logits ``⟨R_m q, R_n k⟩`` of one random query and key of width ``dim``
    placed at every position ``m, n < n``: constant along every diagonal.

    Args:
        positions: ``(m, n)`` pairs, one panel each.
        dim: ``d`` of the random query and key of the last panel.
        pair: the channel pair drawn in the first panels.
        n: positions in the last panel.
        base: as in :func:`posenc.rotary.rotary_angles`.
        seed: seed of the random query and key of the last panel.

    Returns:
        a Figure with ``len(positions) + 1`` axes (the logit image last, with a colourbar).
    """
    dim = check_even("dim", dim)
    n = check_int("n", n)
    pair = check_int("pair", pair, minimum=0)
    if pair >= dim // 2:
        raise ValueError(f"pair must be < dim/2 = {dim // 2}, got {pair}")
    seed = check_int("seed", seed, minimum=0)
    positions = check_values(
        "positions", positions, lambda name, mn: check_pair(name, mn, minimum=0)
    )
    theta = float(sinusoidal_frequencies(dim, base=base)[pair])
    g = torch.Generator().manual_seed(seed)
    q, k = torch.randn(2, dim, generator=g, dtype=torch.float64)  # [d] each
    # the pair's picture: unit vectors at 10° (query) and 60° (key), as easy to read as any
    q2, k2 = (
        _turn(np.array([1.0, 0.0]), math.radians(10)),
        _turn(np.array([1.0, 0.0]), math.radians(60)),
    )

    fig = new_figure(6.8, 3.3)
    axes = fig.subplots(1, len(positions) + 1, width_ratios=[1.0] * len(positions) + [1.6])
    for ax, (m, nn) in zip(axes[:-1], positions):
        _pair_panel(ax, q2, k2, m, nn, theta)
    qs = apply_rotary(q.expand(n, dim))  # [n, d]: R_m q at every m
    ks = apply_rotary(k.expand(n, dim))  # [n, d]: R_n k at every n
    heatmap(axes[-1], qs @ ks.T)
    axes[-1].set_title(f"⟨R_m q, R_n k⟩, d = {dim}:\nconstant along\neach diagonal", fontsize=9)
    axes[-1].set_xlabel("key position n")
    axes[-1].set_ylabel("query position m")
    fig.suptitle(f"pair {pair} turns by θ = {theta:.3f} rad per position", fontsize=9, x=0.3)
    return fit_column(fig)


# -- the two pairings ---------------------------------------------------------------------------


def rotary_convention_figure(
    queries: Tensor, keys: Tensor, *, base: float = 10000.0, offset: int | None = None
) -> Figure:
    """What a head trained with interleaved pairs does under rotate-half, and the repair.

    Three causal attention maps of the same queries and keys (``[n, d]``, made for the
    interleaved layout): with the layout they were made for; rotated with rotate-half
    instead (Hugging Face's ``rotate_half`` on weights that were not converted); and with
    rotate-half after permuting their channels by
    :func:`posenc.rotary.rotary_permutation`, as the Llama conversion permutes the rows of
    ``W_q`` and ``W_k``. The first and the last are the same matrix.

    Args:
        queries: ``[n, d]``.
        keys: ``[n, d]``.
        base: as in :func:`posenc.rotary.rotary_angles`.
        offset: if given, the offset ``j − i`` the head was made to attend to, marked on every
            panel by a dashed red line along that diagonal.

    Returns:
        a Figure with three image axes (and one colourbar axis), attention weights in the
        images.
    """
    check_float_tensor("queries", queries, ndim=2)
    check_float_tensor("keys", keys, ndim=2)
    check_finite("queries", queries)
    check_finite("keys", keys)
    n, d = queries.shape
    if n == 0 or d == 0:
        raise ValueError(f"queries must hold at least one token and one pair, got shape {(n, d)}")
    d = check_even("queries.shape[1]", d)
    if offset is not None:
        offset = check_int("offset", offset, minimum=None)
    if keys.shape != queries.shape:
        raise ValueError(
            f"queries and keys must have the same shape, got {tuple(queries.shape)} "
            f"and {tuple(keys.shape)}"
        )
    perm = rotary_permutation(d)
    mask = causal_mask(n, n)

    def weights(q: Tensor, k: Tensor, interleaved: bool) -> Tensor:
        return attention_weights(
            apply_rotary(q, base=base, interleaved=interleaved),
            apply_rotary(k, base=base, interleaved=interleaved),
            mask=mask,
        )

    maps = (
        ("trained layout: interleaved", weights(queries, keys, True)),
        ("loaded into rotate-half\n(no permutation)", weights(queries, keys, False)),
        ("rotate-half, channels\npermuted by π", weights(queries[:, perm], keys[:, perm], False)),
    )
    fig = new_figure(9.6, 3.5)
    axes = fig.subplots(1, 3)
    for ax, (title, w) in zip(axes, maps):
        image = heatmap(ax, w, symmetric=False, colorbar=False, vmin=0.0, vmax=1.0, cmap="Greys")
        if offset is not None:
            rows = np.arange(max(0, -offset), min(n, n - offset))  # queries whose target exists
            ax.plot(rows + offset, rows, ls=(0, (2, 3)), color="C3", lw=0.9)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("key position")
    axes[0].set_ylabel("query position")
    fig.colorbar(image, ax=axes, shrink=0.85, label="attention weight")
    return fit_column(fig)


# -- long-term decay ----------------------------------------------------------------------------


_SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _power_of_ten(exponent: int) -> str:
    """``10⁻⁴`` as plain text (mathtext would cost a parse per label on every redraw)."""
    return "1" if exponent == 0 else "10" + str(exponent).translate(_SUPERSCRIPTS)


def _decay_axes(ax: Axes, max_offset: int) -> None:
    ax.set_xscale("log")
    ax.xaxis.set_minor_locator(NullLocator())  # decades only: minor log ticks are slow to draw
    top = int(math.log10(max_offset))
    # fixed plain-text labels: the default log formatter sets every label as mathtext
    ax.set_xticks([10.0**e for e in range(top + 1)], [_power_of_ten(e) for e in range(top + 1)])
    ax.set_xlim(1, max_offset)
    ax.axhline(0.0, color="0.6", lw=0.6)
    ax.set_xlabel("offset r = n − m (log scale)")


def _decay_slide_finish(fig: Figure, axes: Sequence[Axes]) -> Figure:
    """The slide layout of :func:`rotary_decay_figure`, finished: slide-sized text, one
    x label for the four panels' identical axes, and each title raised above its panel's
    legend (which sits on top of the panel: below, the legends would part the x axis's tick
    labels from its label)."""
    label = axes[0].get_xlabel()
    for ax in axes:
        ax.set_xlabel("")
    fig.supxlabel(label, fontsize=_SLIDE_FONT)
    fit_column(fig, max_width=SLIDE_BOX[0] / CSS_DPI, min_size=_SLIDE_FONT)
    fig.draw_without_rendering()  # lays the legends out, to measure them
    for ax in axes:
        legend = ax.get_legend()
        points = legend.get_window_extent().height * 72 / fig.dpi
        gap = legend.borderaxespad * legend.prop.get_size_in_points()  # legend to axes
        ax.set_title(ax.get_title(), pad=points + gap + 3.0, fontsize=ax.title.get_fontsize())
    return fig


def rotary_decay_figure(
    *,
    dim: int = 128,
    base: float = 10000.0,
    bases: Sequence[float] = (100.0, 10000.0, 500000.0),
    dims: Sequence[int] = (16, 64, 512),
    max_offset: int = 4096,
    draws: int = 300,
    seed: int = 0,
    slide: bool = False,
) -> Figure:
    """The score of a key against its offset: matched keys fade, unrelated ones do not.

    Every panel plots the logit divided by the head width, ``⟨q, R_r k⟩ / d``
    (:func:`rotary_decay_curves`). Top left (``dim``, ``base``): a key equal to the query,
    ``q = k = (1, …, 1)``, whose score is 1 at ``r = 0`` and fades; and the mean ± one
    standard deviation over ``draws`` independent standard normal ``q``, ``k``, which stays
    centred on 0 with the same spread, ``1/√d``, at every offset. Top right (log score axis):
    RoFormer's upper bound for ``q = k = 1`` in the same units, against the largest
    ``|score|`` over each short stretch of offsets: the bound falls, but stays far above.
    Bottom left: the matched score for each base in ``bases`` (width ``dim``). Bottom right:
    for each width in ``dims`` (base ``base``), smallest first: the trend hardly moves, a
    small ``d`` only makes it bumpier. The matched score and the bound are evaluated at every
    integer offset and drawn as their mean (line) and range (shaded) over short stretches.

    Args:
        dim: ``d`` of the top and bottom-left panels.
        base: base of the top and bottom-right panels.
        bases: the bases compared in the bottom-left panel.
        dims: the widths compared in the bottom-right panel.
        max_offset: the largest offset drawn (offsets from 1, log-spaced).
        draws: random pairs behind the band of the top-left panel.
        seed: their seed.
        slide: the four panels in a row, for a slide deck (each legend above its panel, one
            x label for all four, larger type); the page's figure carries this layout
            (:func:`book.figures._base.with_slide_version`).

    Returns:
        a Figure with four axes (top left, top right, bottom left, bottom right); the top
        left one's first line is the matched score, the top right one's lines are the bound,
        then the largest ``|score|``.
    """
    max_offset = check_int("max_offset", max_offset, minimum=2)
    draws = check_int("draws", draws)
    seed = check_int("seed", seed, minimum=0)
    bases = check_values("bases", bases, check_base)
    dims = check_values("dims", dims, check_even)
    r = torch.arange(1, max_offset + 1, dtype=torch.float64)  # [R]: every offset
    x = r.numpy()
    check_bool("slide", slide)
    sep = "\n" if slide else " "  # long labels take two lines on a slide
    if slide:
        fig = new_figure(11.75, 3.65)
        left, bound_ax, middle, right = fig.subplots(1, 4)
    else:
        fig = new_figure(6.8, 6.4)
        (left, bound_ax), (middle, right) = fig.subplots(2, 2)

    def key(ax: Axes) -> None:  # the legend: inside on the page, above the axes on a slide
        if slide:
            ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)
        else:
            ax.legend(fontsize=8, loc="lower left")

    middle.sharey(left)
    right.sharey(left)
    curves = rotary_decay_curves(r, dim, base=base)
    sparse = _log_offsets(max_offset)  # [~96]: the random band changes slowly
    band = rotary_decay_curves(sparse, dim, base=base, bound=False, draws=draws, seed=seed)
    lo = band["unrelated_mean"] - band["unrelated_std"]
    hi = band["unrelated_mean"] + band["unrelated_std"]
    left.fill_between(
        sparse.numpy(),
        lo,
        hi,
        color="C0",
        alpha=0.25,
        lw=0,
        label=f"unrelated q, k: mean ± std{sep}({draws} pairs)",
    )
    _draw_swept(left, x, curves["matched"], "black", label="key = query = (1, …, 1)")
    left.set_title(
        f"key = query fades,\nunrelated keys do not\n(d = {dim}, base {base:g})"
        if slide
        else f"key = query fades, unrelated\nkeys do not (d = {dim}, base {base:g})"
    )
    key(left)
    _decay_axes(left, max_offset)

    # the bound, in the same units, against the largest |score| over each short stretch
    _draw_swept(bound_ax, x, curves["bound"], "C1", label="RoFormer's upper bound", ls="--")
    centre, _, _, top = _log_bins(x, np.abs(curves["matched"]))
    bound_ax.plot(centre, top, color="black", lw=1.2, label="largest |score|\n(key = query)")
    bound_ax.set_yscale("log")
    bound_ax.yaxis.set_minor_locator(NullLocator())
    bound_ax.set_yticks([0.1, 1.0, 10.0], ["0.1", "1", "10"])
    bound_ax.set_ylim(0.1, 2 * float(curves["bound"][0]))
    bound_ax.set_title(
        "RoFormer's bound for\nthis key: falls, but\nstays far above"
        if slide
        else "RoFormer's bound for this key:\nfalls, but stays far above"
    )
    key(bound_ax)
    _decay_axes(bound_ax, max_offset)
    bound_ax.set_ylabel(f"|⟨q, R_r k⟩| / d{sep}(log scale)")

    for j, b in enumerate(bases):
        _draw_swept(
            middle,
            x,
            rotary_decay_curves(r, dim, base=b, bound=False)["matched"],
            f"C{j + 2}",
            label=f"base = {b:g}",
            ls=("-", "--", ":")[j % 3],
            marker=("o", "s", "^")[j % 3],
        )
    middle.set_title(f"key = query: base sets\nthe pace (d = {dim})")
    key(middle)
    _decay_axes(middle, max_offset)
    for j, dd in enumerate(sorted(dims)):  # small d (the bumpiest curve) first, underneath
        _draw_swept(
            right,
            x,
            rotary_decay_curves(r, dd, base=base, bound=False)["matched"],
            ("0.55", "C9", "C4", "C6", "C8")[j % 5],
            label=f"d = {dd}",
            ls=("-", "--", ":")[j % 3],
            marker=("o", "s", "^")[j % 3],
        )
    right.set_title(f"key = query: d sets\nthe detail (base {base:g})")
    key(right)
    _decay_axes(right, max_offset)
    for ax in (left, middle):
        ax.set_ylabel("⟨q, R_r k⟩ / d")
    left.set_ylim(-0.45, 1.08)
    if slide:
        right.tick_params(axis="y", labelleft=False)  # the same scale as its neighbour's
        return _decay_slide_finish(fig, (left, bound_ax, middle, right))
    options = {"dim": dim, "base": base, "bases": bases, "dims": dims}
    options |= {"max_offset": max_offset, "draws": draws, "seed": seed}
    return with_slide_version(fit_column(fig), lambda: rotary_decay_figure(**options, slide=True))


# -- the explorer's figure ----------------------------------------------------------------------


_SHOWN_PAIRS = (("fastest", "C3", 1.0), ("middle", "C1", 0.68), ("slowest", "C0", 0.36))


def _swept_polygon(centre: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The outline of the band between ``lo`` and ``hi`` over ``centre``, as ``[2B, 2]`` vertices."""
    return np.column_stack((np.concatenate((centre, centre[::-1])), np.concatenate((lo, hi[::-1]))))


@functools.lru_cache(maxsize=8)
def _explorer_frame(context: int) -> bytes:
    """The explorer figure's frame for ``context``: figure, axes, limits and ticks, pickled.

    Creating an axes and its ticks takes most of the time to build this figure; unpickling
    a ready frame takes a fraction of it. Every combination of the explorer's controls shares
    the frame, and :func:`rotary_explorer_figure` unpickles a fresh copy for each render.
    """
    fig = new_figure(6.8, 3.2, layout=None)
    circ = fig.add_axes((0.0, 0.02, 0.26, 0.62))
    turns_ax = fig.add_axes((0.35, 0.2, 0.27, 0.53))
    score_ax = fig.add_axes((0.71, 0.2, 0.27, 0.53))
    circ.set_xlim(-1.15, 1.15)
    circ.set_ylim(-1.15, 1.15)
    circ.set_aspect("equal")
    circ.set_axis_off()
    turns_ax.axhline(0.0, color="black", ls="--", lw=0.8)  # one full turn
    turns_ax.set_ylim(-4, 4)
    turns_ax.set_yticks([-4, 0, 4], [_power_of_ten(e) for e in (-4, 0, 4)])
    turns_ax.set_xticks([])  # the label names the range: two tick labels fewer to draw
    # the score is drawn against log10(r) on a linear axis with plain-text ticks: a log scale
    # and its default formatter (which parses mathtext) cost a good part of a redraw
    score_ax.axhline(0.0, color="0.6", lw=0.6)
    top = int(math.log10(context))
    score_ax.set_xlim(0, math.log10(context))
    score_ax.set_xticks(range(top + 1), [_power_of_ten(e) for e in range(top + 1)])
    score_ax.set_ylim(-1.05, 1.05)
    score_ax.set_yticks([-1, 0, 1])
    score_ax.set_xlabel("offset r (log scale)", labelpad=1)
    return pickle.dumps(fig)


def rotary_explorer_figure(dim: int = 64, base: float = 10000.0, *, context: int = 4096) -> Figure:
    """The explorer's panel: three pairs' rotations, every pair's pace, the score against offset.

    Left: three channel pairs, the fastest (pair 0, outer circle, red), the middle one
    (pair ``d/4``, orange) and the slowest (pair ``d/2 − 1``, inner circle, blue): the point
    ``(cos mθ_i, sin mθ_i)`` at positions ``m = 0..15`` (dots) and the arc it sweeps over
    ``context`` positions. Middle: how many full turns each pair makes over ``context``
    positions (log scale; pairs below the dashed line never complete one turn there), the
    three pairs in their colours. Right: the normalised score of a key equal to the query
    against the offset (black) and each of the three pairs' own term ``cos rθ_i``, at every
    integer offset, summarised per log bin (mean line, swept range shaded).

    Drawn for a fast redraw: fixed axes with plain-text ticks and no layout engine, copied
    from a frame built once per ``context``; one collection per kind of mark (the circles
    and arcs in one ``LineCollection``, the dots in one scatter, the four swept ranges in one
    ``PolyCollection``, the four mean curves in one ``LineCollection``) instead of one artist
    per curve.

    Args:
        dim: ``d`` (even, at least 4).
        base: as in :func:`posenc.rotary.rotary_angles`.
        context: the context length of the three panels.

    Returns:
        a Figure with three axes (circles, turns per pair, score). The circle axes hold the
        rings and arcs, then the dots (16 per pair, fastest pair first); the score axes hold
        the swept ranges, then the mean curves (the three pairs, then the matched score),
        with ``log10(r)`` as their x coordinate.
    """
    dim = check_even("dim", dim, minimum=4)
    context = check_int("context", context, minimum=2)
    half = dim // 2
    shown = {"fastest": 0, "middle": half // 2, "slowest": half - 1}
    theta = sinusoidal_frequencies(dim, base=base).numpy()  # [d/2]
    turns = context * theta / (2 * math.pi)  # [d/2]
    fig = pickle.loads(_explorer_frame(context))
    circ, turns_ax, score_ax = fig.axes
    # titles as figure text at fixed places: no title layout pass on every redraw
    fig.text(
        0.13,
        0.68,
        f"pairs {shown['fastest']}, {shown['middle']}, {shown['slowest']}"
        f" (out to in)\ndots: m = 0–15\narcs: m < {context}",
        ha="center",
        va="bottom",
        fontsize=8,
    )
    fig.text(
        0.485,
        0.77,
        f"turns over {context} positions,\nd = {dim}, base = {base:g}",
        ha="center",
        va="bottom",
        fontsize=8.5,
    )
    fig.text(
        0.845,
        0.77,
        "normalised score, key =\nquery (black), and 3 pairs",
        ha="center",
        va="bottom",
        fontsize=8.5,
    )
    pairs = [shown[name] for name, _, _ in _SHOWN_PAIRS]
    colours = [colour for _, colour, _ in _SHOWN_PAIRS]
    radii = np.array([radius for _, _, radius in _SHOWN_PAIRS])  # [3]

    # left: the three pairs at positions 0..15, and the arcs they sweep over the context
    ring = np.linspace(0, 2 * math.pi, 120)  # [120]
    sweep = np.minimum(
        theta[pairs] * (context - 1), 2 * math.pi
    )  # [3]: angle swept, at most a turn
    arcs = np.linspace(0, 1, 120)[None, :] * sweep[:, None]  # [3, 120]
    paths = [np.column_stack((rad * np.cos(ring), rad * np.sin(ring))) for rad in radii]
    paths += [
        np.column_stack((rad * np.cos(arc), rad * np.sin(arc))) for rad, arc in zip(radii, arcs)
    ]
    circ.add_collection(
        LineCollection(
            paths,
            colors=["0.88"] * 3 + [to_rgba(c, 0.45) for c in colours],
            linewidths=[0.8] * 3 + [2.5] * 3,
        ),
        autolim=False,
    )
    angles = to_numpy(rotary_angles(16, dim, base=base))[:, pairs].T  # [3, 16]
    circ.scatter(
        (radii[:, None] * np.cos(angles)).ravel(),
        (radii[:, None] * np.sin(angles)).ravel(),
        color=np.repeat(colours, 16),
        s=14,
        zorder=3,
        edgecolors="white",
        linewidths=0.4,
    )

    # middle: turns over the context, per pair, on a log axis drawn by hand (fast to redraw)
    bar_colours = ["0.65"] * half
    for i, colour in zip(pairs, colours):
        bar_colours[i] = colour
    # one collection of thick lines instead of d/2 bar patches: a fraction of the drawing time
    turns_ax.vlines(
        np.arange(half), -4, np.log10(turns), colors=bar_colours, lw=max(1.0, 150 / half)
    )
    turns_ax.set_xlim(-1, half)
    turns_ax.set_xlabel(f"pair i = 0 … {half - 1},\nfastest to slowest", labelpad=4)

    # right: the score against the offset, every integer offset, summarised per log bin
    r = torch.arange(1, context, dtype=torch.float64)  # [context - 1]
    x = r.numpy()
    matched = rotary_decay_curves(r, dim, base=base, bound=False)["matched"]  # [context - 1]
    curves = [np.cos(x * theta[i]) for i in pairs] + [matched]  # the pairs' own terms, the sum
    summaries = [_log_bins(x, y, 100) for y in curves]  # (centre, lo, mean, hi) each
    score_ax.add_collection(
        PolyCollection(
            [_swept_polygon(np.log10(c), lo, hi) for c, lo, _, hi in summaries],
            facecolors=[to_rgba(c, 0.12) for c in colours] + [to_rgba("black", 0.3)],
            linewidths=0,
        ),
        autolim=False,
    )
    score_ax.add_collection(
        LineCollection(
            [np.column_stack((np.log10(c), mean)) for c, _, mean, _ in summaries],
            colors=colours + ["black"],
            linewidths=[0.7] * 3 + [1.2],
            linestyles=["-", "--", ":", "-"],  # fastest, middle, slowest: not by colour alone
        ),
        autolim=False,
    )
    return fit_column(fig)


# -- Chapter 11: stretching RoPE to longer contexts (the "ch11" section) ------------------------

_STRETCH_STYLES: dict[str, tuple[str, str, str, str]] = {
    # method -> (label, colour, line style, marker)
    "plain": ("plain RoPE", "black", "-", ""),
    "linear": ("linear (PI)", "tab:blue", "--", "o"),
    "ntk": ("NTK-aware", "tab:orange", "-.", "s"),
    "dynamic": ("dynamic NTK", "tab:green", ":", "^"),
    "yarn": ("YaRN", "tab:red", "-", "D"),
    "llama3": ("Llama 3.1", "tab:purple", "--", "v"),
    "partial": ("partial", "tab:brown", "-", "x"),
}


def _stretch_frequencies(
    method: str,
    dim: int,
    base: float,
    factor: float,
    original_max_positions: int,
    rotary_dim: int,
) -> np.ndarray:
    """One method's frequencies for the stretch figures (``"dynamic"`` at ``s·L_0``)."""
    full: dict[str, object] = {
        "factor": factor,
        "original_max_positions": original_max_positions,
        "seq_len": round(factor * original_max_positions),
        "rotary_dim": rotary_dim,
    }
    reads = rotary_scaling_reads(method)
    kwargs = {"base": base} | {name: value for name, value in full.items() if name in reads}
    inv_freq, _ = scaled_rotary_frequencies(dim, method, **kwargs)  # type: ignore[arg-type]
    return inv_freq.numpy()  # [d/2]


def rotary_stretch_figure(
    methods: Sequence[str] = ("linear", "ntk", "yarn", "llama3", "partial"),
    *,
    dim: int = 128,
    base: float = 500000.0,
    original_max_positions: int = 8192,
    factor: float = 8.0,
    rotary_dim: int | None = None,
) -> Figure:
    """Which pairs each method squeezes: wavelengths and per-pair squeeze against the trained length.

    .. math::

        \\lambda_i = \\frac{2\\pi}{\\theta'_i}, \\qquad \\text{squeeze}_i = \\frac{\\theta_i}{\\theta'_i}

    Left: the wavelength of every channel pair ``i`` (log scale) with plain RoPE (black) and
    with each method, against the trained length ``L_0`` (dashed) and the target ``s·L_0``
    (dotted). A pair whose plain wavelength is longer than ``L_0`` never made a full turn in
    training (shaded): at ``s·L_0`` it reaches angles it never saw, unless a method stretches
    its wavelength by ``s`` too. Right: the squeeze ``θ_i/θ'_i``, from 1 (kept) to ``s``
    (interpolated like position interpolation). Partial RoPE appears only on the left: its
    unrotated pairs (frequency 0, no position at all) are drawn at the top edge as ``∞``; its
    rotated pairs are faster than plain RoPE's, not squeezed. ``"dynamic"`` is drawn at its
    frequencies for the length ``s·L_0``.

    Args:
        methods: methods of :func:`posenc.rotary.scaled_rotary_frequencies` other than
            ``"plain"`` (which is always drawn), each at most once.
        dim: ``d``, channels per head (even, at least 4).
        base: the base of the frequencies (Llama 3.1: 500000).
        original_max_positions: ``L_0`` (Llama 3.1: 8192).
        factor: ``s`` (finite, ``> 1``; Llama 3.1: 8).
        rotary_dim: ``"partial"``'s rotated channels; ``None`` for ``d/4`` rounded down to an
            even number (GPT-NeoX's ``rotary_pct = 0.25``).

    Returns:
        a Figure with two axes (wavelengths, squeeze); each method's line carries its label.
    """
    methods = check_values(
        "methods",
        methods,
        lambda name, m: check_choice(name, m, tuple(k for k in _STRETCH_STYLES if k != "plain")),
    )
    if len(set(methods)) != len(methods):
        raise ValueError(f"methods must not repeat a method, got {methods!r}")
    dim = check_even("dim", dim, minimum=4)
    base = check_base("base", base)
    original_max_positions = check_int("original_max_positions", original_max_positions)
    factor = check_real("factor", factor, minimum=1, inclusive=False)
    if rotary_dim is None:
        rotary_dim = max(2, (dim // 4) // 2 * 2)
    rotary_dim = check_even("rotary_dim", rotary_dim)
    if rotary_dim > dim:
        raise ValueError(f"rotary_dim must be <= dim={dim}, got {rotary_dim}")
    half = dim // 2
    pairs = np.arange(half)  # [d/2]
    plain = sinusoidal_frequencies(dim, base=base).numpy()  # [d/2]
    wave = 2 * math.pi / plain  # [d/2]
    thetas = {
        m: _stretch_frequencies(m, dim, base, factor, original_max_positions, rotary_dim)
        for m in methods
    }  # method -> [d/2]
    longest = max([wave.max()] + [(2 * math.pi / t[t > 0]).max() for t in thetas.values()])
    top = max(longest * 4, factor * original_max_positions * 10)
    # fixed axes, no layout engine and plain-text ticks: the explorer redraws it fast
    fig = new_figure(6.8, 3.1, layout=None)
    left = fig.add_axes((0.095, 0.3, 0.375, 0.6))
    right = fig.add_axes((0.6, 0.3, 0.375, 0.6))
    every = max(1, half // 16)  # markers every few pairs, so the lines stay readable
    for ax in (left, right):
        ax.set_yscale("log")
        ax.yaxis.set_minor_locator(NullLocator())
        ax.set_xlabel("channel pair i (fast → slow)", fontsize=8.5)
        ax.set_xlim(-0.5, half - 0.5)
        ax.tick_params(labelsize=8)
        unseen = pairs[wave > original_max_positions]  # pairs that never turned once
        if unseen.size:
            ax.axvspan(unseen[0] - 0.5, half - 0.5, color="0.92", lw=0, zorder=0)
    left.plot(pairs, wave, color="black", lw=1.6, label="plain RoPE", zorder=3)
    for value, style, text in (
        (original_max_positions, "--", f"L₀ = {original_max_positions:g}"),
        (factor * original_max_positions, ":", f"sL₀ = {factor * original_max_positions:g}"),
    ):
        left.axhline(value, color="0.35", ls=style, lw=1.0)
        # under the line at the right, where every method's wavelength is far above it
        left.text(half - 1, value / 1.2, text, fontsize=8, color="0.25", ha="right", va="top")
    right.axhline(1.0, color="black", lw=1.6)
    right.axhline(factor, color="0.35", ls=":", lw=1.0)
    right.text(
        0.5,
        factor * 1.12,
        f"s = {factor:g}",
        fontsize=8,
        color="0.25",
        va="bottom",
    )
    highest = factor  # the largest squeeze drawn (dynamic NTK can pass s)
    for method in methods:
        label, colour, dash, marker = _STRETCH_STYLES[method]
        theta = thetas[method]  # [d/2]
        style = {
            "color": colour,
            "ls": dash,
            "marker": marker,
            "markevery": every,
            "ms": 4,
            "lw": 1.3,
        }
        if method == "partial":
            label = f"partial, r = {rotary_dim}"
            rotated = theta > 0
            left.plot(pairs[rotated], 2 * math.pi / theta[rotated], label=label, **style)
            left.plot(
                pairs[~rotated],
                np.full(int((~rotated).sum()), top / 1.6),
                color=colour,
                ls="",
                marker=marker,
                markevery=every,
                ms=4,
                clip_on=False,
            )
            left.text(  # under the first markers, above the rotated pairs' curves
                pairs[~rotated][0],
                top / 3,
                "∞: not rotated",
                fontsize=8,
                color=colour,
                ha="left",
                va="top",
            )
            continue
        left.plot(pairs, 2 * math.pi / theta, label=label, **style)
        right.plot(pairs, plain / theta, label=label, **style)
        highest = max(highest, float((plain / theta).max()))
    left.set_ylim(1.0, top)
    decades = range(0, int(math.log10(top)) + 1, 2)
    left.set_yticks([10.0**e for e in decades], [_power_of_ten(e) for e in decades])
    left.set_ylabel("wavelength 2π/θ′ᵢ (positions)", fontsize=8.5)
    left.set_title(f"d = {dim}, base = {base:g}", fontsize=8.5)
    right.set_ylim(0.8, highest * 1.8)
    step = 1 if highest <= 16 else 2
    ticks = [2.0**e for e in range(0, int(math.log2(highest * 1.8)) + 1, step)]
    right.set_yticks(ticks, [f"{t:g}" for t in ticks])
    right.set_ylabel("squeeze θᵢ / θ′ᵢ", fontsize=8.5)
    right.set_title(f"s = {factor:g}: 1 kept, s interpolated", fontsize=8.5)
    handles, labels = left.get_legend_handles_labels()
    fig.legend(
        handles,
        labels,
        loc="lower center",
        bbox_to_anchor=(0.5, 0.0),
        ncol=min(6, len(labels)),
        fontsize=8,
        frameon=False,
    )
    return fit_column(fig)


def rotary_stretch_explorer_figure(
    method: str = "yarn",
    factor: float = 8.0,
    *,
    dim: int = 128,
    base: float = 500000.0,
    original_max_positions: int = 8192,
) -> Figure:
    """The explorer's panel: one method against plain RoPE, as :func:`rotary_stretch_figure`.

    Args:
        method: one of ``"linear"``, ``"ntk"``, ``"dynamic"``, ``"yarn"``, ``"llama3"``.
        factor: ``s`` (finite, ``> 1``).
        dim, base, original_max_positions: as in :func:`rotary_stretch_figure`.

    Returns:
        a Figure with two axes (wavelengths, squeeze).
    """
    method = check_choice("method", method, ("linear", "ntk", "dynamic", "yarn", "llama3"))
    return rotary_stretch_figure(
        (method,),
        dim=dim,
        base=base,
        original_max_positions=original_max_positions,
        factor=factor,
    )


def rotary_stretch_results_figure(results: object) -> Figure:
    """Chapter 11's experiment: accuracy along the long test sequences, and the fine-tunes.

    Left: accuracy at every position of the ``s·L``-long test sequences, for each method
    applied to the trained model as it is (no fine-tuning); the shaded part holds the
    positions seen in training (``< L``). Right: each method's fine-tuning loss at length
    ``s·L`` against the step (log scale), until it met the stopping rule (the dotted line at
    ``stop_loss``) or the cap.

    Args:
        results: a :class:`book.experiments.scaling.StretchResults`.

    Returns:
        a Figure with two axes (accuracy per position, fine-tuning loss); each method's
        lines carry its label.
    """
    from book.experiments.scaling import (  # the toy only when drawing its results
        STAGES,
        StretchResults,
    )

    if not isinstance(results, StretchResults):
        raise TypeError(f"results must be a StretchResults, got {type(results).__name__}")
    short, long = results.eval_lengths
    fig = new_figure(6.8, 3.0)
    left, right = fig.subplots(1, 2)
    left.axvspan(-0.5, short - 0.5, color="0.92", lw=0, zorder=0)
    left.text(short / 2, 0.5, "seen in\ntraining", fontsize=8, ha="center", color="0.3")
    for method in results.methods:
        label, colour, dash, marker = _STRETCH_STYLES[method]
        acc = to_numpy(results.position_accuracy[method][STAGES[0]][long])  # [n]
        positions = np.arange(acc.size)
        style = {"color": colour, "ls": dash, "marker": marker, "ms": 3.5, "lw": 1.2}
        left.plot(positions, acc, markevery=max(1, long // 8), label=label, **style)
        losses = np.asarray(results.finetune_losses[method])  # [steps]
        steps = np.arange(1, losses.size + 1)
        right.plot(steps, losses, markevery=max(1, losses.size // 5), label=label, **style)
    left.axhline(results.chance, color="0.5", lw=0.8, ls=(0, (1, 2)))
    left.set_xlim(-0.5, long - 0.5)
    left.set_ylim(-0.03, 1.05)
    left.set_xlabel(f"position in a sequence of n = {long}", fontsize=8.5)
    left.set_ylabel("accuracy, no fine-tuning", fontsize=8.5)
    right.set_yscale("log")
    right.axhline(results.stop_loss, color="0.35", ls=":", lw=1.0)
    right.set_xlabel(f"fine-tuning step at n = {long}", fontsize=8.5)
    right.set_ylabel("training loss", fontsize=8.5)
    for ax in (left, right):
        ax.tick_params(labelsize=8)
    handles, labels = left.get_legend_handles_labels()
    fig.legend(
        handles,
        labels,
        loc="outside lower center",
        ncol=min(6, len(labels)),
        fontsize=8,
        frameon=False,
    )
    return fit_column(fig)
