"""Tests for posenc.toy: the tasks against explicit loops, the model's symmetries, training."""

from __future__ import annotations

import math

import pytest
import torch
from torch import nn

from posenc.learned import LearnedPositionalEmbedding
from posenc.sinusoidal import SinusoidalPositionalEncoding, sinusoidal_encoding
from posenc.toy import (
    IGNORE_INDEX,
    Adam,
    TinyTransformer,
    ToyRun,
    toy_accuracy,
    toy_batch,
    toy_position_accuracy,
    train_toy,
)


# -- tasks -------------------------------------------------------------------------------------
def _loop_targets(task: str, x: list[int], k: int) -> list[int]:
    n = len(x)
    if task == "shift":
        return [x[p - k] if p >= k else IGNORE_INDEX for p in range(n)]
    if task == "reverse":
        return [x[n - 1 - p] for p in range(n)]
    return [max(x[max(0, p - k) : min(n, p + k + 1)]) for p in range(n)]


@pytest.mark.parametrize("task", ["shift", "reverse", "local_max"])
@pytest.mark.parametrize("k", [1, 3])
def test_targets_match_loop_transcription(task: str, k: int) -> None:
    g = torch.Generator().manual_seed(0)
    tokens, targets = toy_batch(task, 5, 9, vocab_size=7, k=k, generator=g)
    assert tokens.shape == targets.shape == (5, 9)
    assert tokens.dtype == targets.dtype == torch.int64
    assert int(tokens.min()) >= 0 and int(tokens.max()) < 7
    for row, target in zip(tokens.tolist(), targets.tolist()):
        assert target == _loop_targets(task, row, k)


def test_local_max_with_zero_width_is_identity() -> None:
    tokens, targets = toy_batch("local_max", 3, 6, k=0, generator=torch.Generator().manual_seed(1))
    assert torch.equal(tokens, targets)


def test_batches_are_reproducible() -> None:
    a = toy_batch("shift", 4, 8, generator=torch.Generator().manual_seed(5))
    b = toy_batch("shift", 4, 8, generator=torch.Generator().manual_seed(5))
    assert all(torch.equal(u, v) for u, v in zip(a, b))


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "name"),
    [
        (("copy", 2, 8), {}, ValueError, "task"),
        (("shift", 0, 8), {}, ValueError, "batch_size"),
        (("shift", 2, 8.0), {}, TypeError, "length"),
        (("shift", 2, 8), {"vocab_size": 1}, ValueError, "vocab_size"),
        (("shift", 2, 8), {"k": 8}, ValueError, "k must be smaller"),
        (("shift", 2, 8), {"k": 0}, ValueError, "k"),
        (("local_max", 2, 8), {"k": -1}, ValueError, "k"),
    ],
)
def test_bad_task_arguments(args: tuple, kwargs: dict, error: type, name: str) -> None:
    with pytest.raises(error, match=name):
        toy_batch(*args, **kwargs)


# -- model -------------------------------------------------------------------------------------
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


# -- optimiser ---------------------------------------------------------------------------------
def test_adam_matches_torch_optim_adam() -> None:
    torch.manual_seed(0)
    ours_params = [
        nn.Parameter(torch.randn(6, 4)),
        nn.Parameter(torch.randn(3)),
        nn.Parameter(torch.randn(2, 2, 2)),
    ]
    ref_params = [nn.Parameter(p.detach().clone()) for p in ours_params]
    targets = [torch.randn_like(p) for p in ours_params]
    ours, reference = Adam(ours_params, lr=0.05), torch.optim.Adam(ref_params, lr=0.05)
    for _ in range(25):
        for params, opt in ((ours_params, ours), (ref_params, reference)):
            for p in params:
                p.grad = None
            sum(
                (((p - t) ** 2) * (1.0 + i)).sum() for i, (p, t) in enumerate(zip(params, targets))
            ).backward()
            opt.step()
    for a, b in zip(ours_params, ref_params):
        torch.testing.assert_close(a.detach(), b.detach(), rtol=1e-6, atol=1e-7)


def test_adam_leaves_entries_with_zero_gradient_exactly_unchanged() -> None:
    p = nn.Parameter(torch.ones(4, 2))
    opt = Adam([p], lr=0.1)
    for _ in range(3):
        p.grad = torch.tensor([[1.0, -2.0], [0.5, 0.1], [0.0, 0.0], [0.0, 0.0]])
        opt.step()
    assert torch.equal(p.detach()[2:], torch.ones(2, 2))
    assert bool((p.detach()[:2] != 1).all())


