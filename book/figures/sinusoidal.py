"""Figures for the sinusoidal encoding (chapter 3): table, wavelengths, bits, similarity, precision.

Every function returns a new ``Figure`` (no pyplot). Tables are drawn with positions down the
rows and channels across the columns, the layout of the ``[n, d]`` tensor itself.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import NullLocator

from book.demos.sinusoidal import binary_digits
from book.figures._base import fit_column, new_figure, table_image
from posenc._checks import check_bool, check_int, check_real
from posenc.sinusoidal import (
    sinusoidal_dot_product,
    sinusoidal_encoding,
    sinusoidal_frequencies,
    sinusoidal_wavelengths,
)

__all__ = [
    "binary_vs_sinusoidal_figure",
    "sinusoidal_dot_product_figure",
    "sinusoidal_explorer_figure",
    "sinusoidal_heatmap_figure",
    "sinusoidal_precision_figure",
    "sinusoidal_wavelengths_figure",
]


def _draw_dot_product(
    ax: Axes, dim: int, base: float, max_offset: int, positions: tuple[int, ...] = ()
) -> None:
    """Curve ``Σ cos(kω_i)`` over ``k ∈ [-max_offset, max_offset]``, dots from real tables."""
    k = torch.arange(-max_offset, max_offset + 1, dtype=torch.float64)  # [2K+1]
    curve = sinusoidal_dot_product(k, dim, base=base)  # [2K+1]
    ax.plot(k.numpy(), curve.numpy(), color="black", lw=1.2, label=r"$\sum_i \cos k\omega_i$")
    step = max(1, max_offset // 16)
    # each starting position gets its own offsets, so that the marker sets interleave on the
    # line instead of hiding one another (they would coincide exactly)
    shift = step // max(1, len(positions))
    markers = ("o", "s", "^", "D")
    for j, p in enumerate(positions):
        ks = torch.arange(-max_offset + j * shift, max_offset + 1, step, dtype=torch.float64)  # [m]
        a = sinusoidal_encoding(torch.tensor([float(p)]), dim, base=base, dtype=torch.float64)
        b = sinusoidal_encoding(p + ks, dim, base=base, dtype=torch.float64)  # [m, d]
        ax.plot(
            ks.numpy(),
            (b @ a[0]).numpy(),
            ls="none",
            marker=markers[j % len(markers)],
            ms=4,
            mfc="none",
            label=f"PE({p})·PE({p}+k)",
        )
    ax.axvline(0, color="grey", lw=0.6)
    ax.axhline(0, color="grey", lw=0.6)
    ax.set_xlim(-max_offset, max_offset)
    ax.set_xlabel("offset k")
    ax.set_ylabel("PE(p)·PE(p+k)")


def sinusoidal_heatmap_figure(
    n_positions: int = 128, dim: int = 64, *, base: float = 10000.0, interleaved: bool = True
) -> Figure:
    """The encoding table as an image: positions down, channels across, sin/cos in colour.

    Args:
        n_positions: how many positions (rows) to draw.
        dim: ``d``, the number of channels (even).
        base: as in :func:`posenc.sinusoidal.sinusoidal_encoding`.
        interleaved: the channel layout.

    Returns:
        a Figure with one image axis (and its colourbar); the image data is the table.
    """
    n_positions = check_int("n_positions", n_positions)
    interleaved = check_bool("interleaved", interleaved)
    table = sinusoidal_encoding(n_positions, dim, base=base, interleaved=interleaved)  # [n, d]
    fig = new_figure(6.4, 4.2)
    ax = fig.add_subplot()
    table_image(ax, table, colorbar=True)
    layout = "sin, cos alternating" if interleaved else "all sines, then all cosines"
    ax.set_title(f"Sinusoidal encoding, d = {dim}, base = {base:g} ({layout})")
    ax.set_xlabel("channel")
    ax.set_ylabel("position p")
    return fit_column(fig)


def sinusoidal_wavelengths_figure(dim: int = 64, *, base: float = 10000.0) -> Figure:
    """Wavelength ``2π/ω_i`` of each sin/cos pair on a log axis: a straight line (geometric).

    Args:
        dim: ``d``, the number of channels (even).
        base: as in :func:`posenc.sinusoidal.sinusoidal_encoding`.

    Returns:
        a Figure with one axis; its first line holds the ``d/2`` wavelengths.
    """
    lam = sinusoidal_wavelengths(dim, base=base).numpy()  # [d/2]
    fig = new_figure(6.4, 3.4)
    ax = fig.add_subplot()
    i = np.arange(lam.size)
    ax.plot(i, lam, marker="o", ms=3, lw=1, color="C0", label=r"$2\pi / \omega_i$")
    ax.axhline(2 * math.pi, color="C1", ls="--", lw=1, label=r"$2\pi$ (fastest pair, $i = 0$)")
    ax.axhline(
        2 * math.pi * base,
        color="C3",
        ls="--",
        lw=1,
        label=rf"$2\pi\cdot$base $\approx$ {2 * math.pi * base:,.0f} (never reached)",
    )
    ax.set_yscale("log")
    ax.set_xlabel("pair index i (channels 2i, 2i+1)")
    ax.set_ylabel("wavelength (positions)")
    ax.set_title(
        f"d = {dim}, base = {base:g}: each wavelength is ×{base ** (2 / dim):.3f} the previous one",
        fontsize=10,
    )
    ax.legend(loc="upper left", fontsize=8)
    return fit_column(fig)


def binary_vs_sinusoidal_figure(
    n_positions: int = 64, dim: int = 32, *, base: float = 10000.0
) -> Figure:
    """Binary digits of ``0..n-1`` beside the sinusoidal table for the same positions.

    Left: bit ``b`` of ``p`` (least significant first), which flips every ``2^b`` positions.
    Right: the sinusoidal encoding, whose pairs turn more slowly from left to right. Both are
    "counters": fast columns on the left, slow ones on the right; the sinusoids are the
    smooth, continuous version.

    Args:
        n_positions: how many positions (rows); the bit count is ``ceil(log2 n)``.
        dim: channels of the sinusoidal table.
        base: as in :func:`posenc.sinusoidal.sinusoidal_encoding`.

    Returns:
        a Figure with two image axes (bits, then sinusoids) and one colourbar.
    """
    n = check_int("n_positions", n_positions, minimum=2)
    n_bits = max(1, math.ceil(math.log2(n)))
    bits = binary_digits(n, n_bits)  # [n, n_bits]
    table = sinusoidal_encoding(n, dim, base=base)  # [n, d]
    fig = new_figure(7.6, 4.2)
    left, right = fig.subplots(1, 2, width_ratios=[1, 2.2])
    # bits 0/1 drawn as -1/+1 so that both panels share one colour scale
    table_image(left, 2 * bits - 1)
    left.set_xticks(range(n_bits))
    left.set_title("binary digits of p\n(bit b flips every $2^b$ steps)", fontsize=10)
    left.set_xlabel("bit b (least significant first)")
    left.set_ylabel("position p")
    table_image(right, table, colorbar=True)
    right.set_title(
        f"sinusoidal encoding, d = {dim}\n(pair i turns by $\\omega_i$ per step)", fontsize=10
    )
    right.set_xlabel("channel")
    right.tick_params(labelleft=False)
    return fit_column(fig)


def sinusoidal_dot_product_figure(
    dim: int = 64,
    *,
    base: float = 10000.0,
    max_offset: int = 64,
    positions: tuple[int, ...] = (0, 100, 1000),
) -> Figure:
    """``PE(p)·PE(p+k)`` against ``k``: one curve for every ``p``, symmetric in ``±k``.

    The line is the closed form ``Σ_i cos(kω_i)``; the markers are dot products of real table
    rows for each starting position in ``positions`` (each on its own offsets, so that the
    marker sets interleaved). They all sit on the line. A dashed line marks the number of
    "slow" pairs, those with ``max_offset·ω_i < 0.3``: each contributes a cosine above 0.95 at
    every offset drawn, which is why the curve stays well above zero.

    Args:
        dim: ``d``, the number of channels (even).
        base: as in :func:`posenc.sinusoidal.sinusoidal_encoding`.
        max_offset: the offsets drawn are ``-max_offset..max_offset``.
        positions: starting positions whose dot products are marked.

    Returns:
        a Figure with one axis: line 0 is the closed form, then one line per position, then
        the two grey axis lines and the dashed slow-pair count.
    """
    max_offset = check_int("max_offset", max_offset)
    if isinstance(positions, (str, bytes)) or not isinstance(positions, Sequence):
        raise TypeError(f"positions must be a sequence of ints, got {type(positions).__name__}")
    positions = tuple(check_int(f"positions[{i}]", p, minimum=0) for i, p in enumerate(positions))
    fig = new_figure(6.4, 3.4)
    ax = fig.add_subplot()
    _draw_dot_product(ax, dim, base, max_offset, tuple(positions))
    n_slow = int((max_offset * sinusoidal_frequencies(dim, base=base) < 0.3).sum())
    slow_label = rf"{n_slow} slow pairs: $|k|\,\omega_i < 0.3$ for all $|k| \leq {max_offset}$"
    ax.axhline(n_slow, color="C2", ls="--", lw=1, label=slow_label)
    ax.set_title(f"Similarity depends only on the offset, and not on its sign (d = {dim})")
    ax.legend(fontsize=8, loc="lower center", ncol=2)
    return fit_column(fig)


def sinusoidal_precision_figure(
    dim: int = 128, *, base: float = 10000.0, max_position: float = 1e6, n_points: int = 240
) -> Figure:
    """Error of the table against float64, per position: float32 angles vs posenc's path.

    For each position ``p`` (log-spaced integers up to ``max_position``) the largest absolute
    error over the channels of a float32 table, computed (a) with angles in float32, as most
    copied code does, and (b) with posenc's float64 angles cast at the end; plus the guide line
    ``p·2^{-24}``: rounding a frequency ``ω_i ≤ 1`` to float32 changes it by up to
    ``ω_i·2^{-24}``, which moves the angle ``p·ω_i`` by up to ``p·ω_i·2^{-24} ≤ p·2^{-24}``;
    rounding the product adds an error of the same order. (Pair 0 is exact: ``ω_0 = 1`` and integer
    ``p < 2^{24}`` are representable, so is their product.)

    Args:
        dim: ``d``, the number of channels (even).
        base: as in :func:`posenc.sinusoidal.sinusoidal_encoding`.
        max_position: the largest position drawn.
        n_points: how many log-spaced positions to sample.

    Returns:
        a Figure with one log-log axis: line 0 is float32 angles, line 1 float64 angles.
    """
    n_points = check_int("n_points", n_points, minimum=2)
    max_position = check_real("max_position", max_position, minimum=10)
    pos = torch.unique(
        torch.round(torch.logspace(0, math.log10(max_position), n_points, dtype=torch.float64))
    )  # [m]
    exact = sinusoidal_encoding(pos, dim, base=base, dtype=torch.float64)  # [m, d]
    fast = sinusoidal_encoding(pos, dim, base=base, compute_dtype=torch.float32)  # [m, d]
    good = sinusoidal_encoding(pos, dim, base=base)  # [m, d]
    err_fast = (fast.double() - exact).abs().amax(dim=1).numpy()  # [m]
    err_good = (good.double() - exact).abs().amax(dim=1).numpy()  # [m]
    p = pos.numpy()
    fig = new_figure(6.4, 3.6)
    ax = fig.add_subplot()
    ax.plot(p, np.maximum(err_fast, 1e-10), "x", ms=3, color="C3", label="angles in float32")
    ax.plot(
        p,
        np.maximum(err_good, 1e-10),
        ".",
        ms=3,
        color="C0",
        label="posenc: angles in float64, cast to float32",
    )
    ax.plot(p, p * 2.0**-24, color="grey", lw=1, ls="--", label=r"$p \cdot 2^{-24}$")
    ax.axhline(1e-6, color="black", lw=0.8, ls=":", label="1e-6")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(1e-9, 1)
    # decades only: ~150 minor log ticks would make the layout pass ~10x slower to draw
    ax.xaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_minor_locator(NullLocator())
    ax.set_xlabel("position p")
    ax.set_ylabel("max |error| over channels")
    ax.set_title(f"float32 table vs float64 formula (d = {dim})")
    ax.legend(fontsize=8, loc="upper left")
    return fit_column(fig)


def sinusoidal_explorer_figure(
    dim: int = 64, base: float = 10000.0, n_positions: int = 128
) -> Figure:
    """The explorer's panel: the table (left) and ``PE(p)·PE(p+k)`` against ``k`` (right).

    Drawn with a fixed layout (no constrained layout) and no colourbar (the colours are those
    of :func:`sinusoidal_heatmap_figure`, -1 blue to +1 red) so that a redraw stays fast;
    tables longer than 160 positions are shown as block averages of rows.

    Args:
        dim: ``d``, the number of channels (even).
        base: as in :func:`posenc.sinusoidal.sinusoidal_encoding`.
        n_positions: positions in the table; the offsets run over ``±n_positions``.

    Returns:
        a Figure with two axes: the table (an image) and the dot product (a line).
    """
    n = check_int("n_positions", n_positions)
    table = sinusoidal_encoding(n, dim, base=base)  # [n, d]
    fig = new_figure(6.8, 3.0, layout=None)  # no layout engine: one draw per savefig
    left = fig.add_axes((0.1, 0.17, 0.37, 0.71))
    right = fig.add_axes((0.6, 0.17, 0.38, 0.71))
    table_image(left, table, max_rows=160)
    # fixed ticks and title positions: tick locators and automatic title placement are most
    # of the drawing time of a small figure
    left.set_xticks(np.linspace(0, dim, 5).round().astype(int)[:-1].tolist() + [dim - 1])
    left.set_yticks(np.linspace(0, n, 5).round().astype(int)[:-1].tolist() + [n - 1])
    left.set_title(f"PE table: {n} positions × {dim} channels", fontsize=9, y=1.01)
    left.set_xlabel("channel")
    left.set_ylabel("position p")
    _draw_dot_product(right, dim, base, n)
    right.set_ylim(-0.7 * dim / 2, 1.05 * dim / 2)
    right.set_xticks(np.linspace(-n, n, 5).round().astype(int).tolist())
    right.set_yticks([-dim // 4, 0, dim // 4, dim // 2])
    right.set_title(f"PE(p)·PE(p+k), d = {dim}, base = {base:g}", fontsize=9, y=1.01)
    return fit_column(fig)
