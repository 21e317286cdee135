"""A tiny synthetic task and a tiny Transformer, for training position encodings in seconds.

The book trains real position tables on a CPU while a chapter executes. Everything here is
small on purpose: a vocabulary of a few tokens, sequences of a few dozen, one or two layers of
width 32. The tasks are chosen so that the answer at position ``p`` depends on *where* other
tokens are, so a model without position information cannot solve them.

* :func:`toy_batch` makes a batch of one of the tasks;
* :class:`TinyTransformer` is a pre-LayerNorm Transformer (an encoder, or with ``causal=True``
  a decoder) with a plug-in point for every family of encodings: an additive position module
  (``x -> x + P``), an attention-bias module (``n -> [h, n, n]``), a query/key rotation
  (RoPE) and a replacement attention layer (Shaw);
* :func:`train_toy` trains it with Adam and records snapshots (e.g. of a position table);
* :func:`toy_accuracy` measures it on fresh sequences, of any length, and
  :func:`toy_position_accuracy` does so position by position;
  :func:`toy_attention_weights` shows where each layer looks;
* :func:`toy_model` builds it with any of the book's encodings (:data:`ENCODINGS`) and
  :func:`length_generalisation` trains one per encoding on short sequences and tests each on
  longer ones (chapter 10), returning a :class:`LengthResults`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from ._checks import check_int, check_positive_float, check_tensor
from ._threads import torch_threads
from .alibi import ALiBiBias
from .attention import SelfAttention, causal_mask
from .learned import LearnedPositionalEmbedding
from .rotary import RotaryEmbedding
from .shaw import ShawRelativeMultiheadAttention
from .sinusoidal import SinusoidalPositionalEncoding
from .t5 import T5RelativePositionBias

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
    """Pre-LayerNorm block: ``x + attn(LN(x))``, then ``x + MLP(LN(x))``.

    ``attn`` is a :class:`~posenc.attention.SelfAttention` (called with the bias and the mask)
    or a custom attention module (called with the mask only).
    """

    def __init__(self, dim: int, mlp_ratio: int, make_attention: Callable[[], nn.Module]) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = make_attention()
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(
            nn.Linear(dim, mlp_ratio * dim), nn.GELU(), nn.Linear(mlp_ratio * dim, dim)
        )

    def forward(
        self, x: Tensor, bias: Tensor | None, mask: Tensor | None, weights: list[Tensor] | None = None
    ) -> Tensor:
        h = self.norm1(x)  # [b, n, d]
        if weights is not None:  # also keep the attention weights (SelfAttention only)
            y, w = self.attn(h, bias=bias, mask=mask, return_weights=True)  # [b, n, d], [b, h, n, n]
            weights.append(w)
            x = x + y
        elif isinstance(self.attn, SelfAttention):
            x = x + self.attn(h, bias=bias, mask=mask)  # [b, n, d]
        else:
            x = x + self.attn(h, mask=mask)  # [b, n, d]
        return x + self.mlp(self.norm2(x))  # [b, n, d]


class TinyTransformer(nn.Module):
    """A small pre-LayerNorm Transformer that predicts one token per position.

    .. math::

        h^{(0)} = E[x] \\;\\to\\; \\text{position}(h^{(0)}) \\;\\to\\;
        L \\times \\text{block} \\;\\to\\; \\text{LN} \\;\\to\\; \\text{logits}

    The model itself knows nothing about order: its attention
    (:class:`posenc.attention.SelfAttention`) is permutation-equivariant. All position
    information comes from the plug-in points, one per family of encodings in the book:

    * ``position``: a module applied to the token embeddings ``[b, n, d] -> [b, n, d]``
      (absolute encodings: :class:`posenc.learned.LearnedPositionalEmbedding`,
      :class:`posenc.sinusoidal.SinusoidalPositionalEncoding`);
    * ``attention_bias``: a module called as ``attention_bias(n)`` that returns an additive
      logit bias broadcastable to ``[h, n, n]``, added in every layer
      (:class:`posenc.t5.T5RelativePositionBias`, :class:`posenc.alibi.ALiBiBias`);
    * ``rotary``: a module called as ``rotary(q, k) -> (q, k)`` on every layer's queries and
      keys ``[b, h, n, d/h]`` (:class:`posenc.rotary.RotaryEmbedding` for ``d/h`` channels;
      the same module serves every layer);
    * ``attention``: a factory ``attention(dim, num_heads) -> module`` called once per layer,
      replacing the plain attention by a module called as ``module(x, mask=mask)`` (Shaw's
      relative attention: ``lambda d, h: ShawRelativeMultiheadAttention(d, h, 4)``).

    With none of them the model sees a bag of tokens (with ``causal=True`` it also sees which
    tokens come before which, through the mask).

    Token embeddings are initialised ``N(0, 0.02²)``, on the same scale as BERT's tables.

    Args:
        vocab_size: ``V``, the number of input and output tokens.
        dim: ``d``, the model width.
        num_heads: ``h`` (must divide ``dim``).
        num_layers: the number of blocks.
        position: the additive position module, or ``None``.
        mlp_ratio: hidden width of the MLP as a multiple of ``d``.
        attention_bias: the attention-bias module, or ``None``. If it has a ``num_heads``
            attribute, it must equal ``num_heads``. A one-sided bias (``ALiBiBias(causal=True)``,
            ``T5RelativePositionBias(bidirectional=False)``) is a bias, not a mask: pair it
            with ``causal=True``.
        rotary: the query/key hook, or ``None``; needs an even number of channels per head,
            and a ``dim`` attribute, if present, equal to ``dim // num_heads``.
        attention: the attention factory, or ``None`` for
            :class:`~posenc.attention.SelfAttention`; cannot be combined with
            ``attention_bias`` or ``rotary`` (the custom module receives only the mask).
        causal: if ``True``, position ``p`` attends only to positions ``<= p``
            (:func:`posenc.attention.causal_mask`), as in a decoder.

    Shapes:
        ``tokens``: ``[b, n]`` (int64) → logits ``[b, n, V]``; ``n <= max_length`` when the
        position module has a maximum length.
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
        rotary: nn.Module | None = None,
        attention: Callable[[int, int], nn.Module] | None = None,
        causal: bool = False,
    ) -> None:
        super().__init__()
        self.vocab_size = check_int("vocab_size", vocab_size, minimum=2)
        self.dim = check_int("dim", dim)
        self.num_heads = check_int("num_heads", num_heads)
        check_int("num_layers", num_layers)
        check_int("mlp_ratio", mlp_ratio)
        for name, module in (("position", position), ("attention_bias", attention_bias), ("rotary", rotary)):
            if module is not None and not isinstance(module, nn.Module):
                raise TypeError(f"{name} must be an nn.Module or None, got {type(module).__name__}")
        if attention is not None and not callable(attention):
            raise TypeError(f"attention must be a factory (dim, num_heads) -> nn.Module, got {type(attention).__name__}")
        if not isinstance(causal, bool):
            raise TypeError(f"causal must be a bool, got {type(causal).__name__}")
        if dim % num_heads:
            raise ValueError(f"num_heads must divide dim, got dim={dim}, num_heads={num_heads}")
        bias_heads = getattr(attention_bias, "num_heads", num_heads)
        if bias_heads != num_heads:
            raise ValueError(
                f"attention_bias must give one bias per head: it has num_heads={bias_heads}, "
                f"the model num_heads={num_heads}"
            )
        if rotary is not None and (dim // num_heads) % 2:
            raise ValueError(
                f"rotary needs an even number of channels per head (they are rotated in pairs), "
                f"got dim / num_heads = {dim} / {num_heads} = {dim // num_heads}"
            )
        if attention is not None and (attention_bias is not None or rotary is not None):
            raise ValueError(
                "attention (a custom attention factory) cannot be combined with attention_bias "
                "or rotary: those act inside the default SelfAttention"
            )
        self.embed = nn.Embedding(vocab_size, dim)
        nn.init.normal_(self.embed.weight, std=0.02)
        self.position = position
        self.attention_bias = attention_bias
        self.rotary = rotary
        self.causal = causal

        def make_attention() -> nn.Module:
            if attention is None:
                return SelfAttention(dim, num_heads, rotary=rotary)
            layer = attention(dim, num_heads)
            if not isinstance(layer, nn.Module):
                raise TypeError(f"attention(dim, num_heads) must return an nn.Module, got {type(layer).__name__}")
            return layer

        self.blocks = nn.ModuleList(_Block(dim, mlp_ratio, make_attention) for _ in range(num_layers))
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab_size)

    @property
    def plug_ins(self) -> tuple[str, ...]:
        """The plug-in points in use, in the order of the constructor's arguments (``()``:
        no position information beyond, with ``causal=True``, the mask)."""
        used = {
            "position": self.position is not None,
            "attention_bias": self.attention_bias is not None,
            "rotary": self.rotary is not None,
            "attention": not isinstance(self.blocks[0].attn, SelfAttention),
        }
        return tuple(name for name, on in used.items() if on)

    @property
    def max_length(self) -> int | None:
        """The longest sequence the model accepts: the position module's ``num_positions``
        (a learned table has no row beyond it), or ``None`` for no limit."""
        limit = getattr(self.position, "num_positions", None)
        return None if limit is None else int(limit)

    def forward(self, tokens: Tensor) -> Tensor:
        return self._run(tokens, None)

    def _run(self, tokens: Tensor, weights: list[Tensor] | None) -> Tensor:
        check_tensor("tokens", tokens, ndim=2)
        if tokens.is_floating_point() or tokens.is_complex():
            raise TypeError(f"tokens must be an integer tensor, got dtype {tokens.dtype}")
        n = tokens.shape[1]
        x = self.embed(tokens)  # [b, n, d]
        if self.position is not None:
            x = self.position(x)  # [b, n, d]
        bias = None if self.attention_bias is None else self.attention_bias(n)  # [h, n, n]
        mask = causal_mask(n, n).to(tokens.device) if self.causal else None  # [n, n]
        for block in self.blocks:
            x = block(x, bias, mask, weights)  # [b, n, d]
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
        live = [i for i, p in enumerate(self.params) if p.grad is not None]
        if not live:
            return
        params = [self.params[i] for i in live]
        grads = [p.grad for p in params]
        m = [self.m[i] for i in live]
        v = [self.v[i] for i in live]
        # the same element-wise operations as a loop over the parameters, a few calls in all
        torch._foreach_mul_(m, beta1)
        torch._foreach_add_(m, grads, alpha=1.0 - beta1)  # m ← β₁m + (1−β₁)g
        torch._foreach_mul_(v, beta2)
        torch._foreach_addcmul_(v, grads, grads, value=1.0 - beta2)  # v ← β₂v + (1−β₂)g²
        denominator = torch._foreach_sqrt(v)
        torch._foreach_div_(denominator, math.sqrt(c2))
        torch._foreach_add_(denominator, self.eps)  # √(v/(1−β₂ᵗ)) + ε
        torch._foreach_addcdiv_(params, m, denominator, value=-self.lr / c1)


