"""The argument checks: right type and rule, and messages that name the argument."""

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from posenc._checks import (
    as_positions,
    broadcast_shape,
    check_even,
    check_floating_dtype,
    check_heads,
    check_int,
    check_multiple,
    check_permutation,
    check_positive_float,
    check_tensor,
)


@pytest.mark.parametrize("value", [1, 7, np.int64(3), torch.tensor(5)])
def test_check_int_accepts_integers(value):
    assert check_int("n", value) == int(value)
    assert type(check_int("n", value)) is int


@pytest.mark.parametrize("value", [1.0, "3", None, True, torch.tensor(2.0), [1]])
def test_check_int_rejects_non_integers_naming_the_argument(value):
    with pytest.raises(TypeError, match=r"^n_positions must be an integer"):
        check_int("n_positions", value)


@pytest.mark.parametrize("value", [0, -3])
def test_check_int_rejects_non_positive(value):
    with pytest.raises(ValueError, match=rf"^dim must be positive, got {value}$"):
        check_int("dim", value)


def test_check_int_minimum_zero_and_none():
    assert check_int("k", 0, minimum=0) == 0
    assert check_int("offset", -4, minimum=None) == -4
    with pytest.raises(ValueError, match=r"k must be >= 0, got -1"):
        check_int("k", -1, minimum=0)


def test_check_even():
    assert check_even("dim", 8) == 8
    with pytest.raises(ValueError, match=r"dim must be even .* got 7"):
        check_even("dim", 7)
    with pytest.raises(ValueError, match=r"dim must be >= 2"):
        check_even("dim", 0)


def test_check_multiple():
    assert check_multiple("dim", 8, 4, "two axes of sin/cos pairs") == 8
    with pytest.raises(ValueError, match=r"dim must be a multiple of 4 \(two axes.*got 6"):
        check_multiple("dim", 6, 4, "two axes of sin/cos pairs")


@pytest.mark.parametrize("value", [0.0, -1.0, float("inf"), float("nan")])
def test_check_positive_float_rejects(value):
    with pytest.raises(ValueError, match=r"^base must be a finite number > 0"):
        check_positive_float("base", value)


@pytest.mark.parametrize("value", ["10", None, True])
def test_check_positive_float_rejects_types(value):
    with pytest.raises(TypeError, match=r"^base must be a real number"):
        check_positive_float("base", value)


def test_check_tensor():
    x = torch.zeros(2, 3)
    assert check_tensor("x", x, ndim=2) is x
    with pytest.raises(TypeError, match=r"^x must be a torch.Tensor, got list"):
        check_tensor("x", [1, 2])
    with pytest.raises(ValueError, match=r"^x must have 3 dimensions, got shape \(2, 3\)"):
        check_tensor("x", x, ndim=3)


def test_check_floating_dtype():
    assert check_floating_dtype("dtype", torch.float16) is torch.float16
    with pytest.raises(ValueError, match="dtype must be a floating-point dtype"):
        check_floating_dtype("dtype", torch.int64)
    with pytest.raises(TypeError, match="dtype must be a torch.dtype"):
        check_floating_dtype("dtype", "float32")


def test_as_positions():
    assert torch.equal(
        as_positions("positions", 3), torch.tensor([0.0, 1.0, 2.0], dtype=torch.float64)
    )
    p = as_positions("positions", torch.tensor([-1.5, 2.25], dtype=torch.float32))
    assert p.dtype == torch.float64 and p.tolist() == [-1.5, 2.25]
    with pytest.raises(ValueError, match=r"positions must have 1 dimensions"):
        as_positions("positions", torch.zeros(2, 2))
    with pytest.raises(ValueError, match=r"positions must be positive"):
        as_positions("positions", 0)


@given(a=st.lists(st.integers(1, 3), max_size=4), b=st.lists(st.integers(1, 3), max_size=4))
def test_broadcast_shape_follows_torch(a, b):
    try:
        expected = tuple(torch.broadcast_shapes(tuple(a), tuple(b)))
    except RuntimeError:
        expected = None
    assert broadcast_shape(tuple(a), tuple(b)) == expected


@given(head_dim=st.integers(1, 16), num_heads=st.integers(1, 8))
def test_check_heads_returns_the_channels_per_head(head_dim, num_heads):
    got = check_heads(head_dim * num_heads, num_heads)
    assert got == head_dim and type(got) is int
    assert check_heads(np.int64(head_dim * num_heads), torch.tensor(num_heads)) == head_dim


@pytest.mark.parametrize("dim, num_heads", [(6, 4), (10, 3), (1, 2)])
def test_check_heads_rejects_heads_that_do_not_divide(dim, num_heads):
    rule = rf"^num_heads must divide dim, got dim={dim}, num_heads={num_heads}$"
    with pytest.raises(ValueError, match=rule):
        check_heads(dim, num_heads)


def test_check_heads_names_the_bad_argument_first():
    with pytest.raises(ValueError, match=r"^dim must be positive"):
        check_heads(0, 0)
    with pytest.raises(ValueError, match=r"^num_heads must be positive"):
        check_heads(8, 0)
    with pytest.raises(TypeError, match=r"^num_heads must be an integer"):
        check_heads(8, 2.0)


def test_check_permutation_accepts_sequences_arrays_and_tensors():
    assert check_permutation("perm", [2, 0, 1]) == [2, 0, 1]
    assert check_permutation("perm", (1, 0), 2) == [1, 0]
    assert check_permutation("perm", np.array([0, 2, 1])) == [0, 2, 1]
    order = check_permutation("perm", torch.tensor([1, 2, 0]))
    assert order == [1, 2, 0] and all(type(i) is int for i in order)


@pytest.mark.parametrize(
    "perm, n, error, words",
    [
        ([0, 0, 1], None, ValueError, r"^perm must be a permutation of 0\.\.2, got \[0, 0, 1\]$"),
        ([0, 1, 2], 4, ValueError, r"^perm must be a permutation of 0\.\.3, got \[0, 1, 2\]$"),
        ([], None, ValueError, r"^perm must be a permutation of 0\.\.n-1 \(n >= 1\), got \[\]$"),
        ([0, -1], None, ValueError, r"^perm\[1\] must be >= 0, got -1$"),
        ([0, 1.0], None, TypeError, r"^perm\[1\] must be an integer"),
        (torch.tensor([0.0, 1.0]), None, TypeError, r"^perm must hold integers"),
        (torch.zeros(2, 2, dtype=torch.long), None, ValueError, r"^perm must have 1 dimensions"),
        ("012", None, TypeError, r"^perm must be a sequence of ints"),
        (3, None, TypeError, r"^perm must be a sequence of ints"),
    ],
)
def test_check_permutation_rejects_non_permutations(perm, n, error, words):
    with pytest.raises(error, match=words):
        check_permutation("perm", perm, n)


@given(st.permutations(list(range(6))))
def test_check_permutation_agrees_with_a_sort(perm):
    assert check_permutation("perm", perm) == list(perm)
    assert check_permutation("perm", perm, 6) == list(perm)
