"""Tests for book.explorers.learned: controls, changing images, static HTML."""

from __future__ import annotations

import base64

import pytest
import torch

from book.explorers.learned import training_snapshots_explorer
from book.figures.png import palette_png


def _snapshots() -> dict[str, dict[int, torch.Tensor]]:
    torch.manual_seed(0)
    grow = {step: torch.randn(8, 4) * (0.1 + step) for step in (0, 1, 2)}
    return {"zeros": {0: torch.zeros(8, 4), 1: grow[1], 2: grow[2]}, "trunc_normal": grow}


def test_controls_and_combinations() -> None:
    ex = training_snapshots_explorer(_snapshots(), train_length=6)
    assert [c.name for c in ex.controls] == ["run", "step"]
    assert ex.controls[0].values == ("zeros", "trunc_normal")
    assert ex.controls[1].values == (0, 1, 2)
    assert ex.controls[1].kind == "slider"
    assert ex.n_combinations == 6


def test_image_changes_with_each_control() -> None:
    ex = training_snapshots_explorer(_snapshots(), losses={"zeros": [3, 2], "trunc_normal": [3, 1]})
    assert ex.png(run="zeros", step=0) != ex.png(run="zeros", step=2)
    assert ex.png(run="zeros", step=2) != ex.png(run="trunc_normal", step=2)


def test_reference_loss_is_drawn() -> None:
    losses = {"zeros": [3, 2], "trunc_normal": [3, 1]}
    plain = training_snapshots_explorer(_snapshots(), losses=losses)
    marked = training_snapshots_explorer(_snapshots(), losses=losses, reference_loss=1.5)
    assert plain.png(step=2) != marked.png(step=2)
    ax = marked.figure(step=2).axes[2]
    assert any(list(line.get_ydata()) == [1.5, 1.5] for line in ax.lines)


def test_static_html_holds_every_distinct_image() -> None:
    ex = training_snapshots_explorer(_snapshots())
    html = ex.static_html()
    distinct = {ex.png(**ex._values(key)) for key in ex.all_indices()}
    assert len(distinct) == 6
    for data in distinct:
        assert base64.b64encode(palette_png(data)).decode("ascii") in html


def test_live_widget_redraws() -> None:
    ex = training_snapshots_explorer(_snapshots())
    widget = ex.widget
    before = widget.image.value
    widget.inputs[1].value = 2
    assert widget.image.value != before


def test_bad_snapshots() -> None:
    with pytest.raises(ValueError, match="non-empty"):
        training_snapshots_explorer({})
    with pytest.raises(ValueError, match="same steps"):
        training_snapshots_explorer({"a": {0: torch.ones(2, 2)}, "b": {1: torch.ones(2, 2)}})
    with pytest.raises(ValueError, match="losses"):
        training_snapshots_explorer({"a": {0: torch.ones(2, 2)}}, losses={"b": [1.0]})


def _runs(table):
    return {"zeros": {0: table, 10: table}}


_GOOD = torch.randn(6, 4, generator=torch.Generator().manual_seed(0))


@pytest.mark.parametrize(
    "args,kwargs,error,match",
    [
        ((_runs(torch.zeros(0, 4)),), {}, ValueError, r"snapshots\['zeros'\]\[0\] must not be"),
        ((_runs(torch.ones(6, 4).long()),), {}, TypeError, r"snapshots\['zeros'\]\[0\] must be"),
        ((_runs(torch.full((6, 4), float("nan"))),), {}, ValueError, "must be finite"),
        ((_runs(torch.ones(6)),), {}, ValueError, "must have 2 dimensions"),
        (({"zeros": {True: _GOOD}},), {}, TypeError, "step True of snapshots"),
        (({"zeros": {-1: _GOOD}},), {}, ValueError, "step -1 of snapshots"),
        ((_runs(_GOOD),), {"losses": [0.5]}, TypeError, "losses must be a mapping"),
        ((_runs(_GOOD),), {"train_length": 0}, ValueError, "train_length must be positive"),
        ((_runs(_GOOD),), {"reference_loss": float("nan")}, ValueError, "reference_loss must"),
        (({},), {}, ValueError, "snapshots must be a non-empty mapping"),
        ((_runs(_GOOD),), {"reference_label": 3}, TypeError, r"^reference_label must be a str"),
        ((_runs(_GOOD),), {"reference_label": None}, TypeError, r"^reference_label must be a"),
    ],
)
def test_explorer_refuses_bad_snapshots(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        training_snapshots_explorer(*args, **kwargs)
