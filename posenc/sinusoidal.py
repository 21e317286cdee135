"""The sinusoidal encoding of "Attention Is All You Need" and the facts behind it.

Angles are always computed in float64 and cast at the end: in float32, ``p·ω`` loses its
fractional part once ``p`` is large, and the sine of a wrong angle is a wrong code.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from ._buffers import FixedTables
from ._checks import (
    as_positions,
    check_base,
    check_bool,
    check_even,
    check_float_tensor,
    check_floating_dtype,
    check_int,
    check_real,
)

__all__ = [
    "SinusoidalPositionalEncoding",
    "sinusoidal_dot_product",
    "sinusoidal_encoding",
    "sinusoidal_frequencies",
    "sinusoidal_shift_matrix",
    "sinusoidal_wavelengths",
]

Device = torch.device | str | None


def sinusoidal_frequencies(dim: int, *, base: float = 10000.0, device: Device = None) -> Tensor:
    """Return the angular frequency of each sin/cos pair.

    .. math::

        \\omega_i = \\text{base}^{-2i/d}, \\qquad i = 0, \\dots, d/2 - 1

    so the wavelengths ``2π/ω_i`` grow geometrically from ``2π`` to just under
    ``2π·base``.

    Args:
        dim: ``d``, the number of channels (even).
        base: the base of the geometric progression (``10000`` in the paper; finite, ``> 1``).
        device: where to build the result (default: torch's default device).

    Returns:
        float64 tensor of shape ``[d/2]``.
    """
    dim = check_even("dim", dim)
    base = check_base("base", base)
    i = torch.arange(dim // 2, dtype=torch.float64, device=device)  # [d/2]
    return base ** (-2.0 * i / dim)  # [d/2]


def sinusoidal_wavelengths(dim: int, *, base: float = 10000.0, device: Device = None) -> Tensor:
    """Return the wavelength ``2π/ω_i`` of each sin/cos pair, in positions.

    .. math::

        \\lambda_i = \\frac{2\\pi}{\\omega_i} = 2\\pi\\,\\text{base}^{2i/d},
        \\qquad \\frac{\\lambda_{i+1}}{\\lambda_i} = \\text{base}^{2/d}

    A geometric progression from ``2π`` (pair 0) to ``2π·base^{1-2/d}`` (the last pair).

    Args:
        dim: ``d``, the number of channels (even).
        base: as in :func:`sinusoidal_encoding`.
        device: where to build the result.

    Returns:
        float64 tensor of shape ``[d/2]``.
    """
    return 2.0 * math.pi / sinusoidal_frequencies(dim, base=base, device=device)


def sinusoidal_encoding(
    positions: int | Tensor,
    dim: int,
    *,
    base: float = 10000.0,
    interleaved: bool = True,
    dtype: torch.dtype = torch.float32,
    compute_dtype: torch.dtype = torch.float64,
    device: Device = None,
) -> Tensor:
    """Return the fixed sinusoidal position encoding of Vaswani et al. (2017).

    .. math::

        PE(p, 2i) = \\sin(p\\,\\omega_i), \\qquad PE(p, 2i+1) = \\cos(p\\,\\omega_i),
        \\qquad \\omega_i = \\text{base}^{-2i/d}

    With ``interleaved=False`` the same numbers are laid out as all sines then all cosines,
    ``[sin(pω_0) … sin(pω_{d/2-1}) | cos(pω_0) … cos(pω_{d/2-1})]``
    (MAE's ``get_1d_sincos_pos_embed_from_grid``). tensor2tensor's ``get_timing_signal_1d`` also
    puts the sines first but spaces the frequencies as ``base^(-i/(d/2-1))``, so its slowest
    pair is exactly ``1/base``: different numbers, not a permutation of these (at ``d = 512``
    they differ by up to 3.5 %).

    Args:
        positions: an int ``n`` (positions ``0..n-1``) or a 1-D tensor of positions;
            fractional and negative positions are allowed, NaN and infinity are not.
        dim: ``d``, the number of channels (even).
        base: the base of the frequencies (``10000`` in the paper; finite, ``> 1``).
        interleaved: ``True`` for sin/cos alternating channel by channel, ``False`` for
            concatenated halves.
        dtype: dtype of the result.
        compute_dtype: dtype in which the angles ``p·ω`` and their sines are computed.
            Keep the default; ``torch.float32`` exists to reproduce the precision loss of
            code that computes the angles in single precision.
        device: where to build ``0..n-1`` when ``positions`` is an int (a tensor of positions
            keeps its own device).

    Returns:
        tensor of shape ``[n, d]``, on the device of ``positions``.

    Shapes:
        ``n``: positions, ``d``: channels.

    Matches: Vaswani et al. (2017) §3.5; harvardnlp/annotated-transformer@0a91a254735c
    `the_annotated_transformer.py` ``PositionalEncoding``; positional-encodings 6.0.3
    ``PositionalEncoding1D`` (interleaved).
    """
    pos = as_positions("positions", positions, device=device)  # [n]
    omega = sinusoidal_frequencies(dim, base=base, device=pos.device)  # [d/2]
    interleaved = check_bool("interleaved", interleaved)
    check_floating_dtype("dtype", dtype)
    check_floating_dtype("compute_dtype", compute_dtype)
    angles = (
        pos.to(compute_dtype)[:, None] * omega.to(pos.device, compute_dtype)[None, :]
    )  # [n, d/2]
    sin, cos = torch.sin(angles), torch.cos(angles)  # [n, d/2] each
    if interleaved:
        table = torch.stack((sin, cos), dim=-1).flatten(-2)  # [n, d]
    else:
        table = torch.cat((sin, cos), dim=-1)  # [n, d]
    return table.to(dtype)


def sinusoidal_shift_matrix(
    offset: float,
    dim: int,
    *,
    base: float = 10000.0,
    interleaved: bool = True,
    device: Device = None,
) -> Tensor:
    """Return the matrix ``M_k`` with ``PE(p + k) = M_k · PE(p)`` for every position ``p``.

    .. math::

        \\begin{pmatrix} \\sin((p+k)\\omega_i) \\\\ \\cos((p+k)\\omega_i) \\end{pmatrix}
        = \\begin{pmatrix} \\cos k\\omega_i & \\sin k\\omega_i \\\\
                           -\\sin k\\omega_i & \\cos k\\omega_i \\end{pmatrix}
          \\begin{pmatrix} \\sin p\\omega_i \\\\ \\cos p\\omega_i \\end{pmatrix}

    One 2×2 rotation by ``k·ω_i`` per sin/cos pair: ``M_k`` depends on the offset ``k`` only,
    never on ``p``, which is why a linear layer can read relative offsets from absolute codes.

    Args:
        offset: ``k``, the shift (any finite real number).
        dim: ``d``, the number of channels (even).
        base: as in :func:`sinusoidal_encoding`.
        interleaved: the channel layout of the encoding it acts on.
        device: where to build the matrix.

    Returns:
        float64 tensor of shape ``[d, d]`` (block diagonal, orthogonal).
    """
    offset = check_real("offset", offset)
    interleaved = check_bool("interleaved", interleaved)
    omega = sinusoidal_frequencies(dim, base=base, device=device)  # [d/2]
    theta = offset * omega  # [d/2]
    c, s = torch.cos(theta), torch.sin(theta)  # [d/2] each
    half = dim // 2
    step = 2 if interleaved else 1
    sin_idx = torch.arange(0, step * half, step, device=omega.device)  # [d/2]
    cos_idx = sin_idx + 1 if interleaved else sin_idx + half  # [d/2]
    m = torch.zeros(dim, dim, dtype=torch.float64, device=omega.device)  # [d, d]
    m[sin_idx, sin_idx] = c
    m[sin_idx, cos_idx] = s
    m[cos_idx, sin_idx] = -s
    m[cos_idx, cos_idx] = c
    return m


def sinusoidal_dot_product(
    offsets: int | Tensor, dim: int, *, base: float = 10000.0, device: Device = None
) -> Tensor:
    """Return ``PE(p)·PE(p + k)`` for each offset ``k``: the same for every position ``p``.

    .. math::

        PE(p)\\cdot PE(p+k) = \\sum_{i=0}^{d/2-1} \\big(\\sin p\\omega_i \\sin (p+k)\\omega_i
        + \\cos p\\omega_i \\cos (p+k)\\omega_i\\big) = \\sum_{i=0}^{d/2-1} \\cos k\\omega_i

    The right-hand side has no ``p`` in it, and ``cos`` is even, so the value for ``-k`` equals
    the value for ``k``: the dot product measures distance but not direction. It is ``d/2`` at
    ``k = 0``.

    Args:
        offsets: an int ``m`` (offsets ``0..m-1``) or a 1-D tensor of offsets (finite reals).
        dim: ``d``, the number of channels (even).
        base: as in :func:`sinusoidal_encoding`.
        device: where to build ``0..m-1`` when ``offsets`` is an int.

    Returns:
        float64 tensor of shape ``[m]``.

    Shapes:
        ``m``: offsets.
    """
    k = as_positions("offsets", offsets, device=device)  # [m]
    omega = sinusoidal_frequencies(dim, base=base, device=k.device)  # [d/2]
    return torch.cos(k[:, None] * omega[None, :]).sum(dim=-1)  # [m]


class SinusoidalPositionalEncoding(FixedTables):
    """Add the fixed sinusoidal encoding to a batch of sequences.

    .. math::

        y_{b,p} = x_{b,p} + PE(p), \\qquad p = 0, \\dots, n - 1,

    with :math:`PE` from :func:`sinusoidal_encoding`. A table for ``max_positions`` positions is
    kept as a non-persistent buffer; longer inputs (and float64 inputs, for which the stored
    table is too coarse) are encoded on the fly, since the formula has no upper limit (unlike
    a learned table).

    Args:
        dim: ``d``, the model width (even).
        max_positions: how many positions to precompute (a positive int).
        base: as in :func:`sinusoidal_encoding`.
        interleaved: as in :func:`sinusoidal_encoding`.

    Shapes:
        ``x``: ``[b, n, d]`` → ``[b, n, d]``.

    Matches: Vaswani et al. (2017) §3.5 (added to the scaled embeddings);
    harvardnlp/annotated-transformer@0a91a254735c `the_annotated_transformer.py`
    ``PositionalEncoding`` (without its dropout).
    """

    encoding: Tensor

    def __init__(
        self, dim: int, *, max_positions: int = 512, base: float = 10000.0, interleaved: bool = True
    ) -> None:
        super().__init__()
        self.dim = check_even("dim", dim)
        self.base = check_base("base", base)
        self.interleaved = check_bool("interleaved", interleaved)
        self._precomputed = check_int("max_positions", max_positions)
        table = sinusoidal_encoding(self._precomputed, dim, base=base, interleaved=interleaved)
        self.register_buffer("encoding", table, persistent=False)  # [max_positions, d]

    def extra_repr(self) -> str:
        return (
            f"dim={self.dim}, max_positions={self._precomputed}, base={self.base}, "
            f"interleaved={self.interleaved}"
        )

    def reset_buffers(self) -> None:
        """Rebuild the table in place (after ``to_empty``; ``load_state_dict`` calls it)."""
        self.encoding = sinusoidal_encoding(
            self._precomputed,
            self.dim,
            base=self.base,
            interleaved=self.interleaved,
            dtype=self.encoding.dtype,
            device=self.encoding.device,
        )  # [max_positions, d]

    def forward(self, x: Tensor) -> Tensor:
        check_float_tensor("x", x, ndim=3)
        n, d = x.shape[-2:]
        if d != self.dim:
            raise ValueError(f"x must have {self.dim} channels in its last dimension, got {d}")
        if n <= self.encoding.shape[0] and x.dtype != torch.float64:
            table = self.encoding[:n]  # [n, d]
        else:  # longer than the table, or float64: the stored table is rounded to its dtype
            table = sinusoidal_encoding(
                n, d, base=self.base, interleaved=self.interleaved, dtype=x.dtype, device=x.device
            )  # [n, d]
        return x + table.to(device=x.device, dtype=x.dtype)  # [b, n, d]
