"""Plain scaled dot-product attention, the baseline every encoding in the book modifies."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import torch
from torch import Tensor, nn

from ._checks import (
    broadcast_shape,
    check_bias,
    check_bool,
    check_float_tensor,
    check_heads,
    check_int,
    check_mask,
    check_same_device,
    check_same_dtype,
    check_state_dict_tables,
)

__all__ = [
    "SelfAttention",
    "attention_weights",
    "causal_mask",
    "dot_product_attention",
    "masked_softmax",
    "query_key_positions",
    "sliding_window_mask",
]


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
        bias: optional additive logit bias of ``q``'s dtype that broadcasts to
            ``[..., n_q, n_k]`` (where relative position biases such as Swin's, T5's and
            ALiBi's enter). A bool tensor is refused: it goes in ``mask``.
        mask: optional boolean mask that broadcasts to ``[..., n_q, n_k]``, ``True`` where
            attention is allowed (the ``F.scaled_dot_product_attention`` convention).

    Returns:
        ``[..., n_q, n_k]``, each row summing to 1 (empty when ``n_q = 0``).

    Raises:
        TypeError: ``q``, ``k`` or ``bias`` not floating-point tensors of one dtype, ``mask``
            not boolean.
        ValueError: shapes that do not fit (``d = 0``, no keys for some queries, a bias or mask
            that does not broadcast to the scores); the message gives the shapes.

    Shapes:
        ``n_q``: query positions, ``n_k``: key positions, ``d``: channels per head.
    """
    n_q, n_k = _check_query_key(q, k)
    batch = broadcast_shape(tuple(q.shape[:-2]), tuple(k.shape[:-2]))
    if batch is None:
        raise ValueError(
            f"q and k must have batch dimensions that broadcast, got shapes {tuple(q.shape)} "
            f"and {tuple(k.shape)}"
        )
    scores = (*batch, n_q, n_k)
    if bias is not None:
        check_bias("bias", bias, scores)
    if mask is not None:
        check_mask("mask", mask, scores)
    check_same_dtype(q=q, k=k, bias=bias)
    check_same_device(q=q, k=k, bias=bias, mask=mask)
    logits = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # [..., n_q, n_k]
    if bias is not None:
        logits = logits + bias
    return masked_softmax(logits, mask)  # [..., n_q, n_k]


