"""The results of the length-generalisation experiment, and how a run shows its progress.

* :class:`LengthResults` holds accuracy by encoding and test length (and position), the
  training losses and the trained models, and renders itself as a plain-text or HTML table;
* a progress bar that is one line updated in place in a notebook and ``tqdm`` elsewhere (used
  by :func:`book.experiments.length.length_generalisation`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from torch import Tensor

from book.toy.model import TinyTransformer
from posenc._checks import check_bool, check_int, check_real

__all__ = ["LengthResults"]


@dataclass(repr=False, eq=False)
class LengthResults:
    """What :func:`length_generalisation` returns: accuracy by encoding and test length.

    Attributes:
        task, k: the task (:func:`toy_batch`).
        train_lengths: ``(n_min, n_max)`` of the training sequences.
        eval_lengths: the test lengths.
        accuracy: ``encoding -> {length -> accuracy}``; ``nan`` where the model cannot run
            (a learned table beyond its rows).
        position_accuracy: ``encoding -> {length -> [n] accuracy per position}``
            (:func:`toy_position_accuracy`; all ``nan`` where the model cannot run).
        losses: ``encoding -> training loss per step``.
        models: ``encoding -> the trained model`` (in eval mode).
        chance: the accuracy of a uniform guess, ``1/V``.
        seed, steps: as passed to :func:`length_generalisation` (``steps``: the cap when a
            stopping rule is set).
        stop_loss, stop_window: the stopping rule every model trained under (``None``: none;
            every model then trained ``steps`` steps).
        converged: ``encoding -> whether it met the stopping rule`` (all ``False`` without
            one); the steps it trained are ``len(losses[encoding])``.
        seconds: ``encoding -> wall-clock seconds`` of its training (varies from run to run,
            unlike everything else here).
        guess: ``length -> [n]`` expected accuracy per position of the guess that ignores
            order (:func:`frequency_guess_position_accuracy`), the ceiling of a model without
            any position information; only for task ``"shift"`` when all models are alike
            (all causal or all not, one vocabulary), else empty.
    """

    task: str
    k: int
    train_lengths: tuple[int, int]
    eval_lengths: tuple[int, ...]
    accuracy: dict[str, dict[int, float]]
    position_accuracy: dict[str, dict[int, Tensor]]
    losses: dict[str, list[float]]
    models: dict[str, TinyTransformer]
    chance: float
    seed: int
    steps: int
    stop_loss: float | None = None
    stop_window: int = 20
    converged: dict[str, bool] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    guess: dict[int, Tensor] = field(default_factory=dict)

    @property
    def encodings(self) -> tuple[str, ...]:
        """The encodings, in the order they were trained."""
        return tuple(self.accuracy)

    def rows(self) -> list[tuple[str, list[float]]]:
        """``(encoding, [accuracy at each eval length])`` per encoding; ``nan``: cannot run."""
        return [(name, [acc[n] for n in self.eval_lengths]) for name, acc in self.accuracy.items()]

    def guess_accuracy(self) -> dict[int, float]:
        """``length -> accuracy`` of the order-blind guess over the answered positions
        (:func:`frequency_guess_accuracy`); empty when :attr:`guess` is."""
        return {n: float(acc[~acc.isnan()].mean()) for n, acc in self.guess.items()}

    def first_failure(self, encoding: str, length: int, *, threshold: float = 0.5) -> int | None:
        """The first position at which ``encoding``'s accuracy at ``length`` is below ``threshold``.

        Positions without an answer are skipped. ``None`` if every answered position reaches
        the threshold; ``0`` if the model cannot run at that length.
        """
        threshold = check_real("threshold", threshold)
        if not isinstance(encoding, str) or encoding not in self.position_accuracy:
            raise ValueError(f"encoding must be one of {self.encodings}, got {encoding!r}")
        if isinstance(length, bool) or length not in self.eval_lengths:
            raise ValueError(
                f"length must be one of the eval_lengths {self.eval_lengths}, got {length}"
            )
        acc = self.position_accuracy[encoding][length]  # [n]
        if bool(acc.isnan().all()):
            return 0
        below = ((acc < threshold) & ~acc.isnan()).nonzero().flatten()  # positions failing
        return int(below[0]) if below.numel() else None

    def cannot_run(self) -> list[tuple[str, int]]:
        """The ``(encoding, length)`` pairs the model could not be run at."""
        return [
            (name, n)
            for name, accs in self.rows()
            for n, a in zip(self.eval_lengths, accs)
            if math.isnan(a)
        ]

    def _header(self) -> list[str]:
        top = self.train_lengths[1]
        return [
            f"n={n}"
            + (f" ({n // top}L)" if n % top == 0 and n != top else " (L)" if n == top else "")
            for n in self.eval_lengths
        ]

    def trained_steps(self) -> dict[str, int]:
        """``encoding -> the number of steps it trained`` (fewer than :attr:`steps` when it
        met the stopping rule)."""
        return {name: len(losses) for name, losses in self.losses.items()}

    def final_loss(self) -> dict[str, float]:
        """``encoding -> the mean of its last `stop_window` training losses`` (fewer when it
        trained fewer steps): the training loss it ended with."""
        return {
            name: sum(losses[-self.stop_window :]) / len(losses[-self.stop_window :])
            if losses
            else math.nan
            for name, losses in self.losses.items()
        }

    def _training_cells(self, name: str) -> tuple[str, str]:
        """The ``steps`` and ``loss`` cells of ``name``'s row; ``*``: did not converge."""
        steps = self.trained_steps().get(name, 0)
        flag = "*" if self.stop_loss is not None and not self.converged.get(name, False) else ""
        return f"{steps}{flag}", f"{self.final_loss().get(name, math.nan):.3f}"

    def _training_note(self) -> str:
        if self.stop_loss is None:
            return f"each model trained {self.steps} steps"
        return (
            f"each model trained until its last {self.stop_window} losses were all below "
            f"{self.stop_loss:g}, at most {self.steps} steps; * = not converged"
        )

    def table(self, digits: int = 2) -> str:
        """The accuracies as a plain-text table; ``—`` marks a length the model cannot run.

        Two more columns tell how each model trained: ``steps`` (``*`` when it did not meet
        the stopping rule) and ``loss``, the mean of its last ``stop_window`` training losses.
        """
        digits = check_int("digits", digits, minimum=0)
        header = [*self._header(), "steps", "loss"]
        width = max(len(name) for name in (*self.encodings, "(guess)"))
        cols = [max(len(h), digits + 2) for h in header]
        cols[-2] = max(cols[-2], len(str(self.steps)) + 1)
        cols[-1] = max(cols[-1], 5)
        rows = [
            (
                name,
                ["—" if math.isnan(a) else f"{a:.{digits}f}" for a in accs]
                + list(self._training_cells(name)),
            )
            for name, accs in self.rows()
        ]
        guess = self.guess_accuracy()
        if guess:
            cells = [f"{guess[n]:.{digits}f}" if n in guess else "" for n in self.eval_lengths]
            rows.append(("(guess)", cells))
        lines = _text_table(header, rows, width=width, cols=cols)
        lo, hi = self.train_lengths
        note = f"task {self.task!r}, trained on lengths {lo}..{hi} (L = {hi}); chance {self.chance:.{digits}f}"
        note += f"; {self._training_note()}"
        if self.cannot_run():
            note += "; — = cannot run (the learned table has no row for it)"
        if guess:
            note += "; (guess) = the most frequent earlier token, no positions"
        return "\n".join([*lines, note])

    def __repr__(self) -> str:
        return self.table()

    def _repr_html_(self) -> str:
        header = "".join(f"<th>{h}</th>" for h in self._header())
        header += "<th>steps</th><th>loss</th>"
        body = []
        for name, accs in self.rows():
            cells = "".join(
                '<td title="cannot run">—</td>' if math.isnan(a) else f"<td>{a:.2f}</td>"
                for a in accs
            )
            steps, loss = self._training_cells(name)
            title = ' title="not converged"' if steps.endswith("*") else ""
            cells += f"<td{title}>{steps}</td><td>{loss}</td>"
            body.append(f"<tr><th>{name}</th>{cells}</tr>")
        guess = self.guess_accuracy()
        if guess:
            cells = "".join(
                f"<td>{guess[n]:.2f}</td>" if n in guess else "<td></td>" for n in self.eval_lengths
            )
            body.append(
                f'<tr class="posenc-guess"><th><i>guess without order</i></th>{cells}'
                "<td></td><td></td></tr>"
            )
        lo, hi = self.train_lengths
        caption = (
            f"Accuracy on task '{self.task}' (trained on lengths {lo}–{hi}; chance {self.chance:.2f}; "
            "— = cannot run"
            + ("; guess without order: the most frequent earlier token" if guess else "")
            + f"). Training: {self._training_note()}; loss: the mean of the last "
            + f"{self.stop_window} training losses."
        )
        return (
            f'<table class="posenc-results"><caption>{caption}</caption>'
            f"<thead><tr><th>encoding</th>{header}</tr></thead><tbody>{''.join(body)}</tbody></table>"
        )


