"""Time every explorer of the book: live redraw, static pre-render, and static HTML size.

    python -m benchmarks.explorers

For each ``*_explorer`` function in the modules of :mod:`book.explorers`, builds the explorer
and reports: the number of pre-rendered combinations; the median and worst time of one live
redraw (drawing and PNG-encoding a combination not seen before, which is what a reader waits
for when moving a control; target < 100 ms); the time to pre-render every combination for the
static book; and the size of the static HTML (target: the whole page < 3 MB). The reference
row times a bare 1-line matplotlib figure through the same path, measured in the same run.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import statistics
import time

from matplotlib.figure import Figure

import book.explorers
from book.explorers import Explorer, explorer


def reference_explorer() -> Explorer:
    def render(k: int) -> Figure:
        fig = Figure(figsize=(6, 3))
        fig.add_subplot().plot([0, k])
        return fig

    return explorer(render, {"k": list(range(12))})


def training_snapshots() -> Explorer:
    """Chapter 4's explorer: needs the snapshots of two short training runs."""
    import torch

    from book.explorers.learned import training_snapshots_explorer
    from book.toy import TinyTransformer, train_toy
    from posenc.learned import LearnedPositionalEmbedding

    steps = (0, 5, 20, 40, 60, 80, 120, 200)
    runs = {}
    for init in ("trunc_normal", "zeros"):
        torch.manual_seed(0)
        model = TinyTransformer(16, 32, 2, 1, LearnedPositionalEmbedding(48, 32, init=init))
        runs[init] = train_toy(
            model,
            "local_max",
            steps=200,
            length=32,
            k=2,
            record=lambda m: m.position.table,
            record_steps=steps,
        )
    return training_snapshots_explorer(
        {name: run.snapshots for name, run in runs.items()},
        losses={name: run.losses for name, run in runs.items()},
        train_length=32,
    )


def length_results() -> Explorer:
    """Chapter 10's explorer: needs the results of the length experiment (the chapter's run:
    every encoding, one stopping rule)."""
    from book.experiments import length_generalisation
    from book.explorers.experiment import length_results_explorer

    rule = {"steps": 1500, "stop_loss": 0.01, "stop_window": 20}
    return length_results_explorer(length_generalisation(progress=False, **rule))


# explorers whose function needs data computed first
BUILDERS = {
    "learned.training_snapshots_explorer": training_snapshots,
    "experiment.length_results_explorer": length_results,
}


def book_explorers() -> list[tuple[str, Explorer]]:
    found = []
    for info in pkgutil.iter_modules(book.explorers.__path__):
        if info.name == "explorer":
            continue
        module = importlib.import_module(f"book.explorers.{info.name}")
        for name, fn in inspect.getmembers(module, inspect.isfunction):
            if name.endswith("_explorer") and fn.__module__ == module.__name__:
                key = f"{info.name}.{name}"
                found.append((key, BUILDERS.get(key, fn)()))
    return found


def measure(ex: Explorer) -> tuple[int, float, float, float, float]:
    redraws = []
    start = time.perf_counter()
    for key in ex.all_indices():
        t0 = time.perf_counter()
        ex.png(**{c.name: c.values[i] for c, i in zip(ex.controls, key)})
        redraws.append(time.perf_counter() - t0)
    prerender = time.perf_counter() - start
    size = len(ex.static_html().encode())
    return (
        ex.n_combinations,
        1e3 * statistics.median(redraws),
        1e3 * max(redraws),
        prerender,
        size / 1e6,
    )


def main() -> None:
    rows = [("reference (1-line plot)", reference_explorer())]
    t0 = time.perf_counter()
    rows += book_explorers()
    build = time.perf_counter() - t0
    print(
        f"{'explorer':44} {'combos':>6} {'median ms':>9} {'max ms':>7} {'ratio':>6} {'prerender s':>11} {'HTML MB':>7}"
    )
    ref_median = None
    for name, ex in rows:
        n, med, worst, pre, mb = measure(ex)
        ref_median = ref_median or med
        print(
            f"{name:44} {n:6d} {med:9.1f} {worst:7.1f} {med / ref_median:6.2f} {pre:11.2f} {mb:7.2f}"
        )
    print(f"(building the explorers, including any training they do: {build:.2f} s)")


if __name__ == "__main__":
    main()
