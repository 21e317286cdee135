"""Argument checks shared by every posenc module.

Each helper raises ``TypeError`` for a value of the wrong kind and ``ValueError`` for a value
of the right kind that breaks a rule, with a message that names the argument and the rule.
They never use ``assert`` (which ``python -O`` removes).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import torch
from torch import Tensor, nn

__all__ = [
    "as_positions",
    "broadcast_shape",
    "check_base",
    "check_bias",
    "check_bool",
    "check_choice",
    "check_even",
    "check_finite",
    "check_float_tensor",
    "check_floating_dtype",
    "check_heads",
    "check_int",
    "check_mask",
    "check_multiple",
    "check_pair",
    "check_positive_float",
    "check_real",
    "check_rotated",
    "check_same_device",
    "check_same_dtype",
    "check_shape",
    "check_state_dict_tables",
    "check_table_shape",
    "check_tensor",
]


def _is_bool(value: object) -> bool:
    """A Python ``bool`` or a numpy boolean scalar (told by its type, without importing numpy:
    posenc needs torch alone)."""
    kind = type(value)
    return isinstance(value, bool) or (
        kind.__module__ == "numpy" and kind.__name__ in ("bool", "bool_")
    )


def check_int(name: str, value: object, *, minimum: int | None = 1) -> int:
    """Return ``value`` as an ``int`` after checking it is an integer ``>= minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if (
            isinstance(value, Tensor)
            and value.ndim == 0
            and not (value.is_floating_point() or value.is_complex() or value.dtype == torch.bool)
        ):
            _check_has_value(name, value)
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


def check_bool(name: str, value: object) -> bool:
    """Return ``value`` after checking it is a real ``bool`` (``"False"``, 0 and 1 are refused)."""
    if not _is_bool(value):
        raise TypeError(
            f"{name} must be a bool (True or False), got {type(value).__name__} {value!r}"
        )
    return bool(value)


def _check_has_value(name: str, value: Tensor) -> None:
    if value.device.type == "meta":
        raise TypeError(
            f"{name} must be a number or a tensor with a value, got a 0-d tensor on the meta "
            "device (it has a shape but no value)"
        )


def check_real(
    name: str,
    value: object,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    inclusive: bool = True,
) -> float:
    """Return ``value`` as a ``float`` after checking it is a finite real number within bounds.

    ``bool`` and complex numbers are refused (``TypeError``), as are tensors other than a
    0-dimensional real one. ``minimum`` / ``maximum`` bound the value, inclusively by default
    (``inclusive=False`` makes both bounds strict).
    """
    if isinstance(value, Tensor) and value.ndim == 0 and value.dtype != torch.bool:
        if value.is_complex():
            raise TypeError(f"{name} must be a real number, got a complex tensor {value!r}")
        _check_has_value(name, value)
        value = value.item()
    if _is_bool(value) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    value = float(value)
    low, high = (">=", "<=") if inclusive else (">", "<")
    if minimum is not None and maximum is not None:
        left, right = ("[", "]") if inclusive else ("(", ")")
        words = f"a finite number in {left}{minimum:g}, {maximum:g}{right}"
    elif minimum is not None:
        words = f"a finite number {low} {minimum:g}"
    elif maximum is not None:
        words = f"a finite number {high} {maximum:g}"
    else:
        words = "a finite number"
    if not math.isfinite(value):
        raise ValueError(f"{name} must be {words}, got {value}")
    too_low = minimum is not None and (value < minimum if inclusive else value <= minimum)
    too_high = maximum is not None and (value > maximum if inclusive else value >= maximum)
    if too_low or too_high:
        raise ValueError(f"{name} must be {words}, got {value}")
    return value


def check_positive_float(name: str, value: object) -> float:
    """Return ``value`` as a ``float`` after checking it is a finite real number ``> 0``."""
    return check_real(name, value, minimum=0, inclusive=False)


def check_base(name: str, value: object) -> float:
    """Return ``value`` as a ``float`` after checking it is a finite real number ``> 1``.

    A base of 1 would make every frequency 1 (all channels alike); below 1 the wavelengths
    would shrink instead of grow.
    """
    return check_real(name, value, minimum=1, inclusive=False)


def check_tensor(name: str, value: object, *, ndim: int | None = None) -> Tensor:
    """Return ``value`` after checking it is a tensor, of rank ``ndim`` when given."""
    if not isinstance(value, Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(value).__name__}")
    if ndim is not None and value.ndim != ndim:
        dims = "dimension" if ndim == 1 else "dimensions"
        raise ValueError(f"{name} must have {ndim} {dims}, got shape {tuple(value.shape)}")
    return value


def check_float_tensor(name: str, value: object, *, ndim: int | None = None) -> Tensor:
    """Return ``value`` after checking it is a real floating-point tensor (of rank ``ndim``).

    Bool, integer and complex tensors are refused with a ``TypeError``: attention scores and
    encodings are real numbers, and an integer input would be silently truncated.
    """
    check_tensor(name, value, ndim=ndim)
    if not value.is_floating_point():
        raise TypeError(f"{name} must be a floating-point tensor, got dtype {value.dtype}")
    return value


