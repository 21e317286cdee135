"""The hand-kept tables of the hostile-input sweep (:mod:`book.tools.hostile_sweep`).

What a signature cannot say, and nothing else:

* :data:`BASELINES`: one valid example call per target (keyword arguments that succeed);
  every bad value is put into it. A test calls each one, so a stale example fails loudly.
* :data:`ALLOWED`: generated values that are valid for one argument, with the reason
  (``-1`` is a fine ``query_offset``); they are run and must not fail unclearly.
* :data:`NAMED_RULES`: bad values for every parameter of a name (a ``base`` must exceed 1).
* :data:`HAND_CASES`: the rules between arguments: two tensors that disagree in shape or
  dtype, a boolean tensor as ``bias=``, a state dict of other sizes, ...
* :data:`EXEMPT`: public targets that are not swept, with the reason.

Keys are dotted names in the module that makes the target public
(``posenc.attention.SelfAttention.forward``: the forward of an instance built from the class's
baseline). A key that names nothing public any more is reported as stale.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from matplotlib.figure import Figure
from torch import Tensor, nn

__all__ = [
    "ALLOWED",
    "BASELINES",
    "EXEMPT",
    "HAND_CASES",
    "NAMED_RULES",
    "NOT_GENERATED",
    "HandCase",
    "NamedRule",
]

NAN, INF = float("nan"), float("inf")


@dataclass(frozen=True)
class NamedRule:
    """Extra bad values for every parameter of one name: a rule its type cannot say."""

    applies: Callable[[object, object], bool]  # (hint, valid value) -> whether it applies
    values: Callable[[object], list[tuple[str, object]]]  # valid value -> (label, bad value)
    why: str


@dataclass(frozen=True)
class HandCase:
    """A hand-written bad call: the target's baseline with ``change`` applied, or ``call``
    given the target itself (a function or class)."""

    key: str
    arg: str  # a clear message names it
    label: str
    change: Callable[[dict[str, object]], dict[str, object]] | None = None
    call: Callable[[Callable[..., Any]], object] | None = None


NOT_GENERATED: dict[object, str] = {
    torch.device: "a device goes straight to torch, which refuses a bad one itself; an int "
    "is a valid accelerator index, which a machine without one cannot tell from a bad one",
}
"""Annotation members that get no generated values, with the reason (``Any``, ``object`` and
names only a type checker imports get none either: there is no type to derive them from)."""

EXEMPT: dict[str, str] = {
    "posenc.absolute_2d.ResampleMode": "a type alias (the Literal of the resampling modes); "
    "resample_positional_embedding's mode is swept with it",
    "posenc.rotary.ROTARY_SCALINGS": "a registry (method name -> RotaryScaling), not a call; "
    "scaled_rotary_frequencies, which looks methods up in it, is swept",
    "posenc.rotary.RotaryScalingArgs": "a record of scaled_rotary_frequencies' arguments once "
    "checked (documented as unchecked when built by hand); scaled_rotary_frequencies is swept",
    "posenc.rotary.RotaryScaling": "a Protocol (the signature of a registered RoPE scaling), "
    "never called; scaled_rotary_frequencies checks every argument before calling one",
}
"""Public targets not swept (constants, type aliases, protocols, registries), with the reason."""


# ---------------------------------------------------------------------------------------------
# Valid example calls


def randn(*shape: int) -> Tensor:
    """A reproducible float32 tensor."""
    return torch.randn(shape, generator=torch.Generator().manual_seed(sum(shape)))


def causal(n_q: int, n_k: int) -> Tensor:
    """A boolean causal mask ``[n_q, n_k]`` (queries at the end of the keys)."""
    return torch.ones(n_q, n_k, dtype=torch.bool).tril(n_k - n_q)


def _length_results() -> object:
    """A small hand-made ``LengthResults`` (no training)."""
    from book.experiments import LengthResults

    names, lengths = ("none", "rope"), (8, 16)
    per_position = {
        e: {n: torch.linspace(1.0, 0.2 * i, n, dtype=torch.float64) for n in lengths}
        for i, e in enumerate(names)
    }
    return LengthResults(
        task="shift",
        k=2,
        train_lengths=(4, 8),
        eval_lengths=lengths,
        accuracy={e: {n: float(a.mean()) for n, a in per_position[e].items()} for e in names},
        position_accuracy=per_position,
        losses={e: [2.0 / (s + 1) for s in range(5)] for e in names},
        models={},
        chance=1 / 16,
        seed=0,
        steps=5,
    )


def _passkey_model() -> object:
    """An untrained toy RoPE model of the passkey experiment."""
    from book.experiments.passkey import passkey_model

    return passkey_model("rope", seed=0, dim=8, num_heads=2)


def _passkey_results() -> object:
    """A small hand-made ``PasskeyResults`` (no training): two set-ups, one seed, two lengths."""
    from book.experiments.passkey import PasskeyResults, PasskeyScore

    def score(right: float) -> PasskeyScore:
        depth = torch.linspace(0, 1, 8, dtype=torch.float64)
        return PasskeyScore(retrieval=right, perplexity=1.5, depth=depth, hits=depth < right)

    return PasskeyResults(
        seeds=(0,),
        train_lengths=(4, 8),
        eval_lengths=(8, 16),
        window=4,
        sinks=1,
        local_window=2,
        scores={e: {0: {8: score(1.0), 16: score(0.5)}} for e in ("rope", "hybrid")},
        fit_steps={"rope": {0: 3}, "hybrid": {0: None}},
    )


def _stretch_results() -> object:
    """A small hand-made ``StretchResults`` (no training)."""
    from book.experiments import StretchResults

    acc = {m: torch.linspace(1, 0, 16, dtype=torch.float64) for m in ("plain", "yarn")}
    return StretchResults(
        task="shift",
        k=2,
        train_lengths=(4, 8),
        factor=2.0,
        eval_lengths=(8, 16),
        methods=("plain", "yarn"),
        finetune_steps=5,
        stop_loss=0.01,
        stop_window=2,
        chance=1 / 16,
        seed=0,
        position_accuracy={m: {"as trained": {16: a}} for m, a in acc.items()},
        finetune_losses={"plain": [1.0, 0.5, 0.1], "yarn": [0.2, 0.005, 0.004]},
    )


def _bias_transfer() -> object:
    from book.demos.grids import window_bias_transfer

    return window_bias_transfer((2, 2), (3, 3), steps=0, hidden_dim=4)


def _render(n: int, flag: bool) -> Figure:
    """A tiny figure for :func:`book.explorers.explorer.explorer`'s example."""
    from book.figures import new_figure

    fig = new_figure(1.0, 1.0, layout=None)
    fig.text(0.5, 0.5, f"{n} {flag}")
    return fig


