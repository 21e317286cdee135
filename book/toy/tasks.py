"""The synthetic tasks of the toy experiments: the answer at a position depends on where tokens are.

* :func:`toy_batch` makes a batch of ``"shift"``, ``"reverse"``, ``"local_max"`` or
  ``"passkey"``;
* :data:`TASKS` lists the tasks and :data:`IGNORE_INDEX` marks positions without an answer.

A model without position information cannot solve any of them: the bag of tokens does not
determine the answer.
"""

from __future__ import annotations

from typing import Literal

import torch
import torch.nn.functional as F
from torch import Tensor

from posenc._checks import check_int

__all__ = ["IGNORE_INDEX", "TASKS", "Task", "passkey_markers", "toy_batch"]

Task = Literal["shift", "reverse", "local_max", "passkey"]
TASKS: tuple[str, ...] = ("shift", "reverse", "local_max", "passkey")
IGNORE_INDEX = -100
"""Target value at positions that have no answer (``F.cross_entropy``'s ``ignore_index``)."""


def toy_batch(
    task: Task,
    batch_size: int,
    length: int,
    *,
    vocab_size: int = 16,
    k: int = 2,
    generator: torch.Generator | None = None,
) -> tuple[Tensor, Tensor]:
    """Return ``(tokens, targets)`` for a synthetic task in which position matters.

    Tokens are drawn uniformly from ``0..V-1``. The target at position ``p`` is

    .. math::

        \\text{shift:}\\; y_p = x_{p-k}\\ (p \\ge k), \\qquad
        \\text{reverse:}\\; y_p = x_{n-1-p}, \\qquad
        \\text{local\\_max:}\\; y_p = \\max_{|q-p| \\le k} x_q

    ``shift`` copies the token ``k`` places back (positions ``p < k`` have no answer and get
    :data:`IGNORE_INDEX`); ``reverse`` mirrors the sequence; ``local_max`` takes the largest
    token in the window of half-width ``k`` around ``p`` (clipped at the ends).

    ``passkey`` hides a key in ``shift``'s filler: tokens are drawn from the ``V - 2`` values
    ``0..V-3``; at a position ``s`` drawn uniformly from ``0..n-3`` sits the marker
    ``KEY = V - 2`` and after it the passkey ``x_{s+1}``, and the last token is the question
    ``QUERY = V - 1``. The targets are ``shift``'s up to position ``n - 2`` and the passkey at
    the last position:

    .. math::

        \\text{passkey:}\\; y_p = x_{p-k}\\ (k \\le p \\le n-2), \\qquad
        y_{n-1} = x_{s+1}, \\quad x_s = \\text{KEY}

    All four are unsolvable from the bag of tokens alone: the answer depends on where tokens are.

    Args:
        task: ``"shift"``, ``"reverse"``, ``"local_max"`` or ``"passkey"``.
        batch_size: ``b``, the number of sequences.
        length: ``n``, the sequence length.
        vocab_size: ``V``, the number of distinct tokens (at least 2; 4 for ``"passkey"``).
        k: the shift of ``"shift"`` and ``"passkey"`` (``1 <= k < n``; ``k < n - 1`` for
            ``"passkey"``) or the half-width of ``"local_max"``.
        generator: a seeded ``torch.Generator`` for reproducible batches.

    Returns:
        ``tokens`` and ``targets``, both ``int64`` of shape ``[b, n]``.

    Shapes:
        ``b``: sequences, ``n``: positions.
    """
    if not isinstance(task, str) or task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}, got {task!r}")
    batch_size = check_int("batch_size", batch_size)
    length = check_int("length", length)
    vocab_size = check_int("vocab_size", vocab_size, minimum=2)
    k = check_int("k", k, minimum=0 if task == "local_max" else 1)
    if generator is not None and not isinstance(generator, torch.Generator):
        raise TypeError(
            f"generator must be a torch.Generator or None, got {type(generator).__name__}"
        )
    if task == "shift" and k >= length:
        raise ValueError(f"k must be smaller than length for 'shift', got k={k}, length={length}")
    if task == "passkey":
        return _passkey_batch(batch_size, length, vocab_size, k, generator)
    tokens = torch.randint(0, vocab_size, (batch_size, length), generator=generator)  # [b, n]
    if task == "shift":
        targets = torch.full_like(tokens, IGNORE_INDEX)  # [b, n]
        targets[:, k:] = tokens[:, :-k]
    elif task == "reverse":
        targets = tokens.flip(1)  # [b, n]
    else:
        padded = F.pad(tokens, (k, k), value=-1)  # [b, n + 2k], -1 never wins the max
        targets = padded.unfold(1, 2 * k + 1, 1).amax(dim=-1)  # [b, n]
    return tokens, targets


def passkey_markers(vocab_size: int) -> tuple[int, int]:
    """``(KEY, QUERY)``, the two marker tokens of ``"passkey"``: ``V - 2`` and ``V - 1``."""
    vocab_size = check_int("vocab_size", vocab_size, minimum=4)
    return vocab_size - 2, vocab_size - 1


def _passkey_batch(
    batch_size: int, length: int, vocab_size: int, k: int, generator: torch.Generator | None
) -> tuple[Tensor, Tensor]:
    key, query = passkey_markers(vocab_size)
    if length < 4 or k >= length - 1:
        raise ValueError(
            f"length must be at least 4 and k smaller than length - 1 for 'passkey', got "
            f"k={k}, length={length}"
        )
    tokens = torch.randint(0, key, (batch_size, length), generator=generator)  # [b, n]: values
    where = torch.randint(0, length - 2, (batch_size,), generator=generator)  # [b]: the KEY
    rows = torch.arange(batch_size)  # [b]
    tokens[rows, where] = key
    tokens[:, -1] = query
    targets = torch.full_like(tokens, IGNORE_INDEX)  # [b, n]
    targets[:, k:-1] = tokens[:, : -k - 1]  # shift's answers up to n - 2
    targets[:, -1] = tokens[rows, where + 1]  # the passkey
    return tokens, targets
