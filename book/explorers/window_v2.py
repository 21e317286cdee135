"""The book's explorer for Swin V2's continuous position bias (chapter 12)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache

from matplotlib.figure import Figure
from torch import Tensor

from book._checks import check_defaults, check_values
from book.demos.grids import window_bias_transfer
from book.explorers.explorer import Explorer, explorer
from book.figures.window_v2 import continuous_bias_figure
from posenc._checks import check_int

__all__ = ["continuous_bias_explorer"]


@lru_cache(maxsize=1)
def _fitted_mlp() -> dict[str, Tensor]:
    """The MLP of chapter 12's experiment: fitted at an 8 × 8 window, seed 0."""
    return window_bias_transfer((8, 8), (8, 8), seed=0).mlp


def continuous_bias_explorer(
    windows: Sequence[int] = (4, 6, 8, 12, 16, 20, 24, 32),
    *,
    mlp: Mapping[str, Tensor] | None = None,
    defaults: Mapping[str, object] | None = None,
) -> Explorer:
    """Explore Swin V2's log-spaced coordinates and a fitted bias over window sizes.

    The MLP is the one of chapter 12's experiment
    (:func:`book.demos.grids.window_bias_transfer`, fitted to the two-head target at an
    8 × 8 window). Each frame is :func:`book.figures.window_v2.continuous_bias_figure`:
    the coordinate of every offset along one axis and the bias of one head over the window's
    offsets, with the offsets normalised by the pretrained 8 × 8 window or by the window
    itself.

    Args:
        windows: values of the ``window`` control, square window sides (each ``>= 2``).
        mlp: a two-head ``cpb_mlp`` state dict to draw (e.g.
            :attr:`book.demos.grids.BiasTransfer.mlp`); ``None``: the chapter's, fitted here
            once (about 2 s).
        defaults: initial values by control name (default ``window=16`` when offered,
            ``scale`` the pretrained window, head 0).

    Returns:
        an :class:`~book.explorers.explorer.Explorer` with the controls ``window``,
        ``scale`` and ``head``; with the defaults ``8·2·2 = 32`` figures are
        pre-rendered (an MLP's bias is not closed-form: the page cannot compute it).
    """
    sides = check_values("windows", windows, lambda n, v: check_int(n, v, minimum=2))
    if mlp is not None and not isinstance(mlp, Mapping):
        raise TypeError(f"mlp must be a cpb_mlp state dict or None, got {type(mlp).__name__}")
    controls: dict[str, object] = {
        "window": sides,
        "scale": {"pretrained window (8)": 8, "the window itself": None},
        "head": {"0 (near)": 0, "1 (row)": 1},
    }
    start: dict[str, object] = {"window": 16} if 16 in sides else {}
    start.update(check_defaults(defaults))

    def render(window: int, scale: int | None, head: int) -> Figure:
        weights = _fitted_mlp() if mlp is None else mlp
        return continuous_bias_figure(window, scale, weights, head=head)

    return explorer(
        render,
        controls,
        defaults=start,
        title="Swin V2's continuous bias: log-spaced offsets and an MLP fitted at 8 × 8",
    )
