"""Figures for ALiBi, attention with linear biases (chapter 9).

The reach of each head (how many of the nearest keys hold most of its attention when only
the bias speaks) and the explorer's figure (bias and attention of one query, causal or
symmetric, for a chosen number of heads).

Every function returns a new ``Figure``; nothing touches pyplot.
"""

from __future__ import annotations

import functools
import math
import pickle

import numpy as np
import torch
from matplotlib import colormaps
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.ticker import NullLocator

from book.demos.alibi import alibi_span
from book.figures._base import fit_column, new_figure, to_numpy
from posenc._checks import check_bool, check_int
from posenc.alibi import alibi_bias, alibi_slopes
from posenc.attention import attention_weights, causal_mask

__all__ = ["alibi_explorer_figure", "alibi_span_figure"]


def _slope_label(slope: float) -> str:
    """A slope as a power of two in plain text (no mathtext parse on redraws): ``2^-3``, ``2^-0.5``."""
    return f"2^{round(math.log2(slope), 2):g}"


def _head_colours(num_heads: int) -> np.ndarray:
    """One colour per head, steepest (first power-of-two head) dark, flattest light."""
    return colormaps["viridis"](np.linspace(0.0, 0.9, num_heads))


def _content_free_weights(num_heads: int, n: int, query: int, *, causal: bool) -> torch.Tensor:
    """Attention of query ``query`` over ``n`` keys when every content logit is equal.

    Only ALiBi's bias tells the keys apart: the softmax of ``−m_h D`` over the keys the
    query may see. Returns float64 ``[h, n]``.
    """
    zeros_q = torch.zeros(num_heads, 1, 1, dtype=torch.float64)  # [h, 1, 1]
    zeros_k = torch.zeros(num_heads, n, 1, dtype=torch.float64)  # [h, n, 1]: q·k = 0 for every key
    bias = alibi_bias(
        1, n, num_heads, causal=causal, query_offset=query, dtype=torch.float64
    )  # [h, 1, n]
    mask = causal_mask(1, n, query_offset=query) if causal else None  # [1, n]
    return attention_weights(zeros_q, zeros_k, bias=bias, mask=mask)[:, 0]  # [h, n]


def alibi_span_figure(num_heads: int = 8, n: int = 1024, *, mass: float = 0.9) -> Figure:
    """Each head's reach: its bias against the distance, and the attention it leaves.

    Left: the bias ``−m_h r`` of each head against the distance ``r`` back from the query
    (straight lines of slope ``−m_h``). Right: the attention weight of the key ``r`` back for
    the last query of ``n`` tokens when every content logit is equal, on a log distance
    axis; a dot marks each head's span (:func:`book.demos.alibi.alibi_span`), the number of
    nearest keys holding ``mass`` of the weight.

    Args:
        num_heads: ``h``.
        n: the number of keys the last query sees.
        mass: the share of the attention the spans cover.

    Returns:
        a Figure with two axes; each has one line per head (in head order).
    """
    h = check_int("num_heads", num_heads)
    n = check_int("n", n, minimum=2)
    slopes = alibi_slopes(h).numpy()  # [h]
    spans = alibi_span(h, n, mass=mass).numpy()  # [h]
    r = np.arange(n)  # distance back from the query
    # the last query's weights, nearest key first: the softmax of −m·r over r = 0..n-1
    last = to_numpy(_content_free_weights(h, n, n - 1, causal=True).flip(-1))  # [h, n]
    colours = _head_colours(h)
    fig = new_figure(9.6, 4.7)  # the panels' height, and the legend below them
    left, right = fig.subplots(1, 2)
    near = r[: min(n, 65)]
    for head in range(h):
        label = f"head {head + 1}: m = {_slope_label(float(slopes[head]))}, span {spans[head]}"
        left.plot(near, -slopes[head] * near, color=colours[head], lw=1.4, label=label)
        right.plot(r[1:], last[head, 1:], color=colours[head], lw=1.4)
        right.plot(spans[head] - 1, last[head, spans[head] - 1], "o", ms=4, color=colours[head])
    left.set_xlim(0, near[-1])
    left.set_xlabel("distance back from the query, i − j")
    left.set_ylabel("bias added to the logit")
    left.set_title("ALiBi bias:\none straight line per head", fontsize=10)
    # below both panels (the colours are the same in both), where it hides no line: inside the
    # left panel only the triangle under head 1's line is free, too small for eight entries
    fig.legend(
        *left.get_legend_handles_labels(),
        loc="outside lower center",
        ncol=min(h, 2),
        fontsize=8,
        frameon=False,
    )
    right.set_xscale("log")
    right.set_yscale("log")
    # decades only: dozens of minor log ticks would make the figure several times slower to draw
    right.xaxis.set_minor_locator(NullLocator())
    right.yaxis.set_minor_locator(NullLocator())
    right.set_xlim(1, n)
    right.set_ylim(max(1e-6, float(last[:, 1:].min())), 1.0)
    right.set_xlabel("distance back from the query (log scale)")
    right.set_ylabel("attention weight")
    right.set_title(f"bias alone, last of {n} tokens:\ndots = {mass:.0%} span", fontsize=10)
    return fit_column(fig, max_width=6.5)  # labels reach past the axes