def _text_table(
    header: Sequence[str],
    rows: Sequence[tuple[str, Sequence[str]]],
    *,
    corner: str = "",
    width: int | None = None,
    cols: Sequence[int] | None = None,
) -> list[str]:
    """The lines of a plain-text result table: ``corner`` and the ``header``, then a line per
    ``(label, cells)``; labels left-aligned to ``width`` (default: the longest label or
    ``corner``), cells right-aligned to ``cols`` (default: each column's widest entry)."""
    if width is None:
        width = max(len(corner), *(len(label) for label, _ in rows))
    if cols is None:
        cols = [max(len(h), *(len(cells[i]) for _, cells in rows)) for i, h in enumerate(header)]
    return [
        label.ljust(width) + "  " + "  ".join(v.rjust(c) for v, c in zip(cells, cols))
        for label, cells in [(corner, header), *rows]
    ]


def _html_cell(text: str) -> str:
    """A table cell: ``"—"`` as "cannot run", ``"mean (lo–hi)"`` as the mean over the range."""
    if text == "—":
        return '<td title="cannot run">—</td>'
    if text.endswith(")") and " (" in text:
        mean, spread = text[:-1].split(" (", 1)
        return f'<td>{mean}<br><small class="posenc-range">{spread}</small></td>'
    return f"<td>{text}</td>"


