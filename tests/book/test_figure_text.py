"""Issue 13: every figure and explorer frame the book shows has its smallest text >= 11 CSS px.

The figure functions are found in the chapters themselves: every call, in a code cell, of a
name imported from ``book.figures.*`` or ``book.explorers.*``. A call whose arguments are
literals is rebuilt as the chapter writes it; a call that passes the chapter's own data needs
a representative call in :data:`REPRESENTATIVE` (the test fails, naming it, when one is
missing). Functions that return neither a ``Figure`` nor an ``Explorer`` (a table helper) are
not figures. The size is measured from the ``Figure`` (:func:`book.figures.measure.smallest_text`):

    px = points · css_dpi / 72 · min(1, 680 / width_css)

where inline figures are shown at their ``dpi`` (100 CSS px per inch; 2× PNGs shown at 1×)
and cropped to their tight bounding box, and explorer frames at the explorer's ``dpi``. An
explorer is measured in its default frame and with each control at its first and last value.
Static figures must also fit the column (an inline figure wider than 680 CSS px is shrunk).
"""

from __future__ import annotations

import ast
import importlib
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nbformat
import pytest
import torch
from matplotlib.figure import Figure

from book.explorers.explorer import Explorer
from book.figures._base import PAD_INCHES
from book.figures.measure import COLUMN_PX, MIN_TEXT_PX, smallest_text

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "chapters").glob("*.ipynb")) + sorted(
    (ROOT / "appendix").glob("*.ipynb")
)
PACKAGES = ("book.figures", "book.explorers")


def _code(source: str) -> str:
    """A cell's source without IPython magics and shell escapes."""
    return "\n".join(
        "" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()
    )


def chapter_calls(path: Path) -> list[tuple[str, str, ast.Call]]:
    """``(module, name, call)`` for every call of a figure function in the chapter's code."""
    nb = nbformat.read(path, as_version=4)
    trees = [ast.parse(_code(c.source)) for c in nb.cells if c.cell_type == "code"]
    imported: dict[str, tuple[str, str]] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PACKAGES):
                for alias in node.names:
                    imported[alias.asname or alias.name] = (node.module, alias.name)
    calls = []
    for tree in trees:
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            if isinstance(node.func, ast.Name) and node.func.id in imported:
                calls.append((*imported[node.func.id], node))
            elif isinstance(node.func, ast.Attribute) and ast.unparse(node.func.value).startswith(
                PACKAGES
            ):  # book.figures.rotary.rotary_decay_figure(...)
                calls.append((ast.unparse(node.func.value), node.func.attr, node))
    return calls


def _literal_args(call: ast.Call) -> tuple[list, dict] | None:
    """The call's arguments when all are literals, else ``None``."""
    try:
        args = [ast.literal_eval(a) for a in call.args]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg}
    except ValueError:
        return None
    if any(k.arg is None for k in call.keywords):  # **kwargs
        return None
    return args, kwargs


# -- representative calls for the figures that draw a chapter's own data -----------------------


def _length_results():
    from book.catalogue import toy_encodings
    from tests.book.figures.test_experiment import synthetic_results

    return synthetic_results(toy_encodings(), (64, 128, 256))


def _trained_table() -> Figure:
    from book.figures.learned import trained_table_figure
    from posenc.sinusoidal import sinusoidal_encoding

    g = torch.Generator().manual_seed(0)
    initial = torch.randn(48, 32, generator=g) * 0.02  # [n, d]
    trained = initial.clone()
    trained[:32] += torch.randn(32, 32, generator=g)
    return trained_table_figure(
        trained,
        initial,
        train_length=32,
        reference=sinusoidal_encoding(48, 32),
        reference_title="sinusoidal table (chapter 3)",
    )


def _training_snapshots() -> Explorer:
    from book.explorers.learned import training_snapshots_explorer

    steps = (0, 5, 20, 40, 60, 80, 120, 200)
    g = torch.Generator().manual_seed(0)
    runs = {
        name: {s: torch.randn(48, 32, generator=g) * (s + 1) / 200 for s in steps}
        for name in ("trunc_normal", "zeros")
    }
    losses = {name: [2.5 / (1 + s / 20) for s in range(200)] for name in runs}
    return training_snapshots_explorer(
        runs, losses=losses, train_length=32, reference_loss=1.6, reference_label="no position"
    )


