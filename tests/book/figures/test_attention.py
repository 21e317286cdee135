"""Chapter 1 figures: right axes, right data, and the global random state left alone."""

import numpy as np
import pytest
import torch
from matplotlib.figure import Figure

from book.demos.attention import shuffled_attention, toy_attention_layer, word_vectors
from book.figures._base import SLIDE_BOX, retina_palette_png, text_overlaps
from book.figures.attention import (
    SENTENCE,
    _shuffle_data,
    attention_pipeline_figure,
    permutation_attention_figure,
    shuffle_attention_figure,
)

PERM = (5, 2, 0, 4, 1, 3)  # permutation_attention_figure's default shuffle


def image_data(ax):
    return np.asarray(ax.get_images()[0].get_array())


def test_permutation_figure_leaves_global_rng_alone():
    torch.manual_seed(7)
    before = torch.get_rng_state()
    permutation_attention_figure()
    shuffle_attention_figure((1, 0, 2, 3, 4, 5), True, seed=11)
    assert torch.equal(torch.get_rng_state(), before)


def test_permutation_figure_undone_shuffle_equals_original_without_positions_only():
    fig = permutation_attention_figure()
    assert isinstance(fig, Figure)
    heat = [ax for ax in fig.axes if ax.get_images()]
    assert len(heat) == 6
    first, shuffled, undone = (image_data(ax) for ax in heat[:3])
    np.testing.assert_allclose(undone, first, atol=1e-6)  # no positions: PᵀA(PX)P = A(X)
    assert np.abs(image_data(heat[5]) - image_data(heat[3])).max() > 1e-2  # positions: it is not
    assert "same as A(X)" in heat[2].get_title() and "differs" in heat[5].get_title()
    np.testing.assert_allclose(first.sum(1), 1.0, atol=1e-5)  # attention rows
    # the shuffled matrix is the original with rows and columns reordered
    perm = [5, 2, 0, 4, 1, 3]
    np.testing.assert_allclose(shuffled, first[np.ix_(perm, perm)], atol=1e-6)
    assert [t.get_text() for t in heat[1].get_xticklabels()] == [SENTENCE[i] for i in perm]
    # brute force: the layer on the shuffled words, put back with an index, not a matrix
    layer = toy_attention_layer(16)
    x = word_vectors(list(SENTENCE), 16)
    with torch.no_grad():
        _, a = layer(x[None], return_weights=True)
        _, a_p = layer(x[perm][None], return_weights=True)
    inverse = np.argsort(perm)
    np.testing.assert_allclose(image_data(heat[0]), a[0, 0].numpy(), atol=1e-6)
    np.testing.assert_allclose(a_p[0, 0].numpy()[np.ix_(inverse, inverse)], first, atol=1e-6)


def test_shuffle_figure_bars_zero_without_positions():
    perm = (5, 4, 3, 2, 1, 0)
    off = shuffle_attention_figure(perm, False)
    on = shuffle_attention_figure(perm, True)
    bars_off = [p.get_height() for p in off.axes[2].patches]
    bars_on = [p.get_height() for p in on.axes[2].patches]
    assert len(bars_off) == len(SENTENCE) == len(bars_on)
    assert max(bars_off) < 1e-5 < min(bars_on)
    assert off.axes[2].get_ylim() == on.axes[2].get_ylim()
    # the colorbar of the attention panels is labelled, and it is not the bars' axis
    cbar = on.axes[1].child_axes[0]
    assert cbar.get_ylabel() == "attention weight"
    assert on.axes[2].get_ylabel() == "‖output change‖"
    # rows labelled by the words in their order; the bars by the original words
    assert [t.get_text() for t in on.axes[0].texts] == list(SENTENCE)
    assert [t.get_text() for t in on.axes[1].texts] == [SENTENCE[i] for i in perm]
    assert [t.get_text() for t in on.axes[2].texts] == list(SENTENCE)


def test_shuffle_figure_leaves_thread_count_alone():
    before = torch.get_num_threads()
    shuffle_attention_figure((1, 0, 2, 3, 4, 5), True, seed=5)
    assert torch.get_num_threads() == before


def test_shuffle_figure_rejects_bad_perm():
    with pytest.raises(ValueError, match="permutation"):
        shuffle_attention_figure((0, 1, 1, 2, 3, 4), True)


def test_pipeline_figure_names_every_entry_point():
    fig = attention_pipeline_figure()
    text = " ".join(t.get_text() for t in fig.axes[0].texts)
    for name in ["absolute", "RoPE", "relative", "ALiBi", "Shaw", "T5", "Swin", "softmax"]:
        assert name in text
    assert "ch. 2–5" in text  # naive absolute codes are chapter 2
    assert "x_i W_Q" in text  # the row-vector convention of the text (XW_Q)
    # Shaw's value term sits in the output sum, after the softmax
    value_note = next(t for t in fig.axes[0].texts if "r^V" in t.get_text())
    softmax_box = next(t for t in fig.axes[0].texts if t.get_text().startswith("softmax"))
    assert "a_{ij}(v_j + r^V_{ij})" in value_note.get_text()
    assert value_note.get_position()[0] > softmax_box.get_position()[0]


