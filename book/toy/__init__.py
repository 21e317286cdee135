"""A tiny synthetic task and a tiny Transformer, for training position encodings in seconds.

The book trains real position tables on a CPU while a chapter executes. Everything here is
small on purpose: a vocabulary of a few tokens, sequences of a few dozen, one or two layers of
width 32. The tasks are chosen so that the answer at position ``p`` depends on *where* other
tokens are, so a model without position information cannot solve them.

* :mod:`book.toy.tasks`: :func:`toy_batch` makes a batch of one of the tasks;
* :mod:`book.toy.model`: :class:`TinyTransformer`, a pre-LayerNorm Transformer with a
  plug-in point for every family of encodings, and the :class:`ToyAttention` protocol of its
  attention layers;
* :mod:`book.toy.training`: :func:`train_toy` trains it with :class:`Adam` and records
  snapshots (e.g. of a position table) in a :class:`ToyRun`;
* :mod:`book.toy.probes`: :func:`toy_accuracy`, :func:`toy_position_accuracy`,
  :func:`toy_attention_weights` and :func:`toy_rotary_pair_logits` look into a trained model;
* :mod:`book.toy.baseline`: :func:`frequency_guess_accuracy` and
  :func:`frequency_guess_position_accuracy` give what a model without any position
  information can reach on ``"shift"``;

The experiments that train one toy per encoding of :mod:`book.catalogue` (chapters 10 and 11)
are in :mod:`book.experiments`: the toy sits below the catalogue, which names how each
family plugs into it, and the experiments sit above both.
"""

from book.toy.baseline import frequency_guess_accuracy, frequency_guess_position_accuracy
from book.toy.model import (
    TinyTransformer,
    ToyAttention,
    ToySelfAttention,
    ToyShawAttention,
    ToyWindowAttention,
)
from book.toy.probes import (
    toy_accuracy,
    toy_attention_weights,
    toy_position_accuracy,
    toy_rotary_pair_logits,
)
from book.toy.tasks import IGNORE_INDEX, TASKS, Task, passkey_markers, toy_batch
from book.toy.training import Adam, ToyRun, train_toy

__all__ = [
    "IGNORE_INDEX",
    "TASKS",
    "Adam",
    "Task",
    "TinyTransformer",
    "ToyAttention",
    "ToyRun",
    "ToySelfAttention",
    "ToyShawAttention",
    "ToyWindowAttention",
    "frequency_guess_accuracy",
    "frequency_guess_position_accuracy",
    "passkey_markers",
    "toy_accuracy",
    "toy_attention_weights",
    "toy_batch",
    "toy_position_accuracy",
    "toy_rotary_pair_logits",
    "train_toy",
]