def _check_query_key(q: Tensor, k: Tensor) -> tuple[int, int]:
    """Check ``q [..., n_q, d]`` and ``k [..., n_k, d]``; return ``(n_q, n_k)``."""
    check_float_tensor("q", q)
    check_float_tensor("k", k)
    if q.ndim < 2 or k.ndim < 2:
        raise ValueError(
            f"q and k must have at least 2 dimensions [..., n, d], got shapes {tuple(q.shape)} "
            f"and {tuple(k.shape)}"
        )
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"q and k must share their last dimension, got {q.shape[-1]} and {k.shape[-1]}"
        )
    if q.shape[-1] == 0:
        raise ValueError(f"q and k must have at least one channel, got shape {tuple(q.shape)}")
    n_q, n_k = q.shape[-2], k.shape[-2]
    if n_k == 0 and n_q > 0:
        raise ValueError(
            "k must hold at least one key position when there are queries (a softmax over no "
            f"keys is undefined), got q of shape {tuple(q.shape)}, k of shape {tuple(k.shape)}"
        )
    return n_q, n_k


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
    check_float_tensor("logits", logits)
    if mask is not None:
        check_mask("mask", mask, logits.shape, widen=True, against="logits")
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
    _check_query_key(q, k)
    check_float_tensor("v", v)
    if v.ndim < 2:
        raise ValueError(
            f"v must have at least 2 dimensions [..., n_k, d_v], got shape {tuple(v.shape)}"
        )
    if v.shape[-2] != k.shape[-2]:
        raise ValueError(
            f"k and v must have the same number of positions, got {k.shape[-2]} and {v.shape[-2]}"
        )
    check_same_dtype(q=q, k=k, v=v)
    check_same_device(q=q, k=k, v=v)
    batch = broadcast_shape(tuple(q.shape[:-2]), tuple(k.shape[:-2]))
    if batch is not None and broadcast_shape(batch, tuple(v.shape[:-2])) is None:
        raise ValueError(
            f"v's batch dimensions {tuple(v.shape[:-2])} do not broadcast with those of q and k "
            f"{batch} (v is [..., n_k, d_v])"
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
    :class:`book.toy.TinyTransformer`:

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
        returns the attention weights ``[b, h, n, n]``; ``bias`` (a float tensor of ``x``'s
        dtype) and ``mask`` (boolean) must broadcast to ``[b, h, n, n]``, or a ``TypeError`` /
        ``ValueError`` names them; ``rotary`` receives and returns ``[b, h, n, d/h]`` twice.
        ``x`` must be floating point, of the layer's dtype.

    Matches ``torch.nn.MultiheadAttention`` (torch 2.13.0; ``batch_first=True``, packed
    ``in_proj_weight``) up to the weight layout; with ``rotary``, transformers 5.23.0
    ``RoFormerSelfAttention`` and ``LlamaAttention``.
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

    def _load_from_state_dict(
        self, state_dict: Mapping[str, Any], prefix: str, *args: Any, **kwargs: Any
    ) -> None:
        # qkv [3d, d] and out [d, d] follow from dim: a checkpoint of another width is refused
        # with a ValueError naming the entry and both shapes (``rotary`` checks its own tables)
        check_state_dict_tables(self.qkv, state_dict, prefix + "qkv.")
        check_state_dict_tables(self.out, state_dict, prefix + "out.")
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    def forward(
        self,
        x: Tensor,
        *,
        bias: Tensor | None = None,
        mask: Tensor | None = None,
        return_weights: bool = False,
    ) -> Tensor | tuple[Tensor, Tensor]:
        check_float_tensor("x", x, ndim=3)
        return_weights = check_bool("return_weights", return_weights)
        b, n, d = x.shape
        if d != self.dim:
            raise ValueError(f"x must have {self.dim} channels in its last dimension, got {d}")
        if x.dtype != self.qkv.weight.dtype:
            raise TypeError(
                f"x must have the layer's dtype {self.qkv.weight.dtype}, got {x.dtype} (cast x, "
                "or the layer with .to(dtype))"
            )
        shape = (b, self.num_heads, n, n)
        if bias is not None:
            check_bias("bias", bias, shape)
            check_same_dtype(x=x, bias=bias)
        if mask is not None:
            check_mask("mask", mask, shape)
        h = self.num_heads
        qkv = self.qkv(x).reshape(b, n, 3, h, d // h).permute(2, 0, 3, 1, 4)  # [3, b, h, n, d/h]
        q, k, v = qkv.unbind(0)  # [b, h, n, d/h] each
        if self.rotary is not None:
            q, k = self.rotary(q, k)  # [b, h, n, d/h] each, rotated by position
        if bias is not None:  # under torch.autocast, q may come out in a lower precision
            bias = bias.to(q.dtype)
        weights = attention_weights(q, k, bias=bias, mask=mask)  # [b, h, n, n]
        z = (weights @ v).transpose(1, 2).reshape(b, n, d)  # [b, n, d]
        y = self.out(z)  # [b, n, d]
        return (y, weights) if return_weights else y


def query_key_positions(
    n_q: int,
    n_k: int,
    *,
    query_offset: int | None = None,
    device: torch.device | str | None = None,
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
        device: where to build the positions (default: torch's default device).

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
    q_pos = torch.arange(query_offset, query_offset + n_q, device=device)  # [n_q]
    return q_pos, torch.arange(n_k, device=device)  # [n_q], [n_k]


def causal_mask(
    n_q: int,
    n_k: int,
    *,
    query_offset: int | None = None,
    device: torch.device | str | None = None,
) -> Tensor:
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
        device: where to build the mask (default: torch's default device).

    Returns:
        BoolTensor ``[n_q, n_k]``.

    Shapes:
        ``n_q``/``n_k``: query/key positions.

    Example:
        >>> causal_mask(2, 4).int().tolist()  # two new queries after two cached keys
        [[1, 1, 1, 0], [1, 1, 1, 1]]
    """
    q_pos, k_pos = query_key_positions(n_q, n_k, query_offset=query_offset, device=device)
    return k_pos[None, :] <= q_pos[:, None]  # [n_q, n_k]


def sliding_window_mask(
    n_q: int,
    n_k: int,
    window: int,
    *,
    sinks: int = 0,
    query_offset: int | None = None,
    device: torch.device | str | None = None,
) -> Tensor:
    """Return which keys each query may attend to under causal sliding-window attention.

    .. math::

        M_{ij} = [\\, p_i - w < p_j \\le p_i \\,] \\;\\lor\\; [\\, p_j < s \\text{ and }
        p_j \\le p_i \\,]

    Each query sees its last ``w`` positions, itself included (Mistral's and Gemma's local
    layers), and the first ``s`` positions of the sequence, the *attention sinks* that
    StreamingLLM keeps in its cache. ``True`` where attention is allowed, with the positions
    of :func:`query_key_positions`, as in :func:`causal_mask`.

    Args:
        n_q: number of queries.
        n_k: number of keys.
        window: ``w >= 1``, the number of most recent positions a query sees.
        sinks: ``s >= 0``, the number of first positions every later query also sees.
        query_offset: position of the first query (default ``n_k − n_q``).
        device: where to build the mask (default: torch's default device).

    Returns:
        BoolTensor ``[n_q, n_k]``.

    Shapes:
        ``n_q``/``n_k``: query/key positions.

    Matches: transformers 5.23.0 ``masking_utils.sliding_window_causal_mask_function``
    (``kv_idx > q_idx - sliding_window`` and ``kv_idx <= q_idx``) with ``sinks=0``; the sinks
    as in StreamingLLM (Xiao et al., 2024; ``mit-han-lab/streaming-llm``, ``StartRecentKVCache``).

    Example:
        >>> sliding_window_mask(5, 5, 2, sinks=1).int().tolist()
        [[1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [1, 1, 1, 0, 0], [1, 0, 1, 1, 0], [1, 0, 0, 1, 1]]
    """
    window = check_int("window", window)
    sinks = check_int("sinks", sinks, minimum=0)
    q_pos, k_pos = query_key_positions(n_q, n_k, query_offset=query_offset, device=device)
    seen = k_pos[None, :] <= q_pos[:, None]  # [n_q, n_k]: causal
    recent = k_pos[None, :] > q_pos[:, None] - window  # [n_q, n_k]
    first = (k_pos < sinks)[None, :]  # [1, n_k]
    return seen & (recent | first)  # [n_q, n_k]
