"""Tests for book.toy.model: the model's symmetries, its plug-in points, a float64 transcription
of its forward pass, and the ToyAttention layers."""

from __future__ import annotations

import math

import pytest
import torch
from torch import nn

from book.demos.shaw import shaw_attention_reference
from book.experiments import toy_model
from book.toy import (
    TinyTransformer,
    ToyAttention,
    ToySelfAttention,
    ToyShawAttention,
    ToyWindowAttention,
)
from posenc.alibi import ALiBiBias
from posenc.attention import SelfAttention, causal_mask, sliding_window_mask
from posenc.learned import LearnedPositionalEmbedding
from posenc.rotary import RotaryEmbedding, apply_rotary
from posenc.shaw import ShawRelativeMultiheadAttention
from posenc.sinusoidal import SinusoidalPositionalEncoding, sinusoidal_encoding
from posenc.t5 import T5RelativePositionBias


def _logits_commute_with_permutation(model: nn.Module) -> bool:
    g = torch.Generator().manual_seed(0)
    tokens = torch.randint(0, 10, (2, 12), generator=g)
    perm = torch.randperm(12, generator=g)
    with torch.no_grad():
        return torch.allclose(model(tokens[:, perm]), model(tokens)[:, perm], atol=1e-5)


def test_model_shapes() -> None:
    torch.manual_seed(0)
    model = TinyTransformer(10, 16, 2, 2, LearnedPositionalEmbedding(20, 16))
    assert model(torch.zeros(3, 7, dtype=torch.long)).shape == (3, 7, 10)


def test_without_position_the_model_is_permutation_equivariant() -> None:
    torch.manual_seed(0)
    assert _logits_commute_with_permutation(TinyTransformer(10, 16, 2, 2))


def test_zero_initialised_table_adds_no_position_information() -> None:
    torch.manual_seed(0)
    zeros = TinyTransformer(10, 16, 2, 1, LearnedPositionalEmbedding(12, 16, init="zeros"))
    assert _logits_commute_with_permutation(zeros)
    torch.manual_seed(0)
    random = TinyTransformer(10, 16, 2, 1, LearnedPositionalEmbedding(12, 16))
    assert not _logits_commute_with_permutation(random)
    torch.manual_seed(0)
    sinusoidal = TinyTransformer(10, 16, 2, 1, SinusoidalPositionalEncoding(16))
    assert not _logits_commute_with_permutation(sinusoidal)


class _SelfOnly(nn.Module):
    """Attention bias that lets each position attend to itself only."""

    def forward(self, n: int) -> torch.Tensor:
        bias = torch.full((n, n), float("-inf"))
        return bias.fill_diagonal_(0.0)  # [n, n]


def test_attention_bias_is_used() -> None:
    torch.manual_seed(0)
    model = TinyTransformer(10, 16, 2, 2, attention_bias=_SelfOnly())
    tokens = torch.randint(0, 10, (1, 6))
    changed = tokens.clone()
    changed[0, 5] = (changed[0, 5] + 1) % 10
    with torch.no_grad():
        a, b = model(tokens), model(changed)
    torch.testing.assert_close(a[:, :5], b[:, :5])  # positions 0..4 cannot see position 5
    assert not torch.allclose(a[:, 5], b[:, 5])


def test_model_bad_arguments() -> None:
    with pytest.raises(TypeError, match="position"):
        TinyTransformer(10, 16, 2, 1, position=torch.zeros(3))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="vocab_size"):
        TinyTransformer(1, 16)
    with pytest.raises(ValueError, match="num_heads must divide dim"):
        TinyTransformer(10, 16, 3)
    with pytest.raises(TypeError, match="tokens must be an integer tensor"):
        TinyTransformer(10, 16)(torch.zeros(2, 3))
    with pytest.raises(ValueError, match="tokens must have 2 dimensions"):
        TinyTransformer(10, 16)(torch.zeros(2, 3, 4, dtype=torch.long))


def _layer_norm(x: torch.Tensor, norm: nn.LayerNorm) -> torch.Tensor:
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + norm.eps) * norm.weight.double() + norm.bias.double()


