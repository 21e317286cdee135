"""A tiny synthetic task and a tiny Transformer, for training position encodings in seconds.

The book trains real position tables on a CPU while a chapter executes. Everything here is
small on purpose: a vocabulary of a few tokens, sequences of a few dozen, one or two layers of
width 32. The tasks are chosen so that the answer at position ``p`` depends on *where* other
tokens are, so a model without position information cannot solve them.

* :func:`toy_batch` makes a batch of one of the tasks;
* :class:`TinyTransformer` is a pre-LayerNorm encoder that takes any additive position module
  (``x -> x + P``) and, optionally, any attention-bias module (``n -> [h, n, n]``);
* :func:`train_toy` trains it with Adam and records snapshots (e.g. of a position table);
* :func:`toy_accuracy` measures it on fresh sequences, of any length, and
  :func:`toy_position_accuracy` does so position by position.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from ._checks import check_int, check_positive_float, check_tensor
from ._threads import torch_threads
from .attention import SelfAttention

Task = Literal["shift", "reverse", "local_max"]
TASKS: tuple[str, ...] = ("shift", "reverse", "local_max")
IGNORE_INDEX = -100
"""Target value at positions that have no answer (``F.cross_entropy``'s ``ignore_index``)."""


def toy_batch(
    task: Task,
    batch_size: int,
    length: int,
    *,
    vocab_size: int = 16,
    k: int = 2,
    generator: torch.Generator | None = None,
) -> tuple[Tensor, Tensor]:
    """Return ``(tokens, targets)`` for a synthetic task in which position matters.

    Tokens are drawn uniformly from ``0..V-1``. The target at position ``p`` is

    .. math::

        \\text{shift:}\\; y_p = x_{p-k}\\ (p \\ge k), \\qquad
        \\text{reverse:}\\; y_p = x_{n-1-p}, \\qquad
        \\text{local\\_max:}\\; y_p = \\max_{|q-p| \\le k} x_q

    ``shift`` copies the token ``k`` places back (positions ``p < k`` have no answer and get
    :data:`IGNORE_INDEX`); ``reverse`` mirrors the sequence; ``local_max`` takes the largest
    token in the window of half-width ``k`` around ``p`` (clipped at the ends). All three
    are unsolvable from the bag of tokens alone: the answer depends on where tokens are.

    Args:
        task: ``"shift"``, ``"reverse"`` or ``"local_max"``.
        batch_size: ``b``, the number of sequences.
        length: ``n``, the sequence length.
        vocab_size: ``V``, the number of distinct tokens (at least 2).
        k: the shift of ``"shift"`` (``1 <= k < n``) or the half-width of ``"local_max"``.
        generator: a seeded ``torch.Generator`` for reproducible batches.

    Returns:
        ``tokens`` and ``targets``, both ``int64`` of shape ``[b, n]``.

    Shapes:
        ``b``: sequences, ``n``: positions.
    """
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}, got {task!r}")
    batch_size = check_int("batch_size", batch_size)
    length = check_int("length", length)
    vocab_size = check_int("vocab_size", vocab_size, minimum=2)
    k = check_int("k", k, minimum=0 if task == "local_max" else 1)
    if task == "shift" and k >= length:
        raise ValueError(f"k must be smaller than length for 'shift', got k={k}, length={length}")
    tokens = torch.randint(0, vocab_size, (batch_size, length), generator=generator)  # [b, n]
    if task == "shift":
        targets = torch.full_like(tokens, IGNORE_INDEX)  # [b, n]
        targets[:, k:] = tokens[:, :-k]
    elif task == "reverse":
        targets = tokens.flip(1)  # [b, n]
    else:
        padded = F.pad(tokens, (k, k), value=-1)  # [b, n + 2k], -1 never wins the max
        targets = padded.unfold(1, 2 * k + 1, 1).amax(dim=-1)  # [b, n]
    return tokens, targets


