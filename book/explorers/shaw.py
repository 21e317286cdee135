"""The book's explorer for Shaw et al.'s relative position index (chapter 6)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from matplotlib.figure import Figure

from book._checks import NAMED_POSITIONS, check_defaults, check_values
from book.explorers.explorer import Explorer, LiveRange, explorer
from book.figures.shaw import _TABLE_DISTANCE, shaw_index_figure, shaw_key_bias_row
from posenc._checks import check_choice, check_int

__all__ = ["shaw_index_explorer"]

LONGEST = 128
"""The largest ``n`` the live explorer's slider reaches (wider if ``lengths`` asks for more)."""


def shaw_index_explorer(
    lengths: Sequence[int] = (8, 16, 32),
    distances: Sequence[int] = (0, 1, 2, 4, 8),
    *,
    queries: Sequence[str | int] = (0, 4, 8, 16, 31),
    defaults: Mapping[str, object] | None = None,
) -> Explorer:
    """Explore the index ``I_ij = clip(j − i, −k, k) + k`` and one query's key bias.

    Left: the ``n × n`` index matrix, one colour per index, with the chosen query's row
    outlined; right: that query's key term ``q_i·w^K_{I_ij}/√d`` against ``j`` for a fixed
    random query and table (:func:`book.figures.shaw.shaw_index_figure`). Raising ``k``
    widens the band of distinct colours; from ``|j − i| ≥ k`` on, every key on one side gets the same bias.

    Live in the static book: the reader's browser draws any ``n`` from 2 to 128, any ``k``
    from 0 to 32 (the random table covers the distances ``−32..32``) and any query position
    from 0 to 127 (the drawer ``shaw`` of ``book/ext/twin_static/drawers``, with posenc's
    JavaScript twin). A query past the end of the sequence, ``query ≥ n``, is drawn as
    the last one, ``i = n − 1``, and the figure says so; the kernel's figure clips it the same
    way. The random query and table are the figure's own (same seed): the page carries their
    65 products ``q·w^K_r/√d``, ``r = −32..32`` (``live_data``), from which every ``n``, ``k``
    and query draws the same bars as the Python figure. The listed values are those the
    kernel's widget offers; the page stores only the default figure, for print and for a page
    without JavaScript. The ranges widen to take in any listed value beyond them.

    Args:
        lengths: values of the ``n`` control (sequence length).
        distances: values of the ``k`` control (clipping distance, ``<= 32``).
        queries: values of the ``query`` control: positions (default ``0, 4, 8, 16, 31``: the
            first, the middles of ``n = 8, 16, 32`` and the last of 32; a position ``≥ n`` is
            drawn as the last query), live in the browser from 0 to 127; or, with any of
            ``"first"``, ``"middle"``, ``"last"`` among them (a place comparable at every
            ``n``), a drop-down of exactly these values.
        defaults: initial values by control name (default ``n=16, k=2`` and the query ``8``,
            or ``"middle"``, the middle of 16, when offered).

    Returns:
        a live :class:`~book.explorers.explorer.Explorer` with controls ``n``, ``k`` and
        ``query``; the kernel's widget renders ``len(lengths)·len(distances)·len(queries)``
        figures at most (75 with the defaults).
    """
    lengths = check_values("lengths", lengths, check_int)
    longest = max(LONGEST, *lengths)

    def check_distance(name: str, value: object) -> int:
        k = check_int(name, value, minimum=0)
        if k > _TABLE_DISTANCE:
            raise ValueError(
                f"{name} must be <= {_TABLE_DISTANCE} (the random table's distances), got {k}"
            )
        return k

    def check_query(name: str, query: object) -> str | int:
        if isinstance(query, str):  # a named place, comparable at every n
            return check_choice(name, query, tuple(NAMED_POSITIONS))
        position = check_int(name, query, minimum=0)
        if position >= longest:
            raise ValueError(f"{name} must be < {longest} (the longest n), got {position}")
        return position

    distances = check_values("distances", distances, check_distance)
    queries = check_values("queries", queries, check_query)
    named = any(isinstance(q, str) for q in queries)
    controls: dict[str, list[object]] = {"n": lengths, "k": distances, "query": queries}
    chosen = {"n": 16, "k": 2, "query": "middle" if named else 8}
    start = {
        name: value
        for name, value in chosen.items()
        if any(v == value and type(v) is type(value) for v in controls[name])
    }
    start.update(check_defaults(defaults))

    def render(n: int, k: int, query: str | int) -> Figure:
        if isinstance(query, int) and query >= n:  # past the end: the last query, as the page
            query = n - 1
        return shaw_index_figure(n, k, query=query)

    ranges = {
        "n": LiveRange(min(2, *lengths), longest, step=1),
        "k": LiveRange(0, _TABLE_DISTANCE, step=1),
    }
    if not named:
        ranges["query"] = LiveRange(0, longest - 1, step=1)
    # q·w^K_r/√d for r = −32..32: the key term of the middle query of 65 keys at k = 32
    bias = shaw_key_bias_row(2 * _TABLE_DISTANCE + 1, _TABLE_DISTANCE, _TABLE_DISTANCE)
    return explorer(
        render,
        controls,
        defaults=start,
        title="Shaw relative index and the key bias of one query",
        live="shaw",
        ranges=ranges,
        live_data={"distance": _TABLE_DISTANCE, "bias": bias.tolist()},
    )
