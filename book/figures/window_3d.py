"""Figures for relative position indices over frames: Video Swin and RSTT (chapter 8).

The frames of a video window on a time axis (query frames above, key frames ``m`` below them
at their times), how many frame pairs share each frame offset, the index matrix cut into one
block per (query frame, key frame) pair, and the explorer's figure: query frames against key
frames, and the index row of one query token, key frame by key frame.

Colours: query frames blue, key frames orange, the highlighted query frame black, frame
offsets on a purple-orange diverging scale; red only for warnings (RSTT's stride giving the
wrong number of key frames, offsets that no pair uses).

Every function returns a new ``Figure``; nothing touches pyplot.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.textpath import TextPath

from book._checks import check_values
from book.demos.window import frame_offset_counts, rstt_key_frames
from book.figures._base import (
    MAX_WIDTH,
    MIN_FONT_SIZE,
    fit_column,
    new_figure,
    sequence_position,
    signed_label,
    with_slide_version,
)
from book.figures._grid import draw_label, draw_labels, draw_number_grid, inch_canvas, outline_cells
from posenc._checks import check_bool, check_int, check_pair
from posenc.window import relative_offsets, relative_position_index, relative_table_size

__all__ = [
    "frame_offset_figure",
    "window_3d_index_figure",
]

_QUERY_COLOUR = "#4c72b0"
_KEY_COLOUR = "#dd8452"
_HIGHLIGHT = "black"  # the highlighted query frame
_WARNING = "#d62728"  # red is kept for warnings: a wrong frame count, offsets never used
_OFFSET_CMAP = "PuOr"  # frame offsets Δt: diverging, and free of red


def _times(step: int) -> str:
    """``m``, ``2m``, …: the time of key frame ``m``."""
    return "m" if step == 1 else f"{step}m"


def _draw_timeline(
    ax: Axes,
    d1: int,
    d2: int,
    step: int,
    chosen: int | None,
    *,
    font: float = 7.0,
    label: float = 8.0,
    box: float = 190.0,
) -> None:
    """Query frames at ``y = 1``, key frames at ``y = 0`` under the query frame of their time.

    With ``chosen`` set, that query frame is outlined and every key frame is labelled, below
    its box, with its offset ``Δt`` from it.

    Args:
        ax: the axes to draw on.
        d1: query frames.
        d2: key frames.
        step: ``s``, key frame ``m`` sits at time ``s·m``.
        chosen: the highlighted query frame, or ``None``.
        font: size in points of the frame numbers, the offsets and the ticks.
        label: size in points of the rows' names.
        box: area of a frame's square in points² (its outline when chosen: 330/190 of it).
    """
    times = np.arange(d1)
    ax.scatter(times, np.ones(d1), marker="s", s=box, c=_QUERY_COLOUR, zorder=3)
    ax.scatter(step * np.arange(d2), np.zeros(d2), marker="s", s=box, c=_KEY_COLOUR, zorder=3)
    for t in times:
        ax.text(t, 1, str(t), ha="center", va="center", color="white", fontsize=font, zorder=4)
    for m in range(d2):
        ax.plot([step * m, step * m], [0.0, 1.0], color="0.6", lw=0.8, ls=":", zorder=1)
        ax.text(
            step * m, 0, str(m), ha="center", va="center", color="white", fontsize=font, zorder=4
        )
        if chosen is not None:
            ax.text(
                step * m,
                -0.7,
                signed_label(chosen - step * m),
                ha="center",
                va="top",
                fontsize=font,
                color=_HIGHLIGHT,
            )
    if chosen is not None:
        ax.scatter(
            [chosen],
            [1],
            marker="s",
            s=box * 330 / 190,
            facecolors="none",
            edgecolors=_HIGHLIGHT,
            linewidths=1.8,
            zorder=5,
        )
        ax.text(
            -0.75,
            -0.7,
            f"Δt from {chosen}:",
            ha="right",
            va="top",
            fontsize=font,
            color=_HIGHLIGHT,
        )
    ax.text(
        -0.75, 1, "query frames t", ha="right", va="center", fontsize=label, color=_QUERY_COLOUR
    )
    ax.text(-0.75, 0, "key frames m", ha="right", va="center", fontsize=label, color=_KEY_COLOUR)
    ax.set_xlim(-0.6, max(d1 - 1, 1) + 0.6)
    ax.set_ylim(-1.25, 1.45)
    ax.set_yticks([])
    ax.set_xticks(times)
    ax.tick_params(axis="x", labelsize=font, length=2, pad=1)
    for side in ("left", "right", "top"):
        ax.spines[side].set_visible(False)


_SLIDE_FONT = 12.5
"""The smallest font size, in points, of :func:`window_3d_index_figure`'s slide layout: 25 px
on a 1080p projector in a figure 3.9 inches high, shown about 380 CSS px high."""


def _text_width(text: str, size: float) -> float:
    """The width in inches of ``text`` (its widest line) at ``size`` points."""
    return (
        max(TextPath((0, 0), line, size=size).get_extents().width for line in text.split("\n")) / 72
    )


class _SlideLayout(NamedTuple):
    """Where :func:`window_3d_index_figure`'s slide layout puts things, in inches."""

    size: tuple[float, float]  # the figure's width and height
    timeline: tuple[float, float, float, float]  # left, bottom, width, height
    bars: tuple[float, float, float, float]
    matrix: tuple[float, float, float, float]
    colorbar: tuple[float, float, float, float]
    upright: bool  # the key frames' labels turned upright: their blocks are too narrow
    heading: tuple[float, float]  # the bottom centre of the matrix's title


