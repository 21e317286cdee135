"""Chapter 9's reading of RoPE, and chapter 13's warning about the precision of its angles.

Not model code: :mod:`posenc.rotary` holds the rotation a model applies (and the rotation
matrix itself, :func:`posenc.rotary.rotary_matrix`). These functions show what the
rotation does to the logit of a query and a key as they move apart:
:func:`rotary_offset_logits`, the logit for every offset, and :func:`rotary_decay_bound`, the
offset-only factor of RoFormer's upper bound on it (Su et al. 2024, Figure 2); and what a
low-precision angle does to the rotation itself, :func:`rotary_angle_error`.
"""

from __future__ import annotations

import torch
from torch import Tensor

from posenc._checks import (
    as_positions,
    broadcast_shape,
    check_float_tensor,
    check_floating_dtype,
    check_same_dtype,
)
from posenc.rotary import apply_rotary, rotary_angles
from posenc.sinusoidal import sinusoidal_frequencies

__all__ = ["rotary_angle_error", "rotary_decay_bound", "rotary_offset_logits"]

Device = torch.device | str | None


def rotary_offset_logits(
    q: Tensor,
    k: Tensor,
    offsets: int | Tensor,
    *,
    base: float = 10000.0,
    interleaved: bool = True,
) -> Tensor:
    """Return the RoPE logit of a query and a key placed ``r`` positions apart, for every ``r``.

    .. math::

        s(r) = \\langle R_m q, R_{m+r} k \\rangle = \\langle q, R_r k \\rangle
        = \\sum_{i=0}^{d/2-1} \\big[(q_a k_a + q_b k_b)\\cos r\\theta_i
          + (q_b k_a - q_a k_b)\\sin r\\theta_i\\big]

    with ``(a, b)`` the channels of pair ``i``. The query's own position ``m`` does not
    appear: any ``m`` gives the same curve. For ``q = k`` the sine terms vanish and
    ``s(r) = Σ_i |q_{(i)}|² cos rθ_i``: the score of a key that matches the query, as a
    function of how far away it is (RoFormer's "long-term decay"). The logit is not divided
    by ``√d``.

    Args:
        q: queries ``[..., d]`` (floating point, ``d`` even).
        k: keys ``[..., d]``, broadcastable against ``q``.
        offsets: an int ``R`` (offsets ``0..R-1``) or a 1-D tensor of offsets ``r = n − m``
            (key position minus query position; any real numbers).
        base: as in :func:`posenc.rotary.rotary_angles`.
        interleaved: the channel layout (see :mod:`posenc.rotary`).

    Returns:
        tensor ``[..., R]`` (the broadcast batch shape of ``q`` and ``k``), in the dtype of
        ``q`` and ``k`` (the rotations are computed in float64 and cast).

    Shapes:
        ``d``: channels, ``R``: offsets.

    Matches: Su et al. (2024) §3.4.3, ``q^T R^d_{Θ,n-m} k``.
    """
    check_float_tensor("q", q)
    check_float_tensor("k", k)
    if q.ndim == 0 or k.ndim == 0 or q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"q and k must be [..., d] with the same d, got shapes {tuple(q.shape)} and {tuple(k.shape)}"
        )
    check_same_dtype(q=q, k=k)
    r = as_positions("offsets", offsets, device=k.device)  # [R]
    batch = broadcast_shape(tuple(q.shape[:-1]), tuple(k.shape[:-1]))
    if batch is None:
        raise ValueError(
            f"q and k must broadcast in their leading dimensions, got shapes {tuple(q.shape)} "
            f"and {tuple(k.shape)}"
        )
    d = q.shape[-1]
    keys = k.expand(*batch, d).unsqueeze(-2).expand(*batch, r.shape[0], d)  # [..., R, d]
    rotated = apply_rotary(
        keys, r.to(k.device), base=base, interleaved=interleaved
    )  # [..., R, d]: R_r k
    return (rotated * q.expand(*batch, d).unsqueeze(-2)).sum(-1)  # [..., R]