# -- training ----------------------------------------------------------------------------------
def _learned_model(init: str = "trunc_normal", max_positions: int = 24) -> TinyTransformer:
    torch.manual_seed(0)
    return TinyTransformer(12, 32, 2, 1, LearnedPositionalEmbedding(max_positions, 32, init=init))


def test_training_learns_the_task_and_leaves_unused_rows_alone() -> None:
    model = _learned_model()
    initial = model.position.table.detach().clone()
    threads = torch.get_num_threads()
    run = train_toy(
        model,
        "local_max",
        steps=150,
        length=16,
        record=lambda m: m.position.table,
        record_steps=[0, 10, 150],
    )
    assert torch.get_num_threads() == threads  # restored
    assert isinstance(run, ToyRun) and len(run.losses) == 150
    assert sorted(run.snapshots) == [0, 10, 150]
    assert torch.equal(run.snapshots[0], initial)
    assert torch.equal(run.snapshots[150], model.position.table.detach())
    assert sum(run.losses[-10:]) < 0.25 * sum(run.losses[:10])
    assert toy_accuracy(model, "local_max", length=16) > 0.9
    trained = model.position.table.detach()
    assert torch.equal(trained[16:], initial[16:])  # never reached: exactly unchanged
    assert bool(((trained[:16] - initial[:16]).norm(dim=1) > 0.1).all())


def test_zero_initialised_table_learns_away_from_zero() -> None:
    model = _learned_model("zeros")
    train_toy(model, "local_max", steps=30, length=16)
    table = model.position.table.detach()
    assert bool((table[:16].norm(dim=1) > 0).all())
    assert torch.count_nonzero(table[16:]) == 0
    assert torch.unique(table[:16], dim=0).shape[0] == 16  # rows differ: symmetry is broken


def test_without_positions_the_shift_task_stays_near_chance() -> None:
    torch.manual_seed(0)
    model = TinyTransformer(12, 32, 2, 1)
    train_toy(model, "shift", steps=100, length=16)
    assert toy_accuracy(model, "shift", length=16) < 0.3


def test_training_is_reproducible() -> None:
    a = train_toy(_learned_model(), "shift", steps=20, length=12).losses
    b = train_toy(_learned_model(), "shift", steps=20, length=12).losses
    assert a == b


def test_learned_model_refuses_longer_test_sequences() -> None:
    with pytest.raises(ValueError, match="cannot extrapolate"):
        toy_accuracy(_learned_model(max_positions=16), "shift", length=20)


def test_train_toy_bad_arguments() -> None:
    model = _learned_model()
    with pytest.raises(TypeError, match="model"):
        train_toy(nn.Linear(2, 2), "shift")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="record_steps"):
        train_toy(model, "shift", steps=5, record=lambda m: m.position.table, record_steps=[6])
    with pytest.raises(ValueError, match="record function"):
        train_toy(model, "shift", steps=5, record_steps=[1])
    with pytest.raises(ValueError, match="task"):
        train_toy(model, "sort", steps=5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="lr"):
        train_toy(model, "shift", steps=5, lr=0.0)


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


# -- every encoding of the book plugs in ---------------------------------------------------------
from posenc.alibi import ALiBiBias
from posenc.attention import causal_mask
from posenc.rotary import RotaryEmbedding, apply_rotary
from posenc.shaw import ShawRelativeMultiheadAttention, shaw_attention_reference
from posenc.t5 import T5RelativePositionBias
from posenc.toy import (
    ENCODINGS,
    LengthResults,
    length_generalisation,
    toy_attention_weights,
    toy_model,
)

