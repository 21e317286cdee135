"""The length-generalisation experiment: one tiny model per encoding, trained short, tested long.

* :func:`toy_model` builds a :class:`~book.toy.model.TinyTransformer` with any encoding of
  :mod:`book.catalogue` that has a toy form (:func:`book.catalogue.toy_encodings`), from
  shared initial weights when seeded;
* :func:`length_generalisation` trains one per encoding on short sequences and tests each on
  longer ones (chapter 10), returning a :class:`~book.experiments.results.LengthResults`.

The catalogue is the one registry: each entry's ``toy`` field says where the encoding plugs
in, and this module asks it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence

import torch
from torch import Tensor, nn

from book.catalogue import ToyOptions, get_encoding, toy_encodings
from book.experiments.results import LengthResults, _Progress
from book.toy.baseline import frequency_guess_position_accuracy
from book.toy.model import TinyTransformer, ToyAttention
from book.toy.probes import toy_position_accuracy
from book.toy.tasks import TASKS, Task
from book.toy.training import length_range, stop_rule, train_toy
from posenc._checks import check_bool, check_int, check_positive_float
from posenc._threads import torch_threads

__all__ = ["length_generalisation", "toy_model"]


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

    The encoding's modules come from its catalogue entry (``book.catalogue`` entry ``toy``,
    given the sizes as a :class:`~book.catalogue.ToyOptions`); the book's are:

    ================  ===================================================================
    ``encoding``      plug-in point (:class:`TinyTransformer` argument) and module
    ================  ===================================================================
    ``"none"``        nothing: with ``causal=True`` only the mask tells order (NoPE)
    ``"sinusoidal"``  ``position=SinusoidalPositionalEncoding(dim)``
    ``"learned"``     ``position=LearnedPositionalEmbedding(max_positions, dim)``
    ``"shaw"``        ``attention=``: a ``ToyShawAttention(dim, num_heads,
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
        encoding: a key of :func:`book.catalogue.toy_encodings` (an entry with a toy form).
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
    if not isinstance(encoding, str):
        raise TypeError(f"encoding must be a str, got {type(encoding).__name__} {encoding!r}")
    known = toy_encodings()
    if encoding not in known:
        raise ValueError(
            f"encoding must be one of the catalogue's encodings with a toy form {known}, "
            f"got {encoding!r}"
        )
    toy = get_encoding(encoding).toy
    if toy is None:  # pragma: no cover - toy_encodings() lists only entries with a toy form
        raise ValueError(f"encoding {encoding!r} has no toy form")
    options = ToyOptions(
        dim=dim,
        num_heads=num_heads,
        causal=causal,
        max_positions=max_positions,
        shaw_max_relative_position=shaw_max_relative_position,
        t5_num_buckets=t5_num_buckets,
        t5_max_distance=t5_max_distance,
        rope_base=rope_base,
    )
    if seed is not None:
        seed = check_int("seed", seed, minimum=0)

    def build() -> TinyTransformer:
        plug_in = toy(options)  # the encoding's modules, built before the model's own
        return TinyTransformer(
            vocab_size,
            options.dim,
            options.num_heads,
            num_layers,
            causal=options.causal,
            **plug_in.kwargs(),  # type: ignore[arg-type]
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
    LayerNorms ones and zeros). Each attention layer loads the packed ``[3d, d]`` query/key/value
    and the output projection through :class:`~book.toy.model.ToyAttention`; a Shaw layer
    takes the rows ``q``, then ``k``, then ``v``.
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
        if not isinstance(attn, ToyAttention):
            raise TypeError(
                f"cannot initialise an attention layer of type {type(attn).__name__}: it does "
                "not implement ToyAttention (a load_projections method)"
            )
        attn.load_projections(qkv_weight, qkv_bias, out_weight, out_bias)
        for layer in (block.mlp[0], block.mlp[2]):
            fill(layer, *linear(layer.out_features, layer.in_features))
    fill(model.head, *linear(model.head.out_features, model.head.in_features))
    for norm in norms:
        norm.reset_parameters()  # ones and zeros: the same for every model


def _tested(
    model: TinyTransformer, task: str, n: int, k: int, num_sequences: int, seed: int
) -> tuple[float, Tensor]:
    """``(accuracy, [n] accuracy per position)`` of a trained model at test length ``n``, on
    ``num_sequences`` sequences seeded by ``seed``; all ``nan`` where the model cannot run."""
    if model.max_positions is not None and n > model.max_positions:
        return math.nan, torch.full((n,), math.nan, dtype=torch.float64)  # [n]
    with torch_threads(1):
        per_position = toy_position_accuracy(
            model,
            task,
            length=n,
            k=k,
            num_sequences=num_sequences,
            seed=seed,  # type: ignore[arg-type]
        )  # [n]
    answered = ~per_position.isnan()  # [n]
    # every answered position has num_sequences answers: the mean over positions is the mean
    # over all answers (toy_accuracy)
    value = float(per_position[answered].mean()) if bool(answered.any()) else math.nan
    return value, per_position


def length_generalisation(
    encodings: Sequence[str] | Mapping[str, Callable[[], TinyTransformer]] | None = None,
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
    stop_loss: float | None = None,
    stop_window: int = 20,
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

    Models learn at different speeds, so a fixed number of steps compares a finished model
    with an unfinished one. With ``stop_loss``, every model trains under the same rule
    instead: until its last ``stop_window`` training losses all lie below ``stop_loss``
    (:func:`train_toy`), for at most ``steps`` steps. The results record each model's steps
    and whether it met the rule (:attr:`LengthResults.converged`), and its table shows both.

    Args:
        encodings: keys of :func:`book.catalogue.toy_encodings`, in the order to train and
            show them (built by :func:`toy_model` with ``max_positions = train_lengths[1]``
            and ``**model_options``), ``None`` for all of them in the catalogue's order, or a
            mapping ``label -> factory`` of functions that build a :class:`TinyTransformer`.
        task, k: the task, as in :func:`toy_batch`.
        train_lengths: ``(n_min, n_max)``: each training batch has a length drawn from
            ``n_min..n_max``. ``L = n_max``.
        eval_lengths: the test lengths.
        steps, batch_size, lr: as in :func:`train_toy`; with ``stop_loss``, ``steps`` is the cap.
        stop_loss, stop_window: the stopping rule of :func:`train_toy`, the same for every
            model; ``None``: train every model for ``steps`` steps.
        seed: seeds every model's initialisation (shared weights identical across named
            encodings) and the training batches.
        num_sequences, test_seed: the test sequences (as in :func:`toy_accuracy`).
        progress: show a progress bar (a line updated in place in a notebook).
        model_options: keyword arguments of :func:`toy_model` (e.g. ``dim=24``), for named
            encodings only.

    Returns:
        a :class:`LengthResults`.
    """
    lo, hi = length_range(train_lengths)
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
        known = toy_encodings()
        names = list(known if encodings is None else encodings)
        unknown = [e for e in names if not isinstance(e, str) or e not in known]
        if unknown:
            raise ValueError(f"encodings must be names from {known}, got {unknown}")
        if len(set(names)) != len(names):
            raise ValueError(f"encodings must name each encoding once, got {names}")
        options = {"max_positions": hi, "seed": seed, **model_options}
        factories = {e: (lambda e=e: toy_model(e, **options)) for e in names}  # type: ignore[misc]
    if not factories:
        raise ValueError("encodings must name at least one encoding")
    if isinstance(eval_lengths, (str, int)) or not isinstance(eval_lengths, Sequence):
        raise TypeError(f"eval_lengths must be a sequence of ints, got {eval_lengths!r}")
    lengths = tuple(check_int("eval_lengths", n) for n in eval_lengths)
    if not lengths:
        raise ValueError("eval_lengths must hold at least one length")
    steps = check_int("steps", steps)
    seed = check_int("seed", seed, minimum=0)
    if not isinstance(task, str) or task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}, got {task!r}")
    k = check_int("k", k, minimum=0 if task == "local_max" else 1)
    batch_size = check_int("batch_size", batch_size)
    lr = check_positive_float("lr", lr)
    num_sequences = check_int("num_sequences", num_sequences)
    test_seed = check_int("test_seed", test_seed, minimum=0)
    progress = check_bool("progress", progress)
    stop = stop_rule(stop_loss, stop_window)

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
        stop_loss=None if stop is None else stop[0],
        stop_window=stop_window,
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
                bar.update(done + step, f"{label} {step}", force=step == steps)

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
                stop_loss=None if stop is None else stop[0],
                stop_window=stop_window,
            )
            if run.converged:  # the bar moves on to the next model's share
                bar.update(done + steps, f"{label} converged at {len(run.losses)}", force=True)
            results.seconds[label] = time.perf_counter() - start
            results.converged[label] = run.converged
            results.models[label] = model
            results.losses[label] = run.losses
            results.accuracy[label], results.position_accuracy[label] = {}, {}
            for n in lengths:
                value, per_position = _tested(model, task, n, k, num_sequences, test_seed)
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
