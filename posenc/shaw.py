"""Relative position representations of Shaw, Uszkoreit and Vaswani (2018).

Attention logits and values get a learned vector that depends only on the clipped distance
``j − i`` between key and query:

.. math::

    z_i = \\sum_j \\operatorname{softmax}_j\\!\\Big(\\frac{q_i\\cdot(k_j + a^K_{ij})}{\\sqrt d}\\Big)
          \\,(v_j + a^V_{ij}),
    \\qquad a_{ij} = w_{\\operatorname{clip}(j-i,\\,-k,\\,k)}

Written out naively, ``a_ij`` is an ``n_q × n_k × d`` tensor. :func:`shaw_attention` never
builds it: the key term is a lookup in ``q · w^Kᵀ`` (``n_q × (2k+1)`` numbers) and the value
term collects each row's attention weights into ``2k+1`` buckets before multiplying by
``w^V``. On the CPU it works through cache-sized blocks of query rows; on a GPU (and any other
device) through whole rows with a few large kernels (``strategy=`` forces either).
The plain version, which builds it, is the book's ``book.demos.shaw.shaw_attention_reference``
(for teaching and tests).
"""

from __future__ import annotations

import math
from typing import Literal, NamedTuple

import torch
from torch import Tensor, nn

from ._checks import (
    broadcast_shape,
    check_bool,
    check_float_tensor,
    check_heads,
    check_int,
    check_mask,
    check_same_dtype,
    check_state_dict_tables,
    check_tensor,
)
from .attention import masked_softmax

__all__ = ["ShawRelativeMultiheadAttention", "shaw_attention", "shaw_relative_index"]

Strategy = Literal["auto", "blocked", "whole"]
_STRATEGIES = ("auto", "blocked", "whole")


def shaw_relative_index(
    n_q: int,
    n_k: int,
    max_relative_position: int,
    *,
    device: torch.device | str | None = None,
) -> Tensor:
    """Return the index of each query-key pair into a ``2k+1`` relative table.

    .. math::

        I_{ij} = \\operatorname{clip}(j - i, -k, k) + k \\in \\{0, \\dots, 2k\\}

    Key minus query, as in Shaw et al. and tensor2tensor (Swin uses query minus key).
    Query and key positions both start at 0.

    Args:
        n_q: number of query positions.
        n_k: number of key positions.
        max_relative_position: ``k``, the clipping distance (``k >= 0``; ``k = 0`` means no position
            information at all).
        device: where to build the index (default: the CPU).

    Returns:
        LongTensor ``[n_q, n_k]``.

    Shapes:
        ``n_q``/``n_k``: query/key positions.

    Matches: tensor2tensor 1.15.7 `tensor2tensor/layers/common_attention.py`
    ``_generate_relative_positions_matrix`` (+ ``k``) when ``n_q == n_k``; for ``n_q < n_k``
    tensor2tensor puts the queries at the last keys, while here both axes count from 0.
    """
    n_q = check_int("n_q", n_q)
    n_k = check_int("n_k", n_k)
    k = check_int("max_relative_position", max_relative_position, minimum=0)
    i = torch.arange(n_q, device=device)[:, None]  # [n_q, 1]
    j = torch.arange(n_k, device=device)[None, :]  # [1, n_k]
    return (j - i).clamp(-k, k) + k  # [n_q, n_k]


