"""The book's explorer for Swin's 2-D relative position bias (chapter 7)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from matplotlib.figure import Figure

from ..plotting.window import QUERY_NAMES, window_bias_figure
from .explorer import Explorer, explorer

__all__ = ["window_bias_explorer"]


def window_bias_explorer(
    heights: Sequence[int] = (3, 7),
    widths: Sequence[int] = (4, 7),
    heads: Sequence[int] = (1, 2, 3),
    queries: Sequence[str] = ("top-left", "centre", "bottom-right"),
    *,
    defaults: Mapping[str, object] | None = None,
) -> Explorer:
    """Explore the lookup ``B[h, i, j] = T[I_ij, h]`` for one query of a ``Wh × Ww`` window.

    Top row: the query's index row ``I[i, :]`` and, for every head, its bias ``B[h, i, :]``,
    both drawn on the window; bottom row: the table laid out by offset, with the block the
    query reads (:func:`posenc.plotting.window.window_bias_figure`, hand-made example tables).
    Moving the query moves the bias pattern with it and slides the block over the table.

    Args:
        heights: values of the ``Wh`` control (window height).
        widths: values of the ``Ww`` control (window width).
        heads: values of the ``heads`` control (1 to 4).
        queries: values of the ``query`` control, among ``"top-left"``, ``"top-right"``,
            ``"centre"``, ``"bottom-left"``, ``"bottom-right"``.
        defaults: initial values by control name (default ``Wh=3, Ww=4, heads=3,
            query="centre"`` when offered).

    Returns:
        an :class:`~posenc.widgets.explorer.Explorer` with controls ``Wh``, ``Ww``, ``heads``
        and ``query``; with the defaults ``2·2·3·3 = 36`` figures are pre-rendered for the
        static book (about 1.4 MB of HTML).
    """
    unknown = [q for q in queries if q not in QUERY_NAMES]
    if unknown:
        raise ValueError(f"queries must be among {QUERY_NAMES}, got {unknown}")
    controls: dict[str, list[object]] = {
        "Wh": [int(h) for h in heights],
        "Ww": [int(w) for w in widths],
        "heads": [int(h) for h in heads],
        "query": list(queries),
    }
    chosen = {"Wh": 3, "Ww": 4, "heads": 3, "query": "centre"}
    start = {name: value for name, value in chosen.items() if value in controls[name]}
    start.update(defaults or {})

    def render(Wh: int, Ww: int, heads: int, query: str) -> Figure:  # noqa: N803 (paper's names)
        return window_bias_figure((Wh, Ww), heads, query)

    return explorer(
        render,
        controls,
        defaults=start,
        title="Swin relative position bias: one query's index row, its bias per head, "
        "and the table",
    )