def check_same_dtype(**tensors: Tensor | None) -> torch.dtype | None:
    """Return the one dtype of the given tensors (``None`` values skipped), or refuse a mix.

    Called with keywords so the message names each argument:
    ``check_same_dtype(q=q, k=k, v=v)``.
    """
    return _one_of(tensors, "dtype", "{name} {value}", "must have one dtype", TypeError)


def check_same_device(**tensors: Tensor | None) -> torch.device | None:
    """Return the one device of the given tensors (``None`` values skipped), or refuse a mix.

    Called with keywords so the message names each argument:
    ``check_same_device(q=q, k=k, mask=mask)``.
    """
    return _one_of(tensors, "device", "{name} on {value}", "must be on one device", ValueError)


def _one_of(
    tensors: dict[str, Tensor | None], attr: str, each: str, rule: str, error: type[Exception]
) -> Any:
    """The one value of ``tensor.<attr>`` over the given tensors, or ``error`` naming them."""
    given = {name: check_tensor(name, t) for name, t in tensors.items() if t is not None}
    values = {getattr(t, attr) for t in given.values()}
    if len(values) > 1:
        listed = ", ".join(each.format(name=n, value=getattr(t, attr)) for n, t in given.items())
        raise error(f"{', '.join(given)} {rule}, got {listed}")
    return values.pop() if values else None


def check_finite(name: str, tensor: Tensor) -> Tensor:
    """Return ``tensor`` after checking it holds no NaN or infinity.

    Skipped on the ``meta`` device, whose tensors have no values.
    """
    check_tensor(name, tensor)
    if tensor.device.type == "meta" or not (tensor.is_floating_point() or tensor.is_complex()):
        return tensor
    bad = int((~torch.isfinite(tensor)).sum())
    if bad:
        raise ValueError(f"{name} must be finite, got {bad} NaN or infinite value(s)")
    return tensor


def check_bias(name: str, bias: object, shape: Sequence[int]) -> Tensor:
    """Return ``bias`` after checking it is a float tensor that broadcasts to ``shape``.

    A bool tensor is refused with a ``TypeError`` pointing to ``mask=``: added to the scores it
    would count as +1.0, not mask anything.
    """
    check_tensor(name, bias)
    if bias.dtype == torch.bool:
        raise TypeError(
            f"{name} must be a floating-point tensor of additive scores, got a bool tensor; "
            "pass a boolean mask as mask= instead (True = attend)"
        )
    check_float_tensor(name, bias)
    _check_broadcasts(name, bias, shape)
    return bias


def check_mask(
    name: str,
    mask: object,
    shape: Sequence[int],
    *,
    widen: bool = False,
    against: str = "the scores",
) -> Tensor:
    """Return ``mask`` after checking it is a bool tensor that broadcasts to ``shape``.

    With ``widen=True`` the mask may also add or widen batch dimensions: it must only broadcast
    *with* ``shape`` (as in ``logits.masked_fill(~mask, …)``, whose result takes both shapes).
    ``against`` names what ``shape`` is the shape of, for the message.
    """
    check_tensor(name, mask)
    if mask.dtype != torch.bool:
        raise TypeError(f"{name} must be a boolean tensor (True = attend), got dtype {mask.dtype}")
    _check_broadcasts(name, mask, shape, widen=widen, against=against)
    return mask


def _check_broadcasts(
    name: str,
    value: Tensor,
    shape: Sequence[int],
    *,
    widen: bool = False,
    against: str = "the scores",
) -> None:
    shape = tuple(int(s) for s in shape)
    both = broadcast_shape(tuple(value.shape), shape)
    if both is None or (both != shape and not widen):
        words = "broadcast with" if widen else "broadcast to"
        raise ValueError(
            f"{name} of shape {tuple(value.shape)} does not {words} {against}' shape {shape}"
        )


def check_table_shape(key: str, table: object, shape: Sequence[int]) -> None:
    """Refuse a loaded ``table`` (state-dict entry ``key``) whose shape is not ``shape``.

    Raises ``ValueError`` naming the key and both shapes, in place of torch's ``RuntimeError``
    from ``load_state_dict``.
    """
    if not isinstance(table, Tensor):
        raise TypeError(
            f"state dict entry {key!r} must be a torch.Tensor, got {type(table).__name__}"
        )
    shape = tuple(int(s) for s in shape)
    if tuple(table.shape) != shape:
        raise ValueError(
            f"state dict entry {key!r} has shape {tuple(table.shape)}, but this module's table "
            f"has shape {shape} (build the module with the sizes the checkpoint was saved with)"
        )


