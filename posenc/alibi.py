"""ALiBi, "Attention with Linear Biases" of Press, Smith and Lewis (2022).

No position vectors at all: every head adds to its attention logits a penalty proportional
to the distance between query and key,

.. math::

    \\operatorname{softmax}\\!\\Big(\\frac{q_i K^\\top}{\\sqrt d} - m_h\\,(i - j)_{j \\le i}\\Big),

with a fixed slope ``m_h`` per head, a geometric sequence from steep (heads that look only at
the last few tokens) to almost flat (heads that look far back). Nothing is learned and
nothing depends on a maximum length, which is why a model trained on short sequences keeps
working on longer ones.

Query and key positions follow :func:`posenc.attention.query_key_positions`: keys sit at
``0..n_k−1``, queries at ``query_offset..query_offset+n_q−1``, by default
``query_offset = n_k − n_q`` (the queries are the last ``n_q`` positions of the key sequence,
as when decoding with a key cache; plain self-attention when ``n_q = n_k``). :mod:`posenc.t5`
and :class:`posenc.rotary.RotaryEmbedding` use the same alignment.
"""

from __future__ import annotations

import torch
from torch import Tensor

from ._buffers import FixedTables
from ._checks import check_bool, check_floating_dtype, check_int
from .attention import query_key_positions

__all__ = ["ALiBiBias", "alibi_bias", "alibi_distances", "alibi_slopes"]

Device = torch.device | str | None


def alibi_slopes(num_heads: int, *, device: Device = None) -> Tensor:
    """Return ALiBi's fixed slope for each head.

    .. math::

        m_h = 2^{-8h/n}, \\qquad h = 1, \\dots, n

    for a number of heads ``n`` that is a power of two: ``1/2, 1/4, …, 1/256`` for 8 heads,
    ``2^{-1/2}, 2^{-1}, …, 2^{-8}`` for 16. For other head counts the official code takes
    the ``n'`` slopes of the closest lower power of two ``n'``, then every other slope of
    ``2n'`` heads, starting from its first, until there are ``n``: for 12 heads
    ``2^{-1}, …, 2^{-8}`` then ``2^{-1/2}, 2^{-3/2}, 2^{-5/2}, 2^{-7/2}`` (the slopes of
    ``2n'`` heads that lie between those already taken).

    Args:
        num_heads: ``n``, the number of heads (positive).
        device: where to build the result (default: torch's default device).

    Returns:
        float64 tensor ``[n]``, in head order (not sorted for non-powers of two).

    Shapes:
        ``h``: heads.

    Matches: Press et al. (2022) §3; ofirpress/attention_with_linear_biases@3b7c2eca8397
    `fairseq/models/transformer.py` ``get_slopes`` (in ``TransformerDecoder.__init__``);
    transformers 5.23.0 Bloom ``_get_alibi_slopes``, MPT ``build_mpt_alibi_tensor``.

    Example:
        >>> (1 / alibi_slopes(8)).tolist()
        [2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0]
    """
    n = check_int("num_heads", num_heads)
    low = 1 << (n.bit_length() - 1)  # the closest power of two <= n
    base = torch.arange(1, low + 1, dtype=torch.float64, device=device)  # [low]
    slopes = 2.0 ** (-8.0 * base / low)  # [low]
    odd = 2.0 * torch.arange(n - low, dtype=torch.float64, device=device) + 1.0  # [n - low]
    extra = 2.0 ** (-8.0 * odd / (2 * low))  # [n - low]: slopes 1, 3, 5, … of 2·low heads
    return torch.cat((slopes, extra))  # [n]


def alibi_distances(
    n_q: int,
    n_k: int,
    *,
    causal: bool = True,
    query_offset: int | None = None,
    device: Device = None,
) -> Tensor:
    """Return the distance ALiBi penalises for each query-key pair.

    .. math::

        D_{ij} = \\begin{cases} \\max(p_i - p_j,\\, 0) & \\text{causal} \\\\
                                |p_i - p_j| & \\text{not causal} \\end{cases}

    with ``p_i`` the position of query ``i`` and ``p_j`` that of key ``j`` (see the module
    docstring). Causal: how far back the key lies; keys in the future get ``0`` (they must
    be removed by a causal mask, :func:`posenc.attention.causal_mask`). Not causal: the symmetric distance
    of bidirectional encoders with ALiBi (e.g. MosaicBERT), blind to direction.

    Args:
        n_q: number of queries.
        n_k: number of keys.
        causal: as above (a bool).
        query_offset: position of the first query (default ``n_k − n_q``).
        device: where to build the result.

    Returns:
        LongTensor ``[n_q, n_k]``.

    Shapes:
        ``n_q``/``n_k``: query/key positions.
    """
    causal = check_bool("causal", causal)
    q_pos, k_pos = query_key_positions(
        n_q, n_k, query_offset=query_offset, device=device
    )  # [n_q], [n_k]
    diff = q_pos[:, None] - k_pos[None, :]  # [n_q, n_k]: query minus key
    return diff.clamp(min=0) if causal else diff.abs()  # [n_q, n_k]