class _Block(nn.Module):
    """Pre-LayerNorm encoder block: ``x + attn(LN(x))``, then ``x + MLP(LN(x))``."""

    def __init__(self, dim: int, num_heads: int, mlp_ratio: int) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = SelfAttention(dim, num_heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(
            nn.Linear(dim, mlp_ratio * dim), nn.GELU(), nn.Linear(mlp_ratio * dim, dim)
        )

    def forward(self, x: Tensor, bias: Tensor | None) -> Tensor:
        x = x + self.attn(self.norm1(x), bias=bias)  # [b, n, d]
        return x + self.mlp(self.norm2(x))  # [b, n, d]


class TinyTransformer(nn.Module):
    """A small pre-LayerNorm Transformer encoder that predicts one token per position.

    .. math::

        h^{(0)} = E[x] \\;\\to\\; \\text{position}(h^{(0)}) \\;\\to\\;
        L \\times \\text{block} \\;\\to\\; \\text{LN} \\;\\to\\; \\text{logits}

    The model itself knows nothing about order: its attention
    (:class:`posenc.attention.SelfAttention`) is permutation-equivariant. All position
    information comes from the two plug-in points:

    * ``position``: a module applied to the token embeddings ``[b, n, d] -> [b, n, d]``
      (e.g. :class:`posenc.learned.LearnedPositionalEmbedding` or
      :class:`posenc.sinusoidal.SinusoidalPositionalEncoding`);
    * ``attention_bias``: a module called as ``attention_bias(n)`` that returns an additive
      logit bias broadcastable to ``[h, n, n]`` (relative position biases), added in every
      layer.

    With both ``None`` the model sees a bag of tokens.

    Token embeddings are initialised ``N(0, 0.02²)``, on the same scale as BERT's tables.

    Args:
        vocab_size: ``V``, the number of input and output tokens.
        dim: ``d``, the model width.
        num_heads: ``h`` (must divide ``dim``).
        num_layers: the number of blocks.
        position: the additive position module, or ``None``.
        mlp_ratio: hidden width of the MLP as a multiple of ``d``.
        attention_bias: the attention-bias module, or ``None``.

    Shapes:
        ``tokens``: ``[b, n]`` (int64) → logits ``[b, n, V]``.
    """

    def __init__(
        self,
        vocab_size: int,
        dim: int = 32,
        num_heads: int = 2,
        num_layers: int = 1,
        position: nn.Module | None = None,
        *,
        mlp_ratio: int = 2,
        attention_bias: nn.Module | None = None,
    ) -> None:
        super().__init__()
        self.vocab_size = check_int("vocab_size", vocab_size, minimum=2)
        self.dim = check_int("dim", dim)
        check_int("num_heads", num_heads)
        check_int("num_layers", num_layers)
        check_int("mlp_ratio", mlp_ratio)
        for name, module in (("position", position), ("attention_bias", attention_bias)):
            if module is not None and not isinstance(module, nn.Module):
                raise TypeError(f"{name} must be an nn.Module or None, got {type(module).__name__}")
        self.embed = nn.Embedding(vocab_size, dim)
        nn.init.normal_(self.embed.weight, std=0.02)
        self.position = position
        self.attention_bias = attention_bias
        self.blocks = nn.ModuleList(_Block(dim, num_heads, mlp_ratio) for _ in range(num_layers))
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab_size)

    def forward(self, tokens: Tensor) -> Tensor:
        check_tensor("tokens", tokens, ndim=2)
        if tokens.is_floating_point() or tokens.is_complex():
            raise TypeError(f"tokens must be an integer tensor, got dtype {tokens.dtype}")
        x = self.embed(tokens)  # [b, n, d]
        if self.position is not None:
            x = self.position(x)  # [b, n, d]
        bias = None if self.attention_bias is None else self.attention_bias(tokens.shape[1])
        for block in self.blocks:
            x = block(x, bias)  # [b, n, d]
        return self.head(self.norm(x))  # [b, n, V]


class Adam:
    """Adam (Kingma & Ba, 2015) without weight decay, written out in a few lines.

    .. math::

        m \\leftarrow \\beta_1 m + (1-\\beta_1) g, \\quad
        v \\leftarrow \\beta_2 v + (1-\\beta_2) g^2, \\quad
        \\theta \\leftarrow \\theta - \\eta\\,
        \\frac{m / (1-\\beta_1^t)}{\\sqrt{v / (1-\\beta_2^t)} + \\epsilon}

    Numerically the update of ``torch.optim.Adam`` (the tests compare them). It exists because
    building any ``torch.optim`` optimiser imports ``torch._dynamo``, which costs about 1.5 s
    — more than the whole training run of a chapter. An entry whose gradient has always been
    zero keeps ``m = v = 0`` and so never moves.

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
        self.params = [p for p in params if p.requires_grad]
        self.lr = check_positive_float("lr", lr)
        self.betas = betas
        self.eps = eps
        self.t = 0
        self.m = [torch.zeros_like(p) for p in self.params]
        self.v = [torch.zeros_like(p) for p in self.params]

    @torch.no_grad()
    def step(self) -> None:
        """Apply one update from the current gradients."""
        self.t += 1
        beta1, beta2 = self.betas
        c1, c2 = 1.0 - beta1**self.t, 1.0 - beta2**self.t
        for p, m, v in zip(self.params, self.m, self.v):
            if p.grad is None:
                continue
            m.mul_(beta1).add_(p.grad, alpha=1.0 - beta1)
            v.mul_(beta2).addcmul_(p.grad, p.grad, value=1.0 - beta2)
            p.addcdiv_(m, v.sqrt().div_(math.sqrt(c2)).add_(self.eps), value=-self.lr / c1)


@dataclass
class ToyRun:
    """What :func:`train_toy` returns.

    Attributes:
        losses: the training loss at every step.
        snapshots: ``step -> record(model)`` for each requested step (step 0 is before any
            update, step ``s`` after ``s`` updates).
    """

    losses: list[float] = field(default_factory=list)
    snapshots: dict[int, Tensor] = field(default_factory=dict)


def train_toy(
    model: TinyTransformer,
    task: Task,
    *,
    steps: int = 200,
    length: int = 32,
    batch_size: int = 32,
    k: int = 2,
    lr: float = 1e-2,
    seed: int = 0,
    record: Callable[[nn.Module], Tensor] | None = None,
    record_steps: Iterable[int] = (),
    num_threads: int | None = 1,
) -> ToyRun:
    """Train ``model`` in place on :func:`toy_batch` with Adam; return losses and snapshots.

    .. math::

        \\mathcal{L} = \\frac{1}{|\\{(b,p): y_{b,p} \\ne \\text{ignore}\\}|}
        \\sum_{b,p} -\\log \\operatorname{softmax}(f(x_b)_p)_{y_{b,p}}

    Plain Adam (:class:`Adam`) without weight decay: a row of a position table that no batch
    ever reaches gets a zero gradient, Adam's moments stay zero, and the row keeps its initial
    value exactly (weight decay would shrink it instead).

    Args:
        model: the model to train (changed in place).
        task, k: passed to :func:`toy_batch`; the vocabulary is ``model.vocab_size``.
        steps: the number of updates.
        length: ``n`` of every training sequence.
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
    toy_batch(task, batch_size, length, vocab_size=model.vocab_size, k=k)  # check arguments now
    generator = torch.Generator().manual_seed(seed)
    optimizer = Adam(model.parameters(), lr=lr)
    run = ToyRun()

    def snapshot(step: int) -> None:
        if record is not None and step in wanted:
            with torch.no_grad():
                run.snapshots[step] = record(model).detach().clone()

    if num_threads is not None:
        check_int("num_threads", num_threads)
    with torch_threads(num_threads):
        _train_loop(model, task, steps, length, batch_size, k, generator, optimizer, run, snapshot)
    return run


