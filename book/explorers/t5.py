"""The book's explorer for T5's bucketed relative bias (chapter 9)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from matplotlib.figure import Figure

from book._checks import check_defaults, check_values
from book.explorers.explorer import Explorer, LiveRange, explorer
from book.figures.t5 import t5_explorer_figure
from posenc._checks import check_even, check_int

__all__ = ["t5_explorer"]


def t5_explorer(
    num_buckets: Sequence[int] = (8, 32, 64),
    max_distances: Sequence[int] = (64, 128),
    *,
    max_offset: int = 200,
    n: int = 48,
    defaults: Mapping[str, object] | None = None,
) -> Explorer:
    """Explore T5's buckets: how ``num_buckets`` and ``max_distance`` carve up the offsets.

    Left: the bucket of every offset in ``−max_offset..max_offset``; right: the bucket of
    every query-key pair of ``tokens`` tokens (:func:`book.figures.t5.t5_explorer_figure`).
    Each panel counts the buckets its own offsets use (``±max_offset`` on the left,
    ``±(tokens − 1)`` on the right), so the two counts can differ.
    More buckets widen the exact range (a quarter of them per direction when bidirectional, half
    when not) and refine the logarithmic ones; ``max_distance`` stretches the logarithmic
    range; ``bidirectional`` switches between an encoder's two halves and a decoder's
    one-sided buckets; ``tokens`` sets the length of the sequence on the right.

    Live in the static book: the reader's browser draws any even ``num_buckets`` from 4 to 64,
    any ``max_distance`` from 33 to 1024 and any number of tokens from 2 to 256 (the drawer
    ``t5``, ``book/ext/twin_static/drawers/t5.js``, with posenc's JavaScript twin); the listed
    values are those the kernel's widget offers (``tokens``: ``n`` alone), and the page stores
    only the default figure, for print and for a page without JavaScript. Every combination of
    the ranges is valid: ``max_distance`` starts above the exact range of the most decoder
    buckets (``num_buckets/2``), and ``num_buckets`` is even, as an encoder needs. The ranges
    widen to take in any listed value beyond them (``num_buckets`` up to 64 only while the
    listed ``max_distances`` allow it).

    Every combination must be valid: each value of ``max_distances`` must exceed the exact
    range of every value of ``num_buckets`` in both modes (``num_buckets/2`` for the decoder).

    Args:
        num_buckets: values of the ``num_buckets`` control (even, at least 4).
        max_distances: values of the ``max_distance`` control.
        max_offset: offsets drawn.
        n: tokens of the bucket matrix: the ``tokens`` control's value in the kernel's
            widget, and its first value in the book.
        defaults: initial values by control name (default ``num_buckets=32,
            max_distance=128, bidirectional=True`` when offered).

    Returns:
        a live :class:`~book.explorers.explorer.Explorer` with controls ``num_buckets``,
        ``max_distance``, ``bidirectional`` and ``tokens``; the kernel's widget renders
        ``2·len(num_buckets)·len(max_distances)`` figures at most (12 with the defaults).
    """
    num_buckets = check_values(
        "num_buckets", num_buckets, lambda name, b: check_even(name, b, minimum=4)
    )
    max_distances = check_values("max_distances", max_distances, check_int)
    max_offset = check_int("max_offset", max_offset)
    n = check_int("n", n)
    worst = max(num_buckets) // 2  # the decoder's exact range for the most buckets
    if min(max_distances) <= worst:
        raise ValueError(
            f"max_distances must all exceed {worst} (the exact range of {max(num_buckets)} "
            f"decoder buckets), got {min(max_distances)}"
        )
    chosen = {"num_buckets": 32, "max_distance": 128, "bidirectional": True}
    offered = {
        "num_buckets": tuple(num_buckets),
        "max_distance": tuple(max_distances),
        "bidirectional": (False, True),
    }
    start = {k: v for k, v in chosen.items() if v in offered[k]}
    start.update(check_defaults(defaults))

    def render(num_buckets: int, max_distance: int, bidirectional: bool, tokens: int) -> Figure:
        return t5_explorer_figure(
            num_buckets, max_distance, bidirectional, max_offset=max_offset, n=tokens
        )

    # every pair of the ranges valid: the most buckets' decoder exact range below the least
    # max_distance (64 buckets, from 33, unless the listed values ask for other ends)
    most = max(max(num_buckets), min(64, 2 * min(max_distances) - 2))
    ranges = {
        "num_buckets": LiveRange(4, most, step=2),
        "max_distance": LiveRange(most // 2 + 1, max(1024, *max_distances), step=1),
        "tokens": LiveRange(min(2, n), max(256, n), step=1),
    }
    return explorer(
        render,
        {
            "num_buckets": num_buckets,
            "max_distance": max_distances,
            "bidirectional": [False, True],
            "tokens": (n,),
        },
        defaults=start,
        title="T5 buckets: exact near, logarithmic far",
        live="t5",
        ranges=ranges,
        live_data={"max_offset": max_offset},
    )