class _Progress:
    """A progress bar: a text line updated in place in a notebook, ``tqdm`` elsewhere.

    In a Jupyter kernel the bar is one ``text/plain`` display that is updated with
    ``update_display_data`` and emptied when the run ends, so a notebook executed headless
    (the book build) keeps no bar for the page, the deck or the handout; tqdm's widget would
    leave a live widget, and its text bar writes to stderr.
    """

    def __init__(self, total: int, desc: str, enabled: bool) -> None:
        enabled = check_bool("progress", enabled)
        self.total, self.desc, self.n, self.postfix = total, desc, 0, ""
        self._start = time.perf_counter()
        self._last = -1.0
        self._handle: object = None
        self._bar: object = None
        if not enabled:
            return
        if _in_kernel():
            from IPython.display import Pretty, display

            self._pretty = Pretty
            self._handle = display(Pretty(self._line()), display_id=True)
        else:
            from tqdm import tqdm

            self._bar = tqdm(total=total, desc=desc, unit="step")

    def _line(self) -> str:
        from tqdm import tqdm

        elapsed = time.perf_counter() - self._start
        return tqdm.format_meter(
            self.n,
            self.total,
            elapsed,
            ncols=72,
            prefix=self.desc,
            unit="step",
            postfix=self.postfix or None,
        )

    def update(self, n: int, postfix: str, *, force: bool = False) -> None:
        """Move to ``n`` steps done; redraw at most every 0.2 s unless ``force``."""
        delta, self.n, self.postfix = n - self.n, n, postfix
        if self._bar is not None:
            self._bar.set_postfix_str(postfix, refresh=False)  # type: ignore[attr-defined]
            self._bar.update(delta)  # type: ignore[attr-defined]
        elif self._handle is not None:
            now = time.perf_counter()
            if force or now - self._last >= 0.2:
                self._last = now
                self._handle.update(self._pretty(self._line()))  # type: ignore[attr-defined]

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()  # type: ignore[attr-defined]
        elif self._handle is not None:  # the results say how it went; the bar goes
            from IPython.display import HTML

            self._handle.update(HTML(""))  # type: ignore[attr-defined]


def _in_kernel() -> bool:
    """Whether we run inside a Jupyter kernel (where rich displays are shown)."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython is installed with the book
        return False
    shell = get_ipython()
    return shell is not None and hasattr(shell, "kernel")
