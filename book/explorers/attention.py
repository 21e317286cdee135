"""Explorer for chapter 1: shuffle a sentence, with and without position information."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from matplotlib.figure import Figure

from book._checks import check_permutation, check_values
from book.demos.attention import toy_attention_layer, word_vectors
from book.explorers.explorer import Explorer, explorer
from book.figures.attention import SENTENCE, shuffle_attention_figure
from posenc._checks import check_even, check_int

__all__ = ["RANDOM", "SHUFFLES", "permutation_explorer"]

RANDOM = "random shuffle"
"""The option of the ``shuffle`` control that the page's "New random order" button refills."""

#: a few fixed shuffles of a six-word sentence: label -> permutation (new slot i holds word perm[i])
SHUFFLES: dict[str, tuple[int, ...]] = {
    "original order": (0, 1, 2, 3, 4, 5),
    "swap 'dog' and 'ball'": (0, 5, 2, 3, 4, 1),
    "reversed": (5, 4, 3, 2, 1, 0),
    "rotate by 2": (2, 3, 4, 5, 0, 1),
    RANDOM: (4, 0, 5, 2, 1, 3),
}


def permutation_explorer(
    words: Sequence[str] = SENTENCE,
    shuffles: Mapping[str, Sequence[int]] | None = None,
    *,
    dim: int = 16,
    seed: int = 0,
) -> Explorer:
    """Pick a shuffle of the sentence and switch positions on or off.

    Without positions the attention matrix of the shuffled sentence is the original one with
    rows and columns reordered, and every word's output is unchanged (all bars at zero);
    with the sinusoidal encoding added, the pattern and the outputs change.

    Controls: ``shuffle`` (drop-down of permutations), ``positions`` (checkbox).

    Live in the static book: the reader's browser runs the toy layer itself (the drawer
    ``permutation`` of ``book/ext/twin_static/drawers``, with the layer's weights and the word
    vectors written into the page, and posenc's JavaScript twin for the positions), and a
    "New random order" button puts a fresh random permutation in the ``random shuffle``
    option. The page stores only the default figure, for print and for a page without
    JavaScript; the kernel's widget offers the listed shuffles.

    Args:
        words: the sentence, one string per word (at least one).
        shuffles: the values of the ``shuffle`` control, label -> permutation of
            ``0 … len(words) − 1`` (default :data:`SHUFFLES`, for six words).
        dim: ``d``, channels of the word vectors (even).
        seed: seed of the toy layer's weights (``>= 0``).

    Returns:
        an :class:`~book.explorers.explorer.Explorer` with the controls ``shuffle`` and
        ``positions``; the kernel's widget renders ``2·len(shuffles)`` figures at most.
    """
    if shuffles is None:
        shuffles = SHUFFLES
    if not isinstance(shuffles, Mapping):
        raise TypeError(
            f"shuffles must be a mapping label -> permutation, got {type(shuffles).__name__}"
        )
    if not shuffles:
        raise ValueError("shuffles must offer at least one permutation, got an empty mapping")
    words = tuple(check_values("words", words))
    for i, w in enumerate(words):
        if not isinstance(w, str):
            raise TypeError(f"words[{i}] must be a string, got {type(w).__name__} {w!r}")
    seed = check_int("seed", seed, minimum=0)
    dim = check_even("dim", dim)
    table = {
        str(label): tuple(check_permutation(f"shuffles[{label!r}]", perm, len(words)))
        for label, perm in shuffles.items()
    }

    def render(shuffle: tuple[int, ...], positions: bool) -> Figure:
        return shuffle_attention_figure(shuffle, positions, words=words, dim=dim, seed=seed)

    return explorer(
        render,
        {"shuffle": table, "positions": [False, True]},
        defaults={"shuffle": table["reversed"]} if "reversed" in table else None,
        title="Shuffle the words: does attention notice?",
        live="permutation",
        live_data=_layer_data(words, dim, seed),
        reshuffle=("shuffle", RANDOM) if RANDOM in table and len(words) > 1 else None,
    )


def _layer_data(words: tuple[str, ...], dim: int, seed: int) -> dict[str, object]:
    """What the page's drawer needs to run the toy layer: the word vectors and the weights.

    From :func:`book.demos.attention.word_vectors` and :func:`~book.demos.attention.
    toy_attention_layer` (float32 values, written exactly: ``float(x)`` of a float32 is its
    value, and JSON keeps it).
    """
    layer = toy_attention_layer(dim, seed=seed)
    vectors = word_vectors(list(dict.fromkeys(words)), dim)  # [distinct words, d]
    row = {w: i for i, w in enumerate(dict.fromkeys(words))}
    return {
        "words": list(words),
        "dim": dim,
        "wordVectors": [vectors[row[w]].tolist() for w in words],  # [n][d]
        "qkvWeight": layer.qkv.weight.detach().reshape(-1).tolist(),  # [3d·d]
        "qkvBias": layer.qkv.bias.detach().tolist(),  # [3d]
        "outWeight": layer.out.weight.detach().reshape(-1).tolist(),  # [d·d]
        "outBias": layer.out.bias.detach().tolist(),  # [d]
    }
