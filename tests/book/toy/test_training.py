"""Tests for book.toy.training: Adam against torch.optim.Adam, what training learns and leaves."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from book.toy import Adam, TinyTransformer, ToyRun, toy_accuracy, train_toy
from posenc.learned import LearnedPositionalEmbedding


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


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"lr": float("nan")}, ValueError, "lr"),
        ({"betas": (0.9, 1.0)}, ValueError, "betas must lie in"),
        ({"betas": (0.9,)}, TypeError, "betas must be a pair"),
        ({"betas": (True, 0.99)}, TypeError, r"betas\[0\] must be a real number"),
        ({"eps": 0.0}, ValueError, "eps"),
    ],
)
def test_strict_adam_inputs(kwargs: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        Adam([nn.Parameter(torch.ones(2))], **kwargs)
    with pytest.raises(TypeError, match=r"params\[0\] must be a tensor"):
        Adam([1.0])  # type: ignore[list-item]


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"steps": 2.0}, TypeError, "steps must be an integer"),
        ({"num_threads": True}, TypeError, "num_threads must be an integer"),
        ({"record": 3, "record_steps": [1]}, TypeError, "record must be callable"),
        ({"on_step": 3}, TypeError, "on_step must be callable"),
        ({"seed": -1}, ValueError, "seed"),
        ({"batch_size": 0}, ValueError, "batch_size"),
    ],
)
def test_strict_train_toy_inputs(kwargs: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        train_toy(_learned_model(), "shift", **{"steps": 2, "length": 16, **kwargs})


def test_stop_rule_ends_at_the_first_step_whose_last_window_losses_are_all_below() -> None:
    def model() -> TinyTransformer:
        torch.manual_seed(0)
        return TinyTransformer(16, 16, 2, 1, causal=True)

    full = train_toy(model(), "shift", steps=60, length=8, batch_size=8)
    assert not full.converged and len(full.losses) == 60
    # a threshold that the reference run crosses: the rule, transcribed over its losses
    window = 5
    threshold = sorted(full.losses)[30]
    expected = next(s for s in range(window, 61) if max(full.losses[s - window : s]) < threshold)
    stopped = train_toy(
        model(), "shift", steps=60, length=8, batch_size=8, stop_loss=threshold, stop_window=window
    )
    assert stopped.converged and len(stopped.losses) == expected
    assert stopped.losses == full.losses[:expected]  # the same run, cut short
    never = train_toy(
        model(), "shift", steps=10, length=8, batch_size=8, stop_loss=1e-9, stop_window=window
    )
    assert not never.converged and len(never.losses) == 10
    with pytest.raises(ValueError, match="stop_loss must be"):
        train_toy(model(), "shift", steps=1, stop_loss=0.0)
    with pytest.raises(TypeError, match="stop_window must be an integer"):
        train_toy(model(), "shift", steps=1, stop_loss=0.1, stop_window=2.0)  # type: ignore[arg-type]


def test_run_to_end_marks_the_rule_and_trains_the_full_budget() -> None:
    def model() -> TinyTransformer:
        torch.manual_seed(0)
        return TinyTransformer(16, 16, 2, 1, causal=True)

    full = train_toy(model(), "shift", steps=60, length=8, batch_size=8)
    window = 5
    threshold = sorted(full.losses)[30]
    stopped = train_toy(
        model(), "shift", steps=60, length=8, batch_size=8, stop_loss=threshold, stop_window=window
    )
    seen: list[tuple[bool, list[torch.Tensor]]] = []

    def look(m: TinyTransformer) -> None:  # the model as it was when the rule was met
        seen.append((m.training, [p.detach().clone() for p in m.parameters()]))

    whole = train_toy(
        model(),
        "shift",
        steps=60,
        length=8,
        batch_size=8,
        stop_loss=threshold,
        stop_window=window,
        run_to_end=True,
        on_rule_met=look,
    )
    assert whole.losses == full.losses  # testing in between changes nothing
    assert whole.converged and whole.met_rule_at == len(stopped.losses) == stopped.met_rule_at
    assert len(seen) == 1 and seen[0][0] is False  # called once, in eval mode
    reference = model()
    train_toy(reference, "shift", steps=whole.met_rule_at, length=8, batch_size=8)
    for got, want in zip(seen[0][1], reference.parameters()):
        torch.testing.assert_close(got, want, rtol=0, atol=0)
    with pytest.raises(ValueError, match="need a stopping rule"):
        train_toy(model(), "shift", steps=1, run_to_end=True)
    with pytest.raises(TypeError, match="on_rule_met must be callable"):
        train_toy(model(), "shift", steps=1, stop_loss=0.1, on_rule_met=3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="run_to_end must be"):
        train_toy(model(), "shift", steps=1, stop_loss=0.1, run_to_end=1)  # type: ignore[arg-type]