@dataclass
class ToyRun:
    """What :func:`train_toy` returns.

    Attributes:
        losses: the training loss at every step.
        snapshots: ``step -> record(model)`` for each requested step (step 0 is before any
            update, step ``s`` after ``s`` updates).
        lengths: the sequence length of every step's batch.
    """

    losses: list[float] = field(default_factory=list)
    snapshots: dict[int, Tensor] = field(default_factory=dict)
    lengths: list[int] = field(default_factory=list)


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
    lengths = _length_range(length)
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
    with torch_threads(num_threads):
        _train_loop(
            model, task, steps, lengths, batch_size, k, generator, optimizer, run, snapshot, on_step
        )
    return run


def _length_range(length: int | tuple[int, int]) -> tuple[int, int]:
    """``(n, n)`` for an int, ``(n_min, n_max)`` checked for a pair."""
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
    limit = model.max_length
    if limit is not None and length > limit:
        raise ValueError(
            f"{name} must be at most the model's max_length={limit} (its position table has "
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
) -> None:
    model.train()
    snapshot(0)
    lo, hi = lengths
    for step in range(1, steps + 1):
        length = lo if lo == hi else int(torch.randint(lo, hi + 1, (1,), generator=generator))
        tokens, targets = toy_batch(
            task, batch_size, length, vocab_size=model.vocab_size, k=k, generator=generator
        )  # [b, n] each
        logits = model(tokens)  # [b, n, V]
        loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=IGNORE_INDEX)
        model.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        run.losses.append(loss.item())
        run.lengths.append(length)
        snapshot(step)
        if on_step is not None:
            on_step(step)
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


