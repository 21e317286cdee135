"""Argument checks that only the book uses: explorers' controls, figures' texts and tables.

:mod:`posenc._checks` holds the checks the library itself makes (and the primitives these are
built on); the ones here serve the book alone, so the library carries none of them. As there,
each helper raises ``TypeError`` for a value of the wrong kind and ``ValueError`` for a value
of the right kind that breaks a rule, with a message that names the argument and the rule, and
never uses ``assert`` (which ``python -O`` removes).

:data:`NAMED_POSITIONS` lives here too: the explorers offer its names as query controls and the
figures resolve them (:func:`book.figures._base.sequence_position`), so both reach it without
importing from each other's private modules.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import torch
from torch import Tensor

from posenc._checks import check_finite, check_float_tensor, check_int, check_tensor

__all__ = [
    "NAMED_POSITIONS",
    "check_defaults",
    "check_permutation",
    "check_table",
    "check_text",
    "check_values",
]

NAMED_POSITIONS = {"first": 0.0, "middle": 0.5, "last": 1.0}
"""Named places in a sequence, as fractions of its length, for the explorers' query controls."""


def check_defaults(defaults: object) -> dict[str, object]:
    """Return an explorer's ``defaults`` (``None`` or a mapping control name -> value) as a dict.

    Args:
        defaults: ``None`` or a mapping from control name to its first value.

    Returns:
        a new dict (empty for ``None``); the explorer checks names and values.
    """
    if defaults is None:
        return {}
    if not isinstance(defaults, Mapping):
        raise TypeError(
            f"defaults must be a mapping control name -> value, got {type(defaults).__name__}"
        )
    return dict(defaults)


def check_permutation(name: str, perm: object, n: int | None = None) -> list[int]:
    """Return ``perm`` as a list of ints after checking it is a permutation of ``0..n-1``.

    ``perm`` is an iterable of ints or a 1-D integer tensor; ``n`` defaults to its length
    (give it to require a permutation of exactly ``n`` items).

    Args:
        name: the argument's name in error messages.
        perm: the order to check.
        n: the number of items it must order, or ``None`` for its own length.

    Returns:
        the permutation as a list of Python ints.
    """
    if isinstance(perm, Tensor):
        check_tensor(name, perm, ndim=1)
        if perm.is_floating_point() or perm.is_complex() or perm.dtype == torch.bool:
            raise TypeError(f"{name} must hold integers, got dtype {perm.dtype}")
        order = [int(i) for i in perm]
    elif isinstance(perm, (str, bytes)) or not isinstance(perm, Iterable):
        kind = type(perm).__name__
        raise TypeError(f"{name} must be a sequence of ints or a 1-D tensor, got {kind}")
    else:
        order = [check_int(f"{name}[{i}]", p, minimum=0) for i, p in enumerate(perm)]
    size = len(order) if n is None else n
    if not order or sorted(order) != list(range(size)):
        items = f"0..{size - 1}" if size else "0..n-1 (n >= 1)"
        raise ValueError(f"{name} must be a permutation of {items}, got {order}")
    return order


def check_text(name: str, value: object, *, optional: bool = False) -> str | None:
    """Return ``value`` after checking it is a ``str`` (or ``None``, with ``optional``).

    For the texts a figure or an explorer draws (titles, labels): anything else would be drawn
    as its ``repr`` or fail inside matplotlib, far from the call.

    Args:
        name: the argument's name in error messages.
        value: the text to check.
        optional: whether ``None`` (the argument's default: no text, or a text of the
            figure's own) is allowed.

    Returns:
        ``value``.
    """
    if isinstance(value, str) or (optional and value is None):
        return value
    kind = "a string or None" if optional else "a string"
    raise TypeError(f"{name} must be {kind}, got {type(value).__name__} {value!r}")


def check_table(name: str, table: object, *, allow_empty: bool = True) -> Tensor:
    """Return ``table`` after checking it is a finite, real floating-point ``[n, d]`` table.

    Integer, bool and complex tables are refused (``TypeError``), as are NaN and infinity
    (``ValueError``). A measurement of a table (:mod:`book.demos.numeric`) can take an empty
    one; a figure that draws it (:mod:`book.figures.learned`) passes ``allow_empty=False``.

    Args:
        name: the argument's name in error messages.
        table: the table to check, one row per position.
        allow_empty: whether a table with no row or no column is allowed.

    Returns:
        ``table``.
    """
    check_float_tensor(name, table, ndim=2)
    if not allow_empty and table.numel() == 0:
        raise ValueError(
            f"{name} must have at least one row and one column, got shape {tuple(table.shape)}"
        )
    return check_finite(name, table)


def check_values(
    name: str, values: object, check: Callable[[str, Any], Any] | None = None
) -> list[Any]:
    """Return ``values`` as a list after checking it is a non-empty sequence (not a string).

    Each entry is passed through ``check(f"{name}[{i}]", entry)`` when given (e.g.
    :func:`posenc._checks.check_int`), so a message names the entry at fault. Explorers use it
    for the values of their controls, figures for their lists of positions or sizes.

    Args:
        name: the argument's name in error messages.
        values: the sequence to check.
        check: a check ``(name, value) -> value`` applied to every entry, or ``None``.

    Returns:
        the entries (as ``check`` returns them), in order.
    """
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise TypeError(f"{name} must be a sequence of values, got {type(values).__name__}")
    if len(values) == 0:
        raise ValueError(f"{name} must hold at least one value, got an empty sequence")
    if check is None:
        return list(values)
    return [check(f"{name}[{i}]", v) for i, v in enumerate(values)]
