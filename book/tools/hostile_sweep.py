"""Throw bad inputs at posenc's public API and classify what happens (issue 11).

Each call takes one valid call and replaces one argument with a bad value. The outcome is:

* ``clear``: a ``ValueError`` or ``TypeError`` whose message names the argument;
* ``unclear``: any other exception, or a ``ValueError``/``TypeError`` that does not name it;
* ``silent``: the call returned, although the value breaks a rule of issue 11;
* ``edge ok``: a genuine edge case (an empty tensor, float64 where float32 was given, ...)
  that returned: accepted on purpose, not counted as silent.

Usage::

    .venv/bin/python -m book sweep            # counts per outcome and per area
    .venv/bin/python -m book sweep --list     # also every unclear and silent call
    PYTHONPATH=/tmp/before .venv/bin/python -m book sweep   # another tree

Functions and modules of ``posenc`` come with hand-written valid calls and the kind of each
argument; figures (``book.figures``) and explorers (``book.explorers``) are found by
signature, and each argument with a default gets bad values of its annotated kind.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import os
import pkgutil
import re
import signal
import sys
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import torch

NAN, INF = float("nan"), float("inf")
BAD, EDGE = "bad", "edge"
TIMEOUT_S = 20


@dataclass
class Call:
    area: str  # e.g. "posenc.window_partition" or "plotting.t5.t5_buckets_figure"
    arg: str  # the argument replaced; a clear message names it
    label: str  # the bad value, briefly
    expect: str  # BAD (must be refused) or EDGE (may work)
    run: Callable[[], object]


@dataclass
class Outcome:
    call: Call
    kind: str  # clear / unclear / silent / edge ok
    detail: str = ""


@dataclass
class Sweep:
    calls: list[Call] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)  # specs that could not be built


# ---------------------------------------------------------------------------------------------
# Bad values by kind of argument. Each entry: (label, value or factory of the valid value, expect)


def scalar_values(kind: str, name: str = "") -> list[tuple[str, object, str]]:
    """Bad values for a scalar argument of ``kind``."""
    if kind == "size":  # positive int
        return [
            ("True", True, BAD),
            ("2.5", 2.5, BAD),
            ("'3'", "3", BAD),
            ("0", 0, BAD),
            ("-1", -1, BAD),
            ("nan", NAN, BAD),
            ("1j", 1j, BAD),
        ]
    if kind == "size0":  # int >= 0
        return [("True", True, BAD), ("1.5", 1.5, BAD), ("'2'", "2", BAD), ("-1", -1, BAD)]
    if kind == "flag":
        return [
            ("'False'", "False", BAD),
            ("'True'", "True", BAD),
            ("1", 1, BAD),
            ("0", 0, BAD),
            ("None", None, BAD),
            ("1.0", 1.0, BAD),
        ]
    if kind == "base":
        return [
            ("1", 1, BAD),
            ("1.0", 1.0, BAD),
            ("0.5", 0.5, BAD),
            ("0", 0, BAD),
            ("-10", -10.0, BAD),
            ("nan", NAN, BAD),
            ("inf", INF, BAD),
            ("True", True, BAD),
            ("'10000'", "10000", BAD),
            ("1j", 1j, BAD),
        ]
    if kind == "pos_real":  # finite > 0
        return [
            ("0", 0.0, BAD),
            ("-1", -1.0, BAD),
            ("nan", NAN, BAD),
            ("inf", INF, BAD),
            ("True", True, BAD),
            ("'1'", "1", BAD),
            ("1j", 1j, BAD),
        ]
    if kind == "real":  # any finite real
        return [
            ("nan", NAN, BAD),
            ("inf", INF, BAD),
            ("True", True, BAD),
            ("'1'", "1", BAD),
            ("1j", 1j, BAD),
        ]
    if kind == "unit":  # in (0, 1)
        return [("0", 0.0, BAD), ("1.5", 1.5, BAD), ("nan", NAN, BAD), ("True", True, BAD)]
    if kind == "offset":  # any int (None allowed)
        return [("True", True, BAD), ("1.5", 1.5, BAD), ("'2'", "2", BAD)]
    if kind == "dtype":
        return [
            ("torch.int64", torch.int64, BAD),
            ("torch.bool", torch.bool, BAD),
            ("'float32'", "float32", BAD),
            ("torch.complex64", torch.complex64, BAD),
        ]
    if kind == "choice":
        return [("'nonsense'", "nonsense", BAD), ("3", 3, BAD), ("None", None, BAD)]
    if kind == "key":
        return [("'nonsense'", "nonsense", BAD), ("3", 3, BAD)]
    raise KeyError(kind)


def shape_values(rank: int | None) -> list[tuple[str, object, str]]:
    """Bad values for a window or grid shape (a sequence of positive ints)."""
    values = [
        ("7", 7, BAD),
        ("'77'", "77", BAD),
        ("()", (), BAD),
        ("(0, 2)", (0, 2) if rank in (None, 2) else (0,) + (2,) * (rank - 1), BAD),
        ("(True, 2)", (True, 2) if rank in (None, 2) else (True,) + (2,) * (rank - 1), BAD),
        ("(2.0, 2)", (2.0, 2) if rank in (None, 2) else (2.0,) + (2,) * (rank - 1), BAD),
        ("(-1, 2)", (-1, 2) if rank in (None, 2) else (-1,) + (2,) * (rank - 1), BAD),
        ("None", None, EDGE),  # the default of an optional shape (key_shape, key_step)
    ]
    if rank is not None:
        values += [
            ("one entry too many", (2,) * (rank + 1), BAD),
            ("one too few", (2,) * max(rank - 1, 1) if rank > 1 else (2, 2), BAD),
        ]
    return values


def tensor_values(kind: str, valid: torch.Tensor) -> list[tuple[str, object, str]]:
    """Bad values for a tensor argument of ``kind``, derived from its valid value."""
    v = valid
    wrong_rank = v.reshape(-1) if v.ndim > 1 else v[None, None]
    common = [("a list", v.tolist(), BAD), ("a numpy array", v.numpy(), BAD)]
    if kind == "any_dtype":  # reshaped only: any dtype is fine
        return common + [
            ("int64", v.round().long(), EDGE),
            ("bool", v > 0, EDGE),
            ("complex64", v.to(torch.complex64), EDGE),
            ("wrong rank", wrong_rank, BAD),
            ("empty first axis", v[:0], EDGE),
        ]
    if kind in ("float", "float_nd", "float_mix", "float_fixed", "float_own_batch"):
        values = [
            ("int64", v.round().long(), BAD),
            ("bool", v > 0, BAD),
            ("complex64", v.to(torch.complex64), BAD),
            # float_nd: any number of leading axes is allowed ([..., d])
            ("wrong rank", wrong_rank, EDGE if kind == "float_nd" else BAD),
            # among other tensors, an empty batch no longer matches theirs
            ("empty first axis", v[:0], BAD if kind == "float_mix" else EDGE),
        ]
        if kind in ("float_mix", "float_own_batch"):  # must share the other tensors' dtype
            values.append(("float64 among float32", v.double(), BAD))
        elif kind == "float_fixed":  # must have the module's dtype
            values.append(("float64 into a float32 module", v.double(), BAD))
        else:
            values.append(("float64", v.double(), EDGE))
        return common + values
    if kind in ("positions", "positions_nd"):
        return [
            ("NaN position", torch.tensor([0.0, NAN, 2.0]), BAD),
            ("inf position", torch.tensor([0.0, INF]), BAD),
            ("bool tensor", torch.tensor([True, False, True]), BAD),
            ("complex tensor", torch.tensor([0.0, 1.0]).to(torch.complex64), BAD),
            # positions_nd: a tensor [..., n] of positions is allowed
            ("2-D tensor", torch.zeros(2, 3), EDGE if kind == "positions_nd" else BAD),
            ("True", True, BAD),
            ("2.5", 2.5, BAD),
            ("'5'", "5", BAD),
            ("-1", -1, BAD),
            ("empty tensor", torch.zeros(0), EDGE),
            ("a list", [0, 1, 2], EDGE),
        ]
    if kind == "mask":
        n_q, n_k = v.shape[-2:]
        return common + [
            ("float mask", v.float(), BAD),
            ("int mask", v.long(), BAD),
            ("mask of a wrong shape", torch.ones(n_q + 1, n_k + 2, dtype=torch.bool), BAD),
        ]
    if kind == "bias":
        n_q, n_k = v.shape[-2:]
        return common + [
            ("bool bias", v > 0, BAD),
            ("int bias", v.round().long(), BAD),
            ("complex bias", v.to(torch.complex64), BAD),
            ("bias of a wrong shape", torch.zeros(n_q + 1, n_k + 2), BAD),
            ("NaN bias", torch.full_like(v, NAN), EDGE),
        ]
    if kind == "padding_mask":
        return common + [
            ("float mask", v.float(), BAD),
            ("int mask", v.long(), BAD),
            ("wrong rank", v[0], BAD),
            ("empty batch", v[:0], EDGE),
        ]
    if kind == "long_positions":  # integer relative positions
        return common + [
            ("float tensor", v.double() + 0.5, BAD),
            ("bool tensor", v > 0, BAD),
            ("complex tensor", v.to(torch.complex64), BAD),
            # clamped to ±max_distance first: every bucket right (documented, tested)
            ("out-of-range int64", torch.tensor([2**62, -(2**62)]), EDGE),
            ("empty tensor", v.reshape(-1)[:0], EDGE),
        ]
    if kind == "index":
        return common + [
            ("float tensor", v.double(), BAD),
            ("bool tensor", v > 0, BAD),
            ("wrong rank", v.reshape(-1), BAD),
            ("wrong size", v[:-1, :-1], BAD),
        ]
    if kind == "table":  # a 2-D real table, any float dtype
        return common + [
            ("int64", v.round().long(), BAD),
            ("bool", v > 0, BAD),
            ("complex64", v.to(torch.complex64), BAD),
            ("wrong rank", v[None, None], BAD),
            ("no channels", v[:, :0], EDGE),
            ("float64", v.double(), EDGE),
        ]
    raise KeyError(kind)


# ---------------------------------------------------------------------------------------------
# The core API: one valid call per public function / module, with the kind of each argument

g = torch.Generator().manual_seed(0)


def randn(*shape: int) -> torch.Tensor:
    return torch.randn(shape, generator=g)


def causal(n_q: int, n_k: int) -> torch.Tensor:
    return torch.ones(n_q, n_k, dtype=torch.bool).tril(n_k - n_q)


def add_spec(
    sweep: Sweep, area: str, build: Callable[[], tuple[Callable[..., object], dict, dict]]
) -> None:
    """``build() -> (function, valid kwargs, {argument: kind})``; one call per bad value."""
    try:
        fn, valid, kinds = build()
    except Exception as error:  # noqa: BLE001 (the API changed: report it, go on)
        sweep.broken.append(f"{area}: {type(error).__name__}: {error}")
        return
    for arg, kind in kinds.items():
        if isinstance(kind, tuple) and kind[0] == "shape":
            values = shape_values(kind[1])
        elif kind in ("positions", "positions_nd"):
            values = tensor_values(kind, torch.zeros(1))
        elif isinstance(valid.get(arg), torch.Tensor):
            values = tensor_values(kind, valid[arg])
        else:
            values = scalar_values(kind, arg)
        for label, value, expect in values:
            args = dict(valid, **{arg: value})
            sweep.calls.append(Call(area, arg, label, expect, lambda fn=fn, args=args: fn(**args)))


def module_forward(cls: type, ctor: dict, method: str = "__call__") -> Callable[..., object]:
    def forward(**kwargs: object) -> object:
        torch.manual_seed(0)
        return getattr(cls(**ctor), method)(**kwargs)

    return forward


def core_specs(sweep: Sweep) -> None:
    import posenc as P

    def spec(area: str):
        def register(build):
            add_spec(sweep, "posenc." + area, build)
            return build

        return register

    q, k, v = randn(2, 5, 8), randn(2, 6, 8), randn(2, 6, 4)

    # -- attention
    spec("attention_weights")(
        lambda: (
            P.attention_weights,
            {"q": q, "k": k, "bias": randn(5, 6), "mask": causal(5, 6)},
            {"q": "float_mix", "k": "float_mix", "bias": "bias", "mask": "mask"},
        )
    )
    spec("dot_product_attention")(
        lambda: (
            P.dot_product_attention,
            {"q": q, "k": k, "v": v, "bias": randn(5, 6), "mask": causal(5, 6)},
            {"q": "float_mix", "k": "float_mix", "v": "float_mix", "bias": "bias", "mask": "mask"},
        )
    )
    spec("masked_softmax")(
        lambda: (
            P.masked_softmax,
            {"logits": randn(2, 5, 6), "mask": causal(5, 6)},
            {"logits": "float", "mask": "mask"},
        )
    )
    spec("causal_mask")(
        lambda: (
            P.causal_mask,
            {"n_q": 5, "n_k": 6, "query_offset": 1},
            {"n_q": "size", "n_k": "size", "query_offset": "offset"},
        )
    )
    spec("query_key_positions")(
        lambda: (
            P.query_key_positions,
            {"n_q": 5, "n_k": 6},
            {"n_q": "size", "n_k": "size", "query_offset": "offset"},
        )
    )
    spec("absolute_logit_terms")(
        lambda: (
            P.absolute_logit_terms,
            {"x": randn(5, 6), "p": randn(5, 6), "w_q": randn(4, 6), "w_k": randn(4, 6)},
            {"x": "float_mix", "p": "float_mix", "w_q": "float_mix", "w_k": "float_mix"},
        )
    )
    spec("offset_variance_share")(
        lambda: (P.offset_variance_share, {"logits": randn(2, 5, 6)}, {"logits": "float"})
    )
    spec("SelfAttention()")(
        lambda: (P.SelfAttention, {"dim": 8, "num_heads": 2}, {"dim": "size", "num_heads": "size"})
    )
    spec("SelfAttention.forward")(
        lambda: (
            module_forward(P.SelfAttention, {"dim": 8, "num_heads": 2}),
            {
                "x": randn(2, 5, 8),
                "bias": randn(5, 5),
                "mask": causal(5, 5),
                "return_weights": False,
            },
            {"x": "float_fixed", "bias": "bias", "mask": "mask", "return_weights": "flag"},
        )
    )
    # -- numeric
    spec("numeric_encoding")(
        lambda: (
            P.numeric_encoding,
            {"n_positions": 5, "normalize": False},
            {"n_positions": "size", "normalize": "flag"},
        )
    )
    spec("pairwise_distances")(
        lambda: (P.pairwise_distances, {"encoding": randn(5, 3)}, {"encoding": "table"})
    )
    spec("closest_distinct_pair")(
        lambda: (P.closest_distinct_pair, {"encoding": randn(5, 3)}, {"encoding": "table"})
    )
    spec("periodic_encoding")(
        lambda: (
            P.periodic_encoding,
            {"positions": 5, "alpha": 0.5, "cosine": False},
            {"positions": "positions", "alpha": "pos_real", "cosine": "flag"},
        )
    )
    spec("periodic_shift_matrix")(
        lambda: (
            P.periodic_shift_matrix,
            {"offset": 2.0, "alpha": 0.5},
            {"offset": "real", "alpha": "pos_real"},
        )
    )
    # -- sinusoidal
    spec("sinusoidal_encoding")(
        lambda: (
            P.sinusoidal_encoding,
            {
                "positions": 5,
                "dim": 8,
                "base": 10000.0,
                "interleaved": True,
                "dtype": torch.float32,
            },
            {
                "positions": "positions",
                "dim": "size",
                "base": "base",
                "interleaved": "flag",
                "dtype": "dtype",
            },
        )
    )
    for name in ("sinusoidal_frequencies", "sinusoidal_wavelengths"):
        spec(name)(
            lambda name=name: (
                getattr(P, name),
                {"dim": 8, "base": 10000.0},
                {"dim": "size", "base": "base"},
            )
        )
    spec("sinusoidal_shift_matrix")(
        lambda: (
            P.sinusoidal_shift_matrix,
            {"offset": 2.0, "dim": 8, "base": 10000.0, "interleaved": True},
            {"offset": "real", "dim": "size", "base": "base", "interleaved": "flag"},
        )
    )
    spec("sinusoidal_dot_product")(
        lambda: (
            P.sinusoidal_dot_product,
            {"offsets": 5, "dim": 8, "base": 10000.0},
            {"offsets": "positions", "dim": "size", "base": "base"},
        )
    )
    spec("SinusoidalPositionalEncoding()")(
        lambda: (
            P.SinusoidalPositionalEncoding,
            {"dim": 8, "max_positions": 16, "base": 10000.0, "interleaved": True},
            {"dim": "size", "max_positions": "size", "base": "base", "interleaved": "flag"},
        )
    )
    spec("SinusoidalPositionalEncoding.forward")(
        lambda: (
            module_forward(P.SinusoidalPositionalEncoding, {"dim": 8, "max_positions": 16}),
            {"x": randn(2, 5, 8)},
            {"x": "float"},
        )
    )
    # -- learned
    spec("LearnedPositionalEmbedding()")(
        lambda: (
            P.LearnedPositionalEmbedding,
            {"max_positions": 16, "dim": 8, "std": 0.02},
            {"max_positions": "size", "dim": "size", "std": "pos_real", "init": "choice"},
        )
    )
    spec("LearnedPositionalEmbedding.forward")(
        lambda: (
            module_forward(P.LearnedPositionalEmbedding, {"max_positions": 16, "dim": 8}),
            {"x": randn(2, 5, 8)},
            {"x": "float"},
        )
    )
    spec("cosine_similarity_matrix")(
        lambda: (P.cosine_similarity_matrix, {"table": randn(5, 8)}, {"table": "table"})
    )
    # -- 2-D absolute
    spec("sinusoidal_encoding_2d")(
        lambda: (
            P.sinusoidal_encoding_2d,
            {
                "height": 2,
                "width": 3,
                "dim": 8,
                "base": 10000.0,
                "interleaved": True,
                "row_first": True,
            },
            {
                "height": "size",
                "width": "size",
                "dim": "size",
                "base": "base",
                "interleaved": "flag",
                "row_first": "flag",
            },
        )
    )
    spec("sinusoidal_2d_channel_permutation")(
        lambda: (
            P.sinusoidal_2d_channel_permutation,
            {"dim": 8, "interleaved": False, "row_first": False},
            {"dim": "size", "interleaved": "flag", "row_first": "flag"},
        )
    )
    spec("detr_sine_encoding")(
        lambda: (
            P.detr_sine_encoding,
            {
                "padding_mask": torch.zeros(2, 3, 4, dtype=torch.bool),
                "num_pos_feats": 4,
                "base": 10000.0,
                "normalize": True,
                "scale": 6.0,
            },
            {
                "padding_mask": "padding_mask",
                "num_pos_feats": "size",
                "base": "base",
                "normalize": "flag",
                "scale": "pos_real",
            },
        )
    )
    spec("LearnedRowColEmbedding()")(
        lambda: (
            P.LearnedRowColEmbedding,
            {"num_pos_feats": 4, "max_positions": 6},
            {"num_pos_feats": "size", "max_positions": "size"},
        )
    )
    spec("LearnedRowColEmbedding.forward")(
        lambda: (
            module_forward(P.LearnedRowColEmbedding, {"num_pos_feats": 4, "max_positions": 6}),
            {"x": randn(2, 3, 4, 5)},
            {"x": "float"},
        )
    )
    spec("resample_positional_embedding")(
        lambda: (
            P.resample_positional_embedding,
            {
                "table": randn(10, 8),
                "old_size": 3,
                "new_size": (4, 5),
                "mode": "bicubic",
                "antialias": False,
                "num_prefix_tokens": 1,
            },
            {
                "table": "table",
                "old_size": "size",
                "new_size": "size",
                "mode": "choice",
                "antialias": "flag",
                "num_prefix_tokens": "size0",
            },
        )
    )
    spec("sincos_resampling_error")(
        lambda: (
            P.sincos_resampling_error,
            {
                "old_size": 4,
                "new_size": 6,
                "dim": 8,
                "base": 10000.0,
                "mode": "bicubic",
                "antialias": False,
            },
            {
                "old_size": "size",
                "new_size": "size",
                "dim": "size",
                "base": "base",
                "mode": "choice",
                "antialias": "flag",
            },
        )
    )
    spec("resampling_error_per_pair")(
        lambda: (P.resampling_error_per_pair, {"error": randn(16, 8)}, {"error": "table"})
    )
    spec("resampling_error_map")(
        lambda: (
            P.resampling_error_map,
            {"error": randn(16, 8), "base": 10000.0, "max_frequency": 0.1},
            {"error": "table", "base": "base", "max_frequency": "pos_real"},
        )
    )
    # -- Shaw
    rel_k, rel_v = randn(5, 8), randn(5, 4)
    for name in ("shaw_attention", "shaw_attention_reference"):
        spec(name)(
            lambda name=name: (
                getattr(P, name),
                {"q": q, "k": k, "v": v, "rel_k": rel_k, "rel_v": rel_v, "mask": causal(5, 6)},
                {
                    "q": "float_mix",
                    "k": "float_mix",
                    "v": "float_mix",
                    "rel_k": "float_mix",
                    "rel_v": "float_mix",
                    "mask": "mask",
                },
            )
        )
    spec("shaw_relative_index")(
        lambda: (
            P.shaw_relative_index,
            {"n_q": 5, "n_k": 6, "max_relative_position": 2},
            {"n_q": "size", "n_k": "size", "max_relative_position": "size0"},
        )
    )
    spec("ShawRelativeMultiheadAttention()")(
        lambda: (
            P.ShawRelativeMultiheadAttention,
            {"dim": 8, "num_heads": 2, "max_relative_position": 3, "qkv_bias": True},
            {
                "dim": "size",
                "num_heads": "size",
                "max_relative_position": "size0",
                "qkv_bias": "flag",
            },
        )
    )
    spec("ShawRelativeMultiheadAttention.forward")(
        lambda: (
            module_forward(
                P.ShawRelativeMultiheadAttention,
                {"dim": 8, "num_heads": 2, "max_relative_position": 3},
            ),
            {"x": randn(2, 5, 8), "context": randn(2, 6, 8), "mask": causal(5, 6)},
            {"x": "float_fixed", "context": "float_fixed", "mask": "mask"},
        )
    )
    # -- window
    for name in ("relative_table_size",):
        spec(name)(
            lambda name=name: (
                getattr(P, name),
                {"query_shape": (2, 3)},
                {"query_shape": ("shape", None)},
            )
        )
    for name in ("relative_offsets", "relative_position_index"):
        spec(name)(
            lambda name=name: (
                getattr(P, name),
                {"query_shape": (3, 2), "key_shape": (2, 2), "key_step": (2, 1)},
                {
                    "query_shape": ("shape", None),
                    "key_shape": ("shape", 2),
                    "key_step": ("shape", 2),
                },
            )
        )
    spec("relative_index_check")(
        lambda: (
            P.relative_index_check,
            {"index": P.relative_position_index((2, 3)), "window_size": (2, 3)},
            {"index": "index", "window_size": ("shape", None)},
        )
    )
    spec("frame_offset_counts")(
        lambda: (
            P.frame_offset_counts,
            {"query_frames": 7, "key_frames": 4, "key_step": 2},
            {"query_frames": "size", "key_frames": "size", "key_step": "size"},
        )
    )
    for name in ("rstt_key_frames", "spread_key_step"):
        spec(name)(
            lambda name=name: (
                getattr(P, name),
                {"query_frames": 7, "key_frames": 4},
                {"query_frames": "size", "key_frames": "size"},
            )
        )
    spec("SwinRelativePositionBias()")(
        lambda: (
            P.SwinRelativePositionBias,
            {"query_shape": (3, 2), "num_heads": 2, "key_shape": (2, 2), "key_step": (2, 1)},
            {
                "query_shape": ("shape", None),
                "num_heads": "size",
                "key_shape": ("shape", 2),
                "key_step": ("shape", 2),
            },
        )
    )
    spec("window_partition")(
        lambda: (
            P.window_partition,
            {"x": randn(2, 4, 6, 3), "window_size": (2, 3)},
            {"x": "any_dtype", "window_size": ("shape", 2)},
        )
    )
    spec("window_merge")(
        lambda: (
            P.window_merge,
            {"windows": randn(8, 6, 3), "window_size": (2, 3), "height": 4, "width": 6},
            {
                "windows": "any_dtype",
                "window_size": ("shape", 2),
                "height": "size",
                "width": "size",
            },
        )
    )
    spec("shifted_window_mask")(
        lambda: (
            P.shifted_window_mask,
            {"height": 4, "width": 4, "window_size": (2, 2), "shift": (1, 1)},
            {"height": "size", "width": "size", "window_size": ("shape", 2), "shift": ("shape", 2)},
        )
    )
    spec("WindowAttention()")(
        lambda: (
            P.WindowAttention,
            {"dim": 8, "window_size": (2, 2), "num_heads": 2, "qkv_bias": True},
            {"dim": "size", "window_size": ("shape", 2), "num_heads": "size", "qkv_bias": "flag"},
        )
    )
    spec("WindowAttention.forward")(
        lambda: (
            module_forward(P.WindowAttention, {"dim": 8, "window_size": (2, 2), "num_heads": 2}),
            {"x": randn(8, 4, 8), "mask": P.shifted_window_mask(4, 4, (2, 2), (1, 1))},
            {"x": "float_fixed", "mask": "mask"},
        )
    )
    # -- rotary
    spec("rotary_angles")(
        lambda: (
            P.rotary_angles,
            {"positions": 5, "dim": 8, "base": 10000.0},
            {"positions": "positions_nd", "dim": "size", "base": "base"},
        )
    )
    spec("rotary_cos_sin")(
        lambda: (
            P.rotary_cos_sin,
            {
                "positions": 5,
                "dim": 8,
                "base": 10000.0,
                "interleaved": True,
                "dtype": torch.float32,
            },
            {
                "positions": "positions_nd",
                "dim": "size",
                "base": "base",
                "interleaved": "flag",
                "dtype": "dtype",
            },
        )
    )
    spec("apply_rotary")(
        lambda: (
            P.apply_rotary,
            {
                "x": randn(2, 5, 8),
                "positions": torch.arange(5.0),
                "base": 10000.0,
                "interleaved": True,
            },
            {"x": "float", "positions": "positions", "base": "base", "interleaved": "flag"},
        )
    )
    spec("rotary_matrix")(
        lambda: (
            P.rotary_matrix,
            {"position": 3.0, "dim": 8, "base": 10000.0, "interleaved": True},
            {"position": "real", "dim": "size", "base": "base", "interleaved": "flag"},
        )
    )
    spec("rotary_decay_bound")(
        lambda: (
            P.rotary_decay_bound,
            {"offsets": 5, "dim": 8, "base": 10000.0},
            {"offsets": "positions", "dim": "size", "base": "base"},
        )
    )
    spec("rotary_offset_logits")(
        lambda: (
            P.rotary_offset_logits,
            {
                "q": randn(3, 8),
                "k": randn(3, 8),
                "offsets": 6,
                "base": 10000.0,
                "interleaved": True,
            },
            {
                "q": "float_mix",
                "k": "float_mix",
                "offsets": "positions",
                "base": "base",
                "interleaved": "flag",
            },
        )
    )
    spec("rotary_permutation")(
        lambda: (
            P.rotary_permutation,
            {"dim": 8, "num_heads": 2},
            {"dim": "size", "num_heads": "size"},
        )
    )
    spec("rotary_quarter_turn")(
        lambda: (
            P.rotary_quarter_turn,
            {"x": randn(2, 5, 8), "interleaved": True},
            {"x": "float_nd", "interleaved": "flag"},
        )
    )
    spec("RotaryEmbedding()")(
        lambda: (
            P.RotaryEmbedding,
            {"dim": 8, "base": 10000.0, "interleaved": True, "max_positions": 16},
            {"dim": "size", "base": "base", "interleaved": "flag", "max_positions": "size"},
        )
    )
    spec("RotaryEmbedding.forward")(
        lambda: (
            module_forward(P.RotaryEmbedding, {"dim": 8}),
            {"q": randn(2, 5, 8), "k": randn(2, 6, 8), "query_offset": 1},
            # q and k are rotated separately: their batches need not match
            {"q": "float_own_batch", "k": "float_own_batch", "query_offset": "offset"},
        )
    )
    # -- stretched and multi-axis RoPE (issue 14)
    spec("scaled_rotary_frequencies")(
        lambda: (
            P.scaled_rotary_frequencies,
            {
                "dim": 8,
                "method": "yarn",
                "base": 10000.0,
                "factor": 4.0,
                "original_max_positions": 64,
            },
            {
                "dim": "size",
                "method": "choice",
                "base": "base",
                "factor": "pos_real",
                "original_max_positions": "size",
            },
        )
    )
    # -- chapter 11: every stretching method, NTK-aware and partial RoPE under one name
    spec("stretched_rotary_frequencies")(
        lambda: (
            P.stretched_rotary_frequencies,
            {"method": "ntk", "dim": 8, "base": 10000.0, "factor": 4.0},
            {"method": "choice", "dim": "size", "base": "base", "factor": "pos_real"},
        )
    )
    spec("stretched_rotary_frequencies")(
        lambda: (
            P.stretched_rotary_frequencies,
            {"method": "partial", "dim": 8, "rotary_dim": 4},
            {"dim": "size", "rotary_dim": "size"},
        )
    )
    spec("rotary_angles_2d")(
        lambda: (
            P.rotary_angles_2d,
            {"height": 3, "width": 4, "dim": 16, "base": 100.0},
            {"height": "size", "width": "size", "dim": "size", "base": "base"},
        )
    )
    spec("rotary_pair_axes")(
        lambda: (
            P.rotary_pair_axes,
            {"dim": 12, "num_axes": 3},
            {"dim": "size", "num_axes": "size"},
        )
    )
    spec("log_spaced_relative_coords")(
        lambda: (
            P.log_spaced_relative_coords,
            {"window_size": (3, 4), "pretrained_window_size": (2, 2)},
            {"window_size": ("shape", 2), "pretrained_window_size": ("shape", 2)},
        )
    )
    spec("ContinuousPositionBias()")(
        lambda: (
            P.ContinuousPositionBias,
            {"window_size": (3, 4), "num_heads": 2, "hidden_dim": 8},
            {"window_size": ("shape", 2), "num_heads": "size", "hidden_dim": "size"},
        )
    )
    # -- chapter 12: worked examples and the figures that take required arguments
    from book.demos import grids as G
    from book.figures import rotary_nd as RP
    from book.figures import window_v2 as WP

    spec("demos.grids.multimodal_positions")(
        lambda: (
            G.multimodal_positions,
            {"segments": [2, (1, 2, 2)]},
            {"segments": ("shape", None)},
        )
    )
    spec("demos.grids.locality_bias_target")(
        lambda: (G.locality_bias_target, {"window_size": (3, 4)}, {"window_size": ("shape", 2)})
    )
    spec("demos.grids.window_bias_transfer")(
        lambda: (
            G.window_bias_transfer,
            {"small": (2, 2), "large": (3, 3), "steps": 1, "seed": 0, "hidden_dim": 4},
            {
                "small": ("shape", 2),
                "large": ("shape", 2),
                "steps": "size0",
                "seed": "size0",
                "hidden_dim": "size",
            },
        )
    )
    spec("plotting.rotary_nd.rotary_grid_scores")(
        lambda: (
            RP.rotary_grid_scores,
            {"layout": "mrope", "query": (1, 2), "side": 4, "dim": 12, "base": 100.0},
            {
                "layout": "choice",
                "query": "key",  # a (row, column) place: 0 is allowed
                "side": "size",
                "dim": "size",
                "base": "base",
            },
        )
    )
    small_mlp = G.window_bias_transfer((2, 2), (2, 2), steps=0, hidden_dim=4).mlp
    spec("plotting.window_v2.continuous_bias_figure")(
        lambda: (
            WP.continuous_bias_figure,
            {"window": 4, "pretrained": 2, "mlp": small_mlp, "head": 0},
            {"window": "size", "pretrained": "size", "mlp": "key", "head": "offset"},
        )
    )
    # -- ALiBi and T5
    spec("alibi_slopes")(lambda: (P.alibi_slopes, {"num_heads": 4}, {"num_heads": "size"}))
    spec("alibi_span")(
        lambda: (
            P.alibi_span,
            {"num_heads": 4, "n": 64, "mass": 0.9},
            {"num_heads": "size", "n": "size", "mass": "unit"},
        )
    )
    for name in ("alibi_bias", "alibi_distances"):
        spec(name)(
            lambda name=name: (
                getattr(P, name),
                dict(
                    n_q=5, n_k=6, causal=True, **({"num_heads": 4} if name == "alibi_bias" else {})
                ),
                dict(
                    n_q="size",
                    n_k="size",
                    causal="flag",
                    query_offset="offset",
                    **({"num_heads": "size", "dtype": "dtype"} if name == "alibi_bias" else {}),
                ),
            )
        )
    spec("ALiBiBias()")(
        lambda: (
            P.ALiBiBias,
            {"num_heads": 4, "causal": True},
            {"num_heads": "size", "causal": "flag"},
        )
    )
    spec("ALiBiBias.forward")(
        lambda: (
            module_forward(P.ALiBiBias, {"num_heads": 4}),
            {"n_q": 5, "n_k": 6},
            {"n_q": "size", "n_k": "size", "query_offset": "offset"},
        )
    )
    t5_options = {"bidirectional": True, "num_buckets": 8, "max_distance": 16}
    t5_kinds = {"bidirectional": "flag", "num_buckets": "size", "max_distance": "size"}
    spec("t5_relative_bucket")(
        lambda: (
            P.t5_relative_bucket,
            dict(relative_position=torch.arange(-20, 21), **t5_options),
            dict(relative_position="long_positions", **t5_kinds),
        )
    )
    spec("t5_bucket_index")(
        lambda: (
            P.t5_bucket_index,
            dict(n_q=5, n_k=6, **t5_options),
            dict(n_q="size", n_k="size", query_offset="offset", **t5_kinds),
        )
    )
    spec("t5_bucket_starts")(lambda: (P.t5_bucket_starts, dict(t5_options), dict(t5_kinds)))
    spec("T5RelativePositionBias()")(
        lambda: (
            P.T5RelativePositionBias,
            dict(num_heads=2, **t5_options),
            dict(num_heads="size", **t5_kinds),
        )
    )
    spec("T5RelativePositionBias.forward")(
        lambda: (
            module_forward(P.T5RelativePositionBias, dict(num_heads=2, **t5_options)),
            {"n_q": 5, "n_k": 6},
            {"n_q": "size", "n_k": "size", "query_offset": "offset"},
        )
    )
    # -- catalogue
    spec("get_encoding")(lambda: (P.get_encoding, {"key": "rope"}, {"key": "key"}))
    for name in ("learned_parameter_count", "runs_beyond"):
        spec(name)(lambda name=name: (getattr(P, name), {"encoding": "rope"}, {"encoding": "key"}))
    spec("CatalogueSize()")(
        lambda: (
            P.CatalogueSize,
            {
                "n": 64,
                "d": 16,
                "h": 2,
                "grid": 4,
                "frames": 2,
                "k": 4,
                "num_buckets": 8,
                "max_distance": 16,
            },
            {
                "n": "size",
                "d": "size",
                "h": "size",
                "grid": "size",
                "window": ("shape", 2),
                "frames": "size",
                "k": "size",
                "num_buckets": "size",
                "max_distance": "size",
            },
        )
    )


# ---------------------------------------------------------------------------------------------
# Figures and explorers: found by signature, each argument with a default gets bad values


SIZE_NAMES = {
    "height", "width", "dim", "size", "num_heads", "n", "num_pos_feats", "old_size", "new_size",
    "canvas", "context", "max_offset", "n_positions", "columns", "max_position", "n_points",
    "num_buckets", "max_distance", "query_frames", "key_frames", "key_step", "draws", "dpi",
    "max_combinations", "length",
}  # fmt: skip
SIGNED_NAMES = {"offset", "seed", "query", "layer"}


def annotation_kind(name: str, param: inspect.Parameter) -> str | None:
    """The kind of a figure/explorer argument, from its annotation and default."""
    text = str(param.annotation)
    default = param.default
    if isinstance(default, bool) or text == "bool":
        return "flag"
    if text.startswith(("Sequence", "tuple")) or isinstance(default, tuple):
        return "sequence"
    if text in ("int", "int | None") or (
        isinstance(default, int) and not isinstance(default, bool)
    ):
        return "fig_int"
    if text in ("float", "float | None") or isinstance(default, float):
        return "fig_float"
    if text == "str" or isinstance(default, str):
        return "fig_str"
    return None


def figure_values(
    name: str, kind: str, default: object, annotation: str = ""
) -> list[tuple[str, object, str]]:
    if kind == "flag":
        return [("'False'", "False", BAD), ("1", 1, BAD)]
    if kind == "fig_int":
        values = [("True", True, BAD), ("2.5", 2.5, BAD), ("'3'", "3", BAD)]
        if name in SIZE_NAMES:
            values += [("0", 0, BAD if name not in ("draws",) else EDGE), ("-1", -1, BAD)]
        elif name not in SIGNED_NAMES:
            values += [("-1", -1, EDGE)]
        return values
    if kind == "fig_float":
        values = [("nan", NAN, BAD), ("inf", INF, BAD), ("True", True, BAD), ("'1'", "1", BAD)]
        if "base" in name:
            values.append(("1.0", 1.0, BAD))
        return values
    if kind == "fig_str":  # an int may be allowed too (a query token by number)
        return [("'nonsense'", "nonsense", BAD)] + ([] if "int" in annotation else [("3", 3, BAD)])
    if kind == "sequence":
        # sinusoidal_dot_product_figure draws no markers for positions=() (documented, tested)
        empty = EDGE if annotation.startswith("tuple[int, ...]") and name == "positions" else BAD
        values = [("()", (), empty), ("'ab'", "ab", BAD), ("3", 3, BAD)]
        if isinstance(default, tuple) and default and isinstance(default[0], (int, float)):
            values.append(("(-1, ...)", (-1,) + tuple(default[1:]), BAD))
            values.append(("(True, ...)", (True,) + tuple(default[1:]), BAD))
        return values
    return []


def figure_specs(sweep: Sweep, package: str) -> None:
    """Every public function of ``posenc.<package>.*`` whose arguments all have defaults."""
    try:
        pkg = importlib.import_module(f"posenc.{package}")
    except Exception as error:  # noqa: BLE001 (an import failed: report it, go on)
        sweep.broken.append(f"posenc.{package}: {type(error).__name__}: {error}")
        return
    for info in pkgutil.iter_modules(pkg.__path__):
        if info.name.startswith("_") or info.name == "explorer":
            continue
        try:
            module = importlib.import_module(f"posenc.{package}.{info.name}")
        except Exception as error:  # noqa: BLE001 (an import failed: report it, go on)
            sweep.broken.append(f"posenc.{package}.{info.name}: {type(error).__name__}: {error}")
            continue
        names = getattr(module, "__all__", None) or [
            n
            for n, o in vars(module).items()
            if inspect.isfunction(o) and o.__module__ == module.__name__ and not n.startswith("_")
        ]
        for fname in names:
            fn = getattr(module, fname)
            if not inspect.isfunction(fn):
                continue
            params = inspect.signature(fn).parameters
            if any(p.default is inspect.Parameter.empty for p in params.values()):
                continue  # needs a figure axis, results or a model: not swept
            for pname, param in params.items():
                kind = annotation_kind(pname, param)
                if kind is None or param.kind is inspect.Parameter.VAR_KEYWORD:
                    continue
                for label, value, expect in figure_values(
                    pname, kind, param.default, str(param.annotation)
                ):
                    sweep.calls.append(
                        Call(
                            f"{package}.{info.name}.{fname}",
                            pname,
                            label,
                            expect,
                            lambda fn=fn, pname=pname, value=value: fn(**{pname: value}),
                        )
                    )


# ---------------------------------------------------------------------------------------------
# Running and classifying


class Timeout(Exception):
    pass


def _alarm(signum: int, frame: object) -> None:
    raise Timeout(f"no answer within {TIMEOUT_S} s")


def classify(call: Call) -> Outcome:
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIMEOUT_S)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = call.run()
    except (ValueError, TypeError) as error:
        message = str(error)
        named = re.search(rf"(?<![A-Za-z0-9_]){re.escape(call.arg)}(?![A-Za-z0-9_])", message)
        kind = "clear" if named else "unclear"
        return Outcome(call, kind, f"{type(error).__name__}: {message}")
    except Exception as error:  # noqa: BLE001 (classifying is the point)
        return Outcome(call, "unclear", f"{type(error).__name__}: {str(error)[:200]}")
    finally:
        signal.alarm(0)
        _close_figures()
    del result
    return Outcome(call, "silent" if call.expect == BAD else "edge ok")


def _close_figures() -> None:
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")


def build_sweep() -> Sweep:
    sweep = Sweep()
    core_specs(sweep)
    figure_specs(sweep, "plotting")
    figure_specs(sweep, "widgets")
    return sweep


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="list every unclear and silent call")
    parser.add_argument("--only", default="", help="only areas containing this text")
    args = parser.parse_args(argv)
    import posenc

    torch.set_num_threads(1)
    sweep = build_sweep()
    calls = [c for c in sweep.calls if args.only in c.area]
    outcomes = []
    for call in calls:
        outcomes.append(classify(call))
    counts = Counter(o.kind for o in outcomes)
    bad = sum(1 for o in outcomes if o.call.expect == BAD)
    print(f"posenc from {os.path.dirname(posenc.__file__)}")
    print(
        f"{len(outcomes)} calls ({bad} with a value issue 11 refuses, {len(outcomes) - bad} edge cases)"
    )
    for kind in ("clear", "unclear", "silent", "edge ok"):
        share = counts[kind] / max(len(outcomes), 1)
        print(f"  {kind:8s} {counts[kind]:5d}  ({share:.0%})")
    areas = Counter(o.call.area.split(".")[0] for o in outcomes)
    by_area = Counter((o.call.area.split(".")[0], o.kind) for o in outcomes)
    for area in sorted(areas):
        parts = ", ".join(
            f"{k} {by_area[area, k]}" for k in ("clear", "unclear", "silent", "edge ok")
        )
        print(f"  {area}: {areas[area]} calls: {parts}")
    if sweep.broken:
        print(f"\n{len(sweep.broken)} specs could not be built (API changed or import failed):")
        for line in sweep.broken:
            print(f"  {line}")
    if args.list:
        for kind in ("silent", "unclear"):
            chosen = [o for o in outcomes if o.kind == kind]
            print(f"\n{kind} ({len(chosen)}):")
            for o in chosen:
                c = o.call
                detail = f": {o.detail[:160]}" if o.detail else ""
                print(f"  {c.area}({c.arg}={c.label}){detail}")
    else:
        print("\n(--list prints every unclear and silent call)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