@torch.no_grad()
def toy_attention_weights(model: TinyTransformer, tokens: Tensor) -> list[Tensor]:
    """Return the attention weights of every layer of ``model`` on ``tokens``.

    .. math::

        A^{(l)}_{h,i,j} = \\operatorname{softmax}_j\\big(\\rho(q_i)\\cdot\\rho(k_j)/\\sqrt{d/h}
        + B_{h,i,j}\\big) \\quad \\text{(masked where } j > i \\text{ if causal)}

    computed during one ordinary forward pass, layer ``l`` seeing the output of layer
    ``l − 1``. Use it to see *where* a trained model looks, e.g. which offset a head attends
    to at positions beyond the training length.

    Args:
        model: a :class:`TinyTransformer` whose layers are the default
            :class:`~posenc.attention.SelfAttention` (not a custom ``attention`` factory).
        tokens: ``[b, n]`` integer tokens.

    Returns:
        one tensor ``[b, h, n, n]`` per layer, rows summing to 1.

    Shapes:
        ``b``: sequences, ``h``: heads, ``n``: positions.
    """
    if not isinstance(model, TinyTransformer):
        raise TypeError(f"model must be a TinyTransformer, got {type(model).__name__}")
    if model.plug_ins.count("attention"):
        raise TypeError(
            "model must use the default SelfAttention layers: a custom attention factory "
            "(e.g. Shaw's) does not report its weights"
        )
    weights: list[Tensor] = []
    model._run(tokens, weights)
    return weights


