"""The passkey experiment of chapter 13: retrieval against perplexity, beyond the trained length.

* :func:`passkey_model` builds the two toy decoders that are trained: plain RoPE in every
  layer, and a hybrid after Llama 4's iRoPE (a local RoPE layer, then a global layer with no
  position encoding);
* :func:`yarn_copy` and :func:`streaming_copy` make, without training, the other two set-ups
  from the RoPE model: its frequencies stretched by YaRN for the test length, and its
  attention cut to a sliding window with attention sinks (StreamingLLM);
* :func:`passkey_scores` tests one model at one length: passkey retrieval, the perplexity of
  the filler, and retrieval by the depth of the key;
* :func:`passkey_retrieval` trains and tests all four over several seeds
  (:class:`PasskeyResults`).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import Tensor

from book.experiments._jobs import check_lengths, check_seeds, run_jobs
from book.experiments.length import _initialise_shared, toy_model
from book.experiments.results import _html_cell, _text_table
from book.experiments.scaling import stretch_toy_rotary
from book.toy.model import TinyTransformer, ToySelfAttention, ToyWindowAttention
from book.toy.tasks import IGNORE_INDEX, passkey_markers, toy_batch
from book.toy.training import length_range, stop_rule, train_toy
from posenc._checks import check_int, check_positive_float
from posenc._threads import torch_threads
from posenc.rotary import RotaryEmbedding, scaled_rotary_frequencies

__all__ = [
    "PASSKEY_SETUPS",
    "PasskeyResults",
    "PasskeyScore",
    "passkey_model",
    "passkey_retrieval",
    "passkey_scores",
    "retrieval_by_depth",
    "streaming_copy",
    "trained_passkey_model",
    "yarn_copy",
]

PASSKEY_SETUPS: tuple[str, ...] = ("rope", "rope + yarn", "window + sinks", "hybrid")
"""The four set-ups: the RoPE model as trained, stretched by YaRN, and cut to a window with
sinks; and the hybrid, trained on its own."""

DEPTH_BINS = 8
"""Retrieval by depth is counted in this many equal bins of the key's relative position."""


def passkey_model(
    kind: str,
    *,
    seed: int,
    vocab_size: int = 16,
    dim: int = 32,
    num_heads: int = 4,
    num_layers: int = 2,
    local_window: int = 8,
) -> TinyTransformer:
    """Return an untrained toy decoder for the passkey task: ``"rope"`` or ``"hybrid"``.

    .. math::

        \\text{rope: } \\rho \\text{ in every layer}, \\qquad
        \\text{hybrid: } \\underbrace{\\rho,\\ |i - j| < w}_{\\text{layers } 1..N-1}
        \\;\\to\\; \\underbrace{\\text{no position, all keys}}_{\\text{layer } N}

    ``"rope"`` is chapter 10's RoPE model (:func:`~book.experiments.toy_model`). ``"hybrid"``
    follows Llama 4's interleaved layers (iRoPE): its RoPE layers attend within a local window
    of ``w`` positions, and its last layer attends to every earlier position with no position
    encoding at all. Llama 4 makes every fourth layer such a global layer; with two layers
    the toy has one of each. Both draw their shared weights from ``seed`` as ``toy_model``
    does, so at a given seed they start from the same projections, MLPs and embeddings.

    Args:
        kind: ``"rope"`` or ``"hybrid"``.
        seed: the seed of the shared initial weights.
        vocab_size, dim, num_heads, num_layers: as in :class:`~book.toy.TinyTransformer`
            (``vocab_size >= 4`` for the passkey task).
        local_window: ``w``, the window of the hybrid's RoPE layers.

    Returns:
        a causal :class:`~book.toy.TinyTransformer`.

    Shapes:
        ``tokens``: ``[b, n]`` → logits ``[b, n, V]``.
    """
    if kind not in ("rope", "hybrid"):
        raise ValueError(f"kind must be 'rope' or 'hybrid', got {kind!r}")
    seed = check_int("seed", seed, minimum=0)
    passkey_markers(vocab_size)  # refuses a vocabulary too small for the markers
    sizes = {"vocab_size": vocab_size, "dim": dim, "num_heads": num_heads}
    if kind == "rope":
        return toy_model("rope", num_layers=num_layers, seed=seed, **sizes)  # type: ignore[arg-type]
    local_window = check_int("local_window", local_window)
    num_layers = check_int("num_layers", num_layers, minimum=2)
    head_dim = dim // num_heads
    layers = iter(range(num_layers))

    def layer(d: int, h: int) -> ToySelfAttention:
        if next(layers) < num_layers - 1:
            return ToyWindowAttention(d, h, rotary=RotaryEmbedding(head_dim), window=local_window)
        return ToySelfAttention(d, h)

    with torch.random.fork_rng(devices=[]):  # the global generator is left as it was
        model = TinyTransformer(
            vocab_size, dim, num_heads, num_layers, attention=layer, causal=True
        )
    _initialise_shared(model, torch.Generator().manual_seed(seed))
    return model


