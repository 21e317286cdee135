"""The length experiment over several seeds, tested at first fit and after a fixed budget.

* :func:`seed_spread` trains one tiny model per encoding and seed, under one stopping rule
  that only marks a moment: each model is tested when it first meets the rule ("first
  fit") and again after the full budget of steps ("fixed budget"), in one run;
* :class:`SeedSpread` holds the accuracies and renders the mean and range over the seeds.

The jobs are independent, so they run in a few worker processes (one thread each, as every
toy run of the book: the results are the same whatever the number of workers).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from book.catalogue import toy_encodings
from book.experiments._jobs import check_lengths, check_seeds, run_jobs
from book.experiments.length import _tested, toy_model
from book.experiments.results import _html_cell, _text_table
from book.toy.model import TinyTransformer
from book.toy.tasks import TASKS, Task
from book.toy.training import length_range, stop_rule, train_toy
from posenc._checks import check_int, check_positive_float

__all__ = ["PHASES", "SeedSpread", "seed_spread"]

PHASES = ("first fit", "fixed budget")
"""The two moments at which :func:`seed_spread` tests each model."""


@dataclass(frozen=True)
class _Job:
    """One model to train and test: an encoding, a seed and everything shared by all jobs."""

    encoding: str
    seed: int
    task: str
    k: int
    train_lengths: tuple[int, int]
    eval_lengths: tuple[int, ...]
    steps: int
    stop_loss: float
    stop_window: int
    batch_size: int
    lr: float
    num_sequences: int
    test_seed: int
    model_options: tuple[tuple[str, object], ...]


@dataclass(frozen=True)
class _Outcome:
    first_fit: dict[int, float] | None  # None: the rule was never met
    fixed_budget: dict[int, float]
    met_rule_at: int | None
    final_loss: float


def _accuracy(model: TinyTransformer, job: _Job) -> dict[int, float]:
    """Accuracy over the answered positions at every test length; ``nan``: cannot run."""
    return {
        n: _tested(model, job.task, n, job.k, job.num_sequences, job.test_seed)[0]
        for n in job.eval_lengths
    }


def _run(job: _Job) -> _Outcome:
    """Train one model for the full budget, testing it at first fit and at the end."""
    options = {"max_positions": job.train_lengths[1], **dict(job.model_options)}
    model = toy_model(job.encoding, seed=job.seed, **options)  # type: ignore[arg-type]
    first: dict[int, float] = {}

    def test_now(trained: TinyTransformer) -> None:
        first.update(_accuracy(trained, job))

    run = train_toy(
        model,
        job.task,  # type: ignore[arg-type]
        steps=job.steps,
        length=job.train_lengths,
        batch_size=job.batch_size,
        k=job.k,
        lr=job.lr,
        seed=job.seed,
        stop_loss=job.stop_loss,
        stop_window=job.stop_window,
        run_to_end=True,
        on_rule_met=test_now,
    )
    window = run.losses[-job.stop_window :]
    return _Outcome(
        first_fit=first if run.met_rule_at is not None else None,
        fixed_budget=_accuracy(model, job),
        met_rule_at=run.met_rule_at,
        final_loss=sum(window) / len(window),
    )


@dataclass(repr=False, eq=False)
class SeedSpread:
    """What :func:`seed_spread` returns: accuracy by encoding, seed, moment and test length.

    Attributes:
        task, k, train_lengths, eval_lengths, steps, stop_loss, stop_window, lr: the settings.
        seeds: the seeds, in order.
        accuracy: ``phase -> encoding -> seed -> {length -> accuracy}`` for the phases of
            :data:`PHASES`. At ``"first fit"`` a model that never met the rule is tested after
            the full budget, as at ``"fixed budget"`` (its first fit is the end of its run).
        met_rule_at: ``encoding -> seed -> the step at which it met the rule`` (``None``:
            never, within ``steps``).
        final_loss: ``encoding -> seed -> the mean of its last stop_window losses``.
    """

    task: str
    k: int
    train_lengths: tuple[int, int]
    eval_lengths: tuple[int, ...]
    steps: int
    stop_loss: float
    stop_window: int
    lr: float
    seeds: tuple[int, ...]
    accuracy: dict[str, dict[str, dict[int, dict[int, float]]]] = field(default_factory=dict)
    met_rule_at: dict[str, dict[int, int | None]] = field(default_factory=dict)
    final_loss: dict[str, dict[int, float]] = field(default_factory=dict)

    @property
    def encodings(self) -> tuple[str, ...]:
        """The encodings, in the order they were given."""
        return tuple(self.met_rule_at)

    def _check(self, phase: str, encoding: str, length: int) -> None:
        if phase not in PHASES:
            raise ValueError(f"phase must be one of {PHASES}, got {phase!r}")
        if encoding not in self.met_rule_at:
            raise ValueError(f"encoding must be one of {self.encodings}, got {encoding!r}")
        if isinstance(length, bool) or length not in self.eval_lengths:
            raise ValueError(f"length must be one of {self.eval_lengths}, got {length!r}")

    def values(self, phase: str, encoding: str, length: int) -> list[float]:
        """The accuracies of ``encoding`` at ``length``, one per seed, at ``phase``."""
        self._check(phase, encoding, length)
        return [self.accuracy[phase][encoding][s][length] for s in self.seeds]

    def mean(self, phase: str, encoding: str, length: int) -> float:
        """The mean over the seeds (``nan`` where the model cannot run)."""
        values = self.values(phase, encoding, length)
        return sum(values) / len(values)

    def range(self, phase: str, encoding: str, length: int) -> tuple[float, float]:
        """``(lowest, highest)`` over the seeds (``nan`` where the model cannot run)."""
        values = self.values(phase, encoding, length)
        if any(math.isnan(v) for v in values):
            return math.nan, math.nan
        return min(values), max(values)

    def fit_steps(self, encoding: str) -> list[int]:
        """The steps at which ``encoding`` met the rule, for the seeds that met it."""
        if encoding not in self.met_rule_at:
            raise ValueError(f"encoding must be one of {self.encodings}, got {encoding!r}")
        return [s for s in self.met_rule_at[encoding].values() if s is not None]

    def _cells(self, encoding: str) -> list[str]:
        cells = []
        for phase in PHASES:
            for n in self.eval_lengths:
                lo, hi = self.range(phase, encoding, n)
                if math.isnan(lo):
                    cells.append("—")
                else:
                    cells.append(f"{self.mean(phase, encoding, n):.2f} ({lo:.2f}–{hi:.2f})")
        fits = self.fit_steps(encoding)
        met = f"{len(fits)}/{len(self.seeds)}"
        cells.append(f"{met}: {min(fits)}–{max(fits)}" if fits else f"{met}")
        return cells

    def _header(self) -> list[str]:
        top = self.train_lengths[1]
        names = [
            "L" if n == top else f"{n // top}L" if n % top == 0 else f"n={n}"
            for n in self.eval_lengths
        ]
        return [f"{phase}, {name}" for phase in PHASES for name in names] + ["met rule: steps"]

    def _note(self) -> str:
        lo, hi = self.train_lengths
        return (
            f"task {self.task!r}, trained on lengths {lo}..{hi} (L = {hi}), seeds "
            f"{', '.join(map(str, self.seeds))}; each cell: mean (lowest–highest) over the seeds. "
            f"First fit: tested when the last {self.stop_window} losses first all lay below "
            f"{self.stop_loss:g} (a model that never did: after {self.steps} steps); fixed "
            f"budget: after {self.steps} steps. — = cannot run."
        )

    def table(self) -> str:
        """The means and ranges as a plain-text table, one row per encoding."""
        header = self._header()
        rows = [(e, self._cells(e)) for e in self.encodings]
        return "\n".join([*_text_table(header, rows), self._note()])

    def __repr__(self) -> str:
        return self.table()

    def _repr_html_(self) -> str:
        top = self.train_lengths[1]
        names = [
            "L" if n == top else f"{n // top}L" if n % top == 0 else f"n={n}"
            for n in self.eval_lengths
        ]
        m = len(self.eval_lengths)
        head1 = (
            '<tr><th rowspan="2">encoding</th>'
            + "".join(f'<th colspan="{m}">{phase}</th>' for phase in PHASES)
            + '<th rowspan="2">met the rule: steps</th></tr>'
        )
        head2 = "<tr>" + "".join(f"<th>{name}</th>" for _ in PHASES for name in names) + "</tr>"
        body = []
        for name in self.encodings:
            cells = "".join(_html_cell(c) for c in self._cells(name))
            body.append(f"<tr><th>{name}</th>{cells}</tr>")
        return (
            f'<table class="posenc-results posenc-spread"><caption>{self._note()}</caption>'
            f"<thead>{head1}{head2}</thead><tbody>{''.join(body)}</tbody></table>"
        )


def seed_spread(
    encodings: Sequence[str],
    seeds: Sequence[int] = (0, 1, 2, 3, 4),
    *,
    task: Task = "shift",
    train_lengths: tuple[int, int] = (8, 16),
    eval_lengths: Sequence[int] = (16, 32, 64),
    steps: int = 1500,
    stop_loss: float = 0.01,
    stop_window: int = 20,
    k: int = 2,
    batch_size: int = 32,
    lr: float = 1e-2,
    num_sequences: int = 256,
    test_seed: int = 1234,
    workers: int = 2,
    progress: bool = True,
    **model_options: object,
) -> SeedSpread:
    """Train one tiny model per encoding and seed; test each at first fit and after ``steps``.

    .. math::

        \\bar a_e(n) = \\frac{1}{|S|} \\sum_{s \\in S} \\operatorname{acc}_{e,s}(n), \\qquad
        \\big[\\min_s \\operatorname{acc}_{e,s}(n),\\ \\max_s \\operatorname{acc}_{e,s}(n)\\big]

    Each model is built and trained as in :func:`~book.experiments.length_generalisation`
    with ``seed=s`` (the same shared initial weights for every encoding of a seed, the same
    training batches and test sequences), under the stopping rule (its last ``stop_window``
    losses below ``stop_loss``). The rule only marks a moment: the model is tested there
    ("first fit": for seed ``s`` the very numbers of ``length_generalisation(..., seed=s,
    stop_loss=...)``), and trained on to ``steps`` and tested again ("fixed budget"). A model
    that never meets the rule is tested at the end for both.

    Args:
        encodings: keys of :func:`book.catalogue.toy_encodings`.
        seeds: the seeds (distinct non-negative ints).
        task, k, train_lengths, eval_lengths, batch_size, lr, num_sequences, test_seed: as in
            :func:`~book.experiments.length_generalisation`.
        steps: the fixed budget (also the cap of the first fit).
        stop_loss, stop_window: the stopping rule that marks the first fit.
        workers: how many processes train at once (1: in this process). The results do not
            depend on it.
        progress: show a progress bar, one tick per trained model.
        model_options: keyword arguments of :func:`~book.experiments.toy_model`.

    Returns:
        a :class:`SeedSpread`.
    """
    if isinstance(encodings, str) or not isinstance(encodings, Sequence):
        raise TypeError(f"encodings must be a sequence of names, got {encodings!r}")
    known = toy_encodings()
    names = list(encodings)
    unknown = [e for e in names if not isinstance(e, str) or e not in known]
    if unknown or not names:
        raise ValueError(f"encodings must be one or more names from {known}, got {names}")
    if len(set(names)) != len(names):
        raise ValueError(f"encodings must name each encoding once, got {names}")
    seed_list = check_seeds(seeds)
    if not isinstance(task, str) or task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}, got {task!r}")
    lengths = check_lengths(eval_lengths)
    rule = stop_rule(stop_loss, stop_window)
    if rule is None:
        raise ValueError("stop_loss must be a positive number (the rule marks the first fit)")
    jobs_common = {
        "task": task,
        "k": check_int("k", k, minimum=0 if task == "local_max" else 1),
        "train_lengths": length_range(train_lengths),
        "eval_lengths": lengths,
        "steps": check_int("steps", steps),
        "stop_loss": rule[0],
        "stop_window": rule[1],
        "batch_size": check_int("batch_size", batch_size),
        "lr": check_positive_float("lr", lr),
        "num_sequences": check_int("num_sequences", num_sequences),
        "test_seed": check_int("test_seed", test_seed, minimum=0),
        "model_options": tuple(sorted(model_options.items())),
    }
    jobs = [_Job(encoding=e, seed=s, **jobs_common) for e in names for s in seed_list]  # type: ignore[arg-type]
    outcomes = run_jobs(
        _run, jobs, workers=workers, progress=progress,
        describe=lambda job: f"{job.encoding} seed {job.seed}",
    )  # fmt: skip

    spread = SeedSpread(
        task=task,
        k=jobs_common["k"],  # type: ignore[arg-type]
        train_lengths=jobs_common["train_lengths"],  # type: ignore[arg-type]
        eval_lengths=lengths,
        steps=jobs_common["steps"],  # type: ignore[arg-type]
        stop_loss=rule[0],
        stop_window=rule[1],
        lr=jobs_common["lr"],  # type: ignore[arg-type]
        seeds=seed_list,
    )
    spread.accuracy = {phase: {e: {} for e in names} for phase in PHASES}
    for job, outcome in zip(jobs, outcomes):
        e, s = job.encoding, job.seed
        spread.accuracy["fixed budget"][e][s] = outcome.fixed_budget
        spread.accuracy["first fit"][e][s] = outcome.first_fit or outcome.fixed_budget
        spread.met_rule_at.setdefault(e, {})[s] = outcome.met_rule_at
        spread.final_loss.setdefault(e, {})[s] = outcome.final_loss
    return spread
