"""Figures for the length-generalisation experiment (chapter 10).

They draw a :class:`book.toy.LengthResults` (from :func:`book.toy.length_generalisation`):
accuracy against test length, one line per encoding, and accuracy position by position, which
shows *where* in a long sequence a model starts to fail. Every function returns a new
``Figure``; nothing touches pyplot.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import torch
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import NullLocator
from torch import Tensor

from book._checks import check_text
from book.experiments.results import LengthResults
from book.figures._base import (
    CSS_DPI,
    SLIDE_BOX,
    fit_column,
    new_figure,
    panel_grid,
    to_numpy,
    with_slide_version,
)
from book.toy.model import TinyTransformer
from book.toy.probes import toy_rotary_pair_logits
from posenc._checks import check_bool, check_int, check_tensor

__all__ = [
    "encoding_detail_figure",
    "encoding_style",
    "length_accuracy_figure",
    "position_accuracy_figure",
    "rotary_pair_figure",
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
    "swin_v2": {"color": "tab:cyan", "ls": "-", "marker": "*"},
    "rope_grid": {"color": "tab:brown", "ls": "-", "marker": "X"},
}
_OTHER_COLOURS = ("tab:brown", "tab:pink", "tab:cyan", "tab:gray", "k")
_SEEN = "#e8f1e4"  # background of the positions / lengths seen in training
_SLIDE_FONT = 12.5
"""The smallest text of a slide layout, in points: a layout that fills the deck's box at 1×
needs 11.9 (``SLIDE_TEXT_PX``, 24.75 px on a 1080p projector); 12.5 leaves room (26 px)."""


def encoding_style(name: str, index: int = 0) -> dict[str, Any]:
    """The line style of an encoding in every figure of the chapter.

    Absolute encodings are dashed, relative ones solid, ``"none"`` is a dotted grey line;
    a label that is not a catalogue key with a toy form (:func:`book.catalogue.toy_encodings`)
    gets a colour by its ``index``.

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
        raise TypeError(f"results must be a book.toy.LengthResults, got {type(results).__name__}")
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
    are shaded, chance (``1/V``) is a dotted line and, when ``results.guess`` holds it, the
    guess that ignores order (:func:`book.toy.frequency_guess_accuracy`) a dash-dotted
    grey line, last in the legend. Lines are nudged sideways so that encodings with the
    same accuracy stay visible. A length at which a model cannot run (a learned table beyond
    its rows) is marked in a band of its own below the axis, labelled "cannot run", never at
    accuracy 0.

    Args:
        results: from :func:`book.toy.length_generalisation`.
        title: the axes title (default: the task and training lengths).

    Returns:
        a new ``Figure`` with one axes; its lines carry the encodings as labels.
    """
    results = _check_results(results)
    title = check_text("title", title, optional=True)
    lo, hi = results.train_lengths
    lengths = np.array(results.eval_lengths, dtype=float)
    fig = new_figure(7.0, 3.9)
    ax = fig.add_subplot()
    ax.set_xscale("log", base=2)
    left, right = min(hi, lengths.min()) / 2**0.45, lengths.max() * 2**0.45
    band = (-0.17, -0.05)  # the "cannot run" band, below accuracy 0
    ax.axvspan(left, hi * 2**0.25, color=_SEEN, zorder=0)  # n <= L: seen in training
    ax.text(
        left * 2**0.03, 0.12, "trained:\nn ≤ L", ha="left", va="bottom", fontsize=8, color="0.3"
    )
    ax.axhline(results.chance, color="k", ls=":", lw=1.0, zorder=1)
    ax.text(right / 1.03, results.chance + 0.015, "chance", ha="right", va="bottom", fontsize=8)
    guess = results.guess_accuracy()
    if guess:
        xs = np.array([n for n in results.eval_lengths if n in guess], dtype=float)
        ys = np.array([guess[int(n)] for n in xs])
        ax.plot(xs, ys, color="0.55", ls="-.", lw=1.2, zorder=2, label="guess without order")
    rows = results.rows()
    spread = 0.07  # the nudge, in octaves, between neighbouring lines: a marker apart
    missing_any = False
    for i, (name, accs) in enumerate(rows):
        style = encoding_style(name, i)
        nudge = 2.0 ** (spread * (i - (len(rows) - 1) / 2))
        y = np.array(accs, dtype=float)
        ax.plot(
            lengths * nudge,
            y,
            label=name,
            lw=1.6,
            ms=5.5,
            mfc="white",
            mew=1.4,
            clip_on=False,
            zorder=3 + i * 0.01,
            **style,
        )
        missing = np.isnan(y)
        if missing.any():
            missing_any = True
            inside = np.full(int(missing.sum()), sum(band) / 2)  # the middle of the band
            ax.plot(
                lengths[missing] * nudge,
                inside,
                marker="x",
                ls="none",
                color=style["color"],
                ms=7,
                mew=2,
                clip_on=False,
                zorder=4,
            )
    if missing_any:
        ax.axhspan(*band, color="0.93", zorder=0)
        ax.text(
            left * 2**0.03,
            sum(band) / 2,
            "cannot run ×",
            ha="left",
            va="center",
            fontsize=8,
            color="0.25",
        )
    ax.axhline(0.0, color="0.6", lw=0.8, zorder=1)
    ax.set_xticks(lengths, [_length_label(int(n), hi) for n in lengths])
    ax.minorticks_off()
    ax.set_xlim(left, right)
    ax.set_ylim(band[0] if missing_any else 0.0, 1.03)
    ax.set_yticks([0.0, 0.25, 0.5, 0.75, 1.0])
    ax.spines["bottom"].set_visible(not missing_any)
    ax.set_xlabel("test length n")
    ax.set_ylabel("accuracy")
    ax.set_title(
        title if title is not None else f"task '{results.task}', trained on lengths {lo}–{hi}",
        fontsize=10,
    )
    handles, labels = ax.get_legend_handles_labels()
    if guess:  # the baseline last, after the encodings
        handles.append(handles.pop(labels.index("guess without order")))
        labels.append(labels.pop(labels.index("guess without order")))
    ax.legend(
        handles,
        labels,
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        fontsize=9,
        frameon=False,
        title="encoding",
        title_fontsize=9,
    )
    return fit_column(fig)


def _multiples(ax: Axes, top: int, length: int) -> None:
    """Dotted vertical lines at ``2L, 3L, …`` (``L`` = ``top``) and ticks ``0, L, 2L, …``.

    Position ``mL`` is the first position beyond ``m`` training lengths.
    """
    for m in range(2, length // top + 1):
        if m * top >= length:
            break
        ax.axvline(m * top, color="0.55", ls=(0, (1, 2)), lw=0.8, zorder=1)
    if length >= 2 * top:
        ticks = list(range(0, length, top))
        ax.set_xticks(ticks, ["0"] + [("L" if m == 1 else f"{m}L") for m in range(1, len(ticks))])


def _position_axes(
    ax: Axes, results: LengthResults, encoding: str, length: int, *, others: bool, index: int
) -> None:
    """Accuracy per position of ``encoding`` at ``length`` on ``ax``.

    With ``others``, the other encodings are drawn faintly in their own colours; for
    ``"none"`` the guess without order is drawn too, when ``results`` holds it.
    """
    top = results.train_lengths[1]
    positions = np.arange(length)
    ax.axvspan(-0.5, min(top, length) - 0.5, color=_SEEN, zorder=0)
    _multiples(ax, top, length)
    ax.axhline(results.chance, color="k", ls=":", lw=1.0, zorder=1)
    if others:
        for i, name in enumerate(results.encodings):
            if name != encoding:
                ax.plot(
                    positions,
                    to_numpy(results.position_accuracy[name][length]),
                    color=encoding_style(name, i)["color"],
                    alpha=0.35,
                    lw=1.0,
                    zorder=2,
                )
    if encoding == "none" and length in results.guess:
        ax.plot(
            positions,
            to_numpy(results.guess[length]),
            color="0.35",
            ls="-.",
            lw=1.1,
            zorder=2,
            label="guess without order",
        )
    style = encoding_style(encoding, index)
    acc = to_numpy(results.position_accuracy[encoding][length])  # [n]
    ax.plot(positions, acc, color=style["color"], ls="-", lw=1.8, zorder=3)
    if np.isnan(acc).all():
        ax.text(
            0.5,
            0.5,
            f"cannot run\nat n = {length}\n(no table row\nbeyond {results.train_lengths[1]})",
            transform=ax.transAxes,
            ha="center",
            va="center",
            fontsize=9,
        )
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

    (:func:`book.toy.toy_position_accuracy`). The shaded part of each panel is the
    positions ``0..L−1`` that training sequences reach; the dotted line is chance.

    Args:
        results: from :func:`book.toy.length_generalisation`.
        length: the test length (default: the longest one).
        encodings: which encodings, in which order (default: all).
        columns: panels per row.

    Returns:
        a new ``Figure`` with one axes per encoding (titled with its name and accuracy).
    """
    results = _check_results(results)
    length = max(results.eval_lengths) if length is None else check_int("length", length)
    if length not in results.eval_lengths:
        raise ValueError(
            f"length must be one of the eval_lengths {results.eval_lengths}, got {length}"
        )
    names = list(results.encodings if encodings is None else encodings)
    unknown = [e for e in names if e not in results.accuracy]
    if unknown or not names:
        raise ValueError(
            f"encodings must be a non-empty selection of {results.encodings}, got {names}"
        )
    columns = min(check_int("columns", columns), len(names))
    rows = math.ceil(len(names) / columns)
    fig, axes = panel_grid(len(names), columns, (1.9, 1.7))
    for i, (name, ax) in enumerate(zip(names, axes)):
        _position_axes(ax, results, name, length, others=False, index=results.encodings.index(name))
        acc = results.accuracy[name][length]
        shown = "cannot run" if math.isnan(acc) else f"accuracy {acc:.2f}"
        ax.set_title(f"{name}:\n{shown}", fontsize=9)
        if name == "none" and length in results.guess:
            ax.text(
                0.97,
                0.55,
                "dash-dot:\nguess without\norder",
                transform=ax.transAxes,
                ha="right",
                va="bottom",
                fontsize=7,
                color="0.3",
            )
        if i % columns == 0:
            ax.set_ylabel("accuracy")
        if i // columns == rows - 1 or i + columns >= len(names):
            ax.set_xlabel(f"position p (L = {results.train_lengths[1]})")
            ax.xaxis.set_tick_params(labelbottom=True)
    top = results.train_lengths[1]
    fig.suptitle(
        f"accuracy per position at n = {length} "
        f"(shaded: positions 0 to L − 1 = {top - 1}, seen in training)",
        fontsize=10,
    )
    return fit_column(fig, max_width=6.6)  # labels reach past the axes


