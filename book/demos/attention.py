"""Chapter 1's word demos: toy sentences, a seeded attention layer, and what shuffling does.

Not model code: the figures and explorers of chapter 1 (:mod:`book.figures.attention`,
:mod:`book.explorers.attention`) and its code cells use these to show that attention without
positions is permutation-equivariant (:class:`posenc.attention.SelfAttention`).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import torch
from torch import Tensor

from posenc._checks import (
    check_bool,
    check_int,
    check_permutation,
    check_positive_float,
    check_tensor,
)
from posenc.attention import SelfAttention
from posenc.sinusoidal import sinusoidal_encoding

__all__ = [
    "permutation_matrix",
    "sentence_attention",
    "sentence_vectors",
    "shuffled_attention",
    "toy_attention_layer",
    "word_vectors",
]


def permutation_matrix(perm: Sequence[int] | Tensor) -> Tensor:
    """Return the permutation matrix ``P`` that reorders rows: ``P @ x == x[perm]``.

    .. math::

        P_{ij} = [\\,j = \\pi(i)\\,], \\qquad (PX)_i = X_{\\pi(i)}

    Row ``i`` of ``P x`` is row ``perm[i]`` of ``x``; ``P`` is orthogonal, so ``P⁻¹ = Pᵀ``.

    Args:
        perm: a permutation of ``0..n-1`` (list or 1-D integer tensor).

    Returns:
        float32 tensor of shape ``[n, n]`` (cast it to the dtype you multiply with).

    Shapes:
        ``n``: positions.
    """
    order = check_permutation("perm", perm)
    n = len(order)
    p = torch.zeros(n, n)  # [n, n]
    p[torch.arange(n), torch.tensor(order)] = 1.0
    return p


def word_vectors(words: Sequence[str], dim: int, *, seed: int = 0) -> Tensor:
    """Return a fixed random embedding for each word: same word, same vector, anywhere.

    A stand-in for a trained embedding table in the book's toy sentences. The vector of a
    word depends only on the word, ``dim`` and ``seed`` (never on its neighbours or its
    place in the sentence), so ``"dog bites man"`` and ``"man bites dog"`` are the same
    three vectors in a different order.

    .. math::

        x_w \\sim \\mathcal{N}(0, I_d), \\quad \\text{drawn from a generator seeded by}
        \\ \\operatorname{crc32}(\\text{"seed:w"})

    Args:
        words: the tokens of the sentence.
        dim: ``d``, the embedding width.
        seed: changes every vector.

    Returns:
        float32 tensor of shape ``[n, d]``.

    Shapes:
        ``n = len(words)``: positions, ``d``: channels.
    """
    if isinstance(words, str):
        raise TypeError("words must be a sequence of strings (e.g. sentence.split()), got one str")
    dim = check_int("dim", dim)
    seed = check_int("seed", seed, minimum=0)
    if len(words) == 0:
        raise ValueError("words must hold at least one word")
    rows = []
    for w in words:
        if not isinstance(w, str):
            raise TypeError(f"words must hold strings, got {type(w).__name__} {w!r}")
        g = torch.Generator().manual_seed(zlib.crc32(f"{seed}:{w}".encode()))
        rows.append(torch.randn(dim, generator=g))  # [d]
    return torch.stack(rows)  # [n, d]


def toy_attention_layer(dim: int = 16, *, seed: int = 0, gain: float = 2.0) -> SelfAttention:
    """Return a seeded one-head :class:`~posenc.attention.SelfAttention` in eval mode, its pattern sharpened.

    .. math::

        W_Q \\leftarrow g\\,W_Q, \\qquad W_K \\leftarrow g\\,W_K

    A freshly initialised layer attends almost uniformly; scaling the query and key weights
    (not their biases) by ``gain`` makes the pattern of random weights peaked enough to see.
    The layer is built inside ``torch.random.fork_rng``, so the global random state is left
    untouched and the same ``seed`` always gives the same layer. Chapter 1's figures use it.

    Args:
        dim: ``d``, the model width.
        seed: seed of the layer's initial weights.
        gain: ``g``, the factor on the query and key weights (``> 0``).

    Returns:
        a :class:`~posenc.attention.SelfAttention` with one head, in eval mode.

    Shapes:
        ``x``: ``[b, n, d]`` → ``[b, n, d]``.
    """
    dim = check_int("dim", dim)
    seed = check_int("seed", seed, minimum=0)
    gain = check_positive_float("gain", gain)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        layer = SelfAttention(dim, num_heads=1)
    with torch.no_grad():
        layer.qkv.weight[: 2 * layer.dim] *= gain  # the query and key rows of the packed weight
    return layer.eval()


def sentence_vectors(words: Sequence[str], dim: int, *, positions: bool = False) -> Tensor:
    """Return the input of a toy sentence: each word's vector, plus its slot's code if asked.

    .. math::

        x_p = e_{w_p} \\quad\\text{or, with positions,}\\quad x_p = e_{w_p} + PE(p)

    with ``e`` from :func:`word_vectors` and ``PE`` the sinusoidal encoding
    (:func:`posenc.sinusoidal.sinusoidal_encoding`) of the slots ``0..n-1``.

    Args:
        words: the tokens of the sentence.
        dim: ``d``, the embedding width (even with ``positions``).
        positions: add the sinusoidal encoding of each slot.

    Returns:
        float32 tensor ``[n, d]``.

    Shapes:
        ``n = len(words)``: positions, ``d``: channels.
    """
    positions = check_bool("positions", positions)
    x = word_vectors(words, dim)  # [n, d]
    if positions:
        x = x + sinusoidal_encoding(len(words), dim)  # [n, d]
    return x


def sentence_attention(layer: SelfAttention, x: Tensor) -> tuple[Tensor, Tensor]:
    """Return the outputs of ``layer`` on one sentence and the attention weights of its first head.

    .. math::

        Y = \\operatorname{layer}(X), \\qquad
        A = \\operatorname{softmax}\\big(Q_1K_1^\\top/\\sqrt{d/h}\\big)

    Runs without gradients, on a batch of one.

    Args:
        layer: a :class:`~posenc.attention.SelfAttention` (e.g. :func:`toy_attention_layer`).
        x: the sentence, ``[n, d]`` (e.g. :func:`sentence_vectors`).

    Returns:
        ``(outputs [n, d], weights [n, n])``.

    Shapes:
        ``n``: positions, ``d``: channels.
    """
    check_tensor("x", x, ndim=2)
    with torch.no_grad():
        y, w = layer(x[None], return_weights=True)  # [1, n, d], [1, h, n, n]
    return y[0], w[0, 0]  # [n, d], [n, n]


def shuffled_attention(
    words: Sequence[str], perm: Sequence[int], *, positions: bool, dim: int = 16, seed: int = 0
) -> tuple[Tensor, Tensor, Tensor]:
    """Return the toy layer's attention on a sentence and its shuffle, and how far outputs moved.

    .. math::

        \\delta_w = \\big\\lVert z_w(PX) - z_w(X) \\big\\rVert_2

    ``X`` is :func:`sentence_vectors` of ``words`` (with ``positions`` or without), ``PX`` the
    same for the shuffled words ``words[perm[0]], words[perm[1]], …``, and ``z_w`` the output
    of :func:`toy_attention_layer` ``(dim, seed=seed)`` at word ``w``'s place in each. Without
    positions attention is permutation-equivariant and every ``δ_w`` is 0 up to rounding; with
    positions the outputs change.

    Args:
        words: the sentence.
        perm: a permutation of ``0..n-1``: slot ``i`` of the shuffle holds ``words[perm[i]]``.
        positions: add the sinusoidal encoding of each slot to the word vectors.
        dim: ``d``, the width of the words and of the layer.
        seed: seed of the layer.

    Returns:
        ``(A(X) [n, n], A(PX) [n, n], δ [n])``: ``A(PX)`` in the shuffled order, ``δ`` in the
        original order of ``words``.

    Shapes:
        ``n = len(words)``: positions.
    """
    positions = check_bool("positions", positions)
    words = list(words)
    order = check_permutation("perm", perm, len(words))
    layer = toy_attention_layer(dim, seed=seed)
    x = sentence_vectors(words, dim, positions=positions)  # [n, d]
    y, a = sentence_attention(layer, x)  # [n, d], [n, n]
    shuffled = sentence_vectors([words[i] for i in order], dim, positions=positions)  # [n, d]
    y_perm, a_perm = sentence_attention(layer, shuffled)  # [n, d], [n, n]
    inverse = torch.argsort(torch.tensor(order))  # [n]: where each original word went
    return a, a_perm, (y_perm[inverse] - y).norm(dim=-1)  # [n, n], [n, n], [n]
