"""Every encoding of the book in one catalogue: what it is, where it enters, what it costs.

The appendix *Which encoding when* prints its comparison tables from here, so that the two
columns that are facts about code, the number of learned parameters and whether an encoding
runs on inputs longer than it was built for, are computed rather than typed:

* :data:`ENCODINGS` holds one :class:`Encoding` per row: name, kind, where it enters
  attention, dimensionality, the models that use it, the posenc names that implement it, and
  two small functions, ``build(size)`` (the posenc module that carries the position
  information, built at a :class:`CatalogueSize`) and ``run(module, size, factor)`` (apply it
  to an input ``factor`` times longer along every position axis), and ``toy(options)``, how it
  plugs into the tiny Transformer of the experiments (a :class:`ToyPlugIn` built from
  :class:`ToyOptions`, or ``None`` for a family without a toy form);
* :func:`toy_encodings` lists the keys that have a toy form: :func:`book.toy.toy_model`
  builds exactly those, so this module is the one registry of encodings;
* :func:`position_parameter_count` counts the trainable parameters of a module that are not
  in its ``nn.Linear`` projections, i.e. the parameters that position information adds to an
  attention layer; :func:`learned_parameter_count` does so for a catalogue entry;
* :func:`runs_beyond` builds an entry and runs it on a longer input: ``True`` if it returns
  finite numbers, ``False`` if it refuses with a ``ValueError`` (any other exception is a bug
  and propagates);
* :func:`overview_rows`, :func:`reach_rows`, :func:`posenc_rows` and :func:`markdown_table`
  turn the catalogue into the appendix's tables.

*Running* on a longer input is a property of the code: the encoding produces numbers there.
Whether a trained model is still *accurate* there is an empirical question, which chapter 10
measures.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import torch
from torch import Tensor, nn

from posenc._checks import check_base, check_bool, check_heads, check_int
from posenc.absolute_2d import LearnedRowColEmbedding, detr_sine_encoding, sinusoidal_encoding_2d
from posenc.alibi import ALiBiBias
from posenc.attention import SelfAttention, dot_product_attention
from posenc.learned import LearnedPositionalEmbedding
from posenc.numeric import numeric_encoding
from posenc.rotary import RotaryEmbedding, scaled_rotary_frequencies
from posenc.rotary_nd import apply_rotary_nd
from posenc.shaw import ShawRelativeMultiheadAttention
from posenc.sinusoidal import SinusoidalPositionalEncoding
from posenc.t5 import T5RelativePositionBias
from posenc.window import SwinRelativePositionBias, WindowAttention, window_partition
from posenc.window_v2 import ContinuousPositionBias

__all__ = [
    "ENCODINGS",
    "CatalogueSize",
    "Encoding",
    "ToyOptions",
    "ToyPlugIn",
    "get_encoding",
    "learned_parameter_count",
    "markdown_table",
    "overview_rows",
    "posenc_rows",
    "position_parameter_count",
    "reach_rows",
    "runs_beyond",
    "toy_encodings",
]


@dataclass(frozen=True)
class CatalogueSize:
    """The sizes at which every encoding of the catalogue is built.

    Args:
        n: positions of a sequence (1-D encodings; a learned table gets ``n`` rows).
        d: model width (channels).
        h: attention heads (``d/h`` channels per head).
        grid: side of an image's square grid of tokens (2-D and 3-D encodings; 14 is ViT-B/16
            at 224 × 224 pixels). A learned row/column table gets ``grid`` rows.
        window: ``(Wh, Ww)``, the attention window of the window encodings.
        frames: frames per window of the 3-D (video) window encoding; a clip has ``frames``
            frames.
        k: Shaw et al.'s clipping distance.
        num_buckets: T5's number of buckets.
        max_distance: T5's largest distinguished offset.

    Raises:
        ValueError: a size is not a positive integer, ``d`` is not a multiple of ``2h`` (RoPE
            needs an even head width) or of 4 (2-D sin/cos), or ``grid`` is not a multiple of
            both window sides.
    """

    n: int = 256
    d: int = 64
    h: int = 8
    grid: int = 14
    window: tuple[int, int] = (7, 7)
    frames: int = 2
    k: int = 16
    num_buckets: int = 32
    max_distance: int = 128

    def __post_init__(self) -> None:
        for name in ("n", "d", "h", "grid", "frames", "k", "num_buckets", "max_distance"):
            check_int(name, getattr(self, name))
        if not isinstance(self.window, tuple) or len(self.window) != 2:
            raise TypeError(f"window must be a pair (Wh, Ww), got {self.window!r}")
        for a, w in enumerate(self.window):
            check_int(f"window[{a}]", w)
            if self.grid % w:
                raise ValueError(
                    f"grid must be a multiple of window[{a}] (whole windows), "
                    f"got {self.grid} and {w}"
                )
        if self.d % (2 * self.h) or self.d % 4:
            raise ValueError(
                f"d must be a multiple of 2h (even head width for RoPE) and of 4 (2-D sin/cos), "
                f"got d={self.d}, h={self.h}"
            )


@dataclass(frozen=True)
class ToyOptions:
    """The sizes and family settings with which an encoding's toy form is built.

    :func:`book.toy.toy_model` makes one from its arguments and passes it to the entry's
    ``toy`` function.

    Args:
        dim: ``d``, the model width.
        num_heads: ``h`` (must divide ``dim``).
        causal: whether the model is a decoder (one-sided biases, T5's one-directional
            buckets).
        max_positions: the rows of a learned table.
        shaw_max_relative_position: Shaw's clipping distance ``k``.
        t5_num_buckets: T5's ``num_buckets``; ``None``: 8 per direction (8 when causal, 16
            otherwise).
        t5_max_distance: T5's ``max_distance``.
        rope_base: RoPE's base (``> 1``).

    Raises:
        TypeError / ValueError: a size is not a positive ``int``, ``causal`` is not a
            ``bool``, ``num_heads`` does not divide ``dim`` or ``rope_base <= 1``.
    """

    dim: int = 32
    num_heads: int = 4
    causal: bool = True
    max_positions: int = 16
    shaw_max_relative_position: int = 8
    t5_num_buckets: int | None = None
    t5_max_distance: int = 16
    rope_base: float = 10000.0

    def __post_init__(self) -> None:
        for name in ("dim", "num_heads", "max_positions", "t5_max_distance"):
            check_int(name, getattr(self, name))
        check_heads(self.dim, self.num_heads)
        check_bool("causal", self.causal)
        check_int("shaw_max_relative_position", self.shaw_max_relative_position, minimum=0)
        if self.t5_num_buckets is not None:
            check_int("t5_num_buckets", self.t5_num_buckets)
        check_base("rope_base", self.rope_base)


@dataclass(frozen=True)
class ToyPlugIn:
    """Where an encoding enters the tiny Transformer: the arguments of
    :class:`book.toy.TinyTransformer` it sets (all ``None``: no position information).

    Args:
        position: a module ``[b, n, d] -> [b, n, d]`` applied to the token embeddings.
        attention_bias: a module ``n -> [h, n, n]`` giving an additive logit bias.
        rotary: a module ``(q, k) -> (q, k)`` rotating every layer's queries and keys.
        attention: a factory ``(dim, num_heads) -> layer`` replacing every attention layer
            (a :class:`book.toy.ToyAttention`, so that it can be probed and seeded).
    """

    position: nn.Module | None = None
    attention_bias: nn.Module | None = None
    rotary: nn.Module | None = None
    attention: Callable[[int, int], nn.Module] | None = None

    def kwargs(self) -> dict[str, object]:
        """The plug-ins that are set, as keyword arguments of ``TinyTransformer``."""
        names = ("position", "attention_bias", "rotary", "attention")
        return {name: getattr(self, name) for name in names if getattr(self, name) is not None}


Build = Callable[[CatalogueSize], nn.Module]
Run = Callable[[nn.Module, CatalogueSize, int], Tensor]
Toy = Callable[[ToyOptions], ToyPlugIn]


@dataclass(frozen=True)
class Encoding:
    """One row of the catalogue: an encoding of the book and the facts about it.

    Args:
        key: a short identifier (``"sinusoidal"``, ``"rope"``, …).
        name: the name shown in the tables.
        kind: ``"none"``, ``"absolute"`` or ``"relative"`` (with a remark for RoPE).
        enters: where position enters attention: the input, the queries and keys, the logits,
            the values.
        dims: ``"1-D"``, ``"2-D"``, ``"3-D"``, several of them (``"2-D, 3-D"``) or ``"any"``.
        models: models that use it (conservative: from the papers the book cites and the
            reference code it matches).
        chapter: the chapter that teaches it, e.g. ``"03_sinusoidal"``.
        posenc: fully qualified posenc names that implement it.
        parameter_formula: the learned-parameter count as a formula in the book's symbols.
        beyond: what happens past the size it was built (or trained) for.
        build: ``build(size)`` returns the posenc module that carries the position
            information (an empty ``nn.Module`` for an encoding that is a pure function).
        run: ``run(module, size, factor)`` applies it to an input ``factor`` times longer
            along every position axis than ``size`` and returns the result; a refusal is a
            ``ValueError``.
        toy: ``toy(options)`` returns the :class:`ToyPlugIn` with which
            :func:`book.toy.toy_model` builds a tiny Transformer with this encoding, or
            ``None`` when the family has no toy form (2-D and 3-D encodings, which need an
            image, and the numeric index).
    """

    key: str
    name: str
    kind: str
    enters: str
    dims: str
    models: str
    chapter: str
    posenc: tuple[str, ...]
    parameter_formula: str
    beyond: str
    build: Build = field(repr=False)
    run: Run = field(repr=False)
    toy: Toy | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        for name in ("key", "name", "kind", "enters", "dims", "models", "chapter"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"{name} must be a str, got {type(getattr(self, name)).__name__}")
        if not isinstance(self.posenc, tuple) or not all(isinstance(p, str) for p in self.posenc):
            raise TypeError(f"posenc must be a tuple of str, got {self.posenc!r}")
        for name in ("build", "run"):
            if not callable(getattr(self, name)):
                raise TypeError(f"{name} must be callable")
        if self.toy is not None and not callable(self.toy):
            raise TypeError(f"toy must be callable or None, got {type(self.toy).__name__}")


# -- build and run, one pair per encoding ---------------------------------------------------------
# Inputs are zeros: only whether the code runs, and what it returns, matters here.


def _nothing(size: CatalogueSize) -> nn.Module:
    """A pure function of position carries nothing: an empty module."""
    return nn.Module()


def _run_none(module: nn.Module, size: CatalogueSize, factor: int) -> Tensor:
    return module(torch.zeros(1, size.n * factor, size.d))  # [1, n·f, d]


def _run_numeric(module: nn.Module, size: CatalogueSize, factor: int) -> Tensor:
    return numeric_encoding(size.n * factor)  # [n·f, 1]


def _run_sequence(module: nn.Module, size: CatalogueSize, factor: int) -> Tensor:
    return module(torch.zeros(1, size.n * factor, size.d))  # [1, n·f, d]


def _run_sincos_2d(module: nn.Module, size: CatalogueSize, factor: int) -> Tensor:
    side = size.grid * factor
    return sinusoidal_encoding_2d(side, side, size.d)  # [side², d]


def _run_detr_sine(module: nn.Module, size: CatalogueSize, factor: int) -> Tensor:
    side = size.grid * factor
    padding = torch.zeros(1, side, side, dtype=torch.bool)  # [1, H, W], no padding
    return detr_sine_encoding(padding, size.d // 2, normalize=True)  # [1, d, H, W]


def _run_detr_learned(module: nn.Module, size: CatalogueSize, factor: int) -> Tensor:
    side = size.grid * factor
    return module(torch.zeros(1, size.d, side, side))  # [1, d, H, W]


def _run_rotary(module: nn.Module, size: CatalogueSize, factor: int) -> Tensor:
    q = torch.zeros(1, size.h, size.n * factor, size.d // size.h)  # [1, h, n·f, d/h]
    return module(q, q)[0]


def _run_bias(module: nn.Module, size: CatalogueSize, factor: int) -> Tensor:
    return module(size.n * factor)  # [h, n·f, n·f]


def _run_swin(module: nn.Module, size: CatalogueSize, factor: int) -> Tensor:
    side = size.grid * factor  # more windows of the same size
    windows = window_partition(torch.zeros(1, side, side, size.d), size.window)  # [n_w, Wh·Ww, d]
    return module(windows)  # [n_w, Wh·Ww, d]


def _run_window_3d(module: nn.Module, size: CatalogueSize, factor: int) -> Tensor:
    # a clip factor× longer, taller and wider: factor·(factor·grid/Wh)·(factor·grid/Ww) windows
    wh, ww = size.window
    n_windows = factor * (size.grid * factor // wh) * (size.grid * factor // ww)
    q = torch.zeros(n_windows, size.h, size.frames * wh * ww, size.d // size.h)  # [n_w, h, N, d/h]
    return dot_product_attention(q, q, q, bias=module())  # [n_w, h, N, d/h]


def _run_rotary_grid(module: nn.Module, size: CatalogueSize, factor: int) -> Tensor:
    side = size.grid * factor  # an image factor× taller and wider, one frame
    r, c = torch.meshgrid(torch.arange(side), torch.arange(side), indexing="ij")
    positions = torch.stack((torch.zeros_like(r), r, c), dim=-1).reshape(-1, 3)  # [side², 3]
    q = torch.zeros(1, size.h, side * side, size.d // size.h)  # [1, h, side², d/h]
    return apply_rotary_nd(q, positions, sections=_grid_sections(size.d // size.h))


def _grid_sections(head_dim: int) -> tuple[int, int, int]:
    """Qwen2-VL's shares of the pairs (16/24/24 of 64), rounded down."""
    pairs = head_dim // 2
    t = pairs // 4
    h = (pairs - t) // 2
    return (t, h, pairs - t - h)


