"""Run a block of code with a given number of torch intra-op threads."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import torch

from ._checks import check_int

__all__ = ["torch_threads"]


@contextmanager
def torch_threads(count: int | None) -> Iterator[None]:
    """Use ``count`` intra-op threads inside the block (``None``: leave as is), then restore.

    The book's tensors are tiny: on a busy two-core machine, waiting for a second thread costs
    far more than the work, and a fixed count makes floating-point sums reproducible.
    """
    previous = torch.get_num_threads()
    if count is not None:
        torch.set_num_threads(check_int("threads", count))
    try:
        yield
    finally:
        torch.set_num_threads(previous)
