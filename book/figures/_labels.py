"""Labels drawn as cached glyph outlines: one collection for many short labels.

Laying out glyphs is the slow part of drawing text, and an explorer draws the same labels again
and again, so :func:`book.figures._grid.draw_labels` draws them as outlines cached here. This
module sits below both :mod:`book.figures._base` (whose ``fit_column`` raises small labels
with :func:`relabel`) and :mod:`book.figures._grid` (which draws them).
"""

from __future__ import annotations

import functools

import numpy as np
from matplotlib.collections import PathCollection
from matplotlib.font_manager import FontProperties
from matplotlib.path import Path
from matplotlib.textpath import TextPath

from posenc._checks import check_positive_float

__all__ = ["relabel"]

_LABEL_FONT = FontProperties(family="DejaVu Sans")


@functools.lru_cache(maxsize=4096)
def _label_path(text: str, fontsize: float) -> Path:
    """The outline of ``text`` in points, centred on ``(0, 0)``, lines centred one below another.

    Cached: laying out glyphs is the slow part of drawing text, and an explorer draws the
    same labels again and again. The path is read-only (its vertex and code arrays cannot be
    written, nor replaced), since every caller shares it.
    """
    lines = text.split("\n")
    pitch = 1.25 * fontsize  # distance between baselines
    parts = []
    for k, line in enumerate(lines):
        if not line.strip():
            continue  # an empty line only takes its place
        path = TextPath((0, 0), line, size=fontsize, prop=_LABEL_FONT)
        if len(path.vertices) == 0:
            continue
        x0, x1 = path.vertices[:, 0].min(), path.vertices[:, 0].max()
        # centre each line; the block's middle sits at y = 0 (0.36·size: the middle of a digit)
        shift = np.array([-(x0 + x1) / 2, -0.36 * fontsize + (len(lines) - 1 - 2 * k) * pitch / 2])
        parts.append(Path(path.vertices + shift, path.codes))
    if not parts:
        return Path(np.zeros((0, 2)), readonly=True)
    compound = Path.make_compound_path(*parts)
    return Path(compound.vertices, compound.codes, readonly=True)


def relabel(collection: PathCollection, fontsize: float) -> PathCollection:
    """Redraw the labels of a :func:`draw_labels` collection at another size, in place.

    Args:
        collection: a collection made by :func:`draw_labels`.
        fontsize: the new size in points.

    Returns:
        the collection.
    """
    if not hasattr(collection, "labels"):
        raise TypeError("collection must be made by draw_labels (it has no .labels)")
    fontsize = check_positive_float("fontsize", fontsize)
    collection.set_paths([_label_path(t, fontsize) for t in collection.labels])
    collection.fontsize = fontsize
    return collection
