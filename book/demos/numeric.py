"""Chapter 2's measurements of a code table: how far apart, how close, how large.

Not model code: :mod:`posenc.numeric` holds the encodings themselves (the raw index, the
normalised index, one sine). These functions measure what chapters 2 and 3 show about a table
of codes, one row per position: the distance between neighbours (:func:`adjacent_distances`)
and between every pair (:func:`pairwise_distances`), the two positions whose codes are closest
(:func:`closest_distinct_pair`), and the size of a code against the word it is added to
(:func:`magnitude_ratio`). Each takes any ``[n, d]`` table (a learned one is detached).
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from book._checks import check_table

__all__ = [
    "adjacent_distances",
    "closest_distinct_pair",
    "magnitude_ratio",
    "pairwise_distances",
]


def adjacent_distances(encoding: Tensor) -> Tensor:
    """Return the distance between the codes of each pair of neighbouring positions.

    .. math::

        \\delta_p = \\lVert PE(p + 1) - PE(p) \\rVert_2, \\qquad p = 0, \\dots, n - 2

    Tiny values mean neighbours are hard to tell apart (for ``sin(p/alpha)``, ``δ ≈ 1/alpha``
    near ``p = 0``).

    Args:
        encoding: ``[n, d]`` table, one row per position (``n >= 2``).

    Returns:
        float64 tensor of shape ``[n - 1]``.

    Shapes:
        ``n``: positions, ``d``: channels.
    """
    check_table("encoding", encoding)
    if encoding.shape[0] < 2:
        raise ValueError(f"encoding must have at least 2 rows (positions), got {encoding.shape[0]}")
    table = encoding.detach().to(torch.float64)  # [n, d]
    return (table[1:] - table[:-1]).norm(dim=-1)  # [n - 1]


def magnitude_ratio(encoding: Tensor, embeddings: Tensor) -> Tensor:
    """Return, per position, the norm of the position code over the norm of the word embedding.

    .. math::

        r_p = \\frac{\\lVert PE(p) \\rVert_2}{\\lVert x_p \\rVert_2}

    The code is broadcast to the embedding width first, as ``x + PE`` does: a one-channel
    code ``[n, 1]`` is added to every channel. Ratios far above 1 mean the position drowns
    the word.

    Args:
        encoding: ``[n, 1]`` or ``[n, d]`` position codes.
        embeddings: ``[n, d]`` word embeddings of the same positions.

    Returns:
        float64 tensor of shape ``[n]``.

    Shapes:
        ``n``: positions, ``d``: channels.
    """
    check_table("encoding", encoding)
    check_table("embeddings", embeddings)
    n, d = embeddings.shape
    if encoding.shape[0] != n or encoding.shape[1] not in (1, d):
        raise ValueError(
            f"encoding must have shape [{n}, 1] or [{n}, {d}] to add to embeddings of shape "
            f"[{n}, {d}], got {tuple(encoding.shape)}"
        )
    code = encoding.detach().to(torch.float64).expand(n, d)  # [n, d]
    return code.norm(dim=-1) / embeddings.detach().to(torch.float64).norm(dim=-1)  # [n]


def pairwise_distances(encoding: Tensor) -> Tensor:
    """Return the Euclidean distance between the codes of every pair of positions.

    .. math::

        D_{ij} = \\lVert PE(i) - PE(j) \\rVert_2
        = \\sqrt{\\textstyle\\sum_c \\big(PE(i)_c - PE(j)_c\\big)^2}

    Computed in float64 from the differences themselves (not from ``‖a‖² + ‖b‖² − 2a·b``,
    which loses the small distances that matter here), so ``D`` is exactly symmetric with a
    zero diagonal. Small entries off the diagonal are positions the code can hardly tell apart.

    Args:
        encoding: ``[n, d]`` table, one row per position.

    Returns:
        float64 tensor of shape ``[n, n]``.

    Shapes:
        ``n``: positions, ``d``: channels.
    """
    check_table("encoding", encoding)
    table = encoding.detach().to(torch.float64)  # [n, d]
    return torch.cdist(table, table, compute_mode="donot_use_mm_for_euclid_dist")  # [n, n]


def closest_distinct_pair(encoding: Tensor) -> tuple[int, int, float]:
    """Find the two different positions whose codes are closest (Euclidean distance).

    .. math::

        (i^*, j^*) = \\arg\\min_{i < j} \\lVert PE(i) - PE(j) \\rVert_2

    A good position encoding keeps this distance well above zero: two positions with the same
    code are indistinguishable for the model.

    Args:
        encoding: ``[n, d]`` table, one row per position (``n >= 2``).

    Returns:
        ``(i, j, distance)`` with ``i < j``.

    Shapes:
        ``n``: positions, ``d``: channels.
    """
    check_table("encoding", encoding)
    n = encoding.shape[0]
    if n < 2:
        raise ValueError(f"encoding must have at least 2 rows (positions), got {n}")
    if encoding.device.type == "meta":
        raise ValueError("encoding must hold values to compare; a meta tensor has none")
    dist = pairwise_distances(encoding)  # [n, n]
    dist.fill_diagonal_(math.inf)
    flat = int(torch.argmin(dist))
    i, j = divmod(flat, n)
    i, j = min(i, j), max(i, j)
    return i, j, float(dist[i, j])