def _run_continuous_bias(module: nn.Module, size: CatalogueSize, factor: int) -> Tensor:
    # a window factor× larger on each side, offsets normalised by the built one (Swin V2)
    wh, ww = size.window
    larger = ContinuousPositionBias(
        (wh * factor, ww * factor), size.h, pretrained_window_size=size.window
    )
    larger.load_state_dict(module.state_dict())
    return larger()  # [h, N, N]


# -- toy forms: how each family plugs into the tiny Transformer (book.toy) -----------------------


def _toy_none(options: ToyOptions) -> ToyPlugIn:
    return ToyPlugIn()  # only the causal mask, if any, tells order (NoPE)


def _toy_sinusoidal(options: ToyOptions) -> ToyPlugIn:
    return ToyPlugIn(position=SinusoidalPositionalEncoding(options.dim))


def _toy_learned(options: ToyOptions) -> ToyPlugIn:
    return ToyPlugIn(position=LearnedPositionalEmbedding(options.max_positions, options.dim))


def _toy_shaw(options: ToyOptions) -> ToyPlugIn:
    from book.toy.model import ToyShawAttention  # the toy imports this module: import it late

    clip = options.shaw_max_relative_position  # own a^K, a^V in every layer
    return ToyPlugIn(attention=lambda d, h: ToyShawAttention(d, h, clip))


