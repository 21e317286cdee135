"""Small drawing helpers shared by the plotting modules (no pyplot, no global state)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.colorbar import Colorbar
from matplotlib.colors import Colormap
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.ticker import MaxNLocator
from torch import Tensor

from .._checks import check_int

DIVERGING = "RdBu_r"
SEQUENTIAL = "viridis"
UNDEFINED = "#d9d9d9"
"""The light grey of undefined cells (``nan``: padding, similarities of zero rows)."""


def new_figure(
    width: float = 7.0, height: float = 3.2, *, layout: str | None = "constrained", **kwargs: Any
) -> Figure:
    """A fresh ``Figure`` detached from pyplot (constrained layout unless ``layout`` says otherwise).

    Constrained layout roughly doubles the time to draw a figure; explorers that must redraw
    in under 100 ms can pass ``layout=None`` and place their axes themselves.
    """
    return Figure(figsize=(width, height), layout=layout, **kwargs)


def panel_grid(
    count: int,
    columns: int,
    panel_size: tuple[float, float],
    margin: tuple[float, float] = (0.4, 0.5),
) -> tuple[Figure, list[Axes]]:
    """A figure with ``count`` panels sharing both axes, ``columns`` per row, spare cells hidden.

    Args:
        count: how many panels are drawn (at least 1).
        columns: panels per row (at most ``count`` are used).
        panel_size: ``(width, height)`` of one panel in inches.
        margin: inches added to the figure's width and height for labels and titles.

    Returns:
        the figure and its ``count`` visible axes, row by row.
    """
    columns = min(columns, count)
    rows = -(-count // columns)
    fig = new_figure(panel_size[0] * columns + margin[0], panel_size[1] * rows + margin[1])
    axes = list(fig.subplots(rows, columns, sharex=True, sharey=True, squeeze=False).flat)
    for ax in axes[count:]:
        ax.set_visible(False)
    return fig, axes[:count]


def to_numpy(x: Tensor | np.ndarray) -> np.ndarray:
    """A float64 NumPy copy of a tensor or array (detached, on the CPU)."""
    if isinstance(x, Tensor):
        return x.detach().cpu().double().numpy()
    return np.asarray(x, dtype=np.float64)


def heatmap(
    ax: Axes,
    matrix: Tensor | np.ndarray,
    *,
    symmetric: bool = True,
    cmap: str | Colormap | None = None,
    colorbar: bool = True,
    vmax: float | None = None,
    **imshow_kwargs: Any,
) -> Any:
    """Draw ``matrix`` on ``ax`` (row 0 at the top); symmetric colour limits by default."""
    m = to_numpy(matrix)
    if symmetric:
        limit = vmax if vmax is not None else float(np.max(np.abs(m))) or 1.0
        imshow_kwargs.setdefault("vmin", -limit)
        imshow_kwargs.setdefault("vmax", limit)
    elif vmax is not None:
        imshow_kwargs.setdefault("vmax", vmax)
    imshow_kwargs.setdefault("interpolation", "nearest")
    imshow_kwargs.setdefault("aspect", "auto")
    if cmap is None:
        cmap = DIVERGING if symmetric else SEQUENTIAL
    image = ax.imshow(m, cmap=cmap, **imshow_kwargs)
    if colorbar:
        ax.figure.colorbar(image, ax=ax, shrink=0.85)
    return image


def table_image(
    ax: Axes, table: Tensor | np.ndarray, *, max_rows: int | None = None, colorbar: bool = False
) -> AxesImage:
    """Draw a ``[rows, cols]`` table of values in ``[−1, 1]`` (an encoding table) on ``ax``.

    Row 0 at the top, one column per entry, blue −1 through white 0 to red +1, cells stretched
    to fill the axes, integer ticks across. With ``max_rows``, a table with more rows is shown
    as averages of blocks of consecutive rows (at most ``max_rows`` blocks, the last block
    padded with the last row), which is what the eye would see anyway: a small image cannot
    show a channel that changes sign every few positions, and picking every k-th row instead
    (plain subsampling) would draw slow moiré stripes that are not in the data. The image keeps
    the table's extent, so row ticks still count rows of the table.

    Args:
        ax: the axes to draw on.
        table: the ``[rows, cols]`` values.
        max_rows: the most image rows to draw, or ``None`` for one per table row.
        colorbar: add a colour bar beside ``ax`` (as :func:`heatmap` does).

    Returns:
        the ``AxesImage``.
    """
    m = to_numpy(table)  # [n, d]
    if m.ndim != 2:
        raise ValueError(f"table must be a 2-D [rows, cols] table, got shape {m.shape}")
    n, d = m.shape
    if max_rows is not None and n > check_int("max_rows", max_rows):
        r = math.ceil(n / max_rows)
        pad = (-n) % r
        padded = np.concatenate([m, np.repeat(m[-1:], pad, axis=0)])  # [n + pad, d]
        m = padded.reshape(-1, r, d).mean(axis=1)  # [(n + pad) / r, d]
    image = heatmap(ax, m, vmax=1.0, colorbar=colorbar, extent=(-0.5, d - 0.5, n - 0.5, -0.5))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    return image


def grey_undefined(cmap: str | Colormap) -> Colormap:
    """``cmap`` (a name or a colormap) with undefined values (``nan``) drawn in light grey.

    ``imshow`` marks ``nan`` cells "bad"; this gives them the colour :data:`UNDEFINED`, the same
    grey for padding and for similarities of all-zero rows. Calling the colormap on an array
    (for an RGBA image composed by hand) maps ``nan`` to the same grey.
    """
    base = colormaps[cmap] if isinstance(cmap, str) else cmap
    return base.with_extremes(bad=UNDEFINED)


_ROUND_STEPS = (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000)


def index_ticks(n: int, *, mark: int | None = None, round_steps: bool = False) -> list[int]:
    """A few sorted tick positions for an axis of ``n`` indices ``0 … n − 1``.

    By default the ends and the middle, ``0, n // 2, n − 1``; with ``mark`` strictly inside
    (``0 < mark < n − 1``), the ends and ``mark`` (e.g. the first position never trained).
    With ``round_steps``: ``0`` and the multiples of the largest round step (1, 2, 5, 10, 20,
    25, 50, … 1000) that is at most ``(n − 1) / 2``, so two to five ticks up to ``n = 2001``,
    all easy to read, plus ``mark`` if it lies on the axis. Few ticks keep a redraw fast: each
    tick is several artists.

    Args:
        n: the number of indices (``>= 1``).
        mark: an index to show as a tick, or ``None`` (ignored when off the axis, or at an
            end in the default mode).
        round_steps: multiples of a round step instead of the ends and the middle.

    Returns:
        the tick positions, sorted, without repeats.
    """
    n = check_int("n", n)
    if mark is not None:
        mark = check_int("mark", mark, minimum=None)
    if round_steps:
        half = max(1.0, (n - 1) / 2)
        step = max(s for s in _ROUND_STEPS if s <= half)
        ticks = set(range(0, n, step))
        if mark is not None and 0 <= mark < n:
            ticks.add(mark)
        return sorted(ticks)
    if mark is not None and 0 < mark < n - 1:
        return [0, mark, n - 1]
    return sorted({0, n // 2, n - 1})


def inset_colorbar(
    ax: Axes,
    image: Any,
    *,
    ticks: Sequence[float],
    label: str = "",
    gap: float = 0.04,
    width: float = 0.05,
    tick_size: float = 7.0,
    label_size: float = 8.0,
) -> Colorbar:
    """A colour bar in an inset just right of ``ax``, at the axes' full height.

    An inset does not take space from ``ax`` (as ``fig.colorbar(ax=...)`` does), so it works
    in figures with fixed axes positions, which explorers use to redraw fast; leave room for
    it on the right.

    Args:
        ax: the axes the bar belongs to.
        image: the mappable (e.g. the ``AxesImage`` of ``ax``).
        ticks: the values to label.
        label: the bar's label (none if empty).
        gap: space between ``ax`` and the bar, as a fraction of the axes' width.
        width: the bar's width, as a fraction of the axes' width.
        tick_size: font size of the tick labels.
        label_size: font size of the label.

    Returns:
        the ``Colorbar`` (its axes is ``ax.child_axes[-1]``).
    """
    cbar = ax.figure.colorbar(image, cax=ax.inset_axes([1.0 + gap, 0.0, width, 1.0]))
    # set afterwards, not passed to colorbar(): a tick a little beyond the colour range (a
    # rounded maximum) then widens the bar's axis to show it instead of being dropped
    cbar.set_ticks(ticks)
    if label:
        cbar.set_label(label, fontsize=label_size)
    cbar.ax.tick_params(labelsize=tick_size)
    return cbar


NAMED_POSITIONS = {"first": 0.0, "middle": 0.5, "last": 1.0}
"""Named places in a sequence, as fractions of its length, for the explorers' query controls."""


def sequence_position(query: str | int, n: int) -> int:
    """Resolve ``"first"``, ``"middle"``, ``"last"`` or a position to an index in ``0..n−1``.

    ``"middle"`` is ``round((n − 1) / 2)``, so the same name picks a comparable query whatever
    the length an explorer shows.
    """
    n = check_int("n", n)
    if isinstance(query, str):
        if query not in NAMED_POSITIONS:
            raise ValueError(
                f"query must be one of {sorted(NAMED_POSITIONS)} or a position, got {query!r}"
            )
        return round(NAMED_POSITIONS[query] * (n - 1))
    i = check_int("query", query, minimum=0)
    if i >= n:
        raise ValueError(f"query must be < n = {n}, got {i}")
    return i


def signed_label(v: float) -> str:
    """``+2``, ``0``, ``−2``: an offset as a label, with a real minus sign."""
    return f"+{v:.0f}" if v > 0 else f"−{-v:.0f}" if v < 0 else "0"
