"""The book's explorer for the sinusoidal encoding (chapter 3)."""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from book._checks import check_defaults, check_values
from book.explorers.explorer import Explorer, LiveRange, explorer
from book.figures.sinusoidal import sinusoidal_explorer_figure
from posenc._checks import check_base, check_even, check_int

__all__ = ["sinusoidal_explorer"]


def sinusoidal_explorer(
    dims: Sequence[int] = (16, 64),
    bases: Sequence[float] = (100.0, 1000.0, 10000.0),
    n_positions: Sequence[int] = (128, 512),
    *,
    defaults: dict[str, object] | None = None,
) -> Explorer:
    """Explore the sinusoidal table and its dot product over ``dim``, ``base`` and length.

    Live in the static book: the reader's browser draws any even ``dim`` from 2 to 256, any
    ``base`` above 1 (a log slider from 10 to 10⁶) and any number of positions from 8 to
    1024 (the drawer ``sinusoidal`` of ``book/ext/twin_static/explorers.js``, with posenc's
    JavaScript twin); the listed values are those the kernel's widget offers, and the page
    stores only the default figure, for print and for a page without JavaScript. The ranges
    widen to take in any listed value beyond them.

    Left: the ``[n, d]`` table; right: ``PE(p)·PE(p+k) = Σ_i cos(kω_i)`` for
    ``k ∈ [-n, n]``. A small ``base`` packs all wavelengths into a short range (the table
    repeats sooner and the similarity oscillates); a large one leaves most channels nearly
    constant over ``n`` positions (the similarity decays slowly).

    Args:
        dims: values of the ``dim`` control (even ints).
        bases: values of the ``base`` control.
        n_positions: values of the ``positions`` control.
        defaults: initial values, by control name (``dim``, ``base``, ``positions``);
            default ``dim=64, base=10000, positions=128`` when those are offered.

    Returns:
        a live :class:`~book.explorers.explorer.Explorer`; the kernel's widget renders
        ``len(dims)·len(bases)·len(n_positions)`` figures at most (12 with the defaults).
    """
    dims = check_values("dims", dims, check_even)
    bases = check_values("bases", bases, check_base)
    n_positions = check_values("n_positions", n_positions, check_int)
    base_labels = {f"{b:g}": float(b) for b in bases}
    chosen = {"dim": 64, "base": 10000.0, "positions": 128}
    offered = {
        "dim": tuple(dims),
        "base": tuple(base_labels.values()),
        "positions": tuple(n_positions),
    }
    start = {k: v for k, v in chosen.items() if v in offered[k]}
    start.update(check_defaults(defaults))

    def render(dim: int, base: float, positions: int) -> Figure:
        return sinusoidal_explorer_figure(dim=dim, base=base, n_positions=positions)

    ranges = {
        "dim": LiveRange(2, max(256, *dims), step=2),
        "base": LiveRange(min(10.0, *bases), max(1e6, *bases), step=None, log=True, above=1),
        "positions": LiveRange(min(8, *n_positions), max(1024, *n_positions), step=1),
    }
    return explorer(
        render,
        {"dim": dims, "base": base_labels, "positions": n_positions},
        defaults=start,
        title="Sinusoidal encoding: table and dot product against offset",
        live="sinusoidal",
        ranges=ranges,
    )
