"""posenc.window_v2 against transformers' Swin V2 attention and a float64 transcription."""

import math

import pytest
import torch
from torch import nn
from transformers import Swinv2Config
from transformers.models.swinv2.modeling_swinv2 import Swinv2SelfAttention

from posenc.window import relative_position_index
from posenc.window_v2 import ContinuousPositionBias, log_spaced_relative_coords

F64 = torch.float64

# (window_size, pretrained_window_size or None, num_heads)
CONFIGS = [
    ((8, 8), None, 3),
    ((4, 6), None, 2),
    ((16, 16), (8, 8), 4),
    ((12, 12), (6, 6), 2),
    ((5, 7), (3, 4), 1),
]


def hf_attention(window_size, pretrained, num_heads):
    torch.manual_seed(0)
    config = Swinv2Config()
    return Swinv2SelfAttention(
        config,
        dim=8 * num_heads,
        num_heads=num_heads,
        window_size=list(window_size),
        pretrained_window_size=list(pretrained) if pretrained else [0, 0],
    ).eval()


def copied(hf, window_size, pretrained, num_heads):
    """A ContinuousPositionBias holding the Hugging Face MLP's weights, under Swin V2's names."""
    torch.manual_seed(1)
    ours = ContinuousPositionBias(window_size, num_heads, pretrained_window_size=pretrained)
    mlp = hf.continuous_position_bias_mlp.state_dict()
    ours.load_state_dict({f"cpb_mlp.{key}": value for key, value in mlp.items()})
    return ours


def swinv2_coords_loop(wh, ww, pretrained):
    """The formula offset by offset with math.log2, in float64."""
    ph, pw = pretrained if pretrained else (wh, ww)
    out = torch.zeros(2 * wh - 1, 2 * ww - 1, 2, dtype=F64)
    for i, dr in enumerate(range(-(wh - 1), wh)):
        for j, dc in enumerate(range(-(ww - 1), ww)):
            for a, (d, p) in enumerate(((dr, ph), (dc, pw))):
                x = 8 * d / (p - 1)
                out[i, j, a] = math.copysign(math.log2(abs(x) + 1) / math.log2(8), x) if x else 0.0
    return out


