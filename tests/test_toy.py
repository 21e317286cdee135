"""Tests for posenc.toy: the tasks against explicit loops, the model's symmetries, training."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from posenc.learned import LearnedPositionalEmbedding
from posenc.sinusoidal import SinusoidalPositionalEncoding
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
    a = nn.Parameter(torch.randn(6, 4))
    b = nn.Parameter(a.detach().clone())
    target = torch.randn(6, 4)
    ours, reference = Adam([a], lr=0.05), torch.optim.Adam([b], lr=0.05)
    for _ in range(25):
        for p, opt in ((a, ours), (b, reference)):
            p.grad = None
            ((p - target) ** 2 * torch.arange(1.0, 5.0)).sum().backward()
            opt.step()
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
def _learned_model(init: str = "trunc_normal", num_positions: int = 24) -> TinyTransformer:
    torch.manual_seed(0)
    return TinyTransformer(12, 32, 2, 1, LearnedPositionalEmbedding(num_positions, 32, init=init))


def test_training_learns_the_task_and_leaves_unused_rows_alone() -> None:
    model = _learned_model()
    initial = model.position.table.detach().clone()
    threads = torch.get_num_threads()
    run = train_toy(
        model, "local_max", steps=150, length=16, record=lambda m: m.position.table,
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
        toy_accuracy(_learned_model(num_positions=16), "shift", length=20)


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
    tokens, targets = toy_batch(task, 40, 10, vocab_size=12, k=2,
                                generator=torch.Generator().manual_seed(7))
    with torch.no_grad():
        predicted = model(tokens).argmax(-1).tolist()
    for p in range(10):
        pairs = [(predicted[b][p], targets[b, p].item()) for b in range(40)
                 if targets[b, p].item() != IGNORE_INDEX]
        if not pairs:  # the first k positions of "shift" have no answer
            assert torch.isnan(acc[p])
            continue
        assert acc[p].item() == pytest.approx(sum(a == y for a, y in pairs) / len(pairs))
    # averaged over the answered positions (equal counts each), it is toy_accuracy
    answered = ~torch.isnan(acc)
    overall = toy_accuracy(model, task, length=10, k=2, num_sequences=40, seed=7)
    assert acc[answered].mean().item() == pytest.approx(overall)
