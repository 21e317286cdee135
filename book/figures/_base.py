"""Small drawing helpers shared by the plotting modules (no pyplot, no global state).

Figure rules of the book (``tests/test_figure_text.py`` checks every figure a chapter shows):
a figure is at most :data:`MAX_WIDTH` inches wide and every text is at least
:data:`MIN_FONT_SIZE` points, so that at :data:`CSS_DPI` CSS pixels per inch, the scale the
book shows figures at, the smallest text is 11 CSS px high in the 670 px column. Importing
this module in a Jupyter kernel asks the inline backend for 2× PNGs shown at 1×
(:func:`use_sharp_inline_figures`), so chapters need no set-up cell.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.colorbar import Colorbar
from matplotlib.colors import Colormap
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.ticker import MaxNLocator
from torch import Tensor

from book._checks import NAMED_POSITIONS, check_text
from book.figures._labels import relabel
from book.figures.measure import label_collections, smallest_text
from book.figures.png import palette_png, png_size
from posenc._checks import check_bool, check_int, check_positive_float, check_real

__all__ = [
    "CSS_DPI",
    "DIVERGING",
    "MAX_WIDTH",
    "MIN_FONT_SIZE",
    "PAD_INCHES",
    "SEQUENTIAL",
    "SLIDE_BOX",
    "SLIDE_TEXT_PX",
    "UNDEFINED",
    "as_colormap",
    "figure_svg",
    "fit_column",
    "grey_undefined",
    "heatmap",
    "index_ticks",
    "inset_colorbar",
    "new_figure",
    "panel_grid",
    "retina_palette_png",
    "sequence_position",
    "signed_label",
    "slide_png",
    "table_image",
    "text_overlaps",
    "to_numpy",
    "use_sharp_inline_figures",
    "with_slide_version",
]

CSS_DPI = 100
"""CSS pixels per inch of a figure as the book shows it (inline PNGs and explorer frames)."""
MAX_WIDTH = 6.7
"""The widest figure, in inches, that the book's column shows at full size: 670 CSS px, the
width of a cell's output (and of an explorer's frame) in a 1280 px window, measured."""
PAD_INCHES = 0.02
"""The margin around an inline figure's tight box, in inches (Jupyter's default is 0.1)."""
MIN_FONT_SIZE = 8.0
"""The smallest font size, in points, of any text of a figure: 11 CSS px at :data:`CSS_DPI`."""

SLIDE_BOX = (1180.0, 380.0)
"""The room, in CSS px of a 1280 × 720 slide, that a deck's figure may fill under its title and
a caption of two lines (``book/ext/slides_template/book_deck/index.html.j2`` enlarges it to
fit; measured: 380 to 400 px high)."""
SLIDE_TEXT_PX = 16.5
"""The smallest figure text on a slide, in the slide's CSS px: 24.75 px on a 1920 × 1080
projector, which shows the 1280 × 720 slide 1.5 times larger."""

DIVERGING = "RdBu_r"
SEQUENTIAL = "viridis"
UNDEFINED = "#d9d9d9"
"""The light grey of undefined cells (``nan``: padding, similarities of zero rows)."""


def _matrix(name: str, values: object) -> np.ndarray:
    """``values`` as a float64 ``[rows, cols]`` array; empty, complex or bool input refused."""
    if isinstance(values, Tensor):
        if values.is_complex() or values.dtype == torch.bool:
            raise TypeError(f"{name} must hold real numbers, got dtype {values.dtype}")
    elif isinstance(values, np.ndarray) and values.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold real numbers, got dtype {values.dtype}")
    m = to_numpy(values)
    if m.ndim != 2:
        raise ValueError(f"{name} must be a 2-D [rows, cols] table, got shape {m.shape}")
    if m.size == 0:
        raise ValueError(f"{name} must have at least one row and one column, got shape {m.shape}")
    return m


def _positive_pair(name: str, value: object, *, allow_zero: bool = False) -> tuple[float, float]:
    """``value`` as a pair of finite floats, each ``> 0`` (``>= 0`` with ``allow_zero``)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or len(value) != 2:
        raise TypeError(f"{name} must be a pair of numbers, got {value!r}")
    return (
        check_real(f"{name}[0]", value[0], minimum=0, inclusive=allow_zero),
        check_real(f"{name}[1]", value[1], minimum=0, inclusive=allow_zero),
    )


