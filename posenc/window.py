"""Relative position bias inside attention windows: Swin (2-D), Video Swin and RSTT (3-D).

One construction covers all three. Tokens of a window sit on a grid; the bias added to the
attention logit of a query-key pair is a learned number per head, looked up by the pair's
coordinate difference. :func:`relative_position_index` turns each difference into one integer
index into a table with one row per possible difference.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import torch
from torch import Tensor, nn

from ._buffers import FixedTables
from ._checks import (
    check_bool,
    check_float_tensor,
    check_heads,
    check_int,
    check_shape,
    check_state_dict_tables,
    check_tensor,
)
from .attention import attention_weights

__all__ = [
    "SwinRelativePositionBias",
    "WindowAttention",
    "relative_offsets",
    "relative_position_index",
    "relative_table_size",
    "shifted_window_mask",
    "window_merge",
    "window_partition",
]


def _grid(shape: tuple[int, ...], step: tuple[int, ...] = ()) -> Tensor:
    """Row-major coordinates of a grid, ``[len(shape), prod(shape)]``, each axis times its step."""
    step = step or (1,) * len(shape)
    axes = [torch.arange(s) * st for s, st in zip(shape, step)]
    return torch.stack(torch.meshgrid(*axes, indexing="ij")).flatten(1)  # [rank, prod(shape)]


def relative_table_size(query_shape: Sequence[int]) -> int:
    """Return the number of distinct coordinate differences in a window: the table's rows.

    .. math::

        |T| = \\prod_a (2 Q_a - 1)

    Each axis of size ``Q_a`` has differences ``−(Q_a − 1) … Q_a − 1``. For Swin's 7×7 window
    that is 169 rows; for RSTT's 7 frames × 4×4 it is 13·7·7 = 637.

    Args:
        query_shape: the window's size per axis.

    Returns:
        the number of rows of a relative position bias table.
    """
    return math.prod(2 * s - 1 for s in check_shape("query_shape", query_shape))


def relative_offsets(
    query_shape: Sequence[int],
    key_shape: Sequence[int] | None = None,
    *,
    key_step: Sequence[int] | None = None,
) -> Tensor:
    """Return each query-key pair's coordinate difference, query minus key, per axis.

    .. math::

        \\Delta_{ij,a} = q_a - s_a\\, k_a, \\qquad -(Q_a - 1) \\le \\Delta_{ij,a} \\le Q_a - 1

    Query ``i`` has the row-major coordinates ``q`` on the grid ``query_shape = (Q_0, Q_1, …)``;
    key ``j`` has the coordinates ``k`` on the grid ``key_shape``, each multiplied by
    ``key_step`` ``s``, so that both sit on the query's axes (RSTT's four input frames at
    times ``0, 2, 4, 6`` of the seven output frames: ``key_step=(2, 1, 1)``). This is the
    "relative coordinates" step of Swin's construction, before the shift and the
    multiplication of :func:`relative_position_index`.

    Args:
        query_shape: the query window's size per axis, e.g. ``(D, Wh, Ww)``.
        key_shape: the key window's size per axis (default: ``query_shape``).
        key_step: spacing of key coordinates per axis (default: all 1).

    Returns:
        LongTensor ``[prod(query_shape), prod(key_shape), len(query_shape)]``; the last axis
        holds the difference along axis 0 (frames), 1 (rows), … .

    Shapes:
        ``N_q = prod(query_shape)``, ``N_k = prod(key_shape)``: tokens per window.

    Raises:
        ValueError: ranks differ, a size or step is not positive, or a key coordinate lies
            outside the query window's extent (its difference would have no row in the table).

    Matches: the ``relative_coords`` (before the shift) of microsoft/Swin-Transformer@9cd3dbd4a60f
    `models/swin_transformer.py` ``WindowAttention``, Video Swin ``WindowAttention3D``
    (SwinTransformer/Video-Swin-Transformer `mmaction/models/backbones/swin_transformer.py`, read at
    the identical fork kiyoon/Video-Swin-Transformer@eeca5b9d5c45) and llmpass/RSTT@90c5bdbc9b5d
    `models/layers.py` ``WindowAttention3D``.
    """
    q_shape = check_shape("query_shape", query_shape)
    k_shape = q_shape if key_shape is None else check_shape("key_shape", key_shape)
    if len(k_shape) != len(q_shape):
        raise ValueError(
            f"key_shape must have as many axes as query_shape ({len(q_shape)}), got {k_shape}"
        )
    step = (1,) * len(q_shape) if key_step is None else check_shape("key_step", key_step)
    if len(step) != len(q_shape):
        raise ValueError(
            f"key_step must have as many axes as query_shape ({len(q_shape)}), got {step}"
        )
    for a, (q, k, s) in enumerate(zip(q_shape, k_shape, step)):
        if (k - 1) * s > q - 1:
            raise ValueError(
                f"key coordinates on axis {a} reach {(k - 1) * s} (key_shape[{a}]={k} times "
                f"key_step[{a}]={s}), outside the query extent 0..{q - 1}: their offsets have no "
                "entry in the table"
            )
    q_coords = _grid(q_shape)  # [rank, N_q]
    k_coords = _grid(k_shape, step)  # [rank, N_k]
    return (q_coords[:, :, None] - k_coords[:, None, :]).permute(1, 2, 0)  # [N_q, N_k, rank]


def relative_position_index(
    query_shape: Sequence[int],
    key_shape: Sequence[int] | None = None,
    *,
    key_step: Sequence[int] | None = None,
) -> Tensor:
    """Return the index of each query-key pair's coordinate difference in a relative table.

    .. math::

        I_{ij} = \\sum_a \\big(q_a - k_a + Q_a - 1\\big) \\prod_{b > a} (2 Q_b - 1)

    Query ``i`` has the row-major coordinates ``q`` on the grid ``query_shape = (Q_0, Q_1, …)``;
    key ``j`` has coordinates ``k`` on the grid ``key_shape``, multiplied by ``key_step``. The
    difference is query minus key, as in Swin (Shaw et al. use key minus query). Each axis's
    difference is shifted to ``0 … 2Q_a − 2`` and the axes are combined like the digits of a
    mixed-radix number with radices ``2Q_a − 1``, so distinct differences get distinct indices
    in ``0 … Π(2Q_a − 1) − 1``.

    * ``relative_position_index((Wh, Ww))``: Swin's ``relative_position_index``;
    * ``relative_position_index((D, Wh, Ww))``: Video Swin's;
    * ``relative_position_index((7, Wh, Ww), (4, Wh, Ww), key_step=(2, 1, 1))``: RSTT's
      cross-attention between 7 output frames and 4 input frames (frames 0, 2, 4, 6).

    Args:
        query_shape: the query window's size per axis, e.g. ``(Wh, Ww)``.
        key_shape: the key window's size per axis (default: ``query_shape``).
        key_step: spacing of key coordinates per axis (default: all 1).

    Returns:
        LongTensor ``[prod(query_shape), prod(key_shape)]``.

    Shapes:
        ``N_q = prod(query_shape)``, ``N_k = prod(key_shape)``: tokens per window.

    Raises:
        ValueError: ranks differ, a size or step is not positive, or a key coordinate lies
            outside the query window's extent (its difference would have no row in the table).

    Matches: microsoft/Swin-Transformer@9cd3dbd4a60f ``WindowAttention``; Video Swin
    ``WindowAttention3D`` (SwinTransformer/Video-Swin-Transformer
    `mmaction/models/backbones/swin_transformer.py`, read at the identical fork
    kiyoon/Video-Swin-Transformer@eeca5b9d5c45); llmpass/RSTT@90c5bdbc9b5d ``WindowAttention3D``;
    timm 1.0.31 `timm/layers/pos_embed_rel.py` ``gen_relative_position_index``.
    """
    q_shape = check_shape("query_shape", query_shape)
    diff = relative_offsets(q_shape, key_shape, key_step=key_step)  # [N_q, N_k, rank]
    index = torch.zeros(diff.shape[:2], dtype=torch.long)  # [N_q, N_k]
    for a, q in enumerate(q_shape):
        index = index * (2 * q - 1) + (diff[..., a] + q - 1)  # Horner: mixed-radix digits
    return index


class SwinRelativePositionBias(FixedTables):
    """A learned bias per head for each coordinate difference in a window (Swin's B).

    .. math::

        \\operatorname{Attention}(Q, K, V) = \\operatorname{softmax}\\!\\Big(
        \\frac{QK^\\top}{\\sqrt d} + B\\Big) V, \\qquad B_{h,i,j} = T[I_{ij}, h]

    ``relative_position_bias_table`` (``T``, a parameter ``[Π(2Q_a − 1), h]``, initialised as in
    Swin by ``trunc_normal_(std=0.02)``, whose default bounds ±2 are absolute, so that in effect
    it is a plain normal) and ``relative_position_index`` (``I``, a non-persistent buffer
    from :func:`relative_position_index`) have Swin's names, so the table of a Swin checkpoint
    loads unchanged. A checkpoint that also carries the index (official Swin saves it) is
    accepted when its index equals this module's, and refused otherwise.

    Args:
        query_shape: the window, e.g. ``(7, 7)`` or ``(2, 7, 7)``.
        num_heads: ``h``.
        key_shape: the key window (default ``query_shape``).
        key_step: key coordinate spacing (see :func:`relative_position_index`).

    Shapes:
        ``forward() -> [h, N_q, N_k]``.

    Matches: microsoft/Swin-Transformer@9cd3dbd4a60f `models/swin_transformer.py`
    ``WindowAttention`` (``relative_position_bias_table``, ``relative_position_index``); in 3-D,
    Video Swin's ``WindowAttention3D`` and llmpass/RSTT@90c5bdbc9b5d `models/layers.py`
    ``WindowAttention3D``.
    """

    relative_position_index: Tensor

    def __init__(
        self,
        query_shape: Sequence[int],
        num_heads: int,
        key_shape: Sequence[int] | None = None,
        *,
        key_step: Sequence[int] | None = None,
    ) -> None:
        super().__init__()
        self.query_shape = check_shape("query_shape", query_shape)
        self._index_args = (key_shape, key_step)
        index = relative_position_index(
            self.query_shape, key_shape, key_step=key_step
        )  # [N_q, N_k]
        self.num_heads = check_int("num_heads", num_heads)
        self.relative_position_bias_table = nn.Parameter(
            torch.empty(relative_table_size(self.query_shape), self.num_heads)
        )
        nn.init.trunc_normal_(self.relative_position_bias_table, std=0.02)
        self.register_buffer("relative_position_index", index, persistent=False)

    def extra_repr(self) -> str:
        key_shape, key_step = self._index_args
        extra = "" if key_shape is None else f", key_shape={tuple(key_shape)}"
        extra += "" if key_step is None else f", key_step={tuple(key_step)}"
        return f"query_shape={self.query_shape}, num_heads={self.num_heads}{extra}"

    def reset_buffers(self) -> None:
        """Rebuild the index in place (after ``to_empty``; ``load_state_dict`` calls it)."""
        key_shape, key_step = self._index_args
        device = self.relative_position_index.device
        self.relative_position_index = relative_position_index(
            self.query_shape, key_shape, key_step=key_step
        ).to(device)  # [N_q, N_k]

    def forward(self) -> Tensor:
        n_q, n_k = self.relative_position_index.shape
        bias = self.relative_position_bias_table[
            self.relative_position_index.reshape(-1)
        ]  # [N_q*N_k, h]
        return bias.reshape(n_q, n_k, self.num_heads).permute(2, 0, 1)  # [h, N_q, N_k]

    def _load_from_state_dict(self, state_dict: dict[str, Any], prefix: str, *args: Any) -> None:
        check_state_dict_tables(self, state_dict, prefix)
        key = prefix + "relative_position_index"
        if key in state_dict:
            stored = state_dict.pop(key)
            if not isinstance(stored, Tensor):
                raise TypeError(
                    f"state dict entry {key!r} must be a torch.Tensor, got {type(stored).__name__}"
                )
            if stored.shape != self.relative_position_index.shape or not torch.equal(
                stored.to(self.relative_position_index), self.relative_position_index
            ):
                raise ValueError(
                    f"{key} in the checkpoint differs from the index this module builds for "
                    f"window {self.query_shape}: the table rows would mean other offsets"
                )
        super()._load_from_state_dict(state_dict, prefix, *args)


def window_partition(x: Tensor, window_size: Sequence[int]) -> Tensor:
    """Cut a feature map into non-overlapping windows of tokens.

    Args:
        x: ``[b, H, W, c]`` with ``H`` and ``W`` multiples of the window size.
        window_size: ``(Wh, Ww)``.

    Returns:
        ``[b·n_w, Wh·Ww, c]`` with windows in row-major order, tokens row-major inside.

    Shapes:
        ``b``: images, ``H × W``: the map, ``c``: channels, ``Wh × Ww``: the window,
        ``n_w = (H/Wh)·(W/Ww)``: windows per image; ``[b, H, W, c]`` → ``[b·n_w, Wh·Ww, c]``.

    Matches: microsoft/Swin-Transformer@9cd3dbd4a60f `models/swin_transformer.py`
    ``window_partition`` (followed by ``SwinTransformerBlock.forward``'s ``view(-1, Wh*Ww, C)``).
    """
    check_tensor("x", x, ndim=4)
    wh, ww = check_shape("window_size", window_size, rank=2)
    b, h, w, c = x.shape
    if h % wh or w % ww:
        raise ValueError(
            f"x's height and width ({h}, {w}) must be multiples of window_size ({wh}, {ww})"
        )
    x = x.reshape(b, h // wh, wh, w // ww, ww, c).permute(
        0, 1, 3, 2, 4, 5
    )  # [b, H/Wh, W/Ww, Wh, Ww, c]
    return x.reshape(b * (h // wh) * (w // ww), wh * ww, c)  # [b*n_w, Wh*Ww, c]


def window_merge(windows: Tensor, window_size: Sequence[int], height: int, width: int) -> Tensor:
    """Reassemble windows into a feature map: the inverse of :func:`window_partition`.

    Args:
        windows: ``[b·n_w, Wh·Ww, c]``, windows row-major, tokens row-major inside.
        window_size: ``(Wh, Ww)``.
        height: ``H``, a multiple of ``Wh``.
        width: ``W``, a multiple of ``Ww``.

    Returns:
        ``[b, H, W, c]``.

    Shapes:
        ``b``: images, ``H × W``: the map, ``c``: channels, ``Wh × Ww``: the window,
        ``n_w = (H/Wh)·(W/Ww)``: windows per image; ``[b·n_w, Wh·Ww, c]`` → ``[b, H, W, c]``.

    Matches: microsoft/Swin-Transformer@9cd3dbd4a60f `models/swin_transformer.py`
    ``window_reverse``.
    """
    check_tensor("windows", windows, ndim=3)
    wh, ww = check_shape("window_size", window_size, rank=2)
    height, width = check_int("height", height), check_int("width", width)
    if height % wh or width % ww:
        raise ValueError(
            f"height and width ({height}, {width}) must be multiples of window_size ({wh}, {ww})"
        )
    nh, nw = height // wh, width // ww
    if windows.shape[0] % (nh * nw) or windows.shape[1] != wh * ww:
        raise ValueError(
            f"windows must be [b·{nh * nw}, {wh * ww}, c] for a {height}x{width} map, got {tuple(windows.shape)}"
        )
    c = windows.shape[-1]
    b = windows.shape[0] // (nh * nw)
    x = windows.reshape(b, nh, nw, wh, ww, c).permute(
        0, 1, 3, 2, 4, 5
    )  # [b, H/Wh, Wh, W/Ww, Ww, c]
    return x.reshape(b, height, width, c)  # [b, H, W, c]


def shifted_window_mask(
    height: int, width: int, window_size: Sequence[int], shift: Sequence[int]
) -> Tensor:
    """Which token pairs may attend after Swin's cyclic shift (True = same original region).

    After rolling the map by ``−shift``, a window at the border holds tokens from up to four
    regions that were not neighbours; Swin masks attention between regions.

    Args:
        height, width: size of the (padded) feature map, multiples of the window.
        window_size: ``(Wh, Ww)``.
        shift: ``(sh, sw)``, each ``0 <= s < W``.

    Returns:
        BoolTensor ``[n_w, Wh·Ww, Wh·Ww]``; Swin's additive mask is ``0`` where this is True
        and ``−100`` elsewhere.

    Shapes:
        ``n_w = (H/Wh)·(W/Ww)``: windows, in :func:`window_partition`'s order; ``N = Wh·Ww``:
        tokens per window (query down, key across).

    Matches: microsoft/Swin-Transformer@9cd3dbd4a60f `models/swin_transformer.py`
    ``SwinTransformerBlock.__init__`` ``attn_mask``.
    """
    wh, ww = check_shape("window_size", window_size, rank=2)
    height, width = check_int("height", height), check_int("width", width)
    if height % wh or width % ww:
        raise ValueError(
            f"height and width ({height}, {width}) must be multiples of window_size ({wh}, {ww})"
        )
    sh, sw = check_shape("shift", shift, rank=2, minimum=0)
    if sh >= wh or sw >= ww:
        raise ValueError(f"shift ({sh}, {sw}) must be smaller than window_size ({wh}, {ww})")
    region = torch.zeros(1, height, width, 1)
    label = 0
    for rows in (
        slice(0, -wh),
        slice(-wh, -sh or None),
        slice(-sh or None, None) if sh else slice(0, 0),
    ):
        for cols in (
            slice(0, -ww),
            slice(-ww, -sw or None),
            slice(-sw or None, None) if sw else slice(0, 0),
        ):
            region[:, rows, cols, :] = label
            label += 1
    ids = window_partition(region, (wh, ww))[..., 0]  # [n_w, Wh*Ww]
    return ids[:, :, None] == ids[:, None, :]  # [n_w, N, N]


class WindowAttention(nn.Module):
    """Swin's window multi-head self-attention (W-MSA) with its relative position bias.

    .. math::

        \\operatorname{softmax}\\!\\Big(\\frac{QK^\\top}{\\sqrt{d/h}} + B\\Big) V

    computed independently inside each window by :func:`posenc.attention.attention_weights`;
    ``mask`` (from :func:`shifted_window_mask`) turns it into SW-MSA.

    Args:
        dim: ``d``, channels.
        window_size: ``(Wh, Ww)``.
        num_heads: ``h``.
        qkv_bias: bias in the query/key/value projection.

    Shapes:
        ``x``: ``[b·n_w, Wh·Ww, d]``; ``mask``: boolean ``[n_w, Wh·Ww, Wh·Ww]`` → ``[b·n_w, Wh·Ww, d]``.

    Matches: microsoft/Swin-Transformer@9cd3dbd4a60f `models/swin_transformer.py`
    ``WindowAttention`` (``qkv``, ``proj`` and ``relative_position_bias_table`` hold the same
    shapes; the bias module sits at ``self.relative_position``).
    """

    def __init__(
        self, dim: int, window_size: Sequence[int], num_heads: int, *, qkv_bias: bool = True
    ) -> None:
        super().__init__()
        self.dim = check_int("dim", dim)
        self.num_heads = check_int("num_heads", num_heads)
        check_heads(self.dim, self.num_heads)
        self.window_size = check_shape("window_size", window_size, rank=2)
        self.qkv_bias = check_bool("qkv_bias", qkv_bias)
        self.relative_position = SwinRelativePositionBias(self.window_size, self.num_heads)
        self.qkv = nn.Linear(self.dim, 3 * self.dim, bias=self.qkv_bias)
        self.proj = nn.Linear(self.dim, self.dim)

    def forward(self, x: Tensor, mask: Tensor | None = None) -> Tensor:
        check_float_tensor("x", x, ndim=3)
        bn, n, d = x.shape
        if n != math.prod(self.window_size) or d != self.dim:
            raise ValueError(
                f"x must be [windows, {math.prod(self.window_size)}, {self.dim}], "
                f"got {tuple(x.shape)}"
            )
        weight = self.qkv.weight
        if x.dtype != weight.dtype:
            raise TypeError(
                f"x must have the module's dtype {weight.dtype}, got {x.dtype} "
                "(convert the module with .to(dtype) or x with x.to(dtype))"
            )
        h = self.num_heads
        q, k, v = (
            self.qkv(x).reshape(bn, n, 3, h, d // h).permute(2, 0, 3, 1, 4)
        )  # [bn, h, n, d/h] each
        bias = self.relative_position().to(q.dtype)  # [h, n, n]; q may be lower under autocast
        if mask is None:
            weights = attention_weights(q, k, bias=bias)  # [bn, h, n, n]
        else:
            check_tensor("mask", mask)
            if mask.dtype != torch.bool:
                raise TypeError(
                    f"mask must be a boolean [n_w, {n}, {n}] tensor (True = may attend), "
                    f"got dtype {mask.dtype}"
                )
            if mask.ndim != 3 or mask.shape[1:] != (n, n) or mask.shape[0] == 0:
                raise ValueError(
                    f"mask must be [n_w, {n}, {n}] with n_w >= 1 for x of shape "
                    f"{tuple(x.shape)}, got mask of shape {tuple(mask.shape)}"
                )
            if mask.device != x.device:
                raise ValueError(f"mask must be on x's device {x.device}, got {mask.device}")
            n_w = mask.shape[0]
            if bn % n_w:
                raise ValueError(
                    f"x's first dimension ({bn}) must be a multiple of mask's windows ({n_w})"
                )
            # x holds b images of n_w windows each: window w of every image gets mask[w]
            q, k = (t.reshape(bn // n_w, n_w, h, n, d // h) for t in (q, k))  # [b, n_w, h, n, d/h]
            window_mask = mask[None, :, None]  # [1, n_w, 1, n, n]
            weights = attention_weights(q, k, bias=bias, mask=window_mask)  # [b, n_w, h, n, n]
            weights = weights.reshape(bn, h, n, n)  # [bn, h, n, n]
        z = weights @ v  # [bn, h, n, d/h]
        return self.proj(z.transpose(1, 2).reshape(bn, n, d))  # [bn, n, d]

    def _load_from_state_dict(self, state_dict: dict[str, Any], prefix: str, *args: Any) -> None:
        check_state_dict_tables(self, state_dict, prefix)
        super()._load_from_state_dict(state_dict, prefix, *args)