PLUG_INS = {
    "none": (),
    "sinusoidal": ("position",),
    "learned": ("position",),
    "shaw": ("attention",),
    "t5": ("attention_bias",),
    "alibi": ("attention_bias",),
    "rope": ("rotary",),
}


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


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("causal", [True, False])
def test_every_encoding_matches_a_float64_transcription(encoding: str, causal: bool) -> None:
    torch.manual_seed(0)
    model = toy_model(
        encoding,
        vocab_size=10,
        dim=16,
        num_heads=4,
        num_layers=2,
        causal=causal,
        max_positions=12,
        shaw_max_relative_position=3,
        t5_max_distance=8,
    )
    with torch.no_grad():  # move every parameter away from its initial value
        for p in model.parameters():
            p.add_(0.3 * torch.randn_like(p))
    assert model.plug_ins == PLUG_INS[encoding]
    tokens = torch.randint(0, 10, (3, 11))
    with torch.no_grad():
        got = model(tokens)
        expected = _reference_forward(model, tokens)
    assert got.shape == (3, 11, 10)
    torch.testing.assert_close(got.double(), expected, atol=2e-5, rtol=1e-4)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_every_encoding_trains_and_a_causal_model_never_looks_ahead(encoding: str) -> None:
    torch.manual_seed(0)
    model = toy_model(encoding, dim=16, num_heads=4, max_positions=10)
    before = [p.detach().clone() for p in model.parameters()]
    run = train_toy(model, "shift", steps=2, length=(6, 10), batch_size=4)
    assert all(torch.isfinite(torch.tensor(run.losses)))
    assert any(not torch.equal(a, p.detach()) for a, p in zip(before, model.parameters()))
    tokens = torch.randint(0, 16, (2, 10))
    changed = tokens.clone()
    changed[:, 7] = (changed[:, 7] + 1) % 16
    with torch.no_grad():
        a, b = model(tokens), model(changed)
    torch.testing.assert_close(a[:, :7], b[:, :7])  # positions 0..6 cannot see position 7
    assert not torch.allclose(a[:, 7:], b[:, 7:])


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


def test_rotary_module_is_shared_by_every_layer_and_has_no_parameters() -> None:
    model = toy_model("rope", num_layers=3)
    assert all(block.attn.rotary is model.rotary for block in model.blocks)
    assert isinstance(model.rotary, RotaryEmbedding) and model.rotary.dim == 8
    base = sum(p.numel() for p in toy_model("none", num_layers=3).parameters())
    assert sum(p.numel() for p in model.parameters()) == base


