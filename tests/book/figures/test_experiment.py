"""Tests for book.figures.experiment: the figures hold the numbers of the results they draw."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch
from matplotlib.figure import Figure

from book.catalogue import get_encoding, toy_encodings
from book.experiments import LengthResults, toy_model
from book.figures._base import SLIDE_BOX, retina_palette_png, text_overlaps
from book.figures.experiment import (
    encoding_detail_figure,
    encoding_style,
    length_accuracy_figure,
    position_accuracy_figure,
    rotary_pair_figure,
)
from book.toy import (
    frequency_guess_accuracy,
    frequency_guess_position_accuracy,
    toy_rotary_pair_logits,
)

# the toy forms that chapter 10 compares (later chapters' toy forms are not in its figures)
ENCODINGS = tuple(e for e in toy_encodings() if int(get_encoding(e).chapter[:2]) <= 10)
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
            accuracy[name][n] = (
                float(acc[~acc.isnan()].mean()) if not acc.isnan().all() else math.nan
            )
        losses[name] = [2.0 / (s + 1 + i) for s in range(50)]
    return LengthResults(
        task="shift",
        k=2,
        train_lengths=(8, lengths[0]),
        eval_lengths=tuple(lengths),
        accuracy=accuracy,
        position_accuracy=per_position,
        losses=losses,
        models={},
        chance=1 / 16,
        seed=0,
        steps=50,
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
        np.testing.assert_allclose(
            x, LENGTHS, rtol=0.16
        )  # nudged sideways, less than a quarter octave
    assert len({tuple(np.round(line.get_xdata(), 6)) for line in lines.values()}) == len(ENCODINGS)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["16\n(L)", "32\n(2L)", "64\n(4L)"]
    # the learned table cannot run at 2L and 4L: crosses in a band below accuracy 0, labelled
    crosses = [line for line in ax.lines if line.get_marker() == "x"]
    assert len(crosses) == 1 and len(crosses[0].get_ydata()) == 2
    assert np.all(np.asarray(crosses[0].get_ydata()) < -0.05)  # not at accuracy 0
    assert crosses[0].get_color() == encoding_style("learned")["color"]
    np.testing.assert_allclose(crosses[0].get_xdata(), lines["learned"].get_xdata()[1:])
    assert ax.get_ylim()[0] < min(crosses[0].get_ydata())
    assert any("cannot run" in t.get_text() for t in ax.texts)
    assert next(t.get_text() for t in ax.get_yticklabels()) == "0.00"  # no tick in the band
    # chance level
    assert any(
        np.allclose(line.get_ydata(), 1 / 16) for line in ax.lines if len(line.get_ydata()) == 2
    )
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(ENCODINGS)  # no guess here
    # markers at the same accuracy do not hide each other: at least one marker width apart
    at_l = sorted(np.log2(line.get_xdata()[0]) for line in lines.values())
    assert min(np.diff(at_l)) >= 0.06


def test_length_figure_draws_the_guess_without_order_when_the_results_hold_it() -> None:
    results = synthetic_results()
    results.guess = {n: frequency_guess_position_accuracy(n) for n in LENGTHS}
    ax = length_accuracy_figure(results).axes[0]
    (guess,) = [line for line in ax.lines if line.get_label() == "guess without order"]
    np.testing.assert_allclose(guess.get_ydata(), [frequency_guess_accuracy(n) for n in LENGTHS])
    np.testing.assert_allclose(guess.get_xdata(), LENGTHS)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        *ENCODINGS,
        "guess without order",
    ]
    # without a model that cannot run, no band below the axis
    results = synthetic_results(encodings=("none", "rope"))
    ax = length_accuracy_figure(results).axes[0]
    assert ax.get_ylim()[0] == 0.0 and not [line for line in ax.lines if line.get_marker() == "x"]


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

    def title(ax):  # the title's lines joined
        return " ".join(ax.get_title().split())

    for ax, name in zip(axes, ENCODINGS):
        assert title(ax).startswith(f"{name}: ")
        drawn = ax.lines[-1].get_ydata()
        np.testing.assert_allclose(drawn, results.position_accuracy[name][32].numpy())
    assert title(axes[2]) == "learned: cannot run"
    assert any("cannot run at n = 32" in " ".join(t.get_text().split()) for t in axes[2].texts)
    assert f"accuracy {np.linspace(1, 0, 32)[2:].mean():.2f}" in title(axes[0])
    # default: the longest length; a selection of encodings in its own order
    fig = position_accuracy_figure(results, encodings=["rope", "none"], columns=2)
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title().split(":")[0] for ax in axes] == ["rope", "none"]
    assert len(axes[0].lines[-1].get_ydata()) == 64
    # 2L and 3L marked: dotted lines and tick labels
    verticals = sorted(
        line.get_xdata()[0]
        for line in axes[0].lines
        if len(set(line.get_xdata())) == 1 and line.get_linestyle() != "-"
    )
    assert verticals == [32, 48]
    assert [t.get_text() for t in axes[0].get_xticklabels()] == ["0", "L", "2L", "3L"]
    assert list(axes[0].get_xticks()) == [0, 16, 32, 48]
    # the guess without order, on the panel of "none" only
    results.guess = {n: frequency_guess_position_accuracy(n) for n in LENGTHS}
    fig = position_accuracy_figure(results, encodings=["rope", "none"], columns=2)
    rope_ax, none_ax = [ax for ax in fig.axes if ax.get_visible()]
    assert not [line for line in rope_ax.lines if line.get_label() == "guess without order"]
    (guess,) = [line for line in none_ax.lines if line.get_label() == "guess without order"]
    np.testing.assert_allclose(guess.get_ydata(), results.guess[64].numpy())


def test_detail_figure_shows_the_encoding_over_the_others_and_its_loss() -> None:
    results = synthetic_results()
    fig = encoding_detail_figure(results, "t5", 64)
    left, right = fig.axes
    faint = [line for line in left.lines if line.get_alpha() is not None and line.get_alpha() < 1]
    assert [line.get_color() for line in faint] == [
        encoding_style(e)["color"] for e in ENCODINGS if e != "t5"
    ]
    for line, name in zip(faint, [e for e in ENCODINGS if e != "t5"]):
        np.testing.assert_allclose(line.get_ydata(), results.position_accuracy[name][64].numpy())
    np.testing.assert_allclose(
        left.lines[-1].get_ydata(), results.position_accuracy["t5"][64].numpy()
    )
    assert left.get_title().startswith("t5 at n = 64: accuracy")
    # every loss in its encoding's colour, the chosen one drawn widest; a legend names them all
    assert [line.get_label() for line in right.lines] == list(ENCODINGS)
    for line, name in zip(right.lines, ENCODINGS):
        np.testing.assert_allclose(line.get_ydata(), results.losses[name])
        assert line.get_color() == encoding_style(name)["color"]
    widest = max(right.lines, key=lambda line: line.get_linewidth())
    assert widest.get_label() == "t5"
    assert [t.get_text() for t in fig.legends[0].get_texts()] == list(ENCODINGS)
    assert right.get_yscale() == "log"
    # for "none", the guess without order joins the left panel and the legend
    results.guess = {n: frequency_guess_position_accuracy(n) for n in LENGTHS}
    fig = encoding_detail_figure(results, "none", 32)
    assert any(line.get_label() == "guess without order" for line in fig.axes[0].lines)
    assert fig.legends[0].get_texts()[-1].get_text().startswith("guess without")
    assert "cannot run" in encoding_detail_figure(results, "learned", 64).axes[0].get_title()
    # different choices, different pictures
    a = encoding_detail_figure(results, "t5", 16).axes[0].lines[-1].get_ydata()
    assert len(a) == 16


def test_detail_figure_marks_the_stopping_rule_and_spans_the_longest_run() -> None:
    results = synthetic_results()
    results.losses["shaw"] = results.losses["shaw"][:12]  # stopped early
    results.stop_loss = 0.05
    right = encoding_detail_figure(results, "shaw", 64).axes[1]
    threshold = [line for line in right.lines if line.get_label() not in ENCODINGS]
    assert len(threshold) == 1 and list(threshold[0].get_ydata()) == [0.05, 0.05]
    assert list(right.get_xticks()) == [0, 50]  # the longest run, not the chosen one
    (shaw,) = [line for line in right.lines if line.get_label() == "shaw"]
    assert len(shaw.get_ydata()) == 12


def test_rotary_pair_figure_draws_each_pair_and_their_sum_by_offset() -> None:
    model = toy_model("rope", seed=0)
    tokens = torch.randint(0, 16, (5, 20), generator=torch.Generator().manual_seed(1))
    fig = rotary_pair_figure(model, tokens, query=18, heads=[1, 3], train_length=8)
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in axes] == ["head 1", "head 3"]
    parts = (
        toy_rotary_pair_logits(model, tokens)[:, :, :, 18, :19].mean(0).flip(-1).double().numpy()
    )  # [h, P, r]
    for ax, head in zip(axes, (1, 3)):
        by_label = {line.get_label(): line for line in ax.lines}
        fast = next(line for label, line in by_label.items() if label.startswith("pair 0"))
        second = next(line for label, line in by_label.items() if label.startswith("pair 1"))
        slower = next(line for label, line in by_label.items() if label.startswith("pairs 2+"))
        np.testing.assert_allclose(fast.get_xdata(), np.arange(19))
        np.testing.assert_allclose(fast.get_ydata(), parts[head, 0], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(second.get_ydata(), parts[head, 1], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(slower.get_ydata(), parts[head, 2:].sum(0), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(
            by_label["sum: the logit"].get_ydata(), parts[head].sum(0), rtol=1e-5, atol=1e-5
        )
        best = int(np.argmax(parts[head].sum(0)[:8]))  # preferred offset within the training range
        dashed = by_label["pair 1 at the preferred offset (•)"]
        np.testing.assert_allclose(dashed.get_ydata(), parts[head, 1, best], rtol=1e-5, atol=1e-6)
    assert "1 rad per position" in fast.get_label() and "0.1 rad per position" in second.get_label()
    # defaults: the last query, every head
    assert len([ax for ax in rotary_pair_figure(model, tokens).axes if ax.get_visible()]) == 4
    with pytest.raises(ValueError, match="query must be below"):
        rotary_pair_figure(model, tokens, query=20)
    with pytest.raises(ValueError, match="heads must be"):
        rotary_pair_figure(model, tokens, heads=[4])
    with pytest.raises(TypeError, match="RotaryEmbedding"):
        rotary_pair_figure(toy_model("t5"), tokens)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda r: length_accuracy_figure({"none": 1}), TypeError, "LengthResults"),
        (lambda r: position_accuracy_figure(r, 20), ValueError, "length must be one of"),
        (
            lambda r: position_accuracy_figure(r, encodings=["xpos"]),
            ValueError,
            "encodings must be",
        ),
        (lambda r: encoding_detail_figure(r, "xpos", 16), ValueError, "encoding must be one of"),
        (lambda r: encoding_detail_figure(r, "rope", 20), ValueError, "length must be one of"),
    ],
)
def test_errors(call, error, message) -> None:
    with pytest.raises(error, match=message):
        call(synthetic_results())


def test_length_accuracy_figure_refuses_a_title_that_is_not_text() -> None:
    with pytest.raises(TypeError, match=r"^title must be a string or None, got int 3"):
        length_accuracy_figure(synthetic_results(), title=3)


def test_rotary_pair_figure_slide_version_sets_the_heads_in_a_row_legibly() -> None:
    model = toy_model("rope", seed=0)  # chapter 10's shapes: four heads, 64 tokens, L = 16
    tokens = torch.randint(0, 16, (4, 64), generator=torch.Generator().manual_seed(1))
    page = rotary_pair_figure(model, tokens, train_length=16)
    _, metadata = retina_palette_png(page)
    slide = metadata["slide"]
    assert slide["width"] <= SLIDE_BOX[0] and slide["height"] <= SLIDE_BOX[1]
    fit = min(SLIDE_BOX[0] / slide["width"], SLIDE_BOX[1] / slide["height"])
    assert slide["text_px"] * fit * 1.5 >= 24.0  # px on a 1920 × 1080 projector
    layout = page.slide_version()
    layout.draw_without_rendering()
    assert text_overlaps(layout) == 0
    shown = [ax for ax in page.axes if ax.get_visible()]
    again = [ax for ax in layout.axes if ax.get_visible()]
    assert [ax.get_title() for ax in again] == [f"head {h}" for h in range(4)]
    assert len({round(ax.get_position().y0, 6) for ax in again}) == 1  # in a row
    for a, b in zip(shown, again):
        assert [line.get_label() for line in a.lines] == [line.get_label() for line in b.lines]
        for line_a, line_b in zip(a.lines, b.lines):
            np.testing.assert_array_equal(line_a.get_ydata(), line_b.get_ydata())
    assert [t.get_text() for t in layout.legends[0].get_texts()] == [
        t.get_text() for t in page.legends[0].get_texts()
    ]


@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        ({"train_length": 2.5}, TypeError, r"^train_length must be an integer"),
        ({"train_length": "3"}, TypeError, r"^train_length must be an integer"),
        ({"train_length": True}, TypeError, r"^train_length must be an integer"),
        ({"train_length": 0}, ValueError, r"^train_length must be positive"),
        ({"train_length": -1}, ValueError, r"^train_length must be positive"),
        ({"tokens": torch.ones(2, 8, dtype=torch.bool)}, TypeError, r"^tokens must be an integer"),
        ({"tokens": torch.ones(2, 8)}, TypeError, r"^tokens must be an integer"),
        ({"tokens": torch.ones(8, dtype=torch.long)}, ValueError, r"^tokens must have 2"),
        ({"heads": 0}, TypeError, r"^heads must be a sequence of head indices, got int"),
        ({"heads": "01"}, TypeError, r"^heads must be a sequence"),
        ({"heads": (0, 1.0)}, TypeError, r"^heads\[1\] must be an integer"),
        ({"heads": (0, -1)}, ValueError, r"^heads\[1\] must be >= 0"),
        ({"title": 3}, TypeError, r"^title must be a string or None, got int 3"),
        ({"slide": "yes"}, TypeError, r"^slide must be a bool"),
    ],
)
def test_rotary_pair_figure_refuses_bad_arguments_by_name(change, error, message) -> None:
    kwargs = {
        "tokens": torch.zeros(2, 8, dtype=torch.long),
        "query": 6,
        "heads": (0, 1),
        "train_length": 4,
    }
    kwargs.update(change)
    model = toy_model("rope", seed=0)
    with pytest.raises(error, match=message):
        rotary_pair_figure(model, kwargs.pop("tokens"), **kwargs)
