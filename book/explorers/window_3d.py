"""The book's explorer for relative position indices over frames (chapter 8)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from matplotlib.figure import Figure

from book._checks import check_defaults, check_values
from book.demos.window import spread_key_step
from book.explorers.explorer import Explorer, explorer
from book.figures.window_3d import frame_offset_figure
from posenc._checks import check_choice, check_int, check_pair

__all__ = ["window_3d_explorer"]

_HIGHLIGHTS = ("first", "middle", "last")


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
    ``D1_query_frames``, ``D2_key_frames``, ``window`` and ``highlighted_query_frame``.

    Args:
        query_frames: values of the ``D1_query_frames`` control (``D_1``).
        key_frames: values of the ``D2_key_frames`` control (``D_2``, each ``<= min(D_1)``).
        windows: values of the ``window`` control (``(W_h, W_w)``).
        highlighted: values of the ``highlighted_query_frame`` control (``"first"``,
            ``"middle"``, ``"last"``).
        defaults: initial values by control name (default ``D_1 = 7``, ``D_2 = 4``, the first
            window and highlighted frame, when offered).

    Returns:
        an :class:`~book.explorers.explorer.Explorer`; every combination is pre-rendered for
        the static book (36 with the defaults).
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
    sizes = {f"{wh}×{ww}": (wh, ww) for wh, ww in windows}
    controls: dict[str, object] = {
        "D1_query_frames": list(query_frames),
        "D2_key_frames": list(key_frames),
        "window": sizes,
        "highlighted_query_frame": list(highlighted),
    }
    chosen: dict[str, object] = {"D1_query_frames": 7, "D2_key_frames": 4}
    start = {name: value for name, value in chosen.items() if value in controls[name]}  # type: ignore[operator]
    start.update(check_defaults(defaults))

    def render(
        D1_query_frames: int,
        D2_key_frames: int,
        window: tuple[int, int],
        highlighted_query_frame: str,
    ) -> Figure:
        step = spread_key_step(D1_query_frames, D2_key_frames)
        return frame_offset_figure(
            D1_query_frames, D2_key_frames, step, window, highlight=highlighted_query_frame
        )

    return explorer(
        render,
        controls,
        defaults=start,
        title="Frame offsets and the 3-D relative position index",
    )
