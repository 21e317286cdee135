"""Chapter 13's check of decoupled RoPE in multi-head latent attention (DeepSeek-V2).

Not model code: one attention head with random weights, its scores computed the way a
model with a compressed key cache would, and the way the plain formula says.
:func:`decoupled_rope_scores` shows three things: without RoPE the key's up-projection
folds into the query; with RoPE on the rebuilt keys no fixed matrix does (the best one,
found by least squares, still misses); with DeepSeek-V2's decoupled rotated part it folds
again.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from posenc._checks import check_int
from posenc.rotary import apply_rotary

__all__ = ["decoupled_rope_scores"]


def _rotate(x: Tensor) -> Tensor:
    """RoPE at positions ``0..n-1`` on ``x`` ``[n, d]``, in float64."""
    return apply_rotary(x)  # [n, d]: positions 0..n-1


def decoupled_rope_scores(
    n: int = 40, dim: int = 16, latent: int = 8, rope_dim: int = 8, *, seed: int = 0
) -> dict[str, float]:
    """Return the relative error of three ways to score one head from a compressed key cache.

    .. math::

        c_j = W^{DKV} h_j, \\quad k_j = W^{UK} c_j, \\qquad
        \\ell_{ij} = q_i^\\top k_j = \\big((W^{UK})^\\top q_i\\big)^\\top c_j

    On random float64 weights and inputs (``h``: ``[n, dim]``):

    * ``"no RoPE: folded query"``: ``((W^{UK})^\\top q_i)^\\top c_j`` against ``q_i^\\top k_j``;
    * ``"RoPE on the keys: best fixed fold"``: the least-squares matrix ``A`` for
      ``q_i^\\top A c_j \\approx (R_i q_i)^\\top (R_j k_j)`` over all ``i, j``, against the
      rotated scores (``n² > dim · latent`` equations, so a perfect fit is not free);
    * ``"decoupled RoPE: folded query"``: DeepSeek-V2's served scores,
      ``((W^{UK})^\\top q^C_i)^\\top c_j + (R_i q^R_i)^\\top (R_j k^R_j)``, from the cache and
      the small rotated key, against one dot product of the whole query ``[q^C_i; R_i q^R_i]``
      with the whole rebuilt key ``[W^{UK} c_j; R_j k^R_j]``.

    Each error is ``max |ℓ - ℓ_ref| / max |ℓ_ref|``.

    Args:
        n: positions.
        dim: the head's content channels ``d_h`` (also the hidden size).
        latent: ``d_c``, the compressed cache's channels.
        rope_dim: ``d^R``, the decoupled rotated channels (even).
        seed: seeds the random weights.

    Returns:
        ``{name: relative error}`` for the three names above.

    Shapes:
        ``h``: ``[n, dim]``; ``c``: ``[n, latent]``; ``q``, ``k``: ``[n, dim]``;
        ``q^R``, ``k^R``: ``[n, rope_dim]``.

    Matches: DeepSeek-V2 (DeepSeek-AI, 2024), §2.1.2–2.1.3, eq. (14)–(19).
    """
    n = check_int("n", n, minimum=2)
    dim = check_int("dim", dim, minimum=2)
    latent = check_int("latent", latent)
    rope_dim = check_int("rope_dim", rope_dim, minimum=2)
    if dim % 2 or rope_dim % 2:
        raise ValueError(f"dim and rope_dim must be even (RoPE turns pairs), got {dim}, {rope_dim}")
    if n * n <= dim * latent:
        raise ValueError(
            f"n must satisfy n² > dim · latent for the least-squares fold to be a real test, "
            f"got n={n}, dim={dim}, latent={latent}"
        )
    g = torch.Generator().manual_seed(check_int("seed", seed, minimum=0))

    def randn(*shape: int) -> Tensor:
        return torch.randn(*shape, generator=g, dtype=torch.float64) / math.sqrt(shape[-1])

    h = torch.randn(n, dim, generator=g, dtype=torch.float64)  # [n, dim]
    w_q, w_dkv, w_uk = randn(dim, dim), randn(latent, dim), randn(dim, latent)
    w_qr, w_kr = randn(rope_dim, dim), randn(rope_dim, dim)
    q = h @ w_q.T  # [n, dim]
    c = h @ w_dkv.T  # [n, latent]: the cache
    k = c @ w_uk.T  # [n, dim]: rebuilt keys

    def error(got: Tensor, want: Tensor) -> float:
        return float((got - want).abs().max() / want.abs().max())

    plain = q @ k.T  # [n, n]
    folded = (q @ w_uk) @ c.T  # [n, n]: (W^UK)^T q_i against c_j
    rotated = _rotate(q) @ _rotate(k).T  # [n, n]
    design = torch.einsum("ia,jb->ijab", q, c).reshape(n * n, dim * latent)  # [n², dim·latent]
    best = torch.linalg.lstsq(design, rotated.reshape(-1, 1)).solution  # [dim·latent, 1]
    fitted = (design @ best).reshape(n, n)  # [n, n]
    q_r, k_r = _rotate(h @ w_qr.T), _rotate(h @ w_kr.T)  # [n, rope_dim] each, rotated
    full_q = torch.cat([q, q_r], dim=-1)  # [n, dim + rope_dim]: one head's whole query
    full_k = torch.cat([k, k_r], dim=-1)  # [n, dim + rope_dim]: rebuilt key and rotated part
    served = folded + q_r @ k_r.T  # [n, n]: folded content, plus the small rotated product
    return {
        "no RoPE: folded query": error(folded, plain),
        "RoPE on the keys: best fixed fold": error(fitted, rotated),
        "decoupled RoPE: folded query": error(served, full_q @ full_k.T),
    }
