"""book.demos.grids: Qwen2-VL's position layout (against transformers) and the transfer demo."""

from __future__ import annotations

import types

import pytest
import torch
import torch.nn.functional as F
from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLModel

from book.demos.grids import (
    BiasTransfer,
    locality_bias_target,
    multimodal_positions,
    window_bias_transfer,
)


def transformers_positions(segments, merge=2):
    """Qwen2VLModel.get_rope_index on token types built from the segments (grids after merge)."""
    types_, grids = [], []
    for s in segments:
        if isinstance(s, int):
            types_ += [0] * s
        else:
            t, h, w = s
            types_ += [1] * (t * h * w)
            grids.append([t, h * merge, w * merge])
    fake = types.SimpleNamespace(
        config=types.SimpleNamespace(vision_config=types.SimpleNamespace(spatial_merge_size=merge))
    )
    fake.get_vision_position_ids = types.MethodType(Qwen2VLModel.get_vision_position_ids, fake)
    n = len(types_)
    ids = torch.zeros(1, n, dtype=torch.long)
    kinds = torch.tensor([types_], dtype=torch.int32)
    grid = torch.tensor(grids, dtype=torch.long) if grids else None
    position_ids, _ = Qwen2VLModel.get_rope_index(fake, ids, kinds, image_grid_thw=grid)
    return position_ids[:, 0].T  # [n, 3]


@pytest.mark.parametrize(
    "segments",
    [
        [3, (1, 2, 3), 2],
        [1, (1, 4, 4), 5, (1, 3, 2), 1],
        [(1, 2, 5), 4],
        [2, (2, 3, 3), 3],  # a two-frame grid (video-like, as an image grid of t = 2)
        [2, (4, 1, 2), 1],  # more frames than rows or columns: the text goes on past t
    ],
)
def test_positions_match_transformers_get_rope_index(segments):
    positions, vision = multimodal_positions(segments)
    assert torch.equal(positions, transformers_positions(segments))
    assert vision.sum().item() == sum(
        t * h * w for s in segments if not isinstance(s, int) for t, h, w in [s]
    )


def test_text_tokens_carry_one_number_on_all_axes():
    positions, vision = multimodal_positions([4, (1, 2, 3), 3])
    text = positions[~vision]
    assert torch.equal(text[:, 0], text[:, 1]) and torch.equal(text[:, 1], text[:, 2])
    assert text[:, 0].tolist() == [0, 1, 2, 3, 7, 8, 9]  # 4 + max(2, 3) = 7


def test_locality_target_values():
    target = locality_bias_target((3, 4))
    assert target.shape == (2, 5, 7) and target.dtype == torch.float64
    assert target[:, 2, 3].tolist() == [12.0, 12.0]  # offset (0, 0)
    assert target[0, 2, 5].item() == pytest.approx(2 + 10 * torch.exp(torch.tensor(-0.5)).item())
    assert target[1, 0, 3].item() == pytest.approx(
        2 + 10 * torch.exp(torch.tensor(-2 / 1.5)).item()
    )
    assert torch.equal(target, target.flip(1, 2))  # both heads symmetric in ±Δ


def test_transfer_is_seeded_and_the_continuous_bias_transfers_better():
    a = window_bias_transfer((4, 4), (8, 8), steps=150, hidden_dim=64)
    b = window_bias_transfer((4, 4), (8, 8), steps=150, hidden_dim=64)
    assert isinstance(a, BiasTransfer)
    assert torch.equal(a.continuous, b.continuous) and a.rmse == b.rmse
    assert a.target.shape == a.continuous.shape == a.resized.shape == (2, 15, 15)
    assert torch.equal(a.target, locality_bias_target((8, 8)))
    expected = F.interpolate(
        locality_bias_target((4, 4))[None], size=(15, 15), mode="bicubic", align_corners=False
    )[0]
    assert torch.equal(a.resized, expected)
    assert a.seen().sum().item() == 49 and a.seen()[7, 7]
    assert set(a.rmse) == {(m, p) for m in ("continuous", "resized") for p in ("seen", "new")}
    assert a.rmse[("continuous", "seen")] < a.rmse[("resized", "seen")]


def test_transfer_does_not_touch_the_global_generator():
    torch.manual_seed(5)
    before = torch.rand(3)
    torch.manual_seed(5)
    window_bias_transfer((2, 2), (3, 3), steps=1, hidden_dim=8)
    assert torch.equal(torch.rand(3), before)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: multimodal_positions([]), ValueError, "segments must hold"),
        (lambda: multimodal_positions("ab"), TypeError, "segments must be a sequence"),
        (lambda: multimodal_positions([0]), ValueError, r"segments\[0\]"),
        (lambda: multimodal_positions([(1, 2)]), ValueError, "text length or a"),
        (lambda: multimodal_positions([(1, 2.0, 3)]), TypeError, r"segments\[0\]\[1\]"),
        (lambda: locality_bias_target(3), TypeError, "window_size must be a pair"),
        (lambda: window_bias_transfer((1, 4)), ValueError, r"small\[0\]"),
        (lambda: window_bias_transfer((8, 8), (4, 16)), ValueError, "large must be at least"),
        (lambda: window_bias_transfer(steps=-1), ValueError, "steps"),
        (lambda: window_bias_transfer(seed=True), TypeError, "seed"),
    ],
)
def test_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()
