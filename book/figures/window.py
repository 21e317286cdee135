"""Figures for Swin's 2-D relative position bias (chapter 7).

How a window's relative position index is built (coordinates, pairwise offsets, the shift to
digits and the radix ``2·Ww − 1``), how the bias of one query is looked up in the table, and
the shifted-window mask. The index itself comes from
:func:`posenc.window.relative_position_index`; the figures only lay it out.

Swin-specific drawing helpers: :func:`draw_window_borders` (the borders of a window
partition) and :func:`window_query_token` (a query named by place). The general grid toolkit
(one axes in inches for many panels, matrices as labelled cells, fast labels, outlines) lives
in :mod:`book.figures._grid`. Data helper: :func:`example_bias_table` (hand-made tables
whose pattern is easy to see). The reference-free checks of an index live in
:func:`book.demos.window.relative_index_check`.

Every figure function returns a new ``Figure``; nothing touches pyplot.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from torch import Tensor

from book._checks import check_values
from book.figures._base import (
    DIVERGING,
    MAX_WIDTH,
    MIN_FONT_SIZE,
    fit_column,
    signed_label,
    with_slide_version,
)
from book.figures._grid import Highlights, draw_labels, draw_number_grid, inch_canvas, outline_cells
from posenc._checks import check_bool, check_int, check_pair
from posenc.window import SwinRelativePositionBias, relative_position_index, shifted_window_mask

__all__ = [
    "CONVENTIONS",
    "QUERY_NAMES",
    "draw_window_borders",
    "example_bias_table",
    "index_radix_figure",
    "meshgrid_order_figure",
    "relative_offsets_figure",
    "shifted_window_figure",
    "window_bias_figure",
    "window_coordinates_figure",
    "window_query_token",
]

QUERY_NAMES = ("top-left", "top-right", "centre", "bottom-left", "bottom-right")
CONVENTIONS = ("swin", "shaw")
"""How :func:`window_bias_figure` reads the table: ``"swin"``, offset query − key (the index
``I``), or ``"shaw"``, key − query (the transpose ``Iᵀ``)."""
_HEAD_NAMES = ("nearby keys", "the key to the left", "the query's row", "the key above")
_BIAS_LIMIT = 1.0  # |values| of example_bias_table never exceed this
_INDEX_CMAP = "viridis"
_LIGHT_INDEX = ListedColormap(colormaps["Greys"](np.linspace(0.02, 0.36, 256)))  # black text
_READS = "#00a03c"  # green: the block of the table a query reads


# ---------------------------------------------------------------------------------------------
# Swin-specific drawing helpers


def draw_window_borders(
    ax: Axes,
    height: int,
    width: int,
    window_size: Sequence[int],
    *,
    offset: Sequence[int] = (0, 0),
    color: str = "black",
    lw: float = 2.0,
    origin: tuple[float, float] | None = None,
    cell: float = 1.0,
) -> None:
    """Draw the borders of ``Wh × Ww`` windows, and the frame, over a ``height × width`` grid.

    Args:
        ax: the axes of the grid.
        height, width: cells of the grid.
        window_size: ``(Wh, Ww)``.
        offset: ``(oy, ox)``: inner borders at rows ``oy + k·Wh`` and columns ``ox + k·Ww``
            (taken modulo the window). Swin's shifted partition has ``offset = shift``: after
            the map is rolled by ``−shift``, its windows are the regular ones.
        color: line colour.
        lw: line width.
        origin, cell: where the grid sits, as in :func:`~book.figures._grid.draw_number_grid` (default: a plain
            ``imshow``, cell ``(r, c)`` centred on ``(c, r)``).
    """
    wh, ww = check_pair("window_size", window_size)
    height, width = check_int("height", height), check_int("width", width)
    offset = check_pair("offset", offset, minimum=None)
    ox, oy = (-0.5, -0.5) if origin is None else origin
    size = 1.0 if origin is None else cell
    rows = sorted({0, height, *range(offset[0] % wh, height, wh)})
    cols = sorted({0, width, *range(offset[1] % ww, width, ww)})
    for r in rows:
        ax.plot(
            [ox, ox + width * size],
            [oy + r * size] * 2,
            color=color,
            lw=lw,
            solid_capstyle="projecting",
        )
    for c in cols:
        ax.plot(
            [ox + c * size] * 2,
            [oy, oy + height * size],
            color=color,
            lw=lw,
            solid_capstyle="projecting",
        )


def window_query_token(query: str | int | Sequence[int], window_size: Sequence[int]) -> int:
    """The row-major token number ``r·Ww + c`` of a query named by place, number or ``(r, c)``.

    Args:
        query: ``"top-left"``, ``"top-right"``, ``"centre"`` (cell ``((Wh−1)//2, (Ww−1)//2)``),
            ``"bottom-left"``, ``"bottom-right"``, a token number, or a pair ``(r, c)``.
        window_size: ``(Wh, Ww)``.

    Returns:
        the token number in ``0 … Wh·Ww − 1``.
    """
    wh, ww = check_pair("window_size", window_size)
    if isinstance(query, str):
        places = {
            "top-left": (0, 0),
            "top-right": (0, ww - 1),
            "centre": ((wh - 1) // 2, (ww - 1) // 2),
            "bottom-left": (wh - 1, 0),
            "bottom-right": (wh - 1, ww - 1),
        }
        if query not in places:
            raise ValueError(
                f"query must be one of {sorted(places)}, a token number or (r, c), got {query!r}"
            )
        r, c = places[query]
        return r * ww + c
    if isinstance(query, Sequence):
        if len(query) != 2:
            raise ValueError(f"query as a cell must be a pair (r, c), got {tuple(query)}")
        r = check_int("query[0]", query[0], minimum=0)
        c = check_int("query[1]", query[1], minimum=0)
        if r >= wh or c >= ww:
            raise ValueError(f"query (r, c) must lie in the {wh}x{ww} window, got ({r}, {c})")
        return r * ww + c
    n = check_int("query", query, minimum=0)
    if n >= wh * ww:
        raise ValueError(f"query must be < Wh·Ww = {wh * ww}, got {n}")
    return n


# ---------------------------------------------------------------------------------------------
# data helpers


def example_bias_table(window_size: Sequence[int], num_heads: int) -> Tensor:
    """A hand-made relative bias table whose heads have patterns easy to see (float64).

    Row ``I = (Δr + Wh − 1)(2Ww − 1) + (Δc + Ww − 1)`` holds the bias of offset
    ``(Δr, Δc) = query − key``. With ``g(x, y) = 1.5·exp(−(x² + y²)/1.5) − 0.5``:

    .. math::

        T_0 = 1.5\\, e^{-(Δr^2 + Δc^2)/4} - 0.5, \\quad T_1 = g(Δr,\\, Δc - 1), \\quad
        T_2 = 1.5\\, e^{-Δr^2} - 0.5, \\quad T_3 = g(Δr - 1,\\, Δc)

    Head 0 favours nearby keys, head 1 the key just left of the query (``Δc = +1``), head 2
    keys on the query's row, head 3 the key just above (``Δr = +1``). Every value lies in
    ``[−0.5, 1]``. A trained table is learned, not designed; these only make the lookup visible.

    Args:
        window_size: ``(Wh, Ww)``.
        num_heads: ``h``, 1 to 4.

    Returns:
        the table, in the layout of Swin's ``relative_position_bias_table``.

    Shapes:
        ``[(2Wh − 1)(2Ww − 1), h]``.
    """
    wh, ww = check_pair("window_size", window_size)
    h = check_int("num_heads", num_heads)
    if h > len(_HEAD_NAMES):
        raise ValueError(f"num_heads must be <= {len(_HEAD_NAMES)} for the example table, got {h}")
    dr = torch.arange(-(wh - 1), wh, dtype=torch.float64)[:, None]  # [2Wh-1, 1]
    dc = torch.arange(-(ww - 1), ww, dtype=torch.float64)[None, :]  # [1, 2Ww-1]

    def bump(x: Tensor, y: Tensor) -> Tensor:
        return 1.5 * torch.exp(-(x**2 + y**2) / 1.5) - 0.5

    heads = [
        1.5 * torch.exp(-(dr**2 + dc**2) / 4) - 0.5,
        bump(dr, dc - 1),
        (1.5 * torch.exp(-(dr**2)) - 0.5).expand(-1, 2 * ww - 1),
        bump(dr - 1, dc),
    ]
    return torch.stack([t.reshape(-1) for t in heads[:h]], dim=1)  # [(2Wh-1)(2Ww-1), h]


# ---------------------------------------------------------------------------------------------
# figures of the construction


def window_coordinates_figure(window_size: Sequence[int] = (3, 4)) -> Figure:
    """A window's tokens with their row-major numbers and coordinates, and the coordinate tensor.

    Left: the ``Wh × Ww`` window, each cell labelled with its token number ``n = r·Ww + c``
    (bold) and ``(r, c)``. Right: ``coords``, the ``[2, N]`` tensor of row and column
    coordinates in token order (row 0: ``r``, row 1: ``c``), as
    ``stack(meshgrid(arange(Wh), arange(Ww), indexing="ij")).flatten(1)`` returns it.

    Args:
        window_size: ``(Wh, Ww)``.

    Returns:
        a Figure with one axes (a canvas in inches).
    """
    wh, ww = check_pair("window_size", window_size)
    n = wh * ww
    fig_w = 6.8
    fig, ax = inch_canvas(fig_w, 2.3)
    cell = min(0.5, 1.8 / wh, 2.4 / ww)
    left = (0.1, 0.35 + (1.8 - wh * cell) / 2)
    checker = ListedColormap(["#e8eef7", "#cfdcef"])
    draw_number_grid(
        ax,
        (np.add.outer(np.arange(wh), np.arange(ww)) % 2),
        cmap=checker,
        vmin=0,
        vmax=1,
        show_numbers=False,
        origin=left,
        cell=cell,
    )
    labels, centres = [], []
    for t in range(n):
        r, c = divmod(t, ww)
        x, y = left[0] + (c + 0.5) * cell, left[1] + (r + 0.5) * cell
        ax.text(x, y - 0.1 * cell, str(t), ha="center", va="center", fontsize=11, fontweight="bold")
        labels.append(f"({r}, {c})")
        centres.append((x, y + 0.28 * cell))
    draw_labels(ax, labels, centres, fontsize=7, colors="0.3")
    ax.text(
        left[0] + ww * cell / 2,
        left[1] - 0.1,
        f"{wh}×{ww} window: token n = r·{ww} + c",
        ha="center",
        va="bottom",
        fontsize=9,
    )
    small = min(0.27, 3.3 / n)
    right = (fig_w - 0.05 - n * small, 1.0)
    coords = np.stack([np.repeat(np.arange(wh), ww), np.tile(np.arange(ww), wh)])  # [2, N]
    draw_number_grid(
        ax, coords, cmap=ListedColormap(["#f3f3f3"]), fontsize=8, origin=right, cell=small
    )
    for t in range(n):
        ax.text(
            right[0] + (t + 0.5) * small,
            right[1] - 0.05,
            str(t),
            ha="center",
            va="bottom",
            fontsize=7,
            color="0.35",
        )
    ax.text(right[0] - 0.08, right[1] + 0.5 * small, "r", ha="right", va="center", fontsize=9)
    ax.text(right[0] - 0.08, right[1] + 1.5 * small, "c", ha="right", va="center", fontsize=9)
    ax.text(
        right[0] + n * small / 2,
        right[1] - 0.3,
        "coords [2, N]: coords[:, n] = (r, c) of token n",
        ha="center",
        va="bottom",
        fontsize=9,
    )
    ax.annotate(
        "",
        xy=(right[0] - 0.25, right[1] + small),
        xytext=(left[0] + ww * cell + 0.1, right[1] + small),
        arrowprops={"arrowstyle": "->", "color": "0.4", "lw": 1.2},
    )
    ax.text(
        (right[0] - 0.25 + left[0] + ww * cell + 0.1) / 2,
        right[1] + small + 0.1,
        "flatten\nrow by row",
        ha="center",
        va="top",
        fontsize=8,
        color="0.35",
    )
    return fit_column(fig)


def _offsets(wh: int, ww: int) -> tuple[np.ndarray, np.ndarray]:
    """``Δr`` and ``Δc`` (query minus key) of every token pair, ``[N, N]`` each."""
    rows = np.repeat(np.arange(wh), ww)  # [N]
    cols = np.tile(np.arange(ww), wh)  # [N]
    return rows[:, None] - rows[None, :], cols[:, None] - cols[None, :]


def relative_offsets_figure(window_size: Sequence[int] = (3, 4), *, slide: bool = False) -> Figure:
    """The pairwise row and column offsets (query minus key) of a window, and the index.

    Three ``N × N`` panels, rows = query ``i``, columns = key ``j`` (token numbers): ``Δr =
    r_i − r_j``, ``Δc = c_i − c_j``, and the index ``I`` of
    :func:`posenc.window.relative_position_index`. Every cell is labelled (keep ``N`` at most
    about 12). Thin lines separate the window's rows of tokens. The page's figure carries a
    slide layout (:func:`book.figures._base.with_slide_version`): the three panels in a row
    with larger digits, for a projector.

    Args:
        window_size: ``(Wh, Ww)``.
        slide: draw the slide layout.

    Returns:
        a Figure with one axes (a canvas in inches); its three images are ``Δr``, ``Δc``, ``I``.
    """
    wh, ww = check_pair("window_size", window_size)
    check_bool("slide", slide)
    n = wh * ww
    dr, dc = _offsets(wh, ww)
    index = relative_position_index((wh, ww))  # [N, N]
    cell = min(0.36, 3.6 / n) if slide else min(0.3, 2.4 / n)
    # on a slide the cells are wider than tall: the deck shrinks the figure to its height,
    # and signed numbers ("−2") side by side need the room
    across = 1.25 * cell if slide else cell
    panel, wide, gap = n * cell, n * across, 0.45
    # three panels in a row when they fit the column (always on a slide), else Δr and Δc
    # above and I below
    columns = 3 if slide or 3 * (wide + gap) + 0.1 <= MAX_WIDTH else 2
    rows = -(-3 // columns)
    font = 0.56 * cell * 72 if slide else max(MIN_FONT_SIZE, min(9.0, 0.5 * cell * 72))
    tick = font if slide else MIN_FONT_SIZE
    u = font / 8.5 if slide else 1.0  # the labels' room grows with their text
    gap *= u
    fig, ax = inch_canvas(columns * (wide + gap) + 0.1, rows * (panel + 1.0 * u))
    limit = max(wh, ww) - 1 or 1
    panels = (
        (dr, DIVERGING, -limit, limit, f"Δr = r_i − r_j  (−{wh - 1} … +{wh - 1})"),
        (dc, DIVERGING, -limit, limit, f"Δc = c_i − c_j  (−{ww - 1} … +{ww - 1})"),
        (
            index,
            _INDEX_CMAP,
            0,
            (2 * wh - 1) * (2 * ww - 1) - 1,
            f"I = (Δr + {wh - 1})·{2 * ww - 1} + (Δc + {ww - 1})",
        ),
    )
    for k, (m, cmap, lo, hi, title) in enumerate(panels):
        row, col = divmod(k, columns)
        if row == rows - 1 and 3 % columns:  # centre the last, shorter row
            col += (columns - 3 % columns) / 2
        at = (gap + col * (wide + gap), 0.85 * u + row * (panel + 1.0 * u))
        draw_number_grid(
            ax,
            m,
            cmap=cmap,
            vmin=lo,
            vmax=hi,
            fontsize=font,
            origin=at,
            cell=cell,
            cell_width=across,
            fmt=signed_label if k < 2 else "{:.0f}",
        )
        for b in range(ww, n, ww):  # separate the window's rows of tokens
            ax.plot([at[0], at[0] + wide], [at[1] + b * cell] * 2, color="0.15", lw=0.8)
            ax.plot([at[0] + b * across] * 2, [at[1], at[1] + panel], color="0.15", lw=0.8)
        draw_labels(
            ax,
            [str(t) for t in range(n)] * 2,
            [(at[0] + (t + 0.5) * across, at[1] - 0.09 * u) for t in range(n)]
            + [(at[0] - 0.11 * u, at[1] + (t + 0.5) * cell) for t in range(n)],
            fontsize=tick,
            colors="0.3",
        )
        ax.text(
            at[0] + wide / 2, at[1] - 0.2 * u, "key j", ha="center", va="bottom", fontsize=8.5 * u
        )
        ax.text(
            at[0] - 0.24 * u,
            at[1] + panel / 2,
            "query i",
            ha="right",
            va="center",
            fontsize=8.5 * u,
            rotation=90,
        )
        ax.text(
            at[0] + wide / 2, at[1] - 0.42 * u, title, ha="center", va="bottom", fontsize=9.5 * u
        )
    if slide:
        return fig
    return with_slide_version(
        fit_column(fig), lambda: relative_offsets_figure(window_size, slide=True)
    )


_DIGIT_COLOUR = "#1f5fa8"


def index_radix_figure(
    window_size: Sequence[int] = (3, 4), radices: Sequence[int] | None = None
) -> Figure:
    """Every offset of a window laid out as the table's grid, and its index for a few radices.

    One panel per radix ``R``: the ``(2Wh − 1) × (2Ww − 1)`` grid of offsets (row
    ``Δr + Wh − 1``, column ``Δc + Ww − 1``). The headers give each offset (grey) and its
    shifted digit ``Δr + Wh − 1`` or ``Δc + Ww − 1`` (blue); each cell is labelled with its
    index ``(Δr + Wh − 1)·R + (Δc + Ww − 1)``. Cells whose index another offset also gets are
    red, and the colliding offsets are listed below. ``R = 2Ww − 1`` (Swin) numbers the cells
    ``0, 1, 2, …`` row by row; ``R = 2Ww − 2`` makes the last cell of each row collide with
    the first cell of the next.

    Args:
        window_size: ``(Wh, Ww)`` (keep it small: every cell is labelled).
        radices: the radices to compare (default ``(2Ww − 1, 2Ww − 2)``).

    Returns:
        a Figure with one axes (a canvas in inches); one image per radix, whose data is 1 for
        a cell whose index is shared and 0 otherwise.
    """
    wh, ww = check_pair("window_size", window_size)
    rows, cols = 2 * wh - 1, 2 * ww - 1
    if radices is None:
        radices = (cols, cols - 1)
    radices = tuple(check_values("radices", radices, check_int))
    a = np.arange(rows)[:, None]  # [rows, 1], shifted row offset
    b = np.arange(cols)[None, :]  # [1, cols], shifted column offset
    cell = min(0.5, 2.75 / cols)
    panel_w = cols * cell + 0.75
    top = 1.5
    fig, ax = inch_canvas(max(panel_w * len(radices) + 0.1, 5.2), top + rows * cell + 0.75)
    ax.text(
        0.1,
        0.08,
        f"Headers: offsets Δr, Δc (grey) and their digits Δr + {wh - 1}, "
        f"Δc + {ww - 1} (blue, step 3).\nCells: index = row digit · radix + column digit "
        "(step 4).",
        ha="left",
        va="top",
        fontsize=8.5,
    )
    colours = ListedColormap(["#dfe9f5", "#f4a3a3"])
    for k, radix in enumerate(radices):
        index = a * radix + b  # [rows, cols]
        values, counts = np.unique(index, return_counts=True)
        clash = np.isin(index, values[counts > 1])  # [rows, cols]
        at = (k * panel_w + 0.65, top)
        draw_number_grid(
            ax,
            clash.astype(float),
            cmap=colours,
            vmin=0,
            vmax=1,
            origin=at,
            cell=cell,
            show_numbers=False,
        )
        draw_labels(
            ax,
            [str(v) for v in index.reshape(-1)],
            [
                (at[0] + (c + 0.5) * cell, at[1] + (r + 0.5) * cell)
                for r, c in np.ndindex(rows, cols)
            ],
            fontsize=min(10.0, 0.5 * cell * 72),
            colors=np.where(clash.reshape(-1), "#a00000", "black").tolist(),
        )
        for r in range(rows + 1):
            ax.plot([at[0], at[0] + cols * cell], [at[1] + r * cell] * 2, color="white", lw=1.2)
        for c in range(cols + 1):
            ax.plot([at[0] + c * cell] * 2, [at[1], at[1] + rows * cell], color="white", lw=1.2)
        xs = [at[0] + (c + 0.5) * cell for c in range(cols)]
        ys = [at[1] + (r + 0.5) * cell for r in range(rows)]
        draw_labels(
            ax,
            [signed_label(c - ww + 1) for c in range(cols)]
            + [signed_label(r - wh + 1) for r in range(rows)],
            [(x, at[1] - 0.28) for x in xs] + [(at[0] - 0.42, y) for y in ys],
            fontsize=8,
            colors="0.4",
        )
        draw_labels(
            ax,
            [str(c) for c in range(cols)] + [str(r) for r in range(rows)],
            [(x, at[1] - 0.11) for x in xs] + [(at[0] - 0.16, y) for y in ys],
            fontsize=8,
            colors=_DIGIT_COLOUR,
        )
        name = "Swin" if radix == cols else "too small" if radix < cols else "gaps"
        verdict = f"{len(values)} indices for {rows * cols} offsets"
        ax.text(
            at[0] + cols * cell / 2,
            at[1] - 0.42,
            f"radix {radix} = 2·Ww − {2 * ww - radix} ({name})\n{verdict}",
            ha="center",
            va="bottom",
            fontsize=9,
        )
        shared = [v for v in values[counts > 1]]
        if shared:
            lines = []
            for v in shared[:3]:
                cells = [
                    f"({signed_label(r - wh + 1)}, {signed_label(c - ww + 1)})"
                    for r, c in zip(*np.nonzero(index == v))
                ]
                lines.append(" and ".join(cells) + f" → {v}")
            more = f"  (+{len(shared) - 3} more)" if len(shared) > 3 else ""
            ax.text(
                at[0] + cols * cell / 2,
                at[1] + rows * cell + 0.08,
                "\n".join(lines) + more,
                ha="center",
                va="top",
                fontsize=8.5,
                color="#a00000",
            )
    return fit_column(fig)


def meshgrid_order_figure(window_size: Sequence[int] = (3, 4), *, slide: bool = False) -> Figure:
    """Which cell each coordinate column describes: ``meshgrid`` with ``"ij"`` and with ``"xy"``.

    Both panels show the ``Wh × Ww`` window. Each cell is labelled, in bold, with the number
    ``n`` of the column ``coords[:, n]`` of
    ``coords = stack(meshgrid(arange(Wh), arange(Ww), indexing=…)).flatten(1)`` that holds this
    cell's ``(r, c)``, and, small, with the token that
    really sits there, ``r·Ww + c`` (the order in which
    :func:`posenc.window.window_partition` delivers the tokens). A red line follows ``n = 0, 1,
    2, …``. With ``"ij"`` the two numbers agree; with ``"xy"`` the coordinates come column by
    column, ``n = c·Wh + r``, and the cells where ``coords[:, n]`` is not token ``n``'s cell
    are shaded orange. The page's figure carries a slide layout
    (:func:`book.figures._base.with_slide_version`): larger cells and text, the key to the
    labels beside the panels rather than above them.

    Args:
        window_size: ``(Wh, Ww)``.
        slide: draw the slide layout.

    Returns:
        a Figure with one axes (a canvas in inches); its two images are 1 where the column
        number differs from the token (``"ij"``, then ``"xy"``); the bold labels hold ``n``.
    """
    wh, ww = check_pair("window_size", window_size)
    check_bool("slide", slide)
    if slide:  # the key in a column on the right, the panels as high as a slide allows
        cell = min(0.95, 3.8 / ww, 2.85 / wh)
        panel_w, top, u = ww * cell + 0.45, 0.78, cell / 0.95
        fig, ax = inch_canvas(2 * panel_w + 2.95, wh * cell + top + 0.04)
        ax.text(
            2 * panel_w + 0.05,
            top + wh * cell / 2,
            "bold n:\ncoords[:, n] holds this cell's (r, c).\n\nsmall: the token\nthat sits "
            "in this cell.\n\nred line: n = 0, 1, 2, …",
            ha="left",
            va="center",
            fontsize=_SLIDE_FONT,
        )
        bold_size, token_size, verdict_size = 20.0 * u, _SLIDE_FONT * u, _SLIDE_FONT
    else:
        cell = min(0.7, 2.9 / ww, 2.0 / wh)
        panel_w, top = 3.4, 0.95
        fig, ax = inch_canvas(2 * panel_w, wh * cell + 1.25)
        ax.text(
            panel_w,
            0.08,
            "bold n: coords[:, n] holds this cell's (r, c).   small: the token "
            "that sits in this cell.   red line: n = 0, 1, 2, …",
            ha="center",
            va="top",
            fontsize=8.5,
        )
        bold_size, token_size, verdict_size = 13.0, 7.5, 9.0
    shade = ListedColormap(["#ffffff", "#fdd9b5"])
    for k, indexing in enumerate(("ij", "xy")):
        r_grid, c_grid = torch.meshgrid(torch.arange(wh), torch.arange(ww), indexing=indexing)
        order = np.zeros((wh, ww), dtype=int)
        for t, (r, c) in enumerate(zip(r_grid.flatten().tolist(), c_grid.flatten().tolist())):
            order[r, c] = t
        token = np.arange(wh * ww).reshape(wh, ww)
        other = order != token  # [Wh, Ww]
        at = (k * panel_w + (panel_w - ww * cell) / 2, top)
        draw_number_grid(
            ax,
            other.astype(float),
            cmap=shade,
            vmin=0,
            vmax=1,
            origin=at,
            cell=cell,
            show_numbers=False,
        )
        for rr in range(wh + 1):
            ax.plot([at[0], at[0] + ww * cell], [at[1] + rr * cell] * 2, color="0.55", lw=0.8)
        for cc in range(ww + 1):
            ax.plot([at[0] + cc * cell] * 2, [at[1], at[1] + wh * cell], color="0.55", lw=0.8)
        bold = draw_labels(
            ax,
            [str(v) for v in order.reshape(-1)],
            [(at[0] + (c + 0.5) * cell, at[1] + (r + 0.36) * cell) for r, c in np.ndindex(wh, ww)],
            fontsize=bold_size,
        )
        bold.set_linewidth(0.6 * bold_size / 13)  # a stroke in the label colour: bold glyphs
        bold.set_edgecolor("black")
        draw_labels(
            ax,
            [f"token {t}" for t in token.reshape(-1)],
            [(at[0] + (c + 0.5) * cell, at[1] + (r + 0.78) * cell) for r, c in np.ndindex(wh, ww)],
            fontsize=token_size,
            colors="0.3",
        )
        path = np.argsort(order.reshape(-1))
        ys, xs = np.divmod(path, ww)
        ax.plot(
            at[0] + (xs + 0.5) * cell,
            at[1] + (ys + 0.6) * cell,
            color="#c0392b",
            lw=1.0 * bold_size / 13,
            alpha=0.55,
            marker="o",
            ms=2.5 * bold_size / 13,
        )
        verdict = (
            "coords[:, n] is the cell of token n\nin every cell"
            if not other.any()
            else f"coords[:, n] is another token's cell\nin {int(other.sum())} of "
            f"{wh * ww} cells (orange)"
        )
        ax.text(
            at[0] + ww * cell / 2,
            at[1] - 0.08,
            f'indexing="{indexing}":\n{verdict}',
            ha="center",
            va="bottom",
            fontsize=verdict_size,
        )
    if slide:
        return fig
    return with_slide_version(fit_column(fig), lambda: meshgrid_order_figure((wh, ww), slide=True))


_SLIDE_FONT = 12.5
"""The smallest font size, in points, of :func:`meshgrid_order_figure`'s slide layout: 25 px
on a 1080p projector in a figure about 3.8 inches high, shown 380 CSS px high."""


# ---------------------------------------------------------------------------------------------
# the lookup (the explorer's figure)


def _number_font(cell: float, digits: int) -> float:
    """The label size in points that fits ``digits`` digits into a cell ``cell`` inches wide."""
    return min(10.0, 0.8 * cell * 72 / (0.64 * max(digits, 1)))


def window_bias_figure(
    window_size: Sequence[int] = (3, 4),
    query: str | int | Sequence[int] = "centre",
    convention: str = "swin",
    num_heads: int = 4,
) -> Figure:
    """One query's index row and bias, as ``Wh × Ww`` maps, and the table cells they come from.

    Top row: the index row of the query ``i`` (each key's table row, labelled), then for every
    head the bias that query ``i`` adds to its logits, drawn on the window (black square: the
    query). Bottom row: the table laid out as its ``(2Wh − 1) × (2Ww − 1)`` grid of offsets
    ``(Δr, Δc) = query − key`` (table row ``0`` top left; black square: offset ``(0, 0)``, the
    query's own cell), the row number of each cell and, for every head, its values. The green
    block marks the ``Wh × Ww`` cells that query ``(r, c)`` reads.

    The tables are :func:`example_bias_table` (made for Swin's sign), looked up through
    :class:`posenc.window.SwinRelativePositionBias`. ``convention`` says how they are read:

    * ``"swin"`` (query − key): ``B[k, i, j] = T[I[i, j], k]``. Key ``(r', c')`` reads cell
      ``(r − r' + Wh − 1, c − c' + Ww − 1)``: the block from cell ``(r, c)``, turned by
      180°.
    * ``"shaw"`` (key − query, a table read with the other sign): ``B[k, i, j] = T[I[j, i],
      k]``. Key ``(r', c')`` reads cell ``(r' − r + Wh − 1, c' − c + Ww − 1)``: the block
      from cell ``(Wh − 1 − r, Ww − 1 − c)``, not turned, so every bias is the Swin one
      reflected through the query.

    All panels are drawn on one axes spanning the figure, in inches (``y`` down), without a
    layout engine: an explorer redraw stays well under 100 ms. Every index cell is labelled
    (tables up to 13 × 13, Swin's 7 × 7 window).

    Args:
        window_size: ``(Wh, Ww)``, each at most 7.
        query: the query token (see :func:`window_query_token`).
        convention: ``"swin"`` or ``"shaw"`` (see :data:`CONVENTIONS`).
        num_heads: ``h``, 1 to 4.

    Returns:
        a Figure with one axes; its images are, in order, the index row, the table's row
        numbers, then for every head its bias map and its table.
    """
    wh, ww = check_pair("window_size", window_size)
    if wh > 7 or ww > 7:
        raise ValueError(
            f"window_size must be at most (7, 7) to keep every cell legible, got ({wh}, {ww})"
        )
    if convention not in CONVENTIONS:
        raise ValueError(f"convention must be one of {CONVENTIONS}, got {convention!r}")
    h = check_int("num_heads", num_heads)
    i = window_query_token(query, (wh, ww))
    r, c = divmod(i, ww)
    table = example_bias_table((wh, ww), h)  # [(2Wh-1)(2Ww-1), h]
    module = SwinRelativePositionBias((wh, ww), h)
    module.load_state_dict({"relative_position_bias_table": table.float()})
    with torch.no_grad():
        full = module()  # [h, N, N]: Swin's reading, B[k, i, j] = T[I[i, j], k]
    index = module.relative_position_index  # [N, N]
    if convention == "swin":
        bias, index_row, block = full[:, i], index[i], (r, c)
        row_name = f"I[{i}, :]"
    else:  # the other sign reads the transpose: B[k, i, j] = T[I[j, i], k]
        bias, index_row, block = full[:, :, i], index[:, i], (wh - 1 - r, ww - 1 - c)
        row_name = f"Iᵀ[{i}, :] = I[:, {i}]"
    bias = bias.reshape(h, wh, ww)  # [h, Wh, Ww]
    index_row = index_row.reshape(wh, ww)  # [Wh, Ww]
    rows, cols = 2 * wh - 1, 2 * ww - 1
    size = rows * cols
    digits = len(str(size - 1))

    # the column's width: the index row (left) beside the index table (right), then the heads
    # in a row below, each a bias map above its table; every number at least MIN_FONT_SIZE
    fig_w = MAX_WIDTH
    smallest = MIN_FONT_SIZE * 0.64 * max(digits, 1) / (0.8 * 72)  # cell of an 8 pt number
    cell_t = min(0.42, max(smallest, 3.3 / cols))  # index table
    left_w = fig_w - cols * cell_t - 0.55
    cell_i = max(smallest, min(0.42, (left_w - 0.2) / ww, 2.0 / wh))  # index row
    head_w = (fig_w - 0.2) / max(h, 1)
    cell_b = min(cell_i, (head_w - 0.25) / ww)  # bias maps
    cell_h = min(cell_t, (head_w - 0.25) / cols)  # head tables
    top_y = 0.55
    heads_y = top_y + max(wh * cell_i, rows * cell_t) + 0.7
    tables_y = heads_y + wh * cell_b + 0.5
    legend_y = tables_y + rows * cell_h + 0.2
    fig, ax = inch_canvas(fig_w, legend_y + 0.85)

    marks = Highlights()
    titles: list[str] = []
    title_centres: list[tuple[float, float]] = []

    def title(x_mid: float, y_top: float, text: str, lift: float = 0.06) -> None:
        lines = text.count("\n") + 1
        titles.append(text)  # drawn at the end, all in one collection
        title_centres.append((x_mid, y_top - lift - lines * 1.25 * 9 / 72 / 2))

    # the index: the query's row (left) and the table's row numbers by offset (right)
    x_mid = 0.1 + left_w / 2
    at = (x_mid - ww * cell_i / 2, top_y)
    draw_number_grid(
        ax,
        index_row,
        cmap=_LIGHT_INDEX,
        vmin=0,
        vmax=size - 1,
        fontsize=_number_font(cell_i, digits),
        origin=at,
        cell=cell_i,
    )
    marks.add(r, c, origin=at, cell=cell_i)
    title(x_mid, at[1], f"query ({r}, {c}) = token {i}:\ntable row of each key,\n{row_name}")
    at = (fig_w - 0.1 - cols * cell_t, top_y)
    x_mid = at[0] + cols * cell_t / 2
    draw_number_grid(
        ax,
        torch.arange(size).reshape(rows, cols),
        cmap=_LIGHT_INDEX,
        vmin=0,
        vmax=size - 1,
        fontsize=_number_font(cell_t, digits),
        origin=at,
        cell=cell_t,
    )
    tick = MIN_FONT_SIZE
    draw_labels(
        ax,
        [signed_label(v - ww + 1) for v in range(cols)]
        + [signed_label(v - wh + 1) for v in range(rows)],
        [(at[0] + (v + 0.5) * cell_t, at[1] - 0.09) for v in range(cols)]
        + [(at[0] - 0.16, at[1] + (v + 0.5) * cell_t) for v in range(rows)],
        fontsize=tick,
        colors="0.4",
    )
    marks.add(*block, wh, ww, origin=at, cell=cell_t, color=_READS, lw=2.4)
    marks.add(wh - 1, ww - 1, origin=at, cell=cell_t)
    title(x_mid, at[1], "table row of each offset, query − key\n(Δr down, Δc across)", lift=0.2)
    # the heads: bias on the window (top) and the table by offset (bottom)
    for k in range(h):
        x_mid = 0.1 + (k + 0.5) * head_w
        at = (x_mid - ww * cell_b / 2, heads_y)
        draw_number_grid(
            ax,
            bias[k],
            cmap=DIVERGING,
            vmin=-_BIAS_LIMIT,
            vmax=_BIAS_LIMIT,
            show_numbers=False,
            origin=at,
            cell=cell_b,
        )
        marks.add(r, c, origin=at, cell=cell_b)
        title(x_mid, heads_y, f"head {k}: B[{k}, {i}, :]\n({_HEAD_NAMES[k]})")
        at = (x_mid - cols * cell_h / 2, tables_y)
        draw_number_grid(
            ax,
            table[:, k].reshape(rows, cols),
            cmap=DIVERGING,
            vmin=-_BIAS_LIMIT,
            vmax=_BIAS_LIMIT,
            show_numbers=False,
            origin=at,
            cell=cell_h,
        )
        marks.add(*block, wh, ww, origin=at, cell=cell_h, color=_READS, lw=2.4)
        marks.add(wh - 1, ww - 1, origin=at, cell=cell_h, lw=1.6)
        title(x_mid, tables_y, f"head {k}: table T[:, {k}]", lift=0.06)
    turned = "query − key: turned by 180°" if convention == "swin" else "key − query: not turned"
    titles.append(
        "Black: the query (index row, bias maps) and offset (0, 0), its own cell (tables)."
    )
    titles.append(
        f"Green: the {wh}×{ww} block of each table that query ({r}, {c}) reads\n({turned})."
    )
    titles.append(
        "Colours: bias from −1 (blue) through 0 (white) to +1 (red);\n"
        f"grey: table row 0 (light) to {size - 1}."
    )
    title_centres += [
        (fig_w / 2, legend_y + 0.08),
        (fig_w / 2, legend_y + 0.36),
        (fig_w / 2, legend_y + 0.7),
    ]
    marks.draw(ax)
    draw_labels(
        ax,
        titles,
        title_centres,
        fontsize=9,
        colors=["black"] * (len(titles) - 2) + ["#006b28", "0.35"],
    )
    return fit_column(fig)


# ---------------------------------------------------------------------------------------------
# shifted windows


def shifted_window_figure(
    height: int = 8,
    width: int = 8,
    window_size: Sequence[int] = (4, 4),
    shift: Sequence[int] = (2, 2),
) -> Figure:
    """Swin's shifted windows: the partition, the cyclic shift, and the mask of one window.

    Left: the ``height × width`` map with the shifted partition (window borders moved by
    ``shift``, partial windows at the edges), tokens coloured by the window they belong to.
    Middle: the map rolled by ``−shift`` and cut into regular windows, as Swin computes it; a
    border window now holds tokens of several colours. Right:
    :func:`posenc.window.shifted_window_mask` for the bottom-right window (outlined in bold
    black): which of its tokens may attend to which; the stripes give each token's colour.
    Only tokens of one colour see each other.

    Args:
        height, width: the feature map (multiples of the window).
        window_size: ``(Wh, Ww)``.
        shift: ``(sh, sw)``, each smaller than the window.

    Returns:
        a Figure with one axes (a canvas in inches); its images are the partition, the rolled
        map (both: window label per token) and the mask.
    """
    wh, ww = check_pair("window_size", window_size)
    height, width = check_int("height", height), check_int("width", width)
    sh, sw = check_pair("shift", shift, minimum=0)
    mask = shifted_window_mask(height, width, (wh, ww), (sh, sw))  # [n_w, N, N]
    y = torch.arange(height)[:, None]
    x = torch.arange(width)[None, :]
    # the shifted partition's windows start at (sh, sw) + multiples of the window, with partial
    # windows at the borders: rolling by −shift makes each of them one regular window
    n_bands = (width + 2 * ww - sw - 1) // ww  # windows per row of the shifted partition
    label = ((y + wh - sh) // wh) * n_bands + (x + ww - sw) // ww  # [H, W]: window of each token
    rolled = torch.roll(label, shifts=(-sh, -sw), dims=(0, 1))  # [H, W]
    n_windows = int(label.max()) + 1
    if n_windows <= 9:  # tab10 without its grey
        colours = np.delete(colormaps["tab10"](np.arange(10)), 7, axis=0)[:n_windows]
    else:  # tab20, repeated beyond 20 windows
        colours = colormaps["tab20"](np.arange(n_windows) % 20)
    palette = ListedColormap(colours)  # one colour per window label
    fig, ax = inch_canvas(7.6, 3.25)
    cell = min(2.1 / height, 2.1 / width)
    places = [(0.1, 0.75), (2.5, 0.75)]
    for at, m in zip(places, (label, rolled)):
        draw_number_grid(
            ax,
            m,
            cmap=palette,
            vmin=-0.5,
            vmax=n_windows - 0.5,
            show_numbers=False,
            origin=at,
            cell=cell,
        )
        for k in range(1, height):
            ax.plot([at[0], at[0] + width * cell], [at[1] + k * cell] * 2, color="white", lw=0.5)
        for k in range(1, width):
            ax.plot([at[0] + k * cell] * 2, [at[1], at[1] + height * cell], color="white", lw=0.5)
    draw_window_borders(ax, height, width, (wh, ww), offset=(sh, sw), origin=places[0], cell=cell)
    draw_window_borders(ax, height, width, (wh, ww), origin=places[1], cell=cell)
    for color, lw, zorder in (("white", 7.0, 5), ("black", 4.0, 6)):  # a black line on a halo
        outline_cells(
            ax,
            height - wh,
            width - ww,
            wh,
            ww,
            origin=places[1],
            cell=cell,
            color=color,
            lw=lw,
            zorder=zorder,
        )
    ax.text(
        places[0][0] + width * cell / 2,
        places[0][1] - 0.08,
        f"shifted partition:\nborders moved by ({sh}, {sw})",
        ha="center",
        va="bottom",
        fontsize=9,
    )
    ax.text(
        places[1][0] + width * cell / 2,
        places[1][1] - 0.08,
        f"rolled by (−{sh}, −{sw}), cut into\nregular windows",
        ha="center",
        va="bottom",
        fontsize=9,
    )
    n = wh * ww
    small = 2.45 / (n + 1)
    at = (4.95 + small, 0.75)
    draw_number_grid(
        ax,
        mask[-1].to(torch.float64),
        cmap=ListedColormap(["#3b3b3b", "#f5f5f5"]),
        vmin=0,
        vmax=1,
        show_numbers=False,
        origin=at,
        cell=small,
    )
    for k in range(1, n):  # one cell per token pair
        ax.plot([at[0], at[0] + n * small], [at[1] + k * small] * 2, color="0.6", lw=0.3)
        ax.plot([at[0] + k * small] * 2, [at[1], at[1] + n * small], color="0.6", lw=0.3)
    colours = palette(rolled[height - wh :, width - ww :].reshape(-1).numpy())  # [N, 4]
    for t in range(n):  # colour stripes: each token's colour in the middle panel
        ax.add_patch(
            Rectangle(
                (at[0] + t * small, at[1] - 0.9 * small), small, 0.8 * small, color=colours[t]
            )
        )
        ax.add_patch(
            Rectangle(
                (at[0] - 0.9 * small, at[1] + t * small), 0.8 * small, small, color=colours[t]
            )
        )
    ax.text(
        at[0] + n * small / 2,
        at[1] - small - 0.05,
        "mask of the window in the bold\nblack frame (light: may attend)",
        ha="center",
        va="bottom",
        fontsize=9,
    )
    return fit_column(fig)