def _snapshots() -> dict[str, dict[int, Tensor]]:
    return {
        "zeros": {0: torch.zeros(4, 2), 1: randn(4, 2)},
        "normal": {0: randn(4, 2) / 9, 1: randn(4, 2)},
    }


_QKV = {"q": lambda: randn(2, 5, 8), "k": lambda: randn(2, 6, 8), "v": lambda: randn(2, 6, 4)}
_T5 = {"bidirectional": True, "num_buckets": 8, "max_distance": 16}

Examples = Callable[[], "dict[str, object] | list[dict[str, object]]"]

BASELINES: dict[str, Examples] = {
    # -- posenc.absolute_2d
    "posenc.absolute_2d.LearnedRowColEmbedding": lambda: {"num_pos_feats": 4, "max_positions": 6},
    "posenc.absolute_2d.LearnedRowColEmbedding.forward": lambda: {"x": randn(2, 3, 4, 5)},
    "posenc.absolute_2d.detr_sine_encoding": lambda: {
        "padding_mask": torch.zeros(2, 3, 4, dtype=torch.bool),
        "num_pos_feats": 4,
        "base": 10000.0,
        "normalize": True,
        "scale": 6.0,
    },
    "posenc.absolute_2d.resample_positional_embedding": lambda: {
        "table": randn(10, 8),
        "old_size": 3,
        "new_size": (4, 5),
        "mode": "bicubic",
        "antialias": False,
        "num_prefix_tokens": 1,
    },
    "posenc.absolute_2d.sinusoidal_2d_channel_permutation": lambda: {"dim": 8},
    "posenc.absolute_2d.sinusoidal_encoding_2d": lambda: {"height": 2, "width": 3, "dim": 8},
    # -- posenc.alibi
    "posenc.alibi.ALiBiBias": lambda: {"num_heads": 4, "causal": True},
    "posenc.alibi.ALiBiBias.forward": lambda: {"n_q": 5, "n_k": 6},
    "posenc.alibi.alibi_bias": lambda: {"n_q": 5, "n_k": 6, "num_heads": 4},
    "posenc.alibi.alibi_distances": lambda: {"n_q": 5, "n_k": 6},
    "posenc.alibi.alibi_slopes": lambda: {"num_heads": 4},
    # -- posenc.attention
    "posenc.attention.SelfAttention": lambda: {"dim": 8, "num_heads": 2},
    "posenc.attention.SelfAttention.forward": lambda: {
        "x": randn(2, 5, 8),
        "bias": randn(5, 5),
        "mask": causal(5, 5),
    },
    "posenc.attention.attention_weights": lambda: {
        "q": _QKV["q"](),
        "k": _QKV["k"](),
        "bias": randn(5, 6),
        "mask": causal(5, 6),
    },
    "posenc.attention.causal_mask": lambda: {"n_q": 5, "n_k": 6, "query_offset": 1},
    "posenc.attention.sliding_window_mask": lambda: {
        "n_q": 5,
        "n_k": 6,
        "window": 3,
        "sinks": 1,
        "query_offset": 1,
    },
    "posenc.attention.dot_product_attention": lambda: {
        **{name: make() for name, make in _QKV.items()},
        "bias": randn(5, 6),
        "mask": causal(5, 6),
    },
    "posenc.attention.masked_softmax": lambda: {"logits": randn(2, 5, 6), "mask": causal(5, 6)},
    "posenc.attention.query_key_positions": lambda: {"n_q": 5, "n_k": 6},
    # -- posenc.learned
    "posenc.learned.LearnedPositionalEmbedding": lambda: {"max_positions": 16, "dim": 8},
    "posenc.learned.LearnedPositionalEmbedding.forward": lambda: {"x": randn(2, 5, 8)},
    # -- posenc.numeric
    "posenc.numeric.numeric_encoding": lambda: {"n_positions": 5},
    "posenc.numeric.periodic_encoding": lambda: {"positions": 5, "alpha": 0.5},
    "posenc.numeric.periodic_shift_matrix": lambda: {"offset": 2.0, "alpha": 0.5},
    # -- posenc.rotary
    "posenc.rotary.RotaryEmbedding": lambda: {"dim": 8, "max_positions": 16},
    "posenc.rotary.RotaryEmbedding.forward": lambda: {
        "q": randn(2, 5, 8),
        "k": randn(2, 6, 8),
        "query_offset": 1,
    },
    "posenc.rotary.apply_rotary": lambda: {"x": randn(2, 5, 8), "positions": torch.arange(5.0)},
    "posenc.rotary.rotary_angles": lambda: {"positions": 5, "dim": 8},
    "posenc.rotary.rotary_cos_sin": lambda: {"positions": 5, "dim": 8},
    "posenc.rotary.rotary_matrix": lambda: {"position": 3.0, "dim": 8},
    "posenc.rotary.rotary_permutation": lambda: {"dim": 8, "num_heads": 2},
    "posenc.rotary.rotary_quarter_turn": lambda: {"x": randn(2, 5, 8)},
    "posenc.rotary.rotary_scaling_reads": lambda: {"method": "dynamic"},
    "posenc.rotary.scaled_rotary_frequencies": lambda: [
        {"dim": 8, "method": "yarn", "factor": 4.0, "original_max_positions": 64},
        {"dim": 8, "method": "partial", "rotary_dim": 4},
        {"dim": 8, "method": "dynamic", "factor": 2.0, "original_max_positions": 16, "seq_len": 64},
    ],
    # -- posenc.rotary_nd
    "posenc.rotary_nd.apply_rotary_nd": lambda: {
        "x": randn(2, 6, 12),
        "positions": torch.arange(18.0).reshape(6, 3),
        "sections": (2, 2, 2),
    },
    "posenc.rotary_nd.rotary_angles_2d": lambda: {"height": 3, "width": 4, "dim": 16},
    "posenc.rotary_nd.rotary_angles_nd": lambda: {
        "positions": torch.arange(18.0).reshape(6, 3),
        "dim": 12,
        "sections": (2, 2, 2),
    },
    "posenc.rotary_nd.rotary_cos_sin_nd": lambda: {"angles": randn(6, 6)},
    "posenc.rotary_nd.rotary_pair_axes": lambda: {"dim": 12, "num_axes": 3},
    # -- posenc.shaw
    "posenc.shaw.ShawRelativeMultiheadAttention": lambda: {
        "dim": 8,
        "num_heads": 2,
        "max_relative_position": 3,
    },
    "posenc.shaw.ShawRelativeMultiheadAttention.forward": lambda: {
        "x": randn(2, 5, 8),
        "context": randn(2, 6, 8),
        "mask": causal(5, 6),
    },
    "posenc.shaw.shaw_attention": lambda: {
        **{name: make() for name, make in _QKV.items()},
        "rel_k": randn(5, 8),
        "rel_v": randn(5, 4),
        "mask": causal(5, 6),
    },
    "posenc.shaw.shaw_relative_index": lambda: {"n_q": 5, "n_k": 6, "max_relative_position": 2},
    # -- posenc.sinusoidal
    "posenc.sinusoidal.SinusoidalPositionalEncoding": lambda: {"dim": 8, "max_positions": 16},
    "posenc.sinusoidal.SinusoidalPositionalEncoding.forward": lambda: {"x": randn(2, 5, 8)},
    "posenc.sinusoidal.sinusoidal_dot_product": lambda: {"offsets": 5, "dim": 8},
    "posenc.sinusoidal.sinusoidal_encoding": lambda: {"positions": 5, "dim": 8},
    "posenc.sinusoidal.sinusoidal_frequencies": lambda: {"dim": 8},
    "posenc.sinusoidal.sinusoidal_shift_matrix": lambda: {"offset": 2.0, "dim": 8},
    "posenc.sinusoidal.sinusoidal_wavelengths": lambda: {"dim": 8},
    # -- posenc.t5
    "posenc.t5.T5RelativePositionBias": lambda: {"num_heads": 2, **_T5},
    "posenc.t5.T5RelativePositionBias.forward": lambda: {"n_q": 5, "n_k": 6},
    "posenc.t5.t5_bucket_index": lambda: {"n_q": 5, "n_k": 6, **_T5},
    "posenc.t5.t5_bucket_starts": lambda: dict(_T5),
    "posenc.t5.t5_relative_bucket": lambda: {"relative_position": torch.arange(-20, 21), **_T5},
    # -- posenc.window
    "posenc.window.SwinRelativePositionBias": lambda: {
        "query_shape": (3, 2),
        "num_heads": 2,
        "key_shape": (2, 2),
        "key_step": (2, 1),
    },
    "posenc.window.WindowAttention": lambda: {"dim": 8, "window_size": (2, 2), "num_heads": 2},
    "posenc.window.WindowAttention.forward": lambda: {
        "x": randn(8, 4, 8),
        "mask": torch.ones(2, 4, 4, dtype=torch.bool),
    },
    "posenc.window.relative_offsets": lambda: {
        "query_shape": (3, 2),
        "key_shape": (2, 2),
        "key_step": (2, 1),
    },
    "posenc.window.relative_position_index": lambda: {
        "query_shape": (3, 2),
        "key_shape": (2, 2),
        "key_step": (2, 1),
    },
    "posenc.window.relative_table_size": lambda: {"query_shape": (2, 3)},
    "posenc.window.shifted_window_mask": lambda: {
        "height": 4,
        "width": 4,
        "window_size": (2, 2),
        "shift": (1, 1),
    },
    "posenc.window.window_merge": lambda: {
        "windows": randn(8, 6, 3),
        "window_size": (2, 3),
        "height": 4,
        "width": 6,
    },
    "posenc.window.window_partition": lambda: {"x": randn(2, 4, 6, 3), "window_size": (2, 3)},
    # -- posenc.window_v2
    "posenc.window_v2.ContinuousPositionBias": lambda: {
        "window_size": (3, 4),
        "num_heads": 2,
        "pretrained_window_size": (2, 2),
        "hidden_dim": 8,
    },
    "posenc.window_v2.log_spaced_relative_coords": lambda: {
        "window_size": (3, 4),
        "pretrained_window_size": (2, 2),
    },
    # -- book.figures: small sizes, so that a value accepted by mistake draws quickly
    "book.figures.absolute_2d.absolute_2d_explorer_figure": lambda: {
        "height": 4,
        "width": 6,
        "dim": 16,
        "canvas": 8,
    },
    "book.figures.absolute_2d.detr_normalize_figure": lambda: {
        "size": 8,
        "valid": (4, 6),
        "num_pos_feats": 8,
    },
    "book.figures.absolute_2d.detr_sine_heatmap_figure": lambda: {
        "height": 4,
        "width": 4,
        "num_pos_feats": 8,
        "positions": 8,
    },
    "book.figures.absolute_2d.layout_comparison_figure": lambda: {
        "height": 2,
        "width": 2,
        "dim": 8,
        "wired": (0, 1),
    },
    "book.figures.absolute_2d.resampling_figure": lambda: {
        "old_size": 4,
        "new_size": 6,
        "dim": 16,
        "channel": 2,
    },
    "book.figures.absolute_2d.similarity_maps_figure": lambda: {
        "height": 4,
        "width": 4,
        "dim": 16,
        "positions": ((0, 0), (2, 3)),
    },
    "book.figures.absolute_2d.sincos_2d_channels_figure": lambda: {
        "height": 4,
        "width": 4,
        "dim": 16,
        "pairs": (0, 2),
    },
    "book.figures.alibi.alibi_explorer_figure": lambda: {"num_heads": 4, "n": 9},
    "book.figures.alibi.alibi_span_figure": lambda: {"num_heads": 4, "n": 64},
    "book.figures.attention.attention_pipeline_figure": dict,
    "book.figures.attention.logit_terms_figure": lambda: {"n_positions": 6, "dim": 8},
    "book.figures.attention.permutation_attention_figure": lambda: {
        "words": ("a", "b", "c"),
        "perm": (2, 0, 1),
        "dim": 8,
    },
    "book.figures.attention.shuffle_attention_figure": lambda: {
        "perm": (2, 0, 1),
        "positions": True,
        "words": ("a", "b", "c"),
        "dim": 8,
    },
    "book.figures.experiment.encoding_detail_figure": lambda: {
        "results": _length_results(),
        "encoding": "rope",
        "length": 16,
    },
    "book.figures.experiment.length_accuracy_figure": lambda: {"results": _length_results()},
    "book.figures.experiment.position_accuracy_figure": lambda: {
        "results": _length_results(),
        "length": 16,
        "encodings": ("none", "rope"),
        "columns": 2,
    },
    "book.figures.experiment.rotary_pair_figure": lambda: {
        "model": _toy_rope_model(),
        "tokens": torch.randint(0, 16, (2, 8), generator=torch.Generator().manual_seed(1)),
        "query": 6,
        "heads": (0, 1),
        "train_length": 4,
    },
    "book.figures.learned.snapshot_figure": lambda: {
        "table": randn(6, 4),
        "train_length": 4,
        "losses": [1.0, 0.5, 0.25],
        "step": 2,
        "reference_loss": 0.5,
    },
    "book.figures.learned.trained_table_figure": lambda: {
        "trained": randn(6, 4),
        "initial": randn(6, 4) / 9,
        "train_length": 4,
        "reference": randn(6, 4) / 3,
    },
    "book.figures.numeric.naive_encodings_figure": lambda: {"lengths": (5, 11)},
    "book.figures.numeric.numeric_codes_figure": lambda: {
        "kind": "sine",
        "alpha": 1.0,
        "n_positions": 8,
    },
    "book.figures.rotary.rotary_convention_figure": lambda: {
        "queries": randn(6, 8),
        "keys": randn(6, 8),
        "offset": -2,
    },
    "book.figures.rotary.rotary_decay_figure": lambda: {
        "dim": 16,
        "bases": (100.0, 10000.0),
        "dims": (8, 16),
        "max_offset": 64,
        "draws": 4,
    },
    "book.figures.rotary.rotary_explorer_figure": lambda: {"dim": 16, "context": 64},
    "book.figures.rotary.rotary_rotation_figure": lambda: {
        "positions": ((1, 4),),
        "dim": 16,
        "pair": 2,
        "n": 8,
    },
    "book.figures.rotary.rotary_stretch_explorer_figure": lambda: {
        "method": "yarn",
        "factor": 4.0,
        "dim": 16,
        "original_max_positions": 64,
    },
    "book.figures.rotary.rotary_stretch_figure": lambda: {
        "methods": ("linear", "yarn"),
        "dim": 16,
        "original_max_positions": 64,
        "factor": 4.0,
    },
    "book.figures.rotary.rotary_stretch_results_figure": lambda: {"results": _stretch_results()},
    "book.figures.long_context.attention_pattern_figure": lambda: {"n": 6, "window": 2, "sinks": 1},
    "book.figures.long_context.passkey_depth_figure": lambda: {
        "results": _passkey_results(),
        "setups": ("hybrid",),
    },
    "book.figures.long_context.streaming_figure": lambda: {
        "score": _passkey_results().scores["rope"][0][16],  # type: ignore[attr-defined]
        "length": 16,
        "window": 4,
        "sinks": 2,
    },
    "book.figures.long_context.angle_error_figure": lambda: {
        "max_position": 64,
        "dim": 8,
        "base": 100.0,
    },
    "book.figures.rotary_nd.multimodal_positions_figure": lambda: {"segments": (2, (1, 2, 2))},
    "book.figures.rotary_nd.rotary_grid_figure": lambda: {
        "layout": "mrope",
        "query": (2, 2),
        "sections": (2, 3, 3),
        "side": 4,
        "dim": 16,
    },
    "book.figures.rotary_nd.rotary_pair_axes_figure": lambda: {
        "dim": 16,
        "sections": (2, 3, 3),
        "axial_dim": 8,
        "side": 4,
    },
    "book.figures.shaw.shaw_cost_figure": lambda: {
        "timings": {
            "n": [8.0, 16.0],
            "naive": [1e-4, None],
            "plain": [1e-4, 2e-4],
            "posenc": [1e-4, 3e-4],
        },
        "dim": 4,
        "max_relative_position": 2,
    },
    "book.figures.shaw.shaw_index_figure": lambda: {"n": 6, "max_relative_position": 2, "dim": 4},
    "book.figures.shaw.shaw_skew_figure": lambda: {"n": 4, "max_relative_position": 1},
    "book.figures.sinusoidal.binary_vs_sinusoidal_figure": lambda: {"n_positions": 8, "dim": 8},
    "book.figures.sinusoidal.sinusoidal_dot_product_figure": lambda: {
        "dim": 8,
        "max_offset": 8,
        "positions": (0, 4),
    },
    "book.figures.sinusoidal.sinusoidal_explorer_figure": lambda: {"dim": 8, "n_positions": 8},
    "book.figures.sinusoidal.sinusoidal_heatmap_figure": lambda: {"n_positions": 8, "dim": 8},
    "book.figures.sinusoidal.sinusoidal_precision_figure": lambda: {
        "dim": 8,
        "max_position": 1000.0,
        "n_points": 8,
    },
    "book.figures.sinusoidal.sinusoidal_wavelengths_figure": lambda: {"dim": 8},
    "book.figures.t5.t5_buckets_figure": lambda: {
        "num_buckets": 8,
        "max_distance": 16,
        "max_offset": 20,
        "shaw_distance": 2,
    },
    "book.figures.t5.t5_explorer_figure": lambda: {
        "num_buckets": 8,
        "max_distance": 16,
        "max_offset": 20,
        "n": 8,
    },
    "book.figures.window.index_radix_figure": lambda: {"window_size": (2, 3)},
    "book.figures.window.meshgrid_order_figure": lambda: {"window_size": (2, 3)},
    "book.figures.window.relative_offsets_figure": lambda: {"window_size": (2, 3)},
    "book.figures.window.shifted_window_figure": lambda: {
        "height": 4,
        "width": 4,
        "window_size": (2, 2),
        "shift": (1, 1),
    },
    "book.figures.window.window_bias_figure": lambda: {
        "window_size": (2, 3),
        "query": "centre",
        "convention": "swin",
        "num_heads": 2,
    },
    "book.figures.window.window_coordinates_figure": lambda: {"window_size": (2, 3)},
    "book.figures.window_3d.frame_offset_figure": lambda: {
        "query_frames": 4,
        "key_frames": 2,
        "key_step": 2,
        "window": (2, 2),
    },
    "book.figures.window_3d.window_3d_index_figure": lambda: {
        "query_shape": (3, 2, 2),
        "key_shape": (2, 2, 2),
        "key_step": (2, 1, 1),
    },
    "book.figures.window_v2.bias_transfer_figure": lambda: {"result": _bias_transfer()},
    "book.figures.window_v2.continuous_bias_figure": lambda: {
        "window": 4,
        "pretrained": 2,
        "mlp": _bias_transfer().mlp,
        "head": 0,
    },
    "book.figures.window_v2.log_spaced_coords_figure": lambda: {"window": 6, "pretrained": 3},
    # -- book.explorers: few values per control (an explorer pre-renders every combination)
    "book.explorers.absolute_2d.absolute_2d_explorer": lambda: {
        "heights": (4,),
        "widths": (6,),
        "dims": (16,),
        "bases": (10.0, 100.0),
        "pairs": ("fastest",),
        "canvas": 8,
    },
    "book.explorers.alibi.alibi_explorer": lambda: {"heads": (4, 8), "n": 9},
    "book.explorers.attention.permutation_explorer": lambda: {
        "words": ("a", "b", "c"),
        "shuffles": {"swap": (1, 0, 2)},
        "dim": 8,
    },
    "book.explorers.long_context.streaming_explorer": lambda: {
        "model": _passkey_model(),
        "windows": (2, 4),
        "sinks": (0, 1),
        "lengths": (8,),
        "num_sequences": 4,
    },
    "book.explorers.experiment.length_results_explorer": lambda: {
        "results": _length_results(),
        "encoding": "rope",
    },
    "book.explorers.explorer.explorer": lambda: {
        "render": _render,
        "controls": {"n": (1, 2), "flag": (False, True)},
        "defaults": {"n": 2},
        "dpi": 50,
    },
    "book.explorers.learned.training_snapshots_explorer": lambda: {
        "snapshots": _snapshots(),
        "losses": {"zeros": [1.0, 0.5], "normal": [1.0, 0.25]},
        "train_length": 3,
        "reference_loss": 0.5,
    },
    "book.explorers.numeric.numeric_explorer": lambda: {
        "alphas": (0.5, 2.0),
        "lengths": (8,),
        "encodings": ("sine",),
    },
    "book.explorers.rotary.rotary_explorer": lambda: {
        "dims": (16,),
        "bases": (100.0, 10000.0),
        "context": 64,
    },
    "book.explorers.rotary.rotary_stretch_explorer": lambda: {
        "methods": ("linear", "yarn"),
        "factors": (2.0, 4.0),
        "dim": 16,
        "original_max_positions": 64,
    },
    "book.explorers.rotary_nd.rotary_grid_explorer": lambda: {
        "layouts": ("axial 2-D (16 + 16)",),
        "queries": ((8, 8), (3, 12)),
    },
    "book.explorers.shaw.shaw_index_explorer": lambda: {
        "lengths": (4, 6),
        "distances": (0, 1),
        "queries": ("middle",),
    },
    "book.explorers.sinusoidal.sinusoidal_explorer": lambda: {
        "dims": (8,),
        "bases": (100.0, 10000.0),
        "n_positions": (8,),
    },
    "book.explorers.t5.t5_explorer": lambda: {
        "num_buckets": (8,),
        "max_distances": (16, 32),
        "max_offset": 20,
        "n": 8,
    },
    "book.explorers.window.window_bias_explorer": lambda: {
        "windows": ((2, 3),),
        "queries": ("centre",),
        "conventions": ("swin",),
    },
    "book.explorers.window_3d.window_3d_explorer": lambda: {
        "query_frames": (4,),
        "key_frames": (2,),
        "windows": ((2, 2),),
        "highlighted": ("middle",),
    },
    "book.explorers.window_v2.continuous_bias_explorer": lambda: {
        "windows": (4, 6),
        "mlp": _bias_transfer().mlp,
    },
    # -- beyond the required targets: the book's catalogue and grid demos
    "book.catalogue.get_encoding": lambda: {"key": "rope"},
    "book.catalogue.learned_parameter_count": lambda: {"encoding": "rope"},
    "book.catalogue.runs_beyond": lambda: {"encoding": "rope"},
    "book.catalogue.CatalogueSize": lambda: {
        "n": 64,
        "d": 16,
        "h": 2,
        "grid": 4,
        "window": (2, 2),
        "frames": 2,
        "k": 4,
        "num_buckets": 8,
        "max_distance": 16,
    },
    "book.demos.grids.multimodal_positions": lambda: {"segments": [2, (1, 2, 2)]},
    "book.demos.grids.locality_bias_target": lambda: {"window_size": (3, 4)},
    "book.demos.grids.window_bias_transfer": lambda: {
        "small": (2, 2),
        "large": (3, 3),
        "steps": 1,
        "hidden_dim": 4,
    },
    "book.figures.rotary_nd.rotary_grid_scores": lambda: {
        "layout": "mrope",
        "query": (1, 2),
        "side": 4,
        "dim": 12,
        "base": 100.0,
    },
}
"""One valid example call per target; a list gives several (an argument is swept in the
first example that names it)."""


