"""Chapter 12's worked examples: Qwen2-VL's position layout and a window-transfer experiment.

* :func:`multimodal_positions` lays out the ``(time, row, column)`` positions of a sequence
  of text and image (or video) tokens the way Qwen2-VL's ``get_rope_index`` does, so that
  :func:`posenc.rotary_nd.rotary_angles_nd` can turn them into M-RoPE angles;
* :func:`locality_bias_target` is a made-up bias per head, a smooth function of the offset
  between two patches, defined for any offset;
* :func:`window_bias_transfer` fits Swin V2's continuous position bias and a Swin V1 table to
  that target at a small window and compares both at a larger one (the MLP evaluated on
  log-spaced offsets normalised by the pretrained window, the table resized bicubically).

Nothing in a model needs these: they exist for the page, and the tests pin them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor

from book._checks import check_values
from posenc._checks import check_int, check_pair
from posenc.window_v2 import ContinuousPositionBias

__all__ = [
    "BiasTransfer",
    "locality_bias_target",
    "multimodal_positions",
    "window_bias_transfer",
]


def _segment(name: str, value: object) -> int | tuple[int, int, int]:
    if isinstance(value, (tuple, list)):
        if len(value) != 3:
            raise ValueError(f"{name} must be a text length or a (t, h, w) grid, got {value!r}")
        return tuple(check_int(f"{name}[{a}]", v) for a, v in enumerate(value))  # type: ignore[return-value]
    return check_int(name, value)


def multimodal_positions(segments: Sequence[int | Sequence[int]]) -> tuple[Tensor, Tensor]:
    """Return Qwen2-VL's ``(t, h, w)`` position of every token of a text-and-vision sequence.

    .. math::

        \\text{text: } (s + i,\\; s + i,\\; s + i), \\qquad
        \\text{vision: } (s + \\tau,\\; s + r,\\; s + c)

    where ``s`` is where the segment starts. A text segment of ``m`` tokens moves ``s`` on by
    ``m``; a vision grid of ``t × h × w`` tokens (row-major, frame by frame) moves it on by
    ``max(h, w)``, so the text after an image continues one past the image's largest row or
    column position. (For a grid with more frames than rows or columns, ``t > max(h, w)``, this
    is transformers 5.23's rule; Qwen2-VL's original code, in transformers 4.x, continues one
    past the largest coordinate on any axis, ``max(t, h, w)``.)

    Args:
        segments: in order, an int ``m >= 1`` for ``m`` text tokens or a ``(t, h, w)`` triple
            for a vision grid as the language model sees it (after Qwen2-VL's 2 × 2 merge of
            patches).

    Returns:
        ``(positions, vision)``: LongTensor ``[n, 3]`` (time, row, column) and a bool
        ``[n]`` marking vision tokens.

    Shapes:
        ``n``: tokens of all segments.

    Matches: transformers 5.23.0 `models/qwen2_vl/modeling_qwen2_vl.py`
    ``Qwen2VLModel.get_rope_index`` with ``get_vision_position_ids`` (time interval 1,
    ``position_ids`` ``[3, 1, n]`` = ``positions.T[:, None]``).
    """
    parts = check_values("segments", segments, _segment)
    rows: list[Tensor] = []
    kinds: list[Tensor] = []
    start = 0
    for part in parts:
        if isinstance(part, int):
            p = torch.arange(start, start + part).unsqueeze(-1).expand(-1, 3)  # [m, 3]
            rows.append(p)
            kinds.append(torch.zeros(part, dtype=torch.bool))
            start += part
        else:
            t, h, w = part
            axes = (torch.arange(t), torch.arange(h), torch.arange(w))
            grid = torch.meshgrid(*axes, indexing="ij")  # 3 × [t, h, w]
            p = torch.stack(grid, dim=-1).reshape(-1, 3) + start  # [t·h·w, 3]
            rows.append(p)
            kinds.append(torch.ones(t * h * w, dtype=torch.bool))
            start += max(h, w)
    return torch.cat(rows), torch.cat(kinds)  # [n, 3], [n]


def locality_bias_target(window_size: Sequence[int]) -> Tensor:
    """Return a made-up two-head bias over every offset of a window, for fitting experiments.

    .. math::

        B_0(\\Delta) = 2 + 10\\,e^{-\\lVert\\Delta\\rVert / 4}, \\qquad
        B_1(\\Delta) = 2 + 10\\,e^{-(|\\Delta r| / 1.5 + |\\Delta c| / 6)}

    Head 0 favours nearby patches in every direction, head 1 the query's own row. Both are
    defined for any offset in patches and lie in ``(2, 12]``, inside the ``(0, 16)`` range of
    Swin V2's ``16·sigmoid``.

    Args:
        window_size: ``(W_h, W_w)``.

    Returns:
        float64 tensor ``[2, 2W_h − 1, 2W_w − 1]``, entry ``[k, Δr + W_h − 1, Δc + W_w − 1]``
        (the layout of :func:`posenc.window_v2.log_spaced_relative_coords`).

    Shapes:
        ``W_h × W_w``: the window.
    """
    wh, ww = check_pair("window_size", window_size)
    rows = torch.arange(-(wh - 1), wh, dtype=torch.float64)  # [2Wh-1]
    cols = torch.arange(-(ww - 1), ww, dtype=torch.float64)  # [2Ww-1]
    dr, dc = torch.meshgrid(rows, cols, indexing="ij")  # [2Wh-1, 2Ww-1] each
    near = 2 + 10 * torch.exp(-(dr**2 + dc**2).sqrt() / 4)
    row = 2 + 10 * torch.exp(-(dr.abs() / 1.5 + dc.abs() / 6))
    return torch.stack((near, row))  # [2, 2Wh-1, 2Ww-1]


@dataclass(frozen=True)
class BiasTransfer:
    """What :func:`window_bias_transfer` found, every bias over the large window's offsets.

    Attributes:
        small, large: the two windows ``(W_h, W_w)``.
        target: the target bias at the large window, ``[2, 2W_h − 1, 2W_w − 1]``.
        continuous: the continuous bias fitted at ``small``, evaluated at ``large``.
        resized: the small window's table resized bicubically to ``large``.
        fit_rmse: root-mean-square error of the continuous bias at ``small`` after fitting.
        rmse: ``{(method, offsets): error}`` at ``large`` for method ``"continuous"`` or
            ``"resized"`` and offsets ``"seen"`` (those the small window has) or ``"new"``.
        mlp: the fitted ``cpb_mlp`` weights (a state dict).
    """

    small: tuple[int, int]
    large: tuple[int, int]
    target: Tensor
    continuous: Tensor
    resized: Tensor
    fit_rmse: float
    rmse: dict[tuple[str, str], float]
    mlp: dict[str, Tensor]

    def seen(self) -> Tensor:
        """Bool ``[2W_h − 1, 2W_w − 1]`` of the large window's offsets that the small one has."""
        return _seen(self.small, self.large)


