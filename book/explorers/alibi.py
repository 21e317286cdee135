"""The book's explorer for ALiBi (chapter 9)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from matplotlib.figure import Figure

from book._checks import check_defaults, check_values
from book.explorers.explorer import Explorer, explorer
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

    One query in the middle of ``n`` tokens: its bias to every key, one line per head, and
    its attention weights when all content logits are equal
    (:func:`book.figures.alibi.alibi_explorer_figure`). ``heads`` sets the number of
    heads, and so the slopes (powers of two; interleaved extra slopes for counts that are
    not powers of two); ``causal`` switches between the decoder's masked, one-sided bias
    and the symmetric ``−m|i − j|``.

    Args:
        heads: values of the ``heads`` control.
        n: tokens in the figure (odd).
        defaults: initial values by control name (default ``heads=8, causal=True`` when
            offered).

    Returns:
        an :class:`~book.explorers.explorer.Explorer` with controls ``heads`` and
        ``causal``; ``2·len(heads)`` figures are pre-rendered for the static book (8 with
        the defaults).
    """
    heads = check_values("heads", heads, check_int)
    n = check_int("n", n, minimum=3)
    start: dict[str, object] = {"causal": True}
    if 8 in heads:
        start["heads"] = 8
    start.update(check_defaults(defaults))

    def render(heads: int, causal: bool) -> Figure:
        return alibi_explorer_figure(heads, causal, n=n)

    return explorer(
        render,
        {"heads": heads, "causal": [False, True]},
        defaults=start,
        title="ALiBi: one query's bias and attention, head by head",
    )
