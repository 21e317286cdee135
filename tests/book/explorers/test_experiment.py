"""The chapter 10 explorer: controls change the picture; the static page holds each one once."""

from __future__ import annotations

import re

import pytest

from book.explorers.experiment import length_results_explorer
from tests.book.figures.test_experiment import ENCODINGS, LENGTHS, synthetic_results


def test_controls_defaults_and_static_html() -> None:
    ex = length_results_explorer(synthetic_results())
    assert [c.name for c in ex.controls] == ["encoding", "length"]
    assert [c.kind for c in ex.controls] == ["select", "slider"]
    assert list(ex.controls[0].values) == list(ENCODINGS)
    assert ex.n_combinations == len(ENCODINGS) * len(LENGTHS) <= 60
    assert ex.controls[1].values[ex.controls[1].default_index] == 64  # the longest length first
    few = ("none", "learned", "rope")  # fewer encodings: fewer figures to draw in a unit test
    ex = length_results_explorer(synthetic_results(encodings=few))
    pngs = {ex.png(encoding=e, length=n) for e in few for n in LENGTHS}
    assert len(pngs) == ex.n_combinations  # every combination draws a different picture
    html = ex.static_html()
    images = set(re.search(r'"images": \[(.*?)\]', html).group(1).split(","))
    assert len(images) == len(pngs)


def test_each_control_changes_the_image_and_draws_from_the_results() -> None:
    results = synthetic_results()
    ex = length_results_explorer(results, encoding="rope")
    assert ex.controls[0].values[ex.controls[0].default_index] == "rope"
    assert ex.png() != ex.png(encoding="t5")
    assert ex.png() != ex.png(length=32)
    fig = ex.figure(encoding="shaw", length=16)
    assert (
        list(fig.axes[0].lines[-1].get_ydata()[2:])
        == results.position_accuracy["shaw"][16][2:].tolist()
    )


def test_bad_arguments() -> None:
    with pytest.raises(TypeError, match="LengthResults"):
        length_results_explorer({})
    with pytest.raises(ValueError, match="encoding must be one of"):
        length_results_explorer(synthetic_results(), encoding="xpos")
