"""Every encoding of the book in one catalogue: what it is, where it enters, what it costs.

The appendix *Which encoding when* prints its comparison tables from here, so that the two
columns that are facts about code, the number of learned parameters and whether an encoding
runs on inputs longer than it was built for, are computed rather than typed:

* :data:`ENCODINGS` holds one :class:`Encoding` per row: name, kind, where it enters
  attention, dimensionality, the models that use it, the posenc names that implement it, and
  two small functions, ``build(size)`` (the posenc module that carries the position
  information, built at a :class:`CatalogueSize`) and ``run(module, size, factor)`` (apply it
  to an input ``factor`` times longer along every position axis);
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

from ._checks import check_int
from .absolute_2d import LearnedRowColEmbedding, detr_sine_encoding, sinusoidal_encoding_2d
from .alibi import ALiBiBias
from .attention import SelfAttention, dot_product_attention
from .learned import LearnedPositionalEmbedding
from .numeric import numeric_encoding
from .rotary import RotaryEmbedding
from .shaw import ShawRelativeMultiheadAttention
from .sinusoidal import SinusoidalPositionalEncoding
from .t5 import T5RelativePositionBias
from .window import SwinRelativePositionBias, WindowAttention, window_partition

__all__ = [
    "ENCODINGS",
    "CatalogueSize",
    "Encoding",
    "get_encoding",
    "learned_parameter_count",
    "markdown_table",
    "overview_rows",
    "posenc_rows",
    "position_parameter_count",
    "reach_rows",
    "runs_beyond",
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


Build = Callable[[CatalogueSize], nn.Module]
Run = Callable[[nn.Module, CatalogueSize, int], Tensor]


@dataclass(frozen=True)
class Encoding:
    """One row of the catalogue: an encoding of the book and the facts about it.

    Args:
        key: a short identifier (``"sinusoidal"``, ``"rope"``, …).
        name: the name shown in the tables.
        kind: ``"none"``, ``"absolute"`` or ``"relative"`` (with a remark for RoPE).
        enters: where position enters attention: the input, the queries and keys, the logits,
            the values.
        dims: ``"1-D"``, ``"2-D"``, ``"3-D"`` or ``"any"``.
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
        enters="queries, keys (every layer)",
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
        enters="queries, keys (every layer)",
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
    ),
)
"""The catalogue, in the order of the book."""


def get_encoding(key: str) -> Encoding:
    """Return the catalogue entry with this ``key``.

    Raises:
        KeyError: no entry has that key (the message lists the keys).
    """
    for enc in ENCODINGS:
        if enc.key == key:
            return enc
    keys = ", ".join(e.key for e in ENCODINGS)
    raise KeyError(f"no encoding {key!r} in the catalogue; keys: {keys}")


def position_parameter_count(module: nn.Module) -> int:
    """Count the trainable parameters that position information adds to a module.

    .. math::

        P = \\sum_{\\theta \\in \\text{params},\\ \\theta \\text{ trainable},\\
            \\theta \\notin \\text{nn.Linear}} \\operatorname{numel}(\\theta)

    The parameters of ``nn.Linear`` submodules (the query, key, value and output projections,
    which every attention layer has, with or without positions) are left out; so are
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
    return sum(p.numel() for p in module.parameters() if p.requires_grad and id(p) not in in_linear)


def learned_parameter_count(encoding: Encoding | str, size: CatalogueSize | None = None) -> int:
    """Build a catalogue entry at ``size`` and count its learned position parameters.

    Args:
        encoding: an :class:`Encoding` or its key.
        size: the sizes to build at (default :class:`CatalogueSize`).

    Returns:
        :func:`position_parameter_count` of ``encoding.build(size)``.
    """
    enc = get_encoding(encoding) if isinstance(encoding, str) else encoding
    return position_parameter_count(enc.build(size or CatalogueSize()))


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
    enc = get_encoding(encoding) if isinstance(encoding, str) else encoding
    factor = check_int("factor", factor)
    size = size or CatalogueSize()
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
    rows = [[e.name, e.kind, e.enters, e.dims, e.models, _link(e.chapter)] for e in encodings]
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
    size = size or CatalogueSize()
    header = ["encoding", "learned parameters", f"runs at {factor}×", "beyond the built size"]
    rows = []
    for e in encodings:
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
        for e in encodings
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
        ValueError: a row has a different number of cells than the header.
    """
    for i, row in enumerate(rows):
        if len(row) != len(header):
            raise ValueError(f"rows[{i}] must have {len(header)} cells like header, got {len(row)}")

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"

    return "\n".join([line(header), line(["---"] * len(header)), *(line(r) for r in rows)])
