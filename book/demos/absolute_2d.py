"""Chapter 5's studies of 2-D absolute encodings: similarity maps and the error of a resize.

Not model code: :mod:`posenc.absolute_2d` holds the encodings and
:func:`posenc.absolute_2d.resample_positional_embedding`, which a model calls to move a
learned table to a new grid. These functions study them:

* :func:`position_similarity_map`: one position's cosine similarity to every grid cell
  (ViT's figure 7);
* :func:`stretched_sincos_encoding_2d`: the exact sin/cos table at the fractional positions a
  resize samples, what a perfect interpolation would return;
* :func:`sincos_resampling_error`: a resize's error against it;
* two summaries of that error: :func:`resampling_error_per_pair` (per frequency) and
  :func:`resampling_error_map` (per grid cell, slow channels).
"""

from __future__ import annotations

import math
from typing import get_args

import torch
import torch.nn.functional as F
from torch import Tensor

from posenc._checks import (
    check_base,
    check_bool,
    check_choice,
    check_finite,
    check_float_tensor,
    check_int,
    check_multiple,
    check_positive_float,
    check_tensor,
)
from posenc.absolute_2d import (
    ResampleMode,
    resample_positional_embedding,
    sinusoidal_encoding_2d,
)
from posenc.sinusoidal import sinusoidal_encoding, sinusoidal_frequencies

__all__ = [
    "position_similarity_map",
    "resampling_error_map",
    "resampling_error_per_pair",
    "sincos_resampling_error",
    "stretched_sincos_encoding_2d",
]

_DIM_RULE = "half the channels per axis, each half in sin/cos pairs"


def position_similarity_map(table: Tensor, height: int, width: int, row: int, col: int) -> Tensor:
    """Return the cosine similarity of one grid position's code to every position, as an image.

    .. math::

        S_{r', c'} = \\frac{PE(r, c) \\cdot PE(r', c')}{\\lVert PE(r, c)\\rVert\\,
        \\lVert PE(r', c')\\rVert}

    A bright spot at ``(row, col)`` and the positions the encoding considers "near" it. For
    :func:`posenc.absolute_2d.sinusoidal_encoding_2d` this is ``½ρ(r − r') + ½ρ(c − c')``
    with ``ρ(k) = (4/d) Σ_i cos(k ω_i)``.

    Args:
        table: ``[height·width, d]``, grid positions in row-major order (any real dtype; a
            learned table is detached first).
        height: rows of the grid.
        width: columns of the grid.
        row: the row of the reference position.
        col: the column of the reference position.

    Returns:
        float64 tensor ``[height, width]`` in ``[-1, 1]``, equal to 1 at ``(row, col)``.

    Shapes:
        ``n = height·width`` positions, ``d`` channels.

    Matches: the position-embedding similarity maps of Dosovitskiy et al. (2021), figure 7.
    """
    check_tensor("table", table, ndim=2)
    if table.dtype == torch.bool or table.is_complex():
        raise TypeError(f"table must hold real numbers, got dtype {table.dtype}")
    height, width = check_int("height", height), check_int("width", width)
    if table.shape[0] != height * width:
        raise ValueError(
            f"table has {table.shape[0]} rows, expected height*width = {height * width}"
        )
    if table.shape[1] == 0:
        raise ValueError(f"table must have at least one channel, got shape {tuple(table.shape)}")
    row, col = check_int("row", row, minimum=0), check_int("col", col, minimum=0)
    if not (row < height and col < width):
        raise ValueError(f"(row, col) must lie on the {height}x{width} grid, got ({row}, {col})")
    unit = F.normalize(table.detach().to(torch.float64), dim=1)  # [n, d]
    sim = unit @ unit[row * width + col]  # [n]
    return sim.clamp(-1.0, 1.0).reshape(height, width)  # [h, w]


def _stretched_coordinates(old: int, new: int) -> Tensor:
    """Where output cell ``o`` of a resize ``old → new`` reads the input (align_corners=False)."""
    return (torch.arange(new, dtype=torch.float64) + 0.5) * old / new - 0.5  # [new]


