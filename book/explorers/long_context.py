"""The explorer of chapter 13: a sliding window with attention sinks on a trained toy."""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from book._checks import check_values
from book.experiments.passkey import passkey_scores, streaming_copy
from book.explorers.explorer import Explorer, explorer
from book.figures.long_context import streaming_figure
from book.toy.model import TinyTransformer
from posenc._checks import check_int

__all__ = ["streaming_explorer"]


def streaming_explorer(
    model: TinyTransformer,
    *,
    windows: Sequence[int] = (8, 16, 28),
    sinks: Sequence[int] = (0, 1, 4),
    lengths: Sequence[int] = (64, 128, 256),
    num_sequences: int = 256,
    title: str = "Which passkeys a sliding window with sinks can still name",
) -> Explorer:
    """Run a trained toy RoPE model with a sliding window and sinks; see which passkeys it finds.

    For every window ``w``, number of sinks and test length, the model runs as StreamingLLM
    runs it (:func:`book.experiments.passkey.streaming_copy`) on the same test sequences
    (:func:`book.experiments.passkey.passkey_scores`), and
    :func:`book.figures.long_context.streaming_figure` draws retrieval by the depth of the key
    against the depths its cache still holds, with the filler's perplexity in the title.

    Args:
        model: a toy RoPE model trained on ``"passkey"``
            (:func:`book.experiments.passkey.trained_passkey_model`).
        windows, sinks, lengths: the values of the three controls.
        num_sequences: test sequences per length.
        title: the explorer's caption.

    Returns:
        an :class:`~book.explorers.explorer.Explorer` with controls ``window``, ``sinks`` and
        ``length``.
    """
    if not isinstance(model, TinyTransformer):
        raise TypeError(f"model must be a TinyTransformer, got {type(model).__name__}")
    windows = check_values("windows", windows, check_int)
    sinks = check_values("sinks", sinks, lambda name, s: check_int(name, s, minimum=0))
    lengths = check_values("lengths", lengths, lambda name, n: check_int(name, n, minimum=4))
    num_sequences = check_int("num_sequences", num_sequences)

    def render(window: int, sinks: int, length: int) -> Figure:
        windowed = streaming_copy(model, window=window, sinks=sinks)
        score = passkey_scores(windowed, length, num_sequences=num_sequences)
        return streaming_figure(score, length=length, window=window, sinks=sinks)

    return explorer(
        render,
        {"window": list(windows), "sinks": list(sinks), "length": list(lengths)},
        defaults={"window": max(windows), "sinks": max(sinks), "length": max(lengths)},
        title=title,
    )
