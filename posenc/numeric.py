"""Naive numeric position encodings: the raw index, the normalised index and one sine.

These are the first ideas everyone has. Chapter 2 of the book shows why each one fails;
the functions exist so that the failures can be computed rather than asserted.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from ._checks import (
    as_positions,
    check_bool,
    check_finite,
    check_float_tensor,
    check_int,
    check_positive_float,
    check_real,
)

__all__ = [
    "adjacent_distances",
    "closest_distinct_pair",
    "magnitude_ratio",
    "numeric_encoding",
    "pairwise_distances",
    "periodic_encoding",
    "periodic_shift_matrix",
]

Device = torch.device | str | None


def numeric_encoding(n_positions: int, *, normalize: bool = False, device: Device = None) -> Tensor:
    """Encode each position by its own index, optionally scaled into ``[0, 1]``.

    .. math::

        PE(p) = p \\quad\\text{or, with normalize,}\\quad PE(p) = \\frac{p}{T - 1},
        \\qquad p = 0, \\dots, T - 1

    For ``T = 1`` the normalised encoding is ``0`` (there is no step to divide by).

    Args:
        n_positions: ``T``, the number of positions (a positive int).
        normalize: divide by ``T - 1`` so that the last position is ``1``.
        device: where to build the result (default: torch's default device).

    Returns:
        float32 tensor of shape ``[n, 1]``.

    Shapes:
        ``n = n_positions``: positions.

    Reference: the "use the index itself" baseline discussed (and rejected) in
    Vaswani et al. (2017) and in every introduction since.
    """
    n = check_int("n_positions", n_positions)
    normalize = check_bool("normalize", normalize)
    pos = torch.arange(n, dtype=torch.float64, device=device)  # [n]
    if normalize and n > 1:
        pos = pos / (n - 1)
    return pos.to(torch.float32)[:, None]  # [n, 1]


def periodic_encoding(
    positions: int | Tensor, *, alpha: float, cosine: bool = False, device: Device = None
) -> Tensor:
    """Encode each position by a single sine of period ``2π·alpha`` (optionally with its cosine).

    .. math::

        PE(p) = \\sin(p / \\alpha)
        \\quad\\text{or, with cosine,}\\quad
        PE(p) = \\big(\\sin(p / \\alpha),\\ \\cos(p / \\alpha)\\big)

    Bounded in ``[-1, 1]`` and independent of the sequence length, but one sine repeats:
    positions ``2π·alpha`` apart get (nearly) the same code. The sine alone is not even
    one-to-one within a period (``sin x = sin(π - x)``); adding the cosine puts each position
    on a circle, which removes those mirror collisions but not the periodic ones.

    Args:
        positions: an int ``n`` (positions ``0..n-1``) or a 1-D tensor of finite positions.
        alpha: the wavelength divided by ``2π`` (a finite positive number).
        cosine: also return ``cos(p/alpha)`` as a second channel.
        device: where to build ``0..n-1`` when ``positions`` is an int.

    Returns:
        float32 tensor of shape ``[n, 1]``, or ``[n, 2]`` with ``cosine=True``.

    Shapes:
        ``n``: positions.

    Reference: the single-frequency idea that the multi-frequency encoding of
    Vaswani et al. (2017) generalises (``d/2`` such pairs with geometric ``alpha``).
    """
    pos = as_positions("positions", positions, device=device)  # [n]
    alpha = check_positive_float("alpha", alpha)
    cosine = check_bool("cosine", cosine)
    angle = pos / alpha  # [n], float64
    if cosine:
        return torch.stack((torch.sin(angle), torch.cos(angle)), dim=-1).to(torch.float32)  # [n, 2]
    return torch.sin(angle).to(torch.float32)[:, None]  # [n, 1]


def periodic_shift_matrix(offset: float, *, alpha: float, device: Device = None) -> Tensor:
    """Return the 2×2 matrix ``M_k`` with ``PE(p + k) = M_k · PE(p)`` for the sine-cosine code.

    .. math::

        \\begin{pmatrix} \\sin\\frac{p+k}{\\alpha} \\\\ \\cos\\frac{p+k}{\\alpha} \\end{pmatrix}
        = \\begin{pmatrix} \\cos\\frac{k}{\\alpha} & \\sin\\frac{k}{\\alpha} \\\\
                           -\\sin\\frac{k}{\\alpha} & \\cos\\frac{k}{\\alpha} \\end{pmatrix}
          \\begin{pmatrix} \\sin\\frac{p}{\\alpha} \\\\ \\cos\\frac{p}{\\alpha} \\end{pmatrix}

    A rotation by the angle ``k/alpha`` that depends on the offset ``k`` only, never on the
    position ``p``: moving ``k`` steps is the same operation everywhere in the sequence. This
    is the one-frequency case of :func:`posenc.sinusoidal.sinusoidal_shift_matrix`.

    Args:
        offset: ``k``, the shift (any finite real number).
        alpha: as in :func:`periodic_encoding` (a positive number).
        device: where to build the matrix.

    Returns:
        float64 tensor of shape ``[2, 2]`` acting on the column ``(sin, cos)``, i.e.
        ``periodic_encoding(n, alpha=alpha, cosine=True)[p]`` (multiply rows as
        ``table @ M_k.T``).

    Shapes:
        ``[2, 2]``.
    """
    offset = check_real("offset", offset)
    alpha = check_positive_float("alpha", alpha)
    theta = torch.tensor(offset / alpha, dtype=torch.float64, device=device)  # []
    c, s = torch.cos(theta), torch.sin(theta)
    return torch.stack((torch.stack((c, s)), torch.stack((-s, c))))  # [2, 2]


def _check_table(name: str, table: object) -> Tensor:
    """A finite floating-point ``[n, d]`` table (integer, bool and complex tables refused)."""
    check_float_tensor(name, table, ndim=2)
    return check_finite(name, table)


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
    _check_table("encoding", encoding)
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
    _check_table("encoding", encoding)
    _check_table("embeddings", embeddings)
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
    _check_table("encoding", encoding)
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
    _check_table("encoding", encoding)
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
