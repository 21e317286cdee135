"""Tests for book.experiments.spread: the first fit of every seed is the length experiment's
own run, the fixed budget is a plain run of the full budget, and the summary is the mean and
range of those numbers."""

from __future__ import annotations

import math

import pytest
import torch

from book.experiments import PHASES, SeedSpread, length_generalisation, seed_spread, toy_model
from book.toy import toy_accuracy, train_toy

SMALL = {
    "train_lengths": (6, 8),
    "eval_lengths": (8, 16),
    "steps": 80,
    "num_sequences": 32,
    "dim": 16,
}


@pytest.fixture(scope="module")
def spread() -> SeedSpread:
    return seed_spread(
        ["rope", "learned"], seeds=(0, 3), stop_loss=1.0, workers=1, progress=False, **SMALL
    )


def test_first_fit_is_the_length_experiment_of_that_seed(spread: SeedSpread) -> None:
    for seed in (0, 3):
        run = length_generalisation(
            ["rope", "learned"], seed=seed, stop_loss=1.0, progress=False, **SMALL
        )
        for e in ("rope", "learned"):
            got = spread.accuracy["first fit"][e][seed]
            assert got.keys() == run.accuracy[e].keys()
            for n, value in run.accuracy[e].items():
                assert (math.isnan(value) and math.isnan(got[n])) or got[n] == value
            assert spread.met_rule_at[e][seed] == (len(run.losses[e]) if run.converged[e] else None)


def test_fixed_budget_is_a_plain_run_of_the_whole_budget(spread: SeedSpread) -> None:
    options = {k: v for k, v in SMALL.items() if k == "dim"}
    model = toy_model("rope", seed=3, max_positions=8, **options)
    train_toy(model, "shift", steps=80, length=(6, 8), seed=3)
    for n in (8, 16):
        want = toy_accuracy(model, "shift", length=n, num_sequences=32)
        assert spread.accuracy["fixed budget"]["rope"][3][n] == pytest.approx(want, abs=1e-12)
    assert math.isnan(spread.accuracy["fixed budget"]["learned"][3][16])  # no row for it


def test_mean_and_range_summarise_the_seeds(spread: SeedSpread) -> None:
    for phase in PHASES:
        values = [spread.accuracy[phase]["rope"][s][16] for s in (0, 3)]
        assert spread.values(phase, "rope", 16) == values
        assert spread.mean(phase, "rope", 16) == pytest.approx(sum(values) / 2)
        assert spread.range(phase, "rope", 16) == (min(values), max(values))
        assert all(math.isnan(x) for x in spread.range(phase, "learned", 16))
    table = spread.table()
    lo, hi = spread.range("fixed budget", "rope", 16)
    assert f"({lo:.2f}–{hi:.2f})" in table and "—" in table
    html = spread._repr_html_()
    assert html.count("<tr>") == 4 and 'title="cannot run"' in html


def test_workers_do_not_change_the_results(spread: SeedSpread) -> None:
    two = seed_spread(
        ["rope", "learned"], seeds=(0, 3), stop_loss=1.0, workers=2, progress=False, **SMALL
    )
    assert two.met_rule_at == spread.met_rule_at
    for phase in PHASES:
        for e in ("rope", "learned"):
            for s in (0, 3):
                a, b = two.accuracy[phase][e][s], spread.accuracy[phase][e][s]
                assert all((math.isnan(a[n]) and math.isnan(b[n])) or a[n] == b[n] for n in a)


def test_a_model_that_never_meets_the_rule_is_tested_at_the_end() -> None:
    never = seed_spread(["rope"], seeds=(1,), stop_loss=1e-9, workers=1, progress=False, **SMALL)
    assert never.met_rule_at == {"rope": {1: None}} and never.fit_steps("rope") == []
    assert never.accuracy["first fit"] == never.accuracy["fixed budget"]
    assert "0/1" in never.table()


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"encodings": "rope"}, TypeError, "encodings must be a sequence"),
        ({"encodings": ["rope", "rope"]}, ValueError, "each encoding once"),
        ({"encodings": ["bogus"]}, ValueError, "encodings must be one or more names"),
        ({"seeds": 3}, TypeError, "seeds must be a non-empty sequence"),
        ({"seeds": (1, 1)}, ValueError, "seeds must be distinct"),
        ({"seeds": (-1,)}, ValueError, "seeds"),
        ({"stop_loss": None}, ValueError, "stop_loss must be a positive number"),
        ({"workers": 0}, ValueError, "workers"),
        ({"task": "copy"}, ValueError, "task must be one of"),
        ({"eval_lengths": 8}, TypeError, "eval_lengths must be a sequence"),
        ({"num_heads": 3}, ValueError, "num_heads"),
    ],
)
def test_strict_seed_spread_inputs(kwargs: dict, error: type, message: str) -> None:
    arguments = {"encodings": ["rope"], "seeds": (0,), "steps": 1, "progress": False, **kwargs}
    with pytest.raises(error, match=message):
        seed_spread(**arguments)


def test_phases_and_lookups_are_checked(spread: SeedSpread) -> None:
    with pytest.raises(ValueError, match="phase must be one of"):
        spread.mean("end", "rope", 8)
    with pytest.raises(ValueError, match="encoding must be one of"):
        spread.values("first fit", "t5", 8)
    with pytest.raises(ValueError, match="length must be one of"):
        spread.range("first fit", "rope", 32)
    assert isinstance(torch.tensor(spread.mean("first fit", "rope", 8)).item(), float)
