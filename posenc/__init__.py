"""posenc: positional encodings for Transformers, small, documented and tested.

Pure functions return encodings, indices and biases; thin ``nn.Module`` classes wrap them for
use in models. Every public function checks its arguments (a ``TypeError`` or ``ValueError``
that names the argument) and returns its result on the device of its inputs. Importing posenc
loads torch and nothing else, and changes no global state.

Modules, one per family: :mod:`posenc.numeric` (naive encodings), :mod:`posenc.sinusoidal`,
:mod:`posenc.learned`, :mod:`posenc.absolute_2d` (images), :mod:`posenc.shaw` (relative
representations), :mod:`posenc.window` (Swin-style window bias), :mod:`posenc.window_v2`
(Swin V2's continuous bias), :mod:`posenc.rotary` (RoPE and its scalings),
:mod:`posenc.rotary_nd` (RoPE on grids: M-RoPE, axial 2-D), :mod:`posenc.alibi` (linear
biases), :mod:`posenc.t5` (bucketed relative bias), and :mod:`posenc.attention` (the plain
attention they modify). This namespace holds what a model builder needs; each module has more
(the maths the book's chapters show, e.g. :func:`posenc.sinusoidal.sinusoidal_shift_matrix`).

The book around the library (figures, explorers, the toy Transformer, the catalogue of
encodings) is its own package, ``book``, which posenc never imports.
"""

from .absolute_2d import (
    LearnedRowColEmbedding,
    detr_sine_encoding,
    resample_positional_embedding,
    sinusoidal_encoding_2d,
)
from .alibi import ALiBiBias, alibi_bias, alibi_slopes
from .attention import (
    SelfAttention,
    attention_weights,
    causal_mask,
    dot_product_attention,
    masked_softmax,
    sliding_window_mask,
)
from .learned import LearnedPositionalEmbedding
from .numeric import numeric_encoding
from .rotary import (
    ROTARY_SCALINGS,
    RotaryEmbedding,
    apply_rotary,
    rotary_angles,
    rotary_cos_sin,
    scaled_rotary_frequencies,
)
from .rotary_nd import apply_rotary_nd, rotary_angles_nd, rotary_cos_sin_nd
from .shaw import ShawRelativeMultiheadAttention, shaw_attention, shaw_relative_index
from .sinusoidal import SinusoidalPositionalEncoding, sinusoidal_encoding, sinusoidal_frequencies
from .t5 import T5RelativePositionBias, t5_relative_bucket
from .window import (
    SwinRelativePositionBias,
    WindowAttention,
    relative_position_index,
    shifted_window_mask,
    window_merge,
    window_partition,
)
from .window_v2 import ContinuousPositionBias, log_spaced_relative_coords

__version__ = "0.1.0"

__all__ = [
    "ROTARY_SCALINGS",
    "ALiBiBias",
    "ContinuousPositionBias",
    "LearnedPositionalEmbedding",
    "LearnedRowColEmbedding",
    "RotaryEmbedding",
    "SelfAttention",
    "ShawRelativeMultiheadAttention",
    "SinusoidalPositionalEncoding",
    "SwinRelativePositionBias",
    "T5RelativePositionBias",
    "WindowAttention",
    "alibi_bias",
    "alibi_slopes",
    "apply_rotary",
    "apply_rotary_nd",
    "attention_weights",
    "causal_mask",
    "detr_sine_encoding",
    "dot_product_attention",
    "log_spaced_relative_coords",
    "masked_softmax",
    "numeric_encoding",
    "relative_position_index",
    "resample_positional_embedding",
    "rotary_angles",
    "rotary_angles_nd",
    "rotary_cos_sin",
    "rotary_cos_sin_nd",
    "scaled_rotary_frequencies",
    "shaw_attention",
    "shaw_relative_index",
    "shifted_window_mask",
    "sinusoidal_encoding",
    "sinusoidal_encoding_2d",
    "sinusoidal_frequencies",
    "sliding_window_mask",
    "t5_relative_bucket",
    "window_merge",
    "window_partition",
]
