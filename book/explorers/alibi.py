"""The book's explorer for ALiBi (chapter 9)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from matplotlib.figure import Figure

from book._checks import check_defaults, check_values
from book.explorers.explorer import Explorer, LiveRange, explorer
from book.figures.alibi import alibi_explorer_figure
from posenc._checks import check_int

__all__ = ["alibi_explorer"]


def alibi_explorer(
    heads: Sequence[int] = (4, 8, 12, 16),
    *,
    n: int = 41,
    defaults: Mapping[str, object] | None = None,
) -> Explorer:
    """Explore ALiBi's per-head biases and what they do to one query's attention.

    One query in the middle of ``tokens`` tokens: its bias to every key, one line per head,
    and its attention weights when all content logits are equal
    (:func:`book.figures.alibi.alibi_explorer_figure`). ``heads`` sets the number of
    heads, and so the slopes (powers of two; interleaved extra slopes for counts that are
    not powers of two); ``causal`` switches between the decoder's masked, one-sided bias
    and the symmetric ``−m|i − j|``; ``tokens`` sets how far the query looks on each side.

    Live in the static book: the reader's browser draws any number of heads from 1 to 64
    (powers of two or not, with the paper's rule for the others) and any odd number of
    tokens from 3 to 401 (the drawer ``alibi``, ``book/ext/twin_static/drawers/alibi.js``,
    with posenc's JavaScript twin); the listed values are those the kernel's widget offers
    (``tokens``: ``n`` alone), and the page stores only the default figure, for print and for
    a page without JavaScript. The ranges widen to take in any listed value beyond them.

    Args:
        heads: values of the ``heads`` control.
        n: tokens in the figure (odd, at least 3): the ``tokens`` control's value in the
            kernel's widget, and its first value in the book.
        defaults: initial values by control name (default ``heads=8, causal=True`` when
            offered).

    Returns:
        a live :class:`~book.explorers.explorer.Explorer` with controls ``heads``,
        ``causal`` and ``tokens``; the kernel's widget renders ``2·len(heads)`` figures at
        most (8 with the defaults).
    """
    heads = check_values("heads", heads, check_int)
    n = check_int("n", n, minimum=3)
    if n % 2 == 0:
        raise ValueError(f"n must be odd (the query in the middle of the tokens), got {n}")
    start: dict[str, object] = {"causal": True}
    if 8 in heads:
        start["heads"] = 8
    start.update(check_defaults(defaults))

    def render(heads: int, causal: bool, tokens: int) -> Figure:
        return alibi_explorer_figure(heads, causal, n=tokens)

    ranges = {
        "heads": LiveRange(1, max(64, *heads), step=1),
        "tokens": LiveRange(3, max(401, n), step=2),
    }
    return explorer(
        render,
        {"heads": heads, "causal": [False, True], "tokens": (n,)},
        defaults=start,
        title="ALiBi: one query's bias and attention, head by head",
        live="alibi",
        ranges=ranges,
    )