def test_position_parameter_counts_follow_the_formulas() -> None:
    base = sum(p.numel() for p in toy_model("none").parameters())
    extra = {e: sum(p.numel() for p in toy_model(e).parameters()) - base for e in ENCODINGS}
    d, h, layers, n_max, k_shaw, buckets = 32, 4, 2, 16, 8, 8
    assert extra == {
        "none": 0,
        "sinusoidal": 0,
        "alibi": 0,
        "rope": 0,
        "learned": n_max * d,  # one row per position
        "shaw": layers * 2 * (2 * k_shaw + 1) * (d // h),  # a^K and a^V in every layer
        "t5": buckets * h,  # one table for the whole model
    }


def test_max_length_comes_from_the_position_table() -> None:
    assert toy_model("learned", max_positions=12).max_positions == 12
    assert all(toy_model(e).max_positions is None for e in ENCODINGS if e != "learned")


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


# -- training on a range of lengths -------------------------------------------------------------
def test_training_lengths_are_drawn_from_the_range_and_a_fixed_length_is_unchanged() -> None:
    run = train_toy(_learned_model(), "shift", steps=60, length=(5, 9))
    assert len(run.lengths) == 60 and set(run.lengths) == {5, 6, 7, 8, 9}
    fixed = train_toy(_learned_model(), "shift", steps=5, length=12)
    pair = train_toy(_learned_model(), "shift", steps=5, length=(12, 12))
    assert fixed.losses == pair.losses and fixed.lengths == [12] * 5
    seen = []
    train_toy(_learned_model(), "shift", steps=3, length=8, on_step=seen.append)
    assert seen == [1, 2, 3]


@pytest.mark.parametrize(
    ("length", "error", "message"),
    [
        ((9, 5), ValueError, "n_min <= n_max"),
        ((4, 5, 6), ValueError, "pair"),
        ((4, 30), ValueError, "length must be at most the model's max_positions=24"),
        ((0, 5), ValueError, r"length\[0\] must be positive"),
    ],
)
def test_bad_length_ranges(length: tuple, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        train_toy(_learned_model(), "shift", steps=1, length=length)


# -- the experiment -----------------------------------------------------------------------------
def _tiny_experiment(**kwargs) -> LengthResults:
    options = {
        "task": "shift",
        "train_lengths": (6, 8),
        "eval_lengths": (8, 16),
        "steps": 4,
        "num_sequences": 16,
        "progress": False,
        "dim": 16,
        "num_heads": 2,
        "num_layers": 1,
    }
    return length_generalisation(**{**options, **kwargs})


def test_length_generalisation_is_reproducible_and_marks_what_cannot_run() -> None:
    a = _tiny_experiment(encodings=["learned", "rope", "alibi"])
    b = _tiny_experiment(encodings=["learned", "rope", "alibi"])
    assert a.encodings == ("learned", "rope", "alibi")
    assert a.losses == b.losses
    assert a.accuracy.keys() == b.accuracy.keys()
    for name in a.encodings:
        for n in (8, 16):
            x, y = a.accuracy[name][n], b.accuracy[name][n]
            assert (x == y) or (math.isnan(x) and math.isnan(y))
    assert a.cannot_run() == [("learned", 16)]
    assert math.isnan(a.accuracy["learned"][16]) and bool(
        a.position_accuracy["learned"][16].isnan().all()
    )
    assert a.first_failure("learned", 16) == 0
    assert a.chance == 1 / 16 and a.train_lengths == (6, 8) and a.eval_lengths == (8, 16)
    assert set(a.seconds) == set(a.encodings)
    table = a.table()
    assert "—" in table and "cannot run" in table and "n=16 (2L)" in table
    assert "<table" in a._repr_html_() and repr(a) == table


def test_length_generalisation_accuracy_is_toy_accuracy_of_the_trained_model() -> None:
    results = _tiny_experiment(encodings=["t5", "none"], steps=6)
    for name, model in results.models.items():
        assert not model.training
        for n in (8, 16):
            expected = toy_accuracy(model, "shift", length=n, num_sequences=16, seed=1234)
            assert results.accuracy[name][n] == pytest.approx(expected, abs=1e-12)
    # the same initial weights and batches as a hand-made run of train_toy
    model = toy_model("t5", dim=16, num_heads=2, num_layers=1, max_positions=8, seed=0)
    run = train_toy(model, "shift", steps=6, length=(6, 8))
    assert run.losses == results.losses["t5"]


def test_length_generalisation_takes_factories() -> None:
    results = length_generalisation(
        {"tiny rope": lambda: toy_model("rope", dim=8, num_heads=2, num_layers=1)},
        train_lengths=(6, 8),
        eval_lengths=(8,),
        steps=2,
        num_sequences=8,
        progress=False,
    )
    assert results.encodings == ("tiny rope",) and results.models["tiny rope"].dim == 8


def test_first_failure_reads_the_position_accuracy() -> None:
    results = _tiny_experiment(encodings=["none"], steps=1)
    results.position_accuracy["none"][16] = torch.tensor(
        [math.nan, math.nan] + [1.0] * 5 + [0.2] + [1.0] * 8
    )
    assert results.first_failure("none", 16) == 7
    assert results.first_failure("none", 16, threshold=0.1) is None
    with pytest.raises(ValueError, match="length must be one of"):
        results.first_failure("none", 12)
    with pytest.raises(ValueError, match="encoding must be one of"):
        results.first_failure("rope", 16)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"encodings": ["xpos"]}, ValueError, "encodings must be names"),
        ({"encodings": "rope"}, TypeError, "not one str"),
        ({"encodings": []}, ValueError, "at least one"),
        (
            {"encodings": {"a": lambda: nn.Linear(2, 2)}, "dim": None},
            ValueError,
            "model_options apply",
        ),
        ({"eval_lengths": ()}, ValueError, "eval_lengths"),
        ({"train_lengths": (9, 8)}, ValueError, "n_min <= n_max"),
    ],
)
def test_length_generalisation_errors(kwargs: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        _tiny_experiment(**kwargs)


def test_a_factory_must_build_a_tiny_transformer() -> None:
    with pytest.raises(TypeError, match="must return a TinyTransformer"):
        length_generalisation({"linear": lambda: nn.Linear(2, 2)}, steps=1, progress=False)


def test_progress_bar_outside_a_notebook_is_tqdm_on_stderr(capsys: pytest.CaptureFixture) -> None:
    _tiny_experiment(encodings=["none"], steps=2, progress=True)
    err = capsys.readouterr().err
    assert "training" in err and "2/2" in err


# -- a shared initialisation across encodings ----------------------------------------------------
def _shared_weights(model: TinyTransformer) -> list[torch.Tensor]:
    """The weights every encoding has, in one order; Shaw's q, k, v stacked like qkv."""
    out = [
        model.embed.weight,
        model.norm.weight,
        model.norm.bias,
        model.head.weight,
        model.head.bias,
    ]
    for block in model.blocks:
        attn = block.attn
        if isinstance(attn, ShawRelativeMultiheadAttention):
            lins = (attn.q_proj, attn.k_proj, attn.v_proj)
            out += [
                torch.cat([lin.weight for lin in lins]),
                torch.cat([lin.bias for lin in lins]),
                attn.out_proj.weight,
                attn.out_proj.bias,
            ]
        else:
            out += [attn.qkv.weight, attn.qkv.bias, attn.out.weight, attn.out.bias]
        out += [
            block.norm1.weight,
            block.norm1.bias,
            block.norm2.weight,
            block.norm2.bias,
            block.mlp[0].weight,
            block.mlp[0].bias,
            block.mlp[2].weight,
            block.mlp[2].bias,
        ]
    return [t.detach() for t in out]


def test_a_seed_gives_every_encoding_the_same_shared_weights() -> None:
    reference = _shared_weights(toy_model("none", seed=3))
    for encoding in ENCODINGS:
        got = _shared_weights(toy_model(encoding, seed=3))
        assert all(torch.equal(a, b) for a, b in zip(got, reference)), encoding
    other = _shared_weights(toy_model("none", seed=4))
    assert not torch.equal(other[0], reference[0])
    # the same distributions as PyTorch's defaults
    model = toy_model("none", seed=3, dim=64)
    assert abs(float(model.embed.weight.detach().std()) - 0.02) < 0.003
    bound = 1 / math.sqrt(64)
    for lin in (model.blocks[0].attn.qkv, model.blocks[0].mlp[0], model.head):
        largest = float(lin.weight.detach().abs().max())
        assert 0.9 * bound < largest <= bound
    # the encoding's own parameters come from another stream than the shared ones
    learned = toy_model("learned", seed=3)
    assert not torch.equal(learned.position.table[:2].detach(), learned.embed.weight[:2].detach())


def test_a_seeded_model_is_reproducible_and_leaves_the_global_generator_alone() -> None:
    torch.manual_seed(11)
    state = torch.random.get_rng_state()
    a, b = toy_model("shaw", seed=5), toy_model("shaw", seed=5)
    assert torch.equal(torch.random.get_rng_state(), state)
    for (name, x), (_, y) in zip(a.state_dict().items(), b.state_dict().items()):
        assert torch.equal(x, y), name
    with pytest.raises(ValueError, match="seed"):
        toy_model("none", seed=-1)


@pytest.mark.parametrize("encoding", ["shaw", "t5", "learned"])
def test_at_initialisation_a_seeded_model_differs_from_none_by_its_encoding_only(
    encoding: str,
) -> None:
    model, plain = toy_model(encoding, seed=2), toy_model("none", seed=2)
    tokens = torch.randint(0, 16, (3, 12), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        assert not torch.allclose(model(tokens), plain(tokens), atol=1e-6)
        if encoding == "shaw":
            tables = [t for block in model.blocks for t in (block.attn.rel_k, block.attn.rel_v)]
        elif encoding == "t5":
            tables = [model.attention_bias.relative_attention_bias.weight]
        else:
            tables = [model.position.table]
        size = lambda m: sum(p.numel() for p in m.parameters())
        assert size(model) == size(plain) + sum(t.numel() for t in tables)  # nothing else is extra
        for table in tables:
            table.zero_()
        torch.testing.assert_close(model(tokens), plain(tokens), atol=1e-5, rtol=1e-5)


def test_length_generalisation_starts_every_named_encoding_from_the_same_weights() -> None:
    results = _tiny_experiment(encodings=["none", "shaw"], steps=1)
    for name in results.models:
        fresh = toy_model(name, dim=16, num_heads=2, num_layers=1, max_positions=8, seed=0)
        run = train_toy(fresh, "shift", steps=1, length=(6, 8))
        assert run.losses == results.losses[name]


# -- the order-blind guess -------------------------------------------------------------------------
from itertools import product

from posenc.toy import frequency_guess_accuracy, frequency_guess_position_accuracy


def _enumerated_guess_accuracy(n: int, vocab: int, k: int, causal: bool) -> list[float]:
    """Run the guess on every one of the V^n sequences (ties: the smallest token)."""
    hits = [0] * n
    for x in product(range(vocab), repeat=n):
        for p in range(k, n):
            bag = list(x[:p]) if causal else list(x[:p]) + list(x[p + 1 :])
            counts = [bag.count(v) for v in range(vocab)]
            guess = counts.index(max(counts))
            hits[p] += guess == x[p - k]
    return [math.nan] * k + [h / vocab**n for h in hits[k:]]


@pytest.mark.parametrize(
    ("n", "vocab", "k", "causal"),
    [(6, 3, 2, True), (6, 3, 2, False), (7, 2, 1, True), (5, 4, 3, False), (5, 4, 1, True)],
)
def test_frequency_guess_matches_running_it_on_every_sequence(
    n: int, vocab: int, k: int, causal: bool
) -> None:
    got = frequency_guess_position_accuracy(n, vocab_size=vocab, k=k, causal=causal)
    expected = torch.tensor(_enumerated_guess_accuracy(n, vocab, k, causal), dtype=torch.float64)
    assert got.shape == (n,) and got.dtype == torch.float64
    torch.testing.assert_close(got, expected, equal_nan=True, rtol=0, atol=1e-12)
    assert frequency_guess_accuracy(n, vocab_size=vocab, k=k, causal=causal) == pytest.approx(
        float(expected[k:].mean()), abs=1e-12
    )


def test_frequency_guess_golden_values_and_limits() -> None:
    acc = frequency_guess_position_accuracy(40, vocab_size=16)
    # two tokens: the guess is right if it picks the answer; both equal with probability 1/V
    assert float(acc[2]) == pytest.approx((1 + 1 / 16) / 2, abs=1e-14)
    # three tokens over V: max count 3 w.p. 1/V², 1 w.p. (V−1)(V−2)/V², else 2
    v = 16
    e3 = (3 + 2 * 3 * (v - 1) + (v - 1) * (v - 2)) / v**2
    assert float(acc[3]) == pytest.approx(e3 / 3, abs=1e-14)
    assert bool((acc[3:] < acc[2:-1]).all())  # the more tokens, the less the counts say
    assert bool((acc[2:] > 1 / 16).all())
    # an encoder's guess is the same at every position: the bag of the n − 1 other tokens
    bag = frequency_guess_position_accuracy(40, causal=False)
    assert torch.allclose(
        bag[2:], torch.full((38,), float(acc[39]), dtype=torch.float64), atol=1e-12
    )
    # a Monte Carlo run of the guess agrees at a larger length
    g = torch.Generator().manual_seed(0)
    x = torch.randint(0, 16, (20000, 64), generator=g)
    counts = torch.nn.functional.one_hot(x[:, :63], 16).sum(1)  # [b, V]: the prefix x_0..x_62
    hit = counts.gather(1, x[:, 61:62]).squeeze(1) == counts.amax(
        1
    )  # answer among the most frequent
    ties = (counts == counts.amax(1, keepdim=True)).sum(1)
    estimate = float((hit.double() / ties).mean())  # a uniformly broken tie
    assert estimate == pytest.approx(float(frequency_guess_position_accuracy(64)[63]), abs=0.01)


def test_frequency_guess_bad_arguments() -> None:
    with pytest.raises(ValueError, match="k must be smaller than length"):
        frequency_guess_position_accuracy(4, k=4)
    with pytest.raises(ValueError, match="vocab_size"):
        frequency_guess_accuracy(8, vocab_size=1)
    with pytest.raises(TypeError, match="causal"):
        frequency_guess_accuracy(8, causal=1)  # type: ignore[arg-type]


# -- RoPE's logits, pair by pair ----------------------------------------------------------------
from posenc.toy import toy_rotary_pair_logits


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


def test_length_results_hold_the_guess_without_order_of_their_models() -> None:
    results = _tiny_experiment(encodings=["none", "rope"], steps=1)
    assert sorted(results.guess) == [8, 16]
    for n in (8, 16):
        torch.testing.assert_close(
            results.guess[n], frequency_guess_position_accuracy(n), equal_nan=True
        )
        assert results.guess_accuracy()[n] == pytest.approx(frequency_guess_accuracy(n), abs=1e-12)
    assert "(guess)" in results.table() and "guess without order" in results._repr_html_()
    encoder = _tiny_experiment(encodings=["none"], steps=1, causal=False, vocab_size=8)
    torch.testing.assert_close(
        encoder.guess[16],
        frequency_guess_position_accuracy(16, vocab_size=8, causal=False),
        equal_nan=True,
    )
    other_task = _tiny_experiment(encodings=["none"], steps=1, task="local_max")
    assert other_task.guess == {} and "(guess)" not in other_task.table()
    mixed = length_generalisation(
        {
            "decoder": lambda: toy_model("none", dim=8, num_heads=2, num_layers=1),
            "encoder": lambda: toy_model("none", dim=8, num_heads=2, num_layers=1, causal=False),
        },
        train_lengths=(6, 8),
        eval_lengths=(8,),
        steps=1,
        num_sequences=4,
        progress=False,
    )
    assert mixed.guess == {}  # two different questions: no single guess
