"""What the multi-seed experiments share: checked seeds and lengths, and jobs run in processes.

:func:`book.experiments.spread.seed_spread` and :func:`book.experiments.passkey.passkey_retrieval`
train many small models that do not depend on each other. :func:`run_jobs` runs them in a few
worker processes (spawned, one thread each, so the numbers do not depend on how many), or in
this process, with one progress tick per job.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

from book.experiments.results import _Progress
from posenc._checks import check_bool, check_int

__all__ = ["check_lengths", "check_seeds", "run_jobs"]

Job = TypeVar("Job")
Outcome = TypeVar("Outcome")


def check_seeds(seeds: object) -> tuple[int, ...]:
    """Refuse anything but a non-empty sequence of distinct non-negative ints; return a tuple."""
    if isinstance(seeds, (str, int)) or not isinstance(seeds, Sequence) or not seeds:
        raise TypeError(f"seeds must be a non-empty sequence of ints, got {seeds!r}")
    checked = tuple(check_int("seeds", s, minimum=0) for s in seeds)
    if len(set(checked)) != len(checked):
        raise ValueError(f"seeds must be distinct, got {list(checked)}")
    return checked


def check_lengths(lengths: object, *, minimum: int = 1) -> tuple[int, ...]:
    """Refuse anything but a non-empty sequence of ints ``>= minimum`` (``eval_lengths``)."""
    if isinstance(lengths, (str, int)) or not isinstance(lengths, Sequence):
        raise TypeError(f"eval_lengths must be a sequence of ints, got {lengths!r}")
    checked = tuple(check_int("eval_lengths", n, minimum=minimum) for n in lengths)
    if not checked:
        raise ValueError("eval_lengths must hold at least one length")
    return checked


def run_jobs(
    run: Callable[[Job], Outcome],
    jobs: Sequence[Job],
    *,
    workers: int,
    progress: bool,
    describe: Callable[[Job], str],
) -> list[Outcome]:
    """Run ``run(job)`` for every job, in order; return the outcomes in the jobs' order.

    Args:
        run: a module-level function (worker processes import it by name).
        jobs: picklable job descriptions.
        workers: processes at once; 1 runs every job in this process.
        progress: show a bar with one tick per job (``describe(job)`` names the last one).
        describe: the label of a job for the bar.

    Returns:
        ``[run(job) for job in jobs]``.
    """
    workers = check_int("workers", workers)
    progress = check_bool("progress", progress)
    bar = _Progress(len(jobs), "models", progress)
    outcomes: list[Outcome] = []
    try:
        if workers == 1:
            for job in jobs:
                outcomes.append(run(job))
                bar.update(len(outcomes), describe(job), force=True)
        else:
            context = multiprocessing.get_context("spawn")  # no fork of a threaded parent
            with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
                for job, outcome in zip(jobs, pool.map(run, jobs)):
                    outcomes.append(outcome)
                    bar.update(len(outcomes), describe(job), force=True)
    finally:
        bar.close()
    return outcomes