def test_shuffle_data_is_cached_but_a_caller_cannot_change_the_next_result():
    words, order = tuple(SENTENCE), (2, 0, 1, 5, 4, 3)
    fresh = shuffled_attention(words, order, positions=True, dim=16, seed=0)
    first = _shuffle_data(words, order, True, 16, 0)
    for got, want in zip(first, fresh):
        assert torch.equal(got, want)
    for t in first:  # scribble over everything the first call returned
        t.fill_(123.0)
    second = _shuffle_data(words, order, True, 16, 0)
    for got, want in zip(second, fresh):
        assert torch.equal(got, want)
    assert all(a.data_ptr() != b.data_ptr() for a, b in zip(first, second))
    # ... and the figure drawn afterwards still shows the true weights
    fig = shuffle_attention_figure(order, True)
    np.testing.assert_array_equal(image_data(fig.axes[0]), fresh[0].double().numpy())


@pytest.mark.parametrize(
    "call,error,match",
    [
        (lambda: permutation_attention_figure(words=()), ValueError, "words must hold at least"),
        (lambda: permutation_attention_figure(words="the dog"), TypeError, "words must be a seq"),
        (lambda: permutation_attention_figure(words=(1, 2), perm=(1, 0)), TypeError, r"words\["),
        (lambda: permutation_attention_figure(seed=-1), ValueError, "seed must be >= 0"),
        (lambda: permutation_attention_figure(seed=True), TypeError, "seed must be an integer"),
        (lambda: shuffle_attention_figure((1, 0), "True", words=("a", "b")), TypeError, "posit"),
        (lambda: shuffle_attention_figure((1, 0), 1, words=("a", "b")), TypeError, "positions"),
        (lambda: shuffle_attention_figure((1, 0), True, words=()), ValueError, "words must hold"),
        (
            lambda: shuffle_attention_figure((1, 0), True, words=("a", "b"), seed=-2),
            ValueError,
            "seed must be >= 0",
        ),
    ],
)
def test_figures_refuse_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_logit_terms_figure_draws_the_four_terms_of_its_recipe():
    import math

    from book.demos.attention import LOGIT_TERMS, absolute_logit_terms
    from book.figures.attention import logit_terms_figure
    from posenc.sinusoidal import sinusoidal_encoding

    torch.manual_seed(7)
    before = torch.get_rng_state()
    fig = logit_terms_figure(10, 8, seed=3)
    assert torch.equal(torch.get_rng_state(), before)
    assert fig.get_size_inches()[0] <= 6.8
    heat = [ax for ax in fig.axes if ax.get_images()]
    assert len(heat) == 8
    # the documented recipe, rebuilt here: contents, then projections, from one generator
    g = torch.Generator().manual_seed(3)
    x = torch.randn(10, 8, generator=g, dtype=torch.float64)
    w_q, w_k = torch.randn(2, 8, 8, generator=g, dtype=torch.float64) / math.sqrt(8)
    p = sinusoidal_encoding(10, 8, dtype=torch.float64)
    eye = torch.eye(8, dtype=torch.float64)
    expected = torch.cat(
        [absolute_logit_terms(x, p, w_q, w_k), absolute_logit_terms(x, p, eye, eye)]
    )
    for ax, term, name in zip(heat, expected, LOGIT_TERMS * 2, strict=True):
        np.testing.assert_allclose(image_data(ax), term.numpy(), atol=1e-12)
        assert ax.get_title().startswith(name + "\n")
        low, high = ax.get_images()[0].get_clim()
        assert high == pytest.approx(term.abs().max().item()) and low == -high
    assert heat[7].get_title().endswith("share 1.00")  # identity: position–position is relative
    assert not heat[3].get_title().endswith("share 1.00")  # random projections: it is not


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"n_positions": 1}, ValueError, r"^n_positions must be"),
        ({"n_positions": True}, TypeError, r"^n_positions"),
        ({"dim": 7}, ValueError, r"^dim must be even"),
        ({"seed": -1}, ValueError, r"^seed must be"),
    ],
)
def test_logit_terms_figure_refuses_bad_arguments_by_name(kwargs, error, message):
    from book.figures.attention import logit_terms_figure

    with pytest.raises(error, match=message):
        logit_terms_figure(**kwargs)


def slide_text_at_1080p(fig: Figure) -> float:
    """The smallest text of ``fig``'s slide version on a 1080p projector, in px (the slide
    version at most 1180 × 380 CSS px, so that a deck never shows it below its 1× size)."""
    _, shown = retina_palette_png(fig)
    slide = shown["slide"]
    assert slide["width"] <= SLIDE_BOX[0] and slide["height"] <= SLIDE_BOX[1]
    fit = min(SLIDE_BOX[0] / slide["width"], SLIDE_BOX[1] / slide["height"])
    return slide["text_px"] * fit * 1.5


def test_permutation_figure_has_a_slide_layout_legible_on_a_projector():
    fig = permutation_attention_figure()
    assert slide_text_at_1080p(fig) >= 24.0
    slide = fig.slide_version()
    heat = [ax for ax in slide.axes if ax.get_images()]
    page_heat = [ax for ax in fig.axes if ax.get_images()]
    assert len(heat) == 6  # the same six panels, with the same data
    for ax, page_ax in zip(heat, page_heat):
        np.testing.assert_array_equal(image_data(ax), image_data(page_ax))
    assert [t.get_text() for t in heat[4].get_xticklabels()] == [SENTENCE[i] for i in PERM]
    verdicts = [t.get_text() for ax in (heat[2], heat[5]) for t in ax.texts]
    assert "same as A(X)" in verdicts[0] and "differs" in verdicts[1]
    fig.draw_without_rendering()
    slide.draw_without_rendering()
    assert text_overlaps(slide) <= text_overlaps(fig)  # slanted word labels: boxes touch


def test_permutation_figure_refuses_a_slide_flag_that_is_not_a_bool():
    with pytest.raises(TypeError, match="slide must be a bool"):
        permutation_attention_figure(slide="yes")
