"""The book's explorer for Shaw et al.'s relative position index (chapter 6)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from matplotlib.figure import Figure

from book._checks import NAMED_POSITIONS, check_defaults, check_values
from book.explorers.explorer import Explorer, explorer
from book.figures.shaw import shaw_index_figure
from posenc._checks import check_choice, check_int

__all__ = ["shaw_index_explorer"]


def shaw_index_explorer(
    lengths: Sequence[int] = (8, 16, 32),
    distances: Sequence[int] = (0, 1, 2, 4, 8),
    *,
    queries: Sequence[str | int] | None = None,
    defaults: Mapping[str, object] | None = None,
) -> Explorer:
    """Explore the index ``I_ij = clip(j − i, −k, k) + k`` and one query's key bias.

    Left: the ``n × n`` index matrix, one colour per index, with the chosen query's row
    outlined; right: that query's key term ``q_i·w^K_{I_ij}/√d`` against ``j`` for a fixed
    random query and table (:func:`book.figures.shaw.shaw_index_figure`). Raising ``k``
    widens the band of distinct colours; from ``|j − i| ≥ k`` on, every key on one side gets the same bias.

    Args:
        lengths: values of the ``n`` control (sequence length).
        distances: values of the ``k`` control (clipping distance, ``<= 32``).
        queries: values of an optional ``query`` control: ``"first"``, ``"middle"``,
            ``"last"`` (a place comparable at every ``n``), or a position below the shortest
            of ``lengths``; ``None`` (default) shows the middle query and no such control, which
            keeps the number of pre-rendered figures (and the build time) down.
        defaults: initial values by control name (default ``n=16, k=2, query="middle"`` when
            offered).

    Returns:
        an :class:`~book.explorers.explorer.Explorer` with controls ``n`` and ``k`` (and
        ``query``); ``len(lengths)·len(distances)`` figures (times ``len(queries)``) are
        pre-rendered for the static book (15 with the defaults).
    """
    lengths = check_values("lengths", lengths, check_int)
    distances = check_values("distances", distances, lambda name, v: check_int(name, v, minimum=0))
    controls: dict[str, list[object]] = {"n": lengths, "k": distances}
    if queries is not None:
        shortest = min(lengths)

        def check_query(name: str, query: object) -> str | int:
            if isinstance(query, str):  # a named place, comparable at every n
                return check_choice(name, query, tuple(NAMED_POSITIONS))
            position = check_int(name, query, minimum=0)
            if position >= shortest:
                raise ValueError(f"{name} must be < n = {shortest} (every n shown), got {position}")
            return position

        controls["query"] = check_values("queries", queries, check_query)
    given = check_defaults(defaults)
    chosen = {"n": 16, "k": 2, "query": "middle"}
    start = {
        name: value
        for name, value in chosen.items()
        if name in controls and value in controls[name]
    }
    start.update(given)

    def render(n: int, k: int, query: str | int = "middle") -> Figure:
        return shaw_index_figure(n, k, query=query)

    return explorer(
        render,
        controls,
        defaults=start,
        title="Shaw relative index and the key bias of one query",
    )
