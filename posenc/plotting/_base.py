"""Small drawing helpers shared by the plotting modules (no pyplot, no global state)."""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from torch import Tensor

from .._checks import check_int

DIVERGING = "RdBu_r"
SEQUENTIAL = "viridis"


def new_figure(
    width: float = 7.0, height: float = 3.2, *, layout: str | None = "constrained", **kwargs: Any
) -> Figure:
    """A fresh ``Figure`` detached from pyplot (constrained layout unless ``layout`` says otherwise).

    Constrained layout roughly doubles the time to draw a figure; explorers that must redraw
    in under 100 ms can pass ``layout=None`` and place their axes themselves.
    """
    return Figure(figsize=(width, height), layout=layout, **kwargs)


def to_numpy(x: Tensor | np.ndarray) -> np.ndarray:
    """A float64 NumPy copy of a tensor or array (detached, on the CPU)."""
    if isinstance(x, Tensor):
        return x.detach().cpu().double().numpy()
    return np.asarray(x, dtype=np.float64)


def heatmap(
    ax: Axes,
    matrix: Tensor | np.ndarray,
    *,
    symmetric: bool = True,
    cmap: str | None = None,
    colorbar: bool = True,
    vmax: float | None = None,
    **imshow_kwargs: Any,
) -> Any:
    """Draw ``matrix`` on ``ax`` (row 0 at the top); symmetric colour limits by default."""
    m = to_numpy(matrix)
    if symmetric:
        limit = vmax if vmax is not None else float(np.max(np.abs(m))) or 1.0
        imshow_kwargs.setdefault("vmin", -limit)
        imshow_kwargs.setdefault("vmax", limit)
    elif vmax is not None:
        imshow_kwargs.setdefault("vmax", vmax)
    imshow_kwargs.setdefault("interpolation", "nearest")
    imshow_kwargs.setdefault("aspect", "auto")
    image = ax.imshow(m, cmap=cmap or (DIVERGING if symmetric else SEQUENTIAL), **imshow_kwargs)
    if colorbar:
        ax.figure.colorbar(image, ax=ax, shrink=0.85)
    return image


NAMED_POSITIONS = {"first": 0.0, "middle": 0.5, "last": 1.0}
"""Named places in a sequence, as fractions of its length, for the explorers' query controls."""


def sequence_position(query: str | int, n: int) -> int:
    """Resolve ``"first"``, ``"middle"``, ``"last"`` or a position to an index in ``0..n−1``.

    ``"middle"`` is ``round((n − 1) / 2)``, so the same name picks a comparable query whatever
    the length an explorer shows.
    """
    n = check_int("n", n)
    if isinstance(query, str):
        if query not in NAMED_POSITIONS:
            raise ValueError(f"query must be one of {sorted(NAMED_POSITIONS)} or a position, got {query!r}")
        return round(NAMED_POSITIONS[query] * (n - 1))
    i = check_int("query", query, minimum=0)
    if i >= n:
        raise ValueError(f"query must be < n = {n}, got {i}")
    return i


def signed_label(v: float) -> str:
    """``+2``, ``0``, ``−2``: an offset as a label, with a real minus sign."""
    return f"+{v:.0f}" if v > 0 else f"−{-v:.0f}" if v < 0 else "0"