def _check_toy_rope(model: object) -> None:
    """Refuse anything but a toy RoPE model (its ``rotary`` a :class:`RotaryEmbedding`)."""
    if not isinstance(getattr(model, "rotary", None), RotaryEmbedding):
        raise TypeError("model must be a toy RoPE model (its rotary a RotaryEmbedding)")


def yarn_copy(model: TinyTransformer, length: int, trained_length: int) -> TinyTransformer:
    """A copy of a toy RoPE model with YaRN's frequencies and scale for ``length``.

    .. math::

        s = \\max(1, n / L_0), \\qquad (\\theta'_i, a) = \\text{YaRN}(\\theta_i, s, L_0)

    (:func:`posenc.rotary.scaled_rotary_frequencies` with ``"yarn"``; at ``n <= L_0`` the
    plain frequencies). Nothing learned changes; the model itself is left as it was.

    Args:
        model: a toy RoPE model (:func:`passkey_model` ``"rope"``).
        length: ``n``, the length it will be run at.
        trained_length: ``L_0``, the longest training length.

    Returns:
        the stretched copy.

    Shapes:
        as the model's.
    """
    _check_toy_rope(model)
    length = check_int("length", length)
    trained_length = check_int("trained_length", trained_length)
    stretched = copy.deepcopy(model)
    if length > trained_length:
        inv_freq, scale = scaled_rotary_frequencies(
            model.rotary.dim,
            "yarn",
            base=model.rotary.base,
            factor=length / trained_length,
            original_max_positions=trained_length,
        )
        stretch_toy_rotary(stretched, inv_freq, scale)
    return stretched


def streaming_copy(model: TinyTransformer, *, window: int, sinks: int) -> TinyTransformer:
    """A copy of a toy RoPE model whose every layer attends as StreamingLLM does.

    .. math::

        j \\in \\{i - w + 1, \\dots, i\\} \\cup \\{0, \\dots, s - 1\\}

    Each attention layer becomes a :class:`~book.toy.ToyWindowAttention` with the same
    weights: the ``w`` most recent positions and ``s`` sinks, rotated at the positions of
    StreamingLLM's cache. Nothing is trained; StreamingLLM too applies to a trained model.

    Args:
        model: a toy RoPE model.
        window: ``w``.
        sinks: ``s``.

    Returns:
        the windowed copy.

    Shapes:
        as the model's.
    """
    _check_toy_rope(model)
    windowed = copy.deepcopy(model)
    for block in windowed.blocks:
        old = block.attn
        new = ToyWindowAttention(
            old.dim, old.num_heads, rotary=windowed.rotary, window=window, sinks=sinks
        )
        new.load_state_dict(old.state_dict())
        block.attn = new
    return windowed.eval()