def _toy_t5(options: ToyOptions) -> ToyPlugIn:
    causal = options.causal
    buckets = (8 if causal else 16) if options.t5_num_buckets is None else options.t5_num_buckets
    bias = T5RelativePositionBias(
        options.num_heads,
        bidirectional=not causal,
        num_buckets=buckets,
        max_distance=options.t5_max_distance,
    )  # one table shared by every layer, as in T5
    return ToyPlugIn(attention_bias=bias)


def _toy_alibi(options: ToyOptions) -> ToyPlugIn:
    return ToyPlugIn(attention_bias=ALiBiBias(options.num_heads, causal=options.causal))


def _toy_rope(options: ToyOptions) -> ToyPlugIn:
    dim, heads = options.dim, options.num_heads
    if (dim // heads) % 2:
        raise ValueError(
            f"rope needs an even number of channels per head (they are rotated in pairs), "
            f"got dim / num_heads = {dim} / {heads} = {dim // heads}"
        )
    return ToyPlugIn(rotary=RotaryEmbedding(dim // heads, base=options.rope_base))


def _build_rope_scaled(size: CatalogueSize) -> nn.Module:
    """RoPE built for ``n`` positions, stretched by YaRN to ``4n`` (chapter 11)."""
    head_dim = size.d // size.h
    inv_freq, scale = scaled_rotary_frequencies(
        head_dim, "yarn", factor=4.0, original_max_positions=size.n
    )
    return RotaryEmbedding(head_dim, max_positions=size.n, inv_freq=inv_freq, attention_scale=scale)


def _toy_rope_grid(options: ToyOptions) -> ToyPlugIn:
    from book.toy.model import ToyMultimodalRotary  # the toy imports this module: import it late

    dim, heads = options.dim, options.num_heads
    if (dim // heads) % 2:
        raise ValueError(
            f"rope_grid needs an even number of channels per head (they are rotated in pairs), "
            f"got dim / num_heads = {dim} / {heads} = {dim // heads}"
        )
    return ToyPlugIn(rotary=ToyMultimodalRotary(dim // heads, base=options.rope_base))


def _toy_swin_v2(options: ToyOptions) -> ToyPlugIn:
    from book.toy.model import ToyContinuousBias

    # the toy trains at up to max_positions tokens: that length sets the scale of the offsets
    length = max(options.max_positions, 2)
    return ToyPlugIn(attention_bias=ToyContinuousBias(options.num_heads, length))


ENCODINGS: tuple[Encoding, ...] = (
    Encoding(
        key="none",
        name="None (NoPE)",
        kind="none",
        enters="—",
        dims="any",
        models="Set Transformer; NoPE decoders",
        chapter="01_why_position",
        posenc=("posenc.attention.SelfAttention",),
        parameter_formula="0",
        beyond="nothing to run out of",
        build=lambda s: SelfAttention(s.d, s.h),
        run=_run_none,
        toy=_toy_none,
    ),
    Encoding(
        key="numeric",
        name="Numeric index",
        kind="absolute",
        enters="input",
        dims="1-D",
        models="none",
        chapter="02_numeric_encodings",
        posenc=("posenc.numeric.numeric_encoding", "posenc.numeric.periodic_encoding"),
        parameter_formula="0",
        beyond="raw: values grow; normalised: codes depend on n",
        build=_nothing,
        run=_run_numeric,
    ),
    Encoding(
        key="sinusoidal",
        name="Sinusoidal",
        kind="absolute",
        enters="input",
        dims="1-D",
        models="Transformer",
        chapter="03_sinusoidal",
        posenc=(
            "posenc.sinusoidal.sinusoidal_encoding",
            "posenc.sinusoidal.SinusoidalPositionalEncoding",
        ),
        parameter_formula="0",
        beyond="codes never seen in training",
        build=lambda s: SinusoidalPositionalEncoding(s.d, max_positions=s.n),
        run=_run_sequence,
        toy=_toy_sinusoidal,
    ),
    Encoding(
        key="learned",
        name="Learned table",
        kind="absolute",
        enters="input",
        dims="1-D",
        models="BERT, GPT-2, ViT, ConvS2S",
        chapter="04_learned_absolute",
        posenc=(
            "posenc.learned.LearnedPositionalEmbedding",
            "posenc.absolute_2d.resample_positional_embedding",
        ),
        parameter_formula="n·d",
        beyond="no rows (resample the table)",
        build=lambda s: LearnedPositionalEmbedding(s.n, s.d),
        run=_run_sequence,
        toy=_toy_learned,
    ),
    Encoding(
        key="sincos_2d",
        name="2-D sin/cos",
        kind="absolute",
        enters="input",
        dims="2-D",
        models="MAE",
        chapter="05_absolute_2d",
        posenc=(
            "posenc.absolute_2d.sinusoidal_encoding_2d",
            "posenc.absolute_2d.sinusoidal_2d_channel_permutation",
        ),
        parameter_formula="0",
        beyond="codes never seen in training",
        build=_nothing,
        run=_run_sincos_2d,
    ),
    Encoding(
        key="detr_sine",
        name="DETR sine",
        kind="absolute",
        enters="queries, keys (encoder); keys (cross-attention)",
        dims="2-D",
        models="DETR",
        chapter="05_absolute_2d",
        posenc=("posenc.absolute_2d.detr_sine_encoding",),
        parameter_formula="0",
        beyond="codes never seen (normalize: finer steps)",
        build=_nothing,
        run=_run_detr_sine,
    ),
    Encoding(
        key="detr_learned",
        name="DETR learned rows, columns",
        kind="absolute",
        enters="queries, keys (encoder); keys (cross-attention)",
        dims="2-D",
        models="DETR (alternative)",
        chapter="05_absolute_2d",
        posenc=("posenc.absolute_2d.LearnedRowColEmbedding",),
        parameter_formula="2·grid·d/2",
        beyond="no rows past max_positions",
        build=lambda s: LearnedRowColEmbedding(s.d // 2, max_positions=s.grid),
        run=_run_detr_learned,
    ),
    Encoding(
        key="shaw",
        name="Shaw (aᴷ, aⱽ)",
        kind="relative",
        enters="logits, values",
        dims="1-D",
        models="Shaw et al.; Music Transformer (aᴷ)",
        chapter="06_shaw_relative",
        posenc=(
            "posenc.shaw.shaw_attention",
            "posenc.shaw.ShawRelativeMultiheadAttention",
            "posenc.shaw.shaw_relative_index",
        ),
        parameter_formula="2(2k+1)·d/h",
        beyond="offsets past ±k clipped",
        build=lambda s: ShawRelativeMultiheadAttention(s.d, s.h, s.k),
        run=_run_sequence,
        toy=_toy_shaw,
    ),
    Encoding(
        key="swin",
        name="Swin window bias",
        kind="relative",
        enters="logits",
        dims="2-D",
        models="Swin",
        chapter="07_swin_relative_bias",
        posenc=(
            "posenc.window.SwinRelativePositionBias",
            "posenc.window.relative_position_index",
            "posenc.window.WindowAttention",
        ),
        parameter_formula="(2Wh−1)(2Ww−1)·h",
        beyond="more windows; a larger window has no rows",
        build=lambda s: WindowAttention(s.d, s.window, s.h),
        run=_run_swin,
    ),
    Encoding(
        key="window_3d",
        name="3-D window bias",
        kind="relative",
        enters="logits",
        dims="3-D",
        models="Video Swin, RSTT",
        chapter="08_video_cross_attention",
        posenc=("posenc.window.SwinRelativePositionBias", "posenc.window.relative_position_index"),
        parameter_formula="(2D−1)(2Wh−1)(2Ww−1)·h",
        beyond="more windows; a longer window has no rows",
        build=lambda s: SwinRelativePositionBias((s.frames, *s.window), s.h),
        run=_run_window_3d,
    ),
    Encoding(
        key="swin_v2",
        name="Swin V2 continuous bias",
        kind="relative",
        enters="logits",
        dims="2-D",
        models="Swin V2",
        chapter="12_positions_on_grids",
        posenc=(
            "posenc.window_v2.ContinuousPositionBias",
            "posenc.window_v2.log_spaced_relative_coords",
        ),
        parameter_formula="3·512 + 512·h",
        beyond="a larger window: the MLP meets log-spaced offsets a little past its training",
        build=lambda s: ContinuousPositionBias(s.window, s.h),
        run=_run_continuous_bias,
        toy=_toy_swin_v2,
    ),
    Encoding(
        key="rope_grid",
        name="RoPE on grids (M-RoPE, axial 2-D)",
        kind="relative (by rotation, per axis)",
        enters="queries, keys (rotated)",
        dims="2-D, 3-D",
        models="Qwen2-VL (M-RoPE; axial 2-D in its vision encoder)",
        chapter="12_positions_on_grids",
        posenc=(
            "posenc.rotary_nd.rotary_angles_nd",
            "posenc.rotary_nd.rotary_angles_2d",
            "posenc.rotary_nd.apply_rotary_nd",
        ),
        parameter_formula="0",
        beyond="angles never seen in training, per axis",
        build=_nothing,
        run=_run_rotary_grid,
        toy=_toy_rope_grid,
    ),
    Encoding(
        key="rope",
        name="RoPE",
        kind="relative (by rotation)",
        enters="queries, keys (rotated)",
        dims="1-D",
        models="RoFormer, GPT-J, GPT-NeoX, Llama",
        chapter="09_rotary_alibi_t5",
        posenc=("posenc.rotary.apply_rotary", "posenc.rotary.RotaryEmbedding"),
        parameter_formula="0",
        beyond="angles never seen in training",
        build=lambda s: RotaryEmbedding(s.d // s.h, max_positions=s.n),
        run=_run_rotary,
        toy=_toy_rope,
    ),
    Encoding(
        key="rope_scaled",
        name="Stretched RoPE (PI, NTK, YaRN, Llama 3.1, LongRoPE)",
        kind="relative (by rotation, frequencies stretched)",
        enters="queries, keys (rotated)",
        dims="1-D",
        models="Llama 3.1 (its band); DeepSeek-V3, Qwen2.5 optionally (YaRN); Phi-3 (LongRoPE)",
        chapter="11_stretching_rope",
        posenc=(
            "posenc.rotary.scaled_rotary_frequencies",
            "posenc.rotary.RotaryEmbedding",
        ),
        parameter_formula="0",
        beyond="s times the trained length; further on, unseen angles again",
        build=_build_rope_scaled,
        run=_run_rotary,
        # no toy form of its own: stretching is applied to a model trained with plain RoPE,
        # which book.experiments.scaling does (chapter 11); a plug-in would train with it from scratch
    ),
    Encoding(
        key="alibi",
        name="ALiBi",
        kind="relative",
        enters="logits",
        dims="1-D",
        models="BLOOM, MPT",
        chapter="09_rotary_alibi_t5",
        posenc=("posenc.alibi.alibi_bias", "posenc.alibi.ALiBiBias"),
        parameter_formula="0",
        beyond="the penalty keeps growing",
        build=lambda s: ALiBiBias(s.h),
        run=_run_bias,
        toy=_toy_alibi,
    ),
    Encoding(
        key="t5",
        name="T5 buckets",
        kind="relative",
        enters="logits",
        dims="1-D",
        models="T5",
        chapter="09_rotary_alibi_t5",
        posenc=("posenc.t5.t5_relative_bucket", "posenc.t5.T5RelativePositionBias"),
        parameter_formula="num_buckets·h",
        beyond="far offsets share the last bucket",
        build=lambda s: T5RelativePositionBias(
            s.h, num_buckets=s.num_buckets, max_distance=s.max_distance
        ),
        run=_run_bias,
        toy=_toy_t5,
    ),
)
"""The catalogue, in the order of the book."""


def get_encoding(key: str) -> Encoding:
    """Return the catalogue entry with this ``key``.

    Raises:
        TypeError: ``key`` is not a ``str``.
        ValueError: no entry has that key (the message lists the keys).
    """
    if not isinstance(key, str):
        raise TypeError(f"key must be a str, got {type(key).__name__} {key!r}")
    for enc in ENCODINGS:
        if enc.key == key:
            return enc
    keys = ", ".join(e.key for e in ENCODINGS)
    raise ValueError(f"key must be one of the catalogue's keys ({keys}); no encoding {key!r}")


def toy_encodings() -> tuple[str, ...]:
    """The keys of the entries that have a toy form, in the order of the catalogue.

    These are the encodings :func:`book.toy.toy_model` builds: the toy keeps no list of
    its own.

    Returns:
        the keys of the entries whose ``toy`` is not ``None``.
    """
    return tuple(e.key for e in ENCODINGS if e.toy is not None)


def _entry(encoding: object) -> Encoding:
    """An :class:`Encoding` from an entry or its key."""
    if isinstance(encoding, Encoding):
        return encoding
    if isinstance(encoding, str):
        return get_encoding(encoding)
    raise TypeError(
        f"encoding must be an Encoding or its key (a str), got {type(encoding).__name__}"
    )


def _size(size: object) -> CatalogueSize:
    """``size``, or the default :class:`CatalogueSize` for ``None``."""
    if size is None:
        return CatalogueSize()
    if not isinstance(size, CatalogueSize):
        raise TypeError(f"size must be a CatalogueSize or None, got {type(size).__name__}")
    return size


def _entries(encodings: object) -> list[Encoding]:
    """The entries of an iterable of :class:`Encoding`."""
    if isinstance(encodings, (str, Encoding)) or not isinstance(encodings, Iterable):
        raise TypeError(
            f"encodings must be an iterable of Encoding entries, got {type(encodings).__name__}"
        )
    entries = list(encodings)
    for i, e in enumerate(entries):
        if not isinstance(e, Encoding):
            raise TypeError(f"encodings[{i}] must be an Encoding, got {type(e).__name__}")
    return entries


def position_parameter_count(module: nn.Module) -> int:
    """Count the trainable parameters that position information adds to a module.

    .. math::

        P = \\sum_{\\theta \\in \\text{params},\\ \\theta \\text{ trainable},\\
            \\theta \\notin \\text{nn.Linear}} \\operatorname{numel}(\\theta)

    The parameters of ``nn.Linear`` submodules (the query, key, value and output projections,
    which every attention layer has, with or without positions) are left out, except those of
    a continuous position bias's MLP (a submodule named ``cpb_mlp``, Swin V2's), which
    computes position information and nothing else; left out too are
    parameters with ``requires_grad=False`` (a fixed table stored as a frozen parameter, as
    MAE stores its sin/cos table) and buffers.

    Args:
        module: a position module (``LearnedPositionalEmbedding``, ``ALiBiBias``, …) or an
            attention layer that contains one (``ShawRelativeMultiheadAttention``,
            ``WindowAttention``).

    Returns:
        the number of learned position parameters.
    """
    if not isinstance(module, nn.Module):
        raise TypeError(f"module must be an nn.Module, got {type(module).__name__}")
    linears = (m for m in module.modules() if isinstance(m, nn.Linear))
    in_linear = {id(p) for m in linears for p in m.parameters()}
    mlps = (
        m.cpb_mlp for m in module.modules() if isinstance(getattr(m, "cpb_mlp", None), nn.Module)
    )
    in_linear -= {id(p) for mlp in mlps for p in mlp.parameters()}  # position MLPs count
    return sum(p.numel() for p in module.parameters() if p.requires_grad and id(p) not in in_linear)


def learned_parameter_count(encoding: Encoding | str, size: CatalogueSize | None = None) -> int:
    """Build a catalogue entry at ``size`` and count its learned position parameters.

    Args:
        encoding: an :class:`Encoding` or its key.
        size: the sizes to build at (default :class:`CatalogueSize`).

    Returns:
        :func:`position_parameter_count` of ``encoding.build(size)``.
    """
    return position_parameter_count(_entry(encoding).build(_size(size)))


def runs_beyond(
    encoding: Encoding | str, size: CatalogueSize | None = None, factor: int = 4
) -> bool:
    """Whether an encoding built at ``size`` runs on an input ``factor`` times longer.

    "Longer" means along every position axis: a sequence of ``factor·n`` tokens, a grid of
    ``factor·grid`` × ``factor·grid`` tokens (for window encodings: the same windows, more of
    them), a clip of ``factor·frames`` frames of that grid.

    Args:
        encoding: an :class:`Encoding` or its key.
        size: the sizes to build at (default :class:`CatalogueSize`).
        factor: how many times longer (``1``: the size it was built for).

    Returns:
        ``True`` if it returns a result and every number in it is finite; ``False`` if it
        refuses with a ``ValueError`` or returns non-finite numbers. Any other exception
        propagates (it would be a bug, not a refusal).
    """
    enc = _entry(encoding)
    factor = check_int("factor", factor)
    size = _size(size)
    module = enc.build(size)
    try:
        with torch.no_grad():
            out = enc.run(module, size, factor)
    except ValueError:
        return False
    return bool(torch.isfinite(out).all())


def _link(chapter: str) -> str:
    number = chapter.split("_", 1)[0].lstrip("0")
    return f"[{number}](../chapters/{chapter}.ipynb)"


def overview_rows(encodings: Iterable[Encoding] = ENCODINGS) -> tuple[list[str], list[list[str]]]:
    """The first table: what each encoding is, where it enters, who uses it.

    Returns:
        ``(header, rows)``; the chapter column holds Markdown links relative to a page in
        ``appendix/`` (they work in Jupyter and in the book).
    """
    header = ["encoding", "kind", "enters at", "dims", "used by", "chapter"]
    rows = [
        [e.name, e.kind, e.enters, e.dims, e.models, _link(e.chapter)] for e in _entries(encodings)
    ]
    return header, rows


def reach_rows(
    size: CatalogueSize | None = None, factor: int = 4, encodings: Iterable[Encoding] = ENCODINGS
) -> tuple[list[str], list[list[str]]]:
    """The second table: learned parameters and behaviour beyond the built size, computed.

    Each entry is built at ``size``; its parameters are counted with
    :func:`learned_parameter_count` (shown with the formula when there are any) and it is run
    ``factor`` times longer with :func:`runs_beyond`.

    Returns:
        ``(header, rows)``.
    """
    size = _size(size)
    factor = check_int("factor", factor)
    header = ["encoding", "learned parameters", f"runs at {factor}×", "beyond the built size"]
    rows = []
    for e in _entries(encodings):
        count = learned_parameter_count(e, size)
        learned = f"{count:,} = {e.parameter_formula}" if count else "0"
        runs = "yes" if runs_beyond(e, size, factor) else "no (ValueError)"
        rows.append([e.name, learned, runs, e.beyond])
    return header, rows


def posenc_rows(encodings: Iterable[Encoding] = ENCODINGS) -> tuple[list[str], list[list[str]]]:
    """The third table: where each encoding lives in posenc.

    Returns:
        ``(header, rows)``, the names as inline code, relative to ``posenc``.
    """
    header = ["encoding", "in posenc"]
    rows = [
        [e.name, ", ".join(f"`{name.removeprefix('posenc.')}`" for name in e.posenc)]
        for e in _entries(encodings)
    ]
    return header, rows


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Return a Markdown (GFM/MyST) pipe table.

    Args:
        header: the column titles.
        rows: one sequence of cell strings per row, each as long as ``header``.

    Returns:
        the table as text; ``|`` inside a cell is escaped.

    Raises:
        TypeError: the header or a row is not a sequence of ``str``.
        ValueError: a row has a different number of cells than the header.
    """
    if isinstance(header, str) or not isinstance(header, Sequence) or not header:
        raise TypeError(f"header must be a non-empty sequence of str, got {header!r}")
    if isinstance(rows, str) or not isinstance(rows, Sequence):
        raise TypeError(f"rows must be a sequence of rows, got {type(rows).__name__}")
    for i, cell in enumerate(header):
        if not isinstance(cell, str):
            raise TypeError(f"header[{i}] must be a str, got {type(cell).__name__}")
    for i, row in enumerate(rows):
        if isinstance(row, str) or not isinstance(row, Sequence):
            raise TypeError(f"rows[{i}] must be a sequence of str, got {type(row).__name__}")
        for j, cell in enumerate(row):
            if not isinstance(cell, str):
                raise TypeError(f"rows[{i}][{j}] must be a str, got {type(cell).__name__}")
        if len(row) != len(header):
            raise ValueError(f"rows[{i}] must have {len(header)} cells like header, got {len(row)}")

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"

    return "\n".join([line(header), line(["---"] * len(header)), *(line(r) for r in rows)])