def _slide_layout(
    d1: int, d2: int, per_k: int, n_q: int, n_k: int, texts: dict[str, str]
) -> _SlideLayout:
    """The three panels of :func:`window_3d_index_figure` in a row, for a slide.

    The figure is 3.9 inches high; its text is :data:`_SLIDE_FONT` points (titles half a
    point more). Panels are moved apart where their titles would meet.

    Args:
        d1: query frames.
        d2: key frames.
        per_k: tokens per key frame.
        n_q: rows of the index matrix.
        n_k: its columns.
        texts: the titles ``"timeline"``, ``"bars"`` and ``"heading"`` and the matrix's x
            label ``"keys"``, with their line breaks.

    Returns:
        the layout.
    """
    font, big = _SLIDE_FONT, _SLIDE_FONT + 0.5
    fig_h = 3.9
    tl_left = 1.55  # the rows' names, right-aligned left of the axes
    tl_w = max(1.9, 0.37 * (max(d1 - 1, 1) + 1.2))  # 0.37 inch per frame
    tl_h = 1.75
    tl_bottom = (fig_h - tl_h - 0.45 + 0.5) / 2  # centred with its title above, ticks below
    bars_w = max(2.0, 0.2 * (2 * d1 - 1))
    overhang = (_text_width(texts["timeline"], big) - tl_w) / 2 + (
        _text_width(texts["bars"], font) - bars_w
    ) / 2
    bars_left = tl_left + tl_w + max(0.95, overhang + 0.2)  # the bars' y label and ticks
    bars_bottom = 0.8  # ticks and a label of two lines
    bars_h = fig_h - bars_bottom - 0.05 - 0.23 * (texts["bars"].count("\n") + 1)
    keys_lines = texts["keys"].count("\n") + 1
    room = fig_h - 1.3 - 0.25 * keys_lines  # under the title (3 lines) and the key frames' labels
    cell = room / n_q
    # a block narrower than its label's 0.45 inch is widened, up to 1.5 times
    stretch = min(1.5, max(1.0, 0.45 / (cell * per_k)))
    mat_w, mat_h = min(stretch * cell * n_k, 2.8), cell * n_q
    if mat_w < cell * n_k:  # a wide key window: square cells, lower
        mat_h = mat_w / n_k * n_q
    mat_bottom = 0.15 + 0.25 * keys_lines + (room - mat_h) / 2
    overhang = (_text_width(texts["bars"], font) - bars_w) / 2 + (
        _text_width(texts["heading"], big) - mat_w
    ) / 2
    mat_left = bars_left + bars_w + max(1.05, overhang + 0.2)  # "t=…" and the y label
    upright = mat_w / d2 < 0.44  # 0.45 inch or so once widened
    return _SlideLayout(
        size=(mat_left + mat_w + 1.15, fig_h),  # the colour bar, its ticks and its label
        timeline=(tl_left, tl_bottom, tl_w, tl_h),
        bars=(bars_left, bars_bottom, bars_w, bars_h),
        matrix=(mat_left, mat_bottom, mat_w, mat_h),
        colorbar=(mat_left + mat_w + 0.12, mat_bottom, 0.15, mat_h),
        upright=upright,
        heading=(mat_left + mat_w / 2, mat_bottom + mat_h + (0.75 if upright else 0.4)),
    )


