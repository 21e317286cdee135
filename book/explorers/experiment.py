"""Explorers for the length-generalisation experiment (chapter 10)."""

from __future__ import annotations

from matplotlib.figure import Figure

from book.experiments.results import LengthResults
from book.explorers.explorer import Explorer, explorer
from book.figures.experiment import encoding_detail_figure

__all__ = ["length_results_explorer"]


def length_results_explorer(
    results: LengthResults,
    *,
    encoding: str | None = None,
    title: str = "Where each encoding fails: accuracy position by position",
) -> Explorer:
    """Step through the results of a length-generalisation run, encoding by encoding.

    One control picks the encoding, a slider the test length. The figure
    (:func:`book.figures.experiment.encoding_detail_figure`) shows that encoding's accuracy
    at every position of the test sequences, bold, over the other encodings, faint in their
    own colours, and the training losses of all, with a legend naming every colour.
    Everything is drawn from ``results``: nothing is trained or evaluated again, so the
    explorer costs only the drawing (one figure per encoding and length).

    Args:
        results: from :func:`book.toy.length_generalisation`.
        encoding: the encoding shown first (default: the first one); the longest test length
            is shown first.
        title: the explorer's caption.

    Returns:
        an :class:`~book.explorers.explorer.Explorer` with controls ``encoding`` and ``length``.
    """
    if not isinstance(results, LengthResults):
        raise TypeError(f"results must be a book.toy.LengthResults, got {type(results).__name__}")
    if encoding is not None and encoding not in results.accuracy:
        raise ValueError(f"encoding must be one of {results.encodings}, got {encoding!r}")

    def render(encoding: str, length: int) -> Figure:
        return encoding_detail_figure(results, encoding, length)

    return explorer(
        render,
        {"encoding": list(results.encodings), "length": list(results.eval_lengths)},
        defaults={
            "length": max(results.eval_lengths),
            **({"encoding": encoding} if encoding is not None else {}),
        },
        title=title,
    )