def _check_shaw_inputs(
    q: Tensor, k: Tensor, v: Tensor, rel_k: Tensor, rel_v: Tensor, mask: Tensor | None
) -> tuple[int, tuple[int, ...]]:
    """Check the inputs of Shaw attention: types, dtypes, devices and shapes.

    ``q [..., n_q, d]``, ``k [..., n_k, d]``, ``v [..., n_k, d_v]``, the tables
    ``rel_k [2k+1, d]`` and ``rel_v [2k+1, d_v]`` and an optional boolean ``mask`` that
    broadcasts to ``[..., n_q, n_k]``. Returns the clipping distance (read from the table
    length) and the broadcast batch shape of ``q``, ``k``, ``v`` and ``mask``.

    :func:`shaw_attention` calls it, and so does the book's written-out reference
    (``book.demos.shaw.shaw_attention_reference``), which must refuse exactly what this
    function refuses, with the same messages.
    """
    for name, t in (("q", q), ("k", k), ("v", v)):
        check_float_tensor(name, t)
        if t.ndim < 2:
            raise ValueError(
                f"{name} must have at least 2 dimensions [..., n, d], got {tuple(t.shape)}"
            )
    check_float_tensor("rel_k", rel_k, ndim=2)
    check_float_tensor("rel_v", rel_v, ndim=2)
    check_same_dtype(q=q, k=k, v=v, rel_k=rel_k, rel_v=rel_v)
    devices = {t.device for t in (q, k, v, rel_k, rel_v)}
    if mask is not None:
        check_tensor("mask", mask)
        devices.add(mask.device)
    if len(devices) > 1:
        each = ", ".join(
            f"{name} {t.device}"
            for name, t in (("q", q), ("k", k), ("v", v), ("rel_k", rel_k), ("rel_v", rel_v))
        )
        extra = f", mask {mask.device}" if mask is not None else ""
        raise ValueError(f"q, k, v, rel_k, rel_v and mask must be on one device, got {each}{extra}")
    if q.shape[-1] == 0:
        raise ValueError(f"q must have at least one channel, got shape {tuple(q.shape)}")
    if k.shape[-2] == 0:
        raise ValueError(f"k must have at least one key position, got shape {tuple(k.shape)}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"q and k must share their last dimension, got {q.shape[-1]} and {k.shape[-1]}"
        )
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(
            f"k and v must have the same number of positions, got {k.shape[-2]} and {v.shape[-2]}"
        )
    length = rel_k.shape[0]
    if length % 2 == 0:
        raise ValueError(
            f"rel_k must have an odd number of rows 2k+1 (distances -k..k), got {length}"
        )
    if rel_v.shape[0] != length:
        raise ValueError(f"rel_v must have as many rows as rel_k ({length}), got {rel_v.shape[0]}")
    if rel_k.shape[1] != q.shape[-1]:
        raise ValueError(f"rel_k must have q's {q.shape[-1]} channels, got {rel_k.shape[1]}")
    if rel_v.shape[1] != v.shape[-1]:
        raise ValueError(f"rel_v must have v's {v.shape[-1]} channels, got {rel_v.shape[1]}")
    n_q, n_k = q.shape[-2], k.shape[-2]
    mask_batch = tuple(mask.shape[:-2]) if mask is not None and mask.ndim > 2 else ()
    shapes = [tuple(t.shape[:-2]) for t in (q, k, v)] + [mask_batch]
    batch = broadcast_shape(*shapes)
    if batch is None:
        raise ValueError(f"the batch dimensions of q, k, v and mask must broadcast, got {shapes}")
    if mask is not None:
        check_mask("mask", mask, (*batch, n_q, n_k))
    return (length - 1) // 2, batch


