"""Tests for book.toy.baseline: the order-free guess against running it on every sequence."""

from __future__ import annotations

import math
from itertools import product

import pytest
import torch

from book.toy import (
    frequency_guess_accuracy,
    frequency_guess_position_accuracy,
)


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
