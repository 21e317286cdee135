"""Figures for 2-D absolute encodings (chapter 5): layouts, DETR sine, similarity, resampling.

Every function returns a new ``Figure`` (no pyplot). The computations they draw live in
:mod:`posenc.absolute_2d` (the encodings and the resize) and :mod:`book.demos.absolute_2d`
(:func:`~book.demos.absolute_2d.position_similarity_map`,
:func:`~book.demos.absolute_2d.stretched_sincos_encoding_2d`).
"""

from __future__ import annotations

import numpy as np
import torch
from matplotlib.axes import Axes
from matplotlib.colors import Colormap
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import ConnectionPatch, ConnectionStyle, Rectangle
from matplotlib.transforms import ScaledTranslation
from torch import Tensor

from book._checks import check_values
from book.demos.absolute_2d import (
    position_similarity_map,
    resampling_error_map,
    resampling_error_per_pair,
    sincos_resampling_error,
    stretched_sincos_encoding_2d,
)
from book.figures._base import (
    CSS_DPI,
    DIVERGING,
    SEQUENTIAL,
    SLIDE_BOX,
    fit_column,
    grey_undefined,
    new_figure,
    table_image,
    to_numpy,
    with_slide_version,
)
from posenc._checks import check_bool, check_int, check_multiple, check_pair
from posenc.absolute_2d import (
    detr_sine_encoding,
    sinusoidal_2d_channel_permutation,
    sinusoidal_encoding_2d,
)
from posenc.sinusoidal import sinusoidal_encoding, sinusoidal_frequencies

__all__ = [
    "absolute_2d_explorer_figure",
    "detr_normalize_figure",
    "detr_sine_heatmap_figure",
    "layout_comparison_figure",
    "resampling_figure",
    "similarity_maps_figure",
    "sincos_2d_channels_figure",
]

_ROW_COLOUR = "C0"  # channels that encode the row (y)
_COL_COLOUR = "C1"  # channels that encode the column (x)
_SLIDE_FONT = 12.5
"""The smallest text of a slide layout, in points: a layout that fills the deck's box at 1×
needs 11.9 (``SLIDE_TEXT_PX``, 24.75 px on a 1080p projector); 12.5 leaves room (26 px)."""


def _slide_fit(fig: Figure) -> Figure:
    """A slide layout made legible: every text at least :data:`_SLIDE_FONT` points, the figure
    at most the deck's box wide (:data:`~book.figures._base.SLIDE_BOX`, shrunk whole if wider)."""
    return fit_column(fig, max_width=SLIDE_BOX[0] / CSS_DPI, min_size=_SLIDE_FONT)


# ---------------------------------------------------------------------------------------------
# drawing helpers


def _cell(name: str, value: object) -> tuple[int, int]:
    return check_pair(name, value, minimum=0)


def _image(
    ax: Axes,
    m: Tensor | np.ndarray,
    *,
    vmin: float = -1.0,
    vmax: float = 1.0,
    cmap: str | Colormap = DIVERGING,
) -> object:
    """Draw a small grid image, cell (0, 0) top left, no ticks."""
    image = ax.imshow(to_numpy(m), cmap=cmap, vmin=vmin, vmax=vmax, interpolation="nearest")
    ax.set_xticks([])
    ax.set_yticks([])
    return image


def _channel_labels(dim: int, *, interleaved: bool, row_first: bool) -> tuple[list[str], list[str]]:
    """Tick label (``s3``: sine of pair 3) and colour (row or column axis) of every channel."""
    half, pairs = dim // 2, dim // 4
    within = (
        [f"{f}{i}" for i in range(pairs) for f in "sc"]
        if interleaved
        else [f"s{i}" for i in range(pairs)] + [f"c{i}" for i in range(pairs)]
    )
    first, second = (_ROW_COLOUR, _COL_COLOUR) if row_first else (_COL_COLOUR, _ROW_COLOUR)
    return within + within, [first] * half + [second] * half


