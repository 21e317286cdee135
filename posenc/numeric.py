"""Naive numeric position encodings: the raw index, the normalised index and one sine.

These are the first ideas everyone has. Chapter 2 of the book shows why each one fails;
the encodings exist so that the failures can be computed rather than asserted (the book
measures them with ``book.demos.numeric``).
"""

from __future__ import annotations

import torch
from torch import Tensor

from ._checks import (
    as_positions,
    check_bool,
    check_int,
    check_positive_float,
    check_real,
)

__all__ = ["numeric_encoding", "periodic_encoding", "periodic_shift_matrix"]

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
