"""Explorer for chapter 1: shuffle a sentence, with and without position information."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from matplotlib.figure import Figure

from book._checks import check_permutation, check_values
from book.explorers.explorer import Explorer, explorer
from book.figures.attention import SENTENCE, shuffle_attention_figure
from posenc._checks import check_even, check_int

__all__ = ["SHUFFLES", "permutation_explorer"]

#: a few fixed shuffles of a six-word sentence: label -> permutation (new slot i holds word perm[i])
SHUFFLES: dict[str, tuple[int, ...]] = {
    "original order": (0, 1, 2, 3, 4, 5),
    "swap 'dog' and 'ball'": (0, 5, 2, 3, 4, 1),
    "reversed": (5, 4, 3, 2, 1, 0),
    "rotate by 2": (2, 3, 4, 5, 0, 1),
    "random shuffle": (4, 0, 5, 2, 1, 3),
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

    Args:
        words: the sentence, one string per word (at least one).
        shuffles: the values of the ``shuffle`` control, label -> permutation of
            ``0 … len(words) − 1`` (default :data:`SHUFFLES`, for six words).
        dim: ``d``, channels of the word vectors (even).
        seed: seed of the toy layer's weights (``>= 0``).

    Returns:
        an :class:`~book.explorers.explorer.Explorer` with the controls ``shuffle`` and
        ``positions``; ``2·len(shuffles)`` figures are pre-rendered for the static book.
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
    )
