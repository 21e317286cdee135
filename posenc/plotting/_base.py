"""Small drawing helpers shared by the plotting modules (no pyplot, no global state)."""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from torch import Tensor

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