@functools.lru_cache(maxsize=8)
def _explorer_frame(n: int, causal: bool) -> bytes:
    """The explorer figure's frame: figure, axes, masked region and ticks, pickled.

    Creating the axes and their ticks takes most of the time to build the figure; unpickling
    a ready frame is much faster. Every number of heads shares the frame of its ``(n,
    causal)``, and :func:`alibi_explorer_figure` unpickles a fresh copy for each render.
    """
    i = n // 2
    fig = new_figure(6.8, 3.4, layout=None)
    left = fig.add_axes((0.1, 0.16, 0.38, 0.56))
    right = fig.add_axes((0.6, 0.16, 0.38, 0.56))
    for ax in (left, right):
        if causal:
            ax.axvspan(0.5, i + 0.5, color="0.9", zorder=0)
            ax.text(
                i / 2,
                0.5,
                "masked\n(future)",
                transform=ax.get_xaxis_transform(),
                ha="center",
                va="center",
                fontsize=8,
                color="0.45",
            )
        ax.axvline(0, color="0.5", lw=0.6)
        ax.set_xlim(-i - 0.5, i + 0.5)
        ax.set_xticks([-i, 0, i])  # few ticks: tick artists are much of a redraw's cost
        ax.set_xlabel("key offset j − i")
    left.set_yticks([-1, 0])  # two ticks, moved to their places for each number of heads
    right.set_ylim(0.0, 1.0)
    right.set_yticks([0.0, 1.0])
    fig.text(0.79, 0.76, "its attention when\nonly the bias speaks", ha="center", fontsize=9)
    return pickle.dumps(fig)


def alibi_explorer_figure(num_heads: int = 8, causal: bool = True, *, n: int = 41) -> Figure:
    """The explorer's panel: one query's bias and its attention, for every head.

    The query sits in the middle of ``n`` tokens. Left: the bias it gives each key, one line
    per head (causal: keys after the query are masked, shaded grey; symmetric: a "V", the
    same to the left and to the right). Right: its attention weights when every content
    logit is equal, so that only the bias speaks. Drawn for a fast redraw: fixed axes and no
    layout engine, copied from a frame built once per ``(n, causal)``, and one
    ``LineCollection`` per panel instead of a line per head.

    Args:
        num_heads: ``h``.
        causal: the decoder's bias (masked future) or the symmetric one.
        n: tokens (odd, so that the query is exactly in the middle).

    Returns:
        a Figure with two axes, each holding one ``LineCollection`` with a line per head (the
        bias without the masked keys; the weights of every key).
    """
    h = check_int("num_heads", num_heads)
    n = check_int("n", n, minimum=3)
    causal = check_bool("causal", causal)
    i = n // 2
    slopes = alibi_slopes(h).numpy()  # [h]
    bias = to_numpy(alibi_bias(n, n, h, causal=causal, dtype=torch.float64)[:, i])  # [h, n]
    weights = to_numpy(_content_free_weights(h, n, i, causal=causal))  # [h, n]
    keys = np.arange(n) - i  # offsets j − i
    colours = _head_colours(h)
    fig = pickle.loads(_explorer_frame(n, bool(causal)))
    left, right = fig.axes
    floor = -slopes.max() * i
    seen = keys <= 0 if causal else np.ones(n, dtype=bool)  # masked keys have no bias to draw
    # one collection per panel instead of one line per head: far fewer artists to draw
    left.add_collection(
        LineCollection(
            [np.column_stack((keys[seen], b[seen])) for b in bias], colors=colours, linewidths=1.2
        ),
        autolim=False,
    )
    right.add_collection(
        LineCollection(
            [np.column_stack((keys, w)) for w in weights], colors=colours, linewidths=1.2
        ),
        autolim=False,
    )
    left.set_ylim(1.05 * floor, -0.05 * floor)
    left.set_yticks(sorted({round(floor), 0}))
    kind = "causal" if causal else "symmetric"
    fig.text(
        0.29,
        0.76,
        f"bias of the middle query,\n{h} head{'s' * (h > 1)} ({kind})",
        ha="center",
        fontsize=9,
    )
    labels = [_slope_label(float(m)) for m in slopes]
    half = (len(labels) + 1) // 2  # two lines of slopes
    fig.text(
        0.5,
        0.865,
        f"slopes m, head 1 (dark) to head {h} (light):\n{', '.join(labels[:half])},\n"
        f"{', '.join(labels[half:])}",
        ha="center",
        va="bottom",
        fontsize=8,
    )
    return fit_column(fig)