def shaw_attention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    rel_k: Tensor,
    rel_v: Tensor,
    *,
    mask: Tensor | None = None,
    strategy: Strategy = "auto",
) -> Tensor:
    """Attention with Shaw et al.'s relative position representations, in O(n²) memory.

    .. math::

        e_{ij} = \\frac{q_i \\cdot k_j + q_i \\cdot w^K_{I_{ij}}}{\\sqrt d}, \\qquad
        z_i = \\sum_j \\alpha_{ij} v_j + \\sum_{r=0}^{2k} \\Big(\\sum_{j:\\,I_{ij}=r}
        \\alpha_{ij}\\Big) w^V_r

    with :math:`I` from :func:`shaw_relative_index` and :math:`\\alpha = \\operatorname{softmax}(e)`.
    The first term of :math:`e` is ordinary attention; the second looks up
    :math:`q_i \\cdot w^K_r` in an ``n_q × (2k+1)`` matrix. The value term sums each row's
    weights per bucket (a running sum for the two clipped ends, one diagonal per inner
    distance) and multiplies by ``w^V``. No ``n_q × n_k × d`` tensor is formed. Two ways to
    run it, the same numbers up to rounding:

    * ``"blocked"`` (the CPU's choice): queries in blocks of rows, so that the ``n_q × n_k``
      intermediates stay cache-sized; the lookup is a strided view of a padded buffer (row
      stride one less than the row length, the "skew" of Huang et al. 2019);
      ``benchmarks/shaw_attention.py`` times it.
    * ``"whole"`` (every other device, e.g. CUDA): all rows at once in a few large kernels,
      since there a block loop's many small kernels cost more than the arithmetic. The key
      term is written straight into the logits' buffer (a ``where`` for the two clipped
      regions, a scatter of ``2k - 1`` diagonals), and its gradient is the bucket sums of
      the logits' gradient (the two maps are adjoint), so no padded buffer is kept; memory
      is that of plain attention. ``benchmarks/gpu_check.py`` times it.

    Args:
        q: queries ``[..., n_q, d]``.
        k: keys ``[..., n_k, d]``.
        v: values ``[..., n_k, d_v]``.
        rel_k: ``w^K``, ``[2k+1, d]``; row ``r`` is distance ``r − k`` (``k`` is read from
            the length, which must be odd).
        rel_v: ``w^V``, ``[2k+1, d_v]``.
        mask: optional boolean mask broadcastable to ``[..., n_q, n_k]``, ``True`` where
            attention is allowed (``F.scaled_dot_product_attention``'s convention).
        strategy: ``"auto"`` (blocked on the CPU, whole rows elsewhere), ``"blocked"`` or
            ``"whole"``.

    Returns:
        ``[..., n_q, d_v]``.

    Shapes:
        ``n_q``/``n_k``: query/key positions, ``d``: channels per head, ``k``: clipping distance.

    Matches: Shaw et al. (2018), eq. (3)-(4); tensor2tensor 1.15.7
    `tensor2tensor/layers/common_attention.py` ``dot_product_attention_relative`` /
    ``_relative_attention_inner``.
    """
    if not isinstance(strategy, str):
        raise TypeError(f"strategy must be one of {_STRATEGIES}, got {type(strategy).__name__}")
    if strategy not in _STRATEGIES:
        raise ValueError(f"strategy must be one of {_STRATEGIES}, got {strategy!r}")
    max_k, batch = _check_shaw_inputs(q, k, v, rel_k, rel_v, mask)
    n_q, n_k, d, d_v = q.shape[-2], k.shape[-2], q.shape[-1], v.shape[-1]
    b = math.prod(batch)
    q = q.expand(*batch, n_q, d).reshape(b, n_q, d)  # [B, n_q, d]
    k = k.expand(*batch, n_k, d).reshape(b, n_k, d)  # [B, n_k, d]
    v = v.expand(*batch, n_k, d_v).reshape(b, n_k, d_v)  # [B, n_k, d_v]
    if strategy == "auto":
        strategy = "blocked" if q.device.type == "cpu" else "whole"
    if strategy == "whole" or n_q == 0:
        return _shaw_whole(q, k, v, rel_k, rel_v, mask, max_k, batch).reshape(*batch, n_q, d_v)

    # Rows are independent: work through blocks of queries so that each block's buffers stay
    # small (cache-sized) and the skew buffer is only as wide as n_k plus the block.
    block = max(1, _BLOCK_ELEMENTS // n_k)
    outs = [
        _shaw_block(
            q[:, i0 : i0 + block], k, v, rel_k, rel_v, _mask_rows(mask, n_q, i0, block), i0, batch
        )
        for i0 in range(0, n_q, block)
    ]
    return torch.cat(outs, dim=1).reshape(*batch, n_q, d_v)


def _shaw_whole(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    rel_k: Tensor,
    rel_v: Tensor,
    mask: Tensor | None,
    max_k: int,
    batch: tuple[int, ...],
) -> Tensor:
    """Shaw attention for all query rows at once: ``q`` ``[B, n_q, d]`` → ``[B, n_q, d_v]``.

    Kernels: one small product ``q w^Kᵀ``, the key term written into a fresh ``[B, n_q, n_k]``
    buffer, one ``baddbmm_`` adding ``q kᵀ`` into it in place, the softmax, the bucket sums
    (two row sums and a gather) and one ``baddbmm`` for the values, plus a few kernels on
    ``[n_q, 2k−1]`` indices built once and shared by the forward and backward passes. At most
    two ``[B, n_q, n_k]`` tensors are alive at a time, as in plain attention.
    """
    n_q, n_k, d = q.shape[1], k.shape[1], q.shape[2]
    scale = 1.0 / math.sqrt(d)
    band = _band(n_q, n_k, max_k, q.device)
    per_distance = q @ rel_k.transpose(0, 1)  # [B, n_q, 2k+1]
    logits = _RelativeLookup.apply(per_distance, band)  # [B, n_q, n_k]: q_i·w^K_{I_ij}
    logits = logits.baddbmm_(q, k.transpose(1, 2), beta=scale, alpha=scale)  # [B, n_q, n_k]
    weights = masked_softmax(logits.reshape(*batch, n_q, n_k), mask).reshape(q.shape[0], n_q, n_k)
    del logits  # the softmax keeps only its output: free the logits before the bucket sums
    buckets = _BucketSums.apply(weights, band)  # [B, n_q, 2k+1]
    return torch.baddbmm(buckets @ rel_v, weights, v)  # [B, n_q, d_v]


class _Band(NamedTuple):
    """Positions shared by the relative lookup and the bucket sums (all on one device)."""

    rows: Tensor  # [n_q, 1]: query i
    cols: Tensor  # [1, n_k]: key j
    keys: Tensor  # [n_q, 2k-1]: the key j = i + r − k of inner bucket r, clamped to 0..n_k−1
    index: Tensor  # [n_q, 2k-1]: the table row I_ij at those (clamped) keys
    inside: Tensor  # [n_q, 2k-1]: whether i + r − k is a key at all
    max_k: int


def _band(n_q: int, n_k: int, max_k: int, device: torch.device) -> _Band:
    rows = torch.arange(n_q, device=device)[:, None]  # [n_q, 1]
    cols = torch.arange(n_k, device=device)[None, :]  # [1, n_k]
    keys = rows + torch.arange(1 - max_k, max(max_k, 1 - max_k), device=device)  # [n_q, 2k-1]
    inside = (keys >= 0) & (keys < n_k)  # [n_q, 2k-1]
    keys = keys.clamp(0, n_k - 1)
    index = (keys - rows).clamp(-max_k, max_k) + max_k  # [n_q, 2k-1]
    return _Band(rows, cols, keys, index, inside, max_k)


def _relative_lookup(per_distance: Tensor, band: _Band) -> Tensor:
    """Spread ``R = q w^Kᵀ`` ``[B, n_q, 2k+1]`` over the keys: ``out[b, i, j] = R[b, i, I_ij]``.

    A ``where`` fills the two clipped regions (``R[:, :, 0]`` left of the diagonal, ``R[:, :, 2k]``
    right of it), then one scatter writes the ``2k − 1`` inner diagonals. Keys outside
    ``0 … n_k − 1`` are clamped onto the edge column and given that column's own value, so
    repeated writes agree and the result does not depend on their order.
    """
    b = per_distance.shape[0]
    out = torch.where(
        band.cols < band.rows, per_distance[..., :1], per_distance[..., -1:]
    )  # [B, n_q, n_k]
    if band.max_k > 0:
        values = per_distance.gather(-1, band.index.expand(b, -1, -1))  # [B, n_q, 2k-1]
        out.scatter_(-1, band.keys.expand(b, -1, -1), values)
    return out


def _bucket_sums_whole(weights: Tensor, band: _Band) -> Tensor:
    """The bucket sums of :func:`_bucket_sums` (``[B, n_q, n_k]`` → ``[B, n_q, 2k+1]``) without
    a running sum, accumulated in float32 (float64 for float64 weights).

    A GPU's ``cumsum`` of bfloat16/float16 accumulates in that format, which loses the small
    weights of a long row. Here the inner buckets are ``2k − 1`` diagonals (a gather), bucket
    ``2k`` (keys ``j >= i + k``) one masked row sum, and bucket 0 the row total minus the rest,
    all sums taken in the wider format. Temporaries: one ``[B, n_q, n_k]`` in the weights' dtype.
    """
    b, max_k = weights.shape[0], band.max_k
    wide = torch.float64 if weights.dtype == torch.float64 else torch.float32
    total = weights.sum(-1, keepdim=True, dtype=wide)  # [B, n_q, 1]
    if max_k == 0:
        return total.to(weights.dtype)  # [B, n_q, 1]
    middle = weights.gather(-1, band.keys.expand(b, -1, -1)) * band.inside  # [B, n_q, 2k-1]
    upper = band.cols >= band.rows + max_k  # [n_q, n_k]: keys j >= i + k
    tail = torch.where(upper, weights, 0).sum(-1, keepdim=True, dtype=wide)  # [B, n_q, 1]
    head = total - middle.sum(-1, keepdim=True, dtype=wide) - tail  # [B, n_q, 1]: j <= i - k
    return torch.cat((head.to(weights.dtype), middle, tail.to(weights.dtype)), dim=-1)


class _RelativeLookup(torch.autograd.Function):
    """:func:`_relative_lookup` with its adjoint, the bucket sums, as the backward."""

    @staticmethod
    def forward(ctx, per_distance: Tensor, band: _Band) -> Tensor:  # type: ignore[override]
        ctx.band = band
        return _relative_lookup(per_distance, band)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple[Tensor, None]:  # type: ignore[override]
        return _BucketSums.apply(grad, ctx.band), None


class _BucketSums(torch.autograd.Function):
    """:func:`_bucket_sums_whole` with its adjoint, the relative lookup, as the backward."""

    @staticmethod
    def forward(ctx, weights: Tensor, band: _Band) -> Tensor:  # type: ignore[override]
        ctx.band = band
        return _bucket_sums_whole(weights, band)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple[Tensor, None]:  # type: ignore[override]
        return _RelativeLookup.apply(grad, ctx.band), None


_BLOCK_ELEMENTS = (
    2**18
)  # logits per block of queries (1 MiB in float32): fastest of 2^15..2^20 measured


def _mask_rows(mask: Tensor | None, n_q: int, start: int, size: int) -> Tensor | None:
    """The rows ``start:start+size`` of a mask broadcastable to ``[..., n_q, n_k]``."""
    if mask is None or mask.ndim < 2 or mask.shape[-2] == 1:
        return mask
    return mask[..., start : start + size, :]


def _shaw_block(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    rel_k: Tensor,
    rel_v: Tensor,
    mask: Tensor | None,
    first_row: int,
    batch: torch.Size,
) -> Tensor:
    """Shaw attention for the queries at positions ``first_row … first_row + c − 1``.

    ``q`` is ``[B, c, d]``; ``k``, ``v`` are ``[B, n_k, ·]``. Returns ``[B, c, d_v]``.
    """
    c, n_k, d = q.shape[1], k.shape[1], q.shape[2]
    max_k = (rel_k.shape[0] - 1) // 2

    # Key term. Row i of `wide` lists q_i·w^K for every offset t = j − i that this block can
    # meet, from t_lo = −(last row) to t_hi = (n_k − 1) − (first row), padded to cover −k..k;
    # shifting row i by −i (a strided view, row stride W − 1) aligns it with the keys j.
    per_distance = q @ rel_k.transpose(0, 1)  # [B, c, 2k+1]
    left = max(0, first_row + c - 1 - max_k)  # offsets below −k: the w^K_{−k} column repeated
    right = max(0, n_k - 1 - first_row - max_k)  # offsets above k: the w^K_k column repeated
    wide = torch.cat(
        (
            per_distance[..., :1].expand(-1, -1, left),
            per_distance,
            per_distance[..., -1:].expand(-1, -1, right),
        ),
        dim=-1,
    )  # [B, c, W], W = left + 2k + 1 + right
    t_lo = -max_k - left
    b, _, width = wide.shape
    position = wide.as_strided(
        # ``wide`` is a fresh ``cat``: its storage starts at offset 0 (a constant keeps
        # torch.compile's graph whole)
        (b, c, n_k),
        (c * width, width - 1, 1),
        -first_row - t_lo,
    )  # [B, c, n_k]: q_i·w^K_{clip(j−i)+k}
    scale = 1.0 / math.sqrt(d)
    logits = torch.baddbmm(position, q, k.transpose(1, 2), beta=scale, alpha=scale)  # [B, c, n_k]
    weights = masked_softmax(logits.reshape(*batch, c, n_k), mask).reshape(-1, c, n_k)

    # Value term: each row's weights summed per bucket, then one small matrix product.
    buckets = _bucket_sums(weights, max_k, first_row)  # [B, c, 2k+1]
    return torch.baddbmm(buckets @ rel_v, weights, v)  # [B, c, d_v]


def _bucket_sums(weights: Tensor, max_k: int, first_row: int = 0) -> Tensor:
    """Sum each row of ``weights`` over the keys of each clipped distance: ``[B, n_q, 2k+1]``.

    Bucket 0 holds keys ``j <= i − k`` (a prefix of the row: read off a running sum), bucket
    ``2k`` keys ``j >= i + k`` (the row total minus a prefix), and bucket ``r`` in between the
    single key ``j = i + r − k`` (one diagonal). Only the running sum touches all ``n_q·n_k``
    weights; everything else reads ``n_q·(2k+1)`` of them.
    """
    b, n_q, n_k = weights.shape
    if max_k == 0:
        return weights.sum(-1, keepdim=True)  # [B, n_q, 1]
    rows = torch.arange(first_row, first_row + n_q, device=weights.device)[:, None]  # [n_q, 1]

    def take(source: Tensor, cols: Tensor) -> Tensor:
        inside = (cols >= 0) & (cols < n_k)  # [n_q, m]
        picked = source.gather(-1, cols.clamp(0, n_k - 1).expand(b, -1, -1))  # [B, n_q, m]
        return picked * inside

    running = weights.cumsum(-1)  # [B, n_q, n_k]
    first = rows - max_k  # [n_q, 1]: last key of bucket 0 (beyond the row: the whole row)
    head = running.gather(-1, first.clamp(0, n_k - 1).expand(b, -1, -1)) * (
        first >= 0
    )  # [B, n_q, 1]
    middle = take(
        weights, rows + torch.arange(1 - max_k, max_k, device=weights.device)
    )  # [B, n_q, 2k-1]
    last = (rows + max_k - 1).clamp(max=n_k - 1)  # [n_q, 1]: last key before bucket 2k
    tail = running[..., -1:] - running.gather(
        -1, last.expand(b, -1, -1)
    )  # [B, n_q, 1]: Σ_{j >= i+k}
    return torch.cat((head, middle, tail), dim=-1)  # [B, n_q, 2k+1]


class ShawRelativeMultiheadAttention(nn.Module):
    """Multi-head self- or cross-attention with Shaw et al.'s relative positions.

    Queries, keys and values are linear projections split into ``h`` heads; all heads share
    the two tables ``rel_k`` and ``rel_v`` (``[2k+1, d/h]`` each), as in the paper's big model
    (its base model, behind the ablations, learned a pair for every layer and head).

    Args:
        dim: ``d``, the model width.
        num_heads: ``h`` (must divide ``dim``).
        max_relative_position: ``k``, the clipping distance.
        qkv_bias: whether the projections have biases (``WindowAttention``'s name).

    .. math::

        \\operatorname{out}(x) = W_O\\,\\big[\\operatorname{shaw}(W_Q^{(h)} x, W_K^{(h)} c,
        W_V^{(h)} c, w^K, w^V)\\big]_{h}

    Loading a state dict whose ``rel_k`` / ``rel_v`` (or projection) has another size raises a
    ``ValueError`` naming the table and both sizes.

    Shapes:
        ``x``: ``[b, n_q, d]``, optional ``context``: ``[b, n_k, d]`` (default ``x``),
        optional ``mask`` broadcastable to ``[b, h, n_q, n_k]`` → ``[b, n_q, d]``.

    Matches: Shaw et al. (2018) §3 (tables shared across heads, as in tensor2tensor 1.15.7
    ``_generate_relative_positions_embeddings``; their Table 2 shows BLEU barely changing for ``k >=
    2``).
    """

    def __init__(
        self, dim: int, num_heads: int, max_relative_position: int, *, qkv_bias: bool = True
    ) -> None:
        super().__init__()
        self.dim = check_int("dim", dim)
        self.num_heads = check_int("num_heads", num_heads)
        head_dim = check_heads(self.dim, self.num_heads)
        self.max_relative_position = check_int(
            "max_relative_position", max_relative_position, minimum=0
        )
        qkv_bias = check_bool("qkv_bias", qkv_bias)
        self.q_proj = nn.Linear(dim, dim, bias=qkv_bias)
        self.k_proj = nn.Linear(dim, dim, bias=qkv_bias)
        self.v_proj = nn.Linear(dim, dim, bias=qkv_bias)
        self.out_proj = nn.Linear(dim, dim, bias=qkv_bias)
        self.rel_k = nn.Parameter(torch.empty(2 * self.max_relative_position + 1, head_dim))
        self.rel_v = nn.Parameter(torch.empty(2 * self.max_relative_position + 1, head_dim))
        nn.init.trunc_normal_(self.rel_k, std=0.02)
        nn.init.trunc_normal_(self.rel_v, std=0.02)

    def extra_repr(self) -> str:
        return (
            f"dim={self.dim}, num_heads={self.num_heads}, "
            f"max_relative_position={self.max_relative_position}"
        )

    def _heads(self, t: Tensor) -> Tensor:
        b, n, _ = t.shape
        heads, width = self.num_heads, self.dim // self.num_heads
        return t.reshape(b, n, heads, width).transpose(1, 2)  # [b, h, n, d/h]

    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):  # type: ignore[no-untyped-def]
        check_state_dict_tables(self, state_dict, prefix)
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    def forward(
        self, x: Tensor, context: Tensor | None = None, *, mask: Tensor | None = None
    ) -> Tensor:
        check_float_tensor("x", x, ndim=3)
        context = x if context is None else check_float_tensor("context", context, ndim=3)
        check_same_dtype(x=x, context=context, rel_k=self.rel_k)
        for name, t in (("x", x), ("context", context)):
            if t.shape[-1] != self.dim:
                raise ValueError(
                    f"{name} must have {self.dim} channels in its last dimension, got {t.shape[-1]}"
                )
        if context.shape[0] != x.shape[0]:
            raise ValueError(
                f"context must have x's batch size {x.shape[0]}, got shape {tuple(context.shape)}"
            )
        if mask is not None:
            shape = (x.shape[0], self.num_heads, x.shape[1], context.shape[1])
            check_mask("mask", mask, shape)  # [b, h, n_q, n_k] at most
        if x.shape[1] == 0:  # no queries: an empty result, as plain attention gives
            return self.out_proj(x)  # [b, 0, d]
        q = self._heads(self.q_proj(x))  # [b, h, n_q, d/h]
        k = self._heads(self.k_proj(context))  # [b, h, n_k, d/h]
        v = self._heads(self.v_proj(context))  # [b, h, n_k, d/h]
        # under torch.autocast the projections may come out in a lower precision: follow them
        rel_k, rel_v = self.rel_k.to(q.dtype), self.rel_v.to(q.dtype)  # [2k+1, d/h] each
        z = shaw_attention(q, k, v, rel_k, rel_v, mask=mask)  # [b, h, n_q, d/h]
        b, _, n_q, _ = z.shape
        return self.out_proj(z.transpose(1, 2).reshape(b, n_q, self.dim))  # [b, n_q, d]
