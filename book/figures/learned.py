"""Figures for learned absolute position tables (chapter 4): what a table looks like.

Every function returns a new ``Figure``; nothing touches pyplot.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.image import AxesImage, BboxImage
from matplotlib.patches import Rectangle
from matplotlib.transforms import Bbox, TransformedBbox
from torch import Tensor

from book._checks import check_table, check_text
from book.demos.learned import cosine_similarity_matrix
from book.figures._base import (
    DIVERGING,
    fit_column,
    grey_undefined,
    heatmap,
    index_ticks,
    new_figure,
    to_numpy,
    with_slide_version,
)
from posenc._checks import (
    check_bool,
    check_int,
    check_positive_float,
    check_real,
)

__all__ = ["similarity_heatmap", "snapshot_figure", "trained_table_figure"]


def _check_train_length(train_length: object) -> int | None:
    return None if train_length is None else check_int("train_length", train_length)


def _check_losses(losses: object) -> list[float]:
    """``losses`` as floats; NaN is kept (a step whose loss diverged is drawn as a gap), but an
    infinite loss, or losses with no number at all, leave no scale for the loss axis."""
    if isinstance(losses, (str, bytes)) or not isinstance(losses, (Sequence, np.ndarray)):
        raise TypeError(f"losses must be a sequence of numbers, got {type(losses).__name__}")
    out = []
    for i, v in enumerate(losses):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
            raise TypeError(f"losses[{i}] must be a real number, got {type(v).__name__} {v!r}")
        v = float(v)
        if math.isinf(v):
            raise ValueError(
                f"losses[{i}] must be a finite number (or NaN for a diverged step), got {v}"
            )
        out.append(v)
    if out and all(math.isnan(v) for v in out):
        raise ValueError(f"losses must hold at least one number that is not NaN, got {out}")
    return out


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
) -> AxesImage:
    """Draw the cosine-similarity matrix of ``table``'s rows on ``ax`` (colour range ±1).

    Undefined entries (rows of zeros) are drawn grey, and a fully undefined matrix is labelled
    so. ``train_length`` draws dashed lines where the positions never trained begin.

    Args:
        ax: the axes to draw on.
        table: ``[n, d]`` position table.
        train_length: the training sequence length, or ``None``.
        title: the axes title.
        colorbar: whether to add a (labelled) colour bar.

    Returns:
        the ``AxesImage``.
    """
    check_table("table", table, allow_empty=False)
    train_length = _check_train_length(train_length)
    title = check_text("title", title)
    colorbar = check_bool("colorbar", colorbar)
    sim = to_numpy(cosine_similarity_matrix(table))  # [n, n]
    image = heatmap(ax, sim, vmax=1.0, colorbar=False, cmap=grey_undefined(DIVERGING))
    if np.isnan(sim).all():
        ax.text(
            0.5,
            0.5,
            "undefined:\nevery row is zero",
            transform=ax.transAxes,
            ha="center",
            va="center",
            fontsize=10,
        )
    if colorbar:
        ax.figure.colorbar(image, ax=ax, shrink=0.85, label="cosine similarity $S_{pq}$")
    n = sim.shape[0]
    _mark_train_length(ax, train_length, n, square=True)
    ax.set_xlabel("position q")
    ax.set_ylabel("position p")
    # an explicit y fixes the title's position, which spares a layout pass at every draw
    ax.set_title(title or "cosine similarity $S_{pq}$", fontsize=9, y=1.0)
    return image


def _figure_colorbar(
    fig: Figure, rect: tuple[float, float, float, float], image: object, labels: dict[float, str]
) -> None:
    """A colour bar for ``image`` at ``rect`` (figure fraction) without axes of its own.

    A gradient image, a frame and a few labels placed directly on the figure: an extra Axes
    with its tick machinery would cost about a tenth of an explorer's render budget.
    """
    low, high = image.get_clim()  # type: ignore[attr-defined]
    left, bottom, width, height = rect
    box = TransformedBbox(Bbox.from_bounds(left, bottom, width, height), fig.transFigure)
    bar = BboxImage(
        box,
        cmap=image.get_cmap(),
        norm=image.norm,  # type: ignore[attr-defined]
        interpolation="nearest",
        origin="lower",
    )
    bar.set_data(np.linspace(low, high, 64)[:, None])  # [64, 1], bottom = low
    fig.add_artist(bar)
    fig.add_artist(
        Rectangle(
            (left, bottom),
            width,
            height,
            transform=fig.transFigure,
            fill=False,
            lw=0.8,
            edgecolor="k",
        )
    )
    for value, text in labels.items():
        y = bottom + height * (value - low) / (high - low)
        fig.text(left + width + 0.004, y, text, fontsize=8, va="center", ha="left")


def snapshot_figure(
    table: Tensor,
    *,
    vmax: float | None = None,
    train_length: int | None = None,
    title: str = "",
    losses: Sequence[float] | None = None,
    step: int | None = None,
    reference_loss: float | None = None,
    reference_label: str = "no position",
) -> Figure:
    """Draw a position table, its row similarity and (optionally) the loss curve so far.

    Explorers redraw this figure for every snapshot, so it is built for speed: axes at fixed
    positions (no layout engine, which would make ``savefig`` draw twice) and a few explicit
    ticks per axis. One render plus PNG encoding takes well under 100 ms.

    Args:
        table: ``[n, d]`` position table.
        vmax: colour limit for the table panel; pass the same value for every snapshot of a
            run so that the growth of the table is visible (default: the table's own max).
        train_length: the training sequence length, or ``None``.
        title: a title for the whole figure.
        losses: the training loss per step, for a third panel (linear scale); a NaN (a step
            whose loss diverged) is drawn as a gap, an infinite loss is refused.
        step: the snapshot's step, marked on the loss curve.
        reference_loss: a loss to draw as a dashed horizontal line on the loss panel, e.g.
            that of the same model trained without positions.
        reference_label: the label of that line.

    Returns:
        a ``Figure`` with two axes (table, similarity), or three with ``losses``; the two
        colour bars are drawn on the figure itself, not as axes.
    """
    check_table("table", table, allow_empty=False)
    train_length = _check_train_length(train_length)
    if vmax is not None:
        vmax = check_positive_float("vmax", vmax)
    if losses is not None:
        losses = _check_losses(losses)
    if step is not None:
        step = check_int("step", step, minimum=0)
        if losses is not None and step > len(losses):
            raise ValueError(f"step must be <= len(losses) = {len(losses)}, got {step}")
    if reference_loss is not None:
        reference_loss = check_real("reference_loss", reference_loss)
    title = check_text("title", title)
    reference_label = check_text("reference_label", reference_label)
    with_loss = losses is not None
    # the places below are laid out for 10.2 inches with the loss panel; squeezed by ``k`` into
    # the column's 6.8 inches (the height stays, so the labels keep their room)
    width = 6.8
    k = 6.8 / 10.2 if with_loss else 1.0
    fig = Figure(figsize=(width, 3.2))
    bottom, height = 0.15, 0.82 - 0.15 if title else 0.9 - 0.15

    def axes(left_inch: float, width_inch: float) -> Axes:
        return fig.add_axes((k * left_inch / width, bottom, k * width_inch / width, height))

    ax_table, ax_sim = axes(0.85 if with_loss else 0.6, 1.8 if with_loss else 2.0), axes(3.55, 2.6)

    def bar_rect(left_inch: float) -> tuple[float, float, float, float]:
        return (k * left_inch / width, bottom, 0.1 / width, height)

    table_np = to_numpy(table)  # [n, d]
    n, d = table_np.shape
    limit = vmax if vmax is not None else float(np.abs(table_np).max()) or 1.0
    image = heatmap(ax_table, table_np, vmax=limit, colorbar=False)
    _figure_colorbar(fig, bar_rect(2.7), image, {-limit: f"{-limit:.2g}", limit: f"{limit:.2g}"})
    _mark_train_length(ax_table, train_length, n, square=False)
    ax_table.set_xticks([0, d - 1])
    ax_table.set_yticks(index_ticks(n, mark=train_length))
    ax_table.set_xlabel("channel", labelpad=1)
    ax_table.set_ylabel("position p", labelpad=1)
    # plain-text titles: mathtext would cost several ms per render
    ax_table.set_title("table P (rows = positions)", fontsize=9, y=1.0)
    image = similarity_heatmap(
        ax_sim,
        table,
        train_length=train_length,
        colorbar=False,
        title="cosine similarity of rows p, q",
    )
    _figure_colorbar(fig, bar_rect(6.25), image, {-1.0: "-1", 1.0: "1"})
    ax_sim.set_xticks(index_ticks(n, mark=train_length))
    ax_sim.set_yticks(index_ticks(n, mark=train_length))
    ax_sim.tick_params(labelleft=False)  # the same positions as the table's rows, labelled there
    ax_sim.set_xlabel("position q", labelpad=1)
    ax_sim.set_ylabel("")
    if with_loss:
        ax = axes(7.0, 3.0)
        values = np.asarray(losses, dtype=float)
        steps = np.arange(1, len(values) + 1)
        ax.plot(steps, values, color="0.7", lw=1.0)
        if step is not None and step > 0:
            ax.plot(steps[:step], values[:step], color="C0", lw=1.5)
            ax.axvline(step, color="C3", lw=1.0)
        top = float(np.nanmax(values)) if values.size else 1.0
        if reference_loss is not None:
            ax.axhline(reference_loss, color="k", lw=1.0, ls="--")
            ax.text(
                len(values),
                reference_loss,
                f"{reference_label} ({reference_loss:.2f})",
                ha="right",
                va="bottom",
                fontsize=8,
            )
            top = max(top, reference_loss)
        ax.set_ylim(0.0, 1.08 * top)
        ax.set_xlim(0, max(len(values), 1))
        ax.set_xticks(sorted({0, len(values) // 2, len(values)}))
        ax.set_yticks(np.arange(0, int(1.08 * top) + 1))
        ax.set_xlabel("training step", labelpad=1)
        ax.set_title("training loss (cross-entropy)", fontsize=9, y=1.0)
    if title:
        fig.suptitle(title, fontsize=11)
    return fit_column(fig)


_SLIDE_FONT = 12.5
"""The font size, in points, of :func:`trained_table_figure`'s slide layout: 25 px on a 1080p
projector in a figure about 3.8 inches high, shown 380 CSS px high."""


def trained_table_figure(
    trained: Tensor,
    initial: Tensor,
    *,
    train_length: int,
    reference: Tensor | None = None,
    reference_title: str = "sinusoidal table",
    slide: bool = False,
) -> Figure:
    """The lesson of a trained table in one figure.

    Panel 1: cosine similarity of the trained table's rows (dashed lines at ``train_length``).
    Panel 2 (with ``reference``): the same for a fixed table, e.g. the sinusoidal one.
    Last panel: how far each row moved from its initial value, ``‖P_p − P_p^{init}‖`` —
    exactly zero for the rows no training sequence reached. The page's figure carries a slide
    layout (:func:`book.figures._base.with_slide_version`): the same panels, wider, with
    larger text and the bars' legend beside them rather than over them.

    Args:
        trained: ``[n, d]`` table after training.
        initial: ``[n, d]`` the same table before training.
        train_length: the length of the training sequences.
        reference: an ``[m, d']`` table to compare with, or ``None``.
        reference_title: the title of its panel.
        slide: draw the slide layout.

    Returns:
        a ``Figure`` with two or three panels.
    """
    check_table("trained", trained, allow_empty=False)
    check_table("initial", initial, allow_empty=False)
    if reference is not None:
        check_table("reference", reference, allow_empty=False)
    reference_title = check_text("reference_title", reference_title)
    slide = check_bool("slide", slide)
    if trained.shape != initial.shape:
        raise ValueError(
            f"trained and initial must have the same shape, got {tuple(trained.shape)} "
            f"and {tuple(initial.shape)}"
        )
    n = trained.shape[0]
    train_length = check_int("train_length", train_length)
    panels = 3 if reference is not None else 2
    if slide:
        fig = new_figure(11.6 if panels == 3 else 8.4, 3.75)
    else:
        fig = new_figure(6.8, 3.4 if panels == 3 else 3.0)
    fig.get_layout_engine().set(wspace=0.12)
    axes = fig.subplots(1, panels)
    similarity_heatmap(
        axes[0],
        trained,
        train_length=train_length,
        title="cosine similarity $S_{pq}$\nlearned table, trained",
        colorbar=reference is None,
    )
    if reference is not None:
        similarity_heatmap(
            axes[1], reference, title=f"cosine similarity $S_{{pq}}$\n{reference_title}"
        )
    moved = to_numpy((trained.detach() - initial.detach()).norm(dim=1))  # [n]
    ax = axes[-1]
    positions = np.arange(n)
    used = positions < train_length
    ax.bar(positions[used], moved[used], width=0.9, color="C0", label="seen in training")
    ax.bar(positions[~used], moved[~used], width=0.9, color="C3", label="never seen")
    if (~used).any():
        ax.plot(positions[~used], moved[~used], "o", color="C3", ms=3)
        note = "exactly 0" if moved[~used].max() == 0 else f"max {moved[~used].max():.1g}"
        if slide:  # in room left above the bars, wider than the unseen rows' bars at this size
            ax.set_ylim(0.0, 1.3 * max(float(moved.max()), 1e-12))
            ax.annotate(
                note,
                xy=((train_length + n - 1) / 2, float(moved[~used].max())),
                xytext=(0.98, 0.97),
                textcoords="axes fraction",
                ha="right",
                va="top",
                fontsize=_SLIDE_FONT,
                color="C3",
                arrowprops={"arrowstyle": "->", "color": "C3", "lw": 1.2},
            )
        else:
            ax.annotate(
                note,
                xy=(n - 0.5, 0.0),
                xytext=(-2, 14),
                textcoords="offset points",
                ha="right",
                fontsize=8,
                color="C3",
            )
    ax.axvline(train_length - 0.5, color="k", lw=1.0, ls="--")
    ax.set_xlabel("position p")
    ax.set_ylabel(r"$\|P_p - P_p^{\mathrm{init}}\|$")
    ax.set_title("how far each row moved", fontsize=10)
    ax.set_xlim(-0.5, n - 0.5)
    if slide:
        for each in fig.axes:  # the panels and the colour bar
            # clear of the top tick label, which the larger title's left end reaches over
            each.set_title(each.get_title(), fontsize=_SLIDE_FONT, pad=9)
            each.xaxis.label.set_fontsize(_SLIDE_FONT)
            each.yaxis.label.set_fontsize(_SLIDE_FONT)
            each.tick_params(labelsize=_SLIDE_FONT)
        # beside the bars: over them, it would hide the tallest
        ax.legend(fontsize=_SLIDE_FONT, loc="center left", bbox_to_anchor=(1.02, 0.5))
        return fig
    ax.legend(fontsize=8, loc="upper right")
    page = fit_column(fig, max_width=6.45)  # the colour bar's label reaches past the axes
    options = {"train_length": train_length, "reference": reference}
    options |= {"reference_title": reference_title}
    return with_slide_version(
        page, lambda: trained_table_figure(trained, initial, **options, slide=True)
    )
