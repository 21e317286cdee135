"""The book's own argument checks (book._checks): right type and rule, and messages that name
the argument."""

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from book._checks import (
    NAMED_POSITIONS,
    check_defaults,
    check_permutation,
    check_table,
    check_text,
    check_values,
)
from posenc._checks import check_int

# --- check_values, check_defaults -------------------------------------------------------------


def test_check_values():
    assert check_values("dims", (16, 64), check_int) == [16, 64]
    assert check_values("names", ["a"]) == ["a"]
    with pytest.raises(TypeError, match="dims must be a sequence of values, got str"):
        check_values("dims", "16")
    with pytest.raises(TypeError, match="dims must be a sequence of values, got int"):
        check_values("dims", 16)
    with pytest.raises(ValueError, match="dims must hold at least one value"):
        check_values("dims", [])
    with pytest.raises(TypeError, match=r"dims\[1\] must be an integer, got bool"):
        check_values("dims", [16, True], check_int)
    with pytest.raises(ValueError, match=r"dims\[0\] must be positive, got -1"):
        check_values("dims", [-1], check_int)


def test_check_defaults():
    assert check_defaults(None) == {} and check_defaults({"dim": 4}) == {"dim": 4}
    with pytest.raises(TypeError, match="defaults must be a mapping"):
        check_defaults([("dim", 4)])


# --- check_permutation ------------------------------------------------------------------------


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
        (torch.zeros(2, 2, dtype=torch.long), None, ValueError, r"^perm must have 1 dimension"),
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


def test_check_permutation_rejects_a_bool_tensor():
    with pytest.raises(TypeError, match=r"^perm must hold integers"):
        check_permutation("perm", torch.tensor([True, False]))


# --- check_text -------------------------------------------------------------------------------


def test_check_text():
    assert check_text("title", "a title") == "a title"
    assert check_text("title", None, optional=True) is None
    with pytest.raises(TypeError, match=r"^title must be a string, got NoneType None$"):
        check_text("title", None)
    with pytest.raises(TypeError, match=r"^title must be a string or None, got int 3$"):
        check_text("title", 3, optional=True)


# --- check_table ------------------------------------------------------------------------------


def test_check_table_wants_a_finite_float_matrix():
    table = torch.zeros(3, 2)
    assert check_table("table", table) is table
    assert check_table("table", table, allow_empty=False) is table
    with pytest.raises(TypeError, match=r"^table must be a torch.Tensor"):
        check_table("table", [[0.0]])
    with pytest.raises(ValueError, match=r"^table must have 2 dimensions"):
        check_table("table", torch.zeros(3))
    for dtype in (torch.int64, torch.bool, torch.complex64):
        with pytest.raises(TypeError, match=r"^table must be a floating-point tensor"):
            check_table("table", torch.zeros(3, 2, dtype=dtype))
    with pytest.raises(ValueError, match=r"^table must be finite, got 1 NaN"):
        check_table("table", torch.tensor([[0.0, float("nan")]]))


def test_check_table_refuses_an_empty_table_only_when_asked():
    empty = torch.zeros(4, 0)
    assert check_table("encoding", empty) is empty
    with pytest.raises(ValueError, match=r"^table must have at least one row and one column"):
        check_table("table", empty, allow_empty=False)
    with pytest.raises(ValueError, match=r"got shape \(0, 3\)"):
        check_table("table", torch.zeros(0, 3), allow_empty=False)


def test_named_positions_span_the_sequence():
    assert NAMED_POSITIONS == {"first": 0.0, "middle": 0.5, "last": 1.0}