def encoding_detail_figure(results: LengthResults, encoding: str, length: int) -> Figure:
    """One encoding in detail: accuracy per position at ``length``, and its training loss.

    Left: :func:`book.toy.toy_position_accuracy` of ``encoding`` at ``length`` (bold) over
    the other encodings (faint, in their own colours), positions seen in training shaded,
    multiples of ``L`` dotted; for ``"none"``, the guess without order (dash-dot). Right:
    the training loss of every encoding, ``encoding`` bold (a model that met the stopping rule
    has a shorter curve), and the rule's threshold dotted when there is one. A legend names
    every colour.
    Drawn without a layout engine, so that an explorer can redraw it quickly.

    Args:
        results: from :func:`book.toy.length_generalisation`.
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
        raise ValueError(
            f"length must be one of the eval_lengths {results.eval_lengths}, got {length}"
        )
    index = results.encodings.index(encoding)
    fig = new_figure(6.8, 3.2, layout=None)
    left = fig.add_axes((0.1, 0.16, 0.46, 0.66))
    right = fig.add_axes((0.65, 0.16, 0.16, 0.66))
    _position_axes(left, results, encoding, length, others=True, index=index)
    acc = results.accuracy[encoding][length]
    shown = "cannot run" if math.isnan(acc) else f"accuracy {acc:.2f}"
    left.set_title(f"{encoding} at n = {length}: {shown}\n(faint: the others)", fontsize=9, y=1.0)
    left.set_xlabel(f"position p (L = {results.train_lengths[1]})")
    left.set_ylabel("accuracy at position p")
    handles = []
    for i, name in enumerate(results.encodings):
        chosen = name == encoding
        (line,) = right.plot(
            results.losses[name],
            color=encoding_style(name, i)["color"],
            lw=1.6 if chosen else 0.9,
            alpha=1.0 if chosen else 0.45,
            zorder=3 if chosen else 2,
            label=name,
        )
        handles.append(line)
    if encoding == "none" and length in results.guess:
        handles.append(Line2D([], [], color="0.35", ls="-.", lw=1.1, label="guess without\norder"))
    fig.legend(
        handles=handles,
        loc="center left",
        bbox_to_anchor=(0.82, 0.5),
        fontsize=8,
        frameon=False,
        handlelength=1.5,
    )
    right.set_yscale("log")
    right.set_ylim(1e-4, 10.0)
    # plain labels, no minor ticks: mathtext labels would triple the drawing time
    right.yaxis.set_minor_locator(NullLocator())
    right.set_yticks([1e-4, 1e-2, 1.0], ["0.0001", "0.01", "1"])
    if results.stop_loss is not None:  # the threshold of the stopping rule
        right.axhline(results.stop_loss, color="0.5", ls=":", lw=0.9, zorder=1)
    right.set_xticks([0, max(len(losses) for losses in results.losses.values())])
    # few tick labels: drawing text is most of the time of a redraw
    if length < 2 * results.train_lengths[1]:
        left.set_xticks(range(0, length + 1, max(1, length // 4)))
    left.set_yticks([0.0, 0.5, 1.0])
    right.set_title("training\nloss", fontsize=9, y=1.0)
    right.set_xlabel("step")
    return fit_column(fig)


def rotary_pair_figure(
    model: TinyTransformer,
    tokens: Tensor,
    *,
    query: int | None = None,
    heads: Sequence[int] | None = None,
    train_length: int | None = None,
    layer: int = 0,
    title: str | None = None,
    slide: bool = False,
) -> Figure:
    """What each channel pair of a RoPE model adds to the logits of one query, by offset.

    .. math::

        r \\mapsto \\overline{\\ell^{(c)}_{h,\\,i,\\,i-r}}, \\qquad r = 0, \\dots, i

    the parts of :func:`book.toy.toy_rotary_pair_logits` for query ``i`` and key
    ``i − r``, averaged over the sequences of ``tokens``, one panel per head: the fastest pair
    (faint blue), the second (bold red, the one that tells near from far), the slower ones
    together (grey) and the sum, the logit itself (black). The dot marks the offset the
    logit prefers within the training range, the dashed red line the second pair's value
    there; offsets seen in training are shaded. The page's figure carries a slide layout
    (:func:`book.figures._base.with_slide_version`): up to four heads in a row, in larger type.

    Args:
        model: a :class:`book.toy.TinyTransformer` with a
            :class:`posenc.rotary.RotaryEmbedding` (``toy_model("rope")``).
        tokens: ``[b, n]`` test tokens (average over ``b``).
        query: the query position ``i`` (default: the last, ``n − 1``).
        heads: which heads (default: all).
        train_length: ``L``: offsets ``0..L−1`` are shaded (default: none).
        layer: which layer.
        title: the figure title (default: the layer, query and base).
        slide: draw the slide layout.

    Returns:
        a new ``Figure`` with one axes per head.
    """
    slide = check_bool("slide", slide)
    check_tensor("tokens", tokens, ndim=2)
    if tokens.is_floating_point() or tokens.is_complex() or tokens.dtype == torch.bool:
        raise TypeError(f"tokens must be an integer tensor, got dtype {tokens.dtype}")
    if heads is not None:
        if isinstance(heads, (str, bytes)) or not isinstance(heads, Iterable):
            raise TypeError(
                f"heads must be a sequence of head indices, got {type(heads).__name__} {heads!r}"
            )
        heads = [check_int(f"heads[{i}]", h, minimum=0) for i, h in enumerate(heads)]
    if train_length is not None:
        train_length = check_int("train_length", train_length)
    title = check_text("title", title, optional=True)
    parts = toy_rotary_pair_logits(model, tokens, layer=layer)  # [b, h, P, n, n]
    n = parts.shape[-1]
    query = n - 1 if query is None else check_int("query", query, minimum=0)
    if query >= n:
        raise ValueError(f"query must be below the sequence length {n}, got {query}")
    chosen = list(range(model.num_heads)) if heads is None else heads
    if not chosen or max(chosen) >= model.num_heads:
        raise ValueError(
            f"heads must be a non-empty selection of 0..{model.num_heads - 1}, got {chosen}"
        )
    by_offset = to_numpy(parts[:, :, :, query, : query + 1].mean(0)).copy()[..., ::-1]  # [h, P, r]
    offsets = np.arange(query + 1)
    rotary = model.rotary
    thetas = rotary.base ** (-2.0 * np.arange(by_offset.shape[1]) / rotary.dim)  # [P]
    columns = min(4 if slide else 2, len(chosen))
    rows = math.ceil(len(chosen) / columns)
    if slide:
        fig, axes = panel_grid(len(chosen), columns, (10.6 / columns, 2.05), margin=(0.9, 1.7))
    else:
        fig, axes = panel_grid(len(chosen), columns, (4.0, 2.3), margin=(0.3, 0.9))
    for i, (head, ax) in enumerate(zip(chosen, axes)):
        if train_length is not None:
            ax.axvspan(-0.5, train_length - 0.5, color=_SEEN, zorder=0)
        ax.axhline(0.0, color="0.7", lw=0.8, zorder=1)
        curves = by_offset[head]  # [P, r]
        total = curves.sum(0)  # [r]
        ax.plot(
            offsets,
            curves[0],
            color="tab:blue",
            lw=0.9,
            ls=":",
            alpha=0.7,
            zorder=2,
            label=f"pair 0 ({thetas[0]:.3g} rad per position)",
        )
        if len(curves) > 2:
            slower = ", ".join(f"{t:.3g}" for t in thetas[2:])
            ax.plot(
                offsets,
                curves[2:].sum(0),
                color="0.6",
                lw=0.9,
                ls="-.",
                zorder=2,
                label=f"pairs 2+ ({slower} rad per position)",
            )
        ax.plot(offsets, total, color="k", lw=1.1, zorder=3, label="sum: the logit")
        if len(curves) > 1:
            ax.plot(
                offsets,
                curves[1],
                color="tab:red",
                lw=2.0,
                zorder=4,
                label=f"pair 1 ({thetas[1]:.3g} rad per position)",
            )
            limit = min(train_length, query + 1) if train_length is not None else query + 1
            best = int(np.argmax(total[:limit]))  # the offset the head prefers within training
            ax.axhline(
                curves[1, best],
                color="tab:red",
                ls="--",
                lw=0.9,
                zorder=3,
                label="pair 1 at the preferred offset (•)",
            )
            ax.plot([best], [total[best]], marker="o", color="k", ms=4, zorder=5)
        ax.set_title(f"head {head}", fontsize=9)
        if i % columns == 0:
            ax.set_ylabel("part of the logit")
        if i // columns == rows - 1 or i + columns >= len(chosen):
            ax.set_xlabel("offset i − j")
            ax.xaxis.set_tick_params(labelbottom=True)
        ax.set_xlim(-0.5, query + 0.5)
    handles, labels = axes[0].get_legend_handles_labels()
    ncol = 3 if slide else 2
    fig.legend(handles, labels, loc="outside lower center", ncol=ncol, fontsize=8, frameon=False)
    shaded = "" if train_length is None else "; shaded: offsets seen in training"
    fig.suptitle(
        title
        if title is not None
        else f"layer {layer}, query {query}: each pair's part of the logit, by offset\n"
        f"(RoPE base {rotary.base:g}{shaded})",
        fontsize=10,
    )
    if slide:
        return fit_column(fig, max_width=SLIDE_BOX[0] / CSS_DPI, min_size=_SLIDE_FONT)
    options = {"query": query, "heads": heads, "train_length": train_length}
    options |= {"layer": layer, "title": title}
    return with_slide_version(
        fit_column(fig), lambda: rotary_pair_figure(model, tokens, **options, slide=True)
    )