def retrieval_by_depth(depth: Tensor, hits: Tensor) -> Tensor:
    """Return the share of passkeys named in each of :data:`DEPTH_BINS` bins of key depth.

    .. math::

        a_m = \\frac{\\sum_b [\\text{bin}(d_b) = m]\\,h_b}{\\sum_b [\\text{bin}(d_b) = m]}, \\qquad
        \\text{bin}(d) = \\min(\\lfloor B d \\rfloor, B - 1)

    Args:
        depth: ``[b]`` relative key positions in ``[0, 1]`` (:attr:`PasskeyScore.depth`).
        hits: ``[b]`` whether each passkey was named.

    Returns:
        float64 ``[B]``; ``nan`` for a bin no sequence falls in.

    Shapes:
        ``b``: sequences, ``B``: :data:`DEPTH_BINS`.
    """
    bins = (depth * DEPTH_BINS).long().clamp(max=DEPTH_BINS - 1)  # [b]
    count = torch.bincount(bins, minlength=DEPTH_BINS).double()  # [B]
    right = torch.bincount(bins, weights=hits.double(), minlength=DEPTH_BINS)  # [B]
    return right / count  # [B]


@dataclass(frozen=True)
class PasskeyScore:
    """One model at one length (:func:`passkey_scores`).

    Attributes:
        retrieval: the share of sequences whose passkey the model names.
        perplexity: ``exp`` of the mean cross-entropy over the filler's answers (``shift``'s
            token two back), the toy's perplexity.
        depth: ``[b]`` the relative position ``s / (n - 3)`` of each sequence's key.
        hits: ``[b]`` whether each sequence's passkey was named.
    """

    retrieval: float
    perplexity: float
    depth: Tensor
    hits: Tensor


@torch.no_grad()
def passkey_scores(
    model: TinyTransformer,
    length: int,
    *,
    k: int = 2,
    num_sequences: int = 256,
    seed: int = 1234,
) -> PasskeyScore:
    """Test ``model`` on fresh passkey sequences of ``length`` tokens.

    .. math::

        \\text{retrieval} = \\frac{1}{b}\\sum_b [\\arg\\max f(x_b)_{n-1} = x_{b, s_b + 1}],
        \\qquad \\text{perplexity} = \\exp\\Big(\\frac{1}{|F|}\\sum_{(b,p) \\in F}
        -\\log \\operatorname{softmax}(f(x_b)_p)_{x_{b,p-k}}\\Big)

    over the filler's answers ``F`` (positions ``k..n-2``). The sequences come from
    :func:`~book.toy.toy_batch` ``"passkey"`` with a generator seeded by ``seed``.

    Args:
        model: a toy decoder with ``vocab_size >= 4``.
        length: ``n`` (at least 4).
        k: the filler's shift.
        num_sequences: ``b``.
        seed: seeds the sequences.

    Returns:
        a :class:`PasskeyScore`.

    Shapes:
        ``depth`` and ``hits``: ``[b]``.
    """
    if not isinstance(model, TinyTransformer):
        raise TypeError(f"model must be a TinyTransformer, got {type(model).__name__}")
    seed = check_int("seed", seed, minimum=0)
    generator = torch.Generator().manual_seed(seed)
    tokens, targets = toy_batch(
        "passkey", num_sequences, length, vocab_size=model.vocab_size, k=k, generator=generator
    )  # [b, n] each
    key, _ = passkey_markers(model.vocab_size)
    was_training = model.training
    model.eval()
    with torch_threads(1):
        logits = model(tokens)  # [b, n, V]
    model.train(was_training)
    hits = logits[:, -1].argmax(-1) == targets[:, -1]  # [b]
    filler = F.cross_entropy(
        logits[:, :-1].flatten(0, 1), targets[:, :-1].flatten(), ignore_index=IGNORE_INDEX
    )
    where = (tokens == key).int().argmax(-1)  # [b]: the key's position
    return PasskeyScore(
        retrieval=float(hits.double().mean()),
        perplexity=math.exp(float(filler)),
        depth=where.double() / (length - 3),  # [b]
        hits=hits,
    )


@dataclass(frozen=True)
class _Job:
    kind: str
    seed: int
    train_lengths: tuple[int, int]
    eval_lengths: tuple[int, ...]
    steps: int
    stop_loss: float
    stop_window: int
    lr: float
    window: int
    sinks: int
    local_window: int
    num_sequences: int
    test_seed: int


