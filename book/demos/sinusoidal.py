"""Chapter 3's comparison of the sinusoidal channels with counting in binary.

Not model code: :mod:`posenc.sinusoidal` holds the encoding and the facts behind it.
:func:`binary_digits` gives the bits of each position, whose rates halve from bit to bit as
the frequencies of the sinusoidal channels fall from pair to pair; the chapter's figure
(:func:`book.figures.sinusoidal.binary_vs_sinusoidal_figure`) draws the two side by side.
"""

from __future__ import annotations

import torch
from torch import Tensor

from posenc._checks import as_positions, check_int

__all__ = ["binary_digits"]

Device = torch.device | str | None


def binary_digits(positions: int | Tensor, n_bits: int, *, device: Device = None) -> Tensor:
    """Return the binary digits of each position, least significant bit first.

    .. math::

        B(p, b) = \\lfloor p / 2^b \\rfloor \\bmod 2, \\qquad b = 0, \\dots, n_{bits} - 1

    Bit ``b`` flips every ``2^b`` positions (period ``2^{b+1}``): the rates halve from bit to
    bit, as the frequencies of the sinusoidal channels fall from pair to pair. The book shows
    the two side by side.

    Args:
        positions: an int ``n`` (positions ``0..n-1``) or a 1-D tensor of non-negative
            integer positions, each below ``2**n_bits``.
        n_bits: how many digits to return (a positive int, at most 62).
        device: where to build ``0..n-1`` when ``positions`` is an int.

    Returns:
        float32 tensor of 0s and 1s of shape ``[n, n_bits]``.

    Shapes:
        ``n``: positions.
    """
    n_bits = check_int("n_bits", n_bits)
    if n_bits > 62:
        raise ValueError(f"n_bits must be at most 62, got {n_bits}")
    pos = as_positions("positions", positions, device=device)  # [n]
    if pos.device.type != "meta":  # meta tensors have no values to check
        if bool((pos != torch.round(pos)).any()) or bool((pos < 0).any()):
            raise ValueError("positions must be non-negative integers")
        if bool((pos >= 2.0**n_bits).any()):
            top = int(pos.max())
            raise ValueError(f"positions must be below 2**n_bits = {2**n_bits}, got {top}")
    p = pos.to(torch.int64)  # [n]
    bits = torch.arange(n_bits, device=p.device)  # [n_bits]
    return ((p[:, None] >> bits[None, :]) & 1).to(torch.float32)  # [n, n_bits]
