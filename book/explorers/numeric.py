"""Explorer for chapter 2: naive numeric codes, their collisions and their resolution."""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from book._checks import check_values
from book.explorers.explorer import Explorer, LiveRange, explorer
from book.figures.numeric import ENCODINGS, numeric_codes_figure
from posenc._checks import check_int, check_positive_float

__all__ = ["numeric_explorer"]


def numeric_explorer(
    alphas: Sequence[float] = (0.5, 2.0, 8.0, 32.0),
    lengths: Sequence[int] = (20, 60),
    encodings: Sequence[str] = ("sine", "circle"),
) -> Explorer:
    """Choose a periodic code, its ``α`` and the sequence length ``T``.

    Shows the code of each position with the closest distinct pair circled and the full
    distance matrix: small ``α`` gives collisions, large ``α`` gives tiny neighbour steps.
    ``encodings`` may also list ``"index"`` and ``"normalized"`` (for which ``α`` is
    ignored).

    Live in the static book: the reader's browser draws any ``α`` from 0.1 to 1000 (a log
    slider; the number box takes any value between) and any ``T`` from 2 to 1000 (the drawer
    ``numeric``, ``book/ext/twin_static/drawers/numeric.js``, with posenc's JavaScript twin);
    the listed values are those the kernel's widget offers, and the page stores only the
    default figure, for print and for a page without JavaScript. The ranges widen to take in
    any listed value beyond them.

    Controls: ``encoding`` (drop-down), ``alpha`` (slider), ``T`` (slider).

    Args:
        alphas: values of the ``alpha`` control (finite numbers ``> 0``).
        lengths: values of the ``T`` control (sequence lengths, each at least 2).
        encodings: the codes offered, among ``"index"``, ``"normalized"``, ``"sine"`` and
            ``"circle"``.

    Returns:
        a live :class:`~book.explorers.explorer.Explorer`; the kernel's widget renders
        ``len(encodings)·len(alphas)·len(lengths)`` figures at most (16 with the defaults).
    """
    alphas = check_values("alphas", alphas, check_positive_float)
    lengths = check_values("lengths", lengths, lambda name, t: check_int(name, t, minimum=2))
    encodings = check_values("encodings", encodings)
    labels = {label: key for label, key in ENCODINGS.items() if key in encodings}
    unknown = set(encodings) - set(labels.values())
    if unknown:
        raise ValueError(
            f"encodings must be among {sorted(ENCODINGS.values())}, got {sorted(unknown)}"
        )

    def render(encoding: str, alpha: float, T: int) -> Figure:
        return numeric_codes_figure(encoding, alpha if encoding in ("sine", "circle") else 1.0, T)

    ranges = {
        "alpha": LiveRange(min(0.1, *alphas), max(1000.0, *alphas), step=None, log=True),
        "T": LiveRange(2, max(1000, *lengths), step=1),
    }
    return explorer(
        render,
        {"encoding": labels, "alpha": alphas, "T": lengths},
        title="Naive position codes: α and T",
        live="numeric",
        ranges=ranges,
    )
