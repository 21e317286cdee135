"""Plain scaled dot-product attention, the baseline every encoding in the book modifies."""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence

import torch
from torch import Tensor, nn

from ._checks import check_heads, check_int, check_permutation, check_positive_float, check_tensor
from .sinusoidal import sinusoidal_encoding


def attention_weights(
    q: Tensor, k: Tensor, *, bias: Tensor | None = None, mask: Tensor | None = None
) -> Tensor:
    """Return the attention matrix ``softmax(q kᵀ/√d + bias)``.

    .. math::

        A_{ij} = \\operatorname{softmax}_j\\!\\left(\\frac{q_i \\cdot k_j}{\\sqrt{d}}
        + B_{ij}\\right)

    Args:
        q: queries ``[..., n_q, d]``.
        k: keys ``[..., n_k, d]``.
        bias: optional additive logit bias, broadcastable to ``[..., n_q, n_k]``
            (where relative position biases such as Swin's, T5's and ALiBi's enter).
        mask: optional boolean mask broadcastable to ``[..., n_q, n_k]``, ``True`` where
            attention is allowed (the ``F.scaled_dot_product_attention`` convention).

    Returns:
        ``[..., n_q, n_k]``, each row summing to 1.

    Shapes:
        ``n_q``: query positions, ``n_k``: key positions, ``d``: channels per head.
    """
    check_tensor("q", q)
    check_tensor("k", k)
    if q.ndim < 2 or k.ndim < 2:
        raise ValueError("q and k must have at least 2 dimensions [..., n, d]")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"q and k must share their last dimension, got {q.shape[-1]} and {k.shape[-1]}"
        )
    logits = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # [..., n_q, n_k]
    if bias is not None:
        check_tensor("bias", bias)
        logits = logits + bias
    return masked_softmax(logits, mask)  # [..., n_q, n_k]


def masked_softmax(logits: Tensor, mask: Tensor | None = None) -> Tensor:
    """Return the softmax of ``logits`` over keys, with the keys ``mask`` forbids set to 0.

    .. math::

        A_{ij} = \\frac{M_{ij}\\, e^{L_{ij}}}{\\sum_{j'} M_{ij'}\\, e^{L_{ij'}}}

    computed as ``softmax(L.masked_fill(~M, −∞))``: the last step of every attention in posenc
    (:func:`attention_weights`, :class:`posenc.window.WindowAttention`,
    :func:`posenc.shaw.shaw_attention`), kept in one place so that all of them mask alike. A row
    whose keys are all masked is ``nan`` (0/0).

    Args:
        logits: attention logits ``[..., n_q, n_k]`` (any bias already added).
        mask: optional boolean mask broadcastable to ``[..., n_q, n_k]``, ``True`` where
            attention is allowed.

    Returns:
        ``[..., n_q, n_k]``, each row summing to 1.

    Shapes:
        ``n_q``: query positions, ``n_k``: key positions.
    """
    check_tensor("logits", logits)
    if mask is not None:
        check_tensor("mask", mask)
        if mask.dtype != torch.bool:
            raise TypeError(f"mask must be a boolean tensor (True = attend), got {mask.dtype}")
        logits = logits.masked_fill(~mask, float("-inf"))  # [..., n_q, n_k]
    return torch.softmax(logits, dim=-1)  # [..., n_q, n_k]


def dot_product_attention(
    q: Tensor, k: Tensor, v: Tensor, *, bias: Tensor | None = None, mask: Tensor | None = None
) -> Tensor:
    """Return ``softmax(q kᵀ/√d + bias) v``, the output of one attention head.

    .. math::

        z_i = \\sum_j A_{ij} v_j

    Args:
        q, k: as in :func:`attention_weights`.
        v: values ``[..., n_k, d_v]``.
        bias, mask: as in :func:`attention_weights`.

    Returns:
        ``[..., n_q, d_v]``.
    """
    check_tensor("v", v)
    if v.ndim < 2:
        raise ValueError(
            f"v must have at least 2 dimensions [..., n_k, d_v], got shape {tuple(v.shape)}"
        )
    check_tensor("k", k)
    if k.ndim >= 2 and v.shape[-2] != k.shape[-2]:
        raise ValueError(
            f"k and v must have the same number of positions, got {k.shape[-2]} and {v.shape[-2]}"
        )
    return attention_weights(q, k, bias=bias, mask=mask) @ v  # [..., n_q, d_v]


