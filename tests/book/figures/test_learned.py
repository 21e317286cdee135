"""Tests for book.figures.learned: the figures hold the data they claim to show."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from matplotlib.figure import Figure

from book.figures._base import SLIDE_BOX, new_figure, retina_palette_png, text_overlaps
from book.figures.learned import similarity_heatmap, snapshot_figure, trained_table_figure
from posenc.sinusoidal import sinusoidal_encoding


def _cosine(table: torch.Tensor) -> np.ndarray:
    t = table.double()
    return F.cosine_similarity(t[:, None], t[None, :], dim=-1).numpy()


def _main_axes(fig: Figure) -> list:
    """The axes that are not colour bars."""
    return [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]


def test_similarity_heatmap_shows_the_cosine_matrix() -> None:
    torch.manual_seed(0)
    table = torch.randn(9, 4)
    fig = new_figure()
    ax = fig.add_subplot()
    image = similarity_heatmap(ax, table, train_length=6)
    np.testing.assert_allclose(np.asarray(image.get_array()), _cosine(table), atol=1e-12)
    assert image.get_clim() == (-1.0, 1.0)
    assert len(ax.lines) == 2  # the dashed lines at the training length


def test_similarity_heatmap_of_a_zero_table_says_undefined() -> None:
    fig = new_figure()
    ax = fig.add_subplot()
    image = similarity_heatmap(ax, torch.zeros(5, 3))
    assert np.isnan(np.asarray(image.get_array(), dtype=float)).all()
    assert any("undefined" in t.get_text() for t in ax.texts)


def test_snapshot_figure_panels() -> None:
    torch.manual_seed(0)
    table = torch.randn(10, 6)
    fig = snapshot_figure(table, vmax=3.0, train_length=8)
    axes = _main_axes(fig)
    assert isinstance(fig, Figure) and len(axes) == 2
    np.testing.assert_allclose(np.asarray(axes[0].images[0].get_array()), table.double().numpy())
    assert axes[0].images[0].get_clim() == (-3.0, 3.0)
    np.testing.assert_allclose(np.asarray(axes[1].images[0].get_array()), _cosine(table))
    losses = [2.0, 1.0, 0.5, 0.25]
    fig = snapshot_figure(table, losses=losses, step=2, title="t")
    axes = _main_axes(fig)
    assert len(axes) == 3
    np.testing.assert_allclose(axes[2].lines[0].get_ydata(), losses)
    np.testing.assert_allclose(axes[2].lines[1].get_ydata(), losses[:2])
    assert fig.get_suptitle() == "t"


def test_snapshot_figure_is_cheap_to_draw_and_shows_its_scales() -> None:
    table = torch.linspace(-0.5, 0.5, 12).reshape(4, 3)
    fig = snapshot_figure(
        table,
        vmax=0.62,
        losses=[2.5, 2.0, 1.0],
        step=3,
        reference_loss=1.6,
        reference_label="no position",
    )
    assert fig.get_layout_engine() is None  # a layout engine would make savefig draw twice
    assert len(fig.axes) == 3  # colour bars are drawn on the figure, not as axes
    texts = {t.get_text() for t in fig.texts}
    assert {"-0.62", "0.62", "-1", "1"} <= texts  # colour-bar end labels: table, similarity
    loss_ax = fig.axes[2]
    reference = [line for line in loss_ax.lines if list(line.get_ydata()) == [1.6, 1.6]]
    assert len(reference) == 1
    assert any(t.get_text() == "no position (1.60)" for t in loss_ax.texts)
    assert loss_ax.get_yscale() == "linear" and loss_ax.get_ylim()[0] == 0.0


def test_trained_table_figure_bars_are_row_distances() -> None:
    torch.manual_seed(0)
    initial = torch.randn(12, 4) * 0.02
    trained = initial.clone()
    trained[:8] += torch.randn(8, 4)
    reference = sinusoidal_encoding(12, 4)
    fig = trained_table_figure(trained, initial, train_length=8, reference=reference)
    axes = _main_axes(fig)
    assert len(axes) == 3
    np.testing.assert_allclose(np.asarray(axes[0].images[0].get_array()), _cosine(trained))
    np.testing.assert_allclose(np.asarray(axes[1].images[0].get_array()), _cosine(reference))
    heights = [patch.get_height() for patch in axes[2].patches]
    expected = (trained - initial).double().norm(dim=1).numpy()
    np.testing.assert_allclose(heights, expected, rtol=1e-6)
    assert heights[8:] == [0.0] * 4
    for ax in axes[:2]:
        assert ax.get_title().startswith("cosine similarity $S_{pq}$")
    colorbars = [ax for ax in fig.axes if ax.get_label() == "<colorbar>"]
    assert [cb.get_ylabel() for cb in colorbars] == ["cosine similarity $S_{pq}$"]
    assert len(_main_axes(trained_table_figure(trained, initial, train_length=8))) == 2


def test_trained_table_figure_bad_arguments() -> None:
    with pytest.raises(ValueError, match="same shape"):
        trained_table_figure(torch.zeros(4, 2), torch.zeros(5, 2), train_length=2)
    with pytest.raises(ValueError, match="train_length"):
        trained_table_figure(torch.zeros(4, 2), torch.zeros(4, 2), train_length=0)


# ---------------------------------------------------------------------------------------------
# bad input

_T = torch.randn(8, 4, generator=torch.Generator().manual_seed(0))


@pytest.mark.parametrize(
    "call,error,match",
    [
        (lambda: snapshot_figure(torch.zeros(0, 4)), ValueError, "table must have at least one"),
        (lambda: snapshot_figure(torch.zeros(8, 0)), ValueError, "table must have at least one"),
        (lambda: snapshot_figure(torch.ones(8, 4, dtype=torch.long)), TypeError, "floating"),
        (lambda: snapshot_figure(torch.ones(8, 4).bool()), TypeError, "table must be a floating"),
        (lambda: snapshot_figure(torch.full((8, 4), float("nan"))), ValueError, "finite"),
        (lambda: snapshot_figure(_T.numpy()), TypeError, "table must be a torch.Tensor"),
        (lambda: snapshot_figure(_T[0]), ValueError, "table must have 2 dimensions"),
        (lambda: snapshot_figure(_T, train_length=0), ValueError, "train_length must be pos"),
        (lambda: snapshot_figure(_T, train_length=True), TypeError, "train_length must be an"),
        (lambda: snapshot_figure(_T, vmax=0.0), ValueError, "vmax must be a finite number > 0"),
        (lambda: snapshot_figure(_T, losses="0.5"), TypeError, "losses must be a sequence"),
        (lambda: snapshot_figure(_T, losses=[0.5, True]), TypeError, r"losses\[1\] must be"),
        (lambda: snapshot_figure(_T, losses=[0.5], step=2), ValueError, "step must be <= len"),
        (lambda: snapshot_figure(_T, step=-1), ValueError, "step must be >= 0"),
        (lambda: snapshot_figure(_T, reference_loss=np.nan), ValueError, "reference_loss must"),
        (lambda: snapshot_figure(_T, losses=[np.inf, 0.5]), ValueError, r"^losses\[0\] must be"),
        (lambda: snapshot_figure(_T, losses=[0.5, -np.inf]), ValueError, r"^losses\[1\] must"),
        (lambda: snapshot_figure(_T, losses=[np.nan, np.nan]), ValueError, r"^losses must hold"),
        (lambda: snapshot_figure(_T, title=3), TypeError, r"^title must be a string, got int 3"),
        (lambda: snapshot_figure(_T, title=None), TypeError, r"^title must be a string, got None"),
        (lambda: snapshot_figure(_T, reference_label=3), TypeError, r"^reference_label must be"),
        (lambda: snapshot_figure(_T, reference_label=None), TypeError, r"^reference_label must"),
        (
            lambda: trained_table_figure(_T, _T, train_length=4, reference=_T, reference_title=3),
            TypeError,
            r"^reference_title must be a string, got int 3",
        ),
        (
            lambda: trained_table_figure(_T, _T, train_length=4, reference_title=None),
            TypeError,
            r"^reference_title must be a string, got NoneType None",
        ),
        (
            lambda: similarity_heatmap(new_figure().add_subplot(), _T, title=3),
            TypeError,
            r"^title must be a string",
        ),
        (
            lambda: similarity_heatmap(new_figure().add_subplot(), _T, colorbar="no"),
            TypeError,
            "colorbar must be a bool",
        ),
        (
            lambda: similarity_heatmap(new_figure().add_subplot(), torch.zeros(0, 3)),
            ValueError,
            "table must have at least one",
        ),
        (
            lambda: trained_table_figure(_T, _T, train_length=4, reference=torch.zeros(3)),
            ValueError,
            "reference must have 2 dimensions",
        ),
        (
            lambda: trained_table_figure(_T, _T * np.inf, train_length=4),
            ValueError,
            "initial must be finite",
        ),
        (
            lambda: trained_table_figure(_T.int(), _T, train_length=4),
            TypeError,
            "trained must be a floating",
        ),
    ],
)
def test_figures_refuse_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_snapshot_figure_draws_a_diverged_loss_as_a_gap():
    fig = snapshot_figure(_T, losses=[1.0, float("nan"), 0.5], step=3)
    assert len(fig.axes) == 3


def slide_text_at_1080p(fig: Figure) -> float:
    """The smallest text of ``fig``'s slide version on a 1080p projector, in px (the slide
    version at most 1180 × 380 CSS px, so that a deck never shows it below its 1× size)."""
    _, shown = retina_palette_png(fig)
    slide = shown["slide"]
    assert slide["width"] <= SLIDE_BOX[0] and slide["height"] <= SLIDE_BOX[1]
    fit = min(SLIDE_BOX[0] / slide["width"], SLIDE_BOX[1] / slide["height"])
    return slide["text_px"] * fit * 1.5


def overlaps(fig: Figure) -> int:
    """Pairs of overlapping texts of ``fig`` (drawn first)."""
    fig.draw_without_rendering()
    return text_overlaps(fig)


def chapter_like_tables() -> tuple[torch.Tensor, torch.Tensor]:
    """A trained and an initial table shaped as chapter 4's (``[48, 32]`` float32): the
    rows past the training length 32 left exactly as initialised."""
    g = torch.Generator().manual_seed(0)
    initial = 0.02 * torch.randn(48, 32, generator=g)
    trained = initial.clone()
    trained[:32] += 0.2 * torch.randn(32, 32, generator=g)
    return trained, initial


@pytest.mark.parametrize("with_reference", [True, False])
def test_trained_table_figure_has_a_slide_layout_legible_on_a_projector(with_reference):
    trained, initial = chapter_like_tables()
    reference = sinusoidal_encoding(48, 32) if with_reference else None
    fig = trained_table_figure(
        trained,
        initial,
        train_length=32,
        reference=reference,
        reference_title="sinusoidal table (chapter 3)",
    )
    assert slide_text_at_1080p(fig) >= 24.0
    slide = fig.slide_version()
    panels = [ax for ax in slide.axes if ax.get_title()]
    page_panels = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in panels] == [ax.get_title() for ax in page_panels]
    for ax, page_ax in zip(panels[:-1], page_panels[:-1]):
        np.testing.assert_array_equal(
            ax.get_images()[0].get_array(), page_ax.get_images()[0].get_array()
        )
    bars = panels[-1]
    assert [p.get_height() for p in bars.patches] == [
        p.get_height() for p in page_panels[-1].patches
    ]
    # the legend beside the bars, not over them
    slide.draw_without_rendering()
    renderer = slide._get_renderer()
    legend = bars.get_legend().get_window_extent(renderer)
    assert legend.x0 > bars.get_window_extent(renderer).x1
    (note,) = bars.texts
    assert note.get_text() == "exactly 0"
    assert overlaps(slide) <= overlaps(fig)


def test_trained_table_figure_refuses_a_slide_flag_that_is_not_a_bool():
    trained, initial = chapter_like_tables()
    with pytest.raises(TypeError, match="slide must be a bool"):
        trained_table_figure(trained, initial, train_length=32, slide="no")
