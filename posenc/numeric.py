"""Naive numeric position encodings: the raw index, the normalised index and one sine.

These are the first ideas everyone has. Chapter 2 of the book shows why each one fails;
the functions exist so that the failures can be computed rather than asserted.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from ._checks import as_positions, check_int, check_positive_float, check_tensor


def numeric_encoding(n_positions: int, *, normalize: bool = False) -> Tensor:
    """Encode each position by its own index, optionally scaled into ``[0, 1]``.

    .. math::

        PE(p) = p \\quad\\text{or, with normalize,}\\quad PE(p) = \\frac{p}{T - 1},
        \\qquad p = 0, \\dots, T - 1

    For ``T = 1`` the normalised encoding is ``0`` (there is no step to divide by).

    Args:
        n_positions: ``T``, the number of positions (a positive int).
        normalize: divide by ``T - 1`` so that the last position is ``1``.

    Returns:
        float32 tensor of shape ``[n, 1]``.

    Shapes:
        ``n = n_positions``: positions.

    Reference: the "use the index itself" baseline discussed (and rejected) in
    Vaswani et al. (2017) and in every introduction since.
    """
    n = check_int("n_positions", n_positions)
    pos = torch.arange(n, dtype=torch.float64)  # [n]
    if normalize and n > 1:
        pos = pos / (n - 1)
    return pos.to(torch.float32)[:, None]  # [n, 1]


def periodic_encoding(positions: int | Tensor, *, alpha: float) -> Tensor:
    """Encode each position by a single sine of period ``2π·alpha``.

    .. math::

        PE(p) = \\sin(p / \\alpha)

    Bounded in ``[-1, 1]`` and independent of the sequence length, but one sine repeats:
    positions ``2π·alpha`` apart get (nearly) the same code.

    Args:
        positions: an int ``n`` (positions ``0..n-1``) or a 1-D tensor of positions.
        alpha: the wavelength divided by ``2π`` (a positive number).

    Returns:
        float32 tensor of shape ``[n, 1]``.

    Shapes:
        ``n``: positions.
    """
    pos = as_positions("positions", positions)  # [n]
    alpha = check_positive_float("alpha", alpha)
    return torch.sin(pos / alpha).to(torch.float32)[:, None]  # [n, 1]


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
    check_tensor("encoding", encoding, ndim=2)
    n = encoding.shape[0]
    if n < 2:
        raise ValueError(f"encoding must have at least 2 rows (positions), got {n}")
    table = encoding.detach().to(torch.float64)  # [n, d]
    dist = torch.cdist(table, table)  # [n, n]
    dist.fill_diagonal_(math.inf)
    flat = int(torch.argmin(dist))
    i, j = divmod(flat, n)
    i, j = min(i, j), max(i, j)
    return i, j, float(dist[i, j])