def trained_passkey_model(
    kind: str,
    *,
    seed: int,
    train_lengths: tuple[int, int] = (16, 32),
    steps: int = 1000,
    stop_loss: float = 0.01,
    stop_window: int = 20,
    lr: float = 1e-2,
    local_window: int = 8,
) -> tuple[TinyTransformer, int | None]:
    """Build and train one model of :func:`passkey_model` as :func:`passkey_retrieval` does.

    .. math::

        \\theta^\\star = \\text{Adam on } \\mathcal{L}_{\\text{passkey}}, \\text{ until }
        \\max(\\mathcal{L}_{s-w+1..s}) < \\text{stop\\_loss} \\text{ or } s = \\text{steps}

    Args:
        kind: ``"rope"`` or ``"hybrid"``.
        seed: seeds the initial weights and the training batches.
        train_lengths, steps, stop_loss, stop_window, lr: as in :func:`~book.toy.train_toy`.
        local_window: the hybrid's local window.

    Returns:
        ``(model, step)``: the trained model (in eval mode) and the step at which it met the
        stopping rule (``None``: never).

    Shapes:
        ``tokens``: ``[b, n]`` → logits ``[b, n, V]``.
    """
    model = passkey_model(kind, seed=seed, local_window=local_window)
    run = train_toy(
        model,
        "passkey",
        steps=steps,
        length=train_lengths,
        lr=lr,
        seed=seed,
        stop_loss=stop_loss,
        stop_window=stop_window,
    )
    return model, run.met_rule_at


def _run(job: _Job) -> tuple[int | None, dict[str, dict[int, PasskeyScore]]]:
    model, met = trained_passkey_model(
        job.kind,
        seed=job.seed,
        train_lengths=job.train_lengths,
        steps=job.steps,
        stop_loss=job.stop_loss,
        stop_window=job.stop_window,
        lr=job.lr,
        local_window=job.local_window,
    )
    trained = job.train_lengths[1]
    setups = {"hybrid": lambda n: model}
    if job.kind == "rope":
        setups = {
            "rope": lambda n: model,
            "rope + yarn": lambda n: yarn_copy(model, n, trained),
            "window + sinks": lambda n: streaming_copy(model, window=job.window, sinks=job.sinks),
        }
    scores = {
        name: {
            n: passkey_scores(make(n), n, num_sequences=job.num_sequences, seed=job.test_seed)
            for n in job.eval_lengths
        }
        for name, make in setups.items()
    }
    return met, scores