def _toy_rope_model() -> object:
    from book.experiments import toy_model

    return toy_model("rope", seed=0, dim=8, num_heads=2, num_layers=1)


# ---------------------------------------------------------------------------------------------
# Generated values that are valid for one argument

ALLOWED: dict[str, tuple[tuple[str, ...], str]] = {
    # offsets and positions: any number
    "*:query_offset": (("0", "-1"), "any int: where the queries start among the keys"),
    "*:sinks": (("0",), "no attention sinks: a plain sliding window"),
    "*:offset": (("0", "-1", "0.0", "-1.0"), "an offset between two positions: any number"),
    "posenc.rotary.rotary_matrix:position": (("0.0", "-1.0"), "a position: any real number"),
    "book.explorers.shaw.shaw_index_explorer:queries": (
        ("(0, ...)",),
        "a query is a named place or a position below the longest n (at least 128): 0 is the first",
    ),
    "posenc.rotary.apply_rotary:positions": (
        ("int64 tensor", "wrong ndim"),
        "integer positions are positions; [..., n] positions broadcast against x (documented)",
    ),
    "posenc.rotary_nd.apply_rotary_nd:positions": (("int64 tensor",), "integer coordinates"),
    "posenc.rotary_nd.rotary_angles_nd:positions": (("int64 tensor",), "integer coordinates"),
    # any leading shape, any dtype
    "posenc.rotary.rotary_quarter_turn:x": (("wrong ndim",), "x is [..., d]: any leading shape"),
    "posenc.rotary_nd.rotary_cos_sin_nd:angles": (
        ("wrong ndim",),
        "cos and sin are taken entry by entry: any leading shape",
    ),
    "posenc.t5.t5_relative_bucket:relative_position": (
        ("wrong ndim",),
        "an integer tensor of any shape (documented)",
    ),
    **{
        f"posenc.window.{name}:{arg}": (
            ("int64 tensor", "bool tensor", "complex tensor"),
            "windows are cut and pasted: any dtype",
        )
        for name, arg in (("window_partition", "x"), ("window_merge", "windows"))
    },
    "posenc.window.relative_table_size:query_shape": (
        ("one entry more", "one entry fewer"),
        "a window of any rank (a line, an image, a video)",
    ),
    # 0 is a valid count or index here
    "*:max_relative_position": (("0",), "Shaw's k = 0 clips every offset to 0 (one row)"),
    "*:shaw_distance": (("0",), "Shaw's k = 0 clips every offset to 0"),
    "*:seed": (("0",), "any int >= 0 seeds a generator"),
    "*:shift": (("(0, ...)",), "no shift along the first axis"),
    "book.demos.grids.window_bias_transfer:steps": (("0",), "no training: the MLP as built"),
    "*:query": (("0", "(0, ...)"), "an index or a grid place: 0 is the first"),
    **{
        f"*:{arg}": (("0",), "an index: 0 is the first")
        for arg in ("channel", "pair", "highlight", "step")
    },
    "*:positions": (("((0, ...), ...)", "(0, ...)"), "position 0 is the first"),
    "book.figures.sinusoidal.sinusoidal_dot_product_figure:positions": (
        ("()",),
        "no marked positions: the curve alone (documented)",
    ),
    "book.explorers.rotary_nd.rotary_grid_explorer:queries": (
        ("((0, ...), ...)",),
        "row 0 is the first",
    ),
    # any text
    **{
        f"*:{arg}": (("'nonsense'",), "any text")
        for arg in ("title", "reference_label", "reference_title")
    },
    "*:words": (("('nonsense', ...)",), "any word"),
    # losses: any finite number
    "*:losses": (("(0.0, ...)", "(-1.0, ...)"), "a loss: any finite number"),
    "book.figures.learned.snapshot_figure:losses": (
        ("(nan, ...)",),
        (
            "NaN marks a step whose loss diverged, drawn as a gap "
            "(documented, tested by test_snapshot_figure_draws_a_diverged_loss_as_a_gap)"
        ),
    ),
    "*:reference_loss": (("0.0", "-1.0"), "a loss: any finite number"),
}
"""``"KEY:ARG"`` (or ``"*:ARG"``: every target) -> (labels of generated values valid there,
why)."""