def _seen(small: tuple[int, int], large: tuple[int, int]) -> Tensor:
    (sh, sw), (lh, lw) = small, large
    mask = torch.zeros(2 * lh - 1, 2 * lw - 1, dtype=torch.bool)  # [2lh-1, 2lw-1]
    mask[lh - sh : lh + sh - 1, lw - sw : lw + sw - 1] = True
    return mask


def _mlp_bias(cpb: ContinuousPositionBias) -> Tensor:
    """``16·sigmoid(MLP(table))`` over the offsets, ``[h, 2Wh−1, 2Ww−1]``."""
    out = cpb.cpb_mlp(cpb.relative_coords_table)  # [2Wh-1, 2Ww-1, h]
    return 16 * torch.sigmoid(out).permute(2, 0, 1)


def window_bias_transfer(
    small: Sequence[int] = (8, 8),
    large: Sequence[int] = (16, 16),
    *,
    steps: int = 400,
    seed: int = 0,
    hidden_dim: int = 512,
) -> BiasTransfer:
    """Fit a continuous bias and a table at a small window; compare both at a larger one.

    .. math::

        \\text{RMSE} = \\sqrt{\\tfrac{1}{|S|}\\textstyle\\sum_{(k, \\Delta) \\in S}
        \\big(\\hat B_k(\\Delta) - B_k(\\Delta)\\big)^2}

    over the heads and the offsets ``S`` (seen at ``small``, or new at ``large``), with ``B``
    the :func:`locality_bias_target`. The continuous bias
    (:class:`~posenc.window_v2.ContinuousPositionBias`, two heads) is fitted at ``small`` by
    Adam (learning rate 2·10⁻³, ``steps`` full-batch steps on the mean squared error of the
    bias), then the same MLP is evaluated at ``large`` with ``pretrained_window_size=small``.
    A learned table fitted to the same target holds it exactly, so the table is the target
    at ``small``; it is resized to the large window's ``(2W_h − 1) × (2W_w − 1)`` offsets by
    bicubic interpolation with ``align_corners=False``, as Swin V1 does when fine-tuning at a
    larger window.

    Args:
        small: the window of training, each side ``>= 2``.
        large: the window of evaluation, each side ``>=`` the small one's.
        steps: Adam steps.
        seed: seeds the MLP's initialisation.
        hidden_dim: the MLP's hidden width (Swin V2: 512).

    Returns:
        a :class:`BiasTransfer`.

    Shapes:
        biases ``[2, 2W_h − 1, 2W_w − 1]`` of the large window.

    Matches: microsoft/Swin-Transformer `utils.py` ``load_pretrained`` (bicubic resizing of
    ``relative_position_bias_table``); `models/swinv2.py` ``WindowAttention`` (the bias).
    """
    small = check_pair("small", small, minimum=2)
    large = check_pair("large", large)
    if large[0] < small[0] or large[1] < small[1]:
        raise ValueError(f"large must be at least small on both sides, got {large} < {small}")
    steps = check_int("steps", steps, minimum=0)
    seed = check_int("seed", seed, minimum=0)
    hidden_dim = check_int("hidden_dim", hidden_dim)
    with torch.random.fork_rng(devices=[]):  # the caller's generator is left alone
        torch.manual_seed(seed)
        cpb = ContinuousPositionBias(small, 2, hidden_dim=hidden_dim)
        big = ContinuousPositionBias(
            large, 2, pretrained_window_size=small, hidden_dim=hidden_dim
        )  # its initial weights are replaced by cpb's below
    goal = locality_bias_target(small).float()  # [2, 2sh-1, 2sw-1]
    optimiser = torch.optim.Adam(cpb.parameters(), lr=2e-3)
    with torch.enable_grad():
        for _ in range(steps):
            loss = (_mlp_bias(cpb) - goal).pow(2).mean()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    big.load_state_dict(cpb.state_dict())
    with torch.no_grad():
        fit = (_mlp_bias(cpb).double() - goal.double()).pow(2).mean().sqrt().item()
        continuous = _mlp_bias(big).double()  # [2, 2lh-1, 2lw-1]
    target = locality_bias_target(large)  # [2, 2lh-1, 2lw-1]
    size = (2 * large[0] - 1, 2 * large[1] - 1)
    resized = F.interpolate(
        locality_bias_target(small)[None], size=size, mode="bicubic", align_corners=False
    )[0]  # [2, 2lh-1, 2lw-1]
    seen = _seen(small, large)
    rmse = {
        (name, part): (bias - target).pow(2)[:, mask].mean().sqrt().item()
        for name, bias in (("continuous", continuous), ("resized", resized))
        for part, mask in (("seen", seen), ("new", ~seen))
        if mask.any()
    }
    mlp = {k: v.detach().clone() for k, v in cpb.state_dict().items()}
    return BiasTransfer(small, large, target, continuous, resized, fit, rmse, mlp)
