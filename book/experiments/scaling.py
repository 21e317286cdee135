"""Stretching a trained RoPE model to longer inputs: chapter 11's experiment.

* :func:`rope_stretching` trains one tiny RoPE model on short sequences, then runs it
  ``factor`` times longer with each way of stretching its frequencies
  (:func:`posenc.rotary.scaled_rotary_frequencies`), first as it is and then after a short
  fine-tune at the longer length, and returns a :class:`StretchResults`;
* :func:`stretch_toy_rotary` swaps a toy model's rotary frequencies (and attention scale) in
  place, the step every method needs.

It reuses the machinery of chapter 10: :func:`~book.experiments.length.toy_model` builds the
model, :func:`~book.toy.training.train_toy` trains and fine-tunes it under one stopping
rule, :func:`~book.toy.probes.toy_position_accuracy` tests it.
"""

from __future__ import annotations

import copy
import math
import time
from dataclasses import dataclass, field

from torch import Tensor

from book.experiments.length import toy_model
from book.experiments.results import _Progress, _text_table
from book.toy.model import TinyTransformer
from book.toy.probes import toy_position_accuracy
from book.toy.tasks import TASKS, Task
from book.toy.training import length_range, stop_rule, train_toy
from posenc._checks import check_bool, check_choice, check_int, check_positive_float
from posenc._threads import torch_threads
from posenc.rotary import RotaryEmbedding, rotary_scaling_reads, scaled_rotary_frequencies

__all__ = ["STRETCH_METHODS", "StretchResults", "rope_stretching", "stretch_toy_rotary"]

STRETCH_METHODS: tuple[str, ...] = ("plain", "linear", "ntk", "dynamic", "yarn", "llama3")
"""The methods :func:`rope_stretching` compares, in the order of chapter 11 (``"plain"``:
no stretching)."""

STAGES: tuple[str, str] = ("as trained", "fine-tuned")


def stretch_toy_rotary(
    model: TinyTransformer, inv_freq: Tensor, attention_scale: float = 1.0
) -> None:
    """Give every layer of a toy RoPE model new rotary frequencies and attention scale, in place.

    .. math::

        q_m \\mapsto a\\,R'_m q_m, \\quad k_n \\mapsto a\\,R'_n k_n, \\qquad
        R'_m = \\operatorname{diag}_i R(m\\,\\theta'_i)

    The model's :class:`~posenc.rotary.RotaryEmbedding` (shared by its layers) is replaced by
    one with ``inv_freq = θ'`` and ``attention_scale = a``, in the same channel layout; RoPE
    has no parameters, so nothing learned changes.

    Args:
        model: a :class:`TinyTransformer` built with a :class:`~posenc.rotary.RotaryEmbedding`
            (e.g. ``toy_model("rope")``).
        inv_freq: the frequencies ``[d/h / 2]`` (float, finite; on the CPU or the model's
            device, not ``meta``: the module builds its first tables on the CPU).
        attention_scale: ``a`` (finite, ``> 0``; YaRN's ``0.1 ln s + 1``).

    Shapes:
        ``inv_freq``: ``[d/(2h)]``.
    """
    if not isinstance(model, TinyTransformer):
        raise TypeError(f"model must be a TinyTransformer, got {type(model).__name__}")
    old = model.rotary
    if not isinstance(old, RotaryEmbedding):
        raise TypeError(
            f"model must use RoPE (its rotary must be a RotaryEmbedding), got {type(old).__name__}"
        )
    rotary = RotaryEmbedding(
        old.dim,
        base=old.base,
        interleaved=old.interleaved,
        max_positions=old.cos_cached.shape[0],
        inv_freq=inv_freq,
        attention_scale=attention_scale,
    ).to(old.cos_cached.device)  # built on the CPU, then where the model is
    model.rotary = rotary
    for block in model.blocks:
        block.attn.rotary = rotary


