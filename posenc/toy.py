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
  :func:`toy_attention_weights` shows where each layer looks, and
  :func:`toy_rotary_pair_logits` splits a RoPE model's logits into its channel pairs' parts;
* :func:`frequency_guess_accuracy` and :func:`frequency_guess_position_accuracy` give what a
  model without any position information can reach on ``"shift"``;
* :func:`toy_model` builds it with any of the book's encodings (:data:`ENCODINGS`), from
  shared initial weights when seeded, and
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

from ._checks import check_heads, check_int, check_positive_float, check_tensor
from ._threads import torch_threads
from .alibi import ALiBiBias
from .attention import SelfAttention, causal_mask, masked_softmax
from .learned import LearnedPositionalEmbedding
from .rotary import RotaryEmbedding
from .shaw import ShawRelativeMultiheadAttention, shaw_relative_index
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
        self,
        x: Tensor,
        bias: Tensor | None,
        mask: Tensor | None,
        weights: list[Tensor] | None = None,
    ) -> Tensor:
        h = self.norm1(x)  # [b, n, d]
        if weights is not None and isinstance(self.attn, SelfAttention):  # also keep the weights
            y, w = self.attn(
                h, bias=bias, mask=mask, return_weights=True
            )  # [b, n, d], [b, h, n, n]
            weights.append(w)
            x = x + y
        elif weights is not None and isinstance(self.attn, ShawRelativeMultiheadAttention):
            weights.append(_shaw_weights(self.attn, h, mask))  # [b, h, n, n]
            x = x + self.attn(h, mask=mask)  # [b, n, d]
        elif weights is not None:
            raise TypeError(
                f"the attention weights of a custom attention layer ({type(self.attn).__name__}) "
                "are unknown: only SelfAttention and ShawRelativeMultiheadAttention report them"
            )
        elif isinstance(self.attn, SelfAttention):
            x = x + self.attn(h, bias=bias, mask=mask)  # [b, n, d]
        else:
            x = x + self.attn(h, mask=mask)  # [b, n, d]
        return x + self.mlp(self.norm2(x))  # [b, n, d]