def _shaw_cost() -> Figure:
    from book.figures.shaw import shaw_cost_figure

    sizes = [128.0, 256.0, 512.0, 1024.0]
    timings = {
        "n": sizes,
        "naive": [1e-3 * n**2 / 128**2 if n <= 256 else None for n in sizes],
        "plain": [2e-4 * n**2 / 128**2 for n in sizes],
        "posenc": [4e-4 * n**2 / 128**2 for n in sizes],
    }
    return shaw_cost_figure(timings, dim=64, max_relative_position=16)


def _rotary_convention() -> Figure:
    from book.figures.rotary import rotary_convention_figure

    g = torch.Generator().manual_seed(0)
    queries, keys = torch.randn(2, 24, 64, generator=g)  # [n, d]
    return rotary_convention_figure(queries, keys, offset=-5)


def _rotary_pair() -> Figure:
    from book.experiments import toy_model
    from book.figures.experiment import rotary_pair_figure
    from book.toy import toy_batch

    tokens, _ = toy_batch("shift", 64, 64, generator=torch.Generator().manual_seed(5))
    return rotary_pair_figure(toy_model("rope", seed=0), tokens, train_length=64)


def _length_accuracy() -> Figure:
    from book.figures.experiment import length_accuracy_figure

    return length_accuracy_figure(_length_results())


def _position_accuracy() -> Figure:
    from book.figures.experiment import position_accuracy_figure

    return position_accuracy_figure(_length_results(), 128)


def _length_explorer() -> Explorer:
    from book.explorers.experiment import length_results_explorer

    return length_results_explorer(_length_results(), encoding="rope")


def _bias_transfer() -> Figure:
    from book.demos.grids import window_bias_transfer
    from book.figures.window_v2 import bias_transfer_figure

    # a few steps of a small MLP: the figure's layout, not the fit, is measured
    return bias_transfer_figure(window_bias_transfer((8, 8), (16, 16), steps=5, hidden_dim=16))


def _continuous_bias() -> Explorer:
    from book.demos.grids import window_bias_transfer
    from book.explorers.window_v2 import continuous_bias_explorer

    mlp = window_bias_transfer((8, 8), (8, 8), steps=5, hidden_dim=16).mlp  # a quick small fit
    return continuous_bias_explorer(mlp=mlp)


def _rotary_stretch_results() -> Figure:
    from book.experiments.scaling import rope_stretching
    from book.figures.rotary import rotary_stretch_results_figure

    results = rope_stretching(  # every method, as the chapter; a few steps: only the text matters
        steps=3, finetune_steps=2, num_sequences=4, num_layers=1, progress=False
    )
    return rotary_stretch_results_figure(results)


def _passkey_results() -> object:
    from book.experiments.passkey import passkey_retrieval

    # two seeds, a few steps, the chapter's four lengths: only the layout is measured
    return passkey_retrieval(
        (0, 1),
        steps=3,
        num_sequences=16,
        workers=1,
        progress=False,
        eval_lengths=(32, 64, 128, 256),
    )


def _passkey_depth() -> Figure:
    from book.figures.long_context import passkey_depth_figure

    return passkey_depth_figure(_passkey_results())


def _streaming_explorer() -> Explorer:
    from book.experiments.passkey import passkey_model
    from book.explorers.long_context import streaming_explorer

    return streaming_explorer(passkey_model("rope", seed=0), num_sequences=16)


REPRESENTATIVE: dict[str, Callable[[], Figure | Explorer]] = {
    "passkey_depth_figure": _passkey_depth,
    "streaming_explorer": _streaming_explorer,
    "rotary_stretch_results_figure": _rotary_stretch_results,
    "bias_transfer_figure": _bias_transfer,
    "continuous_bias_explorer": _continuous_bias,
    "trained_table_figure": _trained_table,
    "training_snapshots_explorer": _training_snapshots,
    "shaw_cost_figure": _shaw_cost,
    "rotary_convention_figure": _rotary_convention,
    "rotary_pair_figure": _rotary_pair,
    "length_accuracy_figure": _length_accuracy,
    "position_accuracy_figure": _position_accuracy,
    "length_results_explorer": _length_explorer,
}
"""Figure function -> a call like the chapter's, for calls that pass the chapter's data."""


