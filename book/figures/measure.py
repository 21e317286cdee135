"""What a figure drew, read back: its smallest text and its glyph-outline labels.

The book's rule for figures (CONTRIBUTING.md, "Writing a chapter") is measured here, once,
for the tests (``tests/book/test_figure_text.py``) and for ``python -m book figure-sizes``.
"""

from matplotlib.collections import PathCollection
from matplotlib.figure import Figure

__all__ = ["COLUMN_PX", "MIN_TEXT_PX", "label_collections", "smallest_points", "smallest_text"]


def label_collections(fig: Figure) -> list[PathCollection]:
    """The glyph-outline label collections of ``fig`` (``book.figures._grid.draw_labels``)."""
    return [c for ax in fig.axes for c in ax.collections if hasattr(c, "labels")]


COLUMN_PX = 680
"""CSS px of the book's column (issue 13's rule, a 1280 px window); a wider figure is shrunk to
fit. Measured in chromium, a cell's output is 672 and an explorer's frame 670 CSS px wide, so
posenc's own figures keep to ``book.figures._base.MAX_WIDTH`` = 6.7 in (670 px)."""
MIN_TEXT_PX = 11.0
"""Issue 13: the smallest text of a figure, in CSS px at the size the book shows it."""


def smallest_points(fig: Figure) -> float:
    """The size in points of the smallest visible text of ``fig`` as last drawn (``inf`` if it
    has none). Draw it first (``savefig`` does): tick labels exist only once drawn."""
    from matplotlib.text import Text

    sizes = [
        t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()
    ]
    sizes += [c.fontsize for c in label_collections(fig) if c.get_visible() and c.labels]
    return min(sizes, default=float("inf"))


def smallest_text(
    fig: Figure, *, css_dpi: float, tight: bool, column: float = COLUMN_PX, pad_inches: float = 0.0
) -> tuple[float, str, float, float]:
    """The smallest visible text of ``fig`` in CSS px at the size the book shows it.

    ``px = points · css_dpi / 72 · min(1, column / width_css)``, where ``width_css`` is the
    figure's width (its tight bounding box plus ``pad_inches`` each side when saved tight, as
    inline figures are) times ``css_dpi``, the CSS pixels per inch it is shown at.

    Returns:
        ``(px, text, points, width_css)``; ``px`` is ``inf`` (and ``text`` empty) for a
        figure without text.
    """
    from matplotlib.text import Text

    renderer = fig._get_renderer()  # works for figures made without pyplot too
    fig.draw(renderer)
    width_in = fig.get_tightbbox(renderer).width + 2 * pad_inches if tight else fig.get_figwidth()
    width_css = width_in * css_dpi
    scale = min(1.0, column / width_css) if width_css else 1.0
    best = (float("inf"), "", 0.0, width_css)
    for t in fig.findobj(Text):
        if not t.get_visible() or not t.get_text().strip():
            continue
        px = t.get_fontsize() * css_dpi / 72 * scale
        if px < best[0]:
            best = (px, t.get_text().strip()[:40], t.get_fontsize(), width_css)
    for c in label_collections(fig):  # labels drawn as glyph outlines (_grid.draw_labels)
        if c.get_visible() and c.labels:
            px = c.fontsize * css_dpi / 72 * scale
            if px < best[0]:
                best = (px, min(c.labels, key=len)[:40], c.fontsize, width_css)
    return best