@dataclass(repr=False, eq=False)
class PasskeyResults:
    """What :func:`passkey_retrieval` returns.

    Attributes:
        seeds, train_lengths, eval_lengths, window, sinks, local_window: the settings.
        scores: ``setup -> seed -> length -> PasskeyScore`` for every set-up of
            :data:`PASSKEY_SETUPS`.
        fit_steps: ``"rope"``/``"hybrid"`` ``-> seed ->`` the step at which the model met the
            stopping rule (``None``: never within the cap).
    """

    seeds: tuple[int, ...]
    train_lengths: tuple[int, int]
    eval_lengths: tuple[int, ...]
    window: int
    sinks: int
    local_window: int
    scores: dict[str, dict[int, dict[int, PasskeyScore]]] = field(default_factory=dict)
    fit_steps: dict[str, dict[int, int | None]] = field(default_factory=dict)

    def _values(self, setup: str, length: int, metric: str) -> list[float]:
        if setup not in self.scores:
            raise ValueError(f"setup must be one of {tuple(self.scores)}, got {setup!r}")
        if isinstance(length, bool) or length not in self.eval_lengths:
            raise ValueError(f"length must be one of {self.eval_lengths}, got {length!r}")
        if metric not in ("retrieval", "perplexity"):
            raise ValueError(f"metric must be 'retrieval' or 'perplexity', got {metric!r}")
        return [getattr(self.scores[setup][s][length], metric) for s in self.seeds]

    def mean(self, setup: str, length: int, metric: str = "retrieval") -> float:
        """The mean over the seeds of ``metric`` (``"retrieval"`` or ``"perplexity"``)."""
        values = self._values(setup, length, metric)
        return sum(values) / len(values)

    def range(self, setup: str, length: int, metric: str = "retrieval") -> tuple[float, float]:
        """``(lowest, highest)`` over the seeds."""
        values = self._values(setup, length, metric)
        return min(values), max(values)

    def effective_length(self, setup: str, threshold: float = 0.9) -> int | None:
        """The longest test length up to which the mean retrieval stays at ``threshold`` or
        above at every test length (``None``: not even the first)."""
        best = None
        for n in self.eval_lengths:
            if self.mean(setup, n) < threshold:
                break
            best = n
        return best

    def by_depth(self, setup: str, length: int) -> Tensor:
        """``[DEPTH_BINS]`` retrieval by the depth of the key, over all seeds' sequences
        (bin ``m`` holds depths in ``[m/B, (m+1)/B)``, the last one also depth 1)."""
        self._values(setup, length, "retrieval")
        depth = torch.cat([self.scores[setup][s][length].depth for s in self.seeds])  # [S·b]
        hits = torch.cat([self.scores[setup][s][length].hits for s in self.seeds])  # [S·b]
        return retrieval_by_depth(depth, hits)  # [B]

    def _names(self) -> list[str]:
        top = self.train_lengths[1]
        return [
            "L" if n == top else f"{n // top}L" if n % top == 0 else f"n={n}"
            for n in self.eval_lengths
        ]

    def _cell(self, setup: str, n: int, metric: str) -> str:
        lo, hi = self.range(setup, n, metric)
        short = _fraction if metric == "retrieval" else _perplexity
        return f"{short(self.mean(setup, n, metric))} ({short(lo)}–{short(hi)})"

    def _captions(self) -> dict[str, str]:
        return {
            "retrieval": f"Passkey retrieval: the share of passkeys named (a guess: {1 / 14:.2f})",
            "perplexity": "Filler perplexity (1 is perfect)",
        }

    def _note(self) -> str:
        lo, hi = self.train_lengths
        return (
            f"Passkey task, trained on lengths {lo}..{hi} (L = {hi}), seeds "
            f"{', '.join(map(str, self.seeds))}; mean (lowest–highest) over the seeds. "
            f"Window + sinks: the last {self.window} positions and {self.sinks} sinks; hybrid: "
            f"RoPE within {self.local_window} positions, then a global layer without positions."
        )

    def table(self) -> str:
        """Two tables, retrieval then filler perplexity: mean and range, a row per set-up."""
        blocks = [
            "\n".join(
                [
                    caption,
                    *_text_table(
                        self._names(),
                        [
                            (s, [self._cell(s, n, metric) for n in self.eval_lengths])
                            for s in self.scores
                        ],
                    ),
                ]
            )
            for metric, caption in self._captions().items()
        ]
        return "\n\n".join([*blocks, self._note()])

    def __repr__(self) -> str:
        return self.table()

    def _repr_html_(self) -> str:
        head = (
            "<thead><tr><th>set-up</th>"
            + "".join(f"<th>{n}</th>" for n in self._names())
            + "</tr></thead>"
        )
        tables = [
            f'<table class="posenc-results posenc-spread"><caption>{caption}</caption>{head}<tbody>'
            + "".join(
                f"<tr><th>{s}</th>"
                + "".join(_html_cell(self._cell(s, n, metric)) for n in self.eval_lengths)
                + "</tr>"
                for s in self.scores
            )
            + "</tbody></table>"
            for metric, caption in self._captions().items()
        ]
        return "".join(tables) + f'<p class="posenc-note"><small>{self._note()}</small></p>'


def _fraction(x: float) -> str:
    """A share in ``[0, 1]`` with two decimals."""
    return f"{x:.2f}"


def _perplexity(x: float) -> str:
    """A perplexity short enough for a table column: one decimal below 10, whole numbers
    below 1000, three significant digits above, grouped by narrow no-break spaces
    (``214811.5`` -> ``"215\u202f000"``) so that a cell never wraps inside a number."""
    if x < 10:
        return f"{x:.1f}"
    if x < 1000:
        return f"{x:.0f}"
    return f"{float(f'{x:.3g}'):,.0f}".replace(",", "\u202f")


