"""The book's explorer for RoPE on grids (chapter 12): sections of pairs and the scores."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from matplotlib.figure import Figure

from book._checks import check_defaults, check_values
from book.explorers.explorer import Explorer, LiveRange, explorer
from book.figures.rotary_nd import rotary_grid_figure
from posenc._checks import check_base, check_int, check_pair

__all__ = ["rotary_grid_explorer"]

_DIM = 64  # channels: 32 pairs
_PAIRS = {  # label -> (layout, sections) for 64 channels: 32 pairs
    "axial 2-D (16 + 16)": ("axial", None),
    "M-RoPE 8/12/12 (Qwen2-VL's shares)": ("mrope", (8, 12, 12)),
    "M-RoPE 0/16/16 (no time)": ("mrope", (0, 16, 16)),
    "M-RoPE 8/4/20": ("mrope", (8, 4, 20)),
}
_MAX_SIDE = 64  # the live side's slider: 4096 keys, a redraw well under 16 ms


def rotary_grid_explorer(
    layouts: Sequence[str] = tuple(_PAIRS),
    queries: Sequence[tuple[int, int]] = ((8, 8), (3, 12), (14, 2)),
    sides: Sequence[int] = (16,),
    bases: Sequence[float] = (10000.0,),
    *,
    defaults: Mapping[str, object] | None = None,
) -> Explorer:
    """Explore how the channel pairs are shared among the axes, and what a query then sees.

    Each frame is :func:`book.figures.rotary_nd.rotary_grid_figure` for 64 channels on a
    ``side × side`` grid: the wavelength of every pair by its axis, with the grid's side
    dashed, and one query's scores against all-ones keys at every place of the grid. Moving
    the query moves the pattern with it (the relative property, per axis); a share of pairs
    that leaves an axis only wavelengths far above the side leaves the pattern flat along it.

    Live in the static book: the reader's browser draws the query at any row and column from
    0 to 63, any side from 2 to 64 and any base above 1 (a log slider from 10 to 10⁶), for
    each sharing of the pairs (the drawer ``rotary_grid`` of
    ``book/ext/twin_static/drawers/rotary_grid.js``, with posenc's JavaScript twin); a query
    beyond the grid is drawn at its nearest place inside it (the title names the place
    drawn). The listed values are those the kernel's widget offers, and the page stores only
    the default figure, for print and for a page without JavaScript. The ranges widen to take
    in any listed value beyond them.

    Args:
        layouts: values of the ``pairs`` control, among ``"axial 2-D (16 + 16)"``,
            ``"M-RoPE 8/12/12 (Qwen2-VL's shares)"``, ``"M-RoPE 0/16/16 (no time)"``,
            ``"M-RoPE 8/4/20"``.
        queries: query places ``(row, column)``, inside the smallest grid of ``sides``: the
            ``row`` control offers their rows, the ``column`` control their columns.
        sides: values of the ``side`` control (ints ``>= 2``).
        bases: values of the ``base`` control.
        defaults: initial values by control name (``pairs``, ``row``, ``column``, ``side``,
            ``base``); default the first layout, the first query, side 16 and base 10⁴ when
            those are offered.

    Returns:
        a live :class:`~book.explorers.explorer.Explorer` with the controls ``pairs``,
        ``row``, ``column``, ``side`` and ``base``; with the defaults the controls list
        ``4·3·3 = 36`` combinations (the page stores one figure).
    """
    names = check_values("layouts", layouts)
    unknown = [n for n in names if n not in _PAIRS]
    if unknown:
        raise ValueError(f"layouts must be among {tuple(_PAIRS)}, got {unknown}")
    places = check_values("queries", queries, lambda n, v: check_pair(n, v, minimum=0))
    sides = check_values("sides", sides, lambda n, v: check_int(n, v, minimum=2))
    bases = check_values("bases", bases, check_base)
    smallest = min(sides)
    outside = [q for q in places if max(q) >= smallest]
    if outside:
        raise ValueError(
            f"queries must lie inside the {smallest} × {smallest} grid (0..{smallest - 1}), "
            f"the smallest of sides, got {outside}"
        )
    rows = sorted({r for r, _ in places})
    columns = sorted({c for _, c in places})
    base_labels = {f"{b:g}": float(b) for b in bases}
    chosen = {"row": places[0][0], "column": places[0][1], "side": 16, "base": 10000.0}
    offered = {"row": rows, "column": columns, "side": sides, "base": list(base_labels.values())}
    start: dict[str, object] = {k: v for k, v in chosen.items() if v in offered[k]}
    start.update(check_defaults(defaults))

    def render(pairs: str, row: int, column: int, side: int, base: float) -> Figure:
        layout, sections = _PAIRS[pairs]
        query = (min(row, side - 1), min(column, side - 1))  # as the drawer: inside the grid
        return rotary_grid_figure(layout, query, sections=sections, side=side, dim=_DIM, base=base)

    top = max(_MAX_SIDE, *sides)
    ranges = {
        "row": LiveRange(0, top - 1, step=1),
        "column": LiveRange(0, top - 1, step=1),
        "side": LiveRange(2, top, step=1),
        "base": LiveRange(min(10.0, *bases), max(1e6, *bases), step=None, log=True, above=1),
    }
    return explorer(
        render,
        {
            "pairs": {n: n for n in names},
            "row": rows,
            "column": columns,
            "side": sides,
            "base": base_labels,
        },
        defaults=start,
        title="RoPE on a grid: which pairs turn with which axis, and one query's scores",
        live="rotary_grid",
        ranges=ranges,
        live_data={
            "dim": _DIM,
            "pairs": {n: {"layout": _PAIRS[n][0], "sections": _PAIRS[n][1]} for n in names},
        },
    )
