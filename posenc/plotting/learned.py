"""Figures for learned absolute position tables (chapter 4): what a table looks like.

Every function returns a new ``Figure``; nothing touches pyplot.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from torch import Tensor

from .._checks import check_int, check_tensor
from ..learned import cosine_similarity_matrix
from ._base import heatmap, new_figure, to_numpy

__all__ = ["similarity_heatmap", "snapshot_figure", "trained_table_figure"]

_UNDEFINED = "#d9d9d9"  # colour of undefined (nan) similarities: rows of zeros


def _mark_train_length(ax: Axes, train_length: int | None, n: int, *, square: bool) -> None:
    """Dashed lines at the first position never seen in training."""
    if train_length is None or train_length >= n:
        return
    edge = train_length - 0.5
    ax.axhline(edge, color="k", lw=1.0, ls="--")
    if square:
        ax.axvline(edge, color="k", lw=1.0, ls="--")


def similarity_heatmap(
    ax: Axes,
    table: Tensor,
    *,
    train_length: int | None = None,
    title: str = "",
    colorbar: bool = True,
) -> object:
    """Draw the cosine-similarity matrix of ``table``'s rows on ``ax`` (colour range ±1).

    Undefined entries (rows of zeros) are drawn grey, and a fully undefined matrix is labelled
    so. ``train_length`` draws dashed lines where the positions never trained begin.

    Args:
        ax: the axes to draw on.
        table: ``[n, d]`` position table.
        train_length: the training sequence length, or ``None``.
        title: the axes title.
        colorbar: whether to add a colour bar.

    Returns:
        the ``AxesImage``.
    """
    check_tensor("table", table, ndim=2)
    sim = to_numpy(cosine_similarity_matrix(table))  # [n, n]
    image = heatmap(ax, sim, vmax=1.0, colorbar=colorbar)  # imshow leaves nan "bad"
    image.set_cmap(image.get_cmap().with_extremes(bad=_UNDEFINED))
    if np.isnan(sim).all():
        ax.text(
            0.5, 0.5, "undefined:\nevery row is zero", transform=ax.transAxes,
            ha="center", va="center", fontsize=10,
        )
    n = sim.shape[0]
    _mark_train_length(ax, train_length, n, square=True)
    ax.set_xlabel("position q")
    ax.set_ylabel("position p")
    ax.set_title(title or "cosine similarity $S_{pq}$", fontsize=10)
    return image


def snapshot_figure(
    table: Tensor,
    *,
    vmax: float | None = None,
    train_length: int | None = None,
    title: str = "",
    losses: Sequence[float] | None = None,
    step: int | None = None,
) -> Figure:
    """Draw a position table, its row similarity and (optionally) the loss curve so far.

    Explorers redraw this figure for every snapshot, so it uses a fixed grid (with explicit
    colour-bar axes) instead of constrained layout, which would cost most of the render time.

    Args:
        table: ``[n, d]`` position table.
        vmax: colour limit for the table panel; pass the same value for every snapshot of a
            run so that the growth of the table is visible (default: the table's own max).
        train_length: the training sequence length, or ``None``.
        title: a title for the whole figure.
        losses: the training loss per step, for a third panel.
        step: the snapshot's step, marked on the loss curve.

    Returns:
        a ``Figure`` with two main axes (table, similarity), or three with ``losses``, plus
        one colour bar for each heatmap.
    """
    check_tensor("table", table, ndim=2)
    with_loss = losses is not None
    ratios = [0.8, 0.05, 0.3, 1.0, 0.05] + ([0.45, 1.0] if with_loss else [])
    fig = Figure(figsize=(10.2 if with_loss else 6.8, 3.2))
    grid = fig.add_gridspec(
        1, len(ratios), width_ratios=ratios, left=0.07, right=0.97 if with_loss else 0.9,
        bottom=0.15, top=0.82 if title else 0.9, wspace=0.08,
    )
    ax_table, cax_table = fig.add_subplot(grid[0]), fig.add_subplot(grid[1])
    ax_sim, cax_sim = fig.add_subplot(grid[3]), fig.add_subplot(grid[4])
    cax_table.set_label("<colorbar>")
    cax_sim.set_label("<colorbar>")
    table_np = to_numpy(table)  # [n, d]
    n = table_np.shape[0]
    limit = vmax if vmax is not None else float(np.abs(table_np).max()) or 1.0
    fig.colorbar(heatmap(ax_table, table_np, vmax=limit, colorbar=False), cax=cax_table)
    _mark_train_length(ax_table, train_length, n, square=False)
    ax_table.set_xlabel("channel")
    ax_table.set_ylabel("position p")
    ax_table.set_title("table $P$ (rows = positions)", fontsize=10)
    fig.colorbar(similarity_heatmap(ax_sim, table, train_length=train_length, colorbar=False),
                 cax=cax_sim)
    ax_sim.set_ylabel("")
    if with_loss:
        ax = fig.add_subplot(grid[6])
        values = np.asarray(losses, dtype=float)
        steps = np.arange(1, len(values) + 1)
        ax.plot(steps, values, color="0.6", lw=1.0)
        if step is not None and step > 0:
            ax.plot(steps[:step], values[:step], color="C0", lw=1.5)
            ax.axvline(step, color="C3", lw=1.0)
        ax.set_yscale("log")
        ax.set_xlabel("training step")
        ax.set_title("training loss", fontsize=10)
    if title:
        fig.suptitle(title, fontsize=11)
    return fig


def trained_table_figure(
    trained: Tensor,
    initial: Tensor,
    *,
    train_length: int,
    reference: Tensor | None = None,
    reference_title: str = "sinusoidal table",
) -> Figure:
    """The lesson of a trained table in one figure.

    Panel 1: cosine similarity of the trained table's rows (dashed lines at ``train_length``).
    Panel 2 (with ``reference``): the same for a fixed table, e.g. the sinusoidal one.
    Last panel: how far each row moved from its initial value, ``‖P_p − P_p^{init}‖`` —
    exactly zero for the rows no training sequence reached.

    Args:
        trained: ``[n, d]`` table after training.
        initial: ``[n, d]`` the same table before training.
        train_length: the length of the training sequences.
        reference: an ``[m, d']`` table to compare with, or ``None``.
        reference_title: the title of its panel.

    Returns:
        a ``Figure`` with two or three panels.
    """
    check_tensor("trained", trained, ndim=2)
    check_tensor("initial", initial, ndim=2)
    if trained.shape != initial.shape:
        raise ValueError(
            f"trained and initial must have the same shape, got {tuple(trained.shape)} "
            f"and {tuple(initial.shape)}"
        )
    n = trained.shape[0]
    train_length = check_int("train_length", train_length)
    panels = 3 if reference is not None else 2
    fig = new_figure(3.6 * panels, 3.4)
    axes = fig.subplots(1, panels)
    similarity_heatmap(
        axes[0], trained, train_length=train_length, title="learned table, trained",
        colorbar=reference is None,
    )
    if reference is not None:
        similarity_heatmap(axes[1], reference, title=reference_title)
    moved = to_numpy((trained.detach() - initial.detach()).norm(dim=1))  # [n]
    ax = axes[-1]
    positions = np.arange(n)
    used = positions < train_length
    ax.bar(positions[used], moved[used], width=0.9, color="C0", label="seen in training")
    ax.bar(positions[~used], moved[~used], width=0.9, color="C3", label="never seen")
    if (~used).any():
        ax.plot(positions[~used], moved[~used], "o", color="C3", ms=3)
        ax.annotate(
            "exactly 0" if moved[~used].max() == 0 else f"max {moved[~used].max():.1g}", xy=(0.5 * (train_length + n) - 0.5, 0.0),
            xytext=(0, 14), textcoords="offset points", ha="center", fontsize=8, color="C3",
        )
    ax.axvline(train_length - 0.5, color="k", lw=1.0, ls="--")
    ax.set_xlabel("position p")
    ax.set_ylabel(r"$\|P_p - P_p^{\mathrm{init}}\|$")
    ax.set_title("how far each row moved", fontsize=10)
    ax.legend(fontsize=8, loc="upper right")
    ax.set_xlim(-0.5, n - 0.5)
    return fig
