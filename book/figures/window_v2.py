"""Figures for Swin V2's continuous position bias (chapter 12).

* :func:`log_spaced_coords_figure`: the coordinate the MLP sees for every offset along one
  axis, for the pretrained window, a larger window normalised by the pretrained one, and the
  larger window normalised by itself;
* :func:`bias_transfer_figure`: the result of :func:`book.demos.grids.window_bias_transfer`,
  the target, the continuous bias and the resized table at the larger window;
* :func:`continuous_bias_figure`: one frame of the explorer, the coordinates and a fitted
  MLP's bias at a chosen window and pretrained window.

Every figure function returns a new ``Figure``; nothing touches pyplot.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import torch
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.patches import Rectangle
from torch import Tensor

from book.demos.grids import BiasTransfer
from book.figures._base import CSS_DPI, SLIDE_BOX, fit_column, new_figure, with_slide_version
from posenc._checks import check_bool, check_choice, check_int
from posenc.window_v2 import ContinuousPositionBias, log_spaced_relative_coords

__all__ = ["bias_transfer_figure", "continuous_bias_figure", "log_spaced_coords_figure"]

_EDGE = math.log2(9) / math.log2(8)  # the coordinate of the pretrained window's last offset
_VMIN, _VMAX = 0.0, 12.0  # colour range of the biases (the target lies in (2, 12])
_SLIDE_FONT = 12.5
"""The smallest text of a slide layout, in points: a layout that fills the deck's box at 1×
needs 11.9 (``SLIDE_TEXT_PX``, 24.75 px on a 1080p projector); 12.5 leaves room (26 px)."""


def _coords_1d(window: int, pretrained: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Offsets ``−(W−1)..W−1`` of one axis and their log-spaced coordinates."""
    scale = None if pretrained is None else (pretrained, pretrained)
    table = log_spaced_relative_coords((window, window), scale)  # [2W-1, 2W-1, 2]
    offsets = np.arange(-(window - 1), window)
    return offsets, table[window - 1, :, 1].numpy()


def _draw_coords(ax: Axes, series: Sequence[tuple[int, int | None]]) -> None:
    styles = (("#0571b0", "o", "-"), ("#e66101", "s", "--"), ("#7b3294", "^", ":"))
    ax.axhspan(-_EDGE, _EDGE, color="0.9", zorder=0)
    for (window, pretrained), (colour, marker, line) in zip(series, styles):
        x, y = _coords_1d(window, pretrained)
        name = f"W = {window}, " + ("own" if pretrained is None else f"pretrained {pretrained}")
        ax.plot(x, y, marker=marker, ls=line, color=colour, ms=3.5, lw=1, label=name)
    ax.set_xlabel("offset Δ (patches)", fontsize=9)
    ax.set_ylabel("coordinate seen by the MLP", fontsize=9)
    ax.tick_params(labelsize=8)
    ax.legend(fontsize=8, loc="upper left", handlelength=2.2, borderpad=0.3)


def log_spaced_coords_figure(window: int = 16, pretrained: int = 8) -> Figure:
    """Draw the log-spaced coordinate of every offset along one axis of a window.

    .. math::

        \\widehat\\Delta = \\operatorname{sign}(\\Delta)\\,
        \\frac{\\log_2(1 + 8|\\Delta| / (P - 1))}{\\log_2 8}

    Three series: the pretrained window ``P`` by itself, a larger window ``W`` normalised by
    ``P`` (Swin V2's transfer: an offset keeps its coordinate, new offsets land a little
    beyond the grey band ``±log₂9/log₂8`` that training covered), and ``W`` normalised by
    itself (every offset moves).

    Args:
        window: ``W``, the larger window's side.
        pretrained: ``P``, the pretrained window's side (``>= 2``, at most ``W``).

    Returns:
        the figure (4.6 × 3.0 in).
    """
    window = check_int("window", window)
    pretrained = check_int("pretrained", pretrained, minimum=2)
    if pretrained > window:
        raise ValueError(f"pretrained must be at most window, got {pretrained} > {window}")
    fig = new_figure(4.6, 3.0)
    ax = fig.add_subplot()
    _draw_coords(ax, [(pretrained, None), (window, pretrained), (window, None)])
    return fig


