"""Absolute position encodings on a 2-D grid of image patches or feature-map pixels.

Three designs, each splitting the channels between the row and the column axis:

* fixed sin/cos per axis (seed 000, MAE, timm), :func:`sinusoidal_encoding_2d`;
* DETR's sine encoding of a padded feature map, :func:`detr_sine_encoding`;
* DETR's learned row and column tables, :class:`LearnedRowColEmbedding`;

plus :func:`resample_positional_embedding`, which resizes a learned table to a new grid, as
ViT and MAE do when fine-tuning at a higher resolution. The book's studies of these encodings
(similarity maps, the error of a resize) are in its own package, ``book.demos.absolute_2d``.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from ._checks import (
    check_base,
    check_bool,
    check_even,
    check_float_tensor,
    check_int,
    check_multiple,
    check_positive_float,
    check_state_dict_tables,
    check_tensor,
)
from .sinusoidal import sinusoidal_encoding

__all__ = [
    "LearnedRowColEmbedding",
    "ResampleMode",
    "detr_sine_encoding",
    "resample_positional_embedding",
    "sinusoidal_2d_channel_permutation",
    "sinusoidal_encoding_2d",
]

ResampleMode = Literal["bicubic", "bilinear", "nearest"]
_MODES = ("bicubic", "bilinear", "nearest")
_DIM_RULE = "half the channels per axis, each half in sin/cos pairs"


def _grid_size(name: str, size: object) -> tuple[int, int]:
    """``h`` or ``(h, w)`` → ``(h, w)``, both positive ints."""
    if isinstance(size, (tuple, list, torch.Size)):
        if len(size) != 2:
            raise ValueError(f"{name} must be an int or a pair (height, width), got {size!r}")
        return check_int(f"{name}[0]", size[0]), check_int(f"{name}[1]", size[1])
    side = check_int(name, size)
    return side, side


def _check_mode(mode: object) -> str:
    """``mode`` after checking it is one of the interpolation modes."""
    if not isinstance(mode, str) or mode not in _MODES:
        raise ValueError(f"mode must be 'bicubic', 'bilinear' or 'nearest', got {mode!r}")
    return mode


def sinusoidal_encoding_2d(
    height: int,
    width: int,
    dim: int,
    *,
    base: float = 10000.0,
    interleaved: bool = True,
    row_first: bool = True,
) -> Tensor:
    """Return a fixed 2-D sin/cos encoding: half the channels for the row, half for the column.

    .. math::

        PE(r, c) = \\big[\\, PE_{1D}(r) \\;\\|\\; PE_{1D}(c) \\,\\big]
        \\quad\\text{(row_first)}, \\qquad
        PE(r, c) = \\big[\\, PE_{1D}(c) \\;\\|\\; PE_{1D}(r) \\,\\big] \\quad\\text{(otherwise)}

    where :math:`PE_{1D}` is :func:`posenc.sinusoidal.sinusoidal_encoding` with ``d/2``
    channels. Grid positions are flattened row-major: row ``r``, column ``c`` is row
    ``r·width + c`` of the result.

    The defaults reproduce seed 000's ``create_2d_absolute_sincos_pe``.
    ``interleaved=False, row_first=False`` reproduces MAE's ``get_2d_sincos_pos_embed``
    exactly: there the first half (named ``emb_h``) encodes the *column*, because
    MAE calls NumPy's meshgrid with the column coordinates first (mae issue #18).

    Args:
        height: number of rows of the grid.
        width: number of columns of the grid.
        dim: ``d``, total channels (a multiple of 4: two axes, each with sin/cos pairs).
        base: frequency base, as in the 1-D encoding.
        interleaved: layout within each half (sin/cos alternating, or sines then cosines).
        row_first: whether the first half of the channels encodes the row.

    Returns:
        float32 tensor ``[height·width, d]``.

    Shapes:
        ``n = height·width``: positions, ``d``: channels.

    Matches: seed 000 (the book's source article ``000``, ``create_2d_absolute_sincos_pe``, defaults);
    He et al. (2022), facebookresearch/mae@be47fef7a727 `util/pos_embed.py`
    `get_2d_sincos_pos_embed` (``interleaved=False, row_first=False``).
    """
    height = check_int("height", height)
    width = check_int("width", width)
    dim = check_multiple("dim", dim, 4, _DIM_RULE)
    base = check_base("base", base)
    interleaved = check_bool("interleaved", interleaved)
    row_first = check_bool("row_first", row_first)
    rows = torch.arange(height).repeat_interleave(width)  # [h*w]: r of each position
    cols = torch.arange(width).repeat(height)  # [h*w]: c of each position
    row_code = sinusoidal_encoding(rows, dim // 2, base=base, interleaved=interleaved)  # [h*w, d/2]
    col_code = sinusoidal_encoding(cols, dim // 2, base=base, interleaved=interleaved)  # [h*w, d/2]
    halves = (row_code, col_code) if row_first else (col_code, row_code)
    return torch.cat(halves, dim=1)  # [h*w, d]


def sinusoidal_2d_channel_permutation(
    dim: int, *, interleaved: bool = False, row_first: bool = False
) -> Tensor:
    """Return the channel permutation from the seed layout to another 2-D sin/cos layout.

    .. math::

        PE_{\\text{layout}}[:, j] = PE_{\\text{seed}}[:, \\pi(j)]

    where the seed layout is ``interleaved=True, row_first=True``. The defaults give the
    permutation to MAE's layout. Every layout holds the same numbers: only the channel order
    differs. A trained checkpoint still cannot switch layouts by permuting the weights of the
    layer that reads the encoding: ViT and MAE add the encoding to the token, so that layer
    reads ``x + PE``, and permuting its weights would scramble ``x`` too.

    Args:
        dim: ``d``, total channels (a multiple of 4).
        interleaved: the target layout's within-half order.
        row_first: whether the target layout puts the row half first.

    Returns:
        LongTensor ``[d]``, a permutation of ``0..d-1``.
    """
    dim = check_multiple("dim", dim, 4, _DIM_RULE)
    interleaved = check_bool("interleaved", interleaved)
    row_first = check_bool("row_first", row_first)
    half = dim // 2
    pairs = torch.arange(half // 2)  # [d/4]
    # inside a half: interleaved keeps (sin_i, cos_i) order; otherwise all sines, then cosines
    within = torch.arange(half) if interleaved else torch.cat((2 * pairs, 2 * pairs + 1))  # [d/2]
    first, second = (0, half) if row_first else (half, 0)
    return torch.cat((first + within, second + within))  # [d]


def detr_sine_encoding(
    padding_mask: Tensor,
    num_pos_feats: int = 64,
    base: float = 10000.0,
    normalize: bool = False,
    scale: float | None = None,
) -> Tensor:
    """Return DETR's sine position encoding of a padded batch of feature maps.

    .. math::

        y_{b,r,c} = \\sum_{r' \\le r} [\\text{valid}_{b,r',c}], \\qquad
        x_{b,r,c} = \\sum_{c' \\le c} [\\text{valid}_{b,r,c'}], \\qquad
        \\text{dim}_t(j) = T^{\\,2\\lfloor j/2 \\rfloor / F}

        PE_y(2i) = \\sin\\big(y / \\text{dim}_t(2i)\\big), \\quad
        PE_y(2i+1) = \\cos\\big(y / \\text{dim}_t(2i+1)\\big), \\quad\\text{and the same for } x

    Positions count valid pixels, so they start at **1**. With ``normalize``, each is divided
    by the last one of its column (for ``y``) or row (for ``x``) plus ``1e-6`` and multiplied by
    ``scale`` (default ``2π``). The output stacks the ``y`` channels first, then ``x``.

    Args:
        padding_mask: boolean ``[b, H, W]``, ``True`` at **padding** (DETR's convention;
            Hugging Face's ``DetrSinePositionEmbedding`` takes the opposite, 1 = valid).
        num_pos_feats: ``F``, channels per axis (even); the output has ``2F``.
        base: ``T``, the frequency base (DETR calls it ``temperature``).
        normalize: scale positions to ``(0, scale]`` per row/column.
        scale: the upper end with ``normalize``; passing it without ``normalize`` is an error
            (as in DETR).

    Returns:
        float32 tensor ``[b, 2F, H, W]``.

    Shapes:
        ``b``: images, ``H, W``: feature-map rows and columns, ``F``: channels per axis.

    Matches: Carion et al. (2020), facebookresearch/detr@70a59831a3da `models/position_encoding.py`
    ``PositionEmbeddingSine``; angles here are computed in float64, then cast.
    """
    check_tensor("padding_mask", padding_mask, ndim=3)
    if padding_mask.dtype != torch.bool:
        raise TypeError(
            f"padding_mask must be a boolean tensor (True = padding), got {padding_mask.dtype}"
        )
    feats = check_even("num_pos_feats", num_pos_feats)
    base = check_base("base", base)
    normalize = check_bool("normalize", normalize)
    if scale is not None and not normalize:
        raise ValueError(
            "scale is only used with normalize=True; pass normalize=True or drop scale"
        )
    scale = 2 * math.pi if scale is None else check_positive_float("scale", scale)

    valid = (~padding_mask).to(torch.float64)  # [b, H, W]
    y = valid.cumsum(1)  # [b, H, W], 1-based row counts
    x = valid.cumsum(2)  # [b, H, W], 1-based column counts
    if normalize:
        eps = 1e-6
        y = y / (y[:, -1:, :] + eps) * scale
        x = x / (x[:, :, -1:] + eps) * scale
    j = torch.arange(feats, dtype=torch.float64, device=padding_mask.device)  # [F]
    dim_t = base ** (2 * torch.div(j, 2, rounding_mode="floor") / feats)  # [F]

    def encode(p: Tensor) -> Tensor:
        angles = p[..., None] / dim_t  # [b, H, W, F]
        return torch.stack((angles[..., 0::2].sin(), angles[..., 1::2].cos()), dim=-1).flatten(-2)

    pos = torch.cat((encode(y), encode(x)), dim=-1)  # [b, H, W, 2F]
    return pos.permute(0, 3, 1, 2).to(torch.float32)  # [b, 2F, H, W]


class LearnedRowColEmbedding(nn.Module):
    """DETR's learned 2-D encoding: one table for columns, one for rows, concatenated.

    .. math::

        PE(r, c) = \\big[\\, C_c \\;\\|\\; R_r \\,\\big], \\qquad C, R \\in
        \\mathbb{R}^{M \\times F}\\ \\text{learned}

    The column (``x``) half comes first, the opposite of :func:`detr_sine_encoding`. Both tables
    have ``max_positions`` rows (50 in DETR), so a feature map with more than ``max_positions`` rows or
    columns has no embedding: it raises a ``ValueError`` here (in DETR it is an index error,
    detr#251).

    Args:
        num_pos_feats: ``F``, channels per axis; the output has ``2F``.
        max_positions: ``M``, the largest height or width covered.

    Shapes:
        ``x``: ``[b, C, H, W]`` (only its shape is used) → ``[b, 2F, H, W]``.

    Matches: Carion et al. (2020), facebookresearch/detr@70a59831a3da `models/position_encoding.py`
    ``PositionEmbeddingLearned`` (``row_embed``/``col_embed``, uniform on ``[0, 1)``); transformers
    5.23.0 ``DetrLearnedPositionEmbedding``.
    """

    def __init__(self, num_pos_feats: int = 256, max_positions: int = 50) -> None:
        super().__init__()
        self.num_pos_feats = check_int("num_pos_feats", num_pos_feats)
        self.max_positions = check_int("max_positions", max_positions)
        self.row_embed = nn.Embedding(self.max_positions, self.num_pos_feats)
        self.col_embed = nn.Embedding(self.max_positions, self.num_pos_feats)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Initialise both tables uniformly on ``[0, 1)``, as DETR does."""
        nn.init.uniform_(self.row_embed.weight)
        nn.init.uniform_(self.col_embed.weight)

    def forward(self, x: Tensor) -> Tensor:
        check_float_tensor("x", x, ndim=4)
        b, _, h, w = x.shape
        if h > self.max_positions or w > self.max_positions:
            raise ValueError(
                f"feature map of {h}x{w} exceeds max_positions={self.max_positions}: the learned row and "
                f"column tables have no entries beyond {self.max_positions - 1} (use a larger max_positions, "
                "resample the tables, or a sine encoding)"
            )
        col = self.col_embed(torch.arange(w, device=x.device))  # [W, F]
        row = self.row_embed(torch.arange(h, device=x.device))  # [H, F]
        pos = torch.cat(
            (col[None, :, :].expand(h, w, -1), row[:, None, :].expand(h, w, -1)), dim=-1
        )  # [H, W, 2F]
        return pos.permute(2, 0, 1)[None].expand(b, -1, -1, -1).to(x.dtype)  # [b, 2F, H, W]

    def _load_from_state_dict(self, state_dict: dict[str, Any], prefix: str, *args: Any) -> None:
        check_state_dict_tables(self, state_dict, prefix)
        super()._load_from_state_dict(state_dict, prefix, *args)


def resample_positional_embedding(
    table: Tensor,
    old_size: int | tuple[int, int],
    new_size: int | tuple[int, int],
    *,
    mode: ResampleMode = "bicubic",
    antialias: bool = False,
    num_prefix_tokens: int = 0,
) -> Tensor:
    """Resize a learned 2-D position table to a new grid by image interpolation.

    .. math::

        P' = \\operatorname{interp}_{(h, w) \\to (h', w')}(P), \\qquad
        P \\in \\mathbb{R}^{h \\times w \\times d}

    Each channel is treated as an ``h × w`` image and resized with ``F.interpolate``
    (``align_corners=False``). With the defaults this is MAE's ``interpolate_pos_embed``; with
    ``antialias=True`` it is timm's ``resample_abs_pos_embed`` at timm's defaults (bicubic,
    ``antialias=True``). ViT's own code resizes differently (``scipy.ndimage.zoom`` with
    ``order=1``: linear, corner cells aligned). Rows of prefix tokens (a class token) are
    kept unchanged in front when ``num_prefix_tokens > 0``.

    Args:
        table: ``[n_prefix + h·w, d]`` or ``[1, n_prefix + h·w, d]``, grid rows in row-major order.
        old_size: ``h`` or ``(h, w)`` of the table's grid.
        new_size: ``h'`` or ``(h', w')`` of the wanted grid.
        mode: ``"bicubic"`` (MAE, timm), ``"bilinear"`` or ``"nearest"``.
        antialias: PyTorch's antialiased path (``False`` reproduces MAE, ``True`` timm's
            default); for bicubic it is PIL's ``a = −0.5`` filter even when enlarging.
        num_prefix_tokens: leading rows that are not grid positions (copied unchanged).

    Returns:
        a table of the same rank and dtype, ``[n_prefix + h'·w', d]`` (or with the leading 1).

    Shapes:
        ``d``: channels; ``h, w`` → ``h', w'``: grid sizes.

    Matches: facebookresearch/mae@be47fef7a727 `util/pos_embed.py` ``interpolate_pos_embed``; timm
    1.0.31 `timm/layers/pos_embed.py` ``resample_abs_pos_embed``.
    """
    check_tensor("table", table)
    if table.ndim == 3 and table.shape[0] != 1:
        raise ValueError(f"table of rank 3 must have a leading 1, got shape {tuple(table.shape)}")
    if table.ndim not in (2, 3):
        raise ValueError(f"table must be [n, d] or [1, n, d], got shape {tuple(table.shape)}")
    check_float_tensor("table", table)
    if table.shape[-1] == 0:
        raise ValueError(f"table must have at least one channel, got shape {tuple(table.shape)}")
    mode = _check_mode(mode)
    antialias = check_bool("antialias", antialias)
    if antialias and mode == "nearest":
        raise ValueError("antialias=True needs mode 'bicubic' or 'bilinear', got mode 'nearest'")
    oh, ow = _grid_size("old_size", old_size)
    nh, nw = _grid_size("new_size", new_size)
    prefix = check_int("num_prefix_tokens", num_prefix_tokens, minimum=0)
    rows = table.reshape(-1, table.shape[-1])  # [n_prefix + h*w, d]
    if rows.shape[0] != prefix + oh * ow:
        raise ValueError(
            f"table has {rows.shape[0]} rows but num_prefix_tokens + old_size gives "
            f"{prefix} + {oh}*{ow} = {prefix + oh * ow}"
        )
    d = rows.shape[1]
    grid = rows[prefix:].reshape(1, oh, ow, d).permute(0, 3, 1, 2)  # [1, d, h, w]
    kwargs = {} if mode == "nearest" else {"align_corners": False, "antialias": antialias}
    resized = F.interpolate(grid, size=(nh, nw), mode=mode, **kwargs)  # [1, d, h', w']
    out = torch.cat((rows[:prefix], resized.permute(0, 2, 3, 1).reshape(nh * nw, d)))  # [n', d]
    return out[None] if table.ndim == 3 else out