def check_state_dict_tables(
    module: nn.Module, state_dict: Mapping[str, object], prefix: str
) -> None:
    """Check every parameter and persistent buffer of ``module`` (and its children) that
    ``state_dict`` holds under ``prefix`` with :func:`check_table_shape`.

    Call it first in a module's ``_load_from_state_dict``::

        def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):
            check_state_dict_tables(self, state_dict, prefix)
            super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    Missing keys are left to ``load_state_dict`` to report.
    """
    tables = dict(module.named_parameters())
    for sub, child in module.named_modules():
        for name, buf in child._buffers.items():
            if buf is not None and name not in child._non_persistent_buffers_set:
                tables[f"{sub}.{name}" if sub else name] = buf
    for name, table in tables.items():
        key = prefix + name
        if key in state_dict:
            check_table_shape(key, state_dict[key], table.shape)


def check_floating_dtype(name: str, value: object) -> torch.dtype:
    """Return ``value`` after checking it is a floating-point ``torch.dtype``."""
    if not isinstance(value, torch.dtype):
        raise TypeError(f"{name} must be a torch.dtype, got {type(value).__name__}")
    if not value.is_floating_point:
        raise ValueError(f"{name} must be a floating-point dtype, got {value}")
    return value


def as_positions(
    name: str, positions: object, *, device: torch.device | str | None = None
) -> Tensor:
    """Turn an int ``n`` (meaning ``0..n-1``) or a 1-D tensor of positions into float64 ``[n]``.

    A tensor keeps its device; ``0..n-1`` is built on ``device``. Positions must be real and
    finite: bool and complex tensors are refused (``TypeError``), NaN and infinity too
    (``ValueError``).
    """
    if isinstance(positions, Tensor):
        check_tensor(name, positions, ndim=1)
        if positions.is_complex() or positions.dtype == torch.bool:
            raise TypeError(f"{name} must hold real numbers, got dtype {positions.dtype}")
        check_finite(name, positions)
        return positions.to(torch.float64)  # a graph through the positions is kept
    n = check_int(name, positions, minimum=1)
    return torch.arange(n, dtype=torch.float64, device=device)


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


def check_pair(name: str, value: object, *, minimum: int | None = 1) -> tuple[int, int]:
    """Return ``value`` as a pair of ints after checking it has two integer entries ``>= minimum``.

    Args:
        name: the argument's name in error messages.
        value: the pair to check, e.g. a window ``(Wh, Ww)``.
        minimum: the smallest entry allowed (``None``: any integer).

    Returns:
        the pair as a tuple of two ints.
    """
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(f"{name} must be a pair of ints, got {type(value).__name__} {value!r}")
    if len(value) != 2:
        raise ValueError(f"{name} must have two entries, got {tuple(value)}")
    return (
        check_int(f"{name}[0]", value[0], minimum=minimum),
        check_int(f"{name}[1]", value[1], minimum=minimum),
    )


def check_choice(name: str, value: object, choices: Sequence[Any]) -> Any:
    """Return ``value`` after checking it is one of ``choices`` (a ``ValueError`` lists them).

    A value must match a choice in type as well (``True`` is not the choice ``1``).

    Args:
        name: the argument's name in error messages.
        value: the value to check.
        choices: the values allowed.

    Returns:
        ``value``.
    """
    if isinstance(value, bool) or not any(type(value) is type(c) and value == c for c in choices):
        raise ValueError(f"{name} must be one of {tuple(choices)}, got {value!r}")
    return value


def check_rotated(name: str, x: object) -> tuple[int, int]:
    """Return ``(n, d)`` of a float tensor to rotate in channel pairs: ``[..., n, d]``, ``d`` even."""
    check_float_tensor(name, x)
    if x.ndim < 2:
        raise ValueError(
            f"{name} must have at least 2 dimensions [..., n, d], got shape {tuple(x.shape)}"
        )
    n, d = x.shape[-2:]
    if d % 2 or d == 0:
        raise ValueError(
            f"{name}'s last dimension d must be even and >= 2 (channels are rotated in pairs), "
            f"got {d}"
        )
    return n, d


def check_shape(
    name: str, shape: object, *, rank: int | None = None, minimum: int = 1
) -> tuple[int, ...]:
    """Return ``shape`` as a tuple of ints after checking each is an integer ``>= minimum``.

    ``shape`` is a sequence (not a string) of at least one entry, of exactly ``rank`` entries
    when given: a window ``(Wh, Ww)``, a grid ``(D, Wh, Ww)``, a step per axis. Messages name
    the entry at fault (``window_size[1]``).
    """
    example = "(7, 7)" if rank in (None, 2) else str(tuple([7] * rank))
    if not isinstance(shape, Sequence) or isinstance(shape, (str, bytes)):
        raise TypeError(
            f"{name} must be a tuple of ints such as {example}, got {type(shape).__name__} "
            f"{shape!r}"
        )
    if len(shape) == 0:
        raise ValueError(f"{name} must have at least one axis, got {shape!r}")
    if rank is not None and len(shape) != rank:
        raise ValueError(f"{name} must have {rank} entries such as {example}, got {shape!r}")
    return tuple(check_int(f"{name}[{a}]", s, minimum=minimum) for a, s in enumerate(shape))