def passkey_retrieval(
    seeds: Sequence[int] = (0, 1, 2, 3, 4),
    *,
    train_lengths: tuple[int, int] = (16, 32),
    eval_lengths: Sequence[int] = (32, 64, 128, 256),
    steps: int = 1000,
    stop_loss: float = 0.01,
    stop_window: int = 20,
    lr: float = 1e-2,
    window: int = 28,
    sinks: int = 4,
    local_window: int = 8,
    num_sequences: int = 256,
    test_seed: int = 1234,
    workers: int = 2,
    progress: bool = True,
) -> PasskeyResults:
    """Train the RoPE and hybrid toys on the passkey task; test all four set-ups at every length.

    .. math::

        \\text{retrieval}_{e}(n), \\ \\text{perplexity}_{e}(n), \\qquad
        e \\in \\text{PASSKEY\\_SETUPS}, \\ n \\in \\text{eval\\_lengths}

    Per seed, the two models (:func:`passkey_model`) train with :func:`~book.toy.train_toy`
    on ``"passkey"`` sequences of lengths drawn from ``train_lengths``, each until its last
    ``stop_window`` losses lie below ``stop_loss`` (at most ``steps``). The RoPE model is then
    tested as trained, with YaRN for each test length (:func:`yarn_copy`) and under a
    window of ``window`` positions plus ``sinks`` sinks (:func:`streaming_copy`; with
    ``window + sinks = L`` it never meets an offset beyond training); the hybrid as trained.
    All on the same ``num_sequences`` test sequences per length (:func:`passkey_scores`).

    Args:
        seeds: the seeds (distinct, non-negative).
        train_lengths: ``(n_min, n_max)``; ``L = n_max``.
        eval_lengths: the test lengths.
        steps, stop_loss, stop_window, lr: training, as in :func:`~book.toy.train_toy`.
        window, sinks: the streaming set-up.
        local_window: the window of the hybrid's RoPE layers.
        num_sequences, test_seed: the test sequences.
        workers: processes that train at once (1: this process); results do not depend on it.
        progress: show a progress bar, one tick per trained model.

    Returns:
        a :class:`PasskeyResults`.
    """
    seed_list = check_seeds(seeds)
    lengths = check_lengths(eval_lengths, minimum=4)
    rule = stop_rule(stop_loss, stop_window)
    if rule is None:
        raise ValueError("stop_loss must be a positive number")
    common = {
        "train_lengths": length_range(train_lengths),
        "eval_lengths": lengths,
        "steps": check_int("steps", steps),
        "stop_loss": rule[0],
        "stop_window": rule[1],
        "lr": check_positive_float("lr", lr),
        "window": check_int("window", window),
        "sinks": check_int("sinks", sinks, minimum=0),
        "local_window": check_int("local_window", local_window),
        "num_sequences": check_int("num_sequences", num_sequences),
        "test_seed": check_int("test_seed", test_seed, minimum=0),
    }
    if common["train_lengths"][0] < 4:  # type: ignore[index]
        raise ValueError(
            f"train_lengths must start at 4 or more (a passkey needs 4), got {train_lengths}"
        )
    jobs = [_Job(kind=kind, seed=s, **common) for s in seed_list for kind in ("rope", "hybrid")]  # type: ignore[arg-type]
    outcomes = run_jobs(
        _run, jobs, workers=workers, progress=progress,
        describe=lambda job: f"{job.kind} seed {job.seed}",
    )  # fmt: skip
    results = PasskeyResults(
        seeds=seed_list,
        train_lengths=common["train_lengths"],  # type: ignore[arg-type]
        eval_lengths=lengths,
        window=common["window"],  # type: ignore[arg-type]
        sinks=common["sinks"],  # type: ignore[arg-type]
        local_window=common["local_window"],  # type: ignore[arg-type]
    )
    results.scores = {name: {} for name in PASSKEY_SETUPS}
    for job, (met, scores) in zip(jobs, outcomes):
        results.fit_steps.setdefault(job.kind, {})[job.seed] = met
        for name, by_length in scores.items():
            results.scores[name][job.seed] = by_length
    return results
