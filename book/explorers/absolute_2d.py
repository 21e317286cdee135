"""The book's explorer for 2-D absolute encodings (chapter 5): DETR sine of a padded image."""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from book._checks import check_defaults, check_values
from book.explorers.explorer import Explorer, LiveRange, explorer
from book.figures.absolute_2d import absolute_2d_explorer_figure
from posenc._checks import check_base, check_choice, check_int, check_multiple

__all__ = ["absolute_2d_explorer"]

_PAIRS = ("fastest", "middle", "slowest")


def absolute_2d_explorer(
    heights: Sequence[int] = (24, 12),
    widths: Sequence[int] = (24, 16),
    dims: Sequence[int] = (16, 64),
    bases: Sequence[float] = (10.0, 10000.0),
    pairs: Sequence[str] = ("fastest", "middle", "slowest"),
    *,
    canvas: int = 24,
    defaults: dict[str, object] | None = None,
) -> Explorer:
    """Explore DETR's sine encoding: height, width, ``dim``, base, ``normalize``, channel.

    The image (``height × width``) sits in the top-left corner of a ``canvas × canvas`` batch,
    the rest padding, as when DETR batches images of different sizes. Left and middle: ``sin y``
    and ``sin x`` of the chosen sin/cos pair; right: cosine similarity of the image centre to
    every valid position. ``normalize`` makes the pattern follow the image's own extent; the
    base changes every pair except the fastest.

    Live in the static book: the reader's browser draws any ``height`` and ``width`` from 1 to
    ``canvas``, any ``dim`` that is a multiple of 4 from 4 to 256 (DETR's ``d``), and any
    ``base`` above 1 (a log slider from 10 to 10⁶), with ``normalize`` off or on (the drawer
    ``absolute_2d``, ``book/ext/twin_static/drawers/absolute_2d.js``, with posenc's
    JavaScript twin; ``canvas`` reaches it as ``live_data``). The listed values are those the
    kernel's widget offers, and the page stores only the default figure, for print and for a
    page without JavaScript. The ranges widen to take in any listed value beyond them. The
    ``channel`` control stays a choice of pair *relative* to ``dim`` (fastest: pair 0;
    middle: pair ``F/4``; slowest: pair ``F/2 − 1``, with ``F = d/2``), so that each choice
    means the same thing at every ``dim``; the panels' titles name the channel it is.

    Args:
        heights: values of the ``height`` control, rows of the valid image (each ``≤ canvas``).
        widths: values of the ``width`` control, columns of the valid image (each ``≤ canvas``).
        dims: values of the ``dim`` control (``d = 2F``, multiples of 4).
        bases: values of the ``base`` control.
        pairs: values of the ``channel`` control, among ``"fastest"``, ``"middle"``,
            ``"slowest"``.
        canvas: side of the padded batch canvas (at least 2).
        defaults: initial values by control name (``height``, ``width``, ``dim``,
            ``base``, ``normalize``, ``channel``).

    Returns:
        a live :class:`~book.explorers.explorer.Explorer`; the kernel's widget renders
        ``2·2·2·2·2·3 = 96`` figures at most with the defaults.
    """
    canvas = check_int("canvas", canvas, minimum=2)
    heights = check_values("heights", heights, check_int)
    widths = check_values("widths", widths, check_int)
    too_big = [v for v in heights + widths if v > canvas]
    if too_big:
        raise ValueError(f"heights and widths must be <= canvas = {canvas}, got {too_big}")
    dims = check_values("dims", dims, lambda name, d: check_multiple(name, d, 4, "sin/cos pairs"))
    bases = check_values("bases", bases, check_base)
    pairs = check_values("pairs", pairs, lambda name, p: check_choice(name, p, _PAIRS))
    base_labels = {f"{t:g}": float(t) for t in bases}
    channel_labels = {f"{p} pair": p for p in pairs}
    start: dict[str, object] = {}
    if 10000.0 in base_labels.values():
        start["base"] = 10000.0
    start.update(check_defaults(defaults))

    def render(
        height: int, width: int, dim: int, base: float, normalize: bool, channel: str
    ) -> Figure:
        return absolute_2d_explorer_figure(
            height=height,
            width=width,
            dim=dim,
            base=base,
            normalize=normalize,
            pair=channel,
            canvas=canvas,
        )

    ranges = {
        "height": LiveRange(1, canvas, step=1),
        "width": LiveRange(1, canvas, step=1),
        "dim": LiveRange(4, max(256, *dims), step=4),
        "base": LiveRange(min(10.0, *bases), max(1e6, *bases), step=None, log=True, above=1),
    }
    return explorer(
        render,
        {
            "height": heights,
            "width": widths,
            "dim": dims,
            "base": base_labels,
            "normalize": [False, True],
            "channel": channel_labels,
        },
        defaults=start,
        title="DETR sine encoding of a padded image: two channels and the similarity to the centre",
        live="absolute_2d",
        ranges=ranges,
        live_data={"canvas": canvas},
    )
