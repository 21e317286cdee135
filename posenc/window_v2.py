"""Swin Transformer V2's continuous position bias: a small MLP on log-spaced offsets.

Swin V1 (:class:`posenc.window.SwinRelativePositionBias`) learns one number per head for each
offset of a window: a table with ``(2W_h − 1)(2W_w − 1)`` rows that has no row for the
offsets of a larger window. Swin V2 (Liu et al., CVPR 2022) computes the bias instead, from
the offset itself: each offset ``(Δr, Δc)`` is scaled to ``[−8, 8]`` by the window (or by
the window the model was pretrained with), squashed logarithmically,

.. math::

    \\widehat{\\Delta} = \\operatorname{sign}(\\Delta)\\,
    \\frac{\\log_2(1 + |\\Delta|)}{\\log_2 8},

and fed to an MLP ``2 → hidden → h``. The bias of a pair is ``16·sigmoid`` of the MLP's output
at the pair's offset. A window larger than the pretrained one gives offsets beyond ``±8``
before the logarithm, which grow only slowly after it: the MLP extrapolates a little instead
of a table being resized.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import torch
from torch import Tensor, nn

from ._buffers import FixedTables
from ._checks import check_int, check_pair, check_state_dict_tables
from .window import relative_position_index

__all__ = ["ContinuousPositionBias", "log_spaced_relative_coords"]


def _pretrained(value: object) -> tuple[int, int] | None:
    if value is None:
        return None
    pair = check_pair("pretrained_window_size", value)
    if min(pair) < 2:
        raise ValueError(
            f"pretrained_window_size entries must be >= 2 (offsets are divided by size − 1), "
            f"got {pair}"
        )
    return pair


def log_spaced_relative_coords(
    window_size: Sequence[int], pretrained_window_size: Sequence[int] | None = None
) -> Tensor:
    """Return Swin V2's log-spaced coordinates of every offset of a window.

    .. math::

        \\tilde\\Delta_a = 8\\,\\frac{\\Delta_a}{P_a - 1}, \\qquad
        \\widehat\\Delta_a = \\operatorname{sign}(\\tilde\\Delta_a)\\,
        \\frac{\\log_2(|\\tilde\\Delta_a| + 1)}{\\log_2 8},
        \\qquad \\Delta_a = -(W_a - 1), \\dots, W_a - 1

    with ``P = pretrained_window_size`` when given, else ``P = window_size``. Entry
    ``[Δr + W_h − 1, Δc + W_w − 1]`` holds the offset ``(Δr, Δc)`` (row, then column), the
    order of Swin's table rows, so that row ``I_ij`` of the flattened table (with
    :func:`posenc.window.relative_position_index`) is the offset of query ``i`` minus key
    ``j``. The largest offsets of a window of size ``P`` map to ``±8``, then to
    ``±log_2 9 / log_2 8 ≈ ±1.057``; a window larger than ``P`` reaches beyond, slowly.

    An axis of size 1 (without ``P``) has the single offset 0 and is left at 0. Hugging Face
    and the official code divide both axes only when ``W_h > 1``, so a ``1 × W_w`` window is
    left unnormalised there and a ``W_h × 1`` window gives NaN; every other window agrees.

    Args:
        window_size: ``(W_h, W_w)``.
        pretrained_window_size: ``(P_h, P_w)``, each ``>= 2``, the window the model was
            pretrained with (Swin V2's ``pretrained_window_size``; its ``0`` means ``None``).

    Returns:
        float64 tensor ``[2W_h − 1, 2W_w − 1, 2]``.

    Shapes:
        ``W_h × W_w``: the window.

    Matches: transformers 5.23.0 `models/swinv2/modeling_swinv2.py`
    ``Swinv2SelfAttention.create_coords_table_and_index`` (``relative_coords_table`` without
    its leading 1); microsoft/Swin-Transformer `models/swinv2.py` ``WindowAttention``.
    """
    wh, ww = check_pair("window_size", window_size)
    pretrained = _pretrained(pretrained_window_size)
    rows = torch.arange(-(wh - 1), wh, dtype=torch.float64)  # [2Wh-1]
    cols = torch.arange(-(ww - 1), ww, dtype=torch.float64)  # [2Ww-1]
    table = torch.stack(torch.meshgrid(rows, cols, indexing="ij"), dim=-1)  # [2Wh-1, 2Ww-1, 2]
    scale = pretrained if pretrained is not None else (wh, ww)
    for a, size in enumerate(scale):
        if size > 1:
            table[..., a] /= size - 1
    table = table * 8  # [2Wh-1, 2Ww-1, 2]: offsets of the scale's window in [-8, 8]
    return torch.sign(table) * torch.log2(table.abs() + 1.0) / math.log2(8)


class ContinuousPositionBias(FixedTables):
    """Swin V2's continuous relative position bias: an MLP of the log-spaced offset, per head.

    .. math::

        B_{h,i,j} = 16\\,\\sigma\\big(\\mathrm{MLP}(\\widehat\\Delta_{I_{ij}})_h\\big),
        \\qquad \\mathrm{MLP}(u) = W_2\\,\\mathrm{ReLU}(W_1 u + b_1)

    ``cpb_mlp`` is laid out as Swin V2's (``Linear(2, hidden_dim)``, ``ReLU``,
    ``Linear(hidden_dim, h, bias=False)``, keys ``cpb_mlp.0.weight``, ``cpb_mlp.0.bias``,
    ``cpb_mlp.2.weight``), so the MLP of an official Swin V2 checkpoint loads unchanged
    (Hugging Face calls it ``continuous_position_bias_mlp``). ``relative_coords_table``
    (:func:`log_spaced_relative_coords`, in the MLP's dtype) and ``relative_position_index``
    (:func:`posenc.window.relative_position_index`) are non-persistent buffers rebuilt from the
    arguments; a checkpoint's own copies of them are dropped on loading, since they describe
    the window it was saved with, and the MLP is what carries over to another window.

    Args:
        window_size: ``(W_h, W_w)``.
        num_heads: ``h``.
        pretrained_window_size: ``(P_h, P_w)`` or ``None`` (see
            :func:`log_spaced_relative_coords`).
        hidden_dim: the MLP's hidden width (512 in Swin V2).

    Shapes:
        ``forward() -> [h, N, N]``, ``N = W_h·W_w`` tokens per window (query down, key across),
        values in ``(0, 16)``.

    Matches: transformers 5.23.0 `models/swinv2/modeling_swinv2.py` ``Swinv2SelfAttention``
    (``continuous_position_bias_mlp``, ``relative_coords_table``, ``relative_position_index``
    and the ``16 * torch.sigmoid`` bias added to the scores); microsoft/Swin-Transformer
    `models/swinv2.py` ``WindowAttention`` (``cpb_mlp``).
    """

    relative_coords_table: Tensor
    relative_position_index: Tensor

    def __init__(
        self,
        window_size: Sequence[int],
        num_heads: int,
        *,
        pretrained_window_size: Sequence[int] | None = None,
        hidden_dim: int = 512,
    ) -> None:
        super().__init__()
        self.window_size = check_pair("window_size", window_size)
        self.num_heads = check_int("num_heads", num_heads)
        self.pretrained_window_size = _pretrained(pretrained_window_size)
        self.hidden_dim = check_int("hidden_dim", hidden_dim)
        self.cpb_mlp = nn.Sequential(
            nn.Linear(2, self.hidden_dim, bias=True),
            nn.ReLU(inplace=True),
            nn.Linear(self.hidden_dim, self.num_heads, bias=False),
        )
        weight = self.cpb_mlp[0].weight
        self.register_buffer(
            "relative_coords_table", self._coords(weight.dtype, weight.device), persistent=False
        )
        self.register_buffer(
            "relative_position_index",
            relative_position_index(self.window_size).to(weight.device),
            persistent=False,
        )

    def _coords(self, dtype: torch.dtype, device: torch.device) -> Tensor:
        table = log_spaced_relative_coords(self.window_size, self.pretrained_window_size)
        return table.to(device=device, dtype=dtype)  # [2Wh-1, 2Ww-1, 2]

    def reset_buffers(self) -> None:
        """Rebuild both tables in place (after ``to_empty``; ``load_state_dict`` calls it)."""
        coords = self.relative_coords_table
        self.relative_coords_table = self._coords(coords.dtype, coords.device)
        self.relative_position_index = relative_position_index(self.window_size).to(
            self.relative_position_index.device
        )  # [N, N]

    def extra_repr(self) -> str:
        extra = (
            ""
            if self.pretrained_window_size is None
            else f", pretrained_window_size={self.pretrained_window_size}"
        )
        return (
            f"window_size={self.window_size}, num_heads={self.num_heads}{extra}, "
            f"hidden_dim={self.hidden_dim}"
        )

    def forward(self) -> Tensor:
        weight = self.cpb_mlp[0].weight
        table = self.cpb_mlp(self.relative_coords_table.to(weight.dtype))  # [2Wh-1, 2Ww-1, h]
        table = table.reshape(-1, self.num_heads)  # [T, h]
        n = self.relative_position_index.shape[0]
        bias = table[self.relative_position_index.reshape(-1)]  # [N*N, h]
        bias = bias.reshape(n, n, self.num_heads).permute(2, 0, 1)  # [h, N, N]
        return 16 * torch.sigmoid(bias)  # [h, N, N]

    def _load_from_state_dict(self, state_dict: dict[str, Any], prefix: str, *args: Any) -> None:
        for name in ("relative_coords_table", "relative_position_index"):
            state_dict.pop(prefix + name, None)  # the saved window's tables: rebuilt from ours
        check_state_dict_tables(self, state_dict, prefix)
        super()._load_from_state_dict(state_dict, prefix, *args)
