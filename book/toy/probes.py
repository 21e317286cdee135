"""Probes of a (trained) tiny Transformer: how well it answers, where, and where it looks.

* :func:`toy_accuracy` measures a model on fresh sequences, of any length, and
  :func:`toy_position_accuracy` does so position by position;
* :func:`toy_attention_weights` returns every layer's attention weights (through
  :class:`~book.toy.model.ToyAttention`);
* :func:`toy_rotary_pair_logits` splits a RoPE model's logits into its channel pairs' parts.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from book.toy.model import TinyTransformer, ToyAttention
from book.toy.tasks import IGNORE_INDEX, Task, toy_batch
from posenc._checks import check_int
from posenc.rotary import RotaryEmbedding

__all__ = [
    "toy_accuracy",
    "toy_attention_weights",
    "toy_position_accuracy",
    "toy_rotary_pair_logits",
]


def _check_model(model: object) -> TinyTransformer:
    if not isinstance(model, TinyTransformer):
        raise TypeError(f"model must be a TinyTransformer, got {type(model).__name__}")
    return model


def _test_predictions(
    model: TinyTransformer, task: Task, length: int, k: int, num_sequences: int, seed: int
) -> tuple[Tensor, Tensor]:
    """Predictions and targets of ``model`` on fresh seeded test sequences, ``[b, n]`` each."""
    _check_model(model)
    num_sequences = check_int("num_sequences", num_sequences)
    generator = torch.Generator().manual_seed(check_int("seed", seed, minimum=0))
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

    For Shaw's layers (:class:`~book.toy.model.ToyShawAttention`) the logit is
    Shaw's, ``q_i · (k_j + a^K_{c(j−i)}) / √(d/h)``.

    Args:
        model: a :class:`TinyTransformer` whose layers implement
            :class:`~book.toy.model.ToyAttention` (the default layer and Shaw's do; the
            weights of another custom layer are unknown).
        tokens: ``[b, n]`` integer tokens.

    Returns:
        one tensor ``[b, h, n, n]`` per layer, rows summing to 1.

    Shapes:
        ``b``: sequences, ``h``: heads, ``n``: positions.
    """
    _check_model(model)
    if not all(isinstance(block.attn, ToyAttention) for block in model.blocks):
        raise TypeError(
            "model must use attention layers that report their weights (ToyAttention: the "
            "toy's SelfAttention or ShawRelativeMultiheadAttention, or a custom layer with "
            "attention_weights and load_projections methods)"
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
    _check_model(model)
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
