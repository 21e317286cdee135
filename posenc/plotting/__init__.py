"""Figures for the book, in pure matplotlib: every function returns a new ``Figure``.

Nothing here touches ``pyplot`` or global state, so the functions are safe to call from
tests, from explorers and from readers' scripts. One module per family of encodings; the
most used functions are re-exported here.
"""

from ._base import heatmap, new_figure

__all__ = ["heatmap", "new_figure"]