def _bias_panel(
    fig: Figure, ax: Axes, bias: Tensor, seen: tuple[int, int] | None, title: str
) -> AxesImage:
    image = ax.imshow(
        bias.numpy(), cmap="viridis", vmin=_VMIN, vmax=_VMAX, interpolation="nearest",
        extent=_extent(bias),
    )  # fmt: skip
    if seen is not None:
        sh, sw = seen
        ax.add_patch(
            Rectangle((-(sw - 0.5), -(sh - 0.5)), 2 * sw - 1, 2 * sh - 1, fill=False,
                      edgecolor="white", lw=1.5, ls="--")
        )  # fmt: skip
    ax.set_title(title, fontsize=9)
    ax.tick_params(labelsize=8)
    return image


def _extent(bias: Tensor) -> tuple[float, float, float, float]:
    rows, cols = bias.shape
    wh, ww = (rows + 1) // 2, (cols + 1) // 2
    return (-(ww - 0.5), ww - 0.5, wh - 0.5, -(wh - 0.5))


def bias_transfer_figure(result: BiasTransfer, *, slide: bool = False) -> Figure:
    """Draw the window-transfer experiment: target, continuous bias and resized table.

    One row per head, three panels per row over the large window's offsets ``(Δr, Δc)``:
    the target, the continuous bias fitted at the small window and evaluated at the large
    one, and the small window's table resized bicubically. The dashed square holds the
    offsets the small window has; each panel's title gives its RMSE against the target.
    The page's figure carries a slide layout (:func:`book.figures._base.with_slide_version`):
    the six panels in a row, each head's three under its name, in larger type with fewer
    ticks.

    Args:
        result: from :func:`book.demos.grids.window_bias_transfer`.
        slide: draw the slide layout.

    Returns:
        the figure (6.8 × 4.6 in; the slide layout 11.65 × 2.85 in).
    """
    if not isinstance(result, BiasTransfer):
        raise TypeError(f"result must be a BiasTransfer, got {type(result).__name__}")
    if check_bool("slide", slide):
        return _transfer_slide(result)
    fig = new_figure(6.8, 4.6)
    axes = fig.subplots(2, 3, sharex=True, sharey=True)
    names = ("head 0 (near)", "head 1 (row)")
    for k in range(2):
        target, cont, resized = result.target[k], result.continuous[k], result.resized[k]
        image = _bias_panel(fig, axes[k, 0], target, result.small, f"{names[k]}: target")
        for ax, bias, label in ((axes[k, 1], cont, "continuous"), (axes[k, 2], resized, "resized")):
            err = (bias - target).pow(2).mean().sqrt().item()
            _bias_panel(fig, ax, bias, result.small, f"{label}, RMSE {err:.2f}")
        axes[k, 0].set_ylabel("Δr", fontsize=9)
    for ax in axes[1]:
        ax.set_xlabel("Δc", fontsize=9)
    bar = fig.colorbar(image, ax=axes, shrink=0.8, label="bias")
    bar.ax.tick_params(labelsize=8)
    bar.ax.yaxis.label.set_size(9)
    return with_slide_version(fig, lambda: bias_transfer_figure(result, slide=True))


def _errors(result: BiasTransfer, k: int) -> list[tuple[Tensor, str, float | None]]:
    """Head ``k``'s three biases, each with its name and RMSE against the target (none for
    the target itself)."""
    target = result.target[k]
    out: list[tuple[Tensor, str, float | None]] = [(target, "target", None)]
    for bias, label in ((result.continuous[k], "continuous"), (result.resized[k], "resized")):
        out.append((bias, label, (bias - target).pow(2).mean().sqrt().item()))
    return out


