"""Chapters 7 and 8's checks of a window index and RSTT's frame arithmetic.

Not model code: :mod:`posenc.window` holds the index, the table and the attention a model
builds. These functions examine them:

* :func:`relative_index_check` (with its result :class:`IndexCheck`): the two properties any
  self-attention relative index has, checked without a reference (chapter 7);
* :func:`frame_offset_counts`: how often each frame offset is looked up in a video window,
  so which table rows are never trained (chapter 8);
* :func:`rstt_key_frames`: the key frame times RSTT's stride computes, and where it goes
  wrong; :func:`spread_key_step`: the step that keeps the key frames inside the query frames
  (chapter 8's explorer).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import torch
from torch import Tensor

from posenc._checks import check_int, check_shape, check_tensor
from posenc.window import relative_offsets

__all__ = [
    "IndexCheck",
    "frame_offset_counts",
    "relative_index_check",
    "rstt_key_frames",
    "spread_key_step",
]


class IndexCheck(NamedTuple):
    """What :func:`relative_index_check` found about a candidate relative position index.

    Attributes:
        offsets: how many distinct offsets (query minus key, per axis) the window's pairs have.
        indices: how many distinct values the candidate uses.
        table_rows: rows of the window's table, ``Π(2W_a − 1)``.
        shared: ``(value, [offset, …])`` for every value that several offsets got: those
            offsets would share one bias. Offsets sorted.
        split: ``(offset, [value, …])`` for every offset that got several values: the bias
            would not be a function of the offset.
        out_of_range: the values outside ``0 … table_rows − 1``: a lookup fails, or reads
            the wrong rows.
        unused: the table rows in ``0 … table_rows − 1`` that no pair reads: rows that are
            never trained.
    """

    offsets: int
    indices: int
    table_rows: int
    shared: list[tuple[int, list[tuple[int, ...]]]]
    split: list[tuple[tuple[int, ...], list[int]]]
    out_of_range: list[int]
    unused: list[int]

    @property
    def relative(self) -> bool:
        """Equal offsets ⇔ equal indices."""
        return not self.shared and not self.split

    @property
    def in_range(self) -> bool:
        """Every value is a row of the table, and every row is read."""
        return not self.out_of_range and not self.unused

    @property
    def ok(self) -> bool:
        """Both properties hold: necessary for Swin's index, not sufficient."""
        return self.relative and self.in_range


def relative_index_check(index: Tensor, window_size: Sequence[int]) -> IndexCheck:
    """Check the two properties every self-attention relative index has: relative, in range.

    .. math::

        p_i - p_j = p_{i'} - p_{j'} \\iff I_{ij} = I_{i'j'}, \\qquad
        \\{I_{ij}\\} = \\{0, 1, \\dots, \\textstyle\\prod_a (2W_a - 1) - 1\\}

    Token ``n`` of the window sits at the row-major coordinates ``p_n`` of ``n`` (the order of
    :func:`posenc.window.window_partition`). *Relative*: pairs with equal offsets
    ``p_i − p_j`` get equal values and different offsets different values. *In range*: every
    value is a row of the table of ``Π(2W_a − 1)`` rows, and every row is read (in
    self-attention every offset occurs). Neither needs a reference. Passing both does not
    prove that the index is Swin's: any consistent relabelling of the rows passes (coordinates
    from ``meshgrid(..., indexing="xy")`` in a square window swap row and column offsets and
    pass both), and only a comparison with a known-correct index, such as
    :func:`posenc.window.relative_position_index` (tested against the official code), catches
    it.

    Written with plain Python loops, independent of
    :func:`posenc.window.relative_position_index`.

    Args:
        index: the candidate, an integer tensor.
        window_size: the window's size per axis, e.g. ``(Wh, Ww)``.

    Returns:
        an :class:`IndexCheck`.

    Shapes:
        ``index``: ``[N, N]``, ``N = Π W_a`` tokens (query ``i`` down, key ``j`` across).

    Raises:
        TypeError: ``index`` is not an integer tensor.
        ValueError: ``index`` is not ``[N, N]`` for the window.
    """
    shape = check_shape("window_size", window_size)
    check_tensor("index", index, ndim=2)
    if index.is_floating_point() or index.is_complex() or index.dtype == torch.bool:
        raise TypeError(f"index must hold integers, got dtype {index.dtype}")
    if index.device.type == "meta":
        raise ValueError("index must hold values to check, got a tensor on the meta device")
    n = math.prod(shape)
    if tuple(index.shape) != (n, n):
        raise ValueError(
            f"index must be [{n}, {n}] for a {'x'.join(map(str, shape))} window, "
            f"got {tuple(index.shape)}"
        )
    places = []
    for t in range(n):  # row-major coordinates: the last axis moves fastest
        coords = []
        for size in reversed(shape):
            t, coord = divmod(t, size)
            coords.append(coord)
        places.append(tuple(reversed(coords)))
    values = index.tolist()
    by_offset: dict[tuple[int, ...], list[int]] = {}
    for i, p in enumerate(places):
        for j, q in enumerate(places):
            found = by_offset.setdefault(tuple(a - b for a, b in zip(p, q)), [])
            if values[i][j] not in found:
                found.append(values[i][j])
    owners: dict[int, list[tuple[int, ...]]] = {}
    for offset, found in sorted(by_offset.items()):
        for value in found:
            owners.setdefault(value, []).append(offset)
    shared = [(value, offsets) for value, offsets in sorted(owners.items()) if len(offsets) > 1]
    split = [
        (offset, sorted(found)) for offset, found in sorted(by_offset.items()) if len(found) > 1
    ]
    rows = math.prod(2 * s - 1 for s in shape)
    used = set(owners)
    out_of_range = sorted(v for v in used if not 0 <= v < rows)
    unused = [r for r in range(rows) if r not in used]
    return IndexCheck(len(by_offset), len(used), rows, shared, split, out_of_range, unused)


