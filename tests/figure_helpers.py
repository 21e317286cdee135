"""Helpers that tests use to read what a figure drew."""

from matplotlib.collections import PathCollection
from matplotlib.figure import Figure


def label_collections(fig: Figure) -> list[PathCollection]:
    """The glyph-outline label collections of ``fig`` (``posenc.plotting._grid.draw_labels``)."""
    return [c for ax in fig.axes for c in ax.collections if hasattr(c, "labels")]
