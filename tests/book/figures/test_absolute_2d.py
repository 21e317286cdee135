"""Figures of book.figures.absolute_2d (chapter 5): type, axes, and the data they show."""

import numpy as np
import pytest
import torch
from matplotlib.figure import Figure

from book.demos.absolute_2d import position_similarity_map
from book.figures._base import SLIDE_BOX, retina_palette_png, text_overlaps
from book.figures.absolute_2d import (
    absolute_2d_explorer_figure,
    detr_normalize_figure,
    detr_sine_heatmap_figure,
    layout_comparison_figure,
    resampling_figure,
    similarity_maps_figure,
    sincos_2d_channels_figure,
)
from posenc.absolute_2d import (
    detr_sine_encoding,
    resample_positional_embedding,
    sinusoidal_2d_channel_permutation,
    sinusoidal_encoding_2d,
)

# ---------------------------------------------------------------------------------------------
# figures: type, axes, and the data they show


def images(fig):
    return [im for ax in fig.axes for im in ax.get_images()]


def test_channels_figure_shows_stripes_along_one_axis():
    fig = sincos_2d_channels_figure(5, 6, 16, pairs=(0, 1))
    assert isinstance(fig, Figure)
    ims = images(fig)
    assert len(ims) == 4
    row_channel, col_channel = (np.asarray(ims[k].get_array()) for k in (0, 2))  # top row first
    table = sinusoidal_encoding_2d(5, 6, 16).reshape(5, 6, 16).numpy()
    np.testing.assert_allclose(row_channel, table[:, :, 0], atol=1e-7)
    assert np.ptp(row_channel, axis=1).max() == 0  # constant along each row
    np.testing.assert_allclose(col_channel, table[:, :, 8], atol=1e-7)
    np.testing.assert_allclose(ims[1].get_array(), table[:, :, 2], atol=1e-7)  # row half, pair 1
    assert np.ptp(col_channel, axis=0).max() == 0


def test_layout_figure_draws_both_tables_and_the_permutation():
    fig = layout_comparison_figure(3, 3, 8)
    top, wires, bottom = fig.axes[:3]
    np.testing.assert_allclose(
        top.get_images()[0].get_array(), sinusoidal_encoding_2d(3, 3, 8).numpy()
    )
    mae = sinusoidal_encoding_2d(3, 3, 8, interleaved=False, row_first=False)
    np.testing.assert_allclose(bottom.get_images()[0].get_array(), mae.numpy())
    perm = sinusoidal_2d_channel_permutation(8).tolist()
    assert [tuple(line.get_xdata()) for line in wires.get_lines()] == [
        (perm[j], j) for j in (0, 2, 4)
    ]
    labels = [t.get_text() for t in wires.get_legend().get_texts()]
    assert labels == [f"MAE {j} ← seed {perm[j]}" for j in (0, 2, 4)]
    assert len({line.get_linestyle() for line in wires.get_lines()}) == 3  # not colour alone
    assert perm[0] == 4 and perm[4] == 0  # MAE's first channel is the column's first sine
    assert len(fig.axes) == 4  # and a colourbar
    fig = layout_comparison_figure(3, 3, 8, wired=tuple(range(8)))
    assert [tuple(line.get_xdata()) for line in fig.axes[1].get_lines()] == [
        (p, j) for j, p in enumerate(perm)
    ]
    assert [t.get_text() for t in top.get_xticklabels()][:4] == ["s0", "c0", "s1", "c1"]
    assert [t.get_text() for t in bottom.get_xticklabels()][:4] == ["s0", "s1", "c0", "c1"]


def test_detr_heatmap_is_channels_by_flattened_positions():
    fig = detr_sine_heatmap_figure(20, 20, 64, 10)
    (im,) = images(fig)
    data = np.asarray(im.get_array())
    assert data.shape == (128, 60)  # three image rows of 20 positions
    ref = detr_sine_encoding(torch.zeros(1, 20, 20, dtype=torch.bool), 64, 10)[0].reshape(128, 400)
    np.testing.assert_allclose(data, ref[:, :60].numpy())
    np.testing.assert_allclose(data[64:, :20], data[64:, 20:40])  # x channels repeat every W
    assert np.ptp(data[:64, :20], axis=1).max() == 0  # y channels constant along an image row
    (full,) = images(detr_sine_heatmap_figure(20, 20, 64, 10, positions=None))
    np.testing.assert_allclose(np.asarray(full.get_array()), ref.numpy())
    with pytest.raises(ValueError, match=r"positions must be at most H\*W = 400"):
        detr_sine_heatmap_figure(20, 20, 64, 10, positions=401)