@dataclass(repr=False, eq=False)
class StretchResults:
    """What :func:`rope_stretching` returns: accuracy by method, stage and length.

    Attributes:
        task, k: the task (:func:`~book.toy.tasks.toy_batch`).
        train_lengths: ``(n_min, n_max)`` of the training sequences; ``L = n_max`` is the
            trained length ``L_0`` the methods stretch from.
        factor: ``s``; the long length is ``s·L``.
        eval_lengths: ``(L, s·L)``.
        methods: the methods, in the order run.
        accuracy: ``method -> stage -> {length -> accuracy}``, stages ``"as trained"`` and
            ``"fine-tuned"``.
        position_accuracy: the same, ``[n]`` accuracy per position.
        base_steps: the steps the RoPE model trained (``base_converged``: whether it met the
            stopping rule).
        finetune_losses: ``method -> fine-tuning loss per step``; ``finetune_converged``:
            whether it met the stopping rule before ``finetune_steps``.
        finetune_steps: the cap on fine-tuning steps.
        base_model: the trained RoPE model (plain frequencies); ``models``: ``method -> the
            fine-tuned copy`` (with the method's frequencies for ``s·L``).
        stop_loss, stop_window: the stopping rule of training and fine-tuning.
        chance: ``1/V``.
        seed: seeds the initialisation, the training batches (``seed``) and the fine-tuning
            batches (``seed + 1``, the same for every method).
        seconds: wall-clock seconds of training (``"training"``) and of each fine-tune.
    """

    task: str
    k: int
    train_lengths: tuple[int, int]
    factor: float
    eval_lengths: tuple[int, int]
    methods: tuple[str, ...]
    finetune_steps: int
    stop_loss: float
    stop_window: int
    chance: float
    seed: int
    accuracy: dict[str, dict[str, dict[int, float]]] = field(default_factory=dict)
    position_accuracy: dict[str, dict[str, dict[int, Tensor]]] = field(default_factory=dict)
    base_steps: int = 0
    base_converged: bool = False
    finetune_losses: dict[str, list[float]] = field(default_factory=dict)
    finetune_converged: dict[str, bool] = field(default_factory=dict)
    base_model: TinyTransformer | None = None
    models: dict[str, TinyTransformer] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)

    def finetune_trained_steps(self) -> dict[str, int]:
        """``method -> fine-tuning steps taken`` (the cap when it did not converge)."""
        return {m: len(losses) for m, losses in self.finetune_losses.items()}

    def rows(self) -> list[tuple[str, list[float], int, bool]]:
        """``(method, [acc at L, at s·L as trained, at L, at s·L fine-tuned], steps, converged)``."""
        out = []
        for m in self.methods:
            accs = [self.accuracy[m][stage][n] for stage in STAGES for n in self.eval_lengths]
            out.append((m, accs, len(self.finetune_losses[m]), self.finetune_converged[m]))
        return out

    def _header(self) -> list[str]:
        lo, long = self.eval_lengths
        return [f"n={lo} (L)", f"n={long} ({self.factor:g}L)"]

    def _note(self) -> str:
        lo, hi = self.train_lengths
        return (
            f"task {self.task!r}: one RoPE model trained on lengths {lo}..{hi} (L = {hi}, "
            f"{self.base_steps} steps{'' if self.base_converged else ', not converged'}), "
            f"stretched {self.factor:g}x by each method; fine-tuned at n = {self.eval_lengths[1]} "
            f"until its last {self.stop_window} losses were all below {self.stop_loss:g}, at most "
            f"{self.finetune_steps} steps (* = not converged); chance {self.chance:.2f}"
        )

    def table(self, digits: int = 2) -> str:
        """The accuracies as a plain-text table: as trained, fine-tuning steps, fine-tuned."""
        digits = check_int("digits", digits, minimum=0)
        header = [*self._header(), "steps", *self._header()]
        width = max(len(m) for m in (*self.methods, "method"))
        cols = [max(len(h), digits + 2) for h in header]
        top = "as trained".center(cols[0] + cols[1] + 2)
        top += "  " + " " * cols[2] + "  " + "fine-tuned".center(cols[3] + cols[4] + 2)
        rows = []
        for m, accs, steps, converged in self.rows():
            cells = [f"{a:.{digits}f}" for a in accs]
            cells.insert(2, f"{steps}{'' if converged else '*'}")
            rows.append((m, cells))
        lines = _text_table(header, rows, corner="method", width=width, cols=cols)
        return "\n".join([" " * width + "  " + top, *lines, self._note()])

    def __repr__(self) -> str:
        return self.table()

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{h}</th>" for h in self._header())
        body = []
        for m, accs, steps, converged in self.rows():
            cells = [f"<td>{a:.2f}</td>" for a in accs]
            title = "" if converged else ' title="not converged"'
            cells.insert(2, f"<td{title}>{steps}{'' if converged else '*'}</td>")
            body.append(f"<tr><th>{m}</th>{''.join(cells)}</tr>")
        return (
            f'<table class="posenc-results"><caption>Accuracy of one RoPE model stretched by each '
            f"method. {self._note()}.</caption><thead><tr><th></th>"
            '<th colspan="2">as trained</th><th></th><th colspan="2">fine-tuned</th></tr>'
            f"<tr><th>method</th>{head}<th>steps</th>{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>"
        )