def stretched_sincos_encoding_2d(
    old_size: int, new_size: int, dim: int, *, base: float = 10000.0
) -> Tensor:
    """Return the exact 2-D sin/cos table at the positions an ``old → new`` resize samples.

    .. math::

        s_o = \\big(o + \\tfrac12\\big)\\,\\frac{h}{h'} - \\tfrac12, \\qquad
        PE'(r', c') = \\big[\\, PE_{1D}(s_{r'}) \\;\\|\\; PE_{1D}(s_{c'}) \\,\\big]

    ``F.interpolate`` with ``align_corners=False`` aligns the *centres* of the old and new
    pixels, so output cell ``o`` reads the input at the fractional coordinate ``s_o``. This
    table is what a perfect interpolation of
    :func:`posenc.absolute_2d.sinusoidal_encoding_2d` (seed layout) from an ``h × h`` to an
    ``h' × h'`` grid would return; its difference from
    :func:`posenc.absolute_2d.resample_positional_embedding` is the interpolation error.

    Args:
        old_size: ``h``, side of the original square grid.
        new_size: ``h'``, side of the resized grid.
        dim: ``d``, channels (a multiple of 4).
        base: frequency base.

    Returns:
        float32 tensor ``[h'·h', d]``, row-major (angles computed in float64).

    Shapes:
        ``n = h'·h'`` positions, ``d`` channels.

    Matches: the source coordinate of torch 2.13.0 ``F.interpolate`` (``align_corners=False``) as
    used by facebookresearch/mae@be47fef7a727 `util/pos_embed.py` ``interpolate_pos_embed``; equal
    to :func:`posenc.absolute_2d.sinusoidal_encoding_2d` when ``old_size == new_size``.
    """
    old, new = check_int("old_size", old_size), check_int("new_size", new_size)
    dim = check_multiple("dim", dim, 4, _DIM_RULE)
    base = check_base("base", base)
    s = _stretched_coordinates(old, new)  # [h']
    rows, cols = torch.meshgrid(s, s, indexing="ij")  # [h', h'] each
    row_code = sinusoidal_encoding(rows.flatten(), dim // 2, base=base)  # [n, d/2]
    col_code = sinusoidal_encoding(cols.flatten(), dim // 2, base=base)  # [n, d/2]
    return torch.cat((row_code, col_code), dim=1)  # [n, d]


def sincos_resampling_error(
    old_size: int,
    new_size: int,
    dim: int,
    *,
    base: float = 10000.0,
    mode: ResampleMode = "bicubic",
    antialias: bool = False,
) -> Tensor:
    """Return the error of resizing the 2-D sin/cos table, against the exact table on the new grid.

    .. math::

        E = \\operatorname{interp}_{h \\to h'}\\big(PE_{h \\times h}\\big) - PE'_{h' \\times h'}

    ``PE`` is :func:`posenc.absolute_2d.sinusoidal_encoding_2d` on the ``h × h`` grid
    (float32, as a model holds it, seed layout), resized by
    :func:`posenc.absolute_2d.resample_positional_embedding` with ``mode`` and ``antialias``;
    ``PE'`` is :func:`stretched_sincos_encoding_2d`, what a perfect interpolation would
    return. Both are taken to float64 before the subtraction.

    Args:
        old_size: ``h``, side of the original square grid.
        new_size: ``h'``, side of the resized grid.
        dim: ``d``, channels (a multiple of 4).
        base: frequency base.
        mode: the interpolation, as in
            :func:`posenc.absolute_2d.resample_positional_embedding`.
        antialias: as in :func:`posenc.absolute_2d.resample_positional_embedding`
            (``True``: Keys' ``a = −0.5``).

    Returns:
        float64 tensor ``[h'·h', d]``, row-major, in the seed layout.

    Shapes:
        ``n' = h'·h'`` positions, ``d`` channels.

    Matches: the resampling of facebookresearch/mae@be47fef7a727 `util/pos_embed.py`
    ``interpolate_pos_embed`` (defaults) measured against the formula; see
    :func:`stretched_sincos_encoding_2d`.
    """
    old_size = check_int("old_size", old_size)
    new_size = check_int("new_size", new_size)
    dim = check_multiple("dim", dim, 4, _DIM_RULE)
    base = check_base("base", base)
    mode = check_choice("mode", mode, get_args(ResampleMode))
    antialias = check_bool("antialias", antialias)
    table = sinusoidal_encoding_2d(old_size, old_size, dim, base=base)  # [h*h, d]
    exact = stretched_sincos_encoding_2d(old_size, new_size, dim, base=base).double()  # [n', d]
    resized = resample_positional_embedding(
        table, old_size, new_size, mode=mode, antialias=antialias
    )  # [n', d]
    return resized.double() - exact  # [n', d]


def _check_sincos_error(error: object) -> Tensor:
    """``error`` as float64 ``[n, d]`` after checking ``d`` is a multiple of 4."""
    check_float_tensor("error", error, ndim=2)
    if error.shape[0] == 0:
        raise ValueError(f"error must hold at least one position, got shape {tuple(error.shape)}")
    check_finite("error", error)
    check_multiple(
        "error.shape[1]",
        error.shape[1],
        4,
        "the 2-D sin/cos layout: half the channels per axis, each half in sin/cos pairs",
    )
    return error.detach().to(torch.float64)


def resampling_error_per_pair(error: Tensor) -> Tensor:
    """Return the RMS of a 2-D sin/cos table's error for each frequency.

    .. math::

        \\varepsilon_i = \\sqrt{\\frac{1}{4}\\sum_{a \\in \\{r, c\\}}
        \\sum_{f \\in \\{\\sin, \\cos\\}} \\frac{1}{n}\\sum_{p} E_{p,\\,(a, f, i)}^2}

    the mean square over the grid positions ``p`` of each of the four channels of pair ``i``
    (sine and cosine, in the row half and in the column half), averaged, then the square root.
    With :func:`sincos_resampling_error`, how badly a resize renders each frequency.

    Args:
        error: ``[n, d]``, channels in the seed layout
            (:func:`posenc.absolute_2d.sinusoidal_encoding_2d`'s default: row half then column
            half, each of ``d/4`` interleaved sin/cos pairs).

    Returns:
        float64 tensor ``[d/4]``; entry ``i`` belongs to the frequency
        ``sinusoidal_frequencies(d/2)[i]``.

    Shapes:
        ``n`` positions, ``d`` channels.
    """
    e = _check_sincos_error(error)  # [n, d]
    d = e.shape[1]
    per_channel = e.pow(2).mean(0)  # [d]
    return per_channel.reshape(2, d // 4, 2).mean(dim=(0, 2)).sqrt()  # [d/4]


def resampling_error_map(
    error: Tensor, *, base: float = 10000.0, max_frequency: float = 0.1
) -> Tensor:
    """Return where on the grid the error of the slow channels sits: their RMS per position.

    .. math::

        M_{r', c'} = \\sqrt{\\frac{1}{|S|}\\sum_{k \\in S} E_{(r', c'),\\,k}^2}, \\qquad
        S = \\{k : \\omega(k) < \\omega_{\\max}\\}

    where ``ω(k)`` is the frequency of channel ``k`` (in both halves, sine and cosine) and
    ``ω_max = max_frequency``. Slow channels vary little from cell to cell, so a resize is
    nearly exact for them inside the grid: what is left shows where the filter goes wrong (at
    the border, where samples are missing, or in a ripple inside).

    Args:
        error: ``[h'·h', d]`` on a square grid, row-major, channels in the seed layout (see
            :func:`resampling_error_per_pair`).
        base: the frequency base of the table.
        max_frequency: ``ω_max``; at least one pair must be slower.

    Returns:
        float64 tensor ``[h', h']``.

    Shapes:
        ``n' = h'·h'`` positions, ``d`` channels.
    """
    e = _check_sincos_error(error)  # [n', d]
    n, d = e.shape
    side = math.isqrt(n)
    if side * side != n:
        raise ValueError(f"error must hold a square grid of positions (h'·h' rows), got {n} rows")
    base = check_base("base", base)
    max_frequency = check_positive_float("max_frequency", max_frequency)
    omega = sinusoidal_frequencies(d // 2, base=base)  # [d/4]
    slow_pairs = omega < max_frequency  # [d/4]
    if not bool(slow_pairs.any()):
        raise ValueError(
            f"max_frequency must exceed the slowest frequency "
            f"({float(omega.min()):.3g}), got {max_frequency}"
        )
    slow = torch.cat([slow_pairs] * 2).repeat_interleave(2)  # [d]: True for slow channels
    columns = slow.nonzero()[:, 0].to(e.device)  # [n_slow], on error's device (meta included)
    return e.index_select(1, columns).pow(2).mean(1).sqrt().reshape(side, side)  # [h', h']