def test_normalize_figure_greys_out_padding_only():
    fig = detr_normalize_figure(8, valid=(4, 6), num_pos_feats=4)
    ims = images(fig)
    assert len(ims) == 4
    for k, im in enumerate(ims):
        m = np.ma.getdata(im.get_array())
        nan = np.isnan(m)
        if k % 2 == 0:
            assert not nan.any()
        else:
            assert not nan[:4, :6].any() and nan[4:, :].all() and nan[:, 6:].all()
    # without normalize the valid part equals the full image's corner, with normalize it does not
    a, b, c, d = (np.ma.getdata(im.get_array()) for im in ims)
    np.testing.assert_allclose(b[:4, :6], a[:4, :6])
    assert not np.allclose(d[:4, :6], c[:4, :6])


def test_similarity_figure_has_one_map_per_position_and_encoding():
    fig = similarity_maps_figure(6, 7, 16, positions=((0, 0), (3, 4)))
    ims = images(fig)
    assert len(ims) == 4
    expected = position_similarity_map(sinusoidal_encoding_2d(6, 7, 16), 6, 7, 3, 4)
    np.testing.assert_allclose(ims[1].get_array(), expected.numpy())
    assert ims[2].get_array()[0, 0] == pytest.approx(1.0)


def test_resampling_figure_shows_the_error_against_the_exact_table():
    fig = resampling_figure(6, 8, 16, channel=2)
    ims = images(fig)
    assert [np.asarray(im.get_array()).shape for im in ims[:4]] == [(6, 6), (8, 8), (8, 8), (8, 8)]
    before, after, exact, error = (np.asarray(im.get_array()) for im in ims[:4])
    np.testing.assert_allclose(before, sinusoidal_encoding_2d(6, 6, 16)[:, 2].reshape(6, 6).numpy())
    resampled = resample_positional_embedding(sinusoidal_encoding_2d(6, 6, 16), 6, 8)
    np.testing.assert_allclose(after, resampled[:, 2].reshape(8, 8).numpy(), atol=1e-6)
    np.testing.assert_allclose(after - exact, error, atol=1e-12)
    line_ax = next(ax for ax in fig.axes if ax.get_lines())
    assert len(line_ax.get_lines()) == 3
    with pytest.raises(ValueError, match=r"channel must be a row-half channel"):
        resampling_figure(6, 8, 16, channel=8)


def test_explorer_figure_is_one_composed_image_that_follows_its_arguments():
    fig = absolute_2d_explorer_figure(height=6, width=10, dim=16, canvas=12)
    assert fig.get_layout_engine() is None  # savefig draws once
    (im,) = images(fig)
    rgba = np.asarray(im.get_array())
    assert rgba.shape[0] == 12 and rgba.shape[2] == 4
    padding = rgba[8, 0]  # below the valid rows: padding grey
    np.testing.assert_allclose(padding[:3], [0xD9 / 255] * 3)
    base = rgba.copy()
    for kwargs in (
        {"normalize": True},
        {"pair": "middle"},
        {"base": 10.0, "pair": "middle"},
        {"dim": 32},
        {"height": 12},
    ):
        other = np.asarray(
            images(
                absolute_2d_explorer_figure(
                    **{"height": 6, "width": 10, "dim": 16, "canvas": 12, **kwargs}
                )
            )[0].get_array()
        )
        assert not np.allclose(other, base), kwargs
    with pytest.raises(ValueError, match=r"pair must be one of"):
        absolute_2d_explorer_figure(pair="fast")
    with pytest.raises(ValueError, match=r"height and width must be in 1..canvas=24"):
        absolute_2d_explorer_figure(height=30)


