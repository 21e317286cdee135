"""General drawing helpers for grids of labelled cells, shared by the window figures.

Figures with many small panels (Swin's index tables in :mod:`book.figures.window`, the
frame blocks of :mod:`book.figures.window_3d`) draw them all on one axes whose data units
are inches (:func:`inch_canvas`), each grid placed by its top-left corner ``origin`` and its
cell size ``cell``. One axes and no layout engine keep an explorer's redraw well under
100 ms; so do the labels, drawn as one collection of cached glyph outlines
(:func:`draw_labels`) instead of one ``ax.text`` per cell.

* :func:`inch_canvas`: a figure with one axes in inches, ``y`` pointing down.
* :func:`draw_number_grid`: a matrix as coloured cells, each labelled with its value.
* :func:`draw_labels` / :func:`draw_label`: many short labels at once / one aligned caption.
* :func:`outline_cells` / :class:`Highlights`: outlines of blocks of cells (one patch / one
  collection of outlines over white halos).

Nothing here touches pyplot.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.colors import Colormap
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.patches import Rectangle
from matplotlib.transforms import Affine2D
from torch import Tensor

from book.figures._base import as_colormap, new_figure, to_numpy
from book.figures._labels import _label_path, relabel
from posenc._checks import check_bool, check_int, check_positive_float, check_real

__all__ = [
    "Highlights",
    "draw_label",
    "draw_labels",
    "draw_number_grid",
    "inch_canvas",
    "outline_cells",
    "relabel",
]

_HA = ("left", "center", "right")
_VA = ("top", "center", "bottom")


def _matrix(name: str, values: object) -> np.ndarray:
    """``values`` as a float64 ``[rows, cols]`` array, refusing empty, non-finite or odd input."""
    if isinstance(values, Tensor):
        if values.is_complex() or values.dtype == torch.bool:
            raise TypeError(f"{name} must hold real numbers, got dtype {values.dtype}")
    elif not isinstance(values, np.ndarray):
        raise TypeError(f"{name} must be a tensor or an array, got {type(values).__name__}")
    elif values.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold real numbers, got dtype {values.dtype}")
    m = to_numpy(values)
    if m.ndim != 2:
        raise ValueError(f"{name} must be a 2-D matrix, got shape {m.shape}")
    if m.size == 0:
        raise ValueError(f"{name} must have at least one row and one column, got shape {m.shape}")
    if not np.isfinite(m).all():
        raise ValueError(f"{name} must be finite, got NaN or infinite entries")
    return m


def _point(name: str, value: object) -> tuple[float, float]:
    """``value`` as an ``(x, y)`` pair of finite floats."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or len(value) != 2:
        raise TypeError(f"{name} must be an (x, y) pair of numbers, got {value!r}")
    return check_real(f"{name}[0]", value[0]), check_real(f"{name}[1]", value[1])


def inch_canvas(width: float, height: float) -> tuple[Figure, Axes]:
    """A figure with one axes covering it whose data units are inches, ``y`` pointing down.

    Panels drawn with ``origin``/``cell`` (:func:`draw_number_grid`, :func:`outline_cells`)
    can then be placed by hand, and a figure with many panels draws fast: one axes, no ticks,
    no layout engine.

    Args:
        width, height: size of the figure in inches.

    Returns:
        ``(figure, axes)``; the axes' limits are ``x ∈ [0, width]``, ``y ∈ [height, 0]``.
    """
    width = check_positive_float("width", width)
    height = check_positive_float("height", height)
    fig = new_figure(width, height, layout=None)
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_axis_off()
    ax.set_xlim(0, width)
    ax.set_ylim(height, 0)
    ax.set_autoscale_on(False)
    return fig, ax


def draw_labels(
    ax: Axes,
    labels: Sequence[str],
    centres: Sequence[tuple[float, float]],
    *,
    fontsize: float = 8.0,
    colors: str | Sequence[str] = "black",
) -> PathCollection:
    """Write many short labels, centred on points given in data coordinates, in one go.

    One ``ax.text`` per cell costs about a millisecond to draw; this draws every label as one
    collection of glyph outlines (cached per label), so that a grid of numbers redraws fast.
    The labels keep their size in points whatever the axes' scale. The collection carries
    the labels, their size and their centres as ``.labels``, ``.fontsize`` and ``.centres``
    (for tests and readers).

    Args:
        ax: the axes.
        labels: the texts (short: numbers, offsets).
        centres: ``(x, y)`` in data coordinates, one per label.
        fontsize: size in points.
        colors: one colour for all labels, or one per label.

    Returns:
        the ``PathCollection``.
    """
    if isinstance(labels, (str, bytes)) or not isinstance(labels, Sequence):
        raise TypeError(f"labels must be a sequence of strings, got {type(labels).__name__}")
    labels = [str(t) for t in labels]
    fontsize = check_positive_float("fontsize", fontsize)
    if isinstance(centres, (str, bytes)) or not isinstance(centres, (Sequence, np.ndarray)):
        raise TypeError(
            f"centres must be a sequence of (x, y) points, got {type(centres).__name__}"
        )
    if len(centres) != len(labels):
        raise ValueError(
            f"centres must give one point per label ({len(labels)}), got {len(centres)}"
        )
    paths = [_label_path(t, fontsize) for t in labels]
    points_to_display = Affine2D().scale(1 / 72) + ax.figure.dpi_scale_trans
    collection = PathCollection(
        paths,
        facecolors=colors,
        edgecolors="none",
        offsets=np.asarray(centres, dtype=float).reshape(-1, 2),
        offset_transform=ax.transData,
        transform=points_to_display,
        zorder=3,
    )
    collection.labels = labels
    collection.fontsize = fontsize
    collection.centres = [tuple(map(float, c)) for c in centres]
    ax.add_collection(collection, autolim=False)
    return collection