# ---------------------------------------------------------------------------------------------
# Bad values by parameter name


def _is_float(hint: object, example: object) -> bool:
    return isinstance(example, float) or hint is float or "float" in str(hint)


def _is_shape(example: object) -> bool:
    return (
        isinstance(example, tuple)
        and len(example) > 1
        and all(isinstance(v, int) and not isinstance(v, bool) for v in example)
    )


def _with_nan(example: object) -> list[tuple[str, object]]:
    if isinstance(example, Tensor) and example.is_floating_point() and example.numel():
        bad, inf = example.clone(), example.clone()
        bad.view(-1)[0], inf.view(-1)[0] = NAN, INF
        return [("a NaN entry", bad), ("an inf entry", inf)]
    return [("a NaN entry", torch.tensor([0.0, NAN])), ("an inf entry", torch.tensor([0.0, INF]))]


NAMED_RULES: dict[str, NamedRule] = {
    r".*base": NamedRule(_is_float, lambda _: [("1.0", 1.0), ("0.5", 0.5)], "a base must exceed 1"),
    r"mass": NamedRule(_is_float, lambda _: [("1.5", 1.5)], "a share of the mass is below 1"),
    r"positions|offsets": NamedRule(
        lambda hint, example: "Tensor" in str(hint), _with_nan, "positions must be finite"
    ),
    r"window_size|window|query_shape|key_shape|key_step|shift|pretrained_window_size": NamedRule(
        lambda hint, example: _is_shape(example),
        lambda shape: [("one entry more", (*shape, 2)), ("one entry fewer", tuple(shape[:-1]))],
        "a window or grid shape has one entry per axis of the grid",
    ),
}
"""Parameter name (a regular expression) -> extra bad values, for a rule its type cannot say."""


