"""Tests for posenc.plotting.experiment: the figures hold the numbers of the results they draw."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch
from matplotlib.figure import Figure

from posenc.plotting.experiment import (
    encoding_detail_figure,
    encoding_style,
    length_accuracy_figure,
    position_accuracy_figure,
)
from posenc.toy import ENCODINGS, LengthResults

LENGTHS = (16, 32, 64)


def synthetic_results(encodings=ENCODINGS, lengths=LENGTHS) -> LengthResults:
    """A hand-made LengthResults: encoding i has accuracy 1 − 0.1·i at every position."""
    accuracy, per_position, losses = {}, {}, {}
    for i, name in enumerate(encodings):
        accuracy[name], per_position[name] = {}, {}
        for n in lengths:
            if name == "learned" and n > lengths[0]:
                acc = torch.full((n,), math.nan, dtype=torch.float64)
            else:
                acc = torch.linspace(1.0, 0.1 * i, n, dtype=torch.float64)
                acc[:2] = math.nan  # the first k = 2 positions of "shift" have no answer
            per_position[name][n] = acc
            accuracy[name][n] = float(acc[~acc.isnan()].mean()) if not acc.isnan().all() else math.nan
        losses[name] = [2.0 / (s + 1 + i) for s in range(50)]
    return LengthResults(
        task="shift", k=2, train_lengths=(8, lengths[0]), eval_lengths=tuple(lengths),
        accuracy=accuracy, position_accuracy=per_position, losses=losses, models={},
        chance=1 / 16, seed=0, steps=50,
    )


def test_length_figure_has_one_line_per_encoding_holding_its_accuracies() -> None:
    results = synthetic_results()
    before = plt.get_fignums()
    fig = length_accuracy_figure(results)
    assert plt.get_fignums() == before  # no pyplot state
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    ax = fig.axes[0]
    assert ax.get_xscale() == "log"
    lines = {line.get_label(): line for line in ax.lines if not line.get_label().startswith("_")}
    assert list(lines) == list(ENCODINGS)
    for name, accs in results.rows():
        np.testing.assert_allclose(lines[name].get_ydata(), accs)  # nan kept: the line stops
        x = np.asarray(lines[name].get_xdata())
        np.testing.assert_allclose(x, LENGTHS, rtol=0.1)  # nudged sideways by a few percent
    assert len({tuple(np.round(line.get_xdata(), 6)) for line in lines.values()}) == len(ENCODINGS)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["16\n(L)", "32\n(2L)", "64\n(4L)"]
    # the learned table cannot run at 2L and 4L: crosses on the x axis and a note
    crosses = [line for line in ax.lines if line.get_marker() == "x"]
    assert len(crosses) == 1 and np.allclose(crosses[0].get_ydata(), 0.0)
    assert any("learned: cannot run" in t.get_text() for t in ax.texts)
    # chance level
    assert any(np.allclose(line.get_ydata(), 1 / 16) for line in ax.lines if len(line.get_ydata()) == 2)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(ENCODINGS)


def test_styles_separate_families_and_cover_unknown_labels() -> None:
    assert encoding_style("none")["ls"] == ":"
    assert {encoding_style(e)["ls"] for e in ("sinusoidal", "learned")} == {"--"}
    assert {encoding_style(e)["ls"] for e in ("shaw", "t5", "alibi", "rope")} == {"-"}
    assert len({encoding_style(e)["color"] for e in ENCODINGS}) == len(ENCODINGS)
    assert encoding_style("my own", 0)["color"] != encoding_style("my own", 1)["color"]


def test_position_figure_draws_each_encoding_at_the_chosen_length() -> None:
    results = synthetic_results()
    fig = position_accuracy_figure(results, 32)
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert len(axes) == len(ENCODINGS)
    for ax, name in zip(axes, ENCODINGS):
        assert ax.get_title().startswith(f"{name}: ")
        drawn = ax.lines[-1].get_ydata()
        np.testing.assert_allclose(drawn, results.position_accuracy[name][32].numpy())
    assert axes[2].get_title() == "learned: cannot run"
    assert any("cannot run at n = 32" in t.get_text() for t in axes[2].texts)
    assert f"accuracy {np.linspace(1, 0, 32)[2:].mean():.2f}" in axes[0].get_title()
    # default: the longest length; a selection of encodings in its own order
    fig = position_accuracy_figure(results, encodings=["rope", "none"], columns=2)
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title().split(":")[0] for ax in axes] == ["rope", "none"]
    assert len(axes[0].lines[-1].get_ydata()) == 64


def test_detail_figure_shows_the_encoding_over_the_others_and_its_loss() -> None:
    results = synthetic_results()
    fig = encoding_detail_figure(results, "t5", 64)
    left, right = fig.axes
    grey = [line for line in left.lines if line.get_color() == "0.8"]
    assert len(grey) == len(ENCODINGS) - 1
    np.testing.assert_allclose(left.lines[-1].get_ydata(), results.position_accuracy["t5"][64].numpy())
    assert left.get_title().startswith("t5 at n = 64: accuracy")
    np.testing.assert_allclose(right.lines[-1].get_ydata(), results.losses["t5"])
    assert right.lines[-1].get_color() == encoding_style("t5")["color"]
    assert right.get_yscale() == "log"
    assert "cannot run" in encoding_detail_figure(results, "learned", 64).axes[0].get_title()
    # different choices, different pictures
    a = encoding_detail_figure(results, "t5", 16).axes[0].lines[-1].get_ydata()
    assert len(a) == 16


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda r: length_accuracy_figure({"none": 1}), TypeError, "LengthResults"),
        (lambda r: position_accuracy_figure(r, 20), ValueError, "length must be one of"),
        (lambda r: position_accuracy_figure(r, encodings=["xpos"]), ValueError, "encodings must be"),
        (lambda r: encoding_detail_figure(r, "xpos", 16), ValueError, "encoding must be one of"),
        (lambda r: encoding_detail_figure(r, "rope", 20), ValueError, "length must be one of"),
    ],
)
def test_errors(call, error, message) -> None:
    with pytest.raises(error, match=message):
        call(synthetic_results())
