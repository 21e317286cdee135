"""A tiny synthetic task and a tiny Transformer, for training position encodings in seconds.

The book trains real position tables on a CPU while a chapter executes. Everything here is
small on purpose: a vocabulary of a few tokens, sequences of a few dozen, one or two layers of
width 32. The tasks are chosen so that the answer at position ``p`` depends on *where* other
tokens are, so a model without position information cannot solve them.

* :mod:`posenc.toy.tasks`: :func:`toy_batch` makes a batch of one of the tasks;
* :mod:`posenc.toy.model`: :class:`TinyTransformer`, a pre-LayerNorm Transformer with a
  plug-in point for every family of encodings, and the :class:`ToyAttention` protocol of its
  attention layers;
* :mod:`posenc.toy.training`: :func:`train_toy` trains it with :class:`Adam` and records
  snapshots (e.g. of a position table) in a :class:`ToyRun`;
* :mod:`posenc.toy.probes`: :func:`toy_accuracy`, :func:`toy_position_accuracy`,
  :func:`toy_attention_weights` and :func:`toy_rotary_pair_logits` look into a trained model;
* :mod:`posenc.toy.baseline`: :func:`frequency_guess_accuracy` and
  :func:`frequency_guess_position_accuracy` give what a model without any position
  information can reach on ``"shift"``;
* :mod:`posenc.toy.experiment`: :func:`toy_model` builds the model with any encoding of
  :mod:`posenc.catalogue` that has a toy form, and :func:`length_generalisation` trains one per
  encoding on short sequences and tests each on longer ones (chapter 10);
* :mod:`posenc.toy.results`: the :class:`LengthResults` it returns;
* :mod:`posenc.toy.scaling`: :func:`rope_stretching` trains one RoPE model short and runs
  it longer with every way of stretching its frequencies, before and after a short
  fine-tune (chapter 11), returning a :class:`StretchResults`.

Which encodings the toy knows, and how each plugs in, is the catalogue's to say
(:func:`posenc.catalogue.toy_encodings`, each entry's ``toy``).
"""

from .baseline import frequency_guess_accuracy, frequency_guess_position_accuracy
from .experiment import length_generalisation, toy_model
from .model import TinyTransformer, ToyAttention, ToySelfAttention, ToyShawAttention
from .probes import (
    toy_accuracy,
    toy_attention_weights,
    toy_position_accuracy,
    toy_rotary_pair_logits,
)
from .results import LengthResults
from .scaling import STRETCH_METHODS, StretchResults, rope_stretching, stretch_toy_rotary
from .tasks import IGNORE_INDEX, TASKS, Task, toy_batch
from .training import Adam, ToyRun, train_toy

__all__ = [
    "IGNORE_INDEX",
    "STRETCH_METHODS",
    "TASKS",
    "Adam",
    "LengthResults",
    "StretchResults",
    "Task",
    "TinyTransformer",
    "ToyAttention",
    "ToyRun",
    "ToySelfAttention",
    "ToyShawAttention",
    "frequency_guess_accuracy",
    "frequency_guess_position_accuracy",
    "length_generalisation",
    "rope_stretching",
    "stretch_toy_rotary",
    "toy_accuracy",
    "toy_attention_weights",
    "toy_batch",
    "toy_model",
    "toy_position_accuracy",
    "toy_rotary_pair_logits",
    "train_toy",
]