def _table_panel(
    ax: Axes, table: Tensor, dim: int, width: int, *, interleaved: bool, row_first: bool, title: str
) -> object:
    """An ``[n, d]`` table with channel ticks coloured by the axis they encode."""
    image = table_image(ax, table)
    labels, colours = _channel_labels(dim, interleaved=interleaved, row_first=row_first)
    ax.set_xticks(range(dim), labels, fontsize=7)
    ax.tick_params(axis="x", top=True, labeltop=True, bottom=False, labelbottom=False)
    for tick, colour in zip(ax.xaxis.get_major_ticks(), colours):
        tick.label2.set_color(colour)
    ax.axvline(dim / 2 - 0.5, color="k", lw=1.2)
    names = ("row r", "column c") if row_first else ("column c", "row r")
    for x, name, colour in zip((dim / 4 - 0.5, 3 * dim / 4 - 0.5), names, colours[:: dim // 2]):
        ax.text(
            x,
            -0.02,
            f"encodes the {name}",
            transform=ax.get_xaxis_transform(),
            ha="center",
            va="top",
            fontsize=9,
            color=colour,
            fontweight="bold",
        )
    ax.set_yticks(range(0, table.shape[0], width))
    ax.set_ylabel("position r·W + c")
    ax.set_title(title, fontsize=10)
    return image


def _mark_padding(ax: Axes, valid_h: int, valid_w: int, height: int, width: int) -> None:
    """Outline the valid top-left ``valid_h × valid_w`` region of an ``height × width`` map."""
    if valid_h < height or valid_w < width:
        ax.add_patch(Rectangle((-0.5, -0.5), valid_w, valid_h, fill=False, ec="k", lw=1.5))


# ---------------------------------------------------------------------------------------------
# figures


def sincos_2d_channels_figure(
    height: int = 14,
    width: int = 14,
    dim: int = 64,
    *,
    pairs: tuple[int, ...] = (0, 2, 4),
    base: float = 10000.0,
    slide: bool = False,
) -> Figure:
    """Channels of the 2-D sin/cos encoding drawn as ``height × width`` images.

    Top row: the sine of pair ``i`` of the row half (horizontal stripes: it depends on ``r``
    only); bottom row: the same pair of the column half (vertical stripes). The page's figure
    carries a slide layout (:func:`book.figures._base.with_slide_version`): the same grid in
    larger type, the panels spaced so that their titles keep apart.

    Args:
        height: rows of the grid.
        width: columns of the grid.
        dim: ``d``, channels (a multiple of 4).
        pairs: which sin/cos pairs of each half to show.
        base: frequency base.
        slide: draw the slide layout.

    Returns:
        a Figure with ``2·len(pairs)`` image axes and one colourbar axis.
    """
    height, width = check_int("height", height), check_int("width", width)
    slide = check_bool("slide", slide)
    dim = check_multiple("dim", dim, 4, "half the channels per axis, each half in sin/cos pairs")
    pairs = check_values("pairs", pairs, lambda name, i: check_int(name, i, minimum=0))
    if max(pairs) >= dim // 4:
        raise ValueError(f"pairs must be below d/4 = {dim // 4} (pairs per half), got {pairs}")
    table = sinusoidal_encoding_2d(height, width, dim, base=base)  # [n, d]
    grid = table.reshape(height, width, dim)  # [h, w, d]
    omega = sinusoidal_frequencies(dim // 2, base=base)  # [d/4]
    if slide:
        fig = new_figure(2.0 * len(pairs) + 1.3, 3.75)
    else:
        fig = new_figure(1.9 * len(pairs) + 0.8, 4.0)
    axes = fig.subplots(2, len(pairs), squeeze=False)
    image = None
    for j, i in enumerate(pairs):
        for k, (offset, axis, colour) in enumerate(
            ((0, "row", _ROW_COLOUR), (dim // 2, "column", _COL_COLOUR))
        ):
            ax = axes[k, j]
            image = _image(ax, grid[:, :, offset + 2 * i])
            ax.set_title(
                f"ch {offset + 2 * i}: sin({'r' if k == 0 else 'c'}·{omega[i]:.3g})",
                fontsize=9,
                color=colour,
            )
        axes[1, j].set_xlabel("column c", fontsize=8)
    axes[0, 0].set_ylabel("row r\n(row half)", fontsize=9)
    axes[1, 0].set_ylabel("row r\n(column half)", fontsize=9)
    title = f"2-D sin/cos, {height}×{width} grid, d = {dim}: each channel sees one axis"
    if slide:
        fig.colorbar(image, ax=axes, shrink=0.8, ticks=[-1, -0.5, 0, 0.5, 1])
        fig.suptitle(title, fontsize=_SLIDE_FONT + 1)
        return _slide_fit(fig)
    fig.colorbar(image, ax=axes, shrink=0.8)
    fig.suptitle(title, fontsize=10)
    return with_slide_version(
        fit_column(fig),
        lambda: sincos_2d_channels_figure(height, width, dim, pairs=pairs, base=base, slide=True),
    )


def layout_comparison_figure(
    height: int = 4,
    width: int = 4,
    dim: int = 16,
    *,
    wired: tuple[int, ...] | None = None,
    slide: bool = False,
) -> Figure:
    """The seed layout and MAE's layout of the same 2-D sin/cos table, and a few wires between.

    Top: seed 000 (row half first, sin/cos interleaved). Bottom: MAE's
    ``get_2d_sincos_pos_embed`` (column half first, sines then cosines). Each drawn line joins
    MAE channel ``j`` (for ``j`` in ``wired``) to seed channel ``π(j)``
    (:func:`~posenc.absolute_2d.sinusoidal_2d_channel_permutation`) and is labelled
    ``j ← π(j)``; every channel is such a straight copy, so the two tables hold the same
    numbers. Tick labels ``s3``/``c3`` are the sine/cosine of pair 3; blue ticks encode the
    row, orange the column. The page's figure carries a slide layout
    (:func:`book.figures._base.with_slide_version`): the two tables side by side (seed left,
    MAE right, sharing the position axis), each wire an arch above them from seed channel
    ``π(j)`` to MAE channel ``j`` (taller arches span more), their legend below.

    Args:
        height: rows of the grid.
        width: columns of the grid.
        dim: ``d``, channels (a multiple of 4; keep it small enough to read the ticks).
        wired: the MAE channels whose wire is drawn; default ``(0, d/4, d/2)``: the column's
            first sine and cosine and the row's first sine.
        slide: draw the slide layout.

    Returns:
        a Figure with three axes (seed table, wiring, MAE table) and a colourbar; the slide
        layout: two axes (seed table, MAE table), a colourbar, and one
        :class:`~matplotlib.patches.ConnectionPatch` per wire (``fig.artists``).
    """
    dim = check_multiple("dim", dim, 4, "half the channels per axis, each half in sin/cos pairs")
    height, width = check_int("height", height), check_int("width", width)
    slide = check_bool("slide", slide)
    if wired is None:
        wired = (0, dim // 4, dim // 2)
    wired = check_values("wired", wired, lambda name, c: check_int(name, c, minimum=0))
    if max(wired) >= dim:
        raise ValueError(f"wired must hold channels below d = {dim}, got {wired}")
    seed = sinusoidal_encoding_2d(height, width, dim)  # [n, d]
    mae = sinusoidal_encoding_2d(height, width, dim, interleaved=False, row_first=False)  # [n, d]
    perm = sinusoidal_2d_channel_permutation(dim)  # [d]
    if slide:
        return _layout_slide(seed, mae, perm, dim, width, wired)
    fig = new_figure(6.8, 6.6)
    top, wires, bottom = fig.subplots(3, 1, height_ratios=[1, 0.55, 1])
    image = _table_panel(
        top,
        seed,
        dim,
        width,
        interleaved=True,
        row_first=True,
        title="seed 000: [PE(r) | PE(c)], sin/cos interleaved",
    )
    _table_panel(
        bottom,
        mae,
        dim,
        width,
        interleaved=False,
        row_first=False,
        title="MAE: [emb_h | emb_w] = [PE(c) | PE(r)], sines then cosines",
    )
    styles = ("-", "--", ":", "-.")  # the wires differ by line style, not by colour alone
    for k, j in enumerate(wired):
        src = int(perm[j])
        colour = _ROW_COLOUR if src < dim // 2 else _COL_COLOUR
        wires.plot(
            [src, j],
            [1, 0],
            color=colour,
            lw=2,
            ls=styles[k % len(styles)],
            label=f"MAE {j} ← seed {src}",
        )
    # the labels go in a legend on the side the wires leave freer, so that no text sits on a wire
    ends = [c for j in wired for c in (j, int(perm[j]))]
    right_free = dim - 1 - max(ends) >= min(ends)
    wires.legend(
        loc="center right" if right_free else "center left",
        fontsize=8,
        ncol=1 if len(wired) <= 3 else 2,
        handlelength=3,
        frameon=False,
    )
    wires.set_xlim(-0.5, dim - 0.5)
    wires.set_ylim(-0.05, 1.05)
    wires.axis("off")
    fig.colorbar(image, ax=[top, wires, bottom], shrink=0.5, label="value")
    return with_slide_version(
        fit_column(fig),
        lambda: layout_comparison_figure(height, width, dim, wired=wired, slide=True),
    )


def _layout_slide(
    seed: Tensor, mae: Tensor, perm: Tensor, dim: int, width: int, wired: tuple[int, ...]
) -> Figure:
    """The slide layout of :func:`layout_comparison_figure`: tables side by side, wires arched."""
    fig = new_figure(11.6, 3.75)
    left, right = fig.subplots(1, 2, sharey=True)
    # points: the top tick labels' top above the axes (tick, pad, text), then the lowest
    # arch's height above that and the step between arches (closer when there are many)
    ticks, low, step = 22.0, 8.0, min(10.0, 30.0 / max(1, len(wired) - 1))
    tops = [low + step * k for k in range(len(wired))]
    titles = (
        "seed 000: [PE(r) | PE(c)], sin/cos interleaved",
        "MAE: [emb_h | emb_w] = [PE(c) | PE(r)], sines then cosines",
    )
    for ax, table, interleaved, row_first, title in (
        (left, seed, True, True, titles[0]),
        (right, mae, False, False, titles[1]),
    ):
        image = _table_panel(
            ax, table, dim, width, interleaved=interleaved, row_first=row_first, title=title
        )
        ax.set_title(title, fontsize=_SLIDE_FONT, pad=tops[-1] + 14.0)
    right.set_ylabel("")
    right.tick_params(axis="y", labelleft=False)
    fig.colorbar(image, ax=[left, right], shrink=0.8, label="value", ticks=[-1, -0.5, 0, 0.5, 1])
    lift = ScaledTranslation(0, ticks / 72, fig.dpi_scale_trans)
    styles = ("-", "--", ":", "-.")
    spans = [abs(dim - int(perm[j]) + j) for j in wired]  # seed's π(j) to MAE's j, in channels
    order = sorted(range(len(wired)), key=lambda k: spans[k])  # wider spans arch higher
    handles = []
    for k, j in enumerate(wired):
        src = int(perm[j])
        colour = _ROW_COLOUR if src < dim // 2 else _COL_COLOUR
        style = {"color": colour, "lw": 2, "ls": styles[k % len(styles)]}
        top = tops[order.index(k)]
        fig.add_artist(
            ConnectionPatch(
                (src, 1.0),
                (j, 1.0),
                coordsA=left.get_xaxis_transform() + lift,
                coordsB=right.get_xaxis_transform() + lift,
                connectionstyle=ConnectionStyle.Arc(
                    angleA=90, angleB=90, armA=top, armB=top, rad=4
                ),
                capstyle="butt",
                **style,
            )
        )
        handles.append(Line2D([], [], **style, label=f"MAE {j} ← seed {src}"))
    fig.legend(
        handles=handles,
        loc="outside lower center",
        ncol=min(len(handles), 4),
        handlelength=3,
        frameon=False,
    )
    return _slide_fit(fig)


def detr_sine_heatmap_figure(
    height: int = 20,
    width: int = 20,
    num_pos_feats: int = 64,
    base: float = 10.0,
    *,
    positions: int | None = 60,
) -> Figure:
    """DETR's sine encoding of an unpadded map as one image: channels down, positions across.

    The ``[2F, H, W]`` output is flattened to ``[2F, H·W]`` (row-major), as seed 002 draws it,
    and the first ``positions`` columns are shown (three image rows by default, so that the
    structure can be seen; ``None`` shows all ``H·W``). The first ``F`` channels encode ``y``
    (constant along each run of ``W`` positions), the last ``F`` encode ``x`` (repeating every
    ``W`` positions); dashed lines mark the starts of image rows.

    Args:
        height: ``H``, rows of the feature map.
        width: ``W``, columns.
        num_pos_feats: ``F``, channels per axis.
        base: ``T``, frequency base.
        positions: how many flattened positions to show (``≤ H·W``), or ``None`` for all.

    Returns:
        a Figure with one image axis (data ``[2F, positions]``) and its colourbar.
    """
    height, width = check_int("height", height), check_int("width", width)
    shown = height * width if positions is None else check_int("positions", positions)
    if shown > height * width:
        raise ValueError(f"positions must be at most H*W = {height * width}, got {shown}")
    mask = torch.zeros(1, height, width, dtype=torch.bool)  # [1, H, W]
    pos = detr_sine_encoding(mask, num_pos_feats, base)[0]  # [2F, H, W]
    flat = pos.reshape(2 * num_pos_feats, height * width)[:, :shown]  # [2F, shown]
    fig = new_figure(7.4, 3.8)
    ax = fig.add_subplot()
    image = table_image(ax, flat)
    fig.colorbar(image, ax=ax, shrink=0.85, pad=0.06)
    ax.axhline(num_pos_feats - 0.5, color="k", lw=1.2)
    for start in range(width, shown, width):
        ax.axvline(start - 0.5, color="k", lw=1, ls="--")
    for y, text, colour in (
        (num_pos_feats / 2, "y channels", _ROW_COLOUR),
        (1.5 * num_pos_feats, "x channels", _COL_COLOUR),
    ):
        ax.text(
            1.01,
            y,
            text,
            color=colour,
            fontsize=9,
            va="center",
            ha="left",
            rotation=90,
            transform=ax.get_yaxis_transform(),
        )
    ax.set_xticks(range(0, shown + 1, width) if shown > width else [0, shown - 1])
    ax.set_xlabel(
        f"position r·{width} + c (flattened {height}×{width} map"
        + (
            f", first {shown} positions = {shown // width} image rows)"
            if shown < height * width
            else ")"
        )
    )
    ax.set_ylabel("channel")
    ax.set_title(
        f"DETR sine encoding, F = {num_pos_feats}, T = {base:g}: {2 * num_pos_feats} channels",
        fontsize=10,
    )
    return fit_column(fig)


def detr_normalize_figure(
    size: int = 24,
    valid: tuple[int, int] = (12, 16),
    num_pos_feats: int = 16,
    base: float = 10000.0,
    *,
    slide: bool = False,
) -> Figure:
    """A full image and a padded one, DETR sine encoded with and without ``normalize``.

    Panels show channel ``F`` (``sin x`` at the fastest frequency) and channel ``0``
    (``sin y``) summed, so that both axes are visible in one picture, for a batch of two
    ``size × size`` maps: the first all valid, the second valid only in its top-left
    ``valid`` rectangle (outlined; the rest is padding, drawn grey). Without ``normalize`` the
    stripes have the same spacing in both images (positions count pixels); with it, each image's
    valid extent spans one full period (positions are fractions of the valid size). The
    page's figure carries a slide layout (:func:`book.figures._base.with_slide_version`): the
    four panels in a row, the two without ``normalize`` first, a gap between the pairs.

    Args:
        size: side of the padded batch canvas.
        valid: ``(height, width)`` of the second image's valid region.
        num_pos_feats: ``F``, channels per axis.
        base: ``T``.
        slide: draw the slide layout.

    Returns:
        a Figure with four image axes (rows: normalize off/on; columns: full, padded; on the
        slide in that order in a row) and a colourbar.
    """
    size = check_int("size", size)
    vh, vw = check_pair("valid", valid)
    slide = check_bool("slide", slide)
    if vh > size or vw > size:
        raise ValueError(f"valid must fit in the {size}×{size} canvas, got ({vh}, {vw})")
    mask = torch.zeros(2, size, size, dtype=torch.bool)  # [2, S, S]
    mask[1] = True
    mask[1, :vh, :vw] = False
    if slide:
        fig = new_figure(11.8, 3.2)
        grid = fig.add_gridspec(1, 5, width_ratios=[1, 1, 0.1, 1, 1])
        axes = np.array([[fig.add_subplot(grid[0, c]) for c in cols] for cols in ((0, 1), (3, 4))])
    else:
        fig = new_figure(6.2, 5.6)
        axes = fig.subplots(2, 2)
    image = None
    for k, normalize in enumerate((False, True)):
        pos = detr_sine_encoding(mask, num_pos_feats, base, normalize=normalize)
        shown = (pos[:, 0] + pos[:, num_pos_feats]) / 2  # [2, S, S]
        for b in range(2):
            m = to_numpy(shown[b])
            m[to_numpy(mask[b]) > 0] = np.nan
            ax = axes[k, b]
            image = _image(ax, m, cmap=grey_undefined(DIVERGING))  # padding (nan) grey
            _mark_padding(ax, vh if b else size, vw if b else size, size, size)
            which = "full image" if b == 0 else f"{vh}×{vw} image padded to {size}×{size}"
            ax.set_title(f"{which}\nnormalize={normalize}", fontsize=9)
    label = "(sin y + sin x) / 2, fastest pair"
    if slide:
        fig.colorbar(
            image, ax=axes.ravel().tolist(), label=label.replace(", ", ",\n"), ticks=[-1, 0, 1]
        )
        return _slide_fit(fig)
    fig.colorbar(image, ax=axes, shrink=0.8, label=label)
    options = {"num_pos_feats": num_pos_feats, "base": base}
    return with_slide_version(
        fit_column(fig), lambda: detr_normalize_figure(size, (vh, vw), **options, slide=True)
    )


def similarity_maps_figure(
    height: int = 14,
    width: int = 14,
    dim: int = 256,
    positions: tuple[tuple[int, int], ...] = ((0, 0), (4, 9), (7, 7)),
    *,
    base: float = 10000.0,
    slide: bool = False,
) -> Figure:
    """Cosine similarity of a few positions to all others: 2-D sin/cos vs 1-D in raster order.

    Top row: the 2-D encoding (half the channels per axis); the map is the mean of a row term
    and a column term, hence the "plus" shape. Bottom row: a 1-D encoding of the flattened
    index ``r·W + c`` with the same ``d``: near in raster order is not near in the image (only
    the cells of the same row stand out; those just above and below are ``W`` steps away).
    The page's figure carries a slide layout (:func:`book.figures._base.with_slide_version`):
    the same grid, each encoding named once at the left of its row and each position once
    above its column, in larger type.

    Args:
        height: rows of the grid.
        width: columns.
        dim: ``d`` of both encodings.
        positions: the reference ``(row, col)`` positions, one column of panels each.
        base: frequency base.
        slide: draw the slide layout.

    Returns:
        a Figure with ``2·len(positions)`` image axes (top: 2-D, bottom: 1-D) and a colourbar.
    """
    height, width = check_int("height", height), check_int("width", width)
    slide = check_bool("slide", slide)
    positions = check_values("positions", positions, _cell)
    for r, c in positions:
        if r >= height or c >= width:
            raise ValueError(f"positions must lie on the {height}×{width} grid, got ({r}, {c})")
    tables = (
        sinusoidal_encoding_2d(height, width, dim, base=base),
        sinusoidal_encoding(height * width, dim, base=base),
    )
    names = ("2-D sin/cos", "1-D sin/cos of r·W+c")
    maps = [[position_similarity_map(t, height, width, r, c) for r, c in positions] for t in tables]
    low = float(min(m.min() for row in maps for m in row))
    if slide:
        fig = new_figure(1.6 * len(positions) + 1.6, 3.75)
    else:
        fig = new_figure(2.0 * len(positions) + 1.0, 4.4)
    axes = fig.subplots(2, len(positions), squeeze=False)
    image = None
    for k, row in enumerate(maps):
        for j, m in enumerate(row):
            ax = axes[k, j]
            image = _image(ax, m, vmin=low, vmax=1.0, cmap=SEQUENTIAL)
            r, c = positions[j]
            ax.plot(c, r, marker="+", color="w", ms=10 if slide else 8, mew=1.5)
            if not slide:
                ax.set_title(f"{names[k]}\nfrom ({r}, {c})", fontsize=8)
            elif k == 0:
                ax.set_title(f"from ({r}, {c})")
        if slide:  # each encoding named once, beside its row
            axes[k, 0].set_ylabel(names[k].replace(" of ", "\nof "))
    fig.colorbar(image, ax=axes, shrink=0.8, label="cosine similarity")
    title = f"Which positions look alike? {height}×{width} grid, d = {dim}"
    if slide:
        fig.suptitle(title, fontsize=_SLIDE_FONT + 1)
        return _slide_fit(fig)
    fig.suptitle(title, fontsize=10)
    options = {"positions": positions, "base": base}
    return with_slide_version(
        fit_column(fig),
        lambda: similarity_maps_figure(height, width, dim, **options, slide=True),
    )


def resampling_figure(
    old_size: int = 14,
    new_size: int = 16,
    dim: int = 64,
    *,
    channel: int = 4,
    base: float = 10000.0,
    slide: bool = False,
) -> Figure:
    """What bicubic resampling does to a 2-D sin/cos table, against the exact stretched table.

    Top row: one row channel before (``h × h``), after bicubic resampling (``h' × h'``), the
    exact table on the stretched grid
    (:func:`~book.demos.absolute_2d.stretched_sincos_encoding_2d`), all on one colour scale, and
    the error on its own scale.
    Bottom left: RMS error of each sin/cos pair against its frequency for MAE's bicubic
    (Keys ``a = −0.75``), ``antialias=True`` (PIL's ``a = −0.5``, timm's default) and
    bilinear. Bottom right: where the error of the slow channels (``ω < 0.1``) sits on the
    grid, for both bicubics. The page's figure carries a slide layout
    (:func:`book.figures._base.with_slide_version`): the images in two rows on the left (the
    channel's four above, the two maps of the slow channels below), the error against
    frequency on the right.

    Args:
        old_size: ``h``, side of the trained grid.
        new_size: ``h'``, side of the fine-tuning grid.
        dim: ``d``, channels (a multiple of 4).
        channel: the row-half channel shown in the top row (``< d/2``).
        base: frequency base.
        slide: draw the slide layout.

    Returns:
        a Figure: four image axes (top), one line axis with three lines and two image axes
        (bottom), and colourbars (on the slide, each in axes of its own, and the rows of
        images headed by figure texts).
    """
    dim = check_multiple("dim", dim, 4, "half the channels per axis, each half in sin/cos pairs")
    channel = check_int("channel", channel, minimum=0)
    slide = check_bool("slide", slide)
    if channel >= dim // 2:
        raise ValueError(
            f"channel must be a row-half channel, below d/2 = {dim // 2}, got {channel}"
        )
    old_size, new_size = check_int("old_size", old_size), check_int("new_size", new_size)
    table = sinusoidal_encoding_2d(old_size, old_size, dim, base=base)  # [h*h, d]
    exact = stretched_sincos_encoding_2d(old_size, new_size, dim, base=base).double()  # [n', d]
    filters = {
        "bicubic a=−0.75 (MAE, antialias=False)": {"mode": "bicubic"},
        "bicubic a=−0.5 (timm, antialias=True)": {"mode": "bicubic", "antialias": True},
        "bilinear": {"mode": "bilinear"},
    }
    errors = {
        name: sincos_resampling_error(old_size, new_size, dim, base=base, **kw)
        for name, kw in filters.items()
    }  # each [n', d]
    mae_error = next(iter(errors.values()))
    k = channel
    omega = sinusoidal_frequencies(dim // 2, base=base)
    heading = f"channel {k} (row half, ω = {omega[k // 2]:.3g})"
    if slide:
        fig, axes, bars, (line_ax, map_a, map_b) = _resampling_slide_axes(heading)
        top = bottom = fig
    else:
        fig = new_figure(7.6, 6.2)
        top, bottom = fig.subfigures(2, 1, height_ratios=[1, 1.25])
        axes = top.subplots(1, 4)
    shown = [
        (table[:, k].reshape(old_size, old_size), f"before: {old_size}×{old_size}"),
        (
            exact[:, k].reshape(new_size, new_size) + mae_error[:, k].reshape(new_size, new_size),
            f"bicubic → {new_size}×{new_size}",
        ),
        (exact[:, k].reshape(new_size, new_size), "exact, stretched grid"),
    ]
    for ax, (m, title) in zip(axes, shown):
        image = _image(ax, m)
        ax.set_title(title, fontsize=9)
    if slide:
        fig.colorbar(image, cax=bars[0])
    else:
        top.colorbar(image, ax=axes[:3], shrink=0.8, pad=0.02)
    err = mae_error[:, k].reshape(new_size, new_size)
    limit = float(err.abs().max()) or 1.0
    im = _image(axes[3], err, vmin=-limit, vmax=limit)
    axes[3].set_title("bicubic − exact", fontsize=9)
    if slide:
        fig.colorbar(im, cax=bars[1], format="%.0e")
    else:
        top.colorbar(im, ax=axes[3], shrink=0.8, format="%.0e")
        top.suptitle(heading, fontsize=10)
        line_ax, map_a, map_b = bottom.subplots(1, 3, width_ratios=[1.6, 1, 1])
    for (name, e), marker, ls in zip(errors.items(), "os^D", ("-", "--", ":", "-.")):
        per_pair = resampling_error_per_pair(e)  # [d/4]
        line_ax.loglog(
            omega.numpy(), per_pair.numpy(), marker=marker, ms=3, lw=1, ls=ls, label=name
        )
    line_ax.set_xlabel("frequency ω of the pair")
    line_ax.set_ylabel("RMS error over the grid")
    line_ax.set_title("error against frequency", fontsize=9)
    handles, names = line_ax.get_legend_handles_labels()
    if slide:  # below the channel's images, beside the maps: one line each
        fig.legend(handles, names, loc="center left", bbox_to_anchor=(0.325, 0.18), frameon=False)
    else:
        shown = [n.replace(" (", "\n(") for n in names]  # two lines each: the legend fits
        line_ax.legend(handles, shown, fontsize=8, loc="upper left", frameon=False)
    maps = [
        resampling_error_map(e, base=base, max_frequency=0.1) for e in errors.values()
    ]  # each [h', h']
    top_value = float(max(m.max() for m in maps[:2]))
    panels = ((map_a, maps[0], "a=−0.75 (MAE)"), (map_b, maps[1], "a=−0.5 (timm)"))
    for ax, m, title in panels:
        im = _image(ax, m, vmin=0.0, vmax=top_value, cmap=SEQUENTIAL)
        ax.set_title(title if slide else f"slow channels\n(ω < 0.1)\n{title}", fontsize=9)
    if slide:
        fig.colorbar(im, cax=bars[2], format="%.0e", label="RMS error")
        return _slide_fit(fig)
    bottom.colorbar(im, ax=[map_a, map_b], shrink=0.7, format="%.0e", label="RMS error")
    options = {"channel": channel, "base": base}
    return with_slide_version(
        fit_column(fig),
        lambda: resampling_figure(old_size, new_size, dim, **options, slide=True),
    )


def _resampling_slide_axes(heading: str) -> tuple[Figure, list[Axes], list[Axes], list[Axes]]:
    """The axes of :func:`resampling_figure`'s slide layout, placed by hand (in px at 1×).

    Left, two rows of square images, each row under a heading: the channel's four (the first
    three sharing a colour bar, the error with its own), then the two maps of the slow
    channels and their bar, the line plot's legend beside them; right, the line plot.

    Returns:
        the figure, the four images' axes, the three colour bars' axes, and the line plot's
        and the two maps' axes.
    """
    width, height, side = 1170.0, 375.0, 122.0
    title, heading_gap = 36.0, 18.0  # a one-line title and its pad; the heading, and a gap
    fig = new_figure(width / CSS_DPI, height / CSS_DPI, layout=None)

    def box(x: float, y: float, w: float, h: float) -> Axes:  # px from the bottom left
        return fig.add_axes((x / width, y / height, w / width, h / height))

    lower = 4.0  # the rows' bottoms
    upper = lower + side + title + heading_gap + 10.0
    axes = [box(x, upper, side, side) for x in (8.0, 158.0, 332.0, 540.0)]
    bars = [box(462.0, upper, 12.0, side), box(670.0, upper, 12.0, side)]
    map_a, map_b = box(8.0, lower, side, side), box(148.0, lower, side, side)
    bars.append(box(278.0, lower, 12.0, side))
    line_ax = box(895.0, 50.0, 265.0, upper + side - 50.0)
    for text, left, right, bottom in (
        (heading, 8.0, 540.0 + side, upper),
        ("slow channels (ω < 0.1)", 8.0, 148.0 + side, lower),
    ):  # above the panels' one-line titles
        y = (bottom + side + title) / height
        fig.text((left + right) / 2 / width, y, text, ha="center", va="bottom")
    return fig, axes, bars, [line_ax, map_a, map_b]


def _rgba(m: np.ndarray, cmap: str, vmin: float, vmax: float) -> np.ndarray:
    """Colour-map an array (``nan`` → the padding grey) into an RGBA image."""
    return grey_undefined(cmap)((m - vmin) / (vmax - vmin))  # [..., 4]


def absolute_2d_explorer_figure(
    height: int = 12,
    width: int = 24,
    dim: int = 64,
    base: float = 10000.0,
    normalize: bool = False,
    pair: str = "fastest",
    canvas: int = 24,
) -> Figure:
    """The explorer's panel: DETR sine encoding of an image padded to a ``canvas × canvas`` batch.

    Left: ``sin y`` of the chosen pair; middle: ``sin x`` of that pair (both blue −1 … red +1);
    right: cosine similarity of the valid region's centre (``+``) to every valid position, on a
    fixed scale from −0.5 (dark) to 1 (yellow). Padding is grey. The three maps and their
    colour scales are composed into one image on one axis, so a redraw stays fast.

    Args:
        height: rows of the valid image (``≤ canvas``).
        width: columns of the valid image (``≤ canvas``).
        dim: ``d = 2F``, total channels (a multiple of 4).
        base: ``T``.
        normalize: DETR's ``normalize`` (positions as fractions of the valid extent, times 2π).
        pair: ``"fastest"`` (pair 0), ``"middle"`` (pair F/4) or ``"slowest"`` (pair F/2 − 1).
        canvas: side of the padded batch canvas.

    Returns:
        a Figure with one axis holding one RGBA image: ``[canvas, 3·canvas + gaps, 4]``.
    """
    dim = check_multiple("dim", dim, 4, "half the channels per axis, each half in sin/cos pairs")
    canvas = check_int("canvas", canvas)
    height, width = check_int("height", height), check_int("width", width)
    normalize = check_bool("normalize", normalize)
    if not (0 < height <= canvas and 0 < width <= canvas):
        raise ValueError(f"height and width must be in 1..canvas={canvas}, got {height}, {width}")
    feats = dim // 2
    pairs = {"fastest": 0, "middle": feats // 4, "slowest": feats // 2 - 1}
    if pair not in pairs:
        raise ValueError(f"pair must be one of {sorted(pairs)}, got {pair!r}")
    i = pairs[pair]
    mask = torch.ones(1, canvas, canvas, dtype=torch.bool)  # [1, S, S]
    mask[0, :height, :width] = False
    pos = detr_sine_encoding(mask, feats, base, normalize=normalize)[0]  # [2F, S, S]
    padded = to_numpy(mask[0]) > 0  # [S, S]
    table = pos[:, :height, :width].reshape(dim, -1).T  # [h*w, d]
    sim = np.full((canvas, canvas), np.nan)  # [S, S]
    sim[:height, :width] = to_numpy(
        position_similarity_map(table, height, width, height // 2, width // 2)
    )
    y_map, x_map = to_numpy(pos[2 * i]), to_numpy(pos[feats + 2 * i])  # [S, S] each
    y_map[padded] = np.nan
    x_map[padded] = np.nan

    gap = max(2, canvas // 8)
    ramp = np.linspace(1, 0, canvas)[:, None]  # [S, 1], top = high
    white = np.ones((canvas, gap, 4))
    strip = np.ones((canvas, 1, 4))
    panels = [
        _rgba(y_map, DIVERGING, -1, 1),
        white,
        _rgba(x_map, DIVERGING, -1, 1),
        strip,
        _rgba(2 * ramp - 1, DIVERGING, -1, 1),
        white,
        white,
        _rgba(sim, SEQUENTIAL, -0.5, 1),
        strip,
        _rgba(1.5 * ramp - 0.5, SEQUENTIAL, -0.5, 1),
    ]
    edges = np.cumsum([0] + [p.shape[1] for p in panels])  # left edge of each panel
    image = np.concatenate(panels, axis=1)  # [S, 3S + 4·gap + 4, 4]
    x0 = [edges[0], edges[2], edges[7]]  # left edges of the three maps
    ramps = [edges[4], edges[9]]  # the two colour scales

    # no layout engine at all: with one (even "none" set afterwards) savefig draws twice
    fig = Figure(figsize=(8.2, 2.7))
    ax = fig.add_axes((0.01, 0.02, 0.94, 0.8))
    ax.imshow(image, interpolation="nearest")
    ax.axis("off")
    divisor = base ** (2 * i / feats)
    titles = (
        f"channel {2 * i}: sin(y / {divisor:.3g})",
        f"channel {feats + 2 * i}: sin(x / {divisor:.3g})",
        "cosine similarity to the centre",
    )
    for left, title in zip(x0, titles):
        ax.text(left + canvas / 2, -1, title, ha="center", va="bottom", fontsize=9)
        if height < canvas or width < canvas:
            ax.add_patch(Rectangle((left - 0.5, -0.5), width, height, fill=False, ec="k", lw=1.2))
    ax.plot(x0[2] + width // 2, height // 2, marker="+", color="k", ms=8, mew=1.5)
    for left, top, bottom in zip(ramps, ("+1", "1"), ("−1", "−0.5")):
        ax.text(left + 1, -0.5, top, fontsize=7, va="top")
        ax.text(left + 1, canvas - 0.5, bottom, fontsize=7, va="bottom")
    ax.set_xlim(-0.5, image.shape[1] + 2.5)
    ax.set_ylim(canvas - 0.5, -0.5)
    fig.suptitle(
        f"{height}×{width} image in a {canvas}×{canvas} batch, d = {dim}, "
        f"T = {base:g}, normalize = {normalize}",
        fontsize=10,
        y=0.98,
    )
    return fit_column(fig)
