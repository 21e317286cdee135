"""posenc: positional encodings for Transformers, small, documented and tested.

The package behind the book *Positional Encodings in Transformers*. Pure functions return
encodings, indices and biases; thin ``nn.Module`` classes wrap them for use in models. Every
public function checks its arguments (a ``TypeError`` or ``ValueError`` that names the
argument) and returns its result on the device of its inputs.

Modules, one per family: :mod:`posenc.numeric` (naive encodings), :mod:`posenc.sinusoidal`,
:mod:`posenc.learned`, :mod:`posenc.absolute_2d` (images), :mod:`posenc.shaw` (relative
representations), :mod:`posenc.window` (Swin-style window bias), :mod:`posenc.window_v2`
(Swin V2's continuous bias), :mod:`posenc.rotary` (RoPE), :mod:`posenc.rotary_nd` (RoPE on
grids: M-RoPE, axial 2-D), :mod:`posenc.alibi` (linear biases), :mod:`posenc.t5` (bucketed
relative bias), and :mod:`posenc.attention` (the plain attention they modify).
:mod:`posenc.catalogue` is the one registry of encodings; :mod:`posenc.toy` is a tiny
Transformer with synthetic tasks for the book's experiments; :mod:`posenc.demos` holds
chapters' worked examples; figures are in :mod:`posenc.plotting`, explorers in
:mod:`posenc.widgets`.
"""

from .absolute_2d import (
    LearnedRowColEmbedding,
    detr_sine_encoding,
    resample_positional_embedding,
    resampling_error_map,
    resampling_error_per_pair,
    sincos_resampling_error,
    sinusoidal_2d_channel_permutation,
    sinusoidal_encoding_2d,
)
from .alibi import ALiBiBias, alibi_bias, alibi_distances, alibi_slopes, alibi_span
from .attention import (
    SelfAttention,
    absolute_logit_terms,
    attention_weights,
    causal_mask,
    dot_product_attention,
    masked_softmax,
    offset_variance_share,
    query_key_positions,
)
from .catalogue import (
    CatalogueSize,
    Encoding,
    get_encoding,
    learned_parameter_count,
    position_parameter_count,
    runs_beyond,
)
from .learned import LearnedPositionalEmbedding, cosine_similarity_matrix
from .numeric import (
    closest_distinct_pair,
    numeric_encoding,
    pairwise_distances,
    periodic_encoding,
    periodic_shift_matrix,
)
from .rotary import (
    RotaryEmbedding,
    apply_rotary,
    rotary_angles,
    rotary_cos_sin,
    rotary_decay_bound,
    rotary_matrix,
    rotary_offset_logits,
    rotary_permutation,
    rotary_quarter_turn,
    scaled_rotary_frequencies,
    stretched_rotary_frequencies,
)
from .rotary_nd import (
    apply_rotary_nd,
    rotary_angles_2d,
    rotary_angles_nd,
    rotary_cos_sin_nd,
    rotary_pair_axes,
)
from .shaw import (
    ShawRelativeMultiheadAttention,
    shaw_attention,
    shaw_attention_reference,
    shaw_relative_index,
)
from .sinusoidal import (
    SinusoidalPositionalEncoding,
    sinusoidal_dot_product,
    sinusoidal_encoding,
    sinusoidal_frequencies,
    sinusoidal_shift_matrix,
    sinusoidal_wavelengths,
)
from .t5 import T5RelativePositionBias, t5_bucket_index, t5_bucket_starts, t5_relative_bucket
from .window import (
    IndexCheck,
    SwinRelativePositionBias,
    WindowAttention,
    frame_offset_counts,
    relative_index_check,
    relative_offsets,
    relative_position_index,
    relative_table_size,
    rstt_key_frames,
    shifted_window_mask,
    spread_key_step,
    window_merge,
    window_partition,
)
from .window_v2 import ContinuousPositionBias, log_spaced_relative_coords

__version__ = "0.1.0"

__all__ = [
    "ALiBiBias",
    "CatalogueSize",
    "ContinuousPositionBias",
    "Encoding",
    "IndexCheck",
    "LearnedPositionalEmbedding",
    "LearnedRowColEmbedding",
    "RotaryEmbedding",
    "SelfAttention",
    "ShawRelativeMultiheadAttention",
    "SinusoidalPositionalEncoding",
    "SwinRelativePositionBias",
    "T5RelativePositionBias",
    "WindowAttention",
    "absolute_logit_terms",
    "alibi_bias",
    "alibi_distances",
    "alibi_slopes",
    "alibi_span",
    "apply_rotary",
    "apply_rotary_nd",
    "attention_weights",
    "causal_mask",
    "closest_distinct_pair",
    "cosine_similarity_matrix",
    "detr_sine_encoding",
    "dot_product_attention",
    "frame_offset_counts",
    "get_encoding",
    "learned_parameter_count",
    "log_spaced_relative_coords",
    "masked_softmax",
    "numeric_encoding",
    "offset_variance_share",
    "pairwise_distances",
    "periodic_encoding",
    "periodic_shift_matrix",
    "position_parameter_count",
    "query_key_positions",
    "relative_index_check",
    "relative_offsets",
    "relative_position_index",
    "relative_table_size",
    "resample_positional_embedding",
    "resampling_error_map",
    "resampling_error_per_pair",
    "rotary_angles",
    "rotary_angles_2d",
    "rotary_angles_nd",
    "rotary_cos_sin",
    "rotary_cos_sin_nd",
    "rotary_decay_bound",
    "rotary_matrix",
    "rotary_offset_logits",
    "rotary_pair_axes",
    "rotary_permutation",
    "rotary_quarter_turn",
    "rstt_key_frames",
    "runs_beyond",
    "scaled_rotary_frequencies",
    "shaw_attention",
    "shaw_attention_reference",
    "shaw_relative_index",
    "shifted_window_mask",
    "sincos_resampling_error",
    "sinusoidal_2d_channel_permutation",
    "sinusoidal_dot_product",
    "sinusoidal_encoding",
    "sinusoidal_encoding_2d",
    "sinusoidal_frequencies",
    "sinusoidal_shift_matrix",
    "sinusoidal_wavelengths",
    "spread_key_step",
    "stretched_rotary_frequencies",
    "t5_bucket_index",
    "t5_bucket_starts",
    "t5_relative_bucket",
    "window_merge",
    "window_partition",
]
