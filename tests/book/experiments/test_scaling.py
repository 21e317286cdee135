"""book.experiments.scaling: chapter 11's experiment, at small fast settings."""

import math

import pytest
import torch

from book.experiments import toy_model
from book.experiments.scaling import (
    STRETCH_METHODS,
    StretchResults,
    rope_stretching,
    stretch_toy_rotary,
)
from book.toy import toy_position_accuracy
from posenc.rotary import RotaryEmbedding, scaled_rotary_frequencies

SMALL = {
    "train_lengths": (6, 8),
    "factor": 2.0,
    "steps": 200,
    "finetune_steps": 25,
    "num_sequences": 32,
    "dim": 16,
    "num_heads": 2,
    "num_layers": 1,
    "progress": False,
}


@pytest.fixture(scope="module")
def results() -> StretchResults:
    return rope_stretching(**SMALL)


def test_results_hold_every_method_stage_and_length(results):
    assert results.methods == STRETCH_METHODS
    assert results.eval_lengths == (8, 16)
    for m in STRETCH_METHODS:
        for stage in ("as trained", "fine-tuned"):
            assert set(results.accuracy[m][stage]) == {8, 16}
            assert results.position_accuracy[m][stage][16].shape == (16,)
            assert all(0 <= a <= 1 for a in results.accuracy[m][stage].values())
        assert 1 <= len(results.finetune_losses[m]) <= 25
    assert [r[0] for r in results.rows()] == list(STRETCH_METHODS)
    assert all(len(r[1]) == 4 for r in results.rows())
    assert results.chance == 1 / 16 and results.base_steps <= 200


def test_plain_as_trained_is_the_trained_model(results):
    # "plain" leaves RoPE's frequencies as they were: the accuracy of the trained model itself
    base = results.base_model
    for n in (8, 16):
        acc = toy_position_accuracy(base, "shift", length=n, num_sequences=32, seed=1234)
        assert results.accuracy["plain"]["as trained"][n] == float(acc[~acc.isnan()].mean())


def test_dynamic_is_plain_up_to_the_trained_length(results):
    plain, dynamic = results.position_accuracy["plain"], results.position_accuracy["dynamic"]
    torch.testing.assert_close(
        plain["as trained"][8], dynamic["as trained"][8], rtol=0, atol=0, equal_nan=True
    )


def test_fine_tuned_models_carry_their_method_at_the_long_length(results):
    model = results.models["yarn"]
    inv_freq, scale = scaled_rotary_frequencies(8, "yarn", factor=2.0, original_max_positions=8)
    assert isinstance(model.rotary, RotaryEmbedding)
    assert torch.equal(model.rotary.inv_freq, inv_freq)
    assert model.rotary.attention_scale == scale == 0.1 * math.log(2.0) + 1
    assert all(block.attn.rotary is model.rotary for block in model.blocks)
    assert results.base_model.rotary.inv_freq is None  # the trained model is left as it was


def test_tables_show_every_method_and_the_rule(results):
    text = results.table()
    assert "n=8 (L)" in text and "n=16 (2L)" in text and "steps" in text
    for m in STRETCH_METHODS:
        assert any(line.startswith(m) for line in text.splitlines())
    assert "at most 25 steps" in text
    html = results._repr_html_()
    assert all(html.count(f"<tr><th>{m}</th>") == 1 for m in STRETCH_METHODS)
    assert "fine-tuned" in html and "as trained" in html


def test_the_run_is_reproducible():
    a = rope_stretching(("plain", "yarn"), **SMALL)
    b = rope_stretching(("plain", "yarn"), **SMALL)
    assert a.accuracy == b.accuracy and a.finetune_losses == b.finetune_losses


def test_stretch_toy_rotary_with_plain_frequencies_changes_nothing():
    model = toy_model("rope", dim=16, num_heads=2, num_layers=2, seed=0)
    tokens = torch.randint(0, 16, (3, 11), generator=torch.Generator().manual_seed(0))
    before = model(tokens)
    stretch_toy_rotary(model, scaled_rotary_frequencies(8, "plain")[0])
    torch.testing.assert_close(model(tokens), before, rtol=1e-6, atol=1e-6)
    # linear PI at factor 2 is RoPE at half the positions: rotate by hand and compare the layer
    stretch_toy_rotary(model, scaled_rotary_frequencies(8, "linear", factor=2.0)[0])
    assert all(block.attn.rotary is model.rotary for block in model.blocks)
    q = torch.randn(1, 2, 11, 8, generator=torch.Generator().manual_seed(1))
    halved = torch.arange(11, dtype=torch.float64) / 2
    from posenc.rotary import apply_rotary

    torch.testing.assert_close(model.rotary(q, q)[0], apply_rotary(q, halved), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: rope_stretching("yarn"), TypeError, "methods must be a non-empty tuple"),
        (lambda: rope_stretching(("yarn", "xpos")), ValueError, "methods must be one of"),
        (lambda: rope_stretching(("partial",)), ValueError, "methods must be one of"),
        (lambda: rope_stretching(("yarn", "yarn")), ValueError, "must not repeat"),
        (lambda: rope_stretching(factor=1.0), ValueError, "factor must be > 1"),
        (lambda: rope_stretching(finetune_steps=0), ValueError, "finetune_steps"),
        (lambda: rope_stretching(stop_loss=None), ValueError, "stop_loss must be a positive"),
        (lambda: rope_stretching(task="copy"), ValueError, "task must be one of"),
        (lambda: rope_stretching(progress="no"), TypeError, "progress"),
        (
            lambda: stretch_toy_rotary(toy_model("alibi"), torch.ones(4)),
            TypeError,
            "model must use RoPE",
        ),
        (
            lambda: stretch_toy_rotary(3, torch.ones(4)),
            TypeError,
            "model must be a TinyTransformer",
        ),
        (
            lambda: stretch_toy_rotary(toy_model("rope"), torch.ones(3)),
            ValueError,
            "inv_freq must hold",
        ),
    ],
)
def test_refusals_name_the_argument(call, error, match):
    with pytest.raises(error, match=match):
        call()
