"""Chapter 6's Shaw attention written out, and its cost: a byte count and a small timing run.

Not model code: :mod:`posenc.shaw` holds what a model imports.
:func:`shaw_attention_reference` is the formula written the obvious way, with the full
``n_q × n_k × d`` tensors: the chapter reads it, and the tests check
:func:`posenc.shaw.shaw_attention` against it. :func:`shaw_intermediate_bytes` and
:func:`shaw_attention_timings` feed the chapter's cost figure
(:func:`book.figures.shaw.shaw_cost_figure`) and its printouts; ``benchmarks/shaw_attention.py``
and ``benchmarks/gpu_check.py`` measure more thoroughly.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Sequence

import torch
from torch import Tensor

from posenc._checks import check_int
from posenc._threads import torch_threads
from posenc.attention import masked_softmax

# _check_shaw_inputs is posenc's own: the reference must refuse exactly what shaw_attention
# refuses, with the same messages (tests/posenc/test_shaw.py holds the shared assertions).
from posenc.shaw import (
    _BLOCK_ELEMENTS,
    _check_shaw_inputs,
    shaw_attention,
    shaw_relative_index,
)

__all__ = ["shaw_attention_reference", "shaw_attention_timings", "shaw_intermediate_bytes"]


def shaw_intermediate_bytes(
    n: int, dim: int, max_relative_position: int, *, element_size: int = 4
) -> dict[str, int]:
    """Bytes of the large intermediate tensors of one head's Shaw attention (analytic count).

    .. math::

        \\text{naive} = 2n^2d\\,s, \\qquad
        \\text{posenc} = \\max_{\\text{blocks}} \\big(cW + 3cn + 2c(2k+1)\\big)\\,s, \\qquad
        \\text{attention} = n^2 s

    with ``s`` the element size, ``c`` the query rows of a block and ``W`` the width of its
    padded buffer:

    * ``"naive"``: the two ``n × n × d`` tensors ``a^K`` and ``a^V`` that the written-out formula
      builds (:func:`shaw_attention_reference` builds two more of that size,
      ``k_j + a^K_ij`` and ``v_j + a^V_ij``, not counted here);
    * ``"posenc"``: what :func:`posenc.shaw.shaw_attention` holds on the CPU (its blocked path)
      for its largest block (blocks are processed one after another, each of
      ``c = min(n, 2^18 // n)`` query rows but the last): the padded key-term buffer
      ``c × W``, which covers only the offsets ``j − i`` that the block's rows meet, and at least
      ``−k … k`` (``W = c + n − 1`` once ``c > k`` and ``n > k``); the block's logits, its
      weights and their running sum, ``c × n`` each (no running sum for ``k = 0``); and the two ``c × (2k+1)`` matrices
      (``q·w^K`` and the bucket sums). For ``c, n > k`` that is ``4cn + c^2 + (4k+1)c``, or
      about ``2^20 + c(c + 4k + 1)`` numbers once ``cn ≈ 2^18``. The outputs (``n × d`` in
      all) are not counted;
    * ``"attention"``: the ``n × n`` weight matrix that plain (unfused) attention holds.

    Args:
        n: sequence length.
        dim: ``d``, channels per head.
        max_relative_position: ``k``.
        element_size: bytes per number (4 for float32).

    Returns:
        ``{"naive": …, "posenc": …, "attention": …}`` in bytes.

    Shapes:
        ``n`` positions, ``d`` channels, ``k`` clipping distance (counts only, no tensors).

    Matches: Huang et al. (2019) for the size of one of the two naive tensors: their 1.1 GB
    per head at ``n = 2048``, ``d = 64`` (and 8.5 GB per layer for their 8 heads, ``d = 512``);
    the block widths of ``posenc.shaw._shaw_block``. ``tests/book/demos/test_shaw.py`` checks
    the ``"posenc"`` count against the tensors that one call of
    :func:`posenc.shaw.shaw_attention` keeps alive.
    """
    n = check_int("n", n)
    d = check_int("dim", dim)
    k = check_int("max_relative_position", max_relative_position, minimum=0)
    size = check_int("element_size", element_size)
    rows = min(n, max(1, _BLOCK_ELEMENTS // n))  # query rows per block in shaw_attention
    largest = 0
    # A block's width is a convex function of its first row, so among the full blocks the
    # widest is the first or the last one; the last block may be shorter and is checked too.
    last = (max(n - 1, 0) // rows) * rows
    for first in {0, max(0, last - rows) if n % rows else last, last}:
        c = min(rows, n - first)
        left = max(0, first + c - 1 - k)  # offsets below -k that the block meets
        right = max(0, n - 1 - first - k)  # offsets above k
        width = left + 2 * k + 1 + right
        per_key = 3 if k else 2  # logits, weights and (for k > 0) their running sum
        largest = max(largest, c * width + per_key * c * n + 2 * c * (2 * k + 1))
    return {
        "naive": 2 * n * n * d * size,
        "posenc": largest * size,
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

    Shapes:
        ``q``, ``k``, ``v``: ``[n, d]``; tables ``[2k+1, d]`` (random, seeded).

    Matches: plain attention ``softmax(q kᵀ/√d) v`` as the time reference.
    """
    repeats = check_int("repeats", repeats)
    dim = check_int("dim", dim)
    max_relative_position = check_int("max_relative_position", max_relative_position, minimum=0)
    naive_max = check_int("naive_max", naive_max, minimum=0)
    seed = check_int("seed", seed, minimum=0)
    if isinstance(sizes, (str, bytes)) or not isinstance(sizes, Sequence) or not sizes:
        raise ValueError(f"sizes must be a non-empty sequence of positive ints, got {sizes!r}")
    sizes = [check_int(f"sizes[{i}]", n) for i, n in enumerate(sizes)]
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


def shaw_attention_reference(
    q: Tensor, k: Tensor, v: Tensor, rel_k: Tensor, rel_v: Tensor, *, mask: Tensor | None = None
) -> Tensor:
    """Shaw attention written the obvious way, with the full ``n_q × n_k × d`` tensors.

    .. math::

        z_i = \\sum_j \\operatorname{softmax}_j\\!\\Big(\\frac{q_i\\cdot(k_j + a^K_{ij})}{\\sqrt d}
        \\Big)(v_j + a^V_{ij})

    Same formula, arguments and result as :func:`posenc.shaw.shaw_attention`; memory grows as
    ``n_q · n_k · d``. Use it to read the formula, not in a model.

    Args:
        q: queries ``[..., n_q, d]``.
        k: keys ``[..., n_k, d]``.
        v: values ``[..., n_k, d_v]``.
        rel_k: ``w^K``, ``[2k+1, d]``.
        rel_v: ``w^V``, ``[2k+1, d_v]``.
        mask: optional boolean mask broadcastable to ``[..., n_q, n_k]``, ``True`` = attend.

    Returns:
        ``[..., n_q, d_v]``.

    Shapes:
        ``n_q``/``n_k``: query/key positions, ``d``: channels per head, ``k``: clipping distance.

    Matches: Shaw et al. (2018), eq. (3)-(4), term by term.
    """
    max_k, _ = _check_shaw_inputs(q, k, v, rel_k, rel_v, mask)
    n_q, n_k, d = q.shape[-2], k.shape[-2], q.shape[-1]
    idx = shaw_relative_index(max(n_q, 1), n_k, max_k, device=q.device)[:n_q]  # [n_q, n_k]
    a_k = rel_k[idx]  # [n_q, n_k, d]
    a_v = rel_v[idx]  # [n_q, n_k, d_v]
    keys = k[..., None, :, :] + a_k  # [..., n_q, n_k, d]: k_j + a^K_ij
    values = v[..., None, :, :] + a_v  # [..., n_q, n_k, d_v]: v_j + a^V_ij
    logits = (q[..., :, None, :] * keys).sum(-1) / math.sqrt(d)  # [..., n_q, n_k]
    weights = masked_softmax(logits, mask)  # [..., n_q, n_k]
    return (weights[..., None] * values).sum(-2)  # [..., n_q, d_v]
