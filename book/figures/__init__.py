"""Figures for the book, in pure matplotlib: every function returns a new ``Figure``.

Nothing here touches ``pyplot``, so the functions are safe to call from tests, from
explorers and from readers' scripts. One setting is made on import, and only inside a Jupyter
kernel: :func:`~book.figures._base.use_sharp_inline_figures` shows inline figures as 2×
PNGs at their 1× size (``%config InlineBackend.figure_formats = {"png"}`` undoes it). One
module per family of encodings; the most used functions are re-exported here.
"""

from book.figures._base import heatmap, new_figure

__all__ = ["heatmap", "new_figure"]
