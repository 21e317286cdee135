"""Figures for chapter 1: what attention does with (and without) positions.

Every function returns a new ``Figure`` and leaves the global random state alone: the toy
attention layer (:func:`book.demos.attention.toy_attention_layer`) is built inside
``torch.random.fork_rng``. The computations live in :mod:`posenc.attention`.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence

import torch
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch
from torch import Tensor

from book._checks import check_permutation, check_values
from book.demos.attention import (
    LOGIT_TERMS,
    absolute_logit_terms,
    offset_variance_share,
    permutation_matrix,
    sentence_attention,
    sentence_vectors,
    shuffled_attention,
    toy_attention_layer,
)
from book.figures._base import (
    fit_column,
    heatmap,
    inset_colorbar,
    new_figure,
    to_numpy,
    with_slide_version,
)
from posenc._checks import check_bool, check_even, check_int
from posenc._threads import torch_threads
from posenc.attention import SelfAttention
from posenc.sinusoidal import sinusoidal_encoding

__all__ = [
    "attention_pipeline_figure",
    "logit_terms_figure",
    "permutation_attention_figure",
    "shuffle_attention_figure",
]

SENTENCE = ("the", "dog", "chased", "a", "red", "ball")


def _check_words(words: object) -> list[str]:
    """``words`` as a list after checking it is a non-empty sequence of strings."""

    def word(name: str, value: object) -> str:
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a string, got {type(value).__name__} {value!r}")
        return value

    return check_values("words", words, word)


def _label_axes(ax: Axes, rows: Sequence[str], cols: Sequence[str]) -> None:
    """Word tick labels: keys across (slanted), queries down."""
    ax.set_xticks(range(len(cols)), cols, rotation=60, fontsize=8)
    ax.set_yticks(range(len(rows)), rows, fontsize=8)
    ax.set_xlabel("key", fontsize=8)
    ax.set_ylabel("query", fontsize=8)


def permutation_attention_figure(
    words: Sequence[str] = SENTENCE,
    perm: Sequence[int] = (5, 2, 0, 4, 1, 3),
    *,
    dim: int = 16,
    seed: int = 0,
    slide: bool = False,
) -> Figure:
    """Attention of a sentence, of its shuffle, and the shuffle undone; without and with positions.

    Row 1 feeds word vectors only, row 2 adds the sinusoidal encoding of each slot. Columns:
    ``A(X)``, ``A(PX)`` (tick labels follow the words) and ``PᵀA(PX)P``, the shuffled
    attention put back in the original order: identical to ``A(X)`` without positions
    (equivariance), different with them. The title of the third panel quotes
    ``max |PᵀA(PX)P − A(X)|``. The layer is :func:`book.demos.attention.toy_attention_layer` (one
    head, sharpened). The page's figure carries a slide layout
    (:func:`book.figures._base.with_slide_version`): the same grid, wide and low, with larger
    text, the rows named at the left, the key words only under the bottom row, each row's
    verdict beside its third panel and one colour bar.

    Args:
        words: the sentence, one string per word (at least one).
        perm: the shuffle, a permutation of ``0 … len(words) − 1`` (new slot ``i`` holds word
            ``perm[i]``).
        dim: ``d``, channels of the word vectors (even).
        seed: seed of the toy layer's weights (``>= 0``).
        slide: draw the slide layout.

    Returns:
        a Figure with six heatmap axes (rows: without and with positions) and two colourbars
        (one on the slide layout).
    """
    words = _check_words(words)
    seed = check_int("seed", seed, minimum=0)
    order = check_permutation("perm", perm, len(words))
    slide = check_bool("slide", slide)
    layer = toy_attention_layer(dim, seed=seed)
    p = permutation_matrix(order).double()  # [n, n]
    shuffled = [words[i] for i in order]
    rows = _permutation_rows(layer, words, shuffled, p, dim)
    if slide:
        return _permutation_slide(rows, words, shuffled)
    fig = new_figure(10.0, 6.4)
    axes = fig.subplots(2, 3)
    for row, (positions, (a, a_perm, undone, worst)) in enumerate(zip((False, True), rows)):
        tag = "+ positions" if positions else "no positions"
        for ax, m in zip(axes[row], (a, a_perm, undone)):
            image = heatmap(ax, m, symmetric=False, vmin=0.0, vmax=1.0, colorbar=False)
        fig.colorbar(image, ax=axes[row, :], shrink=0.8, label="attention weight")
        axes[row, 0].set_title(f"A(X), {tag}", fontsize=10)
        axes[row, 1].set_title(f"A(PX), {tag}", fontsize=10)
        same = "same as A(X)" if worst < 1e-6 else "differs from A(X)"
        axes[row, 2].set_title(
            f"PᵀA(PX)P: {same}\nmax |PᵀA(PX)P − A(X)| = {worst:.1e}", fontsize=10
        )
        _label_axes(axes[row, 0], words, words)
        _label_axes(axes[row, 1], shuffled, shuffled)
        _label_axes(axes[row, 2], words, words)
    return with_slide_version(
        fit_column(fig),
        lambda: permutation_attention_figure(words, order, dim=dim, seed=seed, slide=True),
    )


def _permutation_rows(
    layer: SelfAttention, words: list[str], shuffled: list[str], p: Tensor, dim: int
) -> list[tuple[Tensor, Tensor, Tensor, float]]:
    """The panels of :func:`permutation_attention_figure`, without and with positions.

    Args:
        layer: the toy attention layer.
        words: the sentence.
        shuffled: the shuffled sentence.
        p: the ``[n, n]`` permutation matrix (float64).
        dim: ``d``, channels of the word vectors.

    Returns:
        per row (no positions, then positions): ``A(X)``, ``A(PX)``, ``PᵀA(PX)P`` (each
        ``[n, n]``) and ``max |PᵀA(PX)P − A(X)|``.
    """
    rows = []
    for positions in (False, True):
        x = sentence_vectors(words, dim, positions=positions)  # [n, d]
        x_perm = sentence_vectors(shuffled, dim, positions=positions)  # [n, d]
        _, a = sentence_attention(layer, x)  # [n, n]
        _, a_perm = sentence_attention(layer, x_perm)  # [n, n]
        undone = p.T @ a_perm.double() @ p  # [n, n]
        rows.append((a, a_perm, undone, float((undone - a.double()).abs().max())))
    return rows


_SLIDE_FONT = 12.5
"""The font size, in points, of the slide layout of :func:`permutation_attention_figure`: a
figure about 3.8 inches high, shown 380 CSS px high, shows it at 25 px on a 1080p projector."""


def _permutation_slide(
    rows: list[tuple[Tensor, Tensor, Tensor, float]], words: list[str], shuffled: list[str]
) -> Figure:
    """The slide layout of :func:`permutation_attention_figure`: its panels, wide and low.

    Args:
        rows: the panels (:func:`_permutation_rows`).
        words: the sentence.
        shuffled: the shuffled sentence.

    Returns:
        a Figure with six heatmap axes (rows: without and with positions) and one colourbar.
    """
    font = _SLIDE_FONT
    fig = new_figure(11.6, 3.75)
    axes = fig.subplots(2, 3)
    for row, (positions, (a, a_perm, undone, worst)) in enumerate(zip((False, True), rows)):
        for ax, m, labels in zip(axes[row], (a, a_perm, undone), (words, shuffled, words)):
            image = heatmap(ax, m, symmetric=False, vmin=0.0, vmax=1.0, colorbar=False)
            ax.set_yticks(range(len(labels)), labels, fontsize=font)
            # the keys are the same words as the rows: named once, under the bottom row
            ax.set_xticks(
                range(len(labels)),
                labels if row else [],
                rotation=45,
                ha="right",
                rotation_mode="anchor",
                fontsize=font,
            )
            if row:
                ax.set_xlabel("key", fontsize=font)
        tag = "+ positions" if positions else "no positions"
        axes[row, 0].set_ylabel(f"{tag}\nquery", fontsize=font)
        same = "same as A(X)" if worst < 1e-6 else "differs from A(X)"
        axes[row, 2].text(
            1.06,
            0.5,
            f"{same}\nmax |PᵀA(PX)P − A(X)|\n= {worst:.1e}",
            transform=axes[row, 2].transAxes,
            ha="left",
            va="center",
            fontsize=font,
        )
    for ax, title in zip(axes[0], ("A(X)", "A(PX)", "PᵀA(PX)P")):
        ax.set_title(title, fontsize=font + 1)
    bar = fig.colorbar(image, ax=axes, shrink=0.9, pad=0.01)
    bar.set_label("attention weight", fontsize=font)
    bar.ax.tick_params(labelsize=font)
    return fig


def shuffle_attention_figure(
    perm: Sequence[int],
    positions: bool,
    *,
    words: Sequence[str] = SENTENCE,
    dim: int = 16,
    seed: int = 0,
) -> Figure:
    """Attention of a sentence and of a shuffled copy, and how much each word's output moved.

    Left: ``A(X)``; middle: ``A(PX)`` with the shuffled words as tick labels (and a colorbar
    of attention weights); right: for each word, ``‖z_word(PX) − z_word(X)‖``, the change in
    that word's output vector (:func:`book.demos.attention.shuffled_attention`). Without positions
    every bar is zero (up to rounding); with positions the words' outputs change. The bar axis
    is scaled by the with-positions case, so toggling positions is comparable. Drawn without
    constrained layout, small, for a fast live redraw.

    Args:
        perm: the shuffle, a permutation of ``0 … len(words) − 1``.
        positions: add the sinusoidal encoding of each slot (a ``bool``).
        words: the sentence, one string per word (at least one).
        dim: ``d``, channels of the word vectors (even).
        seed: seed of the toy layer's weights (``>= 0``).

    Returns:
        a Figure with three axes: ``A(X)``, ``A(PX)`` (with a colourbar) and the bars.
    """
    words = _check_words(words)
    positions = check_bool("positions", positions)
    seed = check_int("seed", seed, minimum=0)
    order = check_permutation("perm", perm, len(words))
    shuffled = [words[i] for i in order]
    a, a_perm, delta = _shuffle_data(tuple(words), tuple(order), positions, dim, seed)
    top = _shuffle_data(tuple(words), tuple(order), True, dim, seed)[2].max()
    top = max(float(top), 1e-3) * 1.15 if order != sorted(order) else 1.0
    # a fixed layout: constrained layout would triple the time of a live redraw
    fig = new_figure(6.8, 3.1, layout=None)
    fig.subplots_adjust(left=0.105, right=0.95, bottom=0.25, top=0.8, wspace=1.05)
    axes = fig.subplots(1, 3, width_ratios=[1, 1, 1.15])
    heatmap(axes[0], a, symmetric=False, vmin=0.0, vmax=1.0, colorbar=False)
    image = heatmap(axes[1], a_perm, symmetric=False, vmin=0.0, vmax=1.0, colorbar=False)
    inset_colorbar(
        axes[1], image, ticks=[0.0, 0.5, 1.0], label="attention weight", gap=0.05, width=0.06
    )
    # word labels as plain texts on the rows only (the keys are the same words in the same
    # order): a matplotlib tick is five artists, and ticks dominate the time of a redraw
    for ax, rows in ((axes[0], words), (axes[1], shuffled)):
        ax.set_xticks([])
        ax.set_yticks([])
        for r, word in enumerate(rows):
            ax.text(
                -0.03,
                r,
                word,
                ha="right",
                va="center",
                fontsize=8,
                transform=ax.get_yaxis_transform(),
            )
        ax.set_xlabel("keys: same order as rows", fontsize=8)
    tag = "with positions" if positions else "no positions"
    # an explicit title height skips matplotlib's costly automatic title placement
    axes[0].set_title(f"attention, original order\n{tag}", fontsize=9, y=1.02)
    axes[1].set_title(f"attention, shuffled order\n{tag}", fontsize=9, y=1.02)
    values = to_numpy(delta)
    bars = axes[2]
    bars.bar(range(len(words)), values, color="tab:red" if positions else "tab:blue")
    bars.set_xticks([])
    for k, word in enumerate(words):
        bars.text(
            k,
            -0.04,
            word,
            ha="right",
            va="top",
            rotation=60,
            rotation_mode="anchor",
            fontsize=8,
            transform=bars.get_xaxis_transform(),
        )
    bars.set_ylim(0.0, top)
    bars.set_yticks([0.0, round(top / 2, 2)])
    bars.tick_params(axis="y", labelsize=7)
    bars.set_ylabel("‖output change‖", fontsize=8)
    bars.set_title(f"per-word output change\nmax = {values.max():.1e}", fontsize=9, y=1.02)
    return fit_column(fig)


def _shuffle_data(
    words: tuple[str, ...], order: tuple[int, ...], positions: bool, dim: int, seed: int
) -> tuple[Tensor, Tensor, Tensor]:
    """``A(X)``, ``A(PX)`` and each word's output change: fresh copies of the cached tensors.

    Copies, so that a caller that changes a returned tensor in place cannot change what the
    next call returns.
    """
    a, a_perm, delta = _cached_shuffle_data(words, order, positions, dim, seed)
    return a.clone(), a_perm.clone(), delta.clone()  # [n, n], [n, n], [n]


@functools.lru_cache(maxsize=64)
def _cached_shuffle_data(
    words: tuple[str, ...], order: tuple[int, ...], positions: bool, dim: int, seed: int
) -> tuple[Tensor, Tensor, Tensor]:
    """:func:`book.demos.attention.shuffled_attention`, cached (the explorer asks twice per figure).

    Shared between calls: use it through :func:`_shuffle_data`, which copies. Computed on one
    thread: the tensors are tiny, and on a busy machine waiting for a second thread costs tens
    of milliseconds per call (the previous thread count is restored).
    """
    with torch_threads(1):
        return shuffled_attention(words, order, positions=positions, dim=dim, seed=seed)


# -- the pipeline diagram ---------------------------------------------------------------------

_ENTRY = {"absolute": "tab:green", "rotary": "tab:purple", "relative": "tab:orange"}


def _box(
    ax: Axes, x: float, y: float, text: str, *, w: float = 12.0, h: float = 7.0, color: str = "0.3"
) -> None:
    """A rounded box centred on ``(x, y)`` holding ``text``; filled with ``color`` unless grey."""
    ax.add_patch(
        FancyBboxPatch(
            (x - w / 2, y - h / 2),
            w,
            h,
            boxstyle="round,pad=0.6",
            linewidth=1.4,
            edgecolor=color,
            facecolor="white" if color == "0.3" else color,
            alpha=1.0,
        )
    )
    ax.text(
        x,
        y,
        text,
        ha="center",
        va="center",
        fontsize=9,
        color="black" if color == "0.3" else "white",
        fontweight="bold" if color != "0.3" else None,
    )


def _arrow(
    ax: Axes,
    start: tuple[float, float],
    end: tuple[float, float],
    color: str = "0.3",
    style: str = "-|>",
) -> None:
    """An arrow from ``start`` to ``end`` in data coordinates."""
    ax.add_patch(
        FancyArrowPatch(start, end, arrowstyle=style, mutation_scale=12, linewidth=1.3, color=color)
    )


def attention_pipeline_figure() -> Figure:
    """Diagram of one attention head, marking the places where position can enter.

    Green: added to the token embeddings before attention (absolute: sinusoidal, learned, 2-D).
    Purple: each query and key rotated by an angle set by its own position (RoPE).
    Orange: a term for each pair ``(i, j)`` added to the attention logits (relative: Shaw,
    Swin, T5, ALiBi) and, in Shaw et al., to the values inside the output sum.
    Row-vector convention, as in the text: ``q_i = x_i W_Q``.

    Returns:
        a Figure with one axes holding the boxes and arrows of the diagram.
    """
    fig = new_figure(11.0, 4.2)
    ax = fig.add_subplot()
    ax.set_xlim(0, 124)
    ax.set_ylim(0, 50)
    ax.axis("off")
    y = 27.0
    boxes = [  # (centre, width, text)
        (7.0, 10.0, "token\nembedding\n$x_i$"),
        (35.0, 13.0, "$q_i = x_i W_Q$\n$k_j = x_j W_K$\n$v_j = x_j W_V$"),
        (63.0, 13.0, "logits\n$q_i \\cdot k_j / \\sqrt{d}$"),
        (86.0, 9.0, "softmax\n$a_{ij}$"),
        (113.0, 15.0, "output\n$z_i = \\sum_j a_{ij} v_j$"),
    ]
    for x, w, text in boxes:
        _box(ax, x, y, text, w=w, h=10.0)
    # the entry points, each a coloured circle on the data path
    marks = [
        (19.0, "+", "absolute"),
        (49.5, "R", "rotary"),
        (75.0, "+", "relative"),
        (99.0, "+", "relative"),
    ]
    for x, sym, kind in marks:
        ax.add_patch(
            FancyBboxPatch(
                (x - 2.2, y - 2.2),
                4.4,
                4.4,
                boxstyle="circle,pad=0.2",
                facecolor=_ENTRY[kind],
                edgecolor=_ENTRY[kind],
            )
        )
        ax.text(x, y, sym, ha="center", va="center", color="white", fontsize=11, fontweight="bold")
    # arrows between consecutive elements, from edge to edge (boxes have 0.6 of padding)
    edges = sorted([(x, w / 2 + 0.6) for x, w, _ in boxes] + [(x, 2.6) for x, _, _ in marks])
    for (a, ha), (b, hb) in itertools.pairwise(edges):
        _arrow(ax, (a + ha, y), (b - hb, y))
    notes = [
        (
            19.0,
            43.0,
            "absolute (ch. 2–5)\nadd $p_i$ to $x_i$:\nsinusoidal, learned, 2-D",
            "absolute",
        ),
        (49.5, 9.0, "rotary (RoPE)\nrotate $q_i$ by $i$'s angle,\n$k_j$ by $j$'s angle", "rotary"),
        (
            75.0,
            43.0,
            (
                "relative: a term for each pair $(i, j)$\nbias $b(i-j)$: Swin, T5, ALiBi;\n"
                "Shaw: $q_i\\cdot r^K_{ij}$"
            ),
            "relative",
        ),
        (
            99.0,
            9.0,
            "relative (Shaw), in the sum:\n$z_i = \\sum_j a_{ij}(v_j + r^V_{ij})$",
            "relative",
        ),
    ]
    for x, ty, text, kind in notes:
        _arrow(
            ax,
            (x, ty - 3.5 if ty > y else ty + 4.0),
            (x, y + 3.2 if ty > y else y - 3.2),
            color=_ENTRY[kind],
        )
        ax.text(
            x,
            ty,
            text,
            ha="center",
            va="center",
            fontsize=8.5,
            color=_ENTRY[kind],
            fontweight="bold",
        )
    return fit_column(fig)


def logit_terms_figure(n_positions: int = 24, dim: int = 16, *, seed: int = 0) -> Figure:
    """The four terms of an absolute logit as maps, with random and with identity projections.

    Chapter 9's bridge from absolute to relative positions. ``n_positions`` tokens with random
    contents ``x_i ~ N(0, I)`` carry the sinusoidal codes ``p_i`` of their positions; each map
    is one term of :func:`book.demos.attention.absolute_logit_terms`:

    .. math::

        x_i^\\top A x_j, \\quad x_i^\\top A p_j, \\quad p_i^\\top A x_j, \\quad p_i^\\top A p_j,
        \\qquad A = W_Q^\\top W_K

    Top row: random projections, ``W_Q, W_K ~ N(0, 1/d)`` (drawn after ``x`` from the same
    seeded generator). Bottom row: ``W_Q = W_K = I``, where the position–position term is
    ``Σ_i cos((j − i) ω_i)``, a function of the offset. Each title gives the term's
    :func:`book.demos.attention.offset_variance_share` (1 for a map that depends on ``j − i``
    alone) and the largest ``|value|`` of the map, ``±m``: each map has its own symmetric colour
    scale ``[−m, m]``, so that the small terms show their pattern too.

    Args:
        n_positions: ``n``, tokens (``>= 2``).
        dim: ``d``, channels of tokens, codes and queries (even).
        seed: seed of the contents and of the random projections (``>= 0``).

    Returns:
        a new ``Figure`` with 8 heat maps (query ``i`` down, key ``j`` across), terms in the
        order of :data:`book.demos.attention.LOGIT_TERMS`.
    """
    n = check_int("n_positions", n_positions, minimum=2)
    dim = check_even("dim", dim)
    seed = check_int("seed", seed, minimum=0)
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, dim, generator=g, dtype=torch.float64)  # [n, d]: contents
    w_q, w_k = torch.randn(2, dim, dim, generator=g, dtype=torch.float64) / math.sqrt(dim)
    p = sinusoidal_encoding(n, dim, dtype=torch.float64)  # [n, d]: positions
    eye = torch.eye(dim, dtype=torch.float64)  # [d, d]
    rows = (
        ("random $W_Q, W_K$", absolute_logit_terms(x, p, w_q, w_k)),  # [4, n, n]
        ("$W_Q = W_K = I$", absolute_logit_terms(x, p, eye, eye)),  # [4, n, n]
    )
    fig = new_figure(6.8, 4.2)
    grid = fig.subplots(2, 4, sharex=True, sharey=True)
    ticks = [0, n // 2, n - 1]
    for r, (row_name, terms) in enumerate(rows):
        shares = offset_variance_share(terms)  # [4]
        for t, ax in enumerate(grid[r]):
            limit = float(terms[t].abs().max()) or 1.0
            heatmap(ax, to_numpy(terms[t]), colorbar=False, vmax=limit)
            ax.set_title(f"{LOGIT_TERMS[t]}\n±{limit:.1f}, share {shares[t]:.2f}", fontsize=8)
            ax.set_xticks(ticks, [str(v) for v in ticks], fontsize=8)
            ax.set_yticks(ticks, [str(v) for v in ticks], fontsize=8)
            if r == 1:
                ax.set_xlabel("key $j$", fontsize=8)
        grid[r, 0].set_ylabel(f"{row_name}\nquery $i$", fontsize=8)
    return fit_column(fig)