# ---------------------------------------------------------------------------------------------
# Rules between arguments


def _replace(key: str, arg: str, label: str, change: Callable[[dict], dict]) -> HandCase:
    """The baseline of ``key`` with the arguments ``change(baseline)`` returns."""
    return HandCase(key, arg, label, change=change)


def _mix(key: str, args: tuple[str, ...], label: str = "float64 among float32") -> list[HandCase]:
    """One float64 argument among float32 ones, for each of ``args``."""
    return [_replace(key, a, label, lambda b, a=a: {a: b[a].double()}) for a in args]


def _bias_and_mask(key: str, n_q: int, n_k: int) -> list[HandCase]:
    """A bias and a mask that do not broadcast to the ``[n_q, n_k]`` scores (a bool tensor
    as ``bias=`` is generated: a float tensor's values include it)."""
    return [
        _replace(key, "bias", "bias of a wrong shape", lambda _: {"bias": randn(n_q + 1, n_k + 2)}),
        _replace(
            key,
            "mask",
            "mask of a wrong shape",
            lambda _: {"mask": torch.ones(n_q + 1, n_k + 2, dtype=torch.bool)},
        ),
    ]


def _loads(key: str, entry: str, **sizes: tuple[object, object]) -> HandCase:
    """Loading the state dict of a module built with the first of ``sizes`` into one built
    with the second: the message must name the state-dict ``entry``."""

    def call(cls: Callable[..., nn.Module]) -> object:
        saved = cls(**{k: v[0] for k, v in sizes.items()}).state_dict()
        return cls(**{k: v[1] for k, v in sizes.items()}).load_state_dict(saved)

    saved = ", ".join(f"{k}={v[0]}" for k, v in sizes.items() if v[0] != v[1])
    built = ", ".join(f"{k}={v[1]}" for k, v in sizes.items() if v[0] != v[1])
    return HandCase(key, entry, f"a state dict of {saved} loaded with {built}", call=call)