def _shaw_weights(attn: ShawRelativeMultiheadAttention, h: Tensor, mask: Tensor | None) -> Tensor:
    """The attention weights of a Shaw layer on ``h`` (``[b, n, d]``): ``[b, h, n, n]``.

    ``softmax_j((q_i · k_j + q_i · a^K_{c(j−i)}) / √(d/h))``, the weights that
    :func:`posenc.shaw.shaw_attention` computes inside and does not return.
    """
    b, n, d = h.shape
    heads = attn.num_heads
    q = attn.q_proj(h).reshape(b, n, heads, d // heads).transpose(1, 2)  # [b, h, n, d/h]
    k = attn.k_proj(h).reshape(b, n, heads, d // heads).transpose(1, 2)  # [b, h, n, d/h]
    index = shaw_relative_index(n, n, attn.max_relative_position).to(h.device)  # [n, n]
    position = (q @ attn.rel_k.T).gather(-1, index.expand(b, heads, n, n))  # [b, h, n, n]: q_i·a^K
    logits = (q @ k.transpose(-1, -2) + position) / math.sqrt(d // heads)  # [b, h, n, n]
    return masked_softmax(logits, mask)  # [b, h, n, n]


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
        ``tokens``: ``[b, n]`` (int64) → logits ``[b, n, V]``; ``n <= max_positions`` when the
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
        for name, module in (
            ("position", position),
            ("attention_bias", attention_bias),
            ("rotary", rotary),
        ):
            if module is not None and not isinstance(module, nn.Module):
                raise TypeError(f"{name} must be an nn.Module or None, got {type(module).__name__}")
        if attention is not None and not callable(attention):
            raise TypeError(
                f"attention must be a factory (dim, num_heads) -> nn.Module, got {type(attention).__name__}"
            )
        if not isinstance(causal, bool):
            raise TypeError(f"causal must be a bool, got {type(causal).__name__}")
        check_heads(dim, num_heads)
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
                raise TypeError(
                    f"attention(dim, num_heads) must return an nn.Module, got {type(layer).__name__}"
                )
            return layer

        self.blocks = nn.ModuleList(
            _Block(dim, mlp_ratio, make_attention) for _ in range(num_layers)
        )
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
    def max_positions(self) -> int | None:
        """The longest sequence the model accepts: the position module's ``max_positions``
        (a learned table has no row beyond it), or ``None`` for no limit."""
        limit = getattr(self.position, "max_positions", None)
        return None if limit is None else int(limit)

    def forward(self, tokens: Tensor) -> Tensor:
        return self._run(tokens, None)

    def _run(
        self, tokens: Tensor, weights: list[Tensor] | None, inputs: list[Tensor] | None = None
    ) -> Tensor:
        """The forward pass; appends each layer's attention weights to ``weights`` and the
        normalised input of each layer's attention (``LN(x)``) to ``inputs`` when given."""
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
            if inputs is not None:
                inputs.append(block.norm1(x))  # [b, n, d]
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
        self.params = [p for p in params if p.requires_grad]
        self.lr = check_positive_float("lr", lr)
        self.betas = betas
        self.eps = eps
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

    For Shaw's layers (:class:`~posenc.shaw.ShawRelativeMultiheadAttention`) the logit is
    Shaw's, ``q_i · (k_j + a^K_{c(j−i)}) / √(d/h)``.

    Args:
        model: a :class:`TinyTransformer` whose layers are the default
            :class:`~posenc.attention.SelfAttention` or Shaw's (not another custom
            ``attention`` factory: its weights are unknown).
        tokens: ``[b, n]`` integer tokens.

    Returns:
        one tensor ``[b, h, n, n]`` per layer, rows summing to 1.

    Shapes:
        ``b``: sequences, ``h``: heads, ``n``: positions.
    """
    if not isinstance(model, TinyTransformer):
        raise TypeError(f"model must be a TinyTransformer, got {type(model).__name__}")
    known = (SelfAttention, ShawRelativeMultiheadAttention)
    if not all(isinstance(block.attn, known) for block in model.blocks):
        raise TypeError(
            "model must use SelfAttention or ShawRelativeMultiheadAttention layers: another "
            "custom attention factory does not report its weights"
        )
    weights: list[Tensor] = []
    model._run(tokens, weights)
    return weights


@torch.no_grad()
def toy_rotary_pair_logits(model: TinyTransformer, tokens: Tensor, *, layer: int = 0) -> Tensor:
    """Split one layer's attention logits of a RoPE model into the parts of its channel pairs.

    .. math::

        \\ell_{hij} = \\sum_{c=0}^{d/2h - 1} \\ell^{(c)}_{hij}, \\qquad
        \\ell^{(c)}_{hij} = \\frac{(R_i q_i)_{c} \\cdot (R_j k_j)_{c}}{\\sqrt{d/h}}
        = \\frac{q_{i,c} \\cdot R_{\\theta_c (j-i)}\\, k_{j,c}}{\\sqrt{d/h}}

    where ``(·)_c`` is the ``c``-th rotated pair of channels of a head (channels ``2c, 2c+1``
    when the pairs are interleaved, ``c`` and ``c + d/2h`` otherwise), turning at
    ``θ_c = base^{−2c/(d/h)}`` radians per position. Each part sees the offset ``j − i``
    only through its own angle ``θ_c (j − i)``, so the parts show which pair pulls a query
    towards which keys. The queries and keys are those of an ordinary forward pass (layer
    ``layer`` sees the output of the layers before it).

    Args:
        model: a :class:`TinyTransformer` with a :class:`posenc.rotary.RotaryEmbedding`
            (``toy_model("rope")``).
        tokens: ``[b, n]`` integer tokens.
        layer: which layer (0 is the first).

    Returns:
        ``[b, h, d/2h, n, n]``: pair ``c``'s part of the logit of query ``i`` and key ``j``,
        before the causal mask (which sets ``j > i`` to ``−∞``); summed over pairs, the
        logits whose masked softmax :func:`toy_attention_weights` returns.

    Shapes:
        ``b``: sequences, ``h``: heads, ``n``: positions, ``d/2h``: pairs per head.
    """
    if not isinstance(model, TinyTransformer):
        raise TypeError(f"model must be a TinyTransformer, got {type(model).__name__}")
    if not isinstance(model.rotary, RotaryEmbedding):
        raise TypeError(
            "model must rotate its queries and keys with a RotaryEmbedding (toy_model('rope'))"
        )
    layer = check_int("layer", layer, minimum=0)
    if layer >= len(model.blocks):
        raise ValueError(
            f"layer must be below the number of layers {len(model.blocks)}, got {layer}"
        )
    inputs: list[Tensor] = []
    model._run(tokens, None, inputs)
    h = inputs[layer]  # [b, n, d]
    b, n, d = h.shape
    heads = model.num_heads
    attn = model.blocks[layer].attn
    qkv = attn.qkv(h).reshape(b, n, 3, heads, d // heads)  # [b, n, 3, h, d/h]
    qkv = qkv.permute(2, 0, 3, 1, 4)  # [3, b, h, n, d/h]
    q, k = model.rotary(qkv[0], qkv[1])  # [b, h, n, d/h] each, rotated
    pairs = d // heads // 2
    if model.rotary.interleaved:  # channels (2c, 2c+1)
        q, k = q.reshape(b, heads, n, pairs, 2), k.reshape(b, heads, n, pairs, 2)  # [b, h, n, P, 2]
    else:  # channels (c, c + P)
        q = q.reshape(b, heads, n, 2, pairs).transpose(-1, -2)  # [b, h, n, P, 2]
        k = k.reshape(b, heads, n, 2, pairs).transpose(-1, -2)  # [b, h, n, P, 2]
    parts = torch.einsum("bhipx,bhjpx->bhpij", q, k)  # [b, h, P, n, n]
    return parts / math.sqrt(d // heads)  # [b, h, P, n, n]


# -- what a model without positions can do -------------------------------------------------------


def _expected_max_counts(max_tokens: int, vocab_size: int) -> Tensor:
    """``E[max_v c_v]`` for ``m = 0..max_tokens`` tokens drawn uniformly from ``V`` values.

    ``c_v`` counts the tokens equal to ``v``. Uses ``E[M] = Σ_{c>=0} P(M > c)`` and, for each
    ``c``, the probability that no value occurs more than ``c`` times, built one value at a
    time: among ``t`` tokens spread over ``s`` values, the first value's count is
    ``Binomial(t, 1/s)`` and the rest spread over ``s − 1`` values. Float64 throughout; all
    terms are probabilities, so nothing cancels. Several ``c`` at once, until ``P(M > c)``
    is negligible for every ``m``.
    """
    t = torch.arange(max_tokens + 1, dtype=torch.float64)  # [T]: numbers of tokens
    expected = torch.zeros(max_tokens + 1, dtype=torch.float64)  # [T]
    chunk = 8  # values of c per pass; most lengths need one or two passes
    for first in range(0, max_tokens + 1, chunk):
        c = torch.arange(first, min(first + chunk, max_tokens + 1))  # [C]
        j = torch.arange(int(c[-1]) + 1, dtype=torch.float64)  # [J]: count of one value
        rest = (t[:, None] - j[None, :]).clamp(min=0)  # [T, J]: tokens left for the others
        allowed = (j[None, :] <= t[:, None]) & (j[None, None, :] <= c[:, None, None])  # [C, T, J]
        log_choose = (
            torch.lgamma(t + 1)[:, None] - torch.lgamma(j + 1)[None, :] - torch.lgamma(rest + 1)
        )  # [T, J]: log C(t, j)
        fits = (t[None, :] <= c[:, None]).double()  # [C, T]: one value, at most c tokens
        index = rest.long().expand(len(c), -1, -1)  # [C, T, J]
        for values in range(2, vocab_size + 1):
            q = 1.0 / values
            pmf = torch.exp(log_choose + j * math.log(q) + rest * math.log1p(-q))  # [T, J]
            others = fits.gather(1, index.flatten(1)).view_as(index)  # [C, T, J]: the rest fit
            fits = (pmf * others * allowed).sum(-1)  # [C, T]
        exceed = (1.0 - fits).clamp(min=0.0)  # [C, T]: P(M > c)
        expected += exceed.sum(0)
        if float(exceed[-1].max()) < 1e-11:  # later terms are smaller still (rounding: ~1e-13)
            break
    return expected  # [T]


def frequency_guess_position_accuracy(
    length: int, *, vocab_size: int = 16, k: int = 2, causal: bool = True
) -> Tensor:
    """Expected accuracy on ``"shift"``, position by position, of a guess that ignores order.

    The guess at position ``p`` is the most frequent token among those the query may attend
    to, other than its own: ``x_0 … x_{p−1}`` for a decoder (causal), all tokens but ``x_p``
    for an encoder. The tokens are independent and uniform, so given that bag of ``m``
    tokens the answer ``x_{p−k}`` is any one of them with equal probability, and

    .. math::

        a_p = \\frac{\\mathbb{E}\\big[\\max_v c_v\\big]}{m}, \\qquad
        m = \\begin{cases} p & \\text{causal} \\\\ n - 1 & \\text{otherwise} \\end{cases}

    where ``c_v`` counts the tokens equal to ``v`` among the ``m`` (computed exactly, not
    sampled). No function of the query's own token and of the bag of tokens it can attend
    to, without their order, does better on average: this is the ceiling of a model that
    has no position information at all, e.g. a one-layer decoder without encoding. A model
    above it must be getting order from somewhere (a deeper decoder can get some from the
    causal mask).

    Args:
        length: ``n``, the sequence length.
        vocab_size: ``V``.
        k: the shift (``1 <= k < n``).
        causal: ``True`` for a decoder, ``False`` for an encoder.

    Returns:
        ``[n]`` float64 expected accuracies; ``nan`` at the first ``k`` positions (no answer),
        as in :func:`toy_position_accuracy`.

    Shapes:
        ``n``: positions.
    """
    length = check_int("length", length)
    vocab_size = check_int("vocab_size", vocab_size, minimum=2)
    k = check_int("k", k)
    if k >= length:
        raise ValueError(f"k must be smaller than length, got k={k}, length={length}")
    if not isinstance(causal, bool):
        raise TypeError(f"causal must be a bool, got {type(causal).__name__}")
    expected = _expected_max_counts(length - 1, vocab_size)  # [n]: E[max count] of m = 0..n−1
    p = torch.arange(length)  # [n]
    tokens = p if causal else torch.full_like(p, length - 1)  # [n]: m, the size of the bag
    accuracy = expected[tokens] / tokens.clamp(min=1)  # [n]
    accuracy[:k] = math.nan
    return accuracy  # [n]


def frequency_guess_accuracy(
    length: int, *, vocab_size: int = 16, k: int = 2, causal: bool = True
) -> float:
    """Expected accuracy on ``"shift"`` of the order-blind guess, over all answered positions.

    .. math::

        \\bar a = \\frac{1}{n - k} \\sum_{p=k}^{n-1} a_p

    with ``a_p`` from :func:`frequency_guess_position_accuracy` (the same average as
    :func:`toy_accuracy`'s, whose answered positions all have the same number of answers).

    Args:
        length, vocab_size, k, causal: as in :func:`frequency_guess_position_accuracy`.

    Returns:
        the expected accuracy, in ``[1/V, 1]``.
    """
    per_position = frequency_guess_position_accuracy(
        length, vocab_size=vocab_size, k=k, causal=causal
    )  # [n]
    return float(per_position[k:].mean())


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
    max_positions: int = 16,
    shaw_max_relative_position: int = 8,
    t5_num_buckets: int | None = None,
    t5_max_distance: int = 16,
    rope_base: float = 10000.0,
    seed: int | None = None,
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
    ``"learned"``     ``position=LearnedPositionalEmbedding(max_positions, dim)``
    ``"shaw"``        ``attention=``: a ``ShawRelativeMultiheadAttention(dim, num_heads,
                      shaw_max_relative_position)`` in every layer (own ``a^K``, ``a^V`` per layer)
    ``"t5"``          ``attention_bias=T5RelativePositionBias(num_heads, ...)``, one table
                      shared by every layer (as in T5)
    ``"alibi"``       ``attention_bias=ALiBiBias(num_heads, causal=causal)`` (fixed slopes)
    ``"rope"``        ``rotary=RotaryEmbedding(dim // num_heads, base=rope_base)``
    ================  ===================================================================

    With ``seed``, models with different encodings start from the *same* shared weights: the
    token embedding, every attention projection, MLP and LayerNorm, and the output layer
    are drawn from ``seed`` in a fixed order that does not depend on the encoding (Shaw's
    separate ``q``, ``k``, ``v`` projections get the rows of the packed ``qkv`` matrix of the
    other models). At initialisation the models then differ by their position encoding
    only: with its tables set to zero, a Shaw, T5 or learned model computes exactly what the
    ``"none"`` model computes. The encoding's own parameters (learned table, Shaw's tables,
    T5's table) are drawn from a second stream derived from ``seed``; torch's global
    generator is left untouched. Without ``seed``, every weight comes from torch's global
    generator, as for any ``nn.Module`` (seed it yourself with ``torch.manual_seed``).

    Args:
        encoding: one of :data:`ENCODINGS`.
        vocab_size, dim, num_heads, num_layers, causal: as in :class:`TinyTransformer`.
        max_positions: the rows of the learned table (``"learned"`` only): the longest sequence
            that model can run.
        shaw_max_relative_position: Shaw's clipping distance ``k``.
        t5_num_buckets: T5's ``num_buckets``; default 8 per direction (8 when causal, 16
            otherwise).
        t5_max_distance: T5's ``max_distance``, the end of the logarithmic scale of its
            buckets: offsets from it on (and, with few buckets, some below it) share the
            last bucket.
        rope_base: RoPE's base (``θ_i = base^{-2i/(d/h)}``).
        seed: ``None``, or the seed of a reproducible initialisation shared across encodings.

    Returns:
        a new :class:`TinyTransformer`.

    Shapes:
        ``tokens``: ``[b, n]`` → logits ``[b, n, V]``.
    """
    if encoding not in ENCODINGS:
        raise ValueError(f"encoding must be one of {ENCODINGS}, got {encoding!r}")
    dim = check_int("dim", dim)
    num_heads = check_int("num_heads", num_heads)
    check_heads(dim, num_heads)
    if not isinstance(causal, bool):
        raise TypeError(f"causal must be a bool, got {type(causal).__name__}")
    if encoding == "rope" and (dim // num_heads) % 2:
        raise ValueError(
            f"rope needs an even number of channels per head (they are rotated in pairs), "
            f"got dim / num_heads = {dim} / {num_heads} = {dim // num_heads}"
        )
    if encoding == "shaw":
        clip = check_int("shaw_max_relative_position", shaw_max_relative_position, minimum=0)
    if seed is not None:
        seed = check_int("seed", seed, minimum=0)

    def build() -> TinyTransformer:
        options: dict[str, object] = {"causal": causal}
        if encoding == "sinusoidal":
            options["position"] = SinusoidalPositionalEncoding(dim)
        elif encoding == "learned":
            options["position"] = LearnedPositionalEmbedding(max_positions, dim)
        elif encoding == "shaw":
            options["attention"] = lambda d, h: ShawRelativeMultiheadAttention(d, h, clip)
        elif encoding == "t5":
            buckets = (8 if causal else 16) if t5_num_buckets is None else t5_num_buckets
            options["attention_bias"] = T5RelativePositionBias(
                num_heads,
                bidirectional=not causal,
                num_buckets=buckets,
                max_distance=t5_max_distance,
            )
        elif encoding == "alibi":
            options["attention_bias"] = ALiBiBias(num_heads, causal=causal)
        elif encoding == "rope":
            options["rotary"] = RotaryEmbedding(dim // num_heads, base=rope_base)
        return TinyTransformer(
            vocab_size,
            dim,
            num_heads,
            num_layers,
            **options,  # type: ignore[arg-type]
        )

    if seed is None:
        return build()
    with torch.random.fork_rng(devices=[]):  # the global generator is restored afterwards
        torch.manual_seed(seed + _OWN_STREAM)  # the encoding's own parameters
        model = build()
    _initialise_shared(model, torch.Generator().manual_seed(seed))
    return model


_OWN_STREAM = 2**32
"""Offset of the seed of an encoding's own parameters from that of the shared weights, so that
the two streams of random numbers differ (a learned table must not repeat the embedding)."""


@torch.no_grad()
def _initialise_shared(model: TinyTransformer, generator: torch.Generator) -> None:
    """Draw the weights that every encoding shares from ``generator``, in a fixed order.

    The same distributions as PyTorch's defaults (``nn.Linear``: weight and bias uniform in
    ``±1/√fan_in``; the token embedding ``N(0, 0.02²)`` as in :class:`TinyTransformer`;
    LayerNorms ones and zeros). A Shaw layer gets the rows of the packed ``[3d, d]`` matrix
    that a :class:`~posenc.attention.SelfAttention` would get: ``q``, then ``k``, then ``v``.
    """

    def linear(out_features: int, in_features: int) -> tuple[Tensor, Tensor]:
        bound = 1.0 / math.sqrt(in_features)
        weight = torch.empty(out_features, in_features).uniform_(-bound, bound, generator=generator)
        bias = torch.empty(out_features).uniform_(-bound, bound, generator=generator)
        return weight, bias  # [out, in], [out]

    def fill(layer: nn.Linear, weight: Tensor, bias: Tensor) -> None:
        layer.weight.copy_(weight)
        if layer.bias is None:
            raise ValueError("toy_model's shared initialisation needs linear layers with a bias")
        layer.bias.copy_(bias)

    d = model.dim
    embedding = torch.empty_like(model.embed.weight).normal_(0.0, 0.02, generator=generator)
    model.embed.weight.copy_(embedding)  # [V, d]
    norms = [model.norm]
    for block in model.blocks:
        norms += [block.norm1, block.norm2]
        qkv_weight, qkv_bias = linear(3 * d, d)  # [3d, d], [3d]
        out_weight, out_bias = linear(d, d)  # [d, d], [d]
        attn = block.attn
        if isinstance(attn, SelfAttention):
            fill(attn.qkv, qkv_weight, qkv_bias)
            fill(attn.out, out_weight, out_bias)
        elif isinstance(attn, ShawRelativeMultiheadAttention):
            for i, layer in enumerate((attn.q_proj, attn.k_proj, attn.v_proj)):
                fill(layer, qkv_weight[i * d : (i + 1) * d], qkv_bias[i * d : (i + 1) * d])
            fill(attn.out_proj, out_weight, out_bias)
        else:  # pragma: no cover - toy_model builds only these two
            raise TypeError(f"cannot initialise an attention layer of type {type(attn).__name__}")
        for layer in (block.mlp[0], block.mlp[2]):
            fill(layer, *linear(layer.out_features, layer.in_features))
    fill(model.head, *linear(model.head.out_features, model.head.in_features))
    for norm in norms:
        norm.reset_parameters()  # ones and zeros: the same for every model


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
        if encoding not in self.position_accuracy:
            raise ValueError(f"encoding must be one of {self.encodings}, got {encoding!r}")
        if length not in self.eval_lengths:
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

    def table(self, digits: int = 2) -> str:
        """The accuracies as a plain-text table; ``—`` marks a length the model cannot run."""
        digits = check_int("digits", digits, minimum=0)
        header = self._header()
        width = max(len(name) for name in (*self.encodings, "(guess)"))
        cols = [max(len(h), digits + 2) for h in header]
        lines = [" " * width + "  " + "  ".join(h.rjust(c) for h, c in zip(header, cols))]
        for name, accs in self.rows():
            cells = ["—" if math.isnan(a) else f"{a:.{digits}f}" for a in accs]
            lines.append(
                name.ljust(width) + "  " + "  ".join(v.rjust(c) for v, c in zip(cells, cols))
            )
        guess = self.guess_accuracy()
        if guess:
            cells = [f"{guess[n]:.{digits}f}" if n in guess else "" for n in self.eval_lengths]
            row = "  ".join(v.rjust(c) for v, c in zip(cells, cols))
            lines.append("(guess)".ljust(width) + "  " + row)
        lo, hi = self.train_lengths
        note = f"task {self.task!r}, trained on lengths {lo}..{hi} (L = {hi}); chance {self.chance:.{digits}f}"
        if self.cannot_run():
            note += "; — = cannot run (the learned table has no row for it)"
        if guess:
            note += "; (guess) = the most frequent earlier token, no positions"
        return "\n".join([*lines, note])

    def __repr__(self) -> str:
        return self.table()

    def _repr_html_(self) -> str:
        header = "".join(f"<th>{h}</th>" for h in self._header())
        body = []
        for name, accs in self.rows():
            cells = "".join(
                '<td title="cannot run">—</td>' if math.isnan(a) else f"<td>{a:.2f}</td>"
                for a in accs
            )
            body.append(f"<tr><th>{name}</th>{cells}</tr>")
        guess = self.guess_accuracy()
        if guess:
            cells = "".join(
                f"<td>{guess[n]:.2f}</td>" if n in guess else "<td></td>" for n in self.eval_lengths
            )
            body.append(f'<tr class="posenc-guess"><th><i>guess without order</i></th>{cells}</tr>')
        lo, hi = self.train_lengths
        caption = (
            f"Accuracy on task '{self.task}' (trained on lengths {lo}–{hi}; chance {self.chance:.2f}; "
            "— = cannot run"
            + ("; guess without order: the most frequent earlier token" if guess else "")
            + ")"
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
    lengths drawn uniformly from ``train_lengths``. Named encodings are built by
    :func:`toy_model` with ``seed=seed``, so they start from identical shared weights (token
    embedding, attention projections, MLPs, output layer) and differ only by the encoding;
    a factory is called just after ``torch.manual_seed(seed)``. Every model sees the same
    training batches and the same test sequences, so the run is reproducible and the
    comparison fair.
    A model that cannot run at a length (a learned table with fewer rows) gets ``nan`` there,
    not an error.

    Args:
        encodings: names from :data:`ENCODINGS` (built by :func:`toy_model` with
            ``max_positions = train_lengths[1]`` and ``**model_options``), or a mapping
            ``label -> factory`` of functions that build a :class:`TinyTransformer`.
        task, k: the task, as in :func:`toy_batch`.
        train_lengths: ``(n_min, n_max)``: each training batch has a length drawn from
            ``n_min..n_max``. ``L = n_max``.
        eval_lengths: the test lengths.
        steps, batch_size, lr: as in :func:`train_toy`.
        seed: seeds every model's initialisation (shared weights identical across named
            encodings) and the training batches.
        num_sequences, test_seed: the test sequences (as in :func:`toy_accuracy`).
        progress: show a progress bar (a line updated in place in a notebook).
        model_options: keyword arguments of :func:`toy_model` (e.g. ``dim=24``), for named
            encodings only.

    Returns:
        a :class:`LengthResults`.
    """
    if isinstance(encodings, Mapping):
        if model_options:
            raise ValueError(
                "model_options apply to named encodings only, not to a mapping of factories"
            )
        factories = dict(encodings)
        for label, factory in factories.items():
            if not callable(factory):
                raise TypeError(f"encodings[{label!r}] must be a factory () -> TinyTransformer")
    else:
        if isinstance(encodings, str):
            raise TypeError(
                f"encodings must be a sequence of names, e.g. [{encodings!r}], not one str"
            )
        names = list(encodings)
        unknown = [e for e in names if e not in ENCODINGS]
        if unknown:
            raise ValueError(f"encodings must be names from {ENCODINGS}, got {unknown}")
        options = {"max_positions": _length_range(train_lengths)[1], "seed": seed, **model_options}
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
        task=task,
        k=k,
        train_lengths=(lo, hi),
        eval_lengths=lengths,
        accuracy={},
        position_accuracy={},
        losses={},
        models={},
        chance=math.nan,
        seed=seed,
        steps=steps,
    )
    bar = _Progress(len(factories) * steps, "training", progress)
    try:
        for index, (label, factory) in enumerate(factories.items()):
            torch.manual_seed(seed)
            model = factory()
            if not isinstance(model, TinyTransformer):
                raise TypeError(
                    f"the factory of {label!r} must return a TinyTransformer, got {type(model).__name__}"
                )
            done = index * steps

            def tick(step: int, label: str = label, done: int = done) -> None:
                bar.update(done + step, label, force=step == steps)

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
                on_step=tick,
            )
            results.seconds[label] = time.perf_counter() - start
            results.models[label] = model
            results.losses[label] = run.losses
            results.accuracy[label], results.position_accuracy[label] = {}, {}
            for n in lengths:
                if model.max_positions is not None and n > model.max_positions:
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
    # the order-blind guess, when every model answers the same question (decoder or encoder)
    settings = {(model.causal, model.vocab_size) for model in results.models.values()}
    if task == "shift" and len(settings) == 1:
        ((causal, vocab_size),) = settings
        for n in lengths:
            if k < n:
                results.guess[n] = frequency_guess_position_accuracy(
                    n, vocab_size=vocab_size, k=k, causal=causal
                )  # [n]
    return results
