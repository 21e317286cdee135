"""Chapter 9 RoPE figures carry the data they claim: rotations, conventions, decay, explorer."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from matplotlib.figure import Figure

from book.demos.rotary import rotary_offset_logits
from book.figures._base import SLIDE_BOX, retina_palette_png, text_overlaps
from book.figures.rotary import (
    _log_bins,
    rotary_convention_figure,
    rotary_decay_curves,
    rotary_decay_figure,
    rotary_explorer_figure,
    rotary_rotation_figure,
)
from posenc.rotary import apply_rotary

F64 = torch.float64


def rotate_pairs(x: np.ndarray, m: float, base: float = 10000.0) -> np.ndarray:
    """RoFormer's rotation of one vector, pair (2i, 2i+1) by m·base^(−2i/d), written out."""
    d = x.size
    out = np.empty_like(x)
    for i in range(d // 2):
        phi = m * base ** (-2 * i / d)
        out[2 * i] = x[2 * i] * math.cos(phi) - x[2 * i + 1] * math.sin(phi)
        out[2 * i + 1] = x[2 * i] * math.sin(phi) + x[2 * i + 1] * math.cos(phi)
    return out


def test_rotation_figure_logits_are_rotated_dot_products_and_toeplitz():
    fig = rotary_rotation_figure(((1, 4), (6, 9), (0, 3)), dim=16, n=10, seed=3)
    assert isinstance(fig, Figure)
    panels = fig.axes[:3]
    image = np.asarray(fig.axes[3].images[0].get_array())
    g = torch.Generator().manual_seed(3)
    q, k = (v.numpy() for v in torch.randn(2, 16, generator=g, dtype=F64))
    expected = np.array(
        [[rotate_pairs(q, m) @ rotate_pairs(k, n) for n in range(10)] for m in range(10)]
    )
    np.testing.assert_allclose(image, expected, atol=1e-10)
    for offset in range(-9, 10):  # constant along every diagonal
        diagonal = np.diagonal(image, offset)
        np.testing.assert_allclose(diagonal, diagonal[0], atol=1e-10)
    # the same offset n − m = 3 gives the same angle in every pair panel
    angles = {ax.get_title().split(": ")[-1] for ax in panels}
    assert len(angles) == 1
    with pytest.raises(ValueError, match="pair must be < dim/2 = 8"):
        rotary_rotation_figure(dim=16, pair=8)


def test_convention_figure_breaks_and_repairs_the_head():
    torch.manual_seed(0)
    n, d = 12, 16
    u = torch.randn(d, dtype=F64)
    keys = u + 0.1 * torch.randn(n, d, dtype=F64)
    queries = 4 * apply_rotary(u.expand(n, d), torch.full((n,), -3.0, dtype=F64))  # aims 3 back
    fig = rotary_convention_figure(queries, keys, offset=-3)
    trained, wrong, repaired = (np.asarray(ax.images[0].get_array()) for ax in fig.axes[:3])
    np.testing.assert_allclose(repaired, trained, atol=1e-12)
    for w in (trained, wrong):
        np.testing.assert_allclose(w.sum(1), 1.0, atol=1e-12)
        assert np.all(np.triu(w, 1) == 0.0)  # causal
    assert (trained.argmax(1)[3:] == np.arange(n)[3:] - 3).all()
    assert np.abs(wrong - trained).max() > 0.3
    for ax in fig.axes[:3]:  # the intended diagonal is marked
        line = ax.lines[0]
        np.testing.assert_array_equal(line.get_xdata() - line.get_ydata(), -3)
    with pytest.raises(ValueError, match="queries and keys must have the same shape"):
        rotary_convention_figure(queries, keys[:5])


def roformer_bound(q: np.ndarray, k: np.ndarray, r: float, base: float) -> float:
    """Su et al. (2024) §3.4.3, transcribed: |Σ_i h_i e^{i rθ_i}| ≤ max_i |h_{i+1} − h_i| Σ_j |S_j(r)|.

    h_i is pair i of q times the conjugate of pair i of k (as complex numbers), h_{d/2} = 0,
    and S_j(r) = Σ_{i<j} e^{i rθ_i}.
    """
    d = q.size
    theta = base ** (-2 * np.arange(d // 2) / d)
    h = np.append((q[0::2] + 1j * q[1::2]) * np.conj(k[0::2] + 1j * k[1::2]), 0.0)
    partial = np.cumsum(np.exp(1j * r * theta))  # S_1 … S_{d/2}
    return float(np.abs(np.diff(h)).max() * np.abs(partial).sum())


def test_decay_curves_are_the_rope_scores():
    r = torch.tensor([0.0, 1.0, 7.0, 100.0, 2000.0], dtype=F64)
    curves = rotary_decay_curves(r, 32, base=500.0, draws=3, seed=1)
    ones = torch.ones(32, dtype=F64)
    np.testing.assert_allclose(
        curves["matched"],
        (rotary_offset_logits(ones, ones, r, base=500.0) / 32).numpy(),
        atol=1e-12,
    )
    # averaging ⟨q, R_r q⟩ over random q gives the same curve (each pair contributes |q_(i)|² cos rθ_i)
    qs = torch.randn(4000, 32, generator=torch.Generator().manual_seed(0), dtype=F64)
    average = (rotary_offset_logits(qs, qs, r, base=500.0) / 32).mean(0).numpy()
    np.testing.assert_allclose(average, curves["matched"], atol=0.05)
    assert curves["matched"][0] == pytest.approx(1.0)
    # the bound is RoFormer's bound for q = k = 1, in the same units (divided by d): (d/2 + 1)/2 at r = 0
    expected = [roformer_bound(ones.numpy(), ones.numpy(), float(v), 500.0) / 32 for v in r]
    np.testing.assert_allclose(curves["bound"], expected, rtol=1e-10)
    assert curves["bound"][0] == pytest.approx((16 + 1) / 2)
    assert set(curves) == {"matched", "bound", "unrelated_mean", "unrelated_std"}
    assert "bound" not in rotary_decay_curves(r, 32, bound=False)


def test_decay_bound_is_an_upper_bound():
    # at every offset, for the matched key of the figure and for random pairs
    r = torch.arange(0, 3000, dtype=F64)
    curves = rotary_decay_curves(r, 64)
    assert np.all(curves["bound"] >= np.abs(curves["matched"]))
    g = torch.Generator().manual_seed(5)
    q, k = torch.randn(2, 64, generator=g, dtype=F64)
    logits = rotary_offset_logits(q, k, torch.tensor([0.0, 3.0, 40.0, 900.0], dtype=F64)).numpy()
    for value, offset in zip(logits, (0.0, 3.0, 40.0, 900.0)):
        assert abs(value) <= roformer_bound(q.numpy(), k.numpy(), offset, 10000.0)


def test_unrelated_scores_keep_their_spread_at_every_offset():
    # ⟨q, R_r k⟩ with q, k ~ N(0, I): R_r k is again N(0, I), so the score has variance d at every r
    d = 64
    r = torch.tensor([0.0, 3.0, 50.0, 1000.0], dtype=F64)
    curves = rotary_decay_curves(r, d, draws=3000, seed=2)
    np.testing.assert_allclose(curves["unrelated_std"], 1 / math.sqrt(d), rtol=0.06)
    assert np.abs(curves["unrelated_mean"]).max() < 4 / math.sqrt(d * 3000)


def test_decay_figure_shows_the_lesson():
    fig = rotary_decay_figure(dim=64, max_offset=1024, draws=50)
    left, bound_ax, middle, right = fig.axes[:4]
    by_label = {line.get_label(): line for line in left.lines}
    matched = by_label["key = query = (1, …, 1)"].get_ydata()
    assert matched[0] > 0.95 and matched[-1] < 0.3  # fades with distance
    # the bound, in the score's units, stays above the largest |score| of every stretch of offsets
    bound, top = bound_ax.lines[:2]
    assert bound.get_label() == "RoFormer's upper bound"
    ones = np.ones(64)
    assert bound.get_ydata()[0] == pytest.approx(
        roformer_bound(ones, ones, 1.0, 10000.0) / 64
    )  # offset 1
    assert np.all(bound.get_ydata() > top.get_ydata()) and top.get_ydata()[0] <= 1.0
    assert bound_ax.get_yscale() == "log"
    ends = {
        line.get_label(): line.get_ydata()[-1]
        for line in middle.lines
        if "base" in line.get_label()
    }
    assert ends["base = 500000"] > ends["base = 10000"] > ends["base = 100"]
    assert [line.get_label() for line in right.lines if line.get_label().startswith("d =")] == [
        "d = 16",
        "d = 64",
        "d = 512",
    ]
    assert left.get_xscale() == "log"
    assert left.get_ylabel() == "⟨q, R_r k⟩ / d"


def test_decay_figure_slide_version_is_legible_and_draws_the_same_curves():
    page = rotary_decay_figure(dim=128)  # as chapter 9 draws it
    _, metadata = retina_palette_png(page)
    slide = metadata["slide"]
    assert slide["width"] <= SLIDE_BOX[0] and slide["height"] <= SLIDE_BOX[1]
    fit = min(SLIDE_BOX[0] / slide["width"], SLIDE_BOX[1] / slide["height"])
    assert slide["text_px"] * fit * 1.5 >= 24.0  # px on a 1920 × 1080 projector
    layout = page.slide_version()
    layout.draw_without_rendering()
    assert text_overlaps(layout) == 0
    panels = layout.axes[:4]
    assert len({round(ax.get_position().y0, 6) for ax in panels}) == 1  # in a row
    for shown, again in zip(page.axes[:4], panels):
        assert [line.get_label() for line in shown.lines] == [
            line.get_label() for line in again.lines
        ]
        for a, b in zip(shown.lines, again.lines):
            np.testing.assert_array_equal(a.get_ydata(), b.get_ydata())
    assert layout.get_supxlabel() == "offset r = n − m (log scale)"  # once, for all four


def test_log_bins_summarise_exactly():
    x = np.arange(1, 1001, dtype=float)
    y = np.cos(x)
    centre, lo, mean, hi = _log_bins(x, y, bins=40)
    assert np.all(lo <= mean) and np.all(mean <= hi) and np.all(np.diff(centre) > 0)
    assert centre[0] == 1.0 and lo[0] == hi[0] == pytest.approx(
        math.cos(1.0)
    )  # a bin of one offset
    assert lo.min() == pytest.approx(y.min()) and hi.max() == pytest.approx(y.max())


@pytest.mark.parametrize(("dim", "base"), [(64, 10000.0), (16, 100.0)])
def test_explorer_figure_shows_the_fastest_middle_and_slowest_pairs(dim, base):
    context = 1024
    fig = rotary_explorer_figure(dim, base, context=context)
    circ, turns_ax, score_ax = fig.axes
    half = dim // 2
    pairs = (0, half // 2, half - 1)
    theta = [base ** (-2 * i / dim) for i in range(half)]
    # the turns panel: one bar per pair, at log10(turns over the context); three in colour
    segments = turns_ax.collections[0].get_segments()
    assert len(segments) == half
    for i, segment in enumerate(segments):
        assert segment[1][1] == pytest.approx(math.log10(context * theta[i] / (2 * math.pi)))
    colours = turns_ax.collections[0].get_colors()
    grey = colours[1] if half > 3 else None
    coloured = [i for i, c in enumerate(colours) if grey is None or not np.allclose(c, grey)]
    assert coloured == list(pairs)
    # the circles: the dots of each pair are its point (cos mθ, sin mθ), m = 0..15, on its radius
    xy = circ.collections[-1].get_offsets().reshape(3, 16, 2)  # fastest, middle, slowest
    for dots, i, radius in zip(xy, pairs, (1.0, 0.68, 0.36)):
        np.testing.assert_allclose(
            dots[:, 0], radius * np.cos(np.arange(16) * theta[i]), atol=1e-12
        )
        np.testing.assert_allclose(
            dots[:, 1], radius * np.sin(np.arange(16) * theta[i]), atol=1e-12
        )
    assert f"pairs 0, {half // 2}, {half - 1}" in fig.texts[0].get_text()
    # the score against log10(r): the matched score's mean line last, its first bin offset 1 alone
    black = score_ax.collections[-1].get_segments()[-1]
    assert black[0, 0] == 0.0 and black[-1, 0] < math.log10(context)
    assert black[0, 1] == pytest.approx(np.mean([math.cos(t) for t in theta]))
    labels = {tick.get_text(): tick.get_position()[0] for tick in score_ax.get_xticklabels()}
    assert labels == {"1": 0, "10¹": 1, "10²": 2, "10³": 3}


def test_explorer_figure_frames_are_fresh_copies():
    first = rotary_explorer_figure(16, 100.0, context=512)
    second = rotary_explorer_figure(64, 100.0, context=512)  # the same frame, unpickled anew
    assert first is not second and first.axes[1] is not second.axes[1]
    assert len(first.axes[1].collections[0].get_segments()) == 8  # not touched by the second
    assert len(second.axes[1].collections) == 1


def test_explorer_figure_bad_dim():
    with pytest.raises(ValueError, match="dim must be >= 4"):
        rotary_explorer_figure(2, 100.0)


# ---------------------------------------------------------------------------------------------
# bad input

_Q = torch.randn(6, 8, generator=torch.Generator().manual_seed(0))


@pytest.mark.parametrize(
    "call,error,match",
    [
        (lambda: rotary_decay_curves(torch.zeros(0), 8), ValueError, "offsets must hold at least"),
        (lambda: rotary_decay_curves(torch.ones(3).bool(), 8), TypeError, "offsets must hold real"),
        (lambda: rotary_decay_curves(torch.ones(3, dtype=torch.cfloat), 8), TypeError, "real"),
        (lambda: rotary_decay_curves(torch.tensor([1.0, np.nan]), 8), ValueError, "offsets must"),
        (lambda: rotary_decay_curves(torch.arange(3.0), 8, bound="yes"), TypeError, "bound must"),
        (lambda: rotary_decay_curves(torch.arange(3.0), 8, draws=2, seed=-1), ValueError, "seed"),
        (lambda: rotary_rotation_figure(positions=()), ValueError, "positions must hold at least"),
        (lambda: rotary_rotation_figure(positions=((1,),)), ValueError, "two entries"),
        (lambda: rotary_rotation_figure(positions=((-1, 2),)), ValueError, r"positions\[0\]\[0\]"),
        (lambda: rotary_rotation_figure(positions=5), TypeError, "positions must be a sequence"),
        (lambda: rotary_rotation_figure(seed=True), TypeError, "seed must be an integer"),
        (lambda: rotary_rotation_figure(seed=-1), ValueError, "seed must be >= 0"),
        (lambda: rotary_convention_figure(_Q.long(), _Q.long()), TypeError, "queries must be a f"),
        (lambda: rotary_convention_figure(_Q[:, :7], _Q[:, :7]), ValueError, "must be even"),
        (lambda: rotary_convention_figure(_Q[:0], _Q[:0]), ValueError, "at least one token"),
        (lambda: rotary_convention_figure(_Q, _Q * np.nan), ValueError, "keys must be finite"),
        (lambda: rotary_convention_figure(_Q, _Q, offset=1.5), TypeError, "offset must be an"),
        (lambda: rotary_decay_figure(bases=()), ValueError, "bases must hold at least one"),
        (lambda: rotary_decay_figure(bases=(1.0,)), ValueError, r"bases\[0\] must be a finite"),
        (lambda: rotary_decay_figure(dims=(3,)), ValueError, r"dims\[0\] must be even"),
        (lambda: rotary_decay_figure(dims=16), TypeError, "dims must be a sequence"),
        (lambda: rotary_decay_figure(draws=0), ValueError, "draws must be positive"),
        (lambda: rotary_decay_figure(seed=1.5), TypeError, "seed must be an integer"),
        (lambda: rotary_decay_figure(slide="yes"), TypeError, "slide must be a bool"),
    ],
)
def test_figures_refuse_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


# -- Chapter 11: stretching RoPE (the "ch11" section) -------------------------------------------


def _lines_by_label(ax):
    return {line.get_label(): line for line in ax.get_lines()}


def test_stretch_figure_draws_each_methods_wavelengths_and_squeeze():
    from book.figures.rotary import rotary_stretch_figure
    from posenc.rotary import scaled_rotary_frequencies

    fig = rotary_stretch_figure(
        ("linear", "ntk", "dynamic", "yarn", "llama3"),
        dim=64,
        base=500000.0,
        original_max_positions=4096,
        factor=8.0,
    )
    left, right = fig.axes
    plain = 500000.0 ** (-np.arange(0, 64, 2) / 64)  # written out: θ_i = base^(−2i/d)
    lines = _lines_by_label(left)
    np.testing.assert_allclose(lines["plain RoPE"].get_ydata(), 2 * np.pi / plain, rtol=1e-12)
    yarn, _ = scaled_rotary_frequencies(
        64, "yarn", base=500000.0, factor=8.0, original_max_positions=4096
    )
    np.testing.assert_allclose(lines["YaRN"].get_ydata(), 2 * np.pi / yarn.numpy(), rtol=1e-12)
    squeeze = _lines_by_label(right)
    np.testing.assert_allclose(squeeze["linear (PI)"].get_ydata(), 8.0, rtol=1e-12)  # all ÷ s
    ntk = squeeze["NTK-aware"].get_ydata()
    assert ntk[0] == 1.0 and math.isclose(ntk[-1], 8.0, rel_tol=1e-12)  # fastest kept, slowest ÷ s
    dynamic = squeeze["dynamic NTK"].get_ydata()  # at s·L0 the base grows more than NTK-aware's
    assert dynamic[-1] > ntk[-1]
    llama = squeeze["Llama 3.1"].get_ydata()
    wave = 2 * np.pi / plain
    assert (llama[wave < 4096 / 4] == 1.0).all()  # short wavelengths kept
    np.testing.assert_allclose(llama[wave > 4096], 8.0, rtol=1e-12)  # long ones interpolated
    # the trained length and the target are drawn as horizontal lines
    levels = {
        tuple(line.get_ydata()) for line in left.get_lines() if line.get_label().startswith("_")
    }
    assert (4096.0, 4096.0) in levels and (32768.0, 32768.0) in levels


def test_stretch_figure_draws_partial_ropes_unrotated_pairs_at_the_top():
    from book.figures.rotary import rotary_stretch_figure

    fig = rotary_stretch_figure(("partial",), dim=32, rotary_dim=8, factor=4.0)
    left, right = fig.axes
    rotated = _lines_by_label(left)["partial, r = 8"]
    np.testing.assert_allclose(
        rotated.get_ydata(), 2 * np.pi / 500000.0 ** (-np.arange(0, 8, 2) / 8), rtol=1e-12
    )
    top = [
        line
        for line in left.get_lines()
        if line.get_marker() == "x" and line.get_linestyle() == "None"
    ]
    assert len(top) == 1 and len(top[0].get_xdata()) == 12  # (32 − 8)/2 pairs with θ = 0
    assert "partial" not in "".join(line.get_label() for line in right.get_lines())
    assert any("not rotated" in t.get_text() for t in left.texts)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"methods": ("plain",)}, ValueError, r"methods\[0\] must be one of"),
        ({"methods": ("yarn", "yarn")}, ValueError, "must not repeat"),
        ({"methods": ()}, ValueError, "methods must hold at least one"),
        ({"factor": 1.0}, ValueError, "factor must be"),
        ({"dim": 2}, ValueError, "dim must be >= 4"),
        ({"rotary_dim": 256}, ValueError, "rotary_dim must be <= dim"),
        ({"original_max_positions": 0}, ValueError, "original_max_positions"),
    ],
)
def test_stretch_figure_refuses_bad_input(kwargs, error, match):
    from book.figures.rotary import rotary_stretch_figure

    with pytest.raises(error, match=match):
        rotary_stretch_figure(**kwargs)