def new_figure(
    width: float = 7.0, height: float = 3.2, *, layout: str | None = "constrained", **kwargs: Any
) -> Figure:
    """A fresh ``Figure`` detached from pyplot (constrained layout unless ``layout`` says otherwise).

    Constrained layout roughly doubles the time to draw a figure; explorers that must redraw
    in under 100 ms can pass ``layout=None`` and place their axes themselves.

    Args:
        width, height: the size in inches (finite, ``> 0``).
        layout: the layout engine (``"constrained"``, ``"tight"``, ``None`` for none).
        **kwargs: passed to ``Figure``.

    Returns:
        the new ``Figure``.
    """
    width = check_positive_float("width", width)
    height = check_positive_float("height", height)
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
    count = check_int("count", count)
    columns = min(check_int("columns", columns), count)
    panel_w, panel_h = _positive_pair("panel_size", panel_size)
    margin_w, margin_h = _positive_pair("margin", margin, allow_zero=True)
    rows = -(-count // columns)
    fig = new_figure(panel_w * columns + margin_w, panel_h * rows + margin_h)
    axes = list(fig.subplots(rows, columns, sharex=True, sharey=True, squeeze=False).flat)
    for ax in axes[count:]:
        ax.set_visible(False)
    return fig, axes[:count]


def to_numpy(x: Tensor | np.ndarray) -> np.ndarray:
    """A float64 NumPy copy of a tensor or array (detached, on the CPU).

    Args:
        x: a tensor or anything ``np.asarray`` takes.

    Returns:
        the float64 array.
    """
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
) -> AxesImage:
    """Draw ``matrix`` on ``ax`` (row 0 at the top); symmetric colour limits by default.

    Undefined entries (``nan``) are allowed: the colormap's "bad" colour draws them (see
    :func:`grey_undefined`).

    Args:
        ax: the axes to draw on.
        matrix: the ``[rows, cols]`` values (at least one of each).
        symmetric: colour limits ``±vmax`` (default ``vmax``: the largest ``|value|``), on a
            diverging colormap.
        cmap: the colormap (default: diverging if ``symmetric``, else sequential).
        colorbar: add a colour bar beside ``ax``.
        vmax: the upper colour limit (``> 0`` when ``symmetric``).
        **imshow_kwargs: passed to ``ax.imshow``.

    Returns:
        the ``AxesImage``.
    """
    m = _matrix("matrix", matrix)
    symmetric = check_bool("symmetric", symmetric)
    colorbar = check_bool("colorbar", colorbar)
    if vmax is not None:
        vmax = check_real("vmax", vmax, minimum=0 if symmetric else None, inclusive=False)
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
    m = _matrix("table", table)  # [n, d]
    colorbar = check_bool("colorbar", colorbar)
    n, d = m.shape
    if max_rows is not None and n > check_int("max_rows", max_rows):
        r = math.ceil(n / max_rows)
        pad = (-n) % r
        padded = np.concatenate([m, np.repeat(m[-1:], pad, axis=0)])  # [n + pad, d]
        m = padded.reshape(-1, r, d).mean(axis=1)  # [(n + pad) / r, d]
    image = heatmap(ax, m, vmax=1.0, colorbar=colorbar, extent=(-0.5, d - 0.5, n - 0.5, -0.5))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    return image


