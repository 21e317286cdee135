"""The book's explorer for rotary position embeddings (chapter 9)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from matplotlib.figure import Figure

from book._checks import check_defaults, check_values
from book.explorers.explorer import Explorer, LiveRange, explorer
from book.figures.rotary import rotary_explorer_figure, rotary_stretch_explorer_figure
from posenc._checks import check_base, check_choice, check_even, check_int, check_real

__all__ = ["rotary_explorer", "rotary_stretch_explorer"]


def rotary_explorer(
    dims: Sequence[int] = (16, 128),
    bases: Sequence[float] = (100.0, 10000.0, 500000.0),
    *,
    context: int = 4096,
    defaults: Mapping[str, object] | None = None,
) -> Explorer:
    """Explore RoPE's rotation speeds and the score of a matching key against its offset.

    Live in the static book: the reader's browser draws any even ``dim`` from 4 to 256, any
    ``base`` above 1 (a log slider from 10 to 10⁶) and any context length from 16 to 32768
    (the drawer ``rotary`` of ``book/ext/twin_static/drawers/``, with posenc's JavaScript
    twin); the listed values are those the kernel's widget offers (its ``context`` stays at
    ``context``), and the page stores only the default figure, for print and for a page
    without JavaScript. The ranges widen to take in any listed value beyond them.

    Left: where the fastest, a middle and the slowest channel pair turn the unit vector at
    positions 0–15 and over the whole context; middle: the full turns of every pair over the
    context; right: the normalised score of a key equal to the query against the offset, with
    the three pairs' own cosines (:func:`book.figures.rotary.rotary_explorer_figure`).
    ``base`` moves every pair's speed and so the pace at which the score falls; ``dim`` adds
    pairs between the same fastest and slowest speeds; ``context`` sets how far the arcs, the
    turns and the score run.

    Args:
        dims: values of the ``dim`` control (even, at least 4).
        bases: values of the ``base`` control.
        context: the context length: the value of the ``context`` control (at least 2).
        defaults: initial values by control name (default ``dim=128, base=10000`` when
            offered).

    Returns:
        a live :class:`~book.explorers.explorer.Explorer` with controls ``dim``, ``base`` and
        ``context``; the kernel's widget renders ``len(dims)·len(bases)`` figures at most (6
        with the defaults).
    """
    dims = check_values("dims", dims, lambda name, d: check_even(name, d, minimum=4))
    bases = check_values("bases", bases, check_base)
    context = check_int("context", context, minimum=2)
    base_labels = {f"{b:g}": float(b) for b in bases}
    offered = {"dim": tuple(dims), "base": tuple(base_labels.values())}
    chosen = {"dim": 128, "base": 10000.0}
    start = {k: v for k, v in chosen.items() if v in offered[k]}
    start.update(check_defaults(defaults))

    def render(dim: int, base: float, context: int) -> Figure:
        return rotary_explorer_figure(dim, base, context=context)

    ranges = {
        "dim": LiveRange(4, max(256, *dims), step=2),
        "base": LiveRange(min(10.0, *bases), max(1e6, *bases), step=None, log=True, above=1),
        "context": LiveRange(min(16, context), max(32768, context), step=1),
    }
    return explorer(
        render,
        {"dim": dims, "base": base_labels, "context": (context,)},
        defaults=start,
        title="RoPE: how fast the channel pairs turn, and the score of a matching key",
        live="rotary",
        ranges=ranges,
    )


# -- Chapter 11: stretching RoPE to longer contexts (the "ch11" section) ------------------------


def rotary_stretch_explorer(
    methods: Sequence[str] = ("linear", "ntk", "dynamic", "yarn", "llama3"),
    factors: Sequence[float] = (2.0, 4.0, 8.0, 16.0),
    *,
    dim: int = 128,
    base: float = 500000.0,
    original_max_positions: int = 8192,
    defaults: Mapping[str, object] | None = None,
) -> Explorer:
    """Explore which channel pairs each way of stretching RoPE squeezes, and by how much.

    Live in the static book: the reader's browser draws any ``factor`` above 1 (a log slider
    from 1.1 to 64) for each method (the drawer ``rotary_stretch`` of
    ``book/ext/twin_static/drawers/``, whose frequencies are posenc's JavaScript twin's
    ``scaledRotaryFrequencies``); the listed factors are those the kernel's widget offers, and
    the page stores only the default figure, for print and for a page without JavaScript. The
    slider widens to take in any listed factor beyond it.

    Each frame is :func:`book.figures.rotary.rotary_stretch_explorer_figure`: the
    wavelength of every pair under plain RoPE and under the chosen method, against the trained
    length ``L_0`` and the target ``s·L_0``, and the per-pair squeeze ``θ_i/θ'_i``.

    Args:
        methods: values of the ``method`` control (``"linear"``, ``"ntk"``, ``"dynamic"``,
            ``"yarn"``, ``"llama3"``).
        factors: values of the ``factor`` control (each finite, ``> 1``).
        dim, base, original_max_positions: the head width, base and trained length of every
            frame (Llama 3.1's by default: 128, 500000, 8192); the page hands them to the
            drawer (``live_data``).
        defaults: initial values by control name (default ``method="yarn", factor=8`` when
            offered).

    Returns:
        a live :class:`~book.explorers.explorer.Explorer` with controls ``method`` and
        ``factor``; the kernel's widget renders ``len(methods)·len(factors)`` figures at most
        (20 with the defaults).
    """
    choices = ("linear", "ntk", "dynamic", "yarn", "llama3")
    methods = check_values("methods", methods, lambda name, m: check_choice(name, m, choices))
    factors = check_values(
        "factors", factors, lambda name, f: check_real(name, f, minimum=1, inclusive=False)
    )
    dim = check_even("dim", dim, minimum=4)
    base = check_base("base", base)
    original_max_positions = check_int("original_max_positions", original_max_positions)
    factor_labels = {f"{f:g}": float(f) for f in factors}
    offered = {"method": tuple(methods), "factor": tuple(factor_labels.values())}
    chosen: dict[str, object] = {"method": "yarn", "factor": 8.0}
    start = {k: v for k, v in chosen.items() if v in offered[k]}
    start.update(check_defaults(defaults))

    def render(method: str, factor: float) -> Figure:
        return rotary_stretch_explorer_figure(
            method, factor, dim=dim, base=base, original_max_positions=original_max_positions
        )

    ranges = {
        "factor": LiveRange(min(1.1, *factors), max(64.0, *factors), step=None, log=True, above=1)
    }
    return explorer(
        render,
        {"method": methods, "factor": factor_labels},
        defaults=start,
        title="Stretching RoPE: which pairs each method squeezes, against the trained length",
        live="rotary_stretch",
        ranges=ranges,
        live_data={
            "dim": dim,
            "base": float(base),
            "original_max_positions": original_max_positions,
        },
    )