def _few_ticks(window: int) -> list[int]:
    """``−t, 0, t`` for offsets ``−(W−1)..W−1``, ``t`` about three quarters of the way out
    (a multiple of 5 when that is at least 5), so that no label reaches a neighbour's."""
    reach = 3 * (window - 1) // 4
    t = 5 * (reach // 5) if reach >= 5 else reach
    return [-t, 0, t] if t else [0]


def _transfer_slide(result: BiasTransfer) -> Figure:
    """The slide layout of :func:`bias_transfer_figure`, placed by hand (in px at 1×)."""
    width, height, side, gap, group = 1165.0, 285.0, 153.0, 12.0, 40.0
    left, bottom = 70.0, 50.0  # room for the tick labels and the axes' labels
    fig = new_figure(width / CSS_DPI, height / CSS_DPI, layout=None)
    names = ("head 0 (near)", "head 1 (row)")
    (lh, lw), x = result.large, left
    image = None
    for k in range(2):
        xs = [x + i * (side + gap) for i in range(3)]
        for i, (bias, label, err) in enumerate(_errors(result, k)):
            ax = fig.add_axes((xs[i] / width, bottom / height, side / width, side / height))
            title = label if err is None else f"{label},\nRMSE {err:.2f}"
            image = _bias_panel(fig, ax, bias, result.small, title)
            ax.set_xticks(_few_ticks(lw))
            ax.set_yticks(_few_ticks(lh))
            ax.set_xlabel("Δc")
            if k or i:
                ax.tick_params(labelleft=False)
            else:
                ax.set_ylabel("Δr")
        # the head's name above its panels' titles (two lines at most) and their pad
        y = (bottom + side + 8.0 + 2 * 1.2 * _SLIDE_FONT * CSS_DPI / 72 + 6.0) / height
        centre = (xs[0] + xs[-1] + side) / 2 / width
        fig.text(centre, y, names[k], ha="center", va="bottom", fontsize=_SLIDE_FONT + 0.5)
        x = xs[-1] + side + group
    bar = fig.add_axes(((x - group + 15.0) / width, bottom / height, 14.0 / width, side / height))
    fig.colorbar(image, cax=bar, label="bias", ticks=[0, 4, 8, 12])
    return fit_column(fig, max_width=SLIDE_BOX[0] / CSS_DPI, min_size=_SLIDE_FONT)


def continuous_bias_figure(
    window: int, pretrained: int | None, mlp: Mapping[str, Tensor], *, head: int = 0
) -> Figure:
    """Draw the coordinates and a fitted MLP's bias at one window (the explorer's frame).

    Left: the log-spaced coordinate of every offset along one axis for this window and
    ``pretrained`` (as in :func:`log_spaced_coords_figure`). Right: the bias ``16·sigmoid``
    of the MLP over the window's offsets; a dashed square marks the offsets of the
    ``pretrained`` window when it is smaller.

    Args:
        window: the window's side ``W`` (square windows).
        pretrained: the pretrained window's side, or ``None`` to normalise by ``W`` itself.
        mlp: a ``cpb_mlp`` state dict with two heads (e.g.
            :attr:`book.demos.grids.BiasTransfer.mlp`).
        head: which head to draw, 0 or 1.

    Returns:
        the figure (6.8 × 2.9 in).
    """
    window = check_int("window", window, minimum=2)
    if pretrained is not None:
        pretrained = check_int("pretrained", pretrained, minimum=2)
    head = check_choice("head", head, (0, 1))
    if not isinstance(mlp, Mapping) or not isinstance(mlp.get("cpb_mlp.0.weight"), Tensor):
        raise TypeError("mlp must be a cpb_mlp state dict (with a 'cpb_mlp.0.weight' tensor)")
    scale = None if pretrained is None else (pretrained, pretrained)
    hidden = mlp["cpb_mlp.0.weight"].shape[0]
    cpb = ContinuousPositionBias(
        (window, window), 2, pretrained_window_size=scale, hidden_dim=hidden
    )
    cpb.load_state_dict(dict(mlp))
    with torch.no_grad():
        out = cpb.cpb_mlp(cpb.relative_coords_table)  # [2W-1, 2W-1, 2]
        bias = (16 * torch.sigmoid(out[..., head])).double()  # [2W-1, 2W-1]
    width = 6.8
    inch = 1 / width
    fig = new_figure(width, 2.9, layout=None)
    ax = fig.add_axes((0.75 * inch, 0.17, 2.6 * inch, 0.7))
    _draw_coords(ax, [(window, pretrained)])
    ax.set_ylim(-1.75, 1.75)
    ax.set_title("grey: the range training covers", fontsize=9)
    ax = fig.add_axes((4.0 * inch, 0.17, 2.1 * inch, 0.7))
    seen = (pretrained, pretrained) if pretrained is not None and pretrained < window else None
    image = _bias_panel(fig, ax, bias, seen, f"bias of head {head}, {window} × {window}")
    ax.set_xlabel("Δc", fontsize=9)
    ax.set_ylabel("Δr", fontsize=9)
    bar = fig.add_axes((6.2 * inch, 0.17, 0.12 * inch, 0.7))
    fig.colorbar(image, cax=bar)
    bar.tick_params(labelsize=8)
    return fig
