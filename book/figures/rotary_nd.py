"""Figures for RoPE on grids (chapter 12): which pairs turn with which axis, and what follows.

* :func:`rotary_pair_axes_figure`: the wavelength of every channel pair, marked by the axis it
  turns with, for M-RoPE's consecutive sections and for axial 2-D RoPE;
* :func:`multimodal_positions_figure`: Qwen2-VL's ``(t, h, w)`` positions of a sequence of
  text and image tokens (:func:`book.demos.grids.multimodal_positions`);
* :func:`rotary_grid_scores` and :func:`rotary_grid_figure`: the score of one query against
  keys at every place of a grid, with all-ones queries and keys, so that the map shows the
  positions alone (the explorer's frame).

Every figure function returns a new ``Figure``; nothing touches pyplot.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator
from torch import Tensor

from book.demos.grids import multimodal_positions
from book.figures._base import new_figure
from posenc._checks import check_base, check_bool, check_choice, check_int, check_pair
from posenc.rotary import rotary_quarter_turn
from posenc.rotary_nd import rotary_angles_2d, rotary_angles_nd, rotary_cos_sin_nd, rotary_pair_axes
from posenc.sinusoidal import sinusoidal_frequencies

__all__ = [
    "AXIS_NAMES",
    "LAYOUTS",
    "multimodal_positions_figure",
    "rotary_grid_figure",
    "rotary_grid_scores",
    "rotary_pair_axes_figure",
]

AXIS_NAMES = ("time", "row", "column")
LAYOUTS = ("axial", "mrope")
"""How the pairs are shared out: ``"axial"`` (:func:`posenc.rotary_nd.rotary_angles_2d`, every
axis over the whole range of frequencies) or ``"mrope"`` (consecutive ``sections``)."""
_STYLE = {  # axis -> (colour, marker)
    0: ("#7b3294", "o"),
    1: ("#e66101", "s"),
    2: ("#0571b0", "^"),
}


def _axial_axes(dim: int) -> Tensor:
    """The axis (1: row, 2: column) of each of the ``d/2`` pairs of axial 2-D RoPE."""
    quarter = dim // 4
    return torch.tensor([1] * quarter + [2] * quarter)  # [d/2]


def _axial_wavelengths(dim: int, base: float) -> np.ndarray:
    omega = sinusoidal_frequencies(dim // 2, base=base)  # [d/4]
    return (2 * math.pi / torch.cat((omega, omega))).numpy()  # [d/2]


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _power_label(value: float, _position: object = None) -> str:
    """``10⁴`` for 10000 (a tick label of a log axis, in plain text)."""
    exponent = round(math.log10(value)) if value > 0 else 0
    return "10" + str(exponent).translate(_SUPERSCRIPT)


def _draw_pairs(
    ax: Axes, wavelengths: np.ndarray, axes: np.ndarray, side: int | None, *, legend: bool = True
) -> None:
    pairs = np.arange(len(wavelengths))
    for a in sorted(set(axes.tolist())):
        colour, marker = _STYLE[a]
        keep = axes == a
        ax.plot(pairs[keep], wavelengths[keep], marker, color=colour, ms=4, label=AXIS_NAMES[a])
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(base=10, numticks=8))
    ax.yaxis.set_minor_locator(NullLocator())  # minor log ticks cost a third of a redraw
    ax.yaxis.set_major_formatter(FuncFormatter(_power_label))  # no mathtext: faster
    if side is not None:
        ax.axhline(side, color="0.3", ls="--", lw=1)
        ax.text(
            0.99, side * 1.3, f"{side} tokens", ha="right", va="bottom",
            transform=ax.get_yaxis_transform(), fontsize=8, color="0.3",
        )  # fmt: skip
    ax.set_xlabel("channel pair j", fontsize=9)
    ax.set_ylabel("wavelength 2π/θ", fontsize=9)
    ax.tick_params(labelsize=8)
    if legend:
        ax.legend(fontsize=8, loc="upper left", handletextpad=0.2, borderpad=0.3)


def rotary_pair_axes_figure(
    dim: int = 128,
    sections: Sequence[int] = (16, 24, 24),
    *,
    base: float = 1_000_000.0,
    axial_dim: int = 80,
    axial_base: float = 10000.0,
    side: int | None = 32,
) -> Figure:
    """Draw which channel pairs turn with which axis: M-RoPE (left) and axial 2-D RoPE (right).

    .. math::

        \\lambda_j = 2\\pi / \\theta_j, \\qquad
        \\theta_j = \\text{base}^{-2j/d} \\ \\text{(M-RoPE)}, \\qquad
        \\omega_j = \\text{base}^{-4j/d} \\ \\text{(axial, per axis)}

    Every pair is a marker at its wavelength (tokens per full turn), shaped and coloured by
    its axis. The defaults are Qwen2-VL's: M-RoPE over 128 channels per head with sections
    ``[16, 24, 24]`` and base 10⁶ in the language model, axial 2-D RoPE over 80 channels
    with base 10⁴ in its vision encoder. A dashed line marks ``side`` tokens: pairs whose
    wavelength is far above it barely turn across a grid of that side.

    Args:
        dim: channels per head of M-RoPE (even).
        sections: pairs per axis (time, row, column), summing to ``dim / 2``.
        base: M-RoPE's base.
        axial_dim: channels per head of the axial 2-D RoPE (a multiple of 4).
        axial_base: its base.
        side: a grid side to mark, or ``None``.

    Returns:
        the figure (6.8 × 2.8 in).
    """
    axes_m = rotary_pair_axes(dim, 3, sections=sections).numpy()  # [d/2]
    wave_m = (2 * math.pi / sinusoidal_frequencies(dim, base=base)).numpy()  # [d/2]
    axial_dim = check_int("axial_dim", axial_dim)
    axial_base = check_base("axial_base", axial_base)
    if axial_dim % 4:
        raise ValueError(f"axial_dim must be a multiple of 4 (two axes of pairs), got {axial_dim}")
    wave_a = _axial_wavelengths(axial_dim, axial_base)  # [d/2]
    if side is not None:
        side = check_int("side", side)
    fig = new_figure(6.8, 2.8)
    left, right = fig.subplots(1, 2, sharey=True)
    _draw_pairs(left, wave_m, axes_m, side)
    left.set_title(f"M-RoPE: d = {dim}, sections {list(sections)}", fontsize=9)
    _draw_pairs(right, wave_a, _axial_axes(axial_dim).numpy(), side, legend=False)
    right.set_title(f"axial 2-D RoPE: d = {axial_dim}, half per axis", fontsize=9)
    right.tick_params(labelleft=True)
    return fig


def multimodal_positions_figure(
    segments: Sequence[int | Sequence[int]] = (3, (1, 2, 3), 2),
) -> Figure:
    """Draw Qwen2-VL's ``(t, h, w)`` positions of a sequence of text and vision tokens.

    One column per token (in the order of the sequence), one row per axis; text cells are
    white, vision cells tinted. Text tokens carry the same number on all three axes; a vision
    grid starts where the text stopped and the text after it continues from the start plus
    ``max(h, w)`` (:func:`book.demos.grids.multimodal_positions`).

    Args:
        segments: as in :func:`~book.demos.grids.multimodal_positions` (at most 16 tokens).

    Returns:
        the figure (at most 6.8 in wide).
    """
    positions, vision = multimodal_positions(segments)  # [n, 3], [n]
    n = positions.shape[0]
    if n > 16:
        raise ValueError(f"segments must hold at most 16 tokens to be drawn, got {n}")
    cell = 0.36
    fig = new_figure(min(6.8, 1.2 + cell * n), 1.25, layout=None)
    ax = fig.add_axes((1.0 / fig.get_figwidth(), 0.04, 1 - 1.1 / fig.get_figwidth(), 0.9))
    for i in range(n):
        face = "#fdd49e" if vision[i] else "white"
        for a in range(3):
            ax.add_patch(Rectangle((i, a), 1, 1, facecolor=face, edgecolor="0.4", lw=0.8))
            ax.text(i + 0.5, a + 0.5, str(int(positions[i, a])), ha="center", va="center",
                    fontsize=9)  # fmt: skip
        ax.text(i + 0.5, -0.25, "img" if vision[i] else "txt", ha="center", va="bottom",
                fontsize=8, color="0.3")  # fmt: skip
    ax.set_xlim(0, n)
    ax.set_ylim(3, -0.9)
    ax.set_yticks([0.5, 1.5, 2.5], ["t (time)", "h (row)", "w (column)"], fontsize=8)
    ax.set_xticks([])
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.tick_params(length=0)
    return fig


def _rotated_ones(angles: Tensor) -> Tensor:
    """All-ones vectors rotated by ``angles`` ``[n, d/2]``: ``[n, d]``."""
    cos, sin = rotary_cos_sin_nd(angles, interleaved=True, dtype=torch.float64)  # [n, d] each
    ones = torch.ones_like(cos)
    return ones * cos + rotary_quarter_turn(ones, interleaved=True) * sin


def rotary_grid_scores(
    layout: str,
    query: Sequence[int],
    *,
    side: int = 16,
    dim: int = 64,
    sections: Sequence[int] | None = None,
    base: float = 10000.0,
) -> Tensor:
    """Return the RoPE score of one query against a key at every place of a square grid.

    .. math::

        s(r, c) = \\frac{1}{d}\\,\\big(R_{p_q} \\mathbf{1}\\big)^\\top R_{(r, c)} \\mathbf{1}
        = \\frac{2}{d} \\sum_{j} \\cos\\big(\\phi_j(p_q) - \\phi_j(r, c)\\big)

    Query and key are all-ones vectors, so the score is a function of the positions only,
    between −1 and 1 (1 on the query's own place). All tokens sit at time 0 for M-RoPE.

    Args:
        layout: ``"axial"`` (:func:`posenc.rotary_nd.rotary_angles_2d`) or ``"mrope"``
            (:func:`posenc.rotary_nd.rotary_angles_nd` with ``sections`` over time, row,
            column).
        query: ``(row, column)`` of the query, inside the grid.
        side: the grid's side.
        dim: channels (a multiple of 4 for ``"axial"``, even for ``"mrope"``).
        sections: M-RoPE's pairs per axis (time, row, column); ``None``: equal.
        base: the base of the frequencies.

    Returns:
        float64 tensor ``[side, side]``.

    Shapes:
        the grid, row-major.
    """
    layout = check_choice("layout", layout, LAYOUTS)
    side = check_int("side", side)
    row, col = check_pair("query", query, minimum=0)
    if row >= side or col >= side:
        raise ValueError(f"query must lie inside the {side} × {side} grid, got {(row, col)}")
    if layout == "axial":
        angles = rotary_angles_2d(side, side, dim, base=base)  # [side², d/2]
    else:
        r, c = torch.meshgrid(torch.arange(side), torch.arange(side), indexing="ij")
        pos = torch.stack((torch.zeros_like(r), r, c), dim=-1).reshape(-1, 3)  # [side², 3]
        angles = rotary_angles_nd(pos, dim, base=base, sections=sections)  # [side², d/2]
    x = _rotated_ones(angles)  # [side², d]
    scores = x @ x[row * side + col] / x.shape[-1]  # [side²]
    return scores.reshape(side, side)


def rotary_grid_figure(
    layout: str = "mrope",
    query: Sequence[int] = (8, 8),
    *,
    sections: Sequence[int] | None = (8, 12, 12),
    side: int = 16,
    dim: int = 64,
    base: float = 10000.0,
    show_pairs: bool = True,
) -> Figure:
    """Draw the pairs' wavelengths by axis and one query's scores over a grid (explorer frame).

    Left: the wavelength of every pair, marked by its axis (as in
    :func:`rotary_pair_axes_figure`). Right: :func:`rotary_grid_scores` on the grid, the
    query in a black square, the colours spread from the lowest score to 1. Moving the query moves the pattern with it (the scores depend on
    the offsets only); an axis whose pairs all have wavelengths far beyond the grid leaves
    the pattern flat along it.

    Args:
        layout: ``"axial"`` or ``"mrope"``.
        query: ``(row, column)`` of the query.
        sections: M-RoPE's pairs per axis (ignored for ``"axial"``).
        side: the grid's side.
        dim: channels.
        base: the base of the frequencies.
        show_pairs: draw the left panel.

    Returns:
        the figure (6.8 × 2.9 in, or 3.6 × 2.9 without the left panel).
    """
    show_pairs = check_bool("show_pairs", show_pairs)
    scores = rotary_grid_scores(
        layout, query, side=side, dim=dim, sections=sections, base=base
    ).numpy()  # [side, side]
    row, col = query
    width = 6.8 if show_pairs else 3.6
    fig = new_figure(width, 2.9, layout=None)
    inch = 1 / width
    if show_pairs:
        ax = fig.add_axes((0.75 * inch, 0.17, 2.3 * inch, 0.68))
        if layout == "axial":
            axes = _axial_axes(dim).numpy()
            wave = _axial_wavelengths(dim, base)
            title = f"axial: {dim // 4} + {dim // 4} pairs"
        else:
            axes = rotary_pair_axes(dim, 3, sections=sections).numpy()
            wave = (2 * math.pi / sinusoidal_frequencies(dim, base=base)).numpy()
            counts = [int((axes == a).sum()) for a in range(3)]
            title = "M-RoPE: " + "/".join(str(c) for c in counts) + " pairs (t/h/w)"
        _draw_pairs(ax, wave, axes, side)
        ax.set_title(title, fontsize=9)
    left = (3.9 if show_pairs else 0.7) * inch
    ax = fig.add_axes((left, 0.17, 2.2 * inch, 0.68))
    low = float(scores.min())
    low = min(low, 1 - 1e-3)  # a flat map still gets a colour range
    image = ax.imshow(scores, cmap="viridis", vmin=low, vmax=1, interpolation="nearest")
    ax.add_patch(Rectangle((col - 0.5, row - 0.5), 1, 1, fill=False, edgecolor="black", lw=2))
    ax.set_xlabel("key column", fontsize=9)
    ax.set_ylabel("key row", fontsize=9)
    ax.tick_params(labelsize=8)
    ax.set_title(f"query {tuple(query)}: scores {low:.2f} … 1", fontsize=9)
    bar = fig.add_axes((left + 2.3 * inch, 0.17, 0.12 * inch, 0.68))
    fig.colorbar(image, cax=bar)
    bar.tick_params(labelsize=8)
    return fig