def _train_loop(
    model: TinyTransformer,
    task: Task,
    steps: int,
    length: int,
    batch_size: int,
    k: int,
    generator: torch.Generator,
    optimizer: Adam,
    run: ToyRun,
    snapshot: Callable[[int], None],
) -> None:
    model.train()
    snapshot(0)
    for step in range(1, steps + 1):
        tokens, targets = toy_batch(
            task, batch_size, length, vocab_size=model.vocab_size, k=k, generator=generator
        )  # [b, n] each
        logits = model(tokens)  # [b, n, V]
        loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=IGNORE_INDEX)
        model.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        run.losses.append(loss.item())
        snapshot(step)
    model.eval()


def _test_predictions(
    model: TinyTransformer, task: Task, length: int, k: int, num_sequences: int, seed: int
) -> tuple[Tensor, Tensor]:
    """Predictions and targets of ``model`` on fresh seeded test sequences, ``[b, n]`` each."""
    generator = torch.Generator().manual_seed(int(seed))
    tokens, targets = toy_batch(
        task, num_sequences, length, vocab_size=model.vocab_size, k=k, generator=generator
    )  # [b, n] each
    return model(tokens).argmax(dim=-1), targets


@torch.no_grad()
def toy_accuracy(
    model: TinyTransformer,
    task: Task,
    *,
    length: int = 32,
    k: int = 2,
    num_sequences: int = 256,
    seed: int = 1234,
) -> float:
    """Return the fraction of answered positions that ``model`` predicts correctly.

    Args:
        model: a :class:`TinyTransformer`.
        task, k: as in :func:`toy_batch`.
        length: ``n`` of the test sequences (may differ from the training length; a learned
            table then raises its ``ValueError``).
        num_sequences: how many fresh sequences to test on.
        seed: seeds the test sequences (different from training's by default).

    Returns:
        accuracy in ``[0, 1]`` over positions whose target is not ignored.
    """
    predictions, targets = _test_predictions(model, task, length, k, num_sequences, seed)
    answered = targets != IGNORE_INDEX  # [b, n]
    return float((predictions[answered] == targets[answered]).double().mean())


@torch.no_grad()
def toy_position_accuracy(
    model: TinyTransformer,
    task: Task,
    *,
    length: int = 32,
    k: int = 2,
    num_sequences: int = 256,
    seed: int = 1234,
) -> Tensor:
    """Return the accuracy of ``model`` at each position separately, on fresh sequences.

    .. math::

        a_p = \\frac{1}{|B_p|} \\sum_{b \\in B_p} [\\arg\\max f(x_b)_p = y_{b,p}], \\qquad
        B_p = \\{b : y_{b,p} \\ne \\text{ignore}\\}

    Where :func:`toy_accuracy` averages over all answered positions, this keeps them apart,
    which shows *where* a model fails (e.g. beyond its training length).

    Args:
        model: a :class:`TinyTransformer`.
        task, k: as in :func:`toy_batch`.
        length: ``n`` of the test sequences.
        num_sequences: how many fresh sequences to test on.
        seed: seeds the test sequences (the same default as :func:`toy_accuracy`).

    Returns:
        ``[n]`` float64 accuracies; ``nan`` at positions that never have an answer (the first
        ``k`` of ``"shift"``).

    Shapes:
        ``n``: positions.
    """
    predictions, targets = _test_predictions(model, task, length, k, num_sequences, seed)
    answered = targets != IGNORE_INDEX  # [b, n]
    correct = (predictions == targets) & answered  # [b, n]
    return correct.double().sum(0) / answered.double().sum(0)  # [n], 0/0 = nan
