"""Tests for book.toy.probes: accuracies against loops, attention weights and RoPE's pair logits
against float64 transcriptions."""

from __future__ import annotations

import math

import pytest
import torch
from torch import nn

from book.experiments import toy_model
from book.toy import (
    IGNORE_INDEX,
    TinyTransformer,
    toy_accuracy,
    toy_attention_weights,
    toy_batch,
    toy_position_accuracy,
    toy_rotary_pair_logits,
)
from posenc.attention import causal_mask
from posenc.rotary import RotaryEmbedding
from tests.book.toy.test_model import _layer_norm, _linear, _reference_forward
from tests.book.toy.test_training import _learned_model


def test_learned_model_refuses_longer_test_sequences() -> None:
    with pytest.raises(ValueError, match="cannot extrapolate"):
        toy_accuracy(_learned_model(max_positions=16), "shift", length=20)


@pytest.mark.parametrize("task", ["shift", "local_max"])
def test_position_accuracy_matches_a_loop_over_the_test_batch(task: str) -> None:
    model = _learned_model()
    model.eval()
    acc = toy_position_accuracy(model, task, length=10, k=2, num_sequences=40, seed=7)
    tokens, targets = toy_batch(
        task, 40, 10, vocab_size=12, k=2, generator=torch.Generator().manual_seed(7)
    )
    with torch.no_grad():
        predicted = model(tokens).argmax(-1).tolist()
    for p in range(10):
        pairs = [
            (predicted[b][p], targets[b, p].item())
            for b in range(40)
            if targets[b, p].item() != IGNORE_INDEX
        ]
        if not pairs:  # the first k positions of "shift" have no answer
            assert torch.isnan(acc[p])
            continue
        assert acc[p].item() == pytest.approx(sum(a == y for a, y in pairs) / len(pairs))
    # averaged over the answered positions (equal counts each), it is toy_accuracy
    answered = ~torch.isnan(acc)
    overall = toy_accuracy(model, task, length=10, k=2, num_sequences=40, seed=7)
    assert acc[answered].mean().item() == pytest.approx(overall)


@pytest.mark.parametrize("encoding", ["rope", "alibi", "learned", "shaw"])
def test_attention_weights_of_every_layer_match_the_transcription(encoding: str) -> None:
    torch.manual_seed(1)
    model = toy_model(encoding, vocab_size=10, dim=16, num_heads=4, num_layers=2, max_positions=12)
    tokens = torch.randint(0, 10, (2, 9))
    got = toy_attention_weights(model, tokens)
    expected: list = []
    with torch.no_grad():
        _reference_forward(model, tokens, expected)
    assert len(got) == 2 and all(w.shape == (2, 4, 9, 9) for w in got)
    for w, ref in zip(got, expected):
        torch.testing.assert_close(w.double(), ref, atol=1e-6, rtol=1e-5)
        assert bool((w.triu(1) == 0).all())  # causal


class _PlainAttention(nn.Module):
    """A custom attention layer that does not report its weights."""

    def __init__(self, dim: int, num_heads: int) -> None:
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        return self.proj(x)


def test_attention_weights_refuse_an_unknown_attention_layer() -> None:
    model = TinyTransformer(10, 16, 2, 1, attention=_PlainAttention)
    with pytest.raises(TypeError, match="SelfAttention or ShawRelativeMultiheadAttention"):
        toy_attention_weights(model, torch.zeros(1, 4, dtype=torch.long))


@pytest.mark.parametrize("interleaved", [True, False])
def test_rotary_pair_logits_add_up_to_the_logits_and_match_a_transcription(
    interleaved: bool,
) -> None:
    torch.manual_seed(0)
    model = TinyTransformer(
        10, 16, 2, 2, rotary=RotaryEmbedding(8, interleaved=interleaved), causal=True
    )
    with torch.no_grad():
        for p in model.parameters():
            p.add_(0.3 * torch.randn_like(p))
    tokens = torch.randint(0, 10, (2, 9))
    weights: list = []
    with torch.no_grad():
        _reference_forward(model, tokens, weights) if interleaved else None
    for layer in (0, 1):
        parts = toy_rotary_pair_logits(model, tokens, layer=layer)
        assert parts.shape == (2, 2, 4, 9, 9)
        logits = parts.sum(2).masked_fill(~causal_mask(9, 9), float("-inf"))
        torch.testing.assert_close(
            torch.softmax(logits, -1), toy_attention_weights(model, tokens)[layer]
        )
        if interleaved:
            torch.testing.assert_close(
                torch.softmax(logits.double(), -1), weights[layer], atol=1e-5, rtol=1e-4
            )
    # pair c, written out for layer 0: q and k from the embeddings, rotated by θ_c · position
    block = model.blocks[0]
    h = _layer_norm(model.embed.weight.detach().double()[tokens], block.norm1)  # [b, n, d]
    q, k = _linear(h, block.attn.qkv)[..., :16], _linear(h, block.attn.qkv)[..., 16:32]
    parts = toy_rotary_pair_logits(model, tokens, layer=0)
    for head in range(2):
        for c in range(4):
            theta = 10000.0 ** (-2 * c / 8)
            idx = (
                [8 * head + 2 * c, 8 * head + 2 * c + 1]
                if interleaved
                else [8 * head + c, 8 * head + c + 4]
            )
            qc, kc = q[..., idx], k[..., idx]  # [b, n, 2]
            for i in range(9):
                for j in range(9):
                    angle = theta * (j - i)  # q_i · R_{θ(j−i)} k_j
                    rotated = torch.stack(
                        [
                            kc[:, j, 0] * math.cos(angle) - kc[:, j, 1] * math.sin(angle),
                            kc[:, j, 0] * math.sin(angle) + kc[:, j, 1] * math.cos(angle),
                        ],
                        -1,
                    )
                    expected = (qc[:, i] * rotated).sum(-1) / math.sqrt(8)
                    torch.testing.assert_close(
                        parts[:, head, c, i, j].double(), expected, atol=2e-5, rtol=1e-4
                    )


def test_rotary_pair_logits_bad_arguments() -> None:
    tokens = torch.zeros(1, 4, dtype=torch.long)
    with pytest.raises(TypeError, match="RotaryEmbedding"):
        toy_rotary_pair_logits(toy_model("alibi"), tokens)
    with pytest.raises(ValueError, match="layer must be below"):
        toy_rotary_pair_logits(toy_model("rope"), tokens, layer=2)
    with pytest.raises(TypeError, match="TinyTransformer"):
        toy_rotary_pair_logits(nn.Linear(2, 2), tokens)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"seed": -1}, ValueError, "seed"),
        ({"num_sequences": 0}, ValueError, "num_sequences"),
        ({"length": True}, TypeError, "length must be an integer"),
    ],
)
def test_strict_accuracy_inputs(kwargs: dict, error: type, message: str) -> None:
    for probe in (toy_accuracy, toy_position_accuracy):
        with pytest.raises(error, match=message):
            probe(_learned_model(), "shift", **kwargs)
    with pytest.raises(TypeError, match="model must be a TinyTransformer"):
        toy_accuracy(nn.Linear(2, 2), "shift")  # type: ignore[arg-type]
