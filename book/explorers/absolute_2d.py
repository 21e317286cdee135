"""The book's explorer for 2-D absolute encodings (chapter 5): DETR sine of a padded image."""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from book._checks import check_defaults, check_values
from book.explorers.explorer import Explorer, explorer
from book.figures.absolute_2d import absolute_2d_explorer_figure
from posenc._checks import check_base, check_choice, check_int, check_multiple

__all__ = ["absolute_2d_explorer"]

_PAIRS = ("fastest", "middle", "slowest")


def absolute_2d_explorer(
    heights: Sequence[int] = (24, 12),
    widths: Sequence[int] = (24, 16),
    dims: Sequence[int] = (16, 64),
    bases: Sequence[float] = (10.0, 10000.0),
    pairs: Sequence[str] = ("fastest", "middle"),
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

    Args:
        heights: values of the ``height`` control, rows of the valid image (each ``≤ canvas``).
        widths: values of the ``width`` control, columns of the valid image (each ``≤ canvas``).
        dims: values of the ``dim`` control (``d = 2F``, multiples of 4).
        bases: values of the ``base`` control.
        pairs: values of the ``channel`` control, among ``"fastest"``, ``"middle"``,
            ``"slowest"``.
        canvas: side of the padded batch canvas.
        defaults: initial values by control name (``height``, ``width``, ``dim``,
            ``base``, ``normalize``, ``channel``).

    Returns:
        an :class:`~book.explorers.explorer.Explorer`; with the defaults
        ``2·2·2·2·2·2 = 64`` figures are pre-rendered for the static book.
    """
    canvas = check_int("canvas", canvas)
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
    )