def _cases() -> list[Any]:
    cases, seen = [], set()
    for path in NOTEBOOKS:
        for module, name, call in chapter_calls(path):
            source = ast.unparse(call)
            key = (module, name, source if _literal_args(call) else "")
            if key in seen:
                continue
            seen.add(key)
            cases.append(pytest.param(module, name, call, id=f"{path.stem}:{source[:60]}"))
    return cases


CASES = _cases()


def test_the_chapters_call_figure_functions():
    assert len(CASES) >= 30, [c.id for c in CASES]  # a parser that finds nothing fails here


def _build(module: str, name: str, call: ast.Call) -> object:
    literal = _literal_args(call)
    if literal is not None:
        return getattr(importlib.import_module(module), name)(*literal[0], **literal[1])
    if name not in REPRESENTATIVE:
        pytest.fail(
            f"{name} is called with a chapter's own data ({ast.unparse(call)[:80]}): "
            "add a representative call to REPRESENTATIVE in tests/book/test_figure_text.py"
        )
    return REPRESENTATIVE[name]()


def _frames(ex: Explorer) -> list[dict[str, Any]]:
    """The default frame, and each control at its first and last value."""
    frames: list[dict[str, Any]] = [{}]
    for c in ex.controls:
        frames += [{c.name: c.values[0]}, {c.name: c.values[-1]}]
    return frames


NOT_YET: dict[str, str] = {}
"""Figures known to fail, with the reason (issue 13, unfinished): strict, so a fix shows."""


@pytest.mark.parametrize(("module", "name", "call"), CASES)
def test_smallest_text_is_at_least_11_css_px(module, name, call, request):
    if name in NOT_YET:
        request.applymarker(pytest.mark.xfail(reason=NOT_YET[name], strict=True))
    result = _build(module, name, call)
    if isinstance(result, Explorer):
        for values in _frames(result):
            px, text, points, width = smallest_text(
                result.figure(**values), css_dpi=result.dpi, tight=False
            )
            assert px >= MIN_TEXT_PX, (
                f"{name} frame {values}: {text!r} at {points:g} pt is {px:.1f} CSS px "
                f"(frame {width:.0f} CSS px wide)"
            )
    elif isinstance(result, Figure):
        px, text, points, width = smallest_text(
            result, css_dpi=result.dpi, tight=True, pad_inches=PAD_INCHES
        )
        assert px >= MIN_TEXT_PX, (
            f"{name}: {text!r} at {points:g} pt is {px:.1f} CSS px "
            f"(figure {width:.0f} CSS px wide, shown at most {COLUMN_PX})"
        )
        assert width <= COLUMN_PX + 1, f"{name}: {width:.0f} CSS px wide, wider than the column"
    else:  # a helper that returns data, not a figure
        assert not name.endswith(("_figure", "_explorer")), f"{name} returned {type(result)}"


def test_the_measure_reads_points_width_and_scale():
    from book.figures._base import new_figure

    fig = new_figure(6.8, 2.0)
    fig.add_subplot().set_title("title", fontsize=8)
    px, text, points, width = smallest_text(fig, css_dpi=100, tight=False)
    assert (text, points) == ("title", 8.0)  # ticks are 10 pt by default
    assert math.isclose(width, 680) and math.isclose(px, 8 * 100 / 72)
    fig = new_figure(13.6, 2.0)  # twice the column: shown at half size
    fig.add_subplot().set_title("title", fontsize=8)
    fig.axes[0].set_axis_off()
    px, text, points, width = smallest_text(fig, css_dpi=100, tight=False)
    assert (text, points) == ("title", 8.0) and math.isclose(px, 8 * 100 / 72 / 2)
