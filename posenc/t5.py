"""T5's bucketed relative position bias (Raffel et al., 2020).

Like Shaw et al. (:mod:`posenc.shaw`), T5 looks up a learned number per head by the offset
between key and query and adds it to the attention logit. Unlike Shaw's clipping, the
offsets are put into **buckets** whose width grows with the distance: one bucket per offset
for small distances, logarithmically wider buckets up to ``max_distance``, and one last
bucket for everything beyond. Nearby tokens are told apart precisely, far ones only roughly.

.. math::

    \\operatorname{softmax}\\!\\Big(q_i K^\\top + b_h\\big[\\operatorname{bucket}(p_j - p_i)\\big]\\Big)

The offset is **key minus query** (T5's ``memory_position − context_position``), as in
Shaw et al. (Swin uses query minus key). Positions are aligned as in :mod:`posenc.alibi`:
keys at ``0..n_k−1``, queries at ``query_offset..`` with default ``n_k − n_q``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import torch
from torch import Tensor, nn

from ._checks import check_bool, check_int, check_state_dict_tables, check_tensor
from .attention import query_key_positions

__all__ = [
    "T5RelativePositionBias",
    "t5_bucket_index",
    "t5_bucket_starts",
    "t5_relative_bucket",
]

Device = torch.device | str | None


def _check_bucket_args(
    bidirectional: bool, num_buckets: object, max_distance: object
) -> tuple[int, int]:
    """Check T5's bucket arguments; return ``(num_buckets, max_distance)`` as ints."""
    bidirectional = check_bool("bidirectional", bidirectional)
    if bidirectional:
        num_buckets = check_int("num_buckets", num_buckets, minimum=4)
        if num_buckets % 2:
            raise ValueError(
                f"num_buckets must be even when bidirectional (half the buckets for each direction), "
                f"got {num_buckets}"
            )
    else:
        num_buckets = check_int("num_buckets", num_buckets, minimum=2)
    max_distance = check_int("max_distance", max_distance)
    max_exact = (num_buckets // 2 if bidirectional else num_buckets) // 2
    if max_distance <= max_exact:
        raise ValueError(
            f"max_distance must be greater than the {max_exact} exact buckets per direction "
            f"(num_buckets/{4 if bidirectional else 2}): the logarithmic buckets cover distances "
            f"{max_exact}..max_distance, got max_distance={max_distance}"
        )
    return num_buckets, max_distance


def t5_relative_bucket(
    relative_position: Tensor,
    *,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
) -> Tensor:
    """Return T5's bucket for each relative position (key minus query).

    With ``B`` buckets per direction (``num_buckets/2`` if bidirectional, else
    ``num_buckets``), ``E = B/2`` exact buckets and distance ``r = |p_j − p_i|``:

    .. math::

        \\operatorname{bucket}(r) = \\begin{cases} r & r < E \\\\
        \\min\\!\\Big(B - 1,\\; E + \\Big\\lfloor \\frac{\\ln(r/E)}{\\ln(\\text{max\\_distance}/E)}
        \\,(B - E) \\Big\\rfloor\\Big) & r \\ge E \\end{cases}

    Bidirectional: keys after the query (positive offsets) get ``B + bucket(r)``, keys before
    it ``bucket(r)``, so bucket ``B`` (offset "+0") is never used. Unidirectional (decoders):
    ``r = max(p_i − p_j, 0)``, so every key after the query shares bucket 0 with the query
    itself (the causal mask removes them anyway). Offsets of ``max_distance`` or more share
    the last bucket of their direction. Offsets are clamped to ``±max_distance`` first, which
    changes no bucket and keeps every int64 exact (``-2**63`` included, whose absolute value
    would overflow); ``uint64`` tensors are refused (values above ``2**63`` would wrap).

    The logarithm is taken in float32, in the same order of operations as T5, so that the
    buckets agree with trained checkpoints exactly. (For a few argument choices an exact
    boundary — ``(B − E)·ln(r/E)/ln(max_distance/E)`` an integer — is rounded to the other
    side in float64; with the defaults this never happens.)

    Args:
        relative_position: integer tensor of any shape (not ``uint64``), key position minus
            query position.
        bidirectional: ``True`` for encoders, ``False`` for decoders.
        num_buckets: total number of buckets (even and ``>= 4`` if bidirectional, ``>= 2``
            otherwise).
        max_distance: distance from which everything shares the last bucket (must exceed
            the number of exact buckets ``E``, or the logarithm's scale is ``<= 0``).

    Returns:
        LongTensor of the shape of ``relative_position``, values in ``0..num_buckets−1``.

    Matches: Raffel et al. (2020) §2.1; tensorflow/mesh@28bb9c60f661
    `mesh_tensorflow/transformer/transformer_layers.py` ``_relative_position_bucket``; transformers
    5.23.0 ``T5Attention._relative_position_bucket``.

    Example:
        >>> t5_relative_bucket(torch.arange(-3, 4)).tolist()
        [3, 2, 1, 0, 17, 18, 19]
    """
    check_tensor("relative_position", relative_position)
    dtype = relative_position.dtype
    if dtype.is_floating_point or dtype.is_complex or dtype == torch.bool:
        raise TypeError(
            f"relative_position must be an integer tensor (key position minus query position), "
            f"got dtype {dtype}"
        )
    if dtype == torch.uint64:
        raise TypeError(
            "relative_position must not be uint64 (values above 2**63 would wrap when cast to "
            "int64); pass an int64 tensor"
        )
    num_buckets, max_distance = _check_bucket_args(bidirectional, num_buckets, max_distance)
    # beyond ±max_distance every offset has its direction's last bucket: clamping is exact
    rel = relative_position.to(torch.long).clamp(-max_distance, max_distance)
    if bidirectional:
        per_side = num_buckets // 2
        offset = (rel > 0).to(torch.long) * per_side  # keys after the query use the upper half
        dist = rel.abs()
    else:
        per_side = num_buckets
        offset = torch.zeros_like(rel)
        dist = (-rel).clamp(min=0)  # how far back the key is; future keys count as 0
    exact = per_side // 2
    # T5's float32 arithmetic, operation by operation (clamped below at E: only used there)
    scaled = torch.log(dist.clamp(min=exact).float() / exact) / math.log(max_distance / exact)
    log_bucket = exact + (scaled * (per_side - exact)).to(torch.long)
    log_bucket = log_bucket.clamp(max=per_side - 1)
    return offset + torch.where(dist < exact, dist, log_bucket)


def t5_bucket_index(
    n_q: int,
    n_k: int,
    *,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
    query_offset: int | None = None,
    device: Device = None,
) -> Tensor:
    """Return the bucket of every query-key pair: the index into T5's bias table.

    .. math::

        I_{ij} = \\operatorname{bucket}(p_j - p_i)

    with :func:`t5_relative_bucket` and the positions of
    :func:`posenc.attention.query_key_positions`.

    Args:
        n_q: number of queries.
        n_k: number of keys.
        bidirectional, num_buckets, max_distance: as in :func:`t5_relative_bucket`.
        query_offset: position of the first query (default ``n_k − n_q``; transformers'
            ``compute_bias`` calls it ``past_seen_tokens`` and defaults to 0).
        device: where to build the result (default: torch's default device).

    Returns:
        LongTensor ``[n_q, n_k]``.

    Shapes:
        ``n_q``/``n_k``: query/key positions.

    Matches: the ``relative_position_bucket`` of transformers 5.23.0 `models/t5/modeling_t5.py`
    ``T5Attention.compute_bias``.
    """
    q_pos, k_pos = query_key_positions(
        n_q, n_k, query_offset=query_offset, device=device
    )  # [n_q], [n_k]
    rel = k_pos[None, :] - q_pos[:, None]  # [n_q, n_k]: memory_position - context_position
    return t5_relative_bucket(
        rel, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    )


def t5_bucket_starts(
    *,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
    device: Device = None,
) -> Tensor:
    """Return the smallest distance that falls into each bucket of one direction.

    For ``b = 0..B−1`` (``B`` buckets per direction, as in :func:`t5_relative_bucket`),
    the smallest ``r >= 0`` such that a key ``r`` positions *before* the query lands in
    bucket ``b``; ``−1`` for a bucket that no distance reaches (possible when
    ``max_distance`` is barely larger than the exact range). Bucket ``b`` then covers the
    distances from its start up to the next start minus one, and the last bucket everything
    from its start on. When bidirectional, keys after the query use buckets ``B + b`` with the
    same starts (except that offset 0 belongs to bucket 0, so bucket ``B`` starts at 1 and is
    never used).

    .. math::

        \\operatorname{start}(b) = \\min\\{ r \\ge 0 : \\operatorname{bucket}(-r) = b \\}

    With T5's defaults (32 buckets, bidirectional, ``max_distance = 128``) the starts are
    ``0, 1, …, 7`` (exact) and ``8, 12, 16, 23, 32, 46, 64, 91``: the last bucket begins at
    91, where the logarithmic formula passes ``B − 1``; ``max_distance`` is where it would
    reach ``B``.

    Args:
        bidirectional, num_buckets, max_distance: as in :func:`t5_relative_bucket`.
        device: where to build the result.

    Returns:
        LongTensor ``[B]``, non-decreasing apart from the ``−1`` entries.

    Shapes:
        ``B``: buckets per direction.
    """
    num_buckets, max_distance = _check_bucket_args(bidirectional, num_buckets, max_distance)
    per_side = num_buckets // 2 if bidirectional else num_buckets
    dist = torch.arange(max_distance + 1, device=device)  # [max_distance + 1]: all buckets
    buckets = t5_relative_bucket(
        -dist, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    )  # [max_distance + 1]
    big = max_distance + 1
    starts = torch.full((per_side,), big, dtype=torch.long, device=dist.device)  # [B]
    starts = starts.scatter_reduce(0, buckets, dist, reduce="amin")  # [B]
    return torch.where(starts == big, -1, starts)


class T5RelativePositionBias(nn.Module):
    """T5's learned relative position bias: one number per head and bucket.

    .. math::

        B_{h,i,j} = W\\big[\\operatorname{bucket}(p_j - p_i),\\, h\\big]

    ``relative_attention_bias`` is an ``nn.Embedding(num_buckets, num_heads)`` with T5's
    name, so the table of a T5 checkpoint loads unchanged (T5 keeps it in the first layer's
    self-attention and shares its output with the other layers). It is initialised
    ``N(0, 0.02²)``, as the other bias tables in posenc. ``forward(n)`` returns
    ``[h, n, n]``, the interface of :class:`book.toy.TinyTransformer`'s ``attention_bias``.

    Args:
        num_heads: ``h``.
        bidirectional: ``True`` for an encoder, ``False`` for a decoder.
        num_buckets: as in :func:`t5_relative_bucket` (32 in T5).
        max_distance: as in :func:`t5_relative_bucket` (128 in T5).

    Shapes:
        ``forward(n_q, n_k=None, *, query_offset=None) -> [h, n_q, n_k]`` (``n_k`` defaults
        to ``n_q``; queries are the last ``n_q`` positions unless ``query_offset`` is given).

    Loading a state dict whose table has another size raises a ``ValueError`` naming the key
    (``relative_attention_bias.weight``) and both shapes.

    Matches: transformers 5.23.0 `models/t5/modeling_t5.py` ``T5Attention.compute_bias`` (returns
    ``[1, h, n_q, n_k]`` with queries starting at ``past_seen_tokens``).
    """

    def __init__(
        self,
        num_heads: int,
        *,
        bidirectional: bool = True,
        num_buckets: int = 32,
        max_distance: int = 128,
    ) -> None:
        super().__init__()
        self.num_heads = check_int("num_heads", num_heads)
        self.bidirectional = check_bool("bidirectional", bidirectional)
        self.num_buckets, self.max_distance = _check_bucket_args(
            bidirectional, num_buckets, max_distance
        )
        self.relative_attention_bias = nn.Embedding(self.num_buckets, self.num_heads)
        nn.init.normal_(self.relative_attention_bias.weight, std=0.02)

    def _load_from_state_dict(
        self, state_dict: Mapping[str, Any], prefix: str, *args: Any, **kwargs: Any
    ) -> None:
        check_state_dict_tables(self, state_dict, prefix)
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    def forward(
        self, n_q: int, n_k: int | None = None, *, query_offset: int | None = None
    ) -> Tensor:
        n_k = n_q if n_k is None else n_k
        index = t5_bucket_index(
            n_q,
            n_k,
            bidirectional=self.bidirectional,
            num_buckets=self.num_buckets,
            max_distance=self.max_distance,
            query_offset=query_offset,
            device=self.relative_attention_bias.weight.device,
        )  # [n_q, n_k]
        return self.relative_attention_bias(index).permute(2, 0, 1)  # [h, n_q, n_k]

    def extra_repr(self) -> str:
        return (
            f"num_heads={self.num_heads}, bidirectional={self.bidirectional}, "
            f"num_buckets={self.num_buckets}, max_distance={self.max_distance}"
        )
