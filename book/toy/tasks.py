"""The synthetic tasks of the toy experiments: the answer at a position depends on where tokens are.

* :func:`toy_batch` makes a batch of ``"shift"``, ``"reverse"`` or ``"local_max"``;
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

__all__ = ["IGNORE_INDEX", "TASKS", "Task", "toy_batch"]

Task = Literal["shift", "reverse", "local_max"]
TASKS: tuple[str, ...] = ("shift", "reverse", "local_max")
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
    token in the window of half-width ``k`` around ``p`` (clipped at the ends). All three
    are unsolvable from the bag of tokens alone: the answer depends on where tokens are.

    Args:
        task: ``"shift"``, ``"reverse"`` or ``"local_max"``.
        batch_size: ``b``, the number of sequences.
        length: ``n``, the sequence length.
        vocab_size: ``V``, the number of distinct tokens (at least 2).
        k: the shift of ``"shift"`` (``1 <= k < n``) or the half-width of ``"local_max"``.
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
