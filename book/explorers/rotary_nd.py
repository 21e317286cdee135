"""The book's explorer for RoPE on grids (chapter 12): sections of pairs and the scores."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from matplotlib.figure import Figure

from book._checks import check_defaults, check_values
from book.explorers.explorer import Explorer, explorer
from book.figures.rotary_nd import rotary_grid_figure
from posenc._checks import check_pair

__all__ = ["rotary_grid_explorer"]

_PAIRS = {  # label -> (layout, sections) for 64 channels: 32 pairs
    "axial 2-D (16 + 16)": ("axial", None),
    "M-RoPE 8/12/12 (Qwen2-VL's shares)": ("mrope", (8, 12, 12)),
    "M-RoPE 0/16/16 (no time)": ("mrope", (0, 16, 16)),
    "M-RoPE 8/4/20": ("mrope", (8, 4, 20)),
}


def rotary_grid_explorer(
    layouts: Sequence[str] = tuple(_PAIRS),
    queries: Sequence[tuple[int, int]] = ((8, 8), (3, 12), (14, 2)),
    *,
    defaults: Mapping[str, object] | None = None,
) -> Explorer:
    """Explore how the channel pairs are shared among the axes, and what a query then sees.

    Each frame is :func:`book.figures.rotary_nd.rotary_grid_figure` for 64 channels on a
    16 × 16 grid, base 10⁴: the wavelength of every pair by its axis, and one query's scores
    against all-ones keys at every place of the grid. Moving the query moves the pattern
    with it (the relative property, per axis); a share of pairs that leaves an axis only slow
    frequencies leaves the pattern flat along that axis.

    Args:
        layouts: values of the ``pairs`` control, among ``"axial 2-D (16 + 16)"``,
            ``"M-RoPE 8/12/12 (Qwen2-VL's shares)"``, ``"M-RoPE 0/16/16 (no time)"``,
            ``"M-RoPE 8/4/20"``.
        queries: values of the ``query`` control, ``(row, column)`` inside the 16 × 16 grid.
        defaults: initial values by control name.

    Returns:
        an :class:`~book.explorers.explorer.Explorer` with the controls ``pairs`` and
        ``query``; with the defaults ``4·3 = 12`` figures are pre-rendered.
    """
    names = check_values("layouts", layouts)
    unknown = [n for n in names if n not in _PAIRS]
    if unknown:
        raise ValueError(f"layouts must be among {tuple(_PAIRS)}, got {unknown}")
    places = check_values("queries", queries, lambda n, v: check_pair(n, v, minimum=0))
    outside = [q for q in places if max(q) > 15]
    if outside:
        raise ValueError(f"queries must lie inside the 16 × 16 grid (0..15), got {outside}")
    controls: dict[str, object] = {
        "pairs": {n: n for n in names},
        "query": {f"({r}, {c})": (r, c) for r, c in places},
    }

    def render(pairs: str, query: tuple[int, int]) -> Figure:
        layout, sections = _PAIRS[pairs]
        return rotary_grid_figure(layout, query, sections=sections)

    return explorer(
        render,
        controls,
        defaults=check_defaults(defaults),
        title="RoPE on a grid: which pairs turn with which axis, and one query's scores",
    )