def test_stretch_explorer_figure_is_one_method():
    from book.figures.rotary import rotary_stretch_explorer_figure

    fig = rotary_stretch_explorer_figure("llama3", 4.0)
    assert set(_lines_by_label(fig.axes[0])) >= {"plain RoPE", "Llama 3.1"}
    assert "YaRN" not in _lines_by_label(fig.axes[0])
    with pytest.raises(ValueError, match="method must be one of"):
        rotary_stretch_explorer_figure("partial")


def test_stretch_results_figure_draws_the_results():
    from book.experiments.scaling import StretchResults
    from book.figures.rotary import rotary_stretch_results_figure

    acc = {
        "plain": torch.linspace(1, 0, 16, dtype=F64),
        "yarn": torch.full((16,), 0.9, dtype=F64),
    }
    results = StretchResults(
        task="shift",
        k=2,
        train_lengths=(4, 8),
        factor=2.0,
        eval_lengths=(8, 16),
        methods=("plain", "yarn"),
        finetune_steps=5,
        stop_loss=0.01,
        stop_window=2,
        chance=1 / 16,
        seed=0,
        position_accuracy={m: {"as trained": {16: a}} for m, a in acc.items()},
        finetune_losses={"plain": [1.0, 0.5, 0.1], "yarn": [0.2, 0.005, 0.004]},
    )
    fig = rotary_stretch_results_figure(results)
    left, right = fig.axes
    np.testing.assert_allclose(_lines_by_label(left)["YaRN"].get_ydata(), 0.9)
    np.testing.assert_allclose(
        _lines_by_label(left)["plain RoPE"].get_ydata(), acc["plain"].numpy()
    )
    np.testing.assert_allclose(_lines_by_label(right)["plain RoPE"].get_ydata(), [1.0, 0.5, 0.1])
    assert right.get_yscale() == "log"
    with pytest.raises(TypeError, match="results must be a StretchResults"):
        rotary_stretch_results_figure({"plain": 1})