def window_3d_index_figure(
    query_shape: Sequence[int] = (7, 2, 2),
    key_shape: Sequence[int] | None = (4, 2, 2),
    *,
    key_step: Sequence[int] | None = (2, 1, 1),
    highlight: str | int | None = "middle",
    slide: bool = False,
) -> Figure:
    """Frames on a time axis, frame offsets, and the index matrix cut into frame blocks.

    Axis 0 of the window is time (frames). Top left: the query frames ``t``, and the key frames
    ``m`` under the query frame of the same time ``s·m`` (``s = key_step[0]``). Bottom left:
    how many (query frame, key frame) pairs have each frame offset ``Δt = t − s·m``; the
    offsets the highlighted query frame sees are black, offsets nobody uses are marked ×.
    Right: the index :func:`posenc.window.relative_position_index`, rows grouped by query frame
    and columns by key frame: one block per (query frame, key frame) pair, labelled with its
    ``Δt``. Each block holds the spatial (Swin) index shifted by ``(Δt + D_1 − 1)`` times the
    table rows per frame offset. The page's figure carries a slide layout
    (:func:`book.figures._base.with_slide_version`): the three panels in a row, with larger
    text, titles broken into shorter lines, blocks too narrow for their label widened and,
    where the bars are narrow, every other offset labelled.

    .. math::

        I = (t - s\\,m + D_1 - 1)\\,(2W_h - 1)(2W_w - 1) + I_{2\\text{-D}}

    Args:
        query_shape: ``(D_1, W_h, W_w)`` (any rank ``>= 1``; axis 0 is time).
        key_shape: ``(D_2, …)`` (default ``query_shape``).
        key_step: key coordinate spacing per axis (default all 1).
        highlight: the query frame highlighted: ``"first"``, ``"middle"``, ``"last"``, a
            frame number, or ``None`` for none.
        slide: draw the slide layout.

    Returns:
        a Figure with four axes: timeline, offset counts, index matrix, colour bar.

    Shapes:
        the matrix is ``[N_q, N_k]`` with ``N_q = D_1·W_h·W_w`` and ``N_k = D_2·W_h·W_w``.
    """
    q_shape = tuple(check_values("query_shape", query_shape, check_int))
    if key_shape is not None:
        key_shape = tuple(check_values("key_shape", key_shape, check_int))
    if key_step is not None:
        key_step = tuple(check_values("key_step", key_step, check_int))
    slide = check_bool("slide", slide)
    index = relative_position_index(q_shape, key_shape, key_step=key_step).numpy()  # [N_q, N_k]
    k_shape = q_shape if key_shape is None else key_shape
    step = 1 if key_step is None else key_step[0]
    d1, d2 = q_shape[0], k_shape[0]
    per_q, per_k = math.prod(q_shape[1:]), math.prod(k_shape[1:])  # tokens per frame
    rows_per_offset = relative_table_size(q_shape[1:]) if len(q_shape) > 1 else 1
    chosen = None if highlight is None else sequence_position(highlight, d1, name="highlight")
    offsets = relative_offsets((d1,), (d2,), key_step=(step,))[..., 0].numpy()  # [D1, D2]
    counts = frame_offset_counts(d1, d2, step).numpy()  # [2 D1 - 1]
    n_q, n_k = index.shape
    deltas = np.arange(-(d1 - 1), d1)

    # the texts: on a slide, in shorter lines
    sep = "\n" if slide else " "
    texts = {
        "timeline": f"{d1} query frames,{sep}{d2} key frames at t = {_times(step)}",
        "bars": f"frame pairs per Δt{sep}(each Δt owns {rows_per_offset} table rows)",
        "heading": f"index I: {n_q} × {n_k}, one block per\n(query frame, key frame) pair, "
        "labelled Δt",
        "keys": f"keys: {d2} frames × {per_k} tokens",
    }
    if chosen is not None:
        texts["bars"] += f"\nblack: the offsets query frame {chosen} sees"
    if (counts == 0).any():
        texts["bars"] += "\n×: never used" if slide else "; ×: never used"
    if slide:
        texts["heading"] = (
            f"index I: {n_q} × {n_k}, one block\nper (query frame, key frame)\npair, labelled Δt"
        )
        layout = _slide_layout(d1, d2, per_k, n_q, n_k, texts)
        if _text_width(texts["keys"], _SLIDE_FONT) > layout.matrix[2] + 0.55:
            # centred under the matrix, it would reach the colour bar's lowest tick: two lines
            texts["keys"] = f"keys: {d2} frames\n× {per_k} tokens"
            layout = _slide_layout(d1, d2, per_k, n_q, n_k, texts)
        fig_w, fig_h = layout.size
        big = small = tick = label = block = _SLIDE_FONT
        big += 0.5
        box, pad = 520.0, _SLIDE_FONT / 7  # squares for 12.5 pt digits; pads grow alike
        fig = new_figure(fig_w, fig_h, layout=None)

        def rect(inches: tuple[float, float, float, float]) -> tuple[float, ...]:
            left, bottom, width, height = inches
            return (left / fig_w, bottom / fig_h, width / fig_w, height / fig_h)

        timeline = fig.add_axes(rect(layout.timeline))
        bars = fig.add_axes(rect(layout.bars))
    else:
        big, small, tick, label, block, box, pad = 9.0, 8.0, 7.0, 8.0, MIN_FONT_SIZE, 190.0, 1.0
        fig_w, fig_h = MAX_WIDTH, 4.4
        fig = new_figure(fig_w, fig_h, layout=None)
        timeline = fig.add_axes((0.17, 0.69, 0.40, 0.16))
        bars = fig.add_axes((0.17, 0.11, 0.40, 0.36))
    _draw_timeline(timeline, d1, d2, step, chosen, font=tick, label=label, box=box)
    timeline.set_xlabel("time (query frames)", fontsize=label, labelpad=1)
    timeline.set_title(texts["timeline"], fontsize=big, pad=3)

    used_by_chosen = set() if chosen is None else set(offsets[chosen].tolist())
    colours = [_HIGHLIGHT if d in used_by_chosen else _QUERY_COLOUR for d in deltas]
    bars.bar(deltas, counts, color=colours, width=0.8)
    for d, c in zip(deltas, counts):
        if c == 0:
            bars.text(d, 0.05, "×", ha="center", va="bottom", fontsize=big, color=_WARNING)
    if slide and layout.bars[2] / len(deltas) < 0.3:  # every other offset: they would touch
        bars.set_xticks(deltas, [f"{d}".replace("-", "−") if d % 2 == 0 else "" for d in deltas])
    else:
        bars.set_xticks(deltas)
    bars.tick_params(labelsize=tick, length=2, pad=1)
    bars.set_xlim(deltas[0] - 0.6, deltas[-1] + 0.6)
    bars.set_ylim(0, counts.max() + 0.6)
    bars.set_yticks(range(int(counts.max()) + 1))
    bars.set_xlabel(f"frame offset Δt{sep}= query time − key time", fontsize=label, labelpad=1)
    bars.set_ylabel("frame pairs", fontsize=label)
    bars.set_title(texts["bars"], fontsize=small, pad=3)
    for side in ("right", "top"):
        bars.spines[side].set_visible(False)

    upright = per_k < 3  # the key frames' labels, when a block is too narrow for them
    if slide:
        upright = layout.upright
        ax = fig.add_axes(rect(layout.matrix))
    else:
        # inches: at most 24 % of the width and 68 % of the height
        cell = min(0.24 * fig_w / n_k, 0.68 * fig_h / n_q)
        width, height = cell * n_k / fig_w, cell * n_q / fig_h
        bottom = 0.07 + (0.68 - height) / 2
        ax = fig.add_axes((0.67, bottom, width, height))
    image = ax.imshow(
        index,
        cmap="viridis",
        vmin=0,
        vmax=relative_table_size(q_shape) - 1,
        interpolation="nearest",
        aspect="auto" if slide else "equal",  # a slide may widen the blocks
    )
    for b in range(1, d1):
        ax.axhline(b * per_q - 0.5, color="white", lw=0.8)
    for b in range(1, d2):
        ax.axvline(b * per_k - 0.5, color="white", lw=0.8)
    for t in range(d1):
        for m in range(d2):
            ax.text(
                m * per_k + (per_k - 1) / 2,
                t * per_q + (per_q - 1) / 2,
                signed_label(int(offsets[t, m])),
                ha="center",
                va="center",
                fontsize=block,
                color="black",
                bbox={"boxstyle": "round,pad=0.12", "fc": "white", "ec": "none", "alpha": 0.8},
            )
        ax.text(
            -0.8,
            t * per_q + (per_q - 1) / 2,
            f"t={t}",
            ha="right",
            va="center",
            fontsize=tick,
            color=_QUERY_COLOUR,
        )
    for m in range(d2):
        ax.text(
            m * per_k + (per_k - 1) / 2,
            -0.8,
            f"t={step * m}",
            ha="center",
            va="bottom",
            fontsize=tick,
            color=_KEY_COLOUR,
            rotation=90 if upright else 0,
        )
    if chosen is not None:
        ax.add_patch(
            Rectangle(
                (-0.5, chosen * per_q - 0.5), n_k, per_q, fill=False, ec=_HIGHLIGHT, lw=2, zorder=5
            )
        )
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_xlabel(texts["keys"], fontsize=label, labelpad=2)
    ax.set_ylabel(f"queries: {d1} frames × {per_q} tokens", fontsize=label, labelpad=24 * pad)
    if slide:
        cax = fig.add_axes(rect(layout.colorbar))
    else:
        cax = fig.add_axes((0.67 + width + 0.015, bottom, 0.015, height))
    fig.colorbar(image, cax=cax)
    cax.tick_params(labelsize=tick)
    cax.set_ylabel("index I (table row)", fontsize=label)
    if slide:
        x, y = layout.heading
        fig.text(x / fig_w, y / fig_h, texts["heading"], ha="center", va="bottom", fontsize=big)
        return fig
    title_y = bottom + height + 0.42 / fig_h  # above the key frames' labels
    fig.text(
        0.67 + width / 2,
        min(title_y, 0.985),
        texts["heading"],
        ha="center",
        va="bottom" if title_y + 0.1 < 0.985 else "top",
        fontsize=9,
    )
    return with_slide_version(
        fit_column(fig),
        lambda: window_3d_index_figure(
            q_shape, key_shape, key_step=key_step, highlight=chosen, slide=True
        ),
    )


