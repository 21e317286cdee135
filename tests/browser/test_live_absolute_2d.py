"""Chapter 5's live explorer: what it draws is posenc's DETR sine encoding, and its controls behave.

The checks every live explorer gets (the canvas in place of the PNG, values no frame had, text
size, redraw time, the fallbacks) are in ``test_live_explorers.py``; these read back what the
absolute_2d drawer (``book/ext/twin_static/drawers/absolute_2d.js``) computed and drew, and try
its number boxes, sliders and the channel choice the way a reader would, refused entries
included.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import torch
from matplotlib import colormaps
from matplotlib.colors import to_rgb

from book.demos.absolute_2d import position_similarity_map
from book.figures._base import UNDEFINED
from book.figures.absolute_2d import absolute_2d_explorer_figure
from posenc.absolute_2d import detr_sine_encoding
from posenc.sinusoidal import sinusoidal_encoding

from .live import (
    Watched,
    drawn,
    enter,
    enter_new_values,
    enter_values,
    live_fixtures,
    on_a_phone,
    opened,
    pixels,
    press_sliders,
    refused,
    slide,
    state,
)

pytestmark = pytest.mark.xdist_group("test_live_absolute_2d")  # one page, on one worker

CANVAS = 24
# values no pre-rendered frame had: heights were {24, 12}, widths {24, 16}, dims {16, 64},
# bases {10, 10000}; the slowest pair had no frame either
NEW_VALUES = {
    "height": 17,
    "width": 9,
    "dim": 32,
    "base": 500,
    "normalize": True,
    "channel": "slowest",
}
TITLE = "DETR sine encoding of a padded image: two channels and the similarity to the centre"

folder, page_url, laptop = live_fixtures("absolute_2d")


def _detr_positions(size: int, normalize: bool) -> torch.Tensor:
    """DETR's positions along one axis of a valid run of ``size`` pixels, in float64: the
    cumulative count of valid pixels, with ``normalize`` over the last count plus 1e-6, times
    2π (posenc.absolute_2d.detr_sine_encoding's own steps)."""
    count = torch.ones(size, dtype=torch.float64).cumsum(0)  # [size], 1 .. size
    if normalize:
        count = count / (count[-1:] + 1e-6) * (2 * math.pi)
    return count


def _reference(
    height: int, width: int, dim: int, base: float, normalize: bool
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """posenc's float64 numbers for the valid image: the y half [h, F], the x half [w, F], and
    the cosine similarity of the centre to every valid pixel [h, w]."""
    feats = dim // 2
    kw = {"base": base, "dtype": torch.float64}
    rows = sinusoidal_encoding(_detr_positions(height, normalize), feats, **kw)  # [h, F]
    cols = sinusoidal_encoding(_detr_positions(width, normalize), feats, **kw)  # [w, F]
    table = torch.cat(
        (
            rows[:, None, :].expand(height, width, feats),
            cols[None, :, :].expand(height, width, feats),
        ),
        dim=-1,
    ).reshape(height * width, dim)  # [h*w, d], y first, as DETR
    sim = position_similarity_map(table, height, width, height // 2, width // 2)  # [h, w]
    return rows, cols, sim


def test_every_control_takes_a_value_no_frame_had_and_the_drawing_is_posencs(
    laptop: Watched,
) -> None:
    s = enter_new_values(laptop, NEW_VALUES)
    assert s["label"] == (
        f"{TITLE} (height 17, width 9, dim 32, base 500, normalize True, channel slowest pair)"
    )
    assert s["sliders"]["height"] == "17" and s["sliders"]["width"] == "9"
    assert s["sliders"]["dim"] == "32"
    assert float(s["sliders"]["base"]) == pytest.approx(np.log10(500), abs=0.01)

    h, w, dim, base, feats = 17, 9, 32, 500.0, 16
    pair = feats // 2 - 1  # the slowest pair
    d = drawn(laptop)
    assert [d["pair"], d["channels"], d["centre"]] == [
        pair,
        [2 * pair, feats + 2 * pair],
        [h // 2, w // 2],
    ]
    # the same words as the matplotlib figure
    fig = absolute_2d_explorer_figure(h, w, dim, base, True, "slowest", canvas=CANVAS)
    assert d["titles"] == [t.get_text() for t in fig.axes[0].texts[:3]]
    assert d["suptitle"] == fig.get_suptitle()

    rows, cols, sim = _reference(h, w, dim, base, normalize=True)
    picks = [(0, 0), (0, 1), (3, 7), (8, 14), (16, 15), (16, 30)]  # (pixel, channel)
    got_rows = [d["rows"][r][j % 16] for r, j in picks]
    assert got_rows == pytest.approx(
        [float(rows[r, j % 16]) for r, j in picks], rel=1e-9, abs=1e-12
    )
    got_cols = [d["cols"][c % 9][j % 16] for c, j in picks]
    assert got_cols == pytest.approx(
        [float(cols[c % 9, j % 16]) for c, j in picks], rel=1e-9, abs=1e-12
    )
    cells = [(0, 0), (8, 4), (3, 7), (16, 8), (11, 2)]
    got_sim = [d["sim"][r * 9 + c] for r, c in cells]
    assert got_sim == pytest.approx([float(sim[r, c]) for r, c in cells], rel=1e-9, abs=1e-12)
    got_maps = [[d["yMap"][r * 9 + c], d["xMap"][r * 9 + c]] for r, c in cells]
    want_maps = [[float(rows[r, 2 * pair]), float(cols[c, 2 * pair])] for r, c in cells]
    assert got_maps == [pytest.approx(m, rel=1e-9, abs=1e-12) for m in want_maps]

    # and it is DETR's encoding of the padded batch (float32 there, y channels first)
    mask = torch.ones(1, CANVAS, CANVAS, dtype=torch.bool)
    mask[0, :h, :w] = False
    pos = detr_sine_encoding(mask, feats, base, normalize=True)[0]  # [2F, S, S]
    detr = [[float(pos[2 * pair, r, c]), float(pos[feats + 2 * pair, r, c])] for r, c in cells]
    assert got_maps == [pytest.approx(m, abs=2e-6) for m in detr]
    assert laptop.errors == []


def test_without_normalize_a_pixel_keeps_its_code_as_the_image_shrinks(laptop: Watched) -> None:
    """Positions count valid pixels from 1: padding changes no valid pixel's channels."""
    enter_values(
        laptop, {"width": 9, "normalize": False, "dim": 64, "base": 10000, "channel": "middle"}
    )
    seen = []
    for height in (24, 13):
        enter(laptop, "height", height)
        y_map = drawn(laptop, "yMap")["yMap"]
        seen.append([y_map[r * 9 + c] for r, c in [(0, 0), (5, 3), (12, 8)]])
    assert seen[0] == seen[1]
    rows, _, _ = _reference(13, 9, 64, 10000.0, normalize=False)
    pair = 32 // 4  # the middle pair of F = 32
    assert seen[1] == pytest.approx([float(rows[r, 2 * pair]) for r in (0, 5, 12)], rel=1e-9)
    assert laptop.errors == []


def test_every_slider_moves_its_value_and_the_number_box(laptop: Watched) -> None:
    enter_values(laptop, {"height": 24, "width": 24, "dim": 16, "base": 10000})
    press_sliders(
        laptop,
        {"height": ("ArrowLeft", 23), "width": ("ArrowLeft", 23), "dim": ("ArrowRight", 20)},
    )
    # the base slider runs over log10(base): 10^1.5 is shown as 31.6 (3 significant digits)
    enter(laptop, "channel", "slowest")  # the fastest pair does not depend on the base
    s = slide(laptop, "base", 1.5)
    assert s["values"]["base"] == 31.6 and s["entries"]["base"] == "31.6"
    assert laptop.errors == []


def test_a_refused_entry_is_named_and_replaced_by_the_nearest_allowed_value(
    laptop: Watched,
) -> None:
    refused(laptop, "dim", 30, 32, "a multiple of 4 from 4 to 256")
    refused(laptop, "height", 30, 24, "an integer from 1 to 24")
    refused(laptop, "width", 0, 1)
    base = state(laptop)["values"]["base"]
    s = refused(laptop, "base", 1, rule="a number above 1")
    assert s["values"]["base"] == base
    enter(laptop, "base", 1.5)  # any base above 1, beyond the slider's end
    s = state(laptop)
    assert s["values"]["base"] == 1.5 and "base" not in s["message"]
    assert laptop.errors == []


def test_the_maps_have_matplotlibs_colours_and_the_padding_is_grey(laptop: Watched) -> None:
    """A 12 × 16 image at d = 16, base 10, the fastest pair: each sampled cell is painted with
    the colour imshow gives its value (RdBu_r over −1 … 1 for the channels, viridis over
    −0.5 … 1 for the similarity), and a padded cell with the padding grey."""
    values = {"height": 12, "width": 16, "dim": 16, "base": 10, "normalize": False}
    enter_values(laptop, {**values, "channel": "fastest"})
    cells = [(0, 0), (2, 5), (4, 12), (10, 1), (9, 14), (20, 3), (5, 20)]
    got = [pixels(laptop, k, [(c, r) for r, c in cells]) for k in range(3)]
    rows, cols, sim = _reference(12, 16, 16, 10.0, normalize=False)
    grey = [round(255 * v) for v in to_rgb(UNDEFINED)]
    maps = [
        (lambda r, c: float(rows[r, 0]), colormaps["RdBu_r"], -1.0, 1.0),
        (lambda r, c: float(cols[c, 0]), colormaps["RdBu_r"], -1.0, 1.0),
        (lambda r, c: float(sim[r, c]), colormaps["viridis"], -0.5, 1.0),
    ]
    for (value, cmap, vmin, vmax), painted in zip(maps, got, strict=True):
        for (r, c), rgb in zip(cells, painted, strict=True):
            if r < 12 and c < 16:
                want = [int(v) for v in cmap((value(r, c) - vmin) / (vmax - vmin), bytes=True)[:3]]
            else:
                want = grey
            assert rgb == want, (r, c)
    assert laptop.errors == []


def test_the_canvas_stacks_the_similarity_below_on_a_phone(browser: Any, page_url: str) -> None:
    with opened(browser, page_url, viewport={"width": 1366, "height": 900}) as watched:
        wide = state(watched)["plot"]
        tops = [round(ax["top"]) for ax in wide["axes"][:3]]
        assert len(set(tops)) == 1, "three maps side by side"
        narrow = on_a_phone(watched, wide)
        y_map, x_map, similarity = narrow["axes"][:3]
        assert y_map["top"] == x_map["top"] and y_map["left"] < x_map["left"]
        assert similarity["top"] > y_map["top"] + y_map["height"], "the similarity below"
        assert narrow["height"] > narrow["width"]
        assert watched.errors == []