# -- the length-generalisation experiment --------------------------------------------------------

ENCODINGS: tuple[str, ...] = ("none", "sinusoidal", "learned", "shaw", "t5", "alibi", "rope")
"""The encodings of the book, by the names :func:`toy_model` knows."""


def toy_model(
    encoding: str,
    *,
    vocab_size: int = 16,
    dim: int = 32,
    num_heads: int = 4,
    num_layers: int = 2,
    causal: bool = True,
    max_length: int = 16,
    shaw_max_distance: int = 8,
    t5_num_buckets: int | None = None,
    t5_max_distance: int = 16,
    rope_base: float = 10000.0,
) -> TinyTransformer:
    """Return a :class:`TinyTransformer` with one of the book's encodings plugged in.

    .. math::

        \\text{logits} = \\text{TinyTransformer}_{\\text{encoding}}(x), \\qquad
        x \\in \\{0, \\dots, V-1\\}^n

    ================  ===================================================================
    ``encoding``      plug-in point (:class:`TinyTransformer` argument) and module
    ================  ===================================================================
    ``"none"``        nothing: with ``causal=True`` only the mask tells order (NoPE)
    ``"sinusoidal"``  ``position=SinusoidalPositionalEncoding(dim)``
    ``"learned"``     ``position=LearnedPositionalEmbedding(max_length, dim)``
    ``"shaw"``        ``attention=``: a ``ShawRelativeMultiheadAttention(dim, num_heads,
                      shaw_max_distance)`` in every layer (own ``a^K``, ``a^V`` per layer)
    ``"t5"``          ``attention_bias=T5RelativePositionBias(num_heads, ...)``, one table
                      shared by every layer (as in T5)
    ``"alibi"``       ``attention_bias=ALiBiBias(num_heads, causal=causal)`` (fixed slopes)
    ``"rope"``        ``rotary=RotaryEmbedding(dim // num_heads, base=rope_base)``
    ================  ===================================================================

    Seed the initialisation yourself (``torch.manual_seed``) before calling it.

    Args:
        encoding: one of :data:`ENCODINGS`.
        vocab_size, dim, num_heads, num_layers, causal: as in :class:`TinyTransformer`.
        max_length: the rows of the learned table (``"learned"`` only): the longest sequence
            that model can run.
        shaw_max_distance: Shaw's clipping distance ``k``.
        t5_num_buckets: T5's ``num_buckets``; default 8 per direction (8 when causal, 16
            otherwise).
        t5_max_distance: T5's ``max_distance``, the end of the logarithmic scale of its
            buckets: offsets from it on (and, with few buckets, some below it) share the
            last bucket.
        rope_base: RoPE's base (``θ_i = base^{-2i/(d/h)}``).

    Returns:
        a new :class:`TinyTransformer`.

    Shapes:
        ``tokens``: ``[b, n]`` → logits ``[b, n, V]``.
    """
    if encoding not in ENCODINGS:
        raise ValueError(f"encoding must be one of {ENCODINGS}, got {encoding!r}")
    dim = check_int("dim", dim)
    num_heads = check_int("num_heads", num_heads)
    if dim % num_heads:
        raise ValueError(f"num_heads must divide dim, got dim={dim}, num_heads={num_heads}")
    if not isinstance(causal, bool):
        raise TypeError(f"causal must be a bool, got {type(causal).__name__}")
    options: dict[str, object] = {"causal": causal}
    if encoding == "sinusoidal":
        options["position"] = SinusoidalPositionalEncoding(dim)
    elif encoding == "learned":
        options["position"] = LearnedPositionalEmbedding(max_length, dim)
    elif encoding == "shaw":
        clip = check_int("shaw_max_distance", shaw_max_distance, minimum=0)
        options["attention"] = lambda d, h: ShawRelativeMultiheadAttention(d, h, clip)
    elif encoding == "t5":
        buckets = (8 if causal else 16) if t5_num_buckets is None else t5_num_buckets
        options["attention_bias"] = T5RelativePositionBias(
            num_heads, bidirectional=not causal, num_buckets=buckets, max_distance=t5_max_distance
        )
    elif encoding == "alibi":
        options["attention_bias"] = ALiBiBias(num_heads, causal=causal)
    elif encoding == "rope":
        if (dim // num_heads) % 2:
            raise ValueError(
                f"rope needs an even number of channels per head (they are rotated in pairs), "
                f"got dim / num_heads = {dim} / {num_heads} = {dim // num_heads}"
            )
        options["rotary"] = RotaryEmbedding(dim // num_heads, base=rope_base)
    return TinyTransformer(vocab_size, dim, num_heads, num_layers, **options)  # type: ignore[arg-type]


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
        seed, steps: as passed to :func:`length_generalisation`.
        seconds: ``encoding -> wall-clock seconds`` of its training (varies from run to run,
            unlike everything else here).
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
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def encodings(self) -> tuple[str, ...]:
        """The encodings, in the order they were trained."""
        return tuple(self.accuracy)

    def rows(self) -> list[tuple[str, list[float]]]:
        """``(encoding, [accuracy at each eval length])`` per encoding; ``nan``: cannot run."""
        return [(name, [acc[n] for n in self.eval_lengths]) for name, acc in self.accuracy.items()]

    def first_failure(self, encoding: str, length: int, *, threshold: float = 0.5) -> int | None:
        """The first position at which ``encoding``'s accuracy at ``length`` is below ``threshold``.

        Positions without an answer are skipped. ``None`` if every answered position reaches
        the threshold; ``0`` if the model cannot run at that length.
        """
        if encoding not in self.position_accuracy:
            raise ValueError(f"encoding must be one of {self.encodings}, got {encoding!r}")
        if length not in self.eval_lengths:
            raise ValueError(f"length must be one of the eval_lengths {self.eval_lengths}, got {length}")
        acc = self.position_accuracy[encoding][length]  # [n]
        if bool(acc.isnan().all()):
            return 0
        below = ((acc < threshold) & ~acc.isnan()).nonzero().flatten()  # positions failing
        return int(below[0]) if below.numel() else None

    def cannot_run(self) -> list[tuple[str, int]]:
        """The ``(encoding, length)`` pairs the model could not be run at."""
        return [(name, n) for name, accs in self.rows() for n, a in zip(self.eval_lengths, accs) if math.isnan(a)]

    def _header(self) -> list[str]:
        top = self.train_lengths[1]
        return [f"n={n}" + (f" ({n // top}L)" if n % top == 0 and n != top else " (L)" if n == top else "")
                for n in self.eval_lengths]

    def table(self, digits: int = 2) -> str:
        """The accuracies as a plain-text table; ``—`` marks a length the model cannot run."""
        digits = check_int("digits", digits, minimum=0)
        header = self._header()
        width = max(len(name) for name in self.encodings)
        cols = [max(len(h), digits + 2) for h in header]
        lines = [" " * width + "  " + "  ".join(h.rjust(c) for h, c in zip(header, cols))]
        for name, accs in self.rows():
            cells = ["—" if math.isnan(a) else f"{a:.{digits}f}" for a in accs]
            lines.append(name.ljust(width) + "  " + "  ".join(v.rjust(c) for v, c in zip(cells, cols)))
        lo, hi = self.train_lengths
        note = f"task {self.task!r}, trained on lengths {lo}..{hi} (L = {hi}); chance {self.chance:.{digits}f}"
        if self.cannot_run():
            note += "; — = cannot run (the learned table has no row for it)"
        return "\n".join([*lines, note])

    def __repr__(self) -> str:
        return self.table()

    def _repr_html_(self) -> str:
        header = "".join(f"<th>{h}</th>" for h in self._header())
        body = []
        for name, accs in self.rows():
            cells = "".join(
                '<td title="cannot run">—</td>' if math.isnan(a) else f"<td>{a:.2f}</td>" for a in accs
            )
            body.append(f"<tr><th>{name}</th>{cells}</tr>")
        lo, hi = self.train_lengths
        caption = (
            f"Accuracy on task '{self.task}' (trained on lengths {lo}–{hi}; chance {self.chance:.2f}; "
            "— = cannot run)"
        )
        return (
            f'<table class="posenc-results"><caption>{caption}</caption>'
            f"<thead><tr><th>encoding</th>{header}</tr></thead><tbody>{''.join(body)}</tbody></table>"
        )


class _Progress:
    """A progress bar: a text line updated in place in a notebook, ``tqdm`` elsewhere.

    In a Jupyter kernel the bar is one ``text/plain`` display that is updated with
    ``update_display_data``, so a notebook executed headless (the book build) keeps only the
    final line; tqdm's widget would leave a live widget, and its text bar writes to stderr.
    """

    def __init__(self, total: int, desc: str, enabled: bool) -> None:
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
        return tqdm.format_meter(self.n, self.total, elapsed, ncols=72, prefix=self.desc, unit="step",
                                 postfix=self.postfix or None)

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
        elif self._handle is not None:
            self._handle.update(self._pretty(self._line()))  # type: ignore[attr-defined]


def _in_kernel() -> bool:
    """Whether we run inside a Jupyter kernel (where rich displays are shown)."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython is installed with the book
        return False
    shell = get_ipython()
    return shell is not None and hasattr(shell, "kernel")


def length_generalisation(
    encodings: Sequence[str] | Mapping[str, Callable[[], TinyTransformer]] = ENCODINGS,
    task: Task = "shift",
    train_lengths: tuple[int, int] = (8, 16),
    eval_lengths: Sequence[int] = (16, 32, 64),
    *,
    steps: int = 300,
    seed: int = 0,
    k: int = 2,
    batch_size: int = 32,
    lr: float = 1e-2,
    num_sequences: int = 256,
    test_seed: int = 1234,
    progress: bool = True,
    **model_options: object,
) -> LengthResults:
    """Train one tiny model per encoding on short sequences; test each on longer ones.

    .. math::

        \\operatorname{acc}_e(n) = \\frac{1}{|A_n|}\\sum_{(b,p) \\in A_n}
        \\big[\\arg\\max f_e(x_b)_p = y_{b,p}\\big], \\qquad
        n \\in \\text{eval\\_lengths}

    over the answered positions ``A_n`` of ``num_sequences`` fresh test sequences of length
    ``n``, for the model ``f_e`` with encoding ``e`` trained with :func:`train_toy` on
    lengths drawn uniformly from ``train_lengths``. Every encoding gets the same seed for its
    initialisation (``torch.manual_seed(seed)`` just before it is built), the same training
    batches and the same test sequences, so the run is reproducible and the comparison fair.
    A model that cannot run at a length (a learned table with fewer rows) gets ``nan`` there,
    not an error.

    Args:
        encodings: names from :data:`ENCODINGS` (built by :func:`toy_model` with
            ``max_length = train_lengths[1]`` and ``**model_options``), or a mapping
            ``label -> factory`` of functions that build a :class:`TinyTransformer`.
        task, k: the task, as in :func:`toy_batch`.
        train_lengths: ``(n_min, n_max)``: each training batch has a length drawn from
            ``n_min..n_max``. ``L = n_max``.
        eval_lengths: the test lengths.
        steps, batch_size, lr: as in :func:`train_toy`.
        seed: seeds every model's initialisation and the training batches.
        num_sequences, test_seed: the test sequences (as in :func:`toy_accuracy`).
        progress: show a progress bar (a line updated in place in a notebook).
        model_options: keyword arguments of :func:`toy_model` (e.g. ``dim=24``), for named
            encodings only.

    Returns:
        a :class:`LengthResults`.
    """
    if isinstance(encodings, Mapping):
        if model_options:
            raise ValueError("model_options apply to named encodings only, not to a mapping of factories")
        factories = dict(encodings)
        for label, factory in factories.items():
            if not callable(factory):
                raise TypeError(f"encodings[{label!r}] must be a factory () -> TinyTransformer")
    else:
        if isinstance(encodings, str):
            raise TypeError(f"encodings must be a sequence of names, e.g. [{encodings!r}], not one str")
        names = list(encodings)
        unknown = [e for e in names if e not in ENCODINGS]
        if unknown:
            raise ValueError(f"encodings must be names from {ENCODINGS}, got {unknown}")
        options = {"max_length": _length_range(train_lengths)[1], **model_options}
        factories = {e: (lambda e=e: toy_model(e, **options)) for e in names}  # type: ignore[misc]
    if not factories:
        raise ValueError("encodings must name at least one encoding")
    lo, hi = _length_range(train_lengths)
    lengths = tuple(check_int("eval_lengths", n) for n in eval_lengths)
    if not lengths:
        raise ValueError("eval_lengths must hold at least one length")
    steps = check_int("steps", steps)
    seed = check_int("seed", seed, minimum=0)

    results = LengthResults(
        task=task, k=k, train_lengths=(lo, hi), eval_lengths=lengths, accuracy={},
        position_accuracy={}, losses={}, models={}, chance=math.nan, seed=seed, steps=steps,
    )
    bar = _Progress(len(factories) * steps, "training", progress)
    try:
        for index, (label, factory) in enumerate(factories.items()):
            torch.manual_seed(seed)
            model = factory()
            if not isinstance(model, TinyTransformer):
                raise TypeError(f"the factory of {label!r} must return a TinyTransformer, got {type(model).__name__}")
            done = index * steps

            def tick(step: int, label: str = label, done: int = done) -> None:
                bar.update(done + step, label, force=step == steps)

            start = time.perf_counter()
            run = train_toy(model, task, steps=steps, length=(lo, hi), batch_size=batch_size, k=k,
                            lr=lr, seed=seed, on_step=tick)
            results.seconds[label] = time.perf_counter() - start
            results.models[label] = model
            results.losses[label] = run.losses
            results.accuracy[label], results.position_accuracy[label] = {}, {}
            for n in lengths:
                if model.max_length is not None and n > model.max_length:
                    per_position = torch.full((n,), math.nan, dtype=torch.float64)  # [n]
                else:
                    with torch_threads(1):
                        per_position = toy_position_accuracy(
                            model, task, length=n, k=k, num_sequences=num_sequences, seed=test_seed
                        )  # [n]
                answered = ~per_position.isnan()  # [n]
                # every answered position has num_sequences answers: the mean over positions
                # is the mean over all answers (toy_accuracy)
                value = float(per_position[answered].mean()) if bool(answered.any()) else math.nan
                results.accuracy[label][n] = value
                results.position_accuracy[label][n] = per_position
            results.chance = 1.0 / model.vocab_size
    finally:
        bar.close()
    return results