def rotary_decay_bound(
    offsets: int | Tensor, dim: int, *, base: float = 10000.0, device: Device = None
) -> Tensor:
    """Return RoFormer's "relative upper bound" of the logit against the offset.

    .. math::

        \\frac{1}{d/2} \\sum_{j=1}^{d/2} \\lvert S_j(r) \\rvert, \\qquad
        S_j(r) = \\sum_{i=0}^{j-1} e^{\\mathrm{i}\\, r\\theta_i}

    Writing the logit as ``Re Σ_i h_i e^{i rθ_i}`` with ``h_i`` the product of pair ``i``
    of ``q`` and the conjugate of pair ``i`` of ``k``, summation by parts bounds it by
    ``max_i |h_{i+1} − h_i| · Σ_j |S_j(r)|``. The factor ``Σ_j |S_j|`` depends on the
    offset only; the paper plots its mean (this function) and notes that it falls as the
    offset grows. It is a bound, not the logit itself: it starts at ``(d/2 + 1)/2`` for
    ``r = 0`` and decays with oscillations. The channel layout plays no role.

    Args:
        offsets: an int ``R`` (offsets ``0..R-1``) or a 1-D tensor of offsets.
        dim: ``d``, the number of channels (even).
        base: as in :func:`posenc.rotary.rotary_angles`.
        device: where to build ``0..R-1`` when ``offsets`` is an int.

    Returns:
        float64 tensor ``[R]``.

    Shapes:
        ``R``: offsets.

    Matches: Su et al. (2024) §3.4.3 and Figure 2.
    """
    r = as_positions("offsets", offsets, device=device)  # [R]
    angles = rotary_angles(r, dim, base=base)  # [R, d/2]
    partial = torch.polar(torch.ones_like(angles), angles).cumsum(-1)  # [R, d/2]: S_1 … S_{d/2}
    return partial.abs().mean(-1)  # [R]


def rotary_angle_error(
    positions: int | Tensor,
    dim: int,
    *,
    dtype: torch.dtype,
    base: float = 10000.0,
    device: Device = None,
) -> Tensor:
    """Return how far RoPE's angles land from the true ones when computed in ``dtype``.

    .. math::

        e_{m,i} = \\big|\\operatorname{wrap}\\big(\\operatorname{fl}(\\operatorname{fl}(m)\\,
        \\operatorname{fl}(\\theta_i)) - m\\,\\theta_i\\big)\\big|, \\qquad
        \\operatorname{wrap}(x) \\in [-\\pi, \\pi)

    ``fl`` rounds to ``dtype``: the position, the frequency and their product are each held in
    ``dtype``, as in code that builds ``positions * inv_freq`` in the model's dtype; the exact
    angle ``m θ_i`` is float64. The error is taken modulo a full turn, since a rotation cannot
    tell angles a turn apart; ``π`` is the worst possible. :mod:`posenc.rotary` computes its
    angles in float64 and casts only the cosines and sines (whose rounding error stays
    below ``2^{-8}`` in bfloat16 whatever the position).

    Args:
        positions: an int ``n`` (positions ``0..n-1``) or a 1-D tensor of positions.
        dim: ``d``, the number of channels (even).
        dtype: the floating dtype the angles are computed in (``torch.bfloat16``,
            ``torch.float16``, ``torch.float32``, ``torch.float64``).
        base: as in :func:`posenc.rotary.rotary_angles`.
        device: where to build ``0..n-1`` when ``positions`` is an int.

    Returns:
        float64 tensor ``[n, d/2]``, in radians, in ``[0, π]``.

    Shapes:
        ``n``: positions, ``d``: channels.

    Matches: transformers 5.23.0 ``LlamaRotaryEmbedding.forward``, which computes
    ``position_ids.float() * inv_freq.float()`` in float32 for this reason
    (``dtype=torch.float32``).
    """
    check_floating_dtype("dtype", dtype)
    m = as_positions("positions", positions, device=device)  # [n]
    exact = rotary_angles(m, dim, base=base)  # [n, d/2] float64
    theta = sinusoidal_frequencies(dim, base=base, device=m.device)  # [d/2] float64
    rounded = m.to(dtype)[:, None] * theta.to(dtype)[None, :]  # [n, d/2] in dtype
    diff = rounded.double() - exact  # [n, d/2]
    return torch.remainder(diff + torch.pi, 2 * torch.pi).sub(torch.pi).abs()  # [n, d/2]
