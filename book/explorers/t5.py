"""The book's explorer for T5's bucketed relative bias (chapter 9)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from matplotlib.figure import Figure

from book._checks import check_defaults, check_values
from book.explorers.explorer import Explorer, explorer
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
    every query-key pair of ``n`` tokens (:func:`book.figures.t5.t5_explorer_figure`).
    Each panel counts the buckets its own offsets use (``±max_offset`` on the left,
    ``±(n − 1)`` on the right), so the two counts can differ.
    More buckets widen the exact range (a quarter of them per direction when bidirectional, half
    when not) and refine the logarithmic ones; ``max_distance`` stretches the logarithmic
    range; ``bidirectional`` switches between an encoder's two halves and a decoder's
    one-sided buckets.

    Every combination must be valid: each value of ``max_distances`` must exceed the exact
    range of every value of ``num_buckets`` in both modes (``num_buckets/2`` for the decoder).

    Args:
        num_buckets: values of the ``num_buckets`` control (even).
        max_distances: values of the ``max_distance`` control.
        max_offset: offsets drawn.
        n: tokens of the bucket matrix.
        defaults: initial values by control name (default ``num_buckets=32,
            max_distance=128, bidirectional=True`` when offered).

    Returns:
        an :class:`~book.explorers.explorer.Explorer` with controls ``num_buckets``,
        ``max_distance`` and ``bidirectional``; ``2·len(num_buckets)·len(max_distances)``
        figures are pre-rendered for the static book (12 with the defaults).
    """
    num_buckets = check_values("num_buckets", num_buckets, lambda name, b: check_even(name, b))
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

    def render(num_buckets: int, max_distance: int, bidirectional: bool) -> Figure:
        return t5_explorer_figure(
            num_buckets, max_distance, bidirectional, max_offset=max_offset, n=n
        )

    return explorer(
        render,
        {
            "num_buckets": num_buckets,
            "max_distance": max_distances,
            "bidirectional": [False, True],
        },
        defaults=start,
        title="T5 buckets: exact near, logarithmic far",
    )