def as_colormap(cmap: str | Colormap) -> Colormap:
    """The colormap ``cmap`` names (or ``cmap`` itself), refusing an unknown name.

    Args:
        cmap: a registered colormap name (``"viridis"``, ``"RdBu_r"``, …) or a ``Colormap``.

    Returns:
        the ``Colormap``.
    """
    if isinstance(cmap, Colormap):
        return cmap
    if not isinstance(cmap, str):
        raise TypeError(f"cmap must be a colormap or its name, got {type(cmap).__name__}")
    if cmap not in colormaps:
        raise ValueError(f"cmap must name a registered colormap, got {cmap!r}")
    return colormaps[cmap]


def grey_undefined(cmap: str | Colormap) -> Colormap:
    """``cmap`` (a name or a colormap) with undefined values (``nan``) drawn in light grey.

    ``imshow`` marks ``nan`` cells "bad"; this gives them the colour :data:`UNDEFINED`, the same
    grey for padding and for similarities of all-zero rows. Calling the colormap on an array
    (for an RGBA image composed by hand) maps ``nan`` to the same grey.

    Args:
        cmap: a colormap name or object.

    Returns:
        a copy of the colormap whose "bad" colour is :data:`UNDEFINED`.
    """
    base = as_colormap(cmap)
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
    round_steps = check_bool("round_steps", round_steps)
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
    if isinstance(ticks, (str, bytes)) or not isinstance(ticks, (Sequence, np.ndarray)):
        raise TypeError(f"ticks must be a sequence of numbers, got {type(ticks).__name__}")
    ticks = [check_real(f"ticks[{i}]", t) for i, t in enumerate(ticks)]
    gap = check_real("gap", gap)
    width = check_positive_float("width", width)
    tick_size = check_positive_float("tick_size", tick_size)
    label_size = check_positive_float("label_size", label_size)
    label = check_text("label", label)
    cbar = ax.figure.colorbar(image, cax=ax.inset_axes([1.0 + gap, 0.0, width, 1.0]))
    # set afterwards, not passed to colorbar(): a tick a little beyond the colour range (a
    # rounded maximum) then widens the bar's axis to show it instead of being dropped
    cbar.set_ticks(ticks)
    if label:
        cbar.set_label(label, fontsize=label_size)
    cbar.ax.tick_params(labelsize=tick_size)
    return cbar


def sequence_position(query: str | int, n: int, *, name: str = "query") -> int:
    """Resolve ``"first"``, ``"middle"``, ``"last"`` or a position to an index in ``0..n−1``.

    ``"middle"`` is ``round((n − 1) / 2)``, so the same name picks a comparable query whatever
    the length an explorer shows.

    Args:
        query: a name among :data:`book._checks.NAMED_POSITIONS` or a position ``0 … n − 1``.
        n: the length of the sequence (``>= 1``).
        name: the argument's name in error messages (e.g. ``"highlight"``).

    Returns:
        the index in ``0 … n − 1``.
    """
    n = check_int("n", n)
    if isinstance(query, str):
        if query not in NAMED_POSITIONS:
            raise ValueError(
                f"{name} must be one of {sorted(NAMED_POSITIONS)} or a position, got {query!r}"
            )
        return round(NAMED_POSITIONS[query] * (n - 1))
    i = check_int(name, query, minimum=0)
    if i >= n:
        raise ValueError(f"{name} must be < n = {n}, got {i}")
    return i


def signed_label(v: float) -> str:
    """``+2``, ``0``, ``−2``: an offset as a label, with a real minus sign.

    Args:
        v: the offset (a finite number, rounded to an integer).

    Returns:
        the label.
    """
    v = check_real("v", v)
    return f"+{v:.0f}" if v > 0 else f"−{-v:.0f}" if v < 0 else "0"


def _all_axes(fig: Figure) -> list[Axes]:
    """Every axes of ``fig``, with the insets (colour bars) of each."""
    out: list[Axes] = []
    todo = list(fig.axes)
    while todo:
        ax = todo.pop()
        if ax not in out:
            out.append(ax)
            todo.extend(ax.child_axes)
    return out