# ---------------------------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize(
    "call,error,match",
    [
        (lambda: sincos_2d_channels_figure(pairs=()), ValueError, "pairs must hold at least"),
        (lambda: sincos_2d_channels_figure(pairs=(-1,)), ValueError, r"pairs\[0\] must be >= 0"),
        (lambda: sincos_2d_channels_figure(pairs=(True,)), TypeError, r"pairs\[0\] must be an"),
        (lambda: sincos_2d_channels_figure(dim=64, pairs=(16,)), ValueError, "below d/4 = 16"),
        (lambda: sincos_2d_channels_figure(height=0), ValueError, "height must be positive"),
        (lambda: layout_comparison_figure(wired=()), ValueError, "wired must hold at least"),
        (lambda: layout_comparison_figure(wired=(16,)), ValueError, "below d = 16"),
        (lambda: layout_comparison_figure(width=2.5), TypeError, "width must be an integer"),
        (lambda: detr_sine_heatmap_figure(height=0), ValueError, "height must be positive"),
        (lambda: detr_sine_heatmap_figure(width="3"), TypeError, "width must be an integer"),
        (lambda: detr_normalize_figure(size=0), ValueError, "size must be positive"),
        (lambda: detr_normalize_figure(size=True), TypeError, "size must be an integer"),
        (lambda: detr_normalize_figure(valid=(30, 2)), ValueError, "valid must fit in the 24"),
        (lambda: detr_normalize_figure(valid=(True, 3)), TypeError, r"valid\[0\] must be an"),
        (lambda: detr_normalize_figure(valid=(12, -1)), ValueError, r"valid\[1\] must be"),
        (lambda: detr_normalize_figure(valid=12), TypeError, "valid must be a pair"),
        (lambda: similarity_maps_figure(positions=()), ValueError, "positions must hold at"),
        (lambda: similarity_maps_figure(positions=((14, 0),)), ValueError, "lie on the 14×14"),
        (lambda: similarity_maps_figure(positions=((-1, 0),)), ValueError, r"positions\[0\]"),
        (lambda: similarity_maps_figure(positions=((1,),)), ValueError, "two entries"),
        (lambda: resampling_figure(old_size=0), ValueError, "old_size must be positive"),
        (lambda: resampling_figure(new_size=True), TypeError, "new_size must be an integer"),
        (lambda: absolute_2d_explorer_figure(normalize="False"), TypeError, "normalize must be"),
        (lambda: absolute_2d_explorer_figure(normalize=1), TypeError, "normalize must be a bool"),
        (lambda: absolute_2d_explorer_figure(height=2.5), TypeError, "height must be an integer"),
        (lambda: absolute_2d_explorer_figure(width=25), ValueError, "in 1..canvas=24"),
        (lambda: sincos_2d_channels_figure(slide=1), TypeError, "slide must be a bool"),
        (lambda: similarity_maps_figure(slide="yes"), TypeError, "slide must be a bool"),
        (lambda: layout_comparison_figure(slide=None), TypeError, "slide must be a bool"),
        (lambda: detr_normalize_figure(slide=0), TypeError, "slide must be a bool"),
        (lambda: resampling_figure(slide="False"), TypeError, "slide must be a bool"),
    ],
)
def test_figures_refuse_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


# ---------------------------------------------------------------------------------------------
# slide versions: legible on a 1080p projector, within the deck's box, the same data


def checked_slide(fig: Figure) -> Figure:
    """The slide layout ``fig`` carries, after checking the slide version that
    ``retina_palette_png`` makes of it: its smallest text measures at least 24 px on a 1920 ×
    1080 projector, the deck shows it at its 1× size or larger (it fits ``SLIDE_BOX``), and
    none of its texts overlap."""
    _, metadata = retina_palette_png(fig)
    slide = metadata["slide"]
    assert slide["width"] <= SLIDE_BOX[0] and slide["height"] <= SLIDE_BOX[1]
    fit = min(SLIDE_BOX[0] / slide["width"], SLIDE_BOX[1] / slide["height"])
    assert slide["text_px"] * fit * 1.5 >= 24.0
    layout = fig.slide_version()
    layout.draw_without_rendering()
    assert text_overlaps(layout) == 0
    return layout


def same_images(page: Figure, slide: Figure) -> None:
    shown = [np.ma.getdata(im.get_array()) for im in images(page)]
    again = [np.ma.getdata(im.get_array()) for im in images(slide)]
    assert len(shown) == len(again)
    for a, b in zip(shown, again):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    "draw",
    [
        lambda: sincos_2d_channels_figure(14, 14, 64),
        lambda: similarity_maps_figure(14, 14, 256),
        lambda: detr_normalize_figure(24, valid=(12, 16), num_pos_feats=16),
        lambda: resampling_figure(14, 16, 64, channel=4),
    ],
    ids=["channels", "similarity", "detr-normalize", "resampling"],
)
def test_slide_versions_are_legible_and_show_the_same_images(draw):
    page = draw()
    same_images(page, checked_slide(page))


def test_layout_slide_version_sets_the_tables_side_by_side_and_arches_the_wires():
    page = layout_comparison_figure(4, 4, 16)
    slide = checked_slide(page)
    same_images(page, slide)  # the seed table, then MAE's
    left, right = slide.axes[:2]
    assert left.get_position().y0 == pytest.approx(right.get_position().y0)  # in a row
    assert len(slide.artists) == 3  # one arch per wire
    perm = sinusoidal_2d_channel_permutation(16).tolist()
    labels = [t.get_text() for t in slide.legends[0].get_texts()]
    assert labels == [f"MAE {j} ← seed {perm[j]}" for j in (0, 4, 8)]
    assert [p.xy1[0] for p in slide.artists] == [perm[j] for j in (0, 4, 8)]  # seed's end
    assert [p.xy2[0] for p in slide.artists] == [0, 4, 8]  # MAE's end