def _rstt_verdict(d1: int, d2: int, step: int) -> tuple[str, str]:
    """The explorer's line on RSTT's stride, and its colour (red only for a wrong count)."""
    rstt = rstt_key_frames(d1, d2)
    text = f"RSTT's arange(0, {d1}, {(d1 + 1) // d2}): "
    if rstt == [step * m for m in range(d2)]:
        return text + "the same frames", "0.35"
    if len(rstt) != d2:
        return text + f"{len(rstt)} key frames, not {d2}: the forward pass fails", _WARNING
    return (
        text + f"t = {', '.join(map(str, rstt))}: right count, but short of t = {d1 - 1}",
        "0.35",
    )


def frame_offset_figure(
    query_frames: int = 7,
    key_frames: int = 4,
    key_step: int = 2,
    window: Sequence[int] = (2, 2),
    *,
    highlight: str | int = "middle",
) -> Figure:
    """The explorer's figure: query frames against key frames, and one query token's index row.

    Left: ``Δt = t − s·m`` for every query frame ``t`` (rows) and key frame ``m`` (columns,
    headed by their time ``s·m``), the highlighted query frame's row outlined; above it, the
    key frame times RSTT's stride would give (red only when their number is wrong); below it,
    the offsets no pair uses (their table rows are never read). Right: the index row of one
    token of the highlighted query frame, the centre token ``((W_h − 1) // 2, (W_w − 1) // 2)``
    (``(0, 0)`` for 2×2, ``(1, 1)`` for 3×3), one ``W_h × W_w`` block per key frame, each
    cell the table row that key reads:

    .. math::

        I = (\\Delta t + D_1 - 1)\\,(2W_h - 1)(2W_w - 1) + I_{2\\text{-D}}

    Drawn on one axes with the labels as glyph outlines
    (:func:`book.figures._grid.draw_labels`), so that an explorer redraw is fast.

    Args:
        query_frames: ``D_1``.
        key_frames: ``D_2``.
        key_step: ``s``: key frames sit at query times ``0, s, 2s, …`` (``(D_2 − 1)·s < D_1``).
        window: ``(W_h, W_w)``, the spatial window.
        highlight: the query frame shown: ``"first"``, ``"middle"``, ``"last"`` or a frame.

    Returns:
        a Figure with one axes (data units: inches, :func:`book.figures._grid.inch_canvas`):
        ``images[0]`` is the frame grid ``[D_1, D_2]``, ``images[1:]`` the index blocks
        ``[W_h, W_w]``, one per key frame.
    """
    d1 = check_int("query_frames", query_frames)
    d2 = check_int("key_frames", key_frames)
    step = check_int("key_step", key_step)
    wh, ww = check_pair("window", window)
    q_shape = (d1, wh, ww)
    index = relative_position_index(q_shape, (d2, wh, ww), key_step=(step, 1, 1)).numpy()
    chosen = sequence_position(highlight, d1, name="highlight")
    offsets = relative_offsets((d1,), (d2,), key_step=(step,))[..., 0].numpy()  # [D1, D2]
    counts = frame_offset_counts(d1, d2, step).numpy()  # [2 D1 - 1]
    r0, c0 = (wh - 1) // 2, (ww - 1) // 2  # the query token shown: the centre (upper left of it)
    row = index[chosen * wh * ww + r0 * ww + c0].reshape(d2, wh, ww)  # [D2, Wh, Ww]
    size = relative_table_size(q_shape)
    rows_per = (2 * wh - 1) * (2 * ww - 1)
    big, small = 13.0, 12.0  # 10 inches shown 680 CSS px wide: 12 pt is 11.3 CSS px

    fig, ax = inch_canvas(10.0, 4.15)  # one axes, data units = inches, y pointing down
    cell = min(0.36, 2.45 / d1)
    gx, gy = 0.8, 1.35  # top-left corner of the frame grid
    draw_number_grid(
        ax,
        offsets,
        cmap=_OFFSET_CMAP,
        vmin=-d1 - 1,
        vmax=d1 + 1,
        fmt=signed_label,
        fontsize=small,
        origin=(gx, gy),
        cell=cell,
    )
    outline_cells(ax, chosen, 0, 1, d2, color=_HIGHLIGHT, lw=2.5, origin=(gx, gy), cell=cell)
    draw_labels(
        ax,
        [f"t={t}" for t in range(d1)] + [str(step * m) for m in range(d2)],
        [(gx - 0.33, gy + (t + 0.5) * cell) for t in range(d1)]
        + [(gx + (m + 0.5) * cell, gy - 0.15) for m in range(d2)],
        fontsize=small,
        colors=[_QUERY_COLOUR] * d1 + [_KEY_COLOUR] * d2,
    )
    draw_label(ax, "key frame times", gx, gy - 0.36, va="bottom", fontsize=small, color=_KEY_COLOUR)
    draw_label(
        ax,
        f"{d1} query frames, {d2} key frames at t = {', '.join(str(step * m) for m in range(d2))}",
        0.1,
        0.1,
        va="top",
        fontsize=big,
    )
    verdict, colour = _rstt_verdict(d1, d2, step)
    draw_label(ax, verdict, 0.1, 0.4, va="top", fontsize=small, color=colour)
    draw_label(
        ax,
        "Δt =\nt − key\ntime",
        gx + d2 * cell + 0.45,
        gy + d1 * cell / 2,
        ha="center",
        fontsize=small,
        color="0.35",
    )
    unused = [int(d) for d in np.flatnonzero(counts == 0) - (d1 - 1)]
    if unused:
        draw_label(
            ax,
            f"never used: Δt = {', '.join(map(signed_label, unused))} "
            f"({len(unused) * rows_per} of {size} rows)",
            0.1,
            4.08,
            va="bottom",
            fontsize=small,
            color=_WARNING,
        )

    gap = 0.5  # in cells, between the blocks of two key frames
    bx = 3.75
    bcell = min(0.55, (9.9 - bx) / (d2 * ww + (d2 - 1) * gap))
    by = 1.85
    for m in range(d2):
        draw_number_grid(
            ax,
            row[m],
            vmin=0,
            vmax=size - 1,
            fontsize=small,
            origin=(bx + m * (ww + gap) * bcell, by),
            cell=bcell,
        )
    headers = [f"t={step * m}\nΔt={signed_label(int(offsets[chosen, m]))}" for m in range(d2)]
    draw_labels(
        ax,
        headers,
        [(bx + (m * (ww + gap) + ww / 2) * bcell, by - 0.32) for m in range(d2)],
        fontsize=small,
        colors=_KEY_COLOUR,
    )
    centre = bx + (d2 * ww + (d2 - 1) * gap) * bcell / 2
    draw_label(
        ax,
        f"table rows read by token ({r0}, {c0}) of query frame {chosen}",
        bx,
        1.2,
        va="bottom",
        fontsize=big,
    )
    draw_label(
        ax,
        f"I = (Δt + {d1 - 1})·{rows_per} + 2-D index   (table: {size} rows)",
        centre,
        by + wh * bcell + 0.16,
        ha="center",
        va="top",
        fontsize=small,
    )
    # 10 inches at 12–13 pt: shown shrunk to the 680 px column, the text is 11.3 CSS px
    return fig
