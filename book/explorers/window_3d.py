"""The book's explorer for relative position indices over frames (chapter 8)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from matplotlib.figure import Figure

from book._checks import check_defaults, check_values
from book.demos.window import spread_key_step
from book.explorers.explorer import Explorer, LiveRange, colormap_hex, explorer
from book.figures.window_3d import _OFFSET_CMAP, frame_offset_figure
from posenc._checks import check_choice, check_int, check_pair

__all__ = ["window_3d_explorer"]

_HIGHLIGHTS = ("first", "middle", "last")
MOST_FRAMES = 10
"""The most query and key frames the page draws (Video Swin's 8 and RSTT's 7 fit; every
frame offset a single digit, so that a 10 × 10 grid of them fits a phone at 12 px)."""
LARGEST_WINDOW = 7
"""The largest ``W_h`` and ``W_w`` the page draws (Video Swin's 7 × 7)."""


def window_3d_explorer(
    query_frames: Sequence[int] = (4, 6, 7),
    key_frames: Sequence[int] = (2, 3, 4),
    windows: Sequence[tuple[int, int]] = ((2, 2), (3, 3)),
    highlighted: Sequence[str] = ("middle", "last"),
    *,
    defaults: Mapping[str, object] | None = None,
) -> Explorer:
    """Explore frame offsets and the index of a window of ``D_1`` query and ``D_2`` key frames.

    The key frames are spread over the query frames' time span with the step
    :func:`book.demos.window.spread_key_step`, ``s = ⌊(D_1 − 1)/(D_2 − 1)⌋`` (``0, 2, 4, 6`` for
    7 and 4 frames, as in RSTT). Left: the frame offset ``Δt = t − s·m`` of every query frame
    ``t`` against every key frame ``m``, the offsets that no pair uses (their table rows are
    never read) and what RSTT's stride would have given. Right: the index row of one token of
    the highlighted query frame, one ``W_h × W_w`` block per key frame
    (:func:`book.figures.window_3d.frame_offset_figure`).

    The controls are named for what they set, since their names are also their labels:
    ``D1_query_frames``, ``D2_key_frames``, ``Wh`` and ``Ww`` (the window) and
    ``highlighted_query_frame``.

    Live in the static book: the reader's browser draws any number of query and key frames
    from 1 to 10 and any window from ``1 × 1`` to ``7 × 7`` (sliders and number boxes; the
    drawer ``window_3d`` of ``book/ext/twin_static/drawers/``, with posenc's JavaScript twin
    for the index), for each listed highlighted frame; more key frames than query frames are
    drawn as many as the query frames, and the drawing says so. The page stores only the
    default figure, for print and for a page without JavaScript, and carries the figure's
    ``PuOr`` colours of the frame offsets. The ranges widen to take in any listed value
    beyond them; the kernel's widget offers the listed values (for the window, every pair of
    the heights and widths of ``windows``).

    Args:
        query_frames: values of the ``D1_query_frames`` control (``D_1``).
        key_frames: values of the ``D2_key_frames`` control (``D_2``, each ``<= min(D_1)``).
        windows: ``(W_h, W_w)`` pairs: their heights are the values of the ``Wh`` control,
            their widths those of ``Ww``.
        highlighted: values of the ``highlighted_query_frame`` control (``"first"``,
            ``"middle"``, ``"last"``).
        defaults: initial values by control name (default ``D_1 = 7``, ``D_2 = 4``, the
            smallest ``Wh`` and ``Ww``, the first highlighted frame, when offered).

    Returns:
        a live :class:`~book.explorers.explorer.Explorer`; the kernel's widget renders
        ``3·3·2·2·2 = 72`` figures at most with the defaults.
    """
    query_frames = check_values("query_frames", query_frames, check_int)
    key_frames = check_values("key_frames", key_frames, check_int)
    windows = check_values("windows", windows, check_pair)
    highlighted = check_values(
        "highlighted", highlighted, lambda name, h: check_choice(name, h, _HIGHLIGHTS)
    )
    for d1 in query_frames:
        for d2 in key_frames:
            spread_key_step(d1, d2)  # every combination must be drawable
    heights = sorted({wh for wh, _ in windows})
    widths = sorted({ww for _, ww in windows})
    controls: dict[str, object] = {
        "D1_query_frames": list(query_frames),
        "D2_key_frames": list(key_frames),
        "Wh": heights,
        "Ww": widths,
        "highlighted_query_frame": list(highlighted),
    }
    chosen: dict[str, object] = {"D1_query_frames": 7, "D2_key_frames": 4}
    start = {name: value for name, value in chosen.items() if value in controls[name]}  # type: ignore[operator]
    start.update(check_defaults(defaults))

    def render(
        D1_query_frames: int,
        D2_key_frames: int,
        Wh: int,
        Ww: int,
        highlighted_query_frame: str,
    ) -> Figure:
        step = spread_key_step(D1_query_frames, D2_key_frames)
        return frame_offset_figure(
            D1_query_frames, D2_key_frames, step, (Wh, Ww), highlight=highlighted_query_frame
        )

    ranges = {
        "D1_query_frames": LiveRange(1, max(MOST_FRAMES, *query_frames)),
        "D2_key_frames": LiveRange(1, max(MOST_FRAMES, *key_frames)),
        "Wh": LiveRange(1, max(LARGEST_WINDOW, *heights)),
        "Ww": LiveRange(1, max(LARGEST_WINDOW, *widths)),
    }
    return explorer(
        render,
        controls,
        defaults=start,
        title="Frame offsets and the 3-D relative position index",
        live="window_3d",
        ranges=ranges,
        live_data={"offset_colors": colormap_hex(_OFFSET_CMAP)},
    )
