"""Chapter 4's picture of a position table: the cosine similarity of every pair of rows.

Not model code: :mod:`posenc.learned` holds the learned table itself
(:class:`posenc.learned.LearnedPositionalEmbedding`). :func:`cosine_similarity_matrix` is how
the chapter looks at a table, trained or not, without its scale.
"""

from __future__ import annotations

import torch
from torch import Tensor

from posenc._checks import check_float_tensor

__all__ = ["cosine_similarity_matrix"]


def cosine_similarity_matrix(table: Tensor) -> Tensor:
    """Return the cosine similarity between every pair of rows of a position table.

    .. math::

        S_{pq} = \\frac{P_p \\cdot P_q}{\\lVert P_p \\rVert\\,\\lVert P_q \\rVert}

    The picture of a position table that does not depend on its scale: ``S_{pq}`` near 1 means
    positions ``p`` and ``q`` look alike to the first layer, near 0 means unrelated codes.
    A row of zeros has no direction, so every entry involving it is ``nan`` (undefined), not
    a made-up 0 — which is exactly the state of a zero-initialised table.

    Args:
        table: ``[n, d]``, one row per position (a learned table or a fixed encoding).

    Returns:
        float64 tensor ``[n, n]``, symmetric, with ones on the diagonal for nonzero rows.

    Shapes:
        ``n``: positions, ``d``: channels.
    """
    check_float_tensor("table", table, ndim=2)
    rows = table.detach().to(torch.float64)  # [n, d]
    norms = rows.norm(dim=1)  # [n]
    unit = rows / norms[:, None]  # [n, d], nan for zero rows
    return (unit @ unit.T).clamp(-1.0, 1.0)  # [n, n]
