"""The book's experiments: one toy Transformer per encoding, trained short and run long.

* :mod:`book.experiments.length`: :func:`toy_model` builds the toy of :mod:`book.toy` with any
  encoding of :mod:`book.catalogue` that has a toy form, and :func:`length_generalisation`
  trains one per encoding on short sequences and tests each on longer ones (chapter 10);
* :mod:`book.experiments.results`: the :class:`LengthResults` it returns;
* :mod:`book.experiments.scaling`: :func:`rope_stretching` trains one RoPE model short and runs
  it longer with every way of stretching its frequencies, before and after a short fine-tune
  (chapter 11), returning a :class:`StretchResults`.
"""

from book.experiments.length import length_generalisation, toy_model
from book.experiments.results import LengthResults
from book.experiments.scaling import (
    STRETCH_METHODS,
    StretchResults,
    rope_stretching,
    stretch_toy_rotary,
)

__all__ = [
    "STRETCH_METHODS",
    "LengthResults",
    "StretchResults",
    "length_generalisation",
    "rope_stretching",
    "stretch_toy_rotary",
    "toy_model",
]
