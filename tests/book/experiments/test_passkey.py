"""Tests for book.experiments.passkey: the two trained models and the two derived set-ups are
what they claim to be, the scores are recomputed by hand, and the summary is the seeds' mean."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from book.experiments import toy_model
from book.experiments.passkey import (
    DEPTH_BINS,
    PASSKEY_SETUPS,
    PasskeyResults,
    _perplexity,
    passkey_model,
    passkey_retrieval,
    passkey_scores,
    streaming_copy,
    yarn_copy,
)
from book.toy import ToySelfAttention, ToyWindowAttention, toy_batch
from posenc.rotary import scaled_rotary_frequencies

SMALL = {
    "train_lengths": (6, 8),
    "eval_lengths": (8, 16),
    "steps": 30,
    "num_sequences": 48,
    "window": 5,
    "sinks": 2,
    "local_window": 3,
}


@pytest.fixture(scope="module")
def results() -> PasskeyResults:
    return passkey_retrieval((0, 2), workers=1, progress=False, **SMALL)


def test_the_rope_model_is_chapter_10s_and_the_hybrid_shares_its_weights() -> None:
    rope = passkey_model("rope", seed=3)
    reference = toy_model("rope", seed=3)
    for a, b in zip(rope.state_dict().values(), reference.state_dict().values()):
        assert torch.equal(a, b)
    hybrid = passkey_model("hybrid", seed=3, local_window=5)
    first, last = (block.attn for block in hybrid.blocks)
    assert isinstance(first, ToyWindowAttention) and first.window == 5 and first.sinks == 0
    assert first.rotary is not None
    assert type(last) is ToySelfAttention and last.rotary is None
    assert torch.equal(hybrid.embed.weight, rope.embed.weight)
    for block, other in zip(hybrid.blocks, rope.blocks):
        assert torch.equal(block.attn.qkv.weight, other.attn.qkv.weight)
    state = torch.random.get_rng_state()
    passkey_model("hybrid", seed=1)
    assert torch.equal(torch.random.get_rng_state(), state)  # the global generator untouched


def test_yarn_copy_stretches_a_copy_and_leaves_short_lengths_alone() -> None:
    model = passkey_model("rope", seed=0).eval()
    tokens, _ = toy_batch("passkey", 4, 12, generator=torch.Generator().manual_seed(0))
    before = model(tokens)
    same = yarn_copy(model, 12, 16)
    torch.testing.assert_close(same(tokens), before, rtol=0, atol=0)
    stretched = yarn_copy(model, 48, 16)
    inv_freq, scale = scaled_rotary_frequencies(8, "yarn", factor=3.0, original_max_positions=16)
    torch.testing.assert_close(stretched.rotary.inv_freq, inv_freq)
    assert stretched.rotary.attention_scale == pytest.approx(scale)
    assert all(block.attn.rotary is stretched.rotary for block in stretched.blocks)
    torch.testing.assert_close(model(tokens), before, rtol=0, atol=0)  # the original unchanged


def test_streaming_copy_keeps_the_weights_and_a_wide_window_changes_nothing() -> None:
    model = passkey_model("rope", seed=0).eval()
    tokens, _ = toy_batch("passkey", 4, 12, generator=torch.Generator().manual_seed(1))
    wide = streaming_copy(model, window=12, sinks=1)
    torch.testing.assert_close(wide(tokens), model(tokens), rtol=1e-6, atol=1e-6)
    narrow = streaming_copy(model, window=4, sinks=2)
    for block in narrow.blocks:
        assert isinstance(block.attn, ToyWindowAttention)
        assert (block.attn.window, block.attn.sinks) == (4, 2)
    assert not torch.allclose(narrow(tokens), model(tokens))
    with pytest.raises(TypeError, match="toy RoPE model"):
        streaming_copy(passkey_model("hybrid", seed=0), window=4, sinks=1)


def test_passkey_scores_recomputed_by_hand() -> None:
    torch.manual_seed(0)
    model = passkey_model("rope", seed=5)
    score = passkey_scores(model, 10, num_sequences=40, seed=7)
    tokens, targets = toy_batch("passkey", 40, 10, generator=torch.Generator().manual_seed(7))
    with torch.no_grad():
        logits = model.eval()(tokens)
    hits = [int(logits[b, -1].argmax()) == int(targets[b, -1]) for b in range(40)]
    assert score.retrieval == pytest.approx(sum(hits) / 40)
    assert score.hits.tolist() == hits
    losses = [
        -float(F.log_softmax(logits[b, p], -1)[targets[b, p]])
        for b in range(40)
        for p in range(2, 9)
    ]
    assert score.perplexity == pytest.approx(math.exp(sum(losses) / len(losses)), rel=1e-5)
    keys = [row.index(14) for row in tokens.tolist()]
    assert score.depth.tolist() == pytest.approx([s / 7 for s in keys])


def test_results_hold_every_setup_seed_and_length(results: PasskeyResults) -> None:
    assert tuple(results.scores) == PASSKEY_SETUPS
    for setup in PASSKEY_SETUPS:
        assert set(results.scores[setup]) == {0, 2}
        values = [results.scores[setup][s][16].retrieval for s in (0, 2)]
        assert results.mean(setup, 16) == pytest.approx(sum(values) / 2)
        assert results.range(setup, 16) == (min(values), max(values))
        ppl = [results.scores[setup][s][8].perplexity for s in (0, 2)]
        assert results.mean(setup, 8, "perplexity") == pytest.approx(sum(ppl) / 2)
    assert set(results.fit_steps) == {"rope", "hybrid"}
    # at the trained length YaRN and a window wider than the sequence change nothing
    for s in (0, 2):
        rope, yarn = results.scores["rope"][s][8], results.scores["rope + yarn"][s][8]
        assert rope.retrieval == yarn.retrieval and rope.perplexity == pytest.approx(
            yarn.perplexity
        )


def test_by_depth_and_effective_length(results: PasskeyResults) -> None:
    depth = torch.cat([results.scores["hybrid"][s][16].depth for s in (0, 2)])
    hits = torch.cat([results.scores["hybrid"][s][16].hits for s in (0, 2)])
    expected = []
    for m in range(DEPTH_BINS):
        inside = [
            bool(h)
            for d, h in zip(depth.tolist(), hits.tolist())
            if m / DEPTH_BINS <= d < (m + 1) / DEPTH_BINS or (m == DEPTH_BINS - 1 and d == 1)
        ]
        expected.append(sum(inside) / len(inside) if inside else math.nan)
    got = results.by_depth("hybrid", 16).tolist()
    assert all(
        (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b) for a, b in zip(got, expected)
    )
    for setup in PASSKEY_SETUPS:
        best = results.effective_length(setup, threshold=0.0)
        assert best == 16
        assert results.effective_length(setup, threshold=1.01) is None
    table = results.table()
    width = max(map(len, PASSKEY_SETUPS))
    rows = [line[:width].rstrip() for line in table.splitlines()]
    assert all(rows.count(setup) == 2 for setup in PASSKEY_SETUPS)  # retrieval, perplexity
    html = results._repr_html_()
    assert html.count("<table") == 2
    assert html.count("<tr>") == 2 * (1 + 4)  # a header and a row per set-up, per table
    assert html.index("Passkey retrieval") < html.index("Filler perplexity")
    mean = results.mean("rope", 16)
    lo, hi = results.range("rope", 16)
    assert f'{mean:.2f}<br><small class="posenc-range">{lo:.2f}–{hi:.2f}</small>' in html


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1.0"),
        (5.085, "5.1"),
        (13.1, "13"),
        (192.9, "193"),
        (999.4, "999"),
        (3010.5, "3\u202f010"),
        (23807.4, "23\u202f800"),
        (214811.5, "215\u202f000"),
        (987704.4, "988\u202f000"),
    ],
)
def test_perplexities_are_printed_short_and_unbroken(value: float, text: str) -> None:
    assert _perplexity(value) == text


def test_workers_do_not_change_the_results(results: PasskeyResults) -> None:
    two = passkey_retrieval((0, 2), workers=2, progress=False, **SMALL)
    assert two.fit_steps == results.fit_steps
    for setup in PASSKEY_SETUPS:
        for s in (0, 2):
            for n in (8, 16):
                a, b = two.scores[setup][s][n], results.scores[setup][s][n]
                assert a.retrieval == b.retrieval and a.perplexity == b.perplexity


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"seeds": 1}, TypeError, "seeds must be a non-empty sequence"),
        ({"seeds": (1, 1)}, ValueError, "seeds must be distinct"),
        ({"eval_lengths": (3,)}, ValueError, "eval_lengths must be >= 4"),
        ({"train_lengths": (2, 8)}, ValueError, "train_lengths must start at 4"),
        ({"stop_loss": None}, ValueError, "stop_loss must be a positive number"),
        ({"sinks": -1}, ValueError, "sinks must be >= 0"),
        ({"window": 0}, ValueError, "window must be positive"),
        ({"workers": 0}, ValueError, "workers must be positive"),
    ],
)
def test_strict_passkey_inputs(kwargs: dict, error: type, message: str) -> None:
    arguments = {"seeds": (0,), "steps": 1, "progress": False, **kwargs}
    with pytest.raises(error, match=message):
        passkey_retrieval(**arguments)


def test_passkey_model_refuses_what_it_cannot_build() -> None:
    with pytest.raises(ValueError, match="kind must be 'rope' or 'hybrid'"):
        passkey_model("alibi", seed=0)
    with pytest.raises(ValueError, match="vocab_size must be >= 4"):
        passkey_model("rope", seed=0, vocab_size=3)
    with pytest.raises(ValueError, match="num_layers must be >= 2"):
        passkey_model("hybrid", seed=0, num_layers=1)
