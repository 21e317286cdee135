"""Worked examples of plain attention: chapter 1's word demos and chapter 9's logit terms.

Not model code: :mod:`posenc.attention` holds the attention a model runs. Chapter 1's figures
and explorers (:mod:`book.figures.attention`, :mod:`book.explorers.attention`) and its code
cells use the word demos (toy sentences, a seeded layer, what shuffling does) to show that
attention without positions is permutation-equivariant
(:class:`posenc.attention.SelfAttention`). Chapter 9 splits the logit of tokens that carry
added positions into its four terms (:func:`absolute_logit_terms`) and measures how much of a
map a function of the offset alone explains (:func:`offset_variance_share`).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import torch
from torch import Tensor

from book._checks import check_permutation
from posenc._checks import (
    broadcast_shape,
    check_bool,
    check_float_tensor,
    check_int,
    check_positive_float,
    check_same_device,
    check_same_dtype,
    check_tensor,
)
from posenc.attention import SelfAttention
from posenc.sinusoidal import sinusoidal_encoding

__all__ = [
    "LOGIT_TERMS",
    "absolute_logit_terms",
    "offset_variance_share",
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


LOGIT_TERMS = ("content–content", "content–position", "position–content", "position–position")
"""The names of the four terms of :func:`absolute_logit_terms`, in its order."""


def absolute_logit_terms(x: Tensor, p: Tensor, w_q: Tensor, w_k: Tensor) -> Tensor:
    """Return the four terms of the attention logit of tokens that carry added positions.

    With position vectors added to the tokens, ``x_i + p_i``, the logit of query ``i`` and key
    ``j`` (before the division by ``√d``) splits into four terms:

    .. math::

        (x_i + p_i)^\\top W_Q^\\top W_K (x_j + p_j)
        = \\underbrace{x_i^\\top A\\, x_j}_{\\text{content–content}}
        + \\underbrace{x_i^\\top A\\, p_j}_{\\text{content–position}}
        + \\underbrace{p_i^\\top A\\, x_j}_{\\text{position–content}}
        + \\underbrace{p_i^\\top A\\, p_j}_{\\text{position–position}},
        \\qquad A = W_Q^\\top W_K

    The four are returned stacked in this order (the names are in ``LOGIT_TERMS``); their sum
    is ``q kᵀ`` for ``q = (x + p) W_Qᵀ`` and ``k = (x + p) W_Kᵀ``. Dai et al. (2019, section
    3.3) write this expansion as the starting point of Transformer-XL's relative attention,
    and He et al. (2021) name its terms as here for DeBERTa. Projection biases are left out
    (a bias adds terms that depend on one side only).

    Args:
        x: the token contents ``[..., n, d_x]`` (floating point).
        p: the position vectors added to them, ``[..., n, d_x]`` or any shape that broadcasts
            to ``x``'s (e.g. one ``[n, d_x]`` table for a batch).
        w_q: the query projection ``[d, d_x]`` (``nn.Linear``'s weight layout: ``q = x W_Qᵀ``).
        w_k: the key projection ``[d, d_x]``.

    Returns:
        ``[4, ..., n, n]``: entry ``[t, ..., i, j]`` is term ``t`` for query ``i`` and key ``j``.
        Divide by ``√d`` to get the logits of :func:`posenc.attention.attention_weights`.

    Raises:
        TypeError: a tensor that is not floating point, or tensors of different dtypes.
        ValueError: ``w_q`` and ``w_k`` not both ``[d, d_x]`` with ``d ≥ 1`` and the ``d_x``
            of ``x``, ``p`` that does not broadcast to ``x``, or tensors on two devices.

    Shapes:
        ``n``: positions, ``d_x``: channels of the tokens, ``d``: channels of a query.

    Matches the four terms (a)–(d) of Dai et al. 2019, eq. in section 3.3 (``E_x`` = ``x``,
    ``U`` = ``p``), and, with relative vectors in place of ``p``, He et al. 2021, eq. (2).
    """
    check_float_tensor("x", x)
    check_float_tensor("p", p)
    check_float_tensor("w_q", w_q, ndim=2)
    check_float_tensor("w_k", w_k, ndim=2)
    if x.ndim < 2:
        raise ValueError(
            f"x must have at least 2 dimensions [..., n, d_x], got shape {tuple(x.shape)}"
        )
    d_x = x.shape[-1]
    if w_q.shape != w_k.shape or w_q.shape[1] != d_x or w_q.shape[0] == 0:
        raise ValueError(
            f"w_q and w_k must both be [d, d_x] with d >= 1 and d_x = x.shape[-1] = {d_x}, got "
            f"{tuple(w_q.shape)} and {tuple(w_k.shape)}"
        )
    if broadcast_shape(tuple(x.shape), tuple(p.shape)) != tuple(x.shape):
        raise ValueError(
            f"p must broadcast to the shape of x {tuple(x.shape)}, got shape {tuple(p.shape)}"
        )
    check_same_dtype(x=x, p=p, w_q=w_q, w_k=w_k)
    check_same_device(x=x, p=p, w_q=w_q, w_k=w_k)
    p = p.expand_as(x)  # [..., n, d_x]
    x_q, x_k = x @ w_q.T, x @ w_k.T  # [..., n, d]: the content's query and key
    p_q, p_k = p @ w_q.T, p @ w_k.T  # [..., n, d]: the positions' query and key
    return torch.stack(
        [
            x_q @ x_k.transpose(-2, -1),  # [..., n, n]: content–content
            x_q @ p_k.transpose(-2, -1),  # [..., n, n]: content–position
            p_q @ x_k.transpose(-2, -1),  # [..., n, n]: position–content
            p_q @ p_k.transpose(-2, -1),  # [..., n, n]: position–position
        ]
    )  # [4, ..., n, n]


def offset_variance_share(logits: Tensor) -> Tensor:
    """Return how much of a map's variance a function of the offset ``j − i`` alone explains.

    Replace every entry by the mean of its diagonal (the entries with the same offset
    ``j − i``): that is the closest map, in squared error, that depends on the offset only
    (a Toeplitz map). The share is one minus the squared error left, over the map's variance:

    .. math::

        s(L) = 1 - \\frac{\\sum_{ij} \\big(L_{ij} - \\bar L_{j-i}\\big)^2}
        {\\sum_{ij} \\big(L_{ij} - \\bar L\\big)^2},
        \\qquad \\bar L_r = \\operatorname{mean}_{j - i = r} L_{ij}

    1 for a map that depends on the offset only (and for a constant map), near 0 for one in
    which the offset says nothing. It is the ``R²`` of fitting one number per diagonal.

    Args:
        logits: maps ``[..., n_q, n_k]`` (floating point, ``n_q, n_k ≥ 1``).

    Returns:
        ``[...]``, one share per map, in ``[0, 1]`` (up to rounding).

    Raises:
        TypeError: ``logits`` not a floating-point tensor.
        ValueError: fewer than 2 dimensions, or no query or no key.

    Shapes:
        ``n_q``/``n_k``: query/key positions; query ``i`` and key ``j`` are at positions ``i``
        and ``j``.
    """
    check_float_tensor("logits", logits)
    if logits.ndim < 2 or logits.shape[-2] == 0 or logits.shape[-1] == 0:
        raise ValueError(
            "logits must be maps [..., n_q, n_k] with n_q, n_k >= 1, got shape "
            f"{tuple(logits.shape)}"
        )
    n_q, n_k = logits.shape[-2:]
    device = logits.device
    offsets = torch.arange(n_k, device=device)[None, :] - torch.arange(n_q, device=device)[:, None]
    index = (offsets + n_q - 1).reshape(-1)  # [n_q n_k]: the diagonal of each entry, from 0
    flat = logits.reshape(*logits.shape[:-2], n_q * n_k)  # [..., n_q n_k]
    sums = flat.new_zeros(*flat.shape[:-1], n_q + n_k - 1).index_add(-1, index, flat)
    counts = flat.new_zeros(n_q + n_k - 1).index_add(0, index, flat.new_ones(n_q * n_k))
    diagonal_means = (sums / counts)[..., index]  # [..., n_q n_k]
    residual = (flat - diagonal_means).square().sum(-1)  # [...]
    total = (flat - flat.mean(-1, keepdim=True)).square().sum(-1)  # [...]
    return torch.where(total > 0, 1 - residual / total.clamp_min(torch.finfo(flat.dtype).tiny), 1.0)