def rope_stretching(
    methods: tuple[str, ...] | list[str] = STRETCH_METHODS,
    *,
    task: Task = "shift",
    train_lengths: tuple[int, int] = (8, 16),
    factor: float = 4.0,
    steps: int = 1500,
    finetune_steps: int = 300,
    stop_loss: float = 0.01,
    stop_window: int = 20,
    seed: int = 0,
    k: int = 2,
    batch_size: int = 32,
    lr: float = 1e-2,
    num_sequences: int = 256,
    test_seed: int = 1234,
    progress: bool = True,
    **model_options: object,
) -> StretchResults:
    """Train one tiny RoPE model at length ``L``; run it ``s·L`` long with every method, before and after a fine-tune.

    .. math::

        \\operatorname{acc}_{\\mu}(n), \\qquad
        \\theta' = \\text{stretch}_{\\mu}(\\theta;\\ s, L_0 = L, n), \\qquad
        n \\in \\{L, sL\\}

    1. ``toy_model("rope", seed=seed, **model_options)`` trains with
       :func:`~book.toy.training.train_toy` on lengths ``train_lengths`` until its last
       ``stop_window`` losses lie below ``stop_loss`` (at most ``steps`` steps).
    2. For each method ``μ`` a copy of it gets the frequencies
       :func:`~posenc.rotary.scaled_rotary_frequencies` returns for ``μ`` (``L_0 = L``,
       ``factor = s``; ``"dynamic"`` with ``seq_len = n``, so at ``n <= L`` it is plain RoPE)
       and is tested at ``L`` and ``s·L`` (stage ``"as trained"``).
    3. Each copy is fine-tuned on sequences of length ``s·L`` with the frequencies for ``s·L``,
       under the same stopping rule, for at most ``finetune_steps`` steps, on the same batches
       for every method, and tested again (stage ``"fine-tuned"``; ``"dynamic"`` then runs
       length ``L`` with plain frequencies again, as a dynamic model would).

    Accuracy is :func:`~book.toy.probes.toy_position_accuracy` averaged over the answered
    positions of ``num_sequences`` test sequences (the same sequences for every method).

    Args:
        methods: a subset of :data:`STRETCH_METHODS`, in the order to run them.
        task, k: the task, as in :func:`~book.toy.tasks.toy_batch`.
        train_lengths: ``(n_min, n_max)``; ``L = n_max``.
        factor: ``s`` (finite, ``> 1``); ``s·L`` is rounded to an integer length.
        steps: the cap of training steps; ``finetune_steps``: the cap of fine-tuning steps.
        stop_loss, stop_window: the stopping rule of :func:`~book.toy.training.train_toy`.
        seed: the initialisation and the training batches; the fine-tuning batches use
            ``seed + 1``.
        batch_size, lr: as in :func:`~book.toy.training.train_toy` (training and fine-tuning).
        num_sequences, test_seed: the test sequences.
        progress: show a progress bar.
        **model_options: passed to :func:`~book.experiments.length.toy_model` (``dim``,
            ``num_heads``, ``rope_base``, ...).

    Returns:
        a :class:`StretchResults`.
    """
    if isinstance(methods, str) or not isinstance(methods, (tuple, list)) or not methods:
        raise TypeError(f"methods must be a non-empty tuple or list of names, got {methods!r}")
    methods = tuple(check_choice("methods", m, STRETCH_METHODS) for m in methods)
    if len(set(methods)) != len(methods):
        raise ValueError(f"methods must not repeat a method, got {methods!r}")
    if not isinstance(task, str) or task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}, got {task!r}")
    lo, hi = length_range(train_lengths)
    factor = check_positive_float("factor", factor)
    if factor <= 1:
        raise ValueError(f"factor must be > 1 (how many times longer), got {factor}")
    long = round(factor * hi)
    steps = check_int("steps", steps)
    finetune_steps = check_int("finetune_steps", finetune_steps)
    stop = stop_rule(stop_loss, stop_window)
    if stop is None:  # the fine-tunes need a stopping rule
        raise ValueError("stop_loss must be a positive number here, got None")
    seed = check_int("seed", seed, minimum=0)
    k = check_int("k", k, minimum=0 if task == "local_max" else 1)
    batch_size = check_int("batch_size", batch_size)
    lr = check_positive_float("lr", lr)
    num_sequences = check_int("num_sequences", num_sequences)
    test_seed = check_int("test_seed", test_seed, minimum=0)
    progress = check_bool("progress", progress)

    model = toy_model("rope", seed=seed, **model_options)  # type: ignore[arg-type]
    rotary = model.rotary
    if not isinstance(rotary, RotaryEmbedding):  # the catalogue's "rope" toy form changed
        raise TypeError(f"the toy RoPE model must rotate with RotaryEmbedding, got {rotary!r}")
    head_dim, base = rotary.dim, rotary.base
    results = StretchResults(
        task=task,
        k=k,
        train_lengths=(lo, hi),
        factor=factor,
        eval_lengths=(hi, long),
        methods=methods,
        finetune_steps=finetune_steps,
        stop_loss=stop[0],
        stop_window=stop[1],
        chance=1.0 / model.vocab_size,
        seed=seed,
    )

    def frequencies(method: str, n: int) -> tuple[Tensor, float]:
        full = {"factor": factor, "original_max_positions": hi, "seq_len": n}
        reads = rotary_scaling_reads(method)
        kwargs = {"base": base} | {k: v for k, v in full.items() if k in reads}
        return scaled_rotary_frequencies(head_dim, method, **kwargs)  # type: ignore[arg-type]

    def test(net: TinyTransformer, method: str, stage: str) -> None:
        results.accuracy[method][stage] = {}
        results.position_accuracy[method][stage] = {}
        for n in (hi, long):
            stretch_toy_rotary(net, *frequencies(method, n))
            with torch_threads(1):
                per_position = toy_position_accuracy(
                    net, task, length=n, k=k, num_sequences=num_sequences, seed=test_seed
                )  # [n]
            answered = ~per_position.isnan()  # [n]
            results.accuracy[method][stage][n] = float(per_position[answered].mean())
            results.position_accuracy[method][stage][n] = per_position

    bar = _Progress(steps + len(methods) * finetune_steps, "training", progress)
    try:
        start = time.perf_counter()
        run = train_toy(
            model,
            task,
            steps=steps,
            length=(lo, hi),
            batch_size=batch_size,
            k=k,
            lr=lr,
            seed=seed,
            on_step=lambda step: bar.update(step, f"RoPE at L={hi}: {step}", force=step == steps),
            stop_loss=stop[0],
            stop_window=stop[1],
        )
        results.seconds["training"] = time.perf_counter() - start
        results.base_steps, results.base_converged = len(run.losses), run.converged
        results.base_model = model
        bar.update(steps, f"trained in {len(run.losses)} steps", force=True)
        for index, method in enumerate(methods):
            net = copy.deepcopy(model)
            results.accuracy[method], results.position_accuracy[method] = {}, {}
            test(net, method, STAGES[0])
            stretch_toy_rotary(net, *frequencies(method, long))
            done = steps + index * finetune_steps

            def tick(step: int, method: str = method, done: int = done) -> None:
                bar.update(done + step, f"fine-tune {method}: {step}", force=step == finetune_steps)

            start = time.perf_counter()
            tuned = train_toy(
                net,
                task,
                steps=finetune_steps,
                length=long,
                batch_size=batch_size,
                k=k,
                lr=lr,
                seed=seed + 1,
                on_step=tick,
                stop_loss=stop[0],
                stop_window=stop[1],
            )
            results.seconds[method] = time.perf_counter() - start
            results.finetune_losses[method] = tuned.losses
            results.finetune_converged[method] = tuned.converged
            bar.update(done + finetune_steps, f"fine-tuned {method}", force=True)
            test(net, method, STAGES[1])
            stretch_toy_rotary(net, *frequencies(method, long))  # the model as fine-tuned
            results.models[method] = net
    finally:
        bar.close()
    if math.isnan(results.chance):  # pragma: no cover - chance is 1/V
        raise RuntimeError("no chance level")
    return results
