"""Explorers for learned absolute position tables (chapter 4)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from matplotlib.figure import Figure
from torch import Tensor

from book._checks import check_text
from book.explorers.explorer import Explorer, explorer
from book.figures.learned import snapshot_figure
from posenc._checks import check_finite, check_float_tensor, check_int, check_real

__all__ = ["training_snapshots_explorer"]


def training_snapshots_explorer(
    snapshots: Mapping[str, Mapping[int, Tensor]],
    *,
    losses: Mapping[str, Sequence[float]] | None = None,
    train_length: int | None = None,
    reference_loss: float | None = None,
    reference_label: str = "no position",
    title: str = "A learned position table during training",
) -> Explorer:
    """Step through snapshots of position tables recorded during training, for several runs.

    One control picks the run (e.g. the initialisation: ``"zeros"``, ``"trunc_normal"``),
    a slider picks the training step. The figure shows the table, the cosine similarity of its
    rows (:func:`book.figures.learned.snapshot_figure`) and, with ``losses``, the loss curve
    up to that step. The table's colour scale is shared by every snapshot of every run, so the
    table visibly grows from its initial scale.

    Args:
        snapshots: ``run name -> {step -> table [n, d]}``, e.g. from
            :func:`book.toy.train_toy`'s ``ToyRun.snapshots``; every run must have the same
            steps.
        losses: ``run name -> loss per step``, optional.
        train_length: the training sequence length (dashed lines), optional.
        reference_loss: a loss drawn as a dashed line on every loss panel, e.g. the final
            loss of the same model trained without position information; optional.
        reference_label: the label of that line.
        title: the explorer's caption.

    Returns:
        an :class:`~book.explorers.explorer.Explorer` with controls ``run`` and ``step``.
    """
    if not isinstance(snapshots, Mapping) or not snapshots:
        raise ValueError("snapshots must be a non-empty mapping run name -> {step -> table}")
    runs = list(snapshots)
    steps = sorted(snapshots[runs[0]])
    if not steps:
        raise ValueError(f"snapshots[{runs[0]!r}] holds no snapshot")
    for name in runs:
        if sorted(snapshots[name]) != steps:
            raise ValueError(
                f"every run must have the same steps: {runs[0]!r} has {steps}, "
                f"{name!r} has {sorted(snapshots[name])}"
            )
    for name in runs:
        for step, table in snapshots[name].items():
            where = f"snapshots[{name!r}][{step!r}]"
            check_int(f"step {step!r} of snapshots[{name!r}]", step, minimum=0)
            check_float_tensor(where, table, ndim=2)
            if table.numel() == 0:
                raise ValueError(f"{where} must not be empty, got shape {tuple(table.shape)}")
            check_finite(where, table)
    if losses is not None:
        if not isinstance(losses, Mapping):
            raise TypeError(
                f"losses must be a mapping run name -> losses, got {type(losses).__name__}"
            )
        missing = set(runs) - set(losses)
        if missing:
            raise ValueError(f"losses has no entry for run(s) {sorted(missing)}")
    if train_length is not None:
        train_length = check_int("train_length", train_length)
    if reference_loss is not None:
        reference_loss = check_real("reference_loss", reference_loss)
    reference_label = check_text("reference_label", reference_label)
    vmax = max(float(t.detach().abs().max()) for run in snapshots.values() for t in run.values())
    vmax = vmax or 1.0

    def render(run: str, step: int) -> Figure:
        return snapshot_figure(
            snapshots[run][step],
            vmax=vmax,
            train_length=train_length,
            title=f"init = {run}, after {step} training steps",
            losses=None if losses is None else losses[run],
            step=step,
            reference_loss=reference_loss,
            reference_label=reference_label,
        )

    return explorer(render, {"run": runs, "step": steps}, title=title)
