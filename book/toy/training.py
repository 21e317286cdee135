"""Training the tiny Transformer: a hand-written Adam and the training loop.

* :class:`Adam` is ``torch.optim.Adam``'s update in a few lines, without the import cost of
  ``torch.optim`` (about 1.5 s, more than a chapter's whole training run);
* :func:`train_toy` trains a :class:`~book.toy.model.TinyTransformer` on
  :func:`~book.toy.tasks.toy_batch` and returns a :class:`ToyRun` (losses, snapshots).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from book.toy.model import TinyTransformer
from book.toy.tasks import IGNORE_INDEX, Task, toy_batch
from posenc._checks import check_bool, check_int, check_positive_float, check_real
from posenc._threads import torch_threads

__all__ = ["Adam", "ToyRun", "length_range", "stop_rule", "train_toy"]


class Adam:
    """Adam (Kingma & Ba, 2015) without weight decay, written out in a few lines.

    .. math::

        m \\leftarrow \\beta_1 m + (1-\\beta_1) g, \\quad
        v \\leftarrow \\beta_2 v + (1-\\beta_2) g^2, \\quad
        \\theta \\leftarrow \\theta - \\eta\\,
        \\frac{m / (1-\\beta_1^t)}{\\sqrt{v / (1-\\beta_2^t)} + \\epsilon}

    Numerically the update of ``torch.optim.Adam`` (the tests compare them). It exists because
    building any ``torch.optim`` optimiser imports ``torch._dynamo``, which costs about 1.5 s
    — more than the whole training run of a chapter. The moments of all parameters live in
    two flat vectors, so a step is a handful of element-wise operations on those vectors
    (plus one to gather the gradients and one to add the updates): the models of the book
    are so small that the number of operations, not their size, sets the time. An entry
    whose gradient has always been zero keeps ``m = v = 0`` and so never moves.

    Args:
        params: the parameters to update (their ``.grad`` is read; ``None`` counts as zero).
        lr: ``η``.
        betas: ``(β₁, β₂)``.
        eps: ``ε``.
    """

    def __init__(
        self,
        params: Iterable[nn.Parameter],
        *,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
    ) -> None:
        params = list(params)
        for i, p in enumerate(params):
            if not isinstance(p, Tensor):
                raise TypeError(f"params[{i}] must be a tensor, got {type(p).__name__}")
        self.params = [p for p in params if p.requires_grad]
        self.lr = check_positive_float("lr", lr)
        if not isinstance(betas, tuple) or len(betas) != 2:
            raise TypeError(f"betas must be a pair (beta1, beta2), got {betas!r}")
        beta1, beta2 = (check_real(f"betas[{i}]", beta, minimum=0) for i, beta in enumerate(betas))
        if beta1 >= 1 or beta2 >= 1:
            raise ValueError(f"betas must lie in [0, 1) (a moment must forget), got {betas!r}")
        self.betas = (beta1, beta2)
        self.eps = check_positive_float("eps", eps)
        self.t = 0
        self.sizes = [p.numel() for p in self.params]
        total = sum(self.sizes)
        dtype = self.params[0].dtype if self.params else torch.float32
        device = self.params[0].device if self.params else None
        self.m = torch.zeros(total, dtype=dtype, device=device)  # [P]: all parameters, flattened
        self.v = torch.zeros(total, dtype=dtype, device=device)  # [P]

    @torch.no_grad()
    def step(self) -> None:
        """Apply one update from the current gradients."""
        if not self.params:
            return
        self.t += 1
        beta1, beta2 = self.betas
        c1, c2 = 1.0 - beta1**self.t, 1.0 - beta2**self.t
        grads = [
            p.grad.reshape(-1) if p.grad is not None else torch.zeros_like(p).reshape(-1)
            for p in self.params
        ]
        g = torch.cat(grads)  # [P]
        self.m.mul_(beta1).add_(g, alpha=1.0 - beta1)  # m ← β₁m + (1−β₁)g
        self.v.mul_(beta2).addcmul_(g, g, value=1.0 - beta2)  # v ← β₂v + (1−β₂)g²
        denominator = self.v.sqrt().div_(math.sqrt(c2)).add_(self.eps)  # √(v/(1−β₂ᵗ)) + ε
        update = (self.m / denominator).mul_(-self.lr / c1)  # [P]
        pieces = [u.view_as(p) for u, p in zip(update.split(self.sizes), self.params)]
        torch._foreach_add_(self.params, pieces)


@dataclass
class ToyRun:
    """What :func:`train_toy` returns.

    Attributes:
        losses: the training loss at every step.
        snapshots: ``step -> record(model)`` for each requested step (step 0 is before any
            update, step ``s`` after ``s`` updates).
        lengths: the sequence length of every step's batch.
        converged: whether the stopping rule of :func:`train_toy` (``stop_loss``) was met; the
            run then ended at step ``len(losses)``, before ``steps`` (unless ``run_to_end``).
            ``False`` without a rule.
        met_rule_at: the step at which the rule was met (``None``: never, or no rule). Without
            ``run_to_end`` this is ``len(losses)``; with it, training went on to ``steps``.
    """

    losses: list[float] = field(default_factory=list)
    snapshots: dict[int, Tensor] = field(default_factory=dict)
    lengths: list[int] = field(default_factory=list)
    converged: bool = False
    met_rule_at: int | None = None


def train_toy(
    model: TinyTransformer,
    task: Task,
    *,
    steps: int = 200,
    length: int | tuple[int, int] = 32,
    batch_size: int = 32,
    k: int = 2,
    lr: float = 1e-2,
    seed: int = 0,
    record: Callable[[nn.Module], Tensor] | None = None,
    record_steps: Iterable[int] = (),
    num_threads: int | None = 1,
    on_step: Callable[[int], None] | None = None,
    stop_loss: float | None = None,
    stop_window: int = 20,
    run_to_end: bool = False,
    on_rule_met: Callable[[TinyTransformer], None] | None = None,
) -> ToyRun:
    """Train ``model`` in place on :func:`toy_batch` with Adam; return losses and snapshots.

    .. math::

        \\mathcal{L} = \\frac{1}{|\\{(b,p): y_{b,p} \\ne \\text{ignore}\\}|}
        \\sum_{b,p} -\\log \\operatorname{softmax}(f(x_b)_p)_{y_{b,p}}

    Plain Adam (:class:`Adam`) without weight decay: a row of a position table that no batch
    ever reaches gets a zero gradient, Adam's moments stay zero, and the row keeps its initial
    value exactly (weight decay would shrink it instead).

    With ``stop_loss``, training stops early at the first step ``s >= w`` (``w =
    stop_window``) whose last ``w`` training losses all lie below it,

    .. math::

        \\max(\\mathcal{L}_{s-w+1}, \\dots, \\mathcal{L}_s) < \\text{stop\\_loss},

    and :attr:`ToyRun.converged` is ``True``; ``steps`` is then a cap. The same rule for every
    model is what makes a comparison of models that learn at different speeds fair. With
    ``run_to_end`` the rule only marks a moment: training goes on to ``steps``, and
    ``on_rule_met(model)`` is called once, at the step the rule is met (to test the model as it
    was at its first fit, then again after the full budget, in one run).

    Args:
        model: the model to train (changed in place).
        task, k: passed to :func:`toy_batch`; the vocabulary is ``model.vocab_size``.
        steps: the number of updates.
        length: ``n`` of every training sequence, or ``(n_min, n_max)``: each batch then has
            its own length, drawn uniformly from ``n_min..n_max`` with the batches' generator.
        batch_size: sequences per update.
        lr: Adam's learning rate.
        seed: seeds the batches (seed the model's initialisation yourself, before building it).
        record: ``record(model) -> Tensor``, e.g. ``lambda m: m.position.table``; its result
            is detached and cloned.
        record_steps: the steps at which to call ``record`` (0 to ``steps``).
        num_threads: CPU threads for the run (restored afterwards); ``None`` keeps torch's
            setting. One thread is the default: the model is so small that threads mostly
            wait for each other (and spin badly when the CPU is shared), and a fixed thread
            count makes the floating-point sums, hence the whole run, the same on every machine.
        on_step: called as ``on_step(step)`` after every update (e.g. to move a progress bar).
        stop_loss: ``None`` (train all ``steps``), or the loss below which the last
            ``stop_window`` training losses must all lie to stop early.
        stop_window: ``w``, the number of consecutive steps of the stopping rule.
        run_to_end: with ``stop_loss``, keep training to ``steps`` after the rule is met.
        on_rule_met: ``None``, or called as ``on_rule_met(model)`` when the rule is met (the
            model is in eval mode during the call and back in training mode after it).

    Returns:
        a :class:`ToyRun`.
    """
    if not isinstance(model, TinyTransformer):
        raise TypeError(f"model must be a TinyTransformer, got {type(model).__name__}")
    steps = check_int("steps", steps, minimum=0)
    lr = check_positive_float("lr", lr)
    wanted = sorted({check_int("record_steps", s, minimum=0) for s in record_steps})
    if wanted and wanted[-1] > steps:
        raise ValueError(f"record_steps must lie in 0..steps={steps}, got {wanted[-1]}")
    if wanted and record is None:
        raise ValueError("record_steps needs a record function")
    seed = check_int("seed", seed, minimum=0)
    lengths = length_range(length)
    toy_batch(task, batch_size, lengths[0], vocab_size=model.vocab_size, k=k)  # check arguments now
    _check_fits(model, lengths[1], "length")
    generator = torch.Generator().manual_seed(seed)
    optimizer = Adam(model.parameters(), lr=lr)
    run = ToyRun()

    def snapshot(step: int) -> None:
        if record is not None and step in wanted:
            with torch.no_grad():
                run.snapshots[step] = record(model).detach().clone()

    if num_threads is not None:
        check_int("num_threads", num_threads)
    if on_step is not None and not callable(on_step):
        raise TypeError(f"on_step must be callable or None, got {type(on_step).__name__}")
    if record is not None and not callable(record):
        raise TypeError(f"record must be callable or None, got {type(record).__name__}")
    if on_rule_met is not None and not callable(on_rule_met):
        raise TypeError(f"on_rule_met must be callable or None, got {type(on_rule_met).__name__}")
    run_to_end = check_bool("run_to_end", run_to_end)
    stop = stop_rule(stop_loss, stop_window)
    if (run_to_end or on_rule_met is not None) and stop is None:
        raise ValueError("run_to_end and on_rule_met need a stopping rule (stop_loss)")
    with torch_threads(num_threads):
        _train_loop(
            model,
            task,
            steps,
            lengths,
            batch_size,
            k,
            generator,
            optimizer,
            run,
            snapshot,
            on_step,
            stop,
            run_to_end,
            on_rule_met,
        )
    return run


def stop_rule(stop_loss: float | None, stop_window: int) -> tuple[float, int] | None:
    """Check a stopping rule: stop once the last ``stop_window`` losses are all below ``stop_loss``.

    :func:`train_toy` and the experiments (:mod:`book.experiments`) take the rule as these two
    arguments; this checks them once, before any training.

    Args:
        stop_loss: the loss to get below, or ``None`` for no stopping rule.
        stop_window: how many consecutive steps must all be below it (checked even without a
            rule, so that a bad value is refused whatever ``stop_loss`` is).

    Returns:
        ``(stop_loss, stop_window)`` checked, or ``None`` without a stopping rule.
    """
    window = check_int("stop_window", stop_window)
    if stop_loss is None:
        return None
    return check_positive_float("stop_loss", stop_loss), window


def length_range(length: int | tuple[int, int]) -> tuple[int, int]:
    """Check a training length: one length ``n`` or a range ``(n_min, n_max)`` to draw from.

    Args:
        length: a positive int, or a pair of positive ints with ``n_min <= n_max``.

    Returns:
        ``(n, n)`` for an int, ``(n_min, n_max)`` for a pair.
    """
    if isinstance(length, tuple):
        if len(length) != 2:
            raise ValueError(f"length must be an int or a pair (n_min, n_max), got {length!r}")
        lo, hi = check_int("length[0]", length[0]), check_int("length[1]", length[1])
        if lo > hi:
            raise ValueError(f"length must be (n_min, n_max) with n_min <= n_max, got {length!r}")
        return lo, hi
    n = check_int("length", length)
    return n, n


def _check_fits(model: TinyTransformer, length: int, name: str) -> None:
    """Refuse a length beyond the model's position table, naming ``name``."""
    limit = model.max_positions
    if limit is not None and length > limit:
        raise ValueError(
            f"{name} must be at most the model's max_positions={limit} (its position table has "
            f"no row beyond), got {length}"
        )


def _train_loop(
    model: TinyTransformer,
    task: Task,
    steps: int,
    lengths: tuple[int, int],
    batch_size: int,
    k: int,
    generator: torch.Generator,
    optimizer: Adam,
    run: ToyRun,
    snapshot: Callable[[int], None],
    on_step: Callable[[int], None] | None,
    stop: tuple[float, int] | None,
    run_to_end: bool = False,
    on_rule_met: Callable[[TinyTransformer], None] | None = None,
) -> None:
    model.train()
    snapshot(0)
    lo, hi = lengths
    params = list(model.parameters())
    for step in range(1, steps + 1):
        length = lo if lo == hi else int(torch.randint(lo, hi + 1, (1,), generator=generator))
        tokens, targets = toy_batch(
            task, batch_size, length, vocab_size=model.vocab_size, k=k, generator=generator
        )  # [b, n] each
        logits = model(tokens)  # [b, n, V]
        loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=IGNORE_INDEX)
        for p in params:
            p.grad = None
        loss.backward()
        optimizer.step()
        run.losses.append(loss.item())
        run.lengths.append(length)
        snapshot(step)
        if on_step is not None:
            on_step(step)
        if (
            stop is not None
            and run.met_rule_at is None
            and step >= stop[1]
            and max(run.losses[-stop[1] :]) < stop[0]
        ):
            run.converged, run.met_rule_at = True, step
            if on_rule_met is not None:
                model.eval()
                on_rule_met(model)
                model.train()
            if not run_to_end:
                break
    model.eval()
