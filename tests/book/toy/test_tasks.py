"""Tests for book.toy.tasks: the targets against explicit loops, reproducibility, bad input."""

from __future__ import annotations

import pytest
import torch

from book.toy import IGNORE_INDEX, toy_batch


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


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "name"),
    [
        ((3, 2, 8), {}, ValueError, "task must be one of"),
        (("shift", True, 8), {}, TypeError, "batch_size must be an integer"),
        (("shift", 2, 8), {"k": 2.0}, TypeError, "k must be an integer"),
        (("shift", 2, 8), {"generator": 0}, TypeError, "generator must be a torch.Generator"),
    ],
)
def test_strict_task_inputs(args: tuple, kwargs: dict, error: type, name: str) -> None:
    with pytest.raises(error, match=name):
        toy_batch(*args, **kwargs)


@pytest.mark.parametrize("k", [1, 2])
def test_passkey_hides_one_key_in_shift_filler(k: int) -> None:
    from book.toy import passkey_markers

    key, query = passkey_markers(10)
    assert (key, query) == (8, 9)
    tokens, targets = toy_batch(
        "passkey", 200, 12, vocab_size=10, k=k, generator=torch.Generator().manual_seed(2)
    )
    where = []
    for row, target in zip(tokens.tolist(), targets.tolist()):
        assert row[-1] == query and row.count(key) == 1 and row.count(query) == 1
        s = row.index(key)
        assert 0 <= s <= 9 and row[s + 1] < key  # a value follows the key
        where.append(s)
        expected = [row[p - k] if p >= k else IGNORE_INDEX for p in range(11)] + [row[s + 1]]
        assert target == expected
    assert set(where) == set(range(10))  # every position 0..n-3 can hold the key


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"vocab_size": 3}, "vocab_size must be >= 4"),
        ({"length": 3}, "length must be at least 4"),
        ({"k": 7}, "k smaller than length - 1"),
    ],
)
def test_passkey_refuses_what_cannot_hold_a_key(kwargs: dict, message: str) -> None:
    arguments = {"vocab_size": 16, "length": 8, "k": 2, **kwargs}
    with pytest.raises(ValueError, match=message):
        toy_batch("passkey", 2, arguments.pop("length"), **arguments)