def frame_offset_counts(
    query_frames: int, key_frames: int | None = None, key_step: int = 1
) -> Tensor:
    """How many (query frame, key frame) pairs have each frame offset ``−(D_1−1) … D_1−1``.

    A frame offset with count 0 is never looked up: its ``(2W_h−1)(2W_w−1)`` table rows get no
    gradient.

    Args:
        query_frames: ``D_1``.
        key_frames: ``D_2`` (default ``D_1``).
        key_step: ``s``, the time between two key frames in query frames.

    Returns:
        LongTensor ``[2 D_1 − 1]``; entry ``m`` counts the offset ``m − (D_1 − 1)``.
    """
    d1 = check_int("query_frames", query_frames)
    d2 = d1 if key_frames is None else check_int("key_frames", key_frames)
    step = check_int("key_step", key_step)
    offsets = relative_offsets((d1,), (d2,), key_step=(step,))[..., 0]  # [D1, D2]
    return torch.bincount((offsets + d1 - 1).flatten(), minlength=2 * d1 - 1)  # [2 D1 - 1]


def rstt_key_frames(query_frames: int, key_frames: int) -> list[int]:
    """The key frame times RSTT computes: ``arange(0, D_1, (D_1 + 1) // D_2)``.

    Right for ``D_1 = 2 D_2 − 1`` (7 output frames, 4 input frames: ``[0, 2, 4, 6]``) and for
    ``D_1 = D_2``; for other pairs the count is often not ``D_2`` (``D_1 = 6, D_2 = 4`` gives six
    frames).

    Args:
        query_frames: ``D_1``.
        key_frames: ``D_2``.

    Returns:
        the frame times, as RSTT's ``WindowAttention3D`` builds them.

    Raises:
        ValueError: ``D_2 > D_1 + 1``, where RSTT's step ``(D_1 + 1) // D_2`` is 0.

    Matches: Geng et al. (2022), llmpass/RSTT@90c5bdbc9b5d `models/layers.py`
    ``WindowAttention3D.__init__`` (``coords_d_kv``), which the book's source articles 003 and 004
    quote.
    """
    d1 = check_int("query_frames", query_frames)
    d2 = check_int("key_frames", key_frames)
    step = (d1 + 1) // d2
    if step == 0:
        raise ValueError(
            f"key_frames ({d2}) must be at most query_frames + 1 ({d1 + 1}): "
            "RSTT's step (D1 + 1) // D2 would be 0"
        )
    return list(range(0, d1, step))


def spread_key_step(query_frames: int, key_frames: int) -> int:
    """The largest whole step that keeps ``D_2`` key frames inside ``D_1`` query frames.

    .. math::

        s = \\left\\lfloor \\frac{D_1 - 1}{D_2 - 1} \\right\\rfloor \\quad (D_2 > 1),
        \\qquad s = 1 \\quad (D_2 = 1)

    Key frames then sit at query times ``0, s, …, (D_2 − 1)s``: ``0, 2, 4, 6`` for RSTT's
    ``D_1 = 7``, ``D_2 = 4``; the same frames as the queries when ``D_1 = D_2`` (Video Swin).
    When ``D_2 − 1`` does not divide ``D_1 − 1`` the last key frame falls short of the last
    query frame.

    Args:
        query_frames: ``D_1``.
        key_frames: ``D_2 <= D_1``.

    Returns:
        ``s``, to pass as ``key_step[0]`` to :func:`posenc.window.relative_position_index`.
    """
    d1 = check_int("query_frames", query_frames)
    d2 = check_int("key_frames", key_frames)
    if d2 > d1:
        raise ValueError(
            f"key_frames ({d2}) must not exceed query_frames ({d1}): "
            "the key frames must fit inside the query frames' time span"
        )
    return (d1 - 1) // (d2 - 1) if d2 > 1 else 1
