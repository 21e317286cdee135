"""The tiny Transformer of the toy experiments and the attention layers it plugs in.

* :class:`TinyTransformer` is a pre-LayerNorm Transformer (an encoder, or with ``causal=True``
  a decoder) with a plug-in point for every family of encodings: an additive position module
  (``x -> x + P``), an attention-bias module (``n -> [h, n, n]``), a query/key rotation
  (RoPE) and a replacement attention layer (Shaw);
* :class:`ToyAttention` is what the toy asks of an attention layer beyond computing its
  output: its attention weights (for :func:`book.toy.probes.toy_attention_weights`) and
  the loading of shared projections (for a seeded :func:`book.experiments.length.toy_model`);
* :class:`ToySelfAttention` (the default layer) and :class:`ToyShawAttention` (Shaw's
  relative attention, the toy form of that family in :mod:`book.catalogue`) implement it;
* :class:`ToyWindowAttention` is the default layer under a sliding window, with attention
  sinks whose positions StreamingLLM reassigns in its cache (chapter 13).

Which family plugs in where is not decided here: every :class:`book.catalogue.Encoding`
says it (its ``toy`` field).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Protocol, runtime_checkable

import torch
from torch import Tensor, nn

from posenc._checks import check_bool, check_heads, check_int, check_tensor
from posenc.attention import SelfAttention, causal_mask, masked_softmax, sliding_window_mask
from posenc.rotary_nd import apply_rotary_nd
from posenc.shaw import ShawRelativeMultiheadAttention, shaw_relative_index
from posenc.window_v2 import log_spaced_relative_coords

__all__ = [
    "TinyTransformer",
    "ToyAttention",
    "ToyContinuousBias",
    "ToyMultimodalRotary",
    "ToySelfAttention",
    "ToyShawAttention",
    "ToyWindowAttention",
]


@runtime_checkable
class ToyAttention(Protocol):
    """An attention layer the toy can look into: it reports its weights and loads projections.

    A layer of a :class:`TinyTransformer` is called as ``layer(x, mask=mask)`` (and, for the
    default layer, with ``bias=``). Layers that also implement this protocol can be probed
    (:func:`book.toy.probes.toy_attention_weights`) and initialised from the weights every
    encoding shares (:func:`book.experiments.length.toy_model` with a ``seed``).
    """

    def attention_weights(
        self, x: Tensor, *, bias: Tensor | None = None, mask: Tensor | None = None
    ) -> Tensor:
        """The attention weights ``[b, h, n, n]`` of the layer on ``x`` (``[b, n, d]``)."""
        ...

    def load_projections(
        self, qkv_weight: Tensor, qkv_bias: Tensor, out_weight: Tensor, out_bias: Tensor
    ) -> None:
        """Copy in packed query/key/value (``[3d, d]``, ``[3d]``) and output projections."""
        ...


def _fill(layer: nn.Linear, weight: Tensor, bias: Tensor) -> None:
    """Copy ``weight`` and ``bias`` into ``layer`` (which must have a bias)."""
    if layer.bias is None:
        raise ValueError("load_projections needs linear layers with a bias")
    layer.weight.copy_(weight)
    layer.bias.copy_(bias)


class ToySelfAttention(SelfAttention):
    """:class:`~posenc.attention.SelfAttention` that implements :class:`ToyAttention`.

    .. math::

        A = \\operatorname{softmax}\\big(\\rho(Q)\\rho(K)^\\top / \\sqrt{d/h} + B\\big)

    The same layer, parameters and numbers as its base class; it only adds the two methods of
    the protocol.

    Shapes:
        ``x``: ``[b, n, d]`` → ``[b, n, d]``; weights ``[b, h, n, n]``.

    Matches: :class:`posenc.attention.SelfAttention` (``return_weights=True``).
    """

    def attention_weights(
        self, x: Tensor, *, bias: Tensor | None = None, mask: Tensor | None = None
    ) -> Tensor:
        """The attention weights ``[b, h, n, n]`` on ``x`` (``[b, n, d]``)."""
        return self(x, bias=bias, mask=mask, return_weights=True)[1]  # [b, h, n, n]

    def load_projections(
        self, qkv_weight: Tensor, qkv_bias: Tensor, out_weight: Tensor, out_bias: Tensor
    ) -> None:
        """Copy the packed ``[3d, d]`` query/key/value and the ``[d, d]`` output projections."""
        _fill(self.qkv, qkv_weight, qkv_bias)
        _fill(self.out, out_weight, out_bias)


class ToyShawAttention(ShawRelativeMultiheadAttention):
    """:class:`~posenc.shaw.ShawRelativeMultiheadAttention` that implements :class:`ToyAttention`.

    .. math::

        A_{hij} = \\operatorname{softmax}_j\\big((q_i \\cdot k_j + q_i \\cdot a^K_{c(j-i)})
        / \\sqrt{d/h}\\big), \\qquad c(r) = \\max(-k, \\min(k, r))

    The same layer, parameters and numbers as its base class (Shaw's layer takes no additive
    bias); it adds the weights that :func:`posenc.shaw.shaw_attention` computes inside and
    does not return, and the loading of shared projections (``q``, ``k``, ``v`` from the rows
    of a packed ``[3d, d]`` matrix).

    Shapes:
        ``x``: ``[b, n, d]`` → ``[b, n, d]``; weights ``[b, h, n, n]``.

    Matches: Shaw et al. (2018), eq. (5) (the logits of their relative attention); tensor2tensor
    1.15.7 ``_relative_attention_inner(q, k, relations_keys, True)``.
    """

    def attention_weights(
        self, x: Tensor, *, bias: Tensor | None = None, mask: Tensor | None = None
    ) -> Tensor:
        """The attention weights ``[b, h, n, n]`` on ``x`` (``[b, n, d]``); ``bias`` must be
        ``None`` (Shaw's position term replaces it)."""
        if bias is not None:
            raise ValueError(
                "bias must be None for Shaw's attention (its position term is its own)"
            )
        check_tensor("x", x, ndim=3)
        b, n, d = x.shape
        heads = self.num_heads
        q = self._heads(self.q_proj(x))  # [b, h, n, d/h]
        k = self._heads(self.k_proj(x))  # [b, h, n, d/h]
        index = shaw_relative_index(n, n, self.max_relative_position, device=x.device)  # [n, n]
        position = (q @ self.rel_k.T).gather(-1, index.expand(b, heads, n, n))  # [b, h, n, n]
        logits = (q @ k.transpose(-1, -2) + position) / math.sqrt(d // heads)  # [b, h, n, n]
        return masked_softmax(logits, mask)  # [b, h, n, n]

    def load_projections(
        self, qkv_weight: Tensor, qkv_bias: Tensor, out_weight: Tensor, out_bias: Tensor
    ) -> None:
        """Copy the rows of a packed ``[3d, d]`` matrix into ``q``, ``k``, ``v`` (in that
        order), and the ``[d, d]`` output projection."""
        d = self.dim
        for i, layer in enumerate((self.q_proj, self.k_proj, self.v_proj)):
            _fill(layer, qkv_weight[i * d : (i + 1) * d], qkv_bias[i * d : (i + 1) * d])
        _fill(self.out_proj, out_weight, out_bias)


class ToyWindowAttention(ToySelfAttention):
    """:class:`ToySelfAttention` under a causal sliding window, with attention sinks.

    .. math::

        \\ell_{ij} = \\frac{\\rho_{P_i}(q_i) \\cdot \\rho_{P_{ij}}(k_j)}{\\sqrt{d/h}}, \\qquad
        j \\in \\{i - w + 1, \\dots, i\\} \\cup \\{0, \\dots, s - 1\\}

    Query ``i`` sees its last ``w`` positions and the first ``s`` (the sinks,
    :func:`posenc.attention.sliding_window_mask`), which is StreamingLLM's cache of ``s``
    start tokens and ``w`` recent ones. The rotations follow the positions that cache assigns:
    while everything fits (``i < s + w - 1``) they are the true ones; after that the cache
    holds the sinks at ``0..s-1`` and the window after them, so the query sits at
    ``P_i = s + w - 1``, window keys keep their true offsets and sink ``j`` is
    ``P_{ij} = j``, ``s + w - 1 - j`` places back: no offset is ever longer than ``s + w - 1``,
    however long the sequence. Without ``rotary`` positions do not matter and this is plain
    attention under the mask.

    Args:
        dim, num_heads, rotary: as in :class:`~posenc.attention.SelfAttention`.
        window: ``w >= 1``.
        sinks: ``s >= 0``.

    Shapes:
        ``x``: ``[b, n, d]`` → ``[b, n, d]``; weights ``[b, h, n, n]``. The ``mask`` passed in
        (the toy's causal mask) is combined with the window's.

    Matches: StreamingLLM's ``StartRecentKVCache`` with positions assigned in the cache
    (Xiao et al., 2024, §3.2; ``mit-han-lab/streaming-llm``, ``streaming_llm/pos_shift``).
    """

    def __init__(
        self,
        dim: int,
        num_heads: int = 1,
        *,
        rotary: nn.Module | None = None,
        window: int,
        sinks: int = 0,
    ) -> None:
        super().__init__(dim, num_heads, rotary=rotary)
        self.window = check_int("window", window)
        self.sinks = check_int("sinks", sinks, minimum=0)

    def extra_repr(self) -> str:
        return f"window={self.window}, sinks={self.sinks}"

    def forward(
        self,
        x: Tensor,
        *,
        bias: Tensor | None = None,
        mask: Tensor | None = None,
        return_weights: bool = False,
    ) -> Tensor | tuple[Tensor, Tensor]:
        check_tensor("x", x, ndim=3)
        if bias is not None:
            raise ValueError("ToyWindowAttention takes no bias (use the rotary hook)")
        b, n, d = x.shape
        if d != self.dim:
            raise ValueError(f"x must have {self.dim} channels in its last dimension, got {d}")
        h, w, s = self.num_heads, self.window, self.sinks
        qkv = self.qkv(x).reshape(b, n, 3, h, d // h).permute(2, 0, 3, 1, 4)  # [3, b, h, n, d/h]
        q, k, v = qkv.unbind(0)  # [b, h, n, d/h] each
        allowed = sliding_window_mask(n, n, w, sinks=s, device=x.device)  # [n, n]
        if mask is not None:
            allowed = allowed & mask  # [n, n] or broadcast
        if self.rotary is None:
            logits = q @ k.transpose(-1, -2) / math.sqrt(d // h)  # [b, h, n, n]
        else:
            q_rot, k_rot = self.rotary(q, k)  # [b, h, n, d/h]: true positions
            logits = q_rot @ k_rot.transpose(-1, -2) / math.sqrt(d // h)  # [b, h, n, n]
            if s and n > s + w - 1:  # the cache is full from query s + w - 1 on
                # the query at s + w - 1, the sinks at 0..s-1: StreamingLLM's cache positions
                q_at, sink_rot = self.rotary(
                    q.unsqueeze(-2), k[:, :, :s].unsqueeze(2), query_offset=s + w - 1
                )  # [b, h, n, 1, d/h], [b, h, 1, s, d/h]
                sink_logits = (q_at * sink_rot).sum(-1) / math.sqrt(d // h)  # [b, h, n, s]
                full = torch.arange(n, device=x.device)[:, None] >= s + w - 1  # [n, 1]
                logits = torch.cat(
                    [torch.where(full, sink_logits, logits[..., :s]), logits[..., s:]], dim=-1
                )  # [b, h, n, n]
        weights = masked_softmax(logits, allowed)  # [b, h, n, n]
        y = self.out((weights @ v).transpose(1, 2).reshape(b, n, d))  # [b, n, d]
        return (y, weights) if return_weights else y


def _text_sections(pairs: int) -> tuple[int, int, int]:
    """Qwen2-VL's shares of the pairs (16/24/24 of 64: a quarter for time), rounded down."""
    t = pairs // 4
    h = (pairs - t) // 2
    return (t, h, pairs - t - h)


class ToyMultimodalRotary(nn.Module):
    """M-RoPE on text: every token at ``(t, h, w) = (p, p, p)`` (the toy form of that family).

    .. math::

        \\rho(x_p) = R^{\\text{M-RoPE}}_{(p, p, p)}\\, x_p = R_p\\, x_p

    Qwen2-VL gives a text token the same number on all three axes, so each pair turns by
    ``p·θ_j`` whatever its section: on a 1-D sequence M-RoPE is 1-D RoPE with the same
    frequencies. The sections follow Qwen2-VL's shares (a quarter of the pairs for time, the
    rest halved between row and column). Called as ``rotary(q, k)`` like
    :class:`posenc.rotary.RotaryEmbedding`; queries sit at the last ``n_q`` of the ``n_k``
    key positions unless ``query_offset`` says otherwise.

    Args:
        dim: channels per head (even).
        base: the base of the frequencies.

    Shapes:
        ``q``: ``[..., n_q, d]``, ``k``: ``[..., n_k, d]`` → the same shapes.

    Matches: :func:`posenc.rotary_nd.apply_rotary_nd` with positions ``(p, p, p)``; transformers
    5.23.0 `models/qwen2_vl/modeling_qwen2_vl.py` ``get_rope_index`` (text tokens).
    """

    def __init__(self, dim: int, *, base: float = 10000.0) -> None:
        super().__init__()
        self.dim = check_int("dim", dim)
        if self.dim % 2:
            raise ValueError(f"dim must be even (pairs of channels), got {dim}")
        self.base = base
        self.sections = _text_sections(self.dim // 2)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, base={self.base}, sections={list(self.sections)}"

    def forward(
        self, q: Tensor, k: Tensor, *, query_offset: int | None = None
    ) -> tuple[Tensor, Tensor]:
        n_q, n_k = q.shape[-2], k.shape[-2]
        first = n_k - n_q if query_offset is None else check_int("query_offset", query_offset,
                                                                   minimum=0)  # fmt: skip
        kp = torch.arange(n_k, device=k.device).unsqueeze(-1).expand(-1, 3)  # [n_k, 3]
        qp = torch.arange(first, first + n_q, device=q.device).unsqueeze(-1).expand(-1, 3)
        rotate = {"base": self.base, "sections": self.sections, "interleaved": True}
        return apply_rotary_nd(q, qp, **rotate), apply_rotary_nd(k, kp, **rotate)


class ToyContinuousBias(nn.Module):
    """Swin V2's continuous bias on a 1-D window ``(1, n)`` (the toy form of that family).

    .. math::

        B_{h,i,j} = 16\\,\\sigma\\big(\\mathrm{MLP}(0, \\widehat\\Delta_{i-j})_h\\big), \\qquad
        \\widehat\\Delta = \\operatorname{sign}(\\Delta)\\,
        \\frac{\\log_2\\big(1 + 8|\\Delta| / (L - 1)\\big)}{\\log_2 8}

    A sequence is a window of one row: the row coordinate is always 0 and the column offset
    ``i − j`` is normalised by the trained length ``L`` (Swin V2's
    ``pretrained_window_size``), so a longer sequence reuses the coordinates of the trained
    offsets and adds new ones a little beyond them. ``cpb_mlp`` is laid out as
    :class:`posenc.window_v2.ContinuousPositionBias`'s.

    Args:
        num_heads: ``h``.
        trained_length: ``L >= 2``, the length that sets the scale of the offsets.
        hidden_dim: the MLP's hidden width (Swin V2: 512).

    Shapes:
        ``forward(n) -> [h, n, n]`` (query down, key across), values in ``(0, 16)``.

    Matches: :class:`posenc.window_v2.ContinuousPositionBias` with ``window_size=(1, n)`` and
    ``pretrained_window_size=(2, L)``.
    """

    def __init__(self, num_heads: int, trained_length: int, *, hidden_dim: int = 512) -> None:
        super().__init__()
        self.num_heads = check_int("num_heads", num_heads)
        self.trained_length = check_int("trained_length", trained_length, minimum=2)
        self.hidden_dim = check_int("hidden_dim", hidden_dim)
        self.cpb_mlp = nn.Sequential(
            nn.Linear(2, self.hidden_dim, bias=True),
            nn.ReLU(inplace=True),
            nn.Linear(self.hidden_dim, self.num_heads, bias=False),
        )

    def extra_repr(self) -> str:
        return (
            f"num_heads={self.num_heads}, trained_length={self.trained_length}, "
            f"hidden_dim={self.hidden_dim}"
        )

    def forward(self, n: int) -> Tensor:
        n = check_int("n", n)
        weight = self.cpb_mlp[0].weight
        coords = log_spaced_relative_coords((1, n), (2, self.trained_length))[0]  # [2n-1, 2]
        table = self.cpb_mlp(coords.to(device=weight.device, dtype=weight.dtype))  # [2n-1, h]
        i = torch.arange(n, device=weight.device)
        index = i[:, None] - i[None, :] + n - 1  # [n, n]: offset query − key, shifted
        return 16 * torch.sigmoid(table[index]).permute(2, 0, 1)  # [h, n, n]


class _Block(nn.Module):
    """Pre-LayerNorm block: ``x + attn(LN(x))``, then ``x + MLP(LN(x))``.

    ``attn`` is called with the mask, and with the bias when there is one (only the default
    :class:`ToySelfAttention` gets a bias); its weights are asked through :class:`ToyAttention`.
    """

    def __init__(self, dim: int, mlp_ratio: int, make_attention: Callable[[], nn.Module]) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = make_attention()
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(
            nn.Linear(dim, mlp_ratio * dim), nn.GELU(), nn.Linear(mlp_ratio * dim, dim)
        )

    def forward(
        self,
        x: Tensor,
        bias: Tensor | None,
        mask: Tensor | None,
        weights: list[Tensor] | None = None,
    ) -> Tensor:
        h = self.norm1(x)  # [b, n, d]
        if weights is not None:  # also keep the weights
            if not isinstance(self.attn, ToyAttention):
                raise TypeError(
                    f"the attention weights of {type(self.attn).__name__} are unknown: "
                    "it does not implement ToyAttention (an attention_weights method)"
                )
            weights.append(self.attn.attention_weights(h, bias=bias, mask=mask))  # [b, h, n, n]
        if bias is None:
            x = x + self.attn(h, mask=mask)  # [b, n, d]
        else:
            x = x + self.attn(h, bias=bias, mask=mask)  # [b, n, d]
        return x + self.mlp(self.norm2(x))  # [b, n, d]


class TinyTransformer(nn.Module):
    """A small pre-LayerNorm Transformer that predicts one token per position.

    .. math::

        h^{(0)} = E[x] \\;\\to\\; \\text{position}(h^{(0)}) \\;\\to\\;
        L \\times \\text{block} \\;\\to\\; \\text{LN} \\;\\to\\; \\text{logits}

    The model itself knows nothing about order: its attention
    (:class:`posenc.attention.SelfAttention`) is permutation-equivariant. All position
    information comes from the plug-in points, one per family of encodings in the book:

    * ``position``: a module applied to the token embeddings ``[b, n, d] -> [b, n, d]``
      (absolute encodings: :class:`posenc.learned.LearnedPositionalEmbedding`,
      :class:`posenc.sinusoidal.SinusoidalPositionalEncoding`);
    * ``attention_bias``: a module called as ``attention_bias(n)`` that returns an additive
      logit bias broadcastable to ``[h, n, n]``, added in every layer
      (:class:`posenc.t5.T5RelativePositionBias`, :class:`posenc.alibi.ALiBiBias`);
    * ``rotary``: a module called as ``rotary(q, k) -> (q, k)`` on every layer's queries and
      keys ``[b, h, n, d/h]`` (:class:`posenc.rotary.RotaryEmbedding` for ``d/h`` channels;
      the same module serves every layer);
    * ``attention``: a factory ``attention(dim, num_heads) -> module`` called once per layer,
      replacing the plain attention by a module called as ``module(x, mask=mask)`` (Shaw's
      relative attention: ``lambda d, h: ToyShawAttention(d, h, 4)``); a module that also
      implements :class:`ToyAttention` can be probed and given shared weights.

    Which module a family of :mod:`book.catalogue` plugs in, and where, is that entry's
    ``toy`` field (:func:`book.experiments.length.toy_model` reads it).

    With none of them the model sees a bag of tokens (with ``causal=True`` it also sees which
    tokens come before which, through the mask).

    Token embeddings are initialised ``N(0, 0.02²)``, on the same scale as BERT's tables.

    Args:
        vocab_size: ``V``, the number of input and output tokens.
        dim: ``d``, the model width.
        num_heads: ``h`` (must divide ``dim``).
        num_layers: the number of blocks.
        position: the additive position module, or ``None``.
        mlp_ratio: hidden width of the MLP as a multiple of ``d``.
        attention_bias: the attention-bias module, or ``None``. If it has a ``num_heads``
            attribute, it must equal ``num_heads``. A one-sided bias (``ALiBiBias(causal=True)``,
            ``T5RelativePositionBias(bidirectional=False)``) is a bias, not a mask: pair it
            with ``causal=True``.
        rotary: the query/key hook, or ``None``; needs an even number of channels per head,
            and a ``dim`` attribute, if present, equal to ``dim // num_heads``.
        attention: the attention factory, or ``None`` for :class:`ToySelfAttention`; cannot be combined with
            ``attention_bias`` or ``rotary`` (the custom module receives only the mask).
        causal: if ``True``, position ``p`` attends only to positions ``<= p``
            (:func:`posenc.attention.causal_mask`), as in a decoder.

    Shapes:
        ``tokens``: ``[b, n]`` (int64) → logits ``[b, n, V]``; ``n <= max_positions`` when the
        position module has a maximum length.
    """

    def __init__(
        self,
        vocab_size: int,
        dim: int = 32,
        num_heads: int = 2,
        num_layers: int = 1,
        position: nn.Module | None = None,
        *,
        mlp_ratio: int = 2,
        attention_bias: nn.Module | None = None,
        rotary: nn.Module | None = None,
        attention: Callable[[int, int], nn.Module] | None = None,
        causal: bool = False,
    ) -> None:
        super().__init__()
        self.vocab_size = check_int("vocab_size", vocab_size, minimum=2)
        self.dim = check_int("dim", dim)
        self.num_heads = check_int("num_heads", num_heads)
        num_layers = check_int("num_layers", num_layers)
        mlp_ratio = check_int("mlp_ratio", mlp_ratio)
        for name, module in (
            ("position", position),
            ("attention_bias", attention_bias),
            ("rotary", rotary),
        ):
            if module is not None and not isinstance(module, nn.Module):
                raise TypeError(f"{name} must be an nn.Module or None, got {type(module).__name__}")
        if attention is not None and not callable(attention):
            raise TypeError(
                f"attention must be a factory (dim, num_heads) -> nn.Module, got {type(attention).__name__}"
            )
        causal = check_bool("causal", causal)
        check_heads(dim, num_heads)
        bias_heads = getattr(attention_bias, "num_heads", num_heads)
        if bias_heads != num_heads:
            raise ValueError(
                f"attention_bias must give one bias per head: it has num_heads={bias_heads}, "
                f"the model num_heads={num_heads}"
            )
        if rotary is not None and (dim // num_heads) % 2:
            raise ValueError(
                f"rotary needs an even number of channels per head (they are rotated in pairs), "
                f"got dim / num_heads = {dim} / {num_heads} = {dim // num_heads}"
            )
        if attention is not None and (attention_bias is not None or rotary is not None):
            raise ValueError(
                "attention (a custom attention factory) cannot be combined with attention_bias "
                "or rotary: those act inside the default SelfAttention"
            )
        self.embed = nn.Embedding(vocab_size, dim)
        nn.init.normal_(self.embed.weight, std=0.02)
        self.position = position
        self.attention_bias = attention_bias
        self.rotary = rotary
        self.causal = causal

        def make_attention() -> nn.Module:
            if attention is None:
                return ToySelfAttention(dim, num_heads, rotary=rotary)
            layer = attention(dim, num_heads)
            if not isinstance(layer, nn.Module):
                raise TypeError(
                    f"attention(dim, num_heads) must return an nn.Module, got {type(layer).__name__}"
                )
            return layer

        self._replaced_attention = attention is not None
        self.blocks = nn.ModuleList(
            _Block(dim, mlp_ratio, make_attention) for _ in range(num_layers)
        )
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab_size)

    @property
    def plug_ins(self) -> tuple[str, ...]:
        """The plug-in points in use, in the order of the constructor's arguments (``()``:
        no position information beyond, with ``causal=True``, the mask)."""
        used = {
            "position": self.position is not None,
            "attention_bias": self.attention_bias is not None,
            "rotary": self.rotary is not None,
            "attention": self._replaced_attention,
        }
        return tuple(name for name, on in used.items() if on)

    @property
    def max_positions(self) -> int | None:
        """The longest sequence the model accepts: the position module's ``max_positions``
        (a learned table has no row beyond it), or ``None`` for no limit."""
        limit = getattr(self.position, "max_positions", None)
        return None if limit is None else int(limit)

    def forward(self, tokens: Tensor) -> Tensor:
        return self._run(tokens, None)

    def _run(
        self, tokens: Tensor, weights: list[Tensor] | None, inputs: list[Tensor] | None = None
    ) -> Tensor:
        """The forward pass; appends each layer's attention weights to ``weights`` and the
        normalised input of each layer's attention (``LN(x)``) to ``inputs`` when given."""
        check_tensor("tokens", tokens, ndim=2)
        if tokens.is_floating_point() or tokens.is_complex():
            raise TypeError(f"tokens must be an integer tensor, got dtype {tokens.dtype}")
        n = tokens.shape[1]
        x = self.embed(tokens)  # [b, n, d]
        if self.position is not None:
            x = self.position(x)  # [b, n, d]
        bias = None if self.attention_bias is None else self.attention_bias(n)  # [h, n, n]
        mask = causal_mask(n, n).to(tokens.device) if self.causal else None  # [n, n]
        for block in self.blocks:
            if inputs is not None:
                inputs.append(block.norm1(x))  # [b, n, d]
            x = block(x, bias, mask, weights)  # [b, n, d]
        return self.head(self.norm(x))  # [b, n, V]