def draw_label(
    ax: Axes,
    text: str,
    x: float,
    y: float,
    *,
    ha: str = "left",
    va: str = "center",
    fontsize: float = 8.0,
    color: str = "black",
) -> PathCollection:
    """Write one caption as glyph outlines on an inch canvas (``y`` down), aligned like ``ax.text``.

    :func:`draw_labels` caches the outlines, so an explorer that draws the same captions again
    and again does not lay them out each time.

    Args:
        ax: the axes (an :func:`inch_canvas`, whose ``y`` points down).
        text: the caption (lines separated by ``"\\n"`` are centred one below another).
        x, y: the anchor point in data coordinates.
        ha: ``"left"``, ``"center"`` or ``"right"``: where ``x`` lies on the caption.
        va: ``"top"``, ``"center"`` or ``"bottom"``: where ``y`` lies on the caption.
        fontsize: size in points.
        color: the text colour.

    Returns:
        the ``PathCollection`` of :func:`draw_labels`, moved to the alignment asked for.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__} {text!r}")
    x, y = check_real("x", x), check_real("y", y)
    if ha not in _HA:
        raise ValueError(f"ha must be one of {_HA}, got {ha!r}")
    if va not in _VA:
        raise ValueError(f"va must be one of {_VA}, got {va!r}")
    collection = draw_labels(ax, [text], [(x, y)], fontsize=fontsize, colors=color)
    vertices = collection.get_paths()[0].vertices  # points, centred on (0, 0)
    width, height = np.ptp(vertices, axis=0) if len(vertices) else (0.0, 0.0)
    dx = {"left": width / 2, "center": 0.0, "right": -width / 2}[ha] / 72
    dy = {"top": height / 2, "center": 0.0, "bottom": -height / 2}[va] / 72
    collection.set_offsets([(x + dx, y + dy)])
    return collection


def draw_number_grid(
    ax: Axes,
    values: Tensor | np.ndarray,
    *,
    cmap: str | Colormap = "viridis",
    vmin: float | None = None,
    vmax: float | None = None,
    fmt: str | Callable[[float], str] = "{:.0f}",
    fontsize: float = 8.0,
    show_numbers: bool = True,
    origin: tuple[float, float] | None = None,
    cell: float = 1.0,
    cell_width: float | None = None,
) -> AxesImage:
    """Draw a small matrix as coloured cells, each labelled with its value; no ticks.

    By default the grid fills the axes the way ``imshow`` does: cell ``(r, c)`` is centred on
    ``x = c, y = r`` with row 0 at the top, and the axes are switched off. With ``origin`` the
    grid's top-left corner goes to that point of the data coordinates and each cell is
    ``cell`` wide, so that several grids share one axes (whose ``y`` axis must point down,
    e.g. ``ax.set_ylim(bottom, top)`` with ``bottom > top``); the axes are then left as they
    are. One axes for many grids draws much faster than one axes per grid. The text is black
    on light cells and white on dark ones.

    Args:
        ax: the axes to draw on.
        values: ``[rows, cols]`` numbers.
        cmap: colormap name or object.
        vmin, vmax: colour limits (default: the values' range).
        fmt: format string or function turning a value into its label.
        fontsize: size of the labels.
        show_numbers: ``False`` draws the colours only (for grids too large to label).
        origin: ``(x, y)`` of the grid's top-left corner in data coordinates (default: the
            ``imshow`` placement described above).
        cell: side of one cell in data units (with ``origin``): its height, and its width
            unless ``cell_width`` is given.
        cell_width: the width of one cell in data units (with ``origin``; default ``cell``):
            wider cells give signed numbers room beside each other on a slide.

    Returns:
        the ``AxesImage``.
    """
    m = _matrix("values", values)
    rows, cols = m.shape
    lo = float(m.min()) if vmin is None else check_real("vmin", vmin)
    hi = float(m.max()) if vmax is None else check_real("vmax", vmax)
    fontsize = check_positive_float("fontsize", fontsize)
    show_numbers = check_bool("show_numbers", show_numbers)
    cell = check_positive_float("cell", cell)
    width = cell if cell_width is None else check_positive_float("cell_width", cell_width)
    if origin is not None:
        origin = _point("origin", origin)
    if hi <= lo:
        hi = lo + 1.0
    colormap = as_colormap(cmap)
    ox, oy = (-0.5, -0.5) if origin is None else origin
    size = 1.0 if origin is None else cell
    across = 1.0 if origin is None else width
    image = ax.imshow(
        m,
        cmap=colormap,
        vmin=lo,
        vmax=hi,
        interpolation="nearest",
        aspect="equal",
        extent=(ox, ox + cols * across, oy + rows * size, oy),
    )
    if origin is None:
        ax.set_axis_off()
    if show_numbers:
        label = fmt.format if isinstance(fmt, str) else fmt
        rgba = colormap((np.clip(m, lo, hi) - lo) / (hi - lo))  # [rows, cols, 4]
        dark = rgba[..., :3] @ np.array([0.299, 0.587, 0.114]) <= 0.5  # [rows, cols]
        centres = [
            (ox + (c + 0.5) * across, oy + (r + 0.5) * size) for r, c in np.ndindex(rows, cols)
        ]
        draw_labels(
            ax,
            [label(v) for v in m.reshape(-1)],
            centres,
            fontsize=fontsize,
            colors=np.where(dark.reshape(-1), "white", "black").tolist(),
        )
    return image


def outline_cells(
    ax: Axes,
    row: int,
    col: int,
    height: int = 1,
    width: int = 1,
    *,
    color: str = "red",
    lw: float = 2.0,
    origin: tuple[float, float] | None = None,
    cell: float = 1.0,
    **kwargs: Any,
) -> Rectangle:
    """Outline the block of cells with top-left cell ``(row, col)`` of a grid.

    Args:
        ax: the axes of the grid.
        row, col: top-left cell of the block.
        height, width: size of the block in cells.
        color: edge colour.
        lw: line width.
        origin, cell: where the grid sits, as in :func:`draw_number_grid` (default: a plain
            ``imshow``, cell ``(r, c)`` centred on ``(c, r)``).
        **kwargs: passed to ``Rectangle``.

    Returns:
        the ``Rectangle`` patch (unfilled, not clipped by the axes).
    """
    row = check_int("row", row, minimum=0)
    col = check_int("col", col, minimum=0)
    height = check_int("height", height)
    width = check_int("width", width)
    cell = check_positive_float("cell", cell)
    if origin is not None:
        origin = _point("origin", origin)
    ox, oy = (-0.5, -0.5) if origin is None else origin
    size = 1.0 if origin is None else cell
    kwargs.setdefault("clip_on", False)
    patch = Rectangle(
        (ox + col * size, oy + row * size),
        width * size,
        height * size,
        fill=False,
        ec=color,
        lw=lw,
        **kwargs,
    )
    ax.add_artist(patch)  # not add_patch: no data-limit update (it lies on its grid anyway)
    return patch


class Highlights:
    """Outlines of blocks of cells, each over a white halo, drawn at the end as one collection.

    The halo keeps an outline visible on dark and light cells alike. One collection draws much
    faster than two patches per outline, which matters for an explorer's redraws.
    """

    def __init__(self) -> None:
        self.boxes: list[tuple[float, float, float, float, str, float]] = []

    def add(
        self,
        row: int,
        col: int,
        height: int = 1,
        width: int = 1,
        *,
        origin: tuple[float, float],
        cell: float,
        color: str = "black",
        lw: float = 2.2,
    ) -> None:
        """Outline the block with top-left cell ``(row, col)`` of a grid placed at ``origin``."""
        self.boxes.append(
            (origin[0] + col * cell, origin[1] + row * cell, width * cell, height * cell, color, lw)
        )

    def draw(self, ax: Axes) -> LineCollection:
        """Draw every halo, then every outline; the collection carries ``.boxes``, one
        ``(x, y, width, height, colour)`` per outline, in the axes' data units."""
        rings = [
            [(x, y), (x + w, y), (x + w, y + h), (x, y + h), (x, y)]
            for x, y, w, h, _, _ in self.boxes
        ]
        colours = ["white"] * len(rings) + [b[4] for b in self.boxes]
        widths = [b[5] + 2.4 for b in self.boxes] + [b[5] for b in self.boxes]
        collection = LineCollection(
            rings * 2,
            colors=colours,
            linewidths=widths,
            zorder=4,
            capstyle="projecting",
            joinstyle="miter",
        )
        collection.boxes = [b[:5] for b in self.boxes]
        ax.add_collection(collection, autolim=False)
        return collection