class SelfAttention(nn.Module):
    """Single-layer multi-head self-attention with no position information of its own.

    Queries, keys and values are linear maps of the same input; heads are concatenated and
    projected back. Used in chapter 1 to show that, without positions, permuting the input
    tokens permutes the output tokens in exactly the same way.

    .. math::

        Q = XW_Q + b_Q,\\; K = XW_K + b_K,\\; V = XW_V + b_V, \\qquad
        Y = \\operatorname{concat}_h\\big(\\operatorname{softmax}(\\rho(Q_h)\\,\\rho(K_h)^\\top/\\sqrt{d/h}
        + B)\\,V_h\\big)\\,W_O + b_O

    so that, for every permutation matrix ``P``, with no bias, mask or ``rotary``,
    ``Y(PX) = P\\,Y(X)``.

    Three optional ways for position information to enter, all used by
    :class:`posenc.toy.TinyTransformer`:

    * ``bias`` (``forward``): an additive logit bias ``B`` (T5, ALiBi, Swin);
    * ``mask`` (``forward``): a boolean mask, ``True`` where attention is allowed (e.g.
      :func:`causal_mask`);
    * ``rotary`` (constructor): a module called as ``rotary(q, k) -> (q, k)`` on each head's
      queries and keys, after the split into heads and before the logits — the place where
      RoPE rotates them (``ρ`` above; e.g. :class:`posenc.rotary.RotaryEmbedding` for
      ``d/h`` channels). Values are never rotated.

    Args:
        dim: ``d``, the model width.
        num_heads: ``h`` (must divide ``dim``).
        rotary: the query/key hook, or ``None`` (``ρ`` = identity). If it has a ``dim``
            attribute, it must equal the channels per head ``d/h``.

    Shapes:
        ``x``: ``[b, n, d]`` → ``[b, n, d]``; ``forward(..., return_weights=True)`` also
        returns the attention weights ``[b, h, n, n]``; ``bias`` and ``mask`` broadcast to
        ``[b, h, n, n]``; ``rotary`` receives and returns ``[b, h, n, d/h]`` twice.

    Matches ``torch.nn.MultiheadAttention`` (``batch_first=True``, packed in-projection) up to
    the layout of the weights; with ``rotary``, the attention of RoFormer (Su et al., 2024)
    and Llama.
    """

    def __init__(self, dim: int, num_heads: int = 1, *, rotary: nn.Module | None = None) -> None:
        super().__init__()
        self.dim = check_int("dim", dim)
        self.num_heads = check_int("num_heads", num_heads)
        head_dim = check_heads(self.dim, self.num_heads)
        if rotary is not None:
            if not isinstance(rotary, nn.Module):
                raise TypeError(f"rotary must be an nn.Module or None, got {type(rotary).__name__}")
            rotary_dim = getattr(rotary, "dim", head_dim)
            if rotary_dim != head_dim:
                raise ValueError(
                    f"rotary must act on the {head_dim} channels of one head (dim / num_heads = "
                    f"{dim} / {num_heads}), got rotary.dim={rotary_dim}"
                )
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.rotary = rotary

    def forward(
        self,
        x: Tensor,
        *,
        bias: Tensor | None = None,
        mask: Tensor | None = None,
        return_weights: bool = False,
    ) -> Tensor | tuple[Tensor, Tensor]:
        check_tensor("x", x, ndim=3)
        b, n, d = x.shape
        if d != self.dim:
            raise ValueError(f"x must have {self.dim} channels in its last dimension, got {d}")
        h = self.num_heads
        qkv = self.qkv(x).reshape(b, n, 3, h, d // h).permute(2, 0, 3, 1, 4)  # [3, b, h, n, d/h]
        q, k, v = qkv.unbind(0)  # [b, h, n, d/h] each
        if self.rotary is not None:
            q, k = self.rotary(q, k)  # [b, h, n, d/h] each, rotated by position
        weights = attention_weights(q, k, bias=bias, mask=mask)  # [b, h, n, n]
        z = (weights @ v).transpose(1, 2).reshape(b, n, d)  # [b, n, d]
        y = self.out(z)  # [b, n, d]
        return (y, weights) if return_weights else y


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
    """Return a seeded one-head :class:`SelfAttention` in eval mode, its pattern sharpened.

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
        a :class:`SelfAttention` with one head, in eval mode.

    Shapes:
        ``x``: ``[b, n, d]`` → ``[b, n, d]``.
    """
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
        layer: a :class:`SelfAttention` (e.g. :func:`toy_attention_layer`).
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
    words = list(words)
    order = check_permutation("perm", perm, len(words))
    layer = toy_attention_layer(dim, seed=seed)
    x = sentence_vectors(words, dim, positions=positions)  # [n, d]
    y, a = sentence_attention(layer, x)  # [n, d], [n, n]
    shuffled = sentence_vectors([words[i] for i in order], dim, positions=positions)  # [n, d]
    y_perm, a_perm = sentence_attention(layer, shuffled)  # [n, d], [n, n]
    inverse = torch.argsort(torch.tensor(order))  # [n]: where each original word went
    return a, a_perm, (y_perm[inverse] - y).norm(dim=-1)  # [n, n], [n, n], [n]


def query_key_positions(
    n_q: int, n_k: int, *, query_offset: int | None = None
) -> tuple[Tensor, Tensor]:
    """Return the positions of ``n_q`` queries and ``n_k`` keys in one sequence.

    .. math::

        p^K_j = j, \\qquad p^Q_i = o + i, \\qquad o = n_k - n_q \\text{ by default}

    Keys sit at ``0..n_k−1``. Queries are by default the *last* ``n_q`` positions of the key
    sequence, as when a decoder with a key cache processes ``n_q`` new tokens after
    ``n_k − n_q`` cached ones; with ``n_q = n_k`` this is plain self-attention. Relative
    encodings (:mod:`posenc.alibi`, :mod:`posenc.t5`, :mod:`posenc.rotary`) and
    :func:`causal_mask` all place queries and keys this way.

    Args:
        n_q: number of queries.
        n_k: number of keys.
        query_offset: position of the first query, ``o`` (default ``n_k − n_q``; required to
            be given when ``n_q > n_k``).

    Returns:
        ``(query_positions, key_positions)``, LongTensors ``[n_q]`` and ``[n_k]``.

    Shapes:
        ``n_q``/``n_k``: query/key positions.

    Example:
        >>> [p.tolist() for p in query_key_positions(2, 5)]
        [[3, 4], [0, 1, 2, 3, 4]]
    """
    n_q = check_int("n_q", n_q)
    n_k = check_int("n_k", n_k)
    if query_offset is None:
        if n_q > n_k:
            raise ValueError(
                f"n_q must be <= n_k when query_offset is not given (queries are the last n_q of "
                f"the n_k key positions), got n_q={n_q}, n_k={n_k}"
            )
        query_offset = n_k - n_q
    query_offset = check_int("query_offset", query_offset, minimum=0)
    return torch.arange(query_offset, query_offset + n_q), torch.arange(n_k)  # [n_q], [n_k]


def causal_mask(n_q: int, n_k: int, *, query_offset: int | None = None) -> Tensor:
    """Return which keys each query may attend to in a causal decoder.

    .. math::

        M_{ij} = [\\, p_j \\le p_i \\,]

    ``True`` where attention is allowed (the convention of
    ``F.scaled_dot_product_attention`` and :func:`posenc.attention.attention_weights`), with
    the positions of :func:`query_key_positions`: for ``n_q = n_k`` the lower triangle including the
    diagonal; with a key cache (``n_q < n_k``) every query also sees all cached keys.

    Args:
        n_q: number of queries.
        n_k: number of keys.
        query_offset: position of the first query (default ``n_k − n_q``).

    Returns:
        BoolTensor ``[n_q, n_k]``.

    Shapes:
        ``n_q``/``n_k``: query/key positions.

    Example:
        >>> causal_mask(2, 4).int().tolist()  # two new queries after two cached keys
        [[1, 1, 1, 0], [1, 1, 1, 1]]
    """
    q_pos, k_pos = query_key_positions(n_q, n_k, query_offset=query_offset)  # [n_q], [n_k]
    return k_pos[None, :] <= q_pos[:, None]  # [n_q, n_k]