A = "posenc.attention."
HAND_CASES: list[HandCase] = [
    *_mix(A + "attention_weights", ("q", "k")),
    *_bias_and_mask(A + "attention_weights", 5, 6),
    _replace(A + "attention_weights", "k", "k of another width", lambda b: {"k": randn(2, 6, 7)}),
    _replace(A + "attention_weights", "k", "k of another batch", lambda _: {"k": randn(3, 6, 8)}),
    *_mix(A + "dot_product_attention", ("q", "k", "v")),
    *_bias_and_mask(A + "dot_product_attention", 5, 6),
    _replace(A + "dot_product_attention", "v", "v of fewer keys", lambda b: {"v": b["v"][:, :4]}),
    _replace(
        A + "masked_softmax",
        "mask",
        "mask of a wrong shape",
        lambda _: {"mask": torch.ones(6, 8, dtype=torch.bool)},
    ),
    _replace(
        A + "SelfAttention.forward",
        "x",
        "float64 into a float32 module",
        lambda b: {"x": b["x"].double()},
    ),
    _replace(
        A + "SelfAttention.forward", "x", "x of another width", lambda _: {"x": randn(2, 5, 6)}
    ),
    *_bias_and_mask(A + "SelfAttention.forward", 5, 5),
    *_mix("posenc.shaw.shaw_attention", ("q", "k", "v", "rel_k", "rel_v")),
    _replace(
        "posenc.shaw.shaw_attention",
        "rel_v",
        "rel_v of another row count",
        lambda b: {"rel_v": randn(4, 4)},
    ),
    _replace(
        "posenc.shaw.shaw_attention",
        "mask",
        "mask of a wrong shape",
        lambda _: {"mask": torch.ones(6, 8, dtype=torch.bool)},
    ),
    *[
        _replace(
            "posenc.shaw.ShawRelativeMultiheadAttention.forward",
            a,
            "float64 into a float32 module",
            lambda b, a=a: {a: b[a].double()},
        )
        for a in ("x", "context")
    ],
    _replace(
        "posenc.shaw.ShawRelativeMultiheadAttention.forward",
        "mask",
        "mask of a wrong shape",
        lambda _: {"mask": torch.ones(6, 8, dtype=torch.bool)},
    ),
    _replace(
        "posenc.window.WindowAttention.forward",
        "x",
        "float64 into a float32 module",
        lambda b: {"x": b["x"].double()},
    ),
    _replace(
        "posenc.window.WindowAttention.forward",
        "mask",
        "mask of a wrong shape",
        lambda _: {"mask": torch.ones(3, 4, 4, dtype=torch.bool)},
    ),
    *_mix("posenc.rotary.RotaryEmbedding.forward", ("q", "k")),
    _replace(
        "posenc.rotary.apply_rotary",
        "positions",
        "positions of another length",
        lambda _: {"positions": torch.arange(4.0)},
    ),
    _replace(
        "posenc.rotary.apply_rotary",
        "x",
        "an odd number of channels",
        lambda _: {"x": randn(2, 5, 7)},
    ),
    _replace(
        "posenc.rotary_nd.apply_rotary_nd",
        "positions",
        "positions of another length",
        lambda _: {"positions": torch.arange(15.0).reshape(5, 3)},
    ),
    _replace(
        "posenc.rotary_nd.apply_rotary_nd",
        "sections",
        "sections that do not add up",
        lambda _: {"sections": (1, 2, 2)},
    ),
    _replace(
        "posenc.rotary.scaled_rotary_frequencies",
        "beta_slow",
        "beta_slow above beta_fast",
        lambda _: {"beta_fast": 1.0, "beta_slow": 32.0},
    ),
    _replace(
        "posenc.rotary.scaled_rotary_frequencies",
        "rotary_dim",
        "rotary_dim above dim",
        lambda _: {
            "method": "partial",
            "factor": 1.0,
            "original_max_positions": None,
            "rotary_dim": 16,
        },
    ),
    _replace(
        "posenc.window.window_merge",
        "windows",
        "windows that do not tile the image",
        lambda b: {"windows": b["windows"][:7]},
    ),
    _replace(
        "posenc.window.window_partition",
        "window_size",
        "a window that does not divide the image",
        lambda _: {"window_size": (3, 4)},
    ),
    _replace(
        "posenc.window.shifted_window_mask",
        "shift",
        "a shift as large as the window",
        lambda _: {"shift": (2, 2)},
    ),
    _replace(
        "posenc.window.relative_position_index",
        "key_step",
        "key_step of another rank",
        lambda _: {"key_step": (2, 1, 1)},
    ),
    _replace(
        "posenc.absolute_2d.resample_positional_embedding",
        "old_size",
        "a table of another size",
        lambda _: {"old_size": 4},
    ),
    _replace(
        "posenc.absolute_2d.resample_positional_embedding",
        "num_prefix_tokens",
        "more prefix tokens than rows",
        lambda _: {"num_prefix_tokens": 11},
    ),
    # a checkpoint of other sizes: a ValueError naming the entry, not torch's RuntimeError
    _loads(
        "posenc.learned.LearnedPositionalEmbedding",
        "embedding.weight",
        max_positions=(8, 16),
        dim=(8, 8),
    ),
    _loads(
        "posenc.absolute_2d.LearnedRowColEmbedding",
        "row_embed.weight",
        num_pos_feats=(4, 4),
        max_positions=(4, 6),
    ),
    _loads(
        "posenc.shaw.ShawRelativeMultiheadAttention",
        "rel_k",
        dim=(8, 8),
        num_heads=(2, 2),
        max_relative_position=(2, 3),
    ),
    _loads(
        "posenc.t5.T5RelativePositionBias",
        "relative_attention_bias.weight",
        num_heads=(2, 2),
        num_buckets=(8, 16),
    ),
    _loads(
        "posenc.window.SwinRelativePositionBias",
        "relative_position_bias_table",
        query_shape=((2, 2), (3, 2)),
        num_heads=(2, 2),
    ),
    _loads(
        "posenc.window.WindowAttention",
        "relative_position.relative_position_bias_table",
        dim=(8, 8),
        window_size=((2, 2), (3, 3)),
        num_heads=(2, 2),
    ),
    _loads(
        "posenc.window_v2.ContinuousPositionBias",
        "cpb_mlp.0.weight",
        window_size=((3, 4), (3, 4)),
        num_heads=(2, 2),
        hidden_dim=(4, 8),
    ),
    _loads("posenc.attention.SelfAttention", "qkv.weight", dim=(8, 16), num_heads=(2, 2)),
]
"""The rules a signature cannot say; each names the argument a clear message names."""