@pytest.mark.parametrize(("window_size", "pretrained", "num_heads"), CONFIGS)
def test_coords_match_swinv2_relative_coords_table(window_size, pretrained, num_heads):
    hf = hf_attention(window_size, pretrained, num_heads)
    got = log_spaced_relative_coords(window_size, pretrained)
    assert got.dtype == F64 and got.shape == (2 * window_size[0] - 1, 2 * window_size[1] - 1, 2)
    torch.testing.assert_close(got.float(), hf.relative_coords_table[0], rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(
        got, swinv2_coords_loop(*window_size, pretrained), rtol=1e-14, atol=0
    )


@pytest.mark.parametrize(("window_size", "pretrained", "num_heads"), CONFIGS)
def test_bias_matches_swinv2_for_the_same_weights(window_size, pretrained, num_heads):
    hf = hf_attention(window_size, pretrained, num_heads)
    ours = copied(hf, window_size, pretrained, num_heads)
    assert torch.equal(ours.relative_position_index, hf.relative_position_index)
    torch.testing.assert_close(
        ours.relative_coords_table, hf.relative_coords_table[0], rtol=1e-6, atol=1e-6
    )
    bias = ours()  # [h, N, N]
    n = window_size[0] * window_size[1]
    assert bias.shape == (num_heads, n, n) and bias.dtype == torch.float32
    # Swinv2SelfAttention.forward's bias, transcribed
    table = hf.continuous_position_bias_mlp(hf.relative_coords_table).view(-1, num_heads)
    ref = table[hf.relative_position_index.view(-1)].view(n, n, -1).permute(2, 0, 1)
    torch.testing.assert_close(bias, 16 * torch.sigmoid(ref), rtol=1e-5, atol=1e-5)
    # and what forward adds: with zero queries the cosine scores vanish, the weights are softmax(B)
    with torch.no_grad():
        hf.query.weight.zero_()
        if hf.query.bias is not None:
            hf.query.bias.zero_()
        x = torch.randn(2, n, 8 * num_heads)
        _, probs = hf(x, output_attentions=True)
    torch.testing.assert_close(
        torch.softmax(bias, -1).expand_as(probs), probs, rtol=1e-5, atol=1e-6
    )


def test_bias_transfers_to_a_larger_window():
    """The 8×8 MLP run at 16×16 with pretrained 8×8: offsets within ±7 keep their bias."""
    torch.manual_seed(0)
    small = ContinuousPositionBias((8, 8), 2, hidden_dim=16)
    large = ContinuousPositionBias((16, 16), 2, pretrained_window_size=(8, 8), hidden_dim=16)
    large.load_state_dict(small.state_dict())
    b_small = small().reshape(2, 8, 8, 8, 8)  # [h, r_q, c_q, r_k, c_k]
    b_large = large().reshape(2, 16, 16, 16, 16)
    torch.testing.assert_close(b_large[:, :8, :8, :8, :8], b_small)


def test_mlp_layout_and_state_dict_keys():
    module = ContinuousPositionBias((7, 7), 6)
    assert list(module.state_dict()) == ["cpb_mlp.0.weight", "cpb_mlp.0.bias", "cpb_mlp.2.weight"]
    assert module.cpb_mlp[0].weight.shape == (512, 2)
    assert module.cpb_mlp[2].weight.shape == (6, 512)
    assert isinstance(module.cpb_mlp[1], nn.ReLU)
    assert torch.equal(module.relative_position_index, relative_position_index((7, 7)))
    bias = module()
    assert bias.shape == (6, 49, 49) and bool(((bias > 0) & (bias < 16)).all())
    assert "pretrained_window_size" not in repr(module)
    assert "pretrained_window_size=(4, 4)" in repr(
        ContinuousPositionBias((7, 7), 6, pretrained_window_size=(4, 4))
    )


def test_checkpoint_tables_of_another_window_are_dropped_and_mlp_shapes_checked():
    small = ContinuousPositionBias((4, 4), 2, hidden_dim=8)
    state = dict(small.state_dict())
    state["relative_coords_table"] = torch.zeros(1, 7, 7, 2)  # as official checkpoints carry
    state["relative_position_index"] = torch.zeros(16, 16, dtype=torch.long)
    large = ContinuousPositionBias((6, 6), 2, hidden_dim=8)
    large.load_state_dict(state)
    assert large.relative_coords_table.shape == (11, 11, 2)
    torch.testing.assert_close(
        large.relative_coords_table, log_spaced_relative_coords((6, 6)).float()
    )
    with pytest.raises(ValueError, match="cpb_mlp.2.weight"):
        ContinuousPositionBias((4, 4), 3, hidden_dim=8).load_state_dict(small.state_dict())


def test_reset_buffers_after_to_empty_and_dtype():
    module = ContinuousPositionBias((3, 5), 2, pretrained_window_size=(4, 4), hidden_dim=8)
    expected = module()
    empty = ContinuousPositionBias((3, 5), 2, pretrained_window_size=(4, 4), hidden_dim=8).to(
        "meta"
    )
    assert empty().device.type == "meta"
    empty = empty.to_empty(device="cpu")
    empty.load_state_dict(module.state_dict())
    torch.testing.assert_close(empty(), expected)
    double = module.double()
    assert double.relative_coords_table.dtype == F64 and double().dtype == F64
    double.reset_buffers()
    torch.testing.assert_close(
        double.relative_coords_table, log_spaced_relative_coords((3, 5), (4, 4))
    )


def test_window_of_one_row_or_column():
    torch.testing.assert_close(log_spaced_relative_coords((1, 1)), torch.zeros(1, 1, 2, dtype=F64))
    coords = log_spaced_relative_coords((1, 3))
    assert bool((coords[..., 0] == 0).all())
    # offsets ±1, ±2 of 3 columns: 8·1/2 = 4 and 8·2/2 = 8, then log2(x + 1)/log2(8)
    half, end = math.log2(5) / 3, math.log2(9) / 3
    torch.testing.assert_close(
        coords[0, :, 1], torch.tensor([-end, -half, 0.0, half, end], dtype=F64)
    )


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: log_spaced_relative_coords(7), TypeError, "window_size"),
        (lambda: log_spaced_relative_coords((7,)), ValueError, "window_size"),
        (lambda: log_spaced_relative_coords((7, 0)), ValueError, "window_size"),
        (lambda: log_spaced_relative_coords((7, 7.0)), TypeError, "window_size"),
        (lambda: log_spaced_relative_coords((7, 7), (1, 8)), ValueError, ">= 2"),
        (lambda: log_spaced_relative_coords((7, 7), (0, 0)), ValueError, "pretrained_window_size"),
        (lambda: log_spaced_relative_coords((7, 7), 8), TypeError, "pretrained_window_size"),
        (lambda: ContinuousPositionBias((7, 7), 0), ValueError, "num_heads"),
        (lambda: ContinuousPositionBias((7, 7), True), TypeError, "num_heads"),
        (lambda: ContinuousPositionBias((7, 7), 2, hidden_dim=0), ValueError, "hidden_dim"),
        (lambda: ContinuousPositionBias((7, 7), 2, hidden_dim=8.0), TypeError, "hidden_dim"),
        (lambda: ContinuousPositionBias("77", 2), TypeError, "window_size"),
        (
            lambda: ContinuousPositionBias((7, 7), 2, pretrained_window_size=(8, 1)),
            ValueError,
            ">= 2",
        ),
    ],
)
def test_refusals(call, error, words):
    with pytest.raises(error, match=words):
        call()
