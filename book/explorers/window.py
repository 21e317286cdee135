"""The book's explorer for Swin's 2-D relative position bias (chapter 7)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure

from book._checks import check_defaults, check_values
from book.explorers.explorer import Explorer, LiveRange, explorer
from book.figures.window import _LIGHT_INDEX, CONVENTIONS, QUERY_NAMES, window_bias_figure
from posenc._checks import check_pair

__all__ = ["window_bias_explorer"]

_SIGN_LABELS = {"swin": "query − key (Swin)", "shaw": "key − query (Shaw)"}
LARGEST_WINDOW = 7
"""The largest ``W_h`` and ``W_w`` (Swin's 7 × 7 window), as in
:func:`book.figures.window.window_bias_figure`: every cell of its 13 × 13 table labelled."""


def _index_colours() -> str:
    """The 256 greys of the figure's index cells, six hex digits each, as ``imshow`` paints
    them (bin ``i`` of ``[vmin, vmax]``), for the drawer."""
    cmap = _LIGHT_INDEX
    lut = cmap(np.arange(256) * cmap.N // 256, bytes=True)[:, :3]  # [256, 3]
    return "".join(f"{r:02x}{g:02x}{b:02x}" for r, g, b in lut.tolist())


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

    Live in the static book: the reader's browser draws any window from ``1 × 1`` to
    ``7 × 7`` (the controls ``Wh`` and ``Ww``, each an integer from 1 to 7, a slider and a
    number box), for each listed query and sign (the drawer ``window_bias`` of
    ``book/ext/twin_static/drawers/``, with posenc's JavaScript twin for the index and the
    hand-made tables computed as :func:`book.figures.window.example_bias_table` computes
    them; the page carries the figure's greys for the index cells). The page stores only the
    default figure, for print and for a page without JavaScript. The kernel's widget offers
    the heights and the widths of ``windows``: every pair of them.

    Args:
        windows: ``(Wh, Ww)`` pairs (each at most 7): their heights are the values of the
            ``Wh`` control, their widths those of ``Ww``.
        queries: values of the ``query`` control, among ``"top-left"``, ``"top-right"``,
            ``"centre"``, ``"bottom-left"``, ``"bottom-right"``.
        conventions: values of the ``sign`` control, among ``"swin"`` (query − key) and
            ``"shaw"`` (key − query).
        defaults: initial values by control name (default ``Wh=3``, ``Ww=4``,
            ``query="centre"``, ``sign="swin"`` when offered).

    Returns:
        a live :class:`~book.explorers.explorer.Explorer` with the controls ``Wh``, ``Ww``
        (sliders), ``query`` and ``sign`` (drop-down lists); the kernel's widget renders
        ``4·3·3·2 = 72`` figures at most with the defaults.
    """
    sizes = check_values("windows", windows, check_pair)
    too_big = [w for w in sizes if max(w) > LARGEST_WINDOW]
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
    heights = sorted({wh for wh, _ in sizes})
    widths = sorted({ww for _, ww in sizes})
    controls: dict[str, object] = {
        "Wh": heights,
        "Ww": widths,
        "query": list(queries),
        "sign": {_SIGN_LABELS[c]: c for c in conventions},
    }
    chosen = {"Wh": 3, "Ww": 4, "query": "centre", "sign": "swin"}
    offered = {"Wh": heights, "Ww": widths, "query": list(queries), "sign": list(conventions)}
    start = {name: value for name, value in chosen.items() if value in offered[name]}
    start.update(check_defaults(defaults))

    def render(Wh: int, Ww: int, query: str, sign: str) -> Figure:
        return window_bias_figure((Wh, Ww), query, sign)

    every = LiveRange(1, LARGEST_WINDOW, step=1)
    return explorer(
        render,
        controls,
        defaults=start,
        title="Swin relative position bias: one query's index row, its bias per head, "
        "and the tables",
        colors=32,  # tall frames of flat cells: 32 colours keep the one PNG small
        live="window_bias",
        ranges={"Wh": every, "Ww": every},
        live_data={"index_colors": _index_colours()},
    )
