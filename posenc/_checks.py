"""Argument checks shared by every posenc module.

Each helper raises ``TypeError`` for a value of the wrong kind and ``ValueError`` for a value
of the right kind that breaks a rule, with a message that names the argument and the rule.
They never use ``assert`` (which ``python -O`` removes).
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable

import torch
from torch import Tensor


def check_int(name: str, value: object, *, minimum: int | None = 1) -> int:
    """Return ``value`` as an ``int`` after checking it is an integer ``>= minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, Tensor) and value.ndim == 0 and not value.is_floating_point():
            value = int(value)
        else:
            raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    value = int(value)
    if minimum is not None and value < minimum:
        rule = "positive" if minimum == 1 else f">= {minimum}"
        raise ValueError(f"{name} must be {rule}, got {value}")
    return value


def check_even(name: str, value: object, *, minimum: int = 2) -> int:
    """Return ``value`` as an ``int`` after checking it is an even integer ``>= minimum``."""
    value = check_int(name, value, minimum=minimum)
    if value % 2:
        raise ValueError(f"{name} must be even (sin/cos come in pairs), got {value}")
    return value


def check_multiple(name: str, value: object, factor: int, why: str) -> int:
    """Return ``value`` as an ``int`` after checking it is a positive multiple of ``factor``."""
    value = check_int(name, value)
    if value % factor:
        raise ValueError(f"{name} must be a multiple of {factor} ({why}), got {value}")
    return value


def check_heads(dim: object, num_heads: object) -> int:
    """Return the channels per head ``dim // num_heads`` after checking ``num_heads`` divides ``dim``.

    Both are checked as positive integers first (``dim`` before ``num_heads``), so a message
    names the argument at fault.
    """
    dim = check_int("dim", dim)
    num_heads = check_int("num_heads", num_heads)
    if dim % num_heads:
        raise ValueError(f"num_heads must divide dim, got dim={dim}, num_heads={num_heads}")
    return dim // num_heads


def check_permutation(name: str, perm: object, n: int | None = None) -> list[int]:
    """Return ``perm`` as a list of ints after checking it is a permutation of ``0..n-1``.

    ``perm`` is an iterable of ints or a 1-D integer tensor; ``n`` defaults to its length
    (give it to require a permutation of exactly ``n`` items).
    """
    if isinstance(perm, Tensor):
        check_tensor(name, perm, ndim=1)
        if perm.is_floating_point() or perm.is_complex():
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


def check_positive_float(name: str, value: object) -> float:
    """Return ``value`` as a ``float`` after checking it is a finite real number ``> 0``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    value = float(value)
    if not (value > 0.0 and value != float("inf")):
        raise ValueError(f"{name} must be a finite number > 0, got {value}")
    return value


def check_tensor(name: str, value: object, *, ndim: int | None = None) -> Tensor:
    """Return ``value`` after checking it is a tensor, of rank ``ndim`` when given."""
    if not isinstance(value, Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(value).__name__}")
    if ndim is not None and value.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimensions, got shape {tuple(value.shape)}")
    return value


def check_floating_dtype(name: str, value: object) -> torch.dtype:
    """Return ``value`` after checking it is a floating-point ``torch.dtype``."""
    if not isinstance(value, torch.dtype):
        raise TypeError(f"{name} must be a torch.dtype, got {type(value).__name__}")
    if not value.is_floating_point:
        raise ValueError(f"{name} must be a floating-point dtype, got {value}")
    return value


def as_positions(name: str, positions: object) -> Tensor:
    """Turn an int ``n`` (meaning ``0..n-1``) or a 1-D tensor of positions into float64 ``[n]``."""
    if isinstance(positions, Tensor):
        check_tensor(name, positions, ndim=1)
        if positions.is_complex():
            raise TypeError(f"{name} must hold real numbers, got dtype {positions.dtype}")
        return positions.detach().to(torch.float64)
    n = check_int(name, positions, minimum=1)
    return torch.arange(n, dtype=torch.float64)


def broadcast_shape(*shapes: tuple[int, ...]) -> tuple[int, ...] | None:
    """The broadcast of ``shapes`` by NumPy's rules, or ``None`` if they do not broadcast.

    Plain Python on purpose: ``torch.broadcast_shapes`` imports ``torch.fx`` and SymPy on its
    first call, about a second that every notebook using RoPE or Shaw's attention would pay.
    """
    out: list[int] = []
    for sizes in zip(
        *(reversed((1,) * (max(map(len, shapes)) - len(s)) + tuple(s)) for s in shapes)
    ):
        wide = {size for size in sizes if size != 1}
        if len(wide) > 1:
            return None
        out.append(wide.pop() if wide else 1)
    return tuple(reversed(out))
