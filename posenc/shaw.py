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
``w^V``. :func:`shaw_attention_reference` is the plain version, kept for teaching and tests.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Sequence

import torch
from torch import Tensor, nn

from ._checks import broadcast_shape, check_heads, check_int, check_tensor
from ._threads import torch_threads
from .attention import masked_softmax


def shaw_relative_index(n_q: int, n_k: int, max_relative_position: int) -> Tensor:
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

    Returns:
        LongTensor ``[n_q, n_k]``.

    Matches: tensor2tensor ``_generate_relative_positions_matrix`` (+ ``k``).
    """
    n_q = check_int("n_q", n_q)
    n_k = check_int("n_k", n_k)
    k = check_int("max_relative_position", max_relative_position, minimum=0)
    i = torch.arange(n_q)[:, None]  # [n_q, 1]
    j = torch.arange(n_k)[None, :]  # [1, n_k]
    return (j - i).clamp(-k, k) + k  # [n_q, n_k]


def _check_shaw_inputs(q: Tensor, k: Tensor, v: Tensor, rel_k: Tensor, rel_v: Tensor) -> int:
    """Validate shapes; return the clipping distance read from the table length."""
    for name, t in (("q", q), ("k", k), ("v", v)):
        check_tensor(name, t)
        if t.ndim < 2:
            raise ValueError(
                f"{name} must have at least 2 dimensions [..., n, d], got {tuple(t.shape)}"
            )
    check_tensor("rel_k", rel_k, ndim=2)
    check_tensor("rel_v", rel_v, ndim=2)
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
    return (length - 1) // 2


def shaw_attention_reference(
    q: Tensor, k: Tensor, v: Tensor, rel_k: Tensor, rel_v: Tensor, *, mask: Tensor | None = None
) -> Tensor:
    """Shaw attention written the obvious way, with the full ``n_q × n_k × d`` tensors.

    Same formula, arguments and result as :func:`shaw_attention`; memory grows as
    ``n_q · n_k · d``. Use it to read the formula, not in a model.
    """
    max_k = _check_shaw_inputs(q, k, v, rel_k, rel_v)
    n_q, n_k, d = q.shape[-2], k.shape[-2], q.shape[-1]
    idx = shaw_relative_index(n_q, n_k, max_k).to(q.device)  # [n_q, n_k]
    a_k = rel_k[idx]  # [n_q, n_k, d]
    a_v = rel_v[idx]  # [n_q, n_k, d_v]
    keys = k[..., None, :, :] + a_k  # [..., n_q, n_k, d]: k_j + a^K_ij
    values = v[..., None, :, :] + a_v  # [..., n_q, n_k, d_v]: v_j + a^V_ij
    logits = (q[..., :, None, :] * keys).sum(-1) / math.sqrt(d)  # [..., n_q, n_k]
    weights = masked_softmax(logits, mask)  # [..., n_q, n_k]
    return (weights[..., None] * values).sum(-2)  # [..., n_q, d_v]


def shaw_attention(
    q: Tensor, k: Tensor, v: Tensor, rel_k: Tensor, rel_v: Tensor, *, mask: Tensor | None = None
) -> Tensor:
    """Attention with Shaw et al.'s relative position representations, in O(n²) memory.

    .. math::

        e_{ij} = \\frac{q_i \\cdot k_j + q_i \\cdot w^K_{I_{ij}}}{\\sqrt d}, \\qquad
        z_i = \\sum_j \\alpha_{ij} v_j + \\sum_{r=0}^{2k} \\Big(\\sum_{j:\\,I_{ij}=r}
        \\alpha_{ij}\\Big) w^V_r

    with :math:`I` from :func:`shaw_relative_index` and :math:`\\alpha = \\operatorname{softmax}(e)`.
    The first term of :math:`e` is ordinary attention; the second looks up
    :math:`q_i \\cdot w^K_r` in an ``n_q × (2k+1)`` matrix, laid out so that a strided view
    (row stride one less than the row length, the "skew" of Huang et al. 2019) puts entry
    ``I_ij`` under key ``j``. The value term sums each row's weights per bucket (a running sum
    for the two clipped ends, one diagonal per inner distance) and multiplies by ``w^V``. No
    ``n_q × n_k × d`` tensor is formed, and queries are processed in blocks of rows so that the
    ``n_q × n_k`` intermediates stay cache-sized (``benchmarks/shaw_attention.py``).

    Args:
        q: queries ``[..., n_q, d]``.
        k: keys ``[..., n_k, d]``.
        v: values ``[..., n_k, d_v]``.
        rel_k: ``w^K``, ``[2k+1, d]``; row ``r`` is distance ``r − k`` (``k`` is read from
            the length, which must be odd).
        rel_v: ``w^V``, ``[2k+1, d_v]``.
        mask: optional boolean mask broadcastable to ``[..., n_q, n_k]``, ``True`` where
            attention is allowed (``F.scaled_dot_product_attention``'s convention).

    Returns:
        ``[..., n_q, d_v]``.

    Shapes:
        ``n_q``/``n_k``: query/key positions, ``d``: channels per head, ``k``: clipping distance.

    Matches: Shaw et al. (2018), eq. (3)-(4); tensor2tensor ``dot_product_attention_relative``
    (which computes the same terms with matrix products per position).
    """
    _check_shaw_inputs(q, k, v, rel_k, rel_v)
    if mask is not None:
        check_tensor("mask", mask)
    n_q, n_k, d = q.shape[-2], k.shape[-2], q.shape[-1]
    mask_batch = mask.shape[:-2] if mask is not None and mask.ndim > 2 else ()
    shapes = [tuple(t) for t in (q.shape[:-2], k.shape[:-2], v.shape[:-2], mask_batch)]
    batch = broadcast_shape(*shapes)
    if batch is None:
        raise ValueError(f"the batch dimensions of q, k, v and mask must broadcast, got {shapes}")
    q = q.expand(*batch, n_q, d).reshape(-1, n_q, d)  # [B, n_q, d]
    k = k.expand(*batch, n_k, d).reshape(-1, n_k, d)  # [B, n_k, d]
    v = v.expand(*batch, n_k, v.shape[-1]).reshape(-1, n_k, v.shape[-1])  # [B, n_k, d_v]

    # Rows are independent: work through blocks of queries so that each block's buffers stay
    # small (cache-sized) and the skew buffer is only as wide as n_k plus the block.
    block = max(1, _BLOCK_ELEMENTS // n_k)
    outs = [
        _shaw_block(
            q[:, i0 : i0 + block], k, v, rel_k, rel_v, _mask_rows(mask, n_q, i0, block), i0, batch
        )
        for i0 in range(0, n_q, block)
    ]
    return torch.cat(outs, dim=1).reshape(*batch, n_q, v.shape[-1])


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
        (b, c, n_k), (c * width, width - 1, 1), wide.storage_offset() - first_row - t_lo
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
    the two tables ``rel_k`` and ``rel_v`` (``[2k+1, d/h]`` each), as in the paper.

    Args:
        dim: ``d``, the model width.
        num_heads: ``h`` (must divide ``dim``).
        max_relative_position: ``k``, the clipping distance.
        bias: whether the projections have biases.

    Shapes:
        ``x``: ``[b, n_q, d]``, optional ``context``: ``[b, n_k, d]`` (default ``x``),
        optional ``mask`` broadcastable to ``[b, h, n_q, n_k]`` → ``[b, n_q, d]``.

    Matches: Shaw et al. (2018) §3 (tables shared across heads; their Table 2 shows BLEU
    barely changing for ``k >= 2``).
    """

    def __init__(
        self, dim: int, num_heads: int, max_relative_position: int, *, bias: bool = True
    ) -> None:
        super().__init__()
        self.dim = check_int("dim", dim)
        self.num_heads = check_int("num_heads", num_heads)
        head_dim = check_heads(self.dim, self.num_heads)
        self.max_relative_position = check_int(
            "max_relative_position", max_relative_position, minimum=0
        )
        self.q_proj = nn.Linear(dim, dim, bias=bias)
        self.k_proj = nn.Linear(dim, dim, bias=bias)
        self.v_proj = nn.Linear(dim, dim, bias=bias)
        self.out_proj = nn.Linear(dim, dim, bias=bias)
        self.rel_k = nn.Parameter(torch.empty(2 * self.max_relative_position + 1, head_dim))
        self.rel_v = nn.Parameter(torch.empty(2 * self.max_relative_position + 1, head_dim))
        nn.init.trunc_normal_(self.rel_k, std=0.02)
        nn.init.trunc_normal_(self.rel_v, std=0.02)

    def _heads(self, t: Tensor) -> Tensor:
        b, n, _ = t.shape
        return t.reshape(b, n, self.num_heads, -1).transpose(1, 2)  # [b, h, n, d/h]

    def forward(
        self, x: Tensor, context: Tensor | None = None, *, mask: Tensor | None = None
    ) -> Tensor:
        check_tensor("x", x, ndim=3)
        context = x if context is None else check_tensor("context", context, ndim=3)
        for name, t in (("x", x), ("context", context)):
            if t.shape[-1] != self.dim:
                raise ValueError(
                    f"{name} must have {self.dim} channels in its last dimension, got {t.shape[-1]}"
                )
        q = self._heads(self.q_proj(x))  # [b, h, n_q, d/h]
        k = self._heads(self.k_proj(context))  # [b, h, n_k, d/h]
        v = self._heads(self.v_proj(context))  # [b, h, n_k, d/h]
        z = shaw_attention(q, k, v, self.rel_k, self.rel_v, mask=mask)  # [b, h, n_q, d/h]
        b, _, n_q, _ = z.shape
        return self.out_proj(z.transpose(1, 2).reshape(b, n_q, self.dim))  # [b, n_q, d]


def shaw_intermediate_bytes(
    n: int, dim: int, max_relative_position: int, *, element_size: int = 4
) -> dict[str, int]:
    """Bytes of the large intermediate tensors of one head's Shaw attention (analytic count).

    * ``"naive"``: the two ``n × n × d`` tensors ``a^K`` and ``a^V`` that the written-out formula
      builds (:func:`posenc.shaw.shaw_attention_reference` builds two more of that size,
      ``k_j + a^K_ij`` and ``v_j + a^V_ij``, not counted here);
    * ``"posenc"``: what :func:`posenc.shaw.shaw_attention` holds for one block of
      ``c = min(n, 2^18 // n)`` query rows (blocks are processed one after another): the padded
      key-term buffer ``c × (c + n + 2k − 1)``, the running sum ``c × n`` and the two
      ``c × (2k+1)`` matrices;
    * ``"attention"``: the ``n × n`` weight matrix that plain (unfused) attention holds.

    Args:
        n: sequence length.
        dim: ``d``, channels per head.
        max_relative_position: ``k``.
        element_size: bytes per number (4 for float32).

    Returns:
        ``{"naive": …, "posenc": …, "attention": …}`` in bytes.
    """
    n = check_int("n", n)
    d = check_int("dim", dim)
    k = check_int("max_relative_position", max_relative_position, minimum=0)
    size = check_int("element_size", element_size)
    c = min(n, max(1, _BLOCK_ELEMENTS // n))  # query rows per block in shaw_attention
    return {
        "naive": 2 * n * n * d * size,
        "posenc": (c * (c + n + 2 * k - 1) + c * n + 2 * c * (2 * k + 1)) * size,
        "attention": n * n * size,
    }


def shaw_attention_timings(
    sizes: Sequence[int] = (128, 256, 512, 1024),
    *,
    dim: int = 64,
    max_relative_position: int = 16,
    naive_max: int = 256,
    repeats: int = 3,
    threads: int = 1,
    seed: int = 0,
) -> dict[str, list[float | None]]:
    """Median time in ms of one call of plain attention, ``shaw_attention`` and the naive version.

    One head, float32, on the CPU with ``threads`` intra-op threads (restored afterwards; one
    thread keeps the numbers steady on a busy machine), after one warm-up call; ``None`` where
    ``n > naive_max`` for the naive version (its ``n × n × d`` tensors grow fast). Cheap
    enough to run while a chapter builds (well under a second with the defaults).

    Args:
        sizes: the sequence lengths ``n`` to time.
        dim: ``d``, channels of the single head.
        max_relative_position: ``k``.
        naive_max: the largest ``n`` at which the naive version is timed.
        repeats: timed calls per measurement (the median is kept).
        threads: ``torch`` intra-op threads during the measurement.
        seed: seed of the random inputs.

    Returns:
        ``{"n": sizes, "plain": […], "posenc": […], "naive": […]}``.
    """
    repeats = check_int("repeats", repeats)
    with torch_threads(threads):
        return _timings(sizes, dim, max_relative_position, naive_max, repeats, seed)


def _timings(
    sizes: Sequence[int],
    dim: int,
    max_relative_position: int,
    naive_max: int,
    repeats: int,
    seed: int,
) -> dict[str, list[float | None]]:
    g = torch.Generator().manual_seed(seed)
    out: dict[str, list[float | None]] = {
        "n": [float(s) for s in sizes],
        "plain": [],
        "posenc": [],
        "naive": [],
    }
    for n in sizes:
        n = check_int("sizes", n)
        q, k, v = (torch.randn(n, dim, generator=g) for _ in range(3))  # [n, d] each
        rk = torch.randn(2 * max_relative_position + 1, dim, generator=g)  # [2k+1, d]
        rv = torch.randn(2 * max_relative_position + 1, dim, generator=g)  # [2k+1, d]
        args = (q, k, v, rk, rv)
        calls = {
            "plain": lambda a=args: torch.softmax(a[0] @ a[1].T / math.sqrt(dim), -1) @ a[2],
            "posenc": lambda a=args: shaw_attention(*a),
            "naive": lambda a=args: shaw_attention_reference(*a),
        }
        for name, call in calls.items():
            if name == "naive" and n > naive_max:
                out[name].append(None)
                continue
            with torch.no_grad():
                call()
                times = []
                for _ in range(repeats):
                    start = time.perf_counter()
                    call()
                    times.append(1e3 * (time.perf_counter() - start))
            out[name].append(statistics.median(times))
    return out
