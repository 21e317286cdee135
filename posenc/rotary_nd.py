"""Rotary position embedding on grids: M-RoPE (Qwen2-VL) and 2-D axial RoPE (vision).

A token of an image or a video has several coordinates (time, row, column), not one
position. The two schemes in use give every channel pair of RoPE one axis to rotate with:

* **M-RoPE** (multimodal RoPE, Qwen2-VL; :func:`rotary_angles_nd`) keeps the ``d/2``
  frequencies of 1-D RoPE, ``θ_j = base^{-2j/d}``, and cuts the pairs into consecutive
  ``sections``, one per axis: with Qwen2-VL's ``[16, 24, 24]`` for ``d = 128``, pairs
  ``0..15`` turn with time, ``16..39`` with the row and ``40..63`` with the column. The time
  axis gets the fastest frequencies, the column the slowest.
* **Axial 2-D RoPE** (:func:`rotary_angles_2d`; Qwen2-VL's vision encoder, timm's
  ``build_rotary_pos_embed``) gives each of the two axes a full 1-D RoPE of ``d/2`` channels
  (``d/4`` pairs, frequencies ``base^{-4j/d}``): the first ``d/4`` pairs turn with the row,
  the last ``d/4`` with the column, each axis over the whole range of frequencies.

Either way a pair turns with one coordinate only, so the logit of a query and a key depends
on their coordinates through the offset per axis: the relative property of RoPE holds axis
by axis. Text tokens in Qwen2-VL carry the same number on all three axes, which makes M-RoPE
equal to 1-D RoPE on them.

The functions return the ``d/2`` angles per token ("the half of the angles"); the channel
layout is chosen afterwards, as in :mod:`posenc.rotary`: :func:`rotary_cos_sin_nd` spreads
them over ``d`` channels, interleaved (timm's default) or as two halves (Hugging Face's
``cat((freqs, freqs))``), and :func:`apply_rotary_nd` rotates queries or keys with them.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

from ._checks import (
    broadcast_shape,
    check_bool,
    check_even,
    check_finite,
    check_float_tensor,
    check_floating_dtype,
    check_int,
    check_multiple,
    check_rotated,
    check_tensor,
)
from .rotary import rotary_quarter_turn
from .sinusoidal import sinusoidal_frequencies

__all__ = [
    "apply_rotary_nd",
    "rotary_angles_2d",
    "rotary_angles_nd",
    "rotary_cos_sin_nd",
    "rotary_pair_axes",
]

Device = torch.device | str | None


def _grid_positions(name: str, positions: object) -> Tensor:
    """``positions`` ``[..., n, a]`` (real, finite) as float64."""
    check_tensor(name, positions)
    if positions.ndim < 2:
        raise ValueError(
            f"{name} must have at least 2 dimensions [..., n, a] (one coordinate per axis in "
            f"the last), got shape {tuple(positions.shape)}"
        )
    if positions.shape[-1] == 0:
        raise ValueError(f"{name} must have at least one axis (last dimension), got 0")
    if positions.is_complex() or positions.dtype == torch.bool:
        raise TypeError(f"{name} must hold real numbers, got dtype {positions.dtype}")
    check_finite(name, positions)
    return positions.to(torch.float64)  # [..., n, a]


def rotary_pair_axes(
    dim: int, num_axes: int, *, sections: Sequence[int] | None = None, device: Device = None
) -> Tensor:
    """Return the axis each channel pair of M-RoPE turns with.

    .. math::

        \\operatorname{axis}(j) = \\min\\Big\\{a : j < \\sum_{b \\le a} s_b\\Big\\},
        \\qquad j = 0, \\dots, d/2 - 1

    The pairs are cut into consecutive sections of ``s_0, s_1, …`` pairs, in the order of
    the axes.

    Args:
        dim: ``d``, channels (even).
        num_axes: ``a``, the number of coordinates per token (3 in Qwen2-VL: time, row, column).
        sections: pairs per axis, ``a`` non-negative ints summing to ``d/2`` (Qwen2-VL calls
            it ``mrope_section``; ``[16, 24, 24]`` for its ``d = 128``). ``None``: equal
            sections, ``d/(2a)`` each, which needs ``a`` to divide ``d/2``.
        device: where to build the result.

    Returns:
        LongTensor ``[d/2]`` of axes ``0..a−1``, non-decreasing.

    Shapes:
        ``d``: channels, ``a``: axes.

    Matches: transformers 5.23.0 `models/qwen2_vl/modeling_qwen2_vl.py`
    ``Qwen2VLRotaryEmbedding.recomposition_frequencies`` (``freq.split(mrope_section)``, section
    ``i`` from axis ``i % 3``).

    Example:
        >>> rotary_pair_axes(12, 3, sections=[1, 2, 3]).tolist()
        [0, 1, 1, 2, 2, 2]
    """
    return _pair_axes(dim, num_axes, sections, device)  # [d/2]


def _sections(dim: int, num_axes: int, sections: Sequence[int] | None) -> list[int]:
    """The pairs per axis, checked."""
    dim = check_even("dim", dim)
    num_axes = check_int("num_axes", num_axes)
    half = dim // 2
    if sections is None:
        if half % num_axes:
            raise ValueError(
                f"dim/2 ({half} pairs) must be a multiple of the {num_axes} axes for equal "
                "sections; pass sections= (pairs per axis) otherwise"
            )
        return [half // num_axes] * num_axes
    if isinstance(sections, (str, bytes)) or not isinstance(sections, Sequence):
        raise TypeError(
            f"sections must be a sequence of ints (pairs per axis), got {type(sections).__name__}"
        )
    if len(sections) != num_axes:
        raise ValueError(
            f"sections must have one entry per axis ({num_axes}), got {len(sections)}: "
            f"{list(sections)}"
        )
    counts = [check_int(f"sections[{i}]", s, minimum=0) for i, s in enumerate(sections)]
    if sum(counts) != half:
        raise ValueError(
            f"sections must sum to dim/2 = {half} pairs, got {counts} (sum {sum(counts)})"
        )
    return counts


def _pair_axes(dim: int, num_axes: int, sections: Sequence[int] | None, device: Device) -> Tensor:
    counts = _sections(dim, num_axes, sections)
    axes = [a for a, count in enumerate(counts) for _ in range(count)]
    return torch.tensor(axes, dtype=torch.long, device=device)  # [d/2]


def rotary_angles_nd(
    positions: Tensor,
    dim: int,
    *,
    base: float = 10000.0,
    sections: Sequence[int] | None = None,
) -> Tensor:
    """Return the M-RoPE angle of every channel pair of every token on a grid.

    .. math::

        \\phi_{t,j} = p_{t,\\operatorname{axis}(j)}\\; \\theta_j, \\qquad
        \\theta_j = \\text{base}^{-2j/d}, \\qquad j = 0, \\dots, d/2 - 1

    Token ``t`` has the coordinates ``p_t = (p_{t,0}, …, p_{t,a−1})``; pair ``j`` keeps the
    frequency of 1-D RoPE (:func:`posenc.rotary.rotary_angles`) and turns with the
    coordinate of its section's axis (:func:`rotary_pair_axes`). With all coordinates of a
    token equal (Qwen2-VL's text tokens) this is 1-D RoPE. A query and a key then have the
    logit of their offsets per axis, ``p_s − p_t``, only.

    Args:
        positions: ``[..., n, a]``, one coordinate per axis in the last dimension (e.g.
            ``(time, row, column)``), integer or real, finite. Qwen2-VL's ``position_ids``
            ``[3, b, n]`` are ``positions.permute(2, 0, 1)``.
        dim: ``d``, channels (even).
        base: as in :func:`posenc.rotary.rotary_angles` (Qwen2-VL's ``rope_theta``, 1000000).
        sections: pairs per axis, summing to ``d/2`` (Qwen2-VL's ``mrope_section``); ``None``
            for equal sections.

    Returns:
        float64 tensor ``[..., n, d/2]``, on the device of ``positions``.

    Shapes:
        ``n``: tokens, ``a``: axes, ``d``: channels.

    Matches: transformers 5.23.0 `models/qwen2_vl/modeling_qwen2_vl.py`
    ``Qwen2VLRotaryEmbedding.forward`` (its ``freqs`` recomposed by
    ``recomposition_frequencies``, before ``cat((freq, freq))``); Wang et al. (2024),
    Qwen2-VL (M-RoPE).
    """
    pos = _grid_positions("positions", positions)  # [..., n, a]
    axes = _pair_axes(dim, pos.shape[-1], sections, pos.device)  # [d/2]
    theta = sinusoidal_frequencies(dim, base=base, device=pos.device)  # [d/2]
    return pos[..., axes] * theta  # [..., n, d/2]


def rotary_angles_2d(
    height: int, width: int, dim: int, *, base: float = 10000.0, device: Device = None
) -> Tensor:
    """Return the axial 2-D RoPE angles of the tokens of a ``height × width`` grid.

    .. math::

        \\phi_{(r,c),j} = r\\,\\omega_j, \\qquad \\phi_{(r,c),d/4+j} = c\\,\\omega_j, \\qquad
        \\omega_j = \\text{base}^{-4j/d}, \\qquad j = 0, \\dots, d/4 - 1

    Each axis gets its own 1-D RoPE over half the channels: the first ``d/4`` pairs turn with
    the row ``r``, the last ``d/4`` with the column ``c``, with the frequencies of a
    ``d/2``-channel RoPE. Unlike M-RoPE's sections, both axes span the whole range of
    frequencies. Tokens are in row-major order (``meshgrid(..., indexing="ij")``), as
    :func:`posenc.window.window_partition` lays them out.

    Layouts of the references: Qwen2-VL's vision encoder spreads the ``d/2`` angles as two
    halves (``interleaved=False`` in :func:`rotary_cos_sin_nd`), timm's
    ``build_rotary_pos_embed`` interleaves them by default (``interleaved=True``), or as two
    halves with ``rotate_half=True``.

    Args:
        height: ``H``, rows of the grid.
        width: ``W``, columns of the grid.
        dim: ``d``, channels, a multiple of 4 (two axes of channel pairs).
        base: as in :func:`posenc.rotary.rotary_angles` (timm calls it ``temperature``).
        device: where to build the result.

    Returns:
        float64 tensor ``[H·W, d/2]``.

    Shapes:
        ``H × W``: the grid, ``d``: channels.

    Matches: transformers 5.23.0 `models/qwen2_vl/modeling_qwen2_vl.py`
    ``Qwen2VLVisionRotaryEmbedding`` (``compute_axial_rope_parameters`` and
    ``recomposition_frequencies``, before ``cat([freq_hw, freq_hw])``); timm 1.0.31
    `timm/layers/pos_embed_sincos.py` ``build_rotary_pos_embed(feat_shape=[H, W], dim=d,
    in_pixels=False, temperature=base)`` before its ``_rope_layout``.
    """
    height = check_int("height", height)
    width = check_int("width", width)
    dim = check_multiple("dim", dim, 4, "two axes of channel pairs")
    omega = sinusoidal_frequencies(dim // 2, base=base, device=device)  # [d/4]
    rows = torch.arange(height, dtype=torch.float64, device=omega.device)  # [H]
    cols = torch.arange(width, dtype=torch.float64, device=omega.device)  # [W]
    r, c = torch.meshgrid(rows, cols, indexing="ij")  # [H, W] each
    r, c = r.reshape(-1, 1), c.reshape(-1, 1)  # [H*W, 1] each
    return torch.cat((r * omega, c * omega), dim=-1)  # [H*W, d/2]


def rotary_cos_sin_nd(
    angles: Tensor, *, interleaved: bool = True, dtype: torch.dtype = torch.float32
) -> tuple[Tensor, Tensor]:
    """Return the cosine and sine tables of given RoPE angles, in a channel layout.

    .. math::

        C_{t,c} = \\cos\\phi_{t,\\pi(c)}, \\qquad S_{t,c} = \\sin\\phi_{t,\\pi(c)}

    with ``π(c) = c // 2`` when ``interleaved`` (``φ_0 φ_0 φ_1 φ_1 …``), ``c mod d/2``
    otherwise (``φ_0 … φ_{d/2−1} φ_0 … φ_{d/2−1}``), as
    :func:`posenc.rotary.rotary_cos_sin` lays out 1-D angles.

    Args:
        angles: ``[..., n, d/2]`` from :func:`rotary_angles_nd` or :func:`rotary_angles_2d`
            (floating point).
        interleaved: the channel layout (see :mod:`posenc.rotary`).
        dtype: dtype of the tables, floating point (cosines are taken in float64).

    Returns:
        ``(cos, sin)``, each ``[..., n, d]``, on the device of ``angles``.

    Shapes:
        ``n``: tokens, ``d``: channels.

    Matches: transformers 5.23.0 `models/qwen2_vl/modeling_qwen2_vl.py`
    ``Qwen2VLRotaryEmbedding.forward`` and ``Qwen2VLVisionRotaryEmbedding.forward``
    (``interleaved=False``); timm 1.0.31 `timm/layers/pos_embed_sincos.py` ``_rope_layout``
    (``interleaved=True`` for ``rotate_half=False``).
    """
    check_float_tensor("angles", angles)
    if angles.ndim == 0 or angles.shape[-1] == 0:
        raise ValueError(
            f"angles must be [..., n, d/2] with d/2 >= 1, got shape {tuple(angles.shape)}"
        )
    interleaved = check_bool("interleaved", interleaved)
    check_floating_dtype("dtype", dtype)
    phi = angles.to(torch.float64)  # [..., n, d/2]
    if interleaved:
        phi = phi.repeat_interleave(2, dim=-1)  # [..., n, d]: φ0 φ0 φ1 φ1 …
    else:
        phi = torch.cat((phi, phi), dim=-1)  # [..., n, d]: φ0 φ1 … φ0 φ1 …
    return torch.cos(phi).to(dtype), torch.sin(phi).to(dtype)


def apply_rotary_nd(
    x: Tensor,
    positions: Tensor,
    *,
    base: float = 10000.0,
    sections: Sequence[int] | None = None,
    interleaved: bool = True,
) -> Tensor:
    """Return queries or keys rotated by M-RoPE: each pair by its axis's coordinate.

    .. math::

        y_t = x_t \\odot C_t + J x_t \\odot S_t

    with ``C``, ``S`` the tables of :func:`rotary_cos_sin_nd` for the angles of
    :func:`rotary_angles_nd`, and ``J`` the quarter turn of every pair
    (:func:`posenc.rotary.rotary_quarter_turn`). Axial 2-D RoPE has other frequencies: rotate
    with the tables ``rotary_cos_sin_nd(rotary_angles_2d(H, W, d))`` instead.

    Args:
        x: queries or keys ``[..., n, d]`` (floating point, ``d`` even), e.g. ``[b, h, n, d]``.
        positions: ``[..., n, a]`` coordinates per token, whose leading dimensions broadcast
            against ``x.shape[:-2]`` (e.g. ``[b, 1, n, 3]`` for ``[b, h, n, d]``).
        base: as in :func:`rotary_angles_nd`.
        sections: as in :func:`rotary_angles_nd`.
        interleaved: the channel layout (Qwen2-VL: ``False``).

    Returns:
        tensor of ``x``'s dtype and the broadcast shape (``x.shape`` for ``[n, a]`` positions).

    Shapes:
        ``n``: tokens, ``a``: axes, ``d``: channels per head.

    Matches: transformers 5.23.0 `models/qwen2_vl/modeling_qwen2_vl.py`
    ``Qwen2VLRotaryEmbedding`` + ``apply_rotary_pos_emb`` (``interleaved=False``).
    """
    n, d = check_rotated("x", x)
    pos = _grid_positions("positions", positions)  # [..., n, a]
    if pos.shape[-2] != n:
        raise ValueError(
            f"positions must have x's {n} tokens in its second-to-last dimension, "
            f"got shape {tuple(pos.shape)}"
        )
    if broadcast_shape(tuple(pos.shape[:-2]), tuple(x.shape[:-2])) is None:
        raise ValueError(
            f"positions' leading dimensions {tuple(pos.shape[:-2])} do not broadcast "
            f"against x's {tuple(x.shape[:-2])}"
        )
    interleaved = check_bool("interleaved", interleaved)
    angles = rotary_angles_nd(pos, d, base=base, sections=sections)  # [..., n, d/2]
    cos, sin = rotary_cos_sin_nd(angles, interleaved=interleaved, dtype=x.dtype)  # [..., n, d]
    cos, sin = cos.to(x.device), sin.to(x.device)
    return x * cos + rotary_quarter_turn(x, interleaved=interleaved) * sin