def alibi_bias(
    n_q: int,
    n_k: int,
    num_heads: int,
    *,
    causal: bool = True,
    query_offset: int | None = None,
    dtype: torch.dtype = torch.float32,
    device: Device = None,
) -> Tensor:
    """Return ALiBi's additive attention bias for every head.

    .. math::

        B_{h,i,j} = -m_h\\, D_{ij}

    with the slopes ``m_h`` of :func:`alibi_slopes` and the distances ``D`` of
    :func:`alibi_distances`: ``−m_h (p_i − p_j)`` for the past, and for ``causal=False``
    ``−m_h |p_i − p_j|``.

    **The causal bias is a bias, not a mask.** Entries for keys after the query are ``0``
    here; a causal decoder must still mask them (``mask=causal_mask(n_q, n_k)`` in
    :func:`posenc.attention.attention_weights`, or ``is_causal`` in
    ``F.scaled_dot_product_attention`` when ``n_q = n_k``). Keeping the two apart lets the
    same bias serve masked and unmasked (encoder) attention and keeps ``−inf`` out of plots.

    Implementations that add ``m_h · p_j`` (Bloom, the official fairseq code) or
    ``m_h (p_j − (n − 1))`` (MPT) instead differ from this one by a constant along each row,
    which the softmax ignores: after masking, the attention weights are identical.

    Args:
        n_q: number of queries.
        n_k: number of keys.
        num_heads: ``h``.
        causal: ``True`` for decoders (the paper's setting), ``False`` for the symmetric
            bidirectional form.
        query_offset: position of the first query (default ``n_k − n_q``: the last ``n_q``).
        dtype: dtype of the result (computed in float64).
        device: where to build the result.

    Returns:
        tensor ``[h, n_q, n_k]``, all entries ``<= 0``.

    Shapes:
        ``h``: heads, ``n_q``/``n_k``: query/key positions.

    Matches: Press et al. (2022) §3, Figure 3; up to a constant per row,
    ofirpress/attention_with_linear_biases@3b7c2eca8397 ``self.alibi`` and transformers 5.23.0 Bloom
    ``build_alibi_tensor``, MPT ``build_mpt_alibi_tensor``.
    """
    check_floating_dtype("dtype", dtype)
    slopes = alibi_slopes(num_heads, device=device)  # [h]
    dist = alibi_distances(
        n_q, n_k, causal=causal, query_offset=query_offset, device=device
    )  # [n_q, n_k]
    return (slopes[:, None, None] * (-dist).to(torch.float64)).to(
        dtype
    )  # [h, n_q, n_k], +0.0 where D = 0


class ALiBiBias(FixedTables):
    """ALiBi's fixed attention bias as a module: ``forward(n_q, n_k) -> [h, n_q, n_k]``.

    .. math::

        B_{h,i,j} = -m_h\\, D_{ij}

    as in :func:`alibi_bias`. The slopes are a non-persistent buffer ``slopes`` (``[h]``,
    float32; ``.to()`` moves and casts them, and the bias follows their dtype). There are no
    parameters. ``forward(n)`` returns ``[h, n, n]``, the interface of
    :class:`book.toy.TinyTransformer`'s ``attention_bias``. With ``causal=True`` the
    future is **not** masked: combine with :func:`posenc.attention.causal_mask`.

    Args:
        num_heads: ``h``.
        causal: as in :func:`alibi_bias`.

    Shapes:
        ``forward(n_q, n_k=None, *, query_offset=None) -> [h, n_q, n_k]`` (``n_k`` defaults
        to ``n_q``).

    Matches: Press et al. (2022) §3; ofirpress/attention_with_linear_biases@3b7c2eca8397
    `fairseq/models/transformer.py` ``TransformerDecoder`` (``alibi``, ``buffered_future_mask``).
    """

    slopes: Tensor

    def __init__(self, num_heads: int, *, causal: bool = True) -> None:
        super().__init__()
        self.num_heads = check_int("num_heads", num_heads)
        self.causal = check_bool("causal", causal)
        self.register_buffer("slopes", alibi_slopes(num_heads).to(torch.float32), persistent=False)

    def reset_buffers(self) -> None:
        """Rebuild the slopes in place (after ``to_empty``; ``load_state_dict`` calls it)."""
        self.slopes = alibi_slopes(self.num_heads, device=self.slopes.device).to(self.slopes.dtype)

    def forward(
        self, n_q: int, n_k: int | None = None, *, query_offset: int | None = None
    ) -> Tensor:
        n_k = n_q if n_k is None else n_k
        dist = alibi_distances(
            n_q, n_k, causal=self.causal, query_offset=query_offset, device=self.slopes.device
        )  # [n_q, n_k]
        return self.slopes[:, None, None] * (-dist).to(self.slopes)  # [h, n_q, n_k]

    def extra_repr(self) -> str:
        return f"num_heads={self.num_heads}, causal={self.causal}"
