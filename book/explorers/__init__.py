"""Interactive explorers for the book and for readers' own figures.

:func:`explorer` is the one mechanism (see :mod:`book.explorers.explorer`); the other modules
hold the book's ready-made explorers, one module per family of encodings, each a function
``*_explorer(...) -> Explorer`` built on the drawing functions of :mod:`book.figures`.
"""

from book.explorers.explorer import Control, Explorer, explorer

__all__ = ["Control", "Explorer", "explorer"]
