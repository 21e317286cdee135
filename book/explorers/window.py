"""The book's explorer for Swin's 2-D relative position bias (chapter 7)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from matplotlib.figure import Figure

from book._checks import check_defaults, check_values
from book.explorers.explorer import Explorer, explorer
from book.figures.window import CONVENTIONS, QUERY_NAMES, window_bias_figure
from posenc._checks import check_pair

__all__ = ["window_bias_explorer"]

_SIGN_LABELS = {"swin": "query − key (Swin)", "shaw": "key − query (Shaw)"}


def window_bias_explorer(
    windows: Sequence[tuple[int, int]] = ((2, 3), (3, 4), (4, 3), (7, 7)),
    queries: Sequence[str] = ("top-left", "centre", "bottom-right"),
    conventions: Sequence[str] = CONVENTIONS,
    *,
    defaults: Mapping[str, object] | None = None,
) -> Explorer:
    """Explore the lookup ``B[k, i, j] = T[I_ij, k]`` for one query of a ``Wh × Ww`` window.

    Top row: the query's index row and, for each of four heads, its bias, both drawn on the
    window; bottom row: the table laid out by offset, with the block the query reads
    (:func:`book.figures.window.window_bias_figure`, hand-made tables made for Swin's sign:
    nearby keys, the key to the left, the query's row, the key above). Moving the query moves
    every bias pattern with it and slides the block over the tables; the sign control reads
    the same tables with key − query, which turns every pattern by 180° about the query.

    Args:
        windows: values of the ``window`` control, ``(Wh, Ww)`` pairs (each at most 7).
        queries: values of the ``query`` control, among ``"top-left"``, ``"top-right"``,
            ``"centre"``, ``"bottom-left"``, ``"bottom-right"``.
        conventions: values of the ``sign`` control, among ``"swin"`` (query − key) and
            ``"shaw"`` (key − query).
        defaults: initial values by control name (default ``window=(3, 4)``,
            ``query="centre"``, ``sign="swin"`` when offered).

    Returns:
        an :class:`~book.explorers.explorer.Explorer` with the drop-down controls ``window``,
        ``query`` and ``sign``; with the defaults ``4·3·2 = 24`` figures are pre-rendered for
        the static book (about 2.3 MB of HTML).
    """
    sizes = check_values("windows", windows, check_pair)
    too_big = [w for w in sizes if max(w) > 7]
    if too_big:
        raise ValueError(f"windows must be at most (7, 7) each, got {too_big}")
    queries = check_values("queries", queries)
    conventions = check_values("conventions", conventions)
    unknown = [q for q in queries if q not in QUERY_NAMES]
    if unknown:
        raise ValueError(f"queries must be among {QUERY_NAMES}, got {unknown}")
    unknown = [c for c in conventions if c not in CONVENTIONS]
    if unknown:
        raise ValueError(f"conventions must be among {CONVENTIONS}, got {unknown}")
    controls: dict[str, object] = {
        "window": {f"{wh}×{ww}": (wh, ww) for wh, ww in sizes},
        "query": list(queries),
        "sign": {_SIGN_LABELS[c]: c for c in conventions},
    }
    chosen = {"window": (3, 4), "query": "centre", "sign": "swin"}
    offered = {"window": sizes, "query": list(queries), "sign": list(conventions)}
    start = {name: value for name, value in chosen.items() if value in offered[name]}
    start.update(check_defaults(defaults))

    def render(window: tuple[int, int], query: str, sign: str) -> Figure:
        return window_bias_figure(window, query, sign)

    return explorer(
        render,
        controls,
        defaults=start,
        title="Swin relative position bias: one query's index row, its bias per head, "
        "and the tables",
        colors=32,  # 24 tall frames of flat cells: 32 colours keep the page well under 3 MB
    )