def fit_column(
    fig: Figure,
    *,
    max_width: float = MAX_WIDTH - 2 * PAD_INCHES,
    min_size: float = MIN_FONT_SIZE,
) -> Figure:
    """Make ``fig`` legible in the book's column: at most ``max_width`` inches, no tiny text.

    A wider figure is scaled down whole (width and height, so its shape stays), and every
    text smaller than ``min_size`` points (titles, labels, legends, annotations, tick labels,
    colour-bar ticks, grid labels drawn by :func:`book.figures._grid.draw_labels`) is
    raised to it. At :data:`CSS_DPI` that makes the smallest text 11 CSS px in a 670 px column.
    Figure functions call it last; it draws nothing, so an explorer's redraw stays fast.
    The default width leaves room for the :data:`PAD_INCHES` margin of an inline figure.

    Args:
        fig: the figure, modified in place.
        max_width: the widest figure in inches (finite, ``> 0``).
        min_size: the smallest font size in points (finite, ``> 0``).

    Returns:
        ``fig``.
    """
    from matplotlib.text import Text

    max_width = check_positive_float("max_width", max_width)
    min_size = check_positive_float("min_size", min_size)
    width, height = fig.get_size_inches()
    if width > max_width:
        scale = max_width / width
        fig.set_size_inches(max_width, height * scale)
    for ax in _all_axes(fig):
        for axis in (ax.xaxis, ax.yaxis):
            for which, ticks in (("major", axis.get_major_ticks), ("minor", axis.get_minor_ticks)):
                shown = ticks()
                if shown and shown[0].label1.get_fontsize() < min_size:
                    axis.set_tick_params(which=which, labelsize=min_size)
        for c in ax.collections:  # glyph-outline labels (_grid.draw_labels)
            if hasattr(c, "labels") and getattr(c, "fontsize", min_size) < min_size:
                relabel(c, min_size)
    for t in fig.findobj(Text):
        if t.get_fontsize() < min_size:
            t.set_fontsize(min_size)
    return fig


