"""posenc: positional encodings for Transformers, small, documented and tested.

The package behind the book *Positional Encodings in Transformers*. Pure functions return
encodings, indices and biases; thin ``nn.Module`` classes wrap them for use in models.
"""

from .attention import SelfAttention, attention_weights, dot_product_attention
from .learned import LearnedPositionalEmbedding
from .numeric import closest_distinct_pair, numeric_encoding, periodic_encoding
from .sinusoidal import (
    SinusoidalPositionalEncoding,
    sinusoidal_encoding,
    sinusoidal_frequencies,
    sinusoidal_shift_matrix,
    sinusoidal_wavelengths,
)

__version__ = "0.1.0"

__all__ = [
    "LearnedPositionalEmbedding",
    "SelfAttention",
    "SinusoidalPositionalEncoding",
    "attention_weights",
    "closest_distinct_pair",
    "dot_product_attention",
    "numeric_encoding",
    "periodic_encoding",
    "sinusoidal_encoding",
    "sinusoidal_frequencies",
    "sinusoidal_shift_matrix",
    "sinusoidal_wavelengths",
]
