"""Figures for the length-generalisation experiment (chapter 10).

They draw a :class:`posenc.toy.LengthResults` (from :func:`posenc.toy.length_generalisation`):
accuracy against test length, one line per encoding, and accuracy position by position, which
shows *where* in a long sequence a model starts to fail. Every function returns a new
``Figure``; nothing touches pyplot.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import NullLocator

from .._checks import check_int
from ..toy import LengthResults
from ._base import new_figure, to_numpy

__all__ = [
    "encoding_detail_figure",
    "encoding_style",
    "length_accuracy_figure",
    "position_accuracy_figure",
]

# absolute encodings dashed, relative ones solid, no encoding dotted grey
_STYLES: dict[str, dict[str, Any]] = {
    "none": {"color": "0.45", "ls": ":", "marker": "o"},
    "sinusoidal": {"color": "tab:blue", "ls": "--", "marker": "s"},
    "learned": {"color": "tab:purple", "ls": "--", "marker": "^"},
    "shaw": {"color": "tab:green", "ls": "-", "marker": "D"},
    "t5": {"color": "tab:olive", "ls": "-", "marker": "v"},
    "alibi": {"color": "tab:orange", "ls": "-", "marker": "P"},
    "rope": {"color": "tab:red", "ls": "-", "marker": "o"},
}
_OTHER_COLOURS = ("tab:brown", "tab:pink", "tab:cyan", "tab:gray", "k")
_SEEN = "#e8f1e4"  # background of the positions / lengths seen in training


def encoding_style(name: str, index: int = 0) -> dict[str, Any]:
    """The line style of an encoding in every figure of the chapter.

    Absolute encodings are dashed, relative ones solid, ``"none"`` is a dotted grey line;
    a label that is not one of :data:`posenc.toy.ENCODINGS` gets a colour by its ``index``.

    Args:
        name: the encoding's label.
        index: its position among the labels (used for unknown labels only).

    Returns:
        ``color``, ``ls`` and ``marker`` keyword arguments for ``Axes.plot``.
    """
    if name in _STYLES:
        return dict(_STYLES[name])
    return {"color": _OTHER_COLOURS[index % len(_OTHER_COLOURS)], "ls": "-", "marker": "o"}


def _check_results(results: object) -> LengthResults:
    if not isinstance(results, LengthResults):
        raise TypeError(f"results must be a posenc.toy.LengthResults, got {type(results).__name__}")
    return results


def _length_label(n: int, top: int) -> str:
    if n == top:
        return f"{n}\n(L)"
    if n % top == 0:
        return f"{n}\n({n // top}L)"
    return str(n)


def length_accuracy_figure(results: LengthResults, *, title: str | None = None) -> Figure:
    """Accuracy against test length, one line per encoding.

    .. math::

        n \\mapsto \\operatorname{acc}_e(n), \\qquad n \\in \\text{eval\\_lengths}

    The x axis is logarithmic (``L, 2L, 4L`` equally spaced); the lengths seen in training
    are shaded, chance (``1/V``) is a dotted line. Lines are nudged sideways a little so that
    encodings with the same accuracy stay visible. A length at which a model cannot run
    (a learned table beyond its rows) is marked with a cross on the x axis.

    Args:
        results: from :func:`posenc.toy.length_generalisation`.
        title: the axes title (default: the task and training lengths).

    Returns:
        a new ``Figure`` with one axes; its lines carry the encodings as labels.
    """
    results = _check_results(results)
    lo, hi = results.train_lengths
    lengths = np.array(results.eval_lengths, dtype=float)
    fig = new_figure(7.0, 3.6)
    ax = fig.add_subplot()
    ax.set_xscale("log", base=2)
    left, right = min(hi, lengths.min()) / 2**0.4, lengths.max() * 2**0.4
    ax.axvspan(left, hi * 2**0.2, color=_SEEN, zorder=0)  # n <= L: lengths seen in training
    ax.text(left * 2**0.03, 0.12, "trained:\nn ≤ L", ha="left", va="bottom", fontsize=8, color="0.3")
    ax.axhline(results.chance, color="k", ls=":", lw=1.0, zorder=1)
    ax.text(right / 1.03, results.chance + 0.015, "chance", ha="right", va="bottom", fontsize=8)
    rows = results.rows()
    spread = 0.035  # the nudge, in octaves, between neighbouring lines
    for i, (name, accs) in enumerate(rows):
        style = encoding_style(name, i)
        nudge = 2.0 ** (spread * (i - (len(rows) - 1) / 2))
        y = np.array(accs, dtype=float)
        ax.plot(lengths * nudge, y, label=name, lw=1.8, ms=6, clip_on=False, zorder=3, **style)
        missing = np.isnan(y)
        if missing.any():
            ax.plot(lengths[missing] * nudge, np.zeros(int(missing.sum())), marker="x", ls="none",
                    color=style["color"], ms=8, mew=2, clip_on=False, zorder=4)
            first = lengths[missing][0] * nudge
            ax.annotate(f"{name}: cannot run", (first, 0.0), xytext=(0, 22), textcoords="offset points",
                        ha="center", fontsize=8, color=style["color"],
                        arrowprops={"arrowstyle": "-", "color": style["color"], "lw": 0.8})
    ax.set_xticks(lengths, [_length_label(int(n), hi) for n in lengths])
    ax.minorticks_off()
    ax.set_xlim(left, right)
    ax.set_ylim(0.0, 1.02)
    ax.set_xlabel("test length n")
    ax.set_ylabel("accuracy")
    ax.set_title(title if title is not None else
                 f"task '{results.task}', trained on lengths {lo}–{hi}", fontsize=10)
    ax.legend(loc="upper left", bbox_to_anchor=(1.08, 1.0), fontsize=9, frameon=False)
    return fig


def _position_axes(
    ax: Axes, results: LengthResults, encoding: str, length: int, *, others: bool, index: int
) -> None:
    """Accuracy per position of ``encoding`` at ``length`` on ``ax``."""
    top = results.train_lengths[1]
    positions = np.arange(length)
    ax.axvspan(-0.5, min(top, length) - 0.5, color=_SEEN, zorder=0)
    ax.axhline(results.chance, color="k", ls=":", lw=1.0, zorder=1)
    if others:
        for name in results.encodings:
            if name != encoding:
                ax.plot(positions, to_numpy(results.position_accuracy[name][length]), color="0.8",
                        lw=1.0, zorder=2)
    style = encoding_style(encoding, index)
    acc = to_numpy(results.position_accuracy[encoding][length])  # [n]
    ax.plot(positions, acc, color=style["color"], ls="-", lw=1.6, zorder=3)
    if np.isnan(acc).all():
        ax.text(0.5, 0.5, f"cannot run at n = {length}\n(no table row beyond {results.train_lengths[1]})",
                transform=ax.transAxes, ha="center", va="center", fontsize=9)
    ax.set_xlim(-0.5, length - 0.5)
    ax.set_ylim(0.0, 1.05)


def position_accuracy_figure(
    results: LengthResults,
    length: int | None = None,
    encodings: Sequence[str] | None = None,
    *,
    columns: int = 4,
) -> Figure:
    """Accuracy at every position of a test sequence, one small panel per encoding.

    .. math::

        p \\mapsto a_p = \\frac{1}{|B_p|}\\sum_{b \\in B_p}
        \\big[\\arg\\max f(x_b)_p = y_{b,p}\\big]

    (:func:`posenc.toy.toy_position_accuracy`). The shaded part of each panel is the
    positions ``0..L−1`` that training sequences reach; the dotted line is chance.

    Args:
        results: from :func:`posenc.toy.length_generalisation`.
        length: the test length (default: the longest one).
        encodings: which encodings, in which order (default: all).
        columns: panels per row.

    Returns:
        a new ``Figure`` with one axes per encoding (titled with its name and accuracy).
    """
    results = _check_results(results)
    length = max(results.eval_lengths) if length is None else check_int("length", length)
    if length not in results.eval_lengths:
        raise ValueError(f"length must be one of the eval_lengths {results.eval_lengths}, got {length}")
    names = list(results.encodings if encodings is None else encodings)
    unknown = [e for e in names if e not in results.accuracy]
    if unknown or not names:
        raise ValueError(f"encodings must be a non-empty selection of {results.encodings}, got {names}")
    columns = min(check_int("columns", columns), len(names))
    rows = math.ceil(len(names) / columns)
    fig = new_figure(1.9 * columns + 0.4, 1.55 * rows + 0.5)
    axes = fig.subplots(rows, columns, sharex=True, sharey=True, squeeze=False)
    for i, ax in enumerate(axes.flat):
        if i >= len(names):
            ax.set_visible(False)
            continue
        name = names[i]
        _position_axes(ax, results, name, length, others=False, index=results.encodings.index(name))
        acc = results.accuracy[name][length]
        shown = "cannot run" if math.isnan(acc) else f"accuracy {acc:.2f}"
        ax.set_title(f"{name}: {shown}", fontsize=9)
        if i % columns == 0:
            ax.set_ylabel("accuracy")
        if i // columns == rows - 1 or i + columns >= len(names):
            ax.set_xlabel("position p")
            ax.xaxis.set_tick_params(labelbottom=True)
    fig.suptitle(f"accuracy per position at n = {length} (shaded: positions seen in training)",
                 fontsize=10)
    return fig


def encoding_detail_figure(results: LengthResults, encoding: str, length: int) -> Figure:
    """One encoding in detail: accuracy per position at ``length``, and its training loss.

    Left: :func:`posenc.toy.toy_position_accuracy` of ``encoding`` at ``length`` (colour)
    over the other encodings (grey), positions seen in training shaded. Right: the training
    loss of every encoding, ``encoding`` in colour. Drawn without a layout engine, so that an
    explorer can redraw it quickly.

    Args:
        results: from :func:`posenc.toy.length_generalisation`.
        encoding: one of ``results.encodings``.
        length: one of ``results.eval_lengths``.

    Returns:
        a new ``Figure`` with two axes.
    """
    results = _check_results(results)
    if encoding not in results.accuracy:
        raise ValueError(f"encoding must be one of {results.encodings}, got {encoding!r}")
    length = check_int("length", length)
    if length not in results.eval_lengths:
        raise ValueError(f"length must be one of the eval_lengths {results.eval_lengths}, got {length}")
    index = results.encodings.index(encoding)
    fig = new_figure(8.0, 3.0, layout=None)
    left = fig.add_axes((0.07, 0.16, 0.55, 0.72))
    right = fig.add_axes((0.71, 0.16, 0.27, 0.72))
    _position_axes(left, results, encoding, length, others=True, index=index)
    acc = results.accuracy[encoding][length]
    shown = "cannot run" if math.isnan(acc) else f"accuracy {acc:.2f}"
    left.set_title(f"{encoding} at n = {length}: {shown}  (grey: the others)", fontsize=10, y=1.0)
    left.set_xlabel("position p")
    left.set_ylabel("accuracy at position p")
    for name in results.encodings:
        if name != encoding:
            right.plot(results.losses[name], color="0.8", lw=0.8)
    right.plot(results.losses[encoding], color=encoding_style(encoding, index)["color"], lw=1.2)
    right.set_yscale("log")
    right.set_ylim(1e-4, 10.0)
    # plain labels, no minor ticks: mathtext labels would triple the drawing time
    right.yaxis.set_minor_locator(NullLocator())
    right.set_yticks([1e-4, 1e-2, 1.0], ["0.0001", "0.01", "1"])
    right.set_xticks([0, len(results.losses[encoding])])
    # few tick labels: drawing text is most of the time of a redraw
    left.set_xticks(range(0, length + 1, max(1, length // 4)))
    left.set_yticks([0.0, 0.5, 1.0])
    right.set_title("training loss", fontsize=10, y=1.0)
    right.set_xlabel("step")
    return fig
