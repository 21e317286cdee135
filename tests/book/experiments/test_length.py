"""Tests for book.experiments.length: every catalogue encoding with a toy form plugs in, matches a
float64 transcription, and starts from shared weights; the length experiment is reproducible."""

from __future__ import annotations

import math

import pytest
import torch
from torch import nn

from book.catalogue import toy_encodings
from book.experiments import LengthResults, length_generalisation, toy_model
from book.toy import (
    TinyTransformer,
    frequency_guess_accuracy,
    frequency_guess_position_accuracy,
    toy_accuracy,
    train_toy,
)
from posenc.learned import LearnedPositionalEmbedding
from posenc.shaw import ShawRelativeMultiheadAttention
from tests.book.toy.test_model import _reference_forward

ENCODINGS = toy_encodings()


PLUG_INS = {
    "none": (),
    "sinusoidal": ("position",),
    "learned": ("position",),
    "shaw": ("attention",),
    "t5": ("attention_bias",),
    "alibi": ("attention_bias",),
    "rope": ("rotary",),
    "swin_v2": ("attention_bias",),
    "rope_grid": ("rotary",),
}


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
        "rope_grid": 0,
        "swin_v2": 3 * 512 + 512 * h,  # one cpb_mlp for the whole model
    }


def test_max_length_comes_from_the_position_table() -> None:
    assert toy_model("learned", max_positions=12).max_positions == 12
    assert all(toy_model(e).max_positions is None for e in ENCODINGS if e != "learned")


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


@pytest.mark.parametrize(
    ("encoding", "kwargs", "error", "message"),
    [
        ("swin", {}, ValueError, "toy form"),
        (3, {}, TypeError, "encoding must be a str"),
        ("rope", {"rope_base": 1.0}, ValueError, "rope_base"),
        ("none", {"causal": "False"}, TypeError, "causal must be a bool"),
        ("shaw", {"shaw_max_relative_position": True}, TypeError, "shaw_max_relative_position"),
        ("none", {"max_positions": 0}, ValueError, "max_positions"),
        ("none", {"seed": 1.5}, TypeError, "seed"),
    ],
)
def test_strict_toy_model_inputs(encoding, kwargs: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        toy_model(encoding, **kwargs)


def test_the_model_is_built_from_the_catalogue_entry() -> None:
    # the toy form of an entry decides the modules: a changed entry changes the model
    from dataclasses import replace

    from book import catalogue
    from book.catalogue import ToyPlugIn

    original = catalogue.ENCODINGS
    swapped = tuple(
        replace(e, toy=lambda o: ToyPlugIn(position=LearnedPositionalEmbedding(5, o.dim)))
        if e.key == "rope"
        else e
        for e in original
    )
    catalogue.ENCODINGS = swapped
    try:
        model = toy_model("rope", dim=16, num_heads=2)
    finally:
        catalogue.ENCODINGS = original
    assert model.plug_ins == ("position",) and model.max_positions == 5


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"encodings": ["none", "none"]}, ValueError, "each encoding once"),
        ({"encodings": [3]}, ValueError, "encodings must be names"),
        ({"progress": "no"}, TypeError, "progress must be a bool"),
        ({"task": "sort"}, ValueError, "task must be one of"),
        ({"k": 0}, ValueError, "k must be positive"),
        ({"lr": -1.0}, ValueError, "lr"),
        ({"batch_size": True}, TypeError, "batch_size"),
        ({"num_sequences": 0}, ValueError, "num_sequences"),
        ({"test_seed": -2}, ValueError, "test_seed"),
        ({"eval_lengths": 16}, TypeError, "eval_lengths must be a sequence"),
    ],
)
def test_strict_length_generalisation_inputs(kwargs: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        _tiny_experiment(**{"encodings": ["none"], **kwargs})


def test_without_encodings_every_toy_form_is_trained_in_the_catalogue_order() -> None:
    results = _tiny_experiment(encodings=None, steps=1, eval_lengths=(8,))
    assert results.encodings == toy_encodings()


def test_length_generalisation_stops_every_model_by_the_same_rule_and_tables_it() -> None:
    capped = _tiny_experiment(encodings=["shaw", "none"], steps=40)
    threshold = sorted(capped.losses["shaw"])[10]  # shaw crosses it; the rule decides the rest
    results = _tiny_experiment(
        encodings=["shaw", "none"], steps=40, stop_loss=threshold, stop_window=3
    )
    assert results.stop_loss == threshold and results.stop_window == 3
    for name in results.encodings:
        losses = results.losses[name]
        assert losses == capped.losses[name][: len(losses)]  # the same runs, cut by the rule
        met = [s for s in range(3, 41) if max(capped.losses[name][s - 3 : s]) < threshold]
        assert results.converged[name] == bool(met)
        assert len(losses) == (met[0] if met else 40)
        assert results.trained_steps()[name] == len(losses)
        assert results.final_loss()[name] == pytest.approx(sum(losses[-3:]) / 3)
    table, html = results.table(), results._repr_html_()
    assert "steps" in table.splitlines()[0] and "at most 40 steps" in table
    for name in results.encodings:
        row = next(line for line in table.splitlines() if line.startswith(name))
        assert (f"{len(results.losses[name])}*" in row) != results.converged[name]
    assert "<th>steps</th>" in html and "not converged" in table
    assert (
        all(v is False for v in capped.converged.values()) and "trained 40 steps" in capped.table()
    )
