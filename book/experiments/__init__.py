"""The book's experiments: one toy Transformer per encoding, trained short and run long.

* :mod:`book.experiments.length`: :func:`toy_model` builds the toy of :mod:`book.toy` with any
  encoding of :mod:`book.catalogue` that has a toy form, and :func:`length_generalisation`
  trains one per encoding on short sequences and tests each on longer ones (chapter 10);
* :mod:`book.experiments.results`: the :class:`LengthResults` it returns;
* :mod:`book.experiments.spread`: :func:`seed_spread` runs the length experiment over several
  seeds, testing every model at its first fit and after a fixed budget (chapter 10), and
  returns a :class:`SeedSpread` of means and ranges;
* :mod:`book.experiments.passkey`: :func:`passkey_retrieval` trains a RoPE and a hybrid toy on
  the passkey task and tests them, with YaRN and with a window and sinks, beyond the trained
  length (chapter 13), returning a :class:`PasskeyResults`;
* :mod:`book.experiments.scaling`: :func:`rope_stretching` trains one RoPE model short and runs
  it longer with every way of stretching its frequencies, before and after a short fine-tune
  (chapter 11), returning a :class:`StretchResults`.
"""

from book.experiments.length import length_generalisation, toy_model
from book.experiments.passkey import (
    PASSKEY_SETUPS,
    PasskeyResults,
    passkey_model,
    passkey_retrieval,
)
from book.experiments.results import LengthResults
from book.experiments.scaling import (
    STRETCH_METHODS,
    StretchResults,
    rope_stretching,
    stretch_toy_rotary,
)
from book.experiments.spread import PHASES, SeedSpread, seed_spread

__all__ = [
    "PASSKEY_SETUPS",
    "PHASES",
    "STRETCH_METHODS",
    "LengthResults",
    "PasskeyResults",
    "SeedSpread",
    "StretchResults",
    "length_generalisation",
    "passkey_model",
    "passkey_retrieval",
    "rope_stretching",
    "seed_spread",
    "stretch_toy_rotary",
    "toy_model",
]