def _linear(x: torch.Tensor, layer: nn.Linear) -> torch.Tensor:
    return x @ layer.weight.detach().double().T + layer.bias.detach().double()


def _reference_attention(
    block, h: torch.Tensor, model: TinyTransformer, mask, weights=None
) -> torch.Tensor:
    """One attention layer in float64, written out from the formulas of each encoding.

    Appends the attention weights to ``weights`` (a list) when given.
    """
    b, n, d = h.shape
    heads = model.num_heads
    attn = block.attn
    split = lambda t: t.reshape(b, n, heads, d // heads).transpose(1, 2)
    if isinstance(attn, ShawRelativeMultiheadAttention):
        q, k, v = (split(_linear(h, lin)) for lin in (attn.q_proj, attn.k_proj, attn.v_proj))
        rel_k = attn.rel_k.detach().double()
        z = shaw_attention_reference(q, k, v, rel_k, attn.rel_v.detach().double(), mask=mask)
        if weights is not None:  # Shaw's logits, one query-key pair at a time
            clip = attn.max_relative_position
            logits = torch.empty(b, heads, n, n, dtype=torch.float64)
            for i in range(n):
                for j in range(n):
                    a_k = rel_k[max(-clip, min(clip, j - i)) + clip]  # [d/h]
                    logits[:, :, i, j] = (q[:, :, i] * (k[:, :, j] + a_k)).sum(-1) / (
                        d // heads
                    ) ** 0.5
            if mask is not None:
                logits = logits.masked_fill(~mask, float("-inf"))
            weights.append(torch.softmax(logits, dim=-1))
        return _linear(z.transpose(1, 2).reshape(b, n, d), attn.out_proj)
    q, k, v = (split(t) for t in _linear(h, attn.qkv).split(d, dim=-1))  # [b, h, n, d/h] each
    if model.rotary is not None:
        q, k = apply_rotary(q), apply_rotary(k)  # positions 0..n-1, interleaved pairs
    logits = q @ k.transpose(-1, -2) / (d // heads) ** 0.5  # [b, h, n, n]
    if model.attention_bias is not None:
        logits = logits + model.attention_bias(n).double()
    if mask is not None:
        logits = logits.masked_fill(~mask, float("-inf"))
    a = torch.softmax(logits, dim=-1)  # [b, h, n, n]
    if weights is not None:
        weights.append(a)
    z = a @ v  # [b, h, n, d/h]
    return _linear(z.transpose(1, 2).reshape(b, n, d), attn.out)


def _reference_forward(model: TinyTransformer, tokens: torch.Tensor, weights=None) -> torch.Tensor:
    """TinyTransformer in float64, block by block, from its parameters."""
    x = model.embed.weight.detach().double()[tokens]  # [b, n, d]
    n = tokens.shape[1]
    if isinstance(model.position, LearnedPositionalEmbedding):
        x = x + model.position.table.detach().double()[:n]  # row p for position p
    elif isinstance(model.position, SinusoidalPositionalEncoding):
        x = x + sinusoidal_encoding(n, x.shape[-1], dtype=torch.float64)
    mask = causal_mask(n, n) if model.causal else None
    for block in model.blocks:
        x = x + _reference_attention(block, _layer_norm(x, block.norm1), model, mask, weights)
        hidden = torch.nn.functional.gelu(_linear(_layer_norm(x, block.norm2), block.mlp[0]))
        x = x + _linear(hidden, block.mlp[2])
    return _linear(_layer_norm(x, model.norm), model.head)


def test_rotary_module_is_shared_by_every_layer_and_has_no_parameters() -> None:
    model = toy_model("rope", num_layers=3)
    assert all(block.attn.rotary is model.rotary for block in model.blocks)
    assert isinstance(model.rotary, RotaryEmbedding) and model.rotary.dim == 8
    base = sum(p.numel() for p in toy_model("none", num_layers=3).parameters())
    assert sum(p.numel() for p in model.parameters()) == base


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (
            {"attention_bias": T5RelativePositionBias(4)},
            ValueError,
            "attention_bias must give one bias per head",
        ),
        ({"rotary": RotaryEmbedding(16)}, ValueError, "rotary must act on the 8 channels"),
        ({"rotary": lambda q, k: (q, k)}, TypeError, "rotary must be an nn.Module"),
        ({"attention": 3}, TypeError, "attention must be a factory"),
        ({"attention": lambda d, h: "layer"}, TypeError, "must return an nn.Module"),
        (
            {
                "attention": lambda d, h: ShawRelativeMultiheadAttention(d, h, 2),
                "attention_bias": ALiBiBias(2),
            },
            ValueError,
            "cannot be combined",
        ),
        ({"causal": 1}, TypeError, "causal must be a bool"),
    ],
)
def test_plug_in_errors_name_the_argument(kwargs: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        TinyTransformer(10, 16, 2, 1, **kwargs)


def test_rotary_needs_an_even_head_width() -> None:
    with pytest.raises(ValueError, match="rotary needs an even number of channels per head"):
        TinyTransformer(10, 12, 4, 1, rotary=RotaryEmbedding(4))
    with pytest.raises(ValueError, match="rope needs an even number of channels per head"):
        toy_model("rope", dim=12, num_heads=4)
    with pytest.raises(ValueError, match="encoding must be one of"):
        toy_model("xpos")
    with pytest.raises(ValueError, match="num_heads must divide dim"):
        toy_model("rope", dim=12, num_heads=5)


# -- the ToyAttention layers -------------------------------------------------------------------
def test_toy_self_attention_is_self_attention_with_its_weights_and_projections() -> None:
    torch.manual_seed(0)
    layer = ToySelfAttention(16, 4)
    assert isinstance(layer, SelfAttention) and isinstance(layer, ToyAttention)
    x = torch.randn(2, 5, 16)
    bias, mask = torch.randn(4, 5, 5), causal_mask(5, 5)
    _, w = layer(x, bias=bias, mask=mask, return_weights=True)
    torch.testing.assert_close(layer.attention_weights(x, bias=bias, mask=mask), w, rtol=0, atol=0)
    qkv_w, qkv_b, out_w, out_b = (
        torch.randn(48, 16),
        torch.randn(48),
        torch.randn(16, 16),
        torch.randn(16),
    )
    with torch.no_grad():
        layer.load_projections(qkv_w, qkv_b, out_w, out_b)
    assert torch.equal(layer.qkv.weight, qkv_w) and torch.equal(layer.qkv.bias, qkv_b)
    assert torch.equal(layer.out.weight, out_w) and torch.equal(layer.out.bias, out_b)


def test_toy_shaw_attention_is_shaw_with_its_weights_and_projections() -> None:
    torch.manual_seed(0)
    toy = ToyShawAttention(16, 4, 2)
    plain = ShawRelativeMultiheadAttention(16, 4, 2)
    plain.load_state_dict(toy.state_dict())
    assert isinstance(toy, ToyAttention) and not isinstance(plain, ToyAttention)
    x = torch.randn(2, 6, 16)
    mask = causal_mask(6, 6)
    torch.testing.assert_close(toy(x, mask=mask), plain(x, mask=mask), rtol=0, atol=0)
    # the weights, from a float64 loop over query-key pairs
    w = toy.attention_weights(x, mask=mask)  # [b, h, n, n]
    q = _linear(x.double(), toy.q_proj).reshape(2, 6, 4, 4).transpose(1, 2)
    k = _linear(x.double(), toy.k_proj).reshape(2, 6, 4, 4).transpose(1, 2)
    rel_k = toy.rel_k.detach().double()
    logits = torch.empty(2, 4, 6, 6, dtype=torch.float64)
    for i in range(6):
        for j in range(6):
            a_k = rel_k[max(-2, min(2, j - i)) + 2]
            logits[:, :, i, j] = (q[:, :, i] * (k[:, :, j] + a_k)).sum(-1) / 2.0
    expected = torch.softmax(logits.masked_fill(~mask, float("-inf")), -1)
    torch.testing.assert_close(w.double(), expected, atol=1e-6, rtol=1e-5)
    with pytest.raises(ValueError, match="bias must be None"):
        toy.attention_weights(x, bias=torch.zeros(6, 6))
    packed_w, packed_b = torch.randn(48, 16), torch.randn(48)
    with torch.no_grad():
        toy.load_projections(packed_w, packed_b, torch.eye(16), torch.zeros(16))
    stacked = torch.cat([toy.q_proj.weight, toy.k_proj.weight, toy.v_proj.weight])
    assert torch.equal(stacked, packed_w) and torch.equal(toy.out_proj.weight, torch.eye(16))
    assert torch.equal(torch.cat([toy.q_proj.bias, toy.k_proj.bias, toy.v_proj.bias]), packed_b)


def test_the_default_layer_is_a_toy_self_attention_and_plug_ins_name_the_replaced_layer() -> None:
    model = TinyTransformer(10, 16, 2, 2)
    assert all(type(block.attn) is ToySelfAttention for block in model.blocks)
    shaw = TinyTransformer(10, 16, 2, 1, attention=lambda d, h: ToyShawAttention(d, h, 2))
    assert shaw.plug_ins == ("attention",)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"causal": "False"}, TypeError, "causal must be a bool"),
        ({"num_layers": True}, TypeError, "num_layers must be an integer"),
        ({"mlp_ratio": 0}, ValueError, "mlp_ratio must be positive"),
        ({"dim": 16.0}, TypeError, "dim must be an integer"),
    ],
)
def test_strict_model_inputs(kwargs: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        TinyTransformer(10, **{"dim": 16, "num_heads": 2, **kwargs})


# -- chapter 12's toy forms: M-RoPE on text and Swin V2's bias on a 1-D window ------------------


def test_multimodal_rotary_on_text_is_rope() -> None:
    from book.toy.model import ToyMultimodalRotary
    from posenc.rotary_nd import apply_rotary_nd

    torch.manual_seed(0)
    q, k = torch.randn(2, 3, 5, 16), torch.randn(2, 3, 9, 16)
    mrope = ToyMultimodalRotary(16, base=500.0)
    assert mrope.sections == (2, 3, 3)  # Qwen2-VL's shares of 8 pairs
    got = mrope(q, k)
    want = RotaryEmbedding(16, base=500.0)(q, k)
    for a, b in zip(got, want):
        torch.testing.assert_close(a, b, atol=1e-6, rtol=1e-5)
    # (p, p, p) through M-RoPE itself, the queries at the last 5 of the 9 positions
    p = torch.arange(4, 9)[:, None].expand(-1, 3)
    torch.testing.assert_close(got[0], apply_rotary_nd(q, p, base=500.0, sections=(2, 3, 3)))
    shifted = mrope(q, k, query_offset=0)[0]
    torch.testing.assert_close(shifted, apply_rotary(q, base=500.0), atol=1e-6, rtol=1e-5)
    with pytest.raises(ValueError, match="dim must be even"):
        ToyMultimodalRotary(7)


def test_continuous_bias_on_a_row_is_swin_v2_on_a_one_row_window() -> None:
    from book.toy.model import ToyContinuousBias
    from posenc.window_v2 import ContinuousPositionBias

    torch.manual_seed(0)
    toy = ToyContinuousBias(3, 8, hidden_dim=32)
    for n in (1, 5, 8, 20):
        swin = ContinuousPositionBias((1, n), 3, pretrained_window_size=(2, 8), hidden_dim=32)
        swin.load_state_dict(toy.state_dict())
        torch.testing.assert_close(toy(n), swin())
    with pytest.raises(ValueError, match="trained_length"):
        ToyContinuousBias(3, 1)
    with pytest.raises(TypeError, match="n must be an integer"):
        toy(4.0)


@pytest.mark.parametrize("key", ["rope_grid", "swin_v2"])
def test_chapter_12_toy_forms_build_train_and_stay_causal(key: str) -> None:
    torch.manual_seed(0)
    model = toy_model(key, dim=16, num_heads=2, num_layers=1, seed=0)
    tokens = torch.randint(0, 16, (2, 10))
    changed = tokens.clone()
    changed[:, 6] = (changed[:, 6] + 1) % 16
    with torch.no_grad():
        a, b = model(tokens), model(changed)
    assert a.shape == (2, 10, 16)
    torch.testing.assert_close(a[:, :6], b[:, :6])  # a decoder: nothing before 6 sees it
    assert not torch.allclose(a[:, 6:], b[:, 6:])


def _streaming_reference(layer: ToyWindowAttention, x: torch.Tensor) -> torch.Tensor:
    """float64, one query at a time: StreamingLLM's cache (sinks, then the most recent keys),
    positions assigned by place in the cache, RoPE written out pair by pair."""
    b, n, d = x.shape
    h, w, s = layer.num_heads, layer.window, layer.sinks
    hd = d // h
    W, B = layer.qkv.weight.double(), layer.qkv.bias.double()
    qkv = x.double() @ W.T + B  # [b, n, 3d]
    q, k, v = qkv.split(d, dim=-1)

    def rotate(vec: torch.Tensor, pos: int) -> torch.Tensor:  # [hd], interleaved pairs
        out = vec.clone()
        for m in range(hd // 2):
            angle = pos * 10000.0 ** (-2 * m / hd)
            c, sn = math.cos(angle), math.sin(angle)
            a, b_ = vec[2 * m], vec[2 * m + 1]
            out[2 * m], out[2 * m + 1] = a * c - b_ * sn, a * sn + b_ * c
        return out

    z = torch.zeros(b, n, d, dtype=torch.float64)
    for i in range(n):
        cache = sorted({j for j in range(min(s, i + 1))} | set(range(max(0, i - w + 1), i + 1)))
        for bb in range(b):
            for head in range(h):
                part = slice(head * hd, (head + 1) * hd)
                qi = rotate(q[bb, i, part], len(cache) - 1)
                logits = torch.stack(
                    [qi @ rotate(k[bb, j, part], place) for place, j in enumerate(cache)]
                ) / math.sqrt(hd)
                weights = torch.softmax(logits, -1)
                z[bb, i, part] = sum(wt * v[bb, j, part] for wt, j in zip(weights, cache))
    return z @ layer.out.weight.double().T + layer.out.bias.double()


@pytest.mark.parametrize(("window", "sinks"), [(3, 2), (4, 0), (2, 1), (12, 3)])
def test_window_attention_is_streaming_llm_with_cache_positions(window: int, sinks: int) -> None:
    torch.manual_seed(0)
    layer = ToyWindowAttention(8, 2, rotary=RotaryEmbedding(4), window=window, sinks=sinks).double()
    x = torch.randn(2, 10, 8, dtype=torch.float64)
    got = layer(x, mask=causal_mask(10, 10))
    torch.testing.assert_close(got, _streaming_reference(layer, x), rtol=1e-10, atol=1e-10)


def test_window_attention_without_a_window_is_the_causal_layer() -> None:
    torch.manual_seed(1)
    plain = ToySelfAttention(8, 2, rotary=RotaryEmbedding(4))
    wide = ToyWindowAttention(8, 2, rotary=RotaryEmbedding(4), window=16, sinks=2)
    wide.load_state_dict(plain.state_dict())
    x = torch.randn(3, 9, 8)
    mask = causal_mask(9, 9)
    torch.testing.assert_close(wide(x, mask=mask), plain(x, mask=mask), rtol=1e-6, atol=1e-6)
    weights = wide.attention_weights(x, mask=sliding_window_mask(9, 9, 16))
    assert weights.shape == (3, 2, 9, 9) and bool((weights.triu(1) == 0).all())
    narrow = ToyWindowAttention(8, 2, window=3, sinks=1)
    w = narrow.attention_weights(x, mask=mask)  # no rotary: plain attention under the mask
    assert bool((w[..., ~sliding_window_mask(9, 9, 3, sinks=1)] == 0).all())
    with pytest.raises(ValueError, match="window must be positive"):
        ToyWindowAttention(8, 2, window=0)
    with pytest.raises(ValueError, match="takes no bias"):
        narrow(x, bias=torch.zeros(9, 9))