def retina_palette_png(fig: Figure) -> tuple[str, dict[str, float]]:
    """``fig`` as a 2× PNG (cropped to its tight box) with a 256-colour palette, its 1× size,
    the size of its smallest text, and the figure as SVG.

    What Jupyter's "retina" format does (twice ``fig.dpi``, the metadata giving the width and
    height to show it at), plus the explorers' palette (:func:`book.figures.png.palette_png`),
    which keeps about a third of the bytes: the book's pages stay small. ``text_px`` is the
    smallest text in CSS px when the figure is shown at its 1× size
    (:func:`book.figures.measure.smallest_text`, no column): the slide decks scale it by the
    size they show the figure at, and their browser test asks for 24 px at 1080p. ``svg`` is
    :func:`figure_svg`, which the figure gallery publishes (``book/ext/gallery.py``); no
    front end shows metadata, so the page still shows the PNG.

    Args:
        fig: the figure.

    Returns:
        the PNG in base64 (as Jupyter's PNG formatters give it) and ``{"width": …,
        "height": …, "svg": …}`` (CSS px, the SVG's text), with ``"text_px"`` when the figure
        has text and ``"slide"`` when a deck needs a version of its own (:func:`slide_png`).
    """
    import base64
    import io

    buffer = io.BytesIO()
    fig.savefig(
        buffer,
        format="png",
        dpi=2 * fig.dpi,
        bbox_inches="tight",
        pad_inches=PAD_INCHES,
        pil_kwargs={"compress_level": 1},  # fast: palette_png compresses it again
    )
    data = palette_png(buffer.getvalue())
    width, height = png_size(data)
    metadata: dict[str, float] = {"width": width // 2, "height": height // 2}
    text_px = smallest_text(
        fig, css_dpi=fig.dpi, tight=True, column=math.inf, pad_inches=PAD_INCHES
    )[0]
    metadata["svg"] = figure_svg(fig)  # type: ignore[assignment]
    if math.isfinite(text_px):
        metadata["text_px"] = round(text_px, 1)
        draw = getattr(fig, "slide_version", None)
        if draw is None:
            slide = slide_png(fig, metadata["width"], metadata["height"], text_px)
        else:  # a layout drawn for a slide
            other = draw()
            size = _tight_css_size(other)
            other_px = smallest_text(
                other, css_dpi=other.dpi, tight=True, column=math.inf, pad_inches=PAD_INCHES
            )[0]
            slide = slide_png(other, *size, other_px, always=True)
        if slide is not None:
            metadata["slide"] = slide
    return base64.b64encode(data).decode("ascii"), metadata


def figure_svg(fig: Figure) -> str:
    """``fig`` as a self-contained SVG document, cropped as the page's PNG is.

    Text is drawn as paths (matplotlib's default ``svg.fonttype``), so the file shows the same
    everywhere without the book's fonts; the ids and the metadata are fixed, so the same figure
    always gives the same bytes.

    Args:
        fig: the figure.

    Returns:
        the SVG's text.
    """
    import io

    import matplotlib

    buffer = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": "posenc-book", "svg.fonttype": "path"}):
        fig.savefig(
            buffer,
            format="svg",
            bbox_inches="tight",
            pad_inches=PAD_INCHES,
            metadata={"Date": None, "Creator": "posenc book (matplotlib)"},
        )
    return buffer.getvalue().decode("utf-8")


def _tight_css_size(fig: Figure) -> tuple[float, float]:
    """``fig``'s width and height in CSS px when saved tight with :data:`PAD_INCHES`."""
    renderer = fig._get_renderer()
    fig.draw(renderer)
    box = fig.get_tightbbox(renderer)
    return (box.width + 2 * PAD_INCHES) * fig.dpi, (box.height + 2 * PAD_INCHES) * fig.dpi


def _root(artist: Any) -> Any:
    """The top-level figure an artist is drawn in (through any subfigures)."""
    return artist.get_figure(root=True)


def _drawn_texts(fig: Figure) -> list[Any]:
    """The visible, non-empty :class:`~matplotlib.text.Text` artists that drawing ``fig``
    draws, subfigures' included: not the tick labels matplotlib keeps but skips (of ticks
    outside an axis's view, or of an axis turned off)."""
    from matplotlib.text import Text

    undrawn = set()
    for ax in _all_axes(fig):
        for axis in (ax.xaxis, ax.yaxis):
            ticks = axis.majorTicks + axis.minorTicks
            drawn = (
                {id(label) for tick in axis._update_ticks() for label in (tick.label1, tick.label2)}
                if ax.axison
                else set()
            )
            for tick in ticks:
                undrawn |= {id(label) for label in (tick.label1, tick.label2)} - drawn
    return [
        t
        for t in fig.findobj(Text)
        if t.get_visible() and t.get_text().strip() and _root(t) is fig and id(t) not in undrawn
    ]


def _smallest_drawn_points(fig: Figure) -> float:
    """The font size in points of ``fig``'s smallest drawn text (:func:`_drawn_texts` and the
    glyph-outline labels); ``inf`` when it has none."""
    sizes = [t.get_fontsize() for t in _drawn_texts(fig)]
    sizes += [c.fontsize for c in label_collections(fig) if c.get_visible() and c.labels]
    return min(sizes, default=math.inf)


def text_overlaps(fig: Figure) -> int:
    """How many pairs of ``fig``'s texts overlap as last drawn (draw it first).

    Texts are the drawn :class:`~matplotlib.text.Text` artists (:func:`_drawn_texts`) and
    every label of the glyph-outline collections (:func:`book.figures._grid.draw_labels`),
    each by its box in display px, shrunk by half a pixel so that touching boxes do not count.
    """
    renderer = fig._get_renderer()
    boxes = []
    for t in _drawn_texts(fig):
        b = t.get_window_extent(renderer)
        boxes.append((b.x0, b.y0, b.x1, b.y1))
    for c in label_collections(fig):
        if not c.get_visible():
            continue
        offsets = c.get_offset_transform().transform(c.get_offsets())
        for path, (x, y) in zip(c.get_paths(), offsets):
            b = c.get_transform().transform_bbox(path.get_extents())
            boxes.append((x + b.x0, y + b.y0, x + b.x1, y + b.y1))
    if len(boxes) < 2:
        return 0
    a = np.asarray(boxes) + np.array([0.5, 0.5, -0.5, -0.5])
    x0, y0, x1, y1 = (a[:, k] for k in range(4))
    hit = (
        (x0[:, None] < x1[None, :])
        & (x0[None, :] < x1[:, None])
        & (y0[:, None] < y1[None, :])
        & (y0[None, :] < y1[:, None])
    )
    return int((np.triu(hit, 1)).sum())


def with_slide_version(fig: Figure, draw: Callable[[], Figure]) -> Figure:
    """Give ``fig`` a layout of its own for the slide decks.

    Some figures cannot be shrunk for a slide (:func:`slide_png`): a grid of numbers stops at
    its digits. Their figure function draws a second layout that suits a wide, low slide
    (panels in a row rather than stacked) and attaches it here; :func:`retina_palette_png`
    then makes the slide version from ``draw()`` instead of from ``fig``.

    Args:
        fig: the page's figure.
        draw: draws the slide's layout of the same figure (called once, when ``fig`` is shown).

    Returns:
        ``fig``, with the attribute ``slide_version`` set to ``draw``.
    """
    if not callable(draw):
        raise TypeError(f"draw must be callable, got {type(draw).__name__}")
    fig.slide_version = draw  # type: ignore[attr-defined]
    return fig


def _raise_text(fig: Figure, min_size: float) -> Callable[[], None]:
    """Raise every text of ``fig`` smaller than ``min_size`` points to it (as
    :func:`fit_column` does); return a function that puts every size back."""
    from matplotlib.text import Text

    texts = [(t, t.get_fontsize()) for t in fig.findobj(Text)]
    collections = [(c, c.fontsize) for c in label_collections(fig)]
    ticks = []
    for ax in _all_axes(fig):
        for axis in (ax.xaxis, ax.yaxis):
            for which, shown in (("major", axis.get_major_ticks), ("minor", axis.get_minor_ticks)):
                labels = shown()
                if labels:
                    ticks.append((axis, which, labels[0].label1.get_fontsize()))
    fit_column(fig, max_width=1e6, min_size=min_size)

    def restore() -> None:
        for axis, which, size in ticks:
            axis.set_tick_params(which=which, labelsize=size)
        for c, size in collections:
            relabel(c, size)
        for t, size in texts:
            t.set_fontsize(size)

    return restore


def slide_png(
    fig: Figure, width: float, height: float, text_px: float, *, always: bool = False
) -> dict[str, Any] | None:
    """A version of ``fig`` for a slide, when the page's version would show its text too small.

    A deck enlarges a figure to fill :data:`SLIDE_BOX`, by ``fit = min(box_w / width,
    box_h / height)``; its smallest text then measures ``text_px · fit``. When that is under
    :data:`SLIDE_TEXT_PX`, the figure is drawn again at a smaller size in inches with the same
    font sizes in points (its text relatively larger, its layout redone), 6% at a time, until
    ``text_px · fit ≥ SLIDE_TEXT_PX``, its size reaches 40% of the page's, or a step would
    make texts overlap that did not (:func:`text_overlaps`: a grid of numbers cannot shrink
    past its digits). If its smallest text is still too small, that text (tick labels, grid
    digits, legends) is then raised, half a point at a time, as long as no texts overlap that
    did not and it stays under 1.8 times its size. The result is rendered at the resolution a
    1920 × 1080 projector shows it at. ``fig`` is left as it was. A figure that can neither
    shrink nor raise its text gets no slide version.

    Args:
        fig: the figure.
        width: its width in CSS px on the page (1×, tight).
        height: its height in CSS px on the page (1×, tight).
        text_px: its smallest text in CSS px on the page.
        always: render a version even when none is needed or it cannot shrink (a layout drawn
            for the slide, :func:`with_slide_version`).

    Returns:
        ``None`` when the page's version is large enough or cannot change (and not
        ``always``), else ``{"png": base64, "width": …, "height": …, "text_px": …}``: the
        slide's PNG and its 1× size and smallest text in CSS px (what the deck's template
        reads for the page's version).
    """
    import base64
    import io
    import warnings

    def fit(w: float, h: float) -> float:
        return min(SLIDE_BOX[0] / w, SLIDE_BOX[1] / h)

    if text_px * fit(width, height) >= SLIDE_TEXT_PX and not always:
        return None
    original = fig.get_size_inches().copy()
    restore: Callable[[], None] | None = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a layout engine's complaints about the small size
            _tight_css_size(fig)
            overlaps = text_overlaps(fig)
            best = (1.0, width, height) if always else None  # shrink, w, h
            shrink, w, h = 1.0, width, height
            while text_px * fit(w, h) < SLIDE_TEXT_PX and shrink > 0.4:
                shrink = max(0.4, shrink * 0.94)
                fig.set_size_inches(original * shrink)
                w, h = _tight_css_size(fig)
                if text_overlaps(fig) > overlaps:
                    break
                best = (shrink, w, h)
            shrink, w, h = best or (1.0, width, height)
            fig.set_size_inches(original * shrink)
            px = text_px
            points = _smallest_drawn_points(fig)  # what the page's version draws
            if math.isfinite(points) and points * fig.dpi / 72 * fit(w, h) < SLIDE_TEXT_PX:
                # raise the smallest text
                px = points * fig.dpi / 72
                size = points
                while px * fit(w, h) < SLIDE_TEXT_PX and size + 0.5 <= 1.8 * points:
                    size += 0.5
                    undo = _raise_text(fig, size)
                    w2, h2 = _tight_css_size(fig)
                    if text_overlaps(fig) > overlaps:
                        undo()
                        break
                    if restore is not None:
                        undo = restore  # the first raise's undo restores the page's sizes
                    restore = undo
                    px, w, h = size * fig.dpi / 72, w2, h2
                    best = (shrink, w, h)
                _tight_css_size(fig)
            if best is None:
                return None
            buffer = io.BytesIO()
            fig.savefig(
                buffer,
                format="png",
                dpi=fig.dpi * min(4.0, 1.5 * fit(w, h)),  # a projector's pixels, at most 4×
                bbox_inches="tight",
                pad_inches=PAD_INCHES,
                pil_kwargs={"compress_level": 1},
            )
    finally:
        if restore is not None:
            restore()
        fig.set_size_inches(original)
    data = palette_png(buffer.getvalue())
    return {
        "png": base64.b64encode(data).decode("ascii"),
        "width": round(float(w), 1),
        "height": round(float(h), 1),
        "text_px": round(float(px), 1),
    }


def use_sharp_inline_figures() -> bool:
    """In a Jupyter kernel, show inline figures as 2× PNGs at their 1× size.

    Sets ``InlineBackend.figure_formats = {"retina"}`` (what ``%config`` would set, so the
    setting survives a later ``%matplotlib inline``) and shows figures through
    :func:`retina_palette_png`: rendered at twice their ``dpi`` with the output's metadata
    giving the 1× width and height, which the book's HTML keeps: sharp on 2× screens and
    projectors, the same size on the page. Outside a kernel (scripts, tests) it does nothing.

    Returns:
        whether a kernel was found and the setting made.
    """
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with Jupyter
        return False
    shell = get_ipython()
    if shell is None or not hasattr(shell, "kernel"):
        return False
    from matplotlib_inline.config import InlineBackend

    InlineBackend.instance().figure_formats = {"retina"}
    shell.display_formatter.formatters["image/png"].for_type(Figure, retina_palette_png)
    return True


use_sharp_inline_figures()
