"""posenc.rotary.scaled_rotary_frequencies and its registry ROTARY_SCALINGS, against transformers.

The reference is transformers 5.23.0: ``ROPE_INIT_FUNCTIONS[method]`` of
``modeling_rope_utils`` on a ``LlamaConfig`` carrying the same ``rope_parameters`` (linear,
dynamic NTK, YaRN, Llama 3.1, LongRoPE), ``compute_default_rope_parameters`` of Llama (``"default"``)
and of GPT-NeoX with ``partial_rotary_factor`` (``"partial"``), ``LlamaRotaryEmbedding`` +
``apply_rotary_pos_emb`` for the rotated queries and keys, and GPT-NeoX's
``apply_rotary_pos_emb`` (partial rotation of the first ``rotary_ndims`` channels). The
frequencies are also checked against float64 transcriptions of the papers' formulas and of
bloc97's NTK-aware base written here, the registry's dispatch (built-in and user-registered
methods) is exercised, and so is every refusal rule, against what
``rotary_scaling_reads`` declares each method reads.
"""

import contextlib
import dataclasses
import math
import textwrap

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from transformers import GPTNeoXConfig, LlamaConfig
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
from transformers.models.gpt_neox.modeling_gpt_neox import GPTNeoXRotaryEmbedding
from transformers.models.gpt_neox.modeling_gpt_neox import (
    apply_rotary_pos_emb as neox_apply_rotary_pos_emb,
)
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

from posenc.rotary import (
    ROTARY_SCALINGS,
    RotaryEmbedding,
    RotaryScalingArgs,
    apply_rotary,
    rotary_angles,
    rotary_cos_sin,
    rotary_scaling_reads,
    scaled_rotary_frequencies,
)
from posenc.sinusoidal import sinusoidal_frequencies

F64 = torch.float64


def randn(*shape, seed=0, dtype=F64):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=dtype)


def llama_config(dim, method, *, base=10000.0, max_positions=None, **ours):
    """A LlamaConfig whose rope_parameters say what ``scaled_rotary_frequencies(dim, method,
    base=base, **ours)`` computes (``max_positions``: the config's max_position_embeddings)."""
    params = {"rope_type": method, "rope_theta": base, "factor": ours.get("factor", 1.0)}
    original = ours.get("original_max_positions")
    if method == "yarn":
        params |= {
            "original_max_position_embeddings": original,
            "beta_fast": ours.get("beta_fast", 32.0),
            "beta_slow": ours.get("beta_slow", 1.0),
        }
    if method == "llama3":
        params |= {
            "original_max_position_embeddings": original,
            "low_freq_factor": ours.get("low_freq_factor", 1.0),
            "high_freq_factor": ours.get("high_freq_factor", 4.0),
        }
    if method == "longrope":
        params |= {
            "original_max_position_embeddings": original,
            "short_factor": list(ours["short_factor"]),
            "long_factor": list(ours["long_factor"]),
        }
        if ours.get("attention_factor") is not None:
            params["attention_factor"] = ours["attention_factor"]
    if method == "dynamic":
        max_positions = original  # transformers' dynamic reads the trained length from here
    return LlamaConfig(
        hidden_size=2 * dim,
        num_attention_heads=2,
        head_dim=dim,
        max_position_embeddings=max_positions or 4 * (original or 512),
        rope_parameters=params,
    )


# (dim, method, base, keyword arguments of scaled_rotary_frequencies)
CONFIGS = [
    (8, "linear", 10000.0, {"factor": 2.0}),
    (64, "linear", 10000.0, {"factor": 4.0}),
    (128, "linear", 500000.0, {"factor": 0.5}),
    (16, "dynamic", 10000.0, {"factor": 2.0, "original_max_positions": 64}),
    (16, "dynamic", 10000.0, {"factor": 2.0, "original_max_positions": 64, "seq_len": 200}),
    (64, "dynamic", 10000.0, {"factor": 4.0, "original_max_positions": 512, "seq_len": 3000}),
    (128, "dynamic", 500000.0, {"factor": 1.5, "original_max_positions": 2048, "seq_len": 100}),
    (64, "yarn", 10000.0, {"factor": 4.0, "original_max_positions": 2048}),
    (128, "yarn", 500000.0, {"factor": 8.0, "original_max_positions": 4096}),
    (
        32,
        "yarn",
        10000.0,
        {"factor": 16.0, "original_max_positions": 256, "beta_fast": 16.0, "beta_slow": 2.0},
    ),
    (16, "yarn", 100.0, {"factor": 0.5, "original_max_positions": 64}),
    (64, "yarn", 10000.0, {"factor": 2.0, "original_max_positions": 4, "beta_fast": 8.0}),
    (128, "llama3", 500000.0, {"factor": 8.0, "original_max_positions": 8192}),
    (
        64,
        "llama3",
        10000.0,
        {
            "factor": 4.0,
            "original_max_positions": 1024,
            "low_freq_factor": 2.0,
            "high_freq_factor": 8.0,
        },
    ),
    (32, "llama3", 10000.0, {"factor": 32.0, "original_max_positions": 128}),
]


def rescale(n, seed, low=1.0, high=8.0):
    """``n`` LongRoPE-style rescale factors between ``low`` and ``high``, rising like a search's."""
    g = torch.Generator().manual_seed(seed)
    return tuple(sorted((low + (high - low) * torch.rand(n, generator=g, dtype=F64)).tolist()))


# LongRoPE as Phi-3 uses it: short factors near 1, long ones up to the stretch, s = L / L_0
LONGROPE = {"short_factor": rescale(48, 1, 1.0, 1.2), "long_factor": rescale(48, 2, 1.0, 40.0)}
CONFIGS += [
    (96, "longrope", 10000.0, {"factor": 32.0, "original_max_positions": 4096} | LONGROPE),
    (
        96,
        "longrope",
        10000.0,
        {"factor": 32.0, "original_max_positions": 4096, "seq_len": 4096} | LONGROPE,
    ),
    (
        96,
        "longrope",
        10000.0,
        {"factor": 32.0, "original_max_positions": 4096, "seq_len": 4097} | LONGROPE,
    ),
    (
        16,
        "longrope",
        500000.0,
        {
            "factor": 4.0,
            "original_max_positions": 64,
            "seq_len": 1000,
            "short_factor": rescale(8, 3),
            "long_factor": rescale(8, 4),
            "attention_factor": 1.3,
        },
    ),
    (
        16,
        "longrope",
        10000.0,
        {
            "factor": 0.5,
            "original_max_positions": 64,
            "short_factor": rescale(8, 5),
            "long_factor": rescale(8, 6),
        },
    ),
]


def config_id(config):
    dim, method, base, kwargs = config
    shown = {k: v for k, v in kwargs.items() if not isinstance(v, tuple)}
    return f"{method}-d{dim}-b{base:g}-" + "-".join(f"{k}={v}" for k, v in shown.items())


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_matches_transformers_rope_init_functions(config):
    dim, method, base, kwargs = config
    inv_freq, scale = scaled_rotary_frequencies(dim, method, base=base, **kwargs)
    assert inv_freq.dtype == F64 and inv_freq.shape == (dim // 2,)
    theirs, their_scale = ROPE_INIT_FUNCTIONS[method](
        llama_config(dim, method, base=base, **kwargs), "cpu", seq_len=kwargs.get("seq_len")
    )
    # transformers works in float32: agreement to float32 rounding
    torch.testing.assert_close(inv_freq, theirs.to(F64), rtol=1e-6, atol=0)
    assert scale == pytest.approx(float(their_scale), rel=1e-12, abs=0)


def test_configurations_cover_every_method_several_times():
    counts = {
        m: sum(c[1] == m for c in CONFIGS)
        for m in ("linear", "dynamic", "yarn", "llama3", "longrope")
    }
    assert min(counts.values()) >= 3, counts


# -- float64 transcriptions of the papers' formulas ---------------------------------------------


def theta(dim, base):
    return [base ** (-2 * i / dim) for i in range(dim // 2)]


@pytest.mark.parametrize(("dim", "factor"), [(8, 2.0), (64, 0.25)])
def test_linear_divides_every_frequency(dim, factor):
    inv_freq, scale = scaled_rotary_frequencies(dim, "linear", factor=factor)
    expected = torch.tensor(theta(dim, 10000.0), dtype=F64) / factor
    torch.testing.assert_close(inv_freq, expected, rtol=1e-15, atol=0)
    assert scale == 1.0


def test_dynamic_keeps_the_base_up_to_the_trained_length_and_grows_it_beyond():
    plain = sinusoidal_frequencies(32)
    for seq_len in (None, 10, 64):
        got, _ = scaled_rotary_frequencies(
            32, "dynamic", factor=4.0, original_max_positions=64, seq_len=seq_len
        )
        torch.testing.assert_close(got, plain, rtol=0, atol=0)
    got, scale = scaled_rotary_frequencies(
        32, "dynamic", factor=4.0, original_max_positions=64, seq_len=256
    )
    new_base = 10000.0 * (4.0 * 256 / 64 - 3.0) ** (32 / 30)
    torch.testing.assert_close(
        got, torch.tensor(theta(32, new_base), dtype=F64), rtol=1e-14, atol=0
    )
    assert got[0] == 1.0 and scale == 1.0  # pair 0 never changes


def test_dynamic_with_one_pair_keeps_its_frequency():
    # d = 2: the exponent d/(d-2) is undefined (transformers divides by zero), but the one
    # frequency is base^0 = 1 for any base
    got, _ = scaled_rotary_frequencies(
        2, "dynamic", factor=3.0, original_max_positions=8, seq_len=100
    )
    assert got.tolist() == [1.0]


def yarn_reference(dim, base, factor, original, beta_fast, beta_slow):
    """Peng et al. (2023) §3 / Eq. 17-20 with the reference code's floor/ceil of the bounds."""

    def pair(rotations):
        return dim * math.log(original / (rotations * 2 * math.pi)) / (2 * math.log(base))

    low = max(math.floor(pair(beta_fast)), 0)
    high = min(math.ceil(pair(beta_slow)), dim - 1)
    out = []
    for i, t in enumerate(theta(dim, base)):
        ramp = min(max((i - low) / ((high - low) or 0.001), 0.0), 1.0)
        out.append((1 - ramp) * t + ramp * t / factor)
    return out, (0.1 * math.log(factor) + 1.0 if factor > 1 else 1.0)


@pytest.mark.parametrize(
    ("dim", "base", "factor", "original", "beta_fast", "beta_slow"),
    [(64, 10000.0, 4.0, 2048, 32.0, 1.0), (128, 500000.0, 8.0, 4096, 32.0, 1.0)],
)
def test_yarn_matches_the_papers_ramp_and_scale(dim, base, factor, original, beta_fast, beta_slow):
    got, scale = scaled_rotary_frequencies(
        dim,
        "yarn",
        base=base,
        factor=factor,
        original_max_positions=original,
        beta_fast=beta_fast,
        beta_slow=beta_slow,
    )
    expected, expected_scale = yarn_reference(dim, base, factor, original, beta_fast, beta_slow)
    torch.testing.assert_close(got, torch.tensor(expected, dtype=F64), rtol=1e-14, atol=0)
    assert scale == pytest.approx(expected_scale, rel=1e-15)
    # fast pairs (many turns over the trained length) are kept, slow ones interpolated
    plain = sinusoidal_frequencies(dim, base=base)
    assert got[0] == plain[0] and got[-1] == pytest.approx(float(plain[-1]) / factor, rel=1e-14)


def test_yarn_with_factor_one_is_plain_rope():
    got, scale = scaled_rotary_frequencies(16, "yarn", factor=1.0, original_max_positions=64)
    torch.testing.assert_close(got, sinusoidal_frequencies(16), rtol=1e-15, atol=0)
    assert scale == 1.0


def test_llama3_band_keeps_fast_pairs_divides_slow_ones_and_blends_between():
    dim, factor, original = 128, 8.0, 8192
    got, scale = scaled_rotary_frequencies(
        dim, "llama3", base=500000.0, factor=factor, original_max_positions=original
    )
    plain = sinusoidal_frequencies(dim, base=500000.0)
    wavelength = 2 * math.pi / plain
    fast = wavelength < original / 4.0
    slow = wavelength > original / 1.0
    middle = ~fast & ~slow
    assert fast.any() and slow.any() and middle.any()
    torch.testing.assert_close(got[fast], plain[fast], rtol=0, atol=0)
    torch.testing.assert_close(got[slow], plain[slow] / factor, rtol=0, atol=0)
    smooth = (original / wavelength[middle] - 1.0) / (4.0 - 1.0)
    blended = (1 - smooth) * plain[middle] / factor + smooth * plain[middle]
    torch.testing.assert_close(got[middle], blended, rtol=1e-15, atol=0)
    assert scale == 1.0


# -- LongRoPE -----------------------------------------------------------------------------------


@pytest.mark.parametrize("seq_len", [None, 16, 64, 65, 4096])
@pytest.mark.parametrize("factor", [0.5, 1.0, 4.0, 64.0])
def test_longrope_is_each_pair_divided_by_its_own_factor(seq_len, factor):
    # float64 transcription of LongRoPE as Phi-3 applies it: theta_i / lambda_i, lambda the long
    # factors beyond L_0, and the default logit scale sqrt(1 + ln s / ln L_0) (1 for s <= 1)
    dim, original = 32, 64
    short, long = rescale(16, 11, 1.0, 1.3), rescale(16, 12, 1.0, 70.0)
    inv_freq, scale = scaled_rotary_frequencies(
        dim,
        "longrope",
        factor=factor,
        original_max_positions=original,
        seq_len=seq_len,
        short_factor=short,
        long_factor=long,
    )
    theta = [10000.0 ** (-2 * i / dim) for i in range(dim // 2)]
    chosen = long if seq_len is not None and seq_len > original else short
    expected = torch.tensor([t / lam for t, lam in zip(theta, chosen)], dtype=F64)
    torch.testing.assert_close(inv_freq, expected, rtol=1e-14, atol=0)
    if factor > 1:
        assert scale == pytest.approx(math.sqrt(1 + math.log(factor) / math.log(original)))
    else:
        assert scale == 1.0


def test_longrope_with_even_factors_is_plain_rope_and_position_interpolation():
    plain, _ = scaled_rotary_frequencies(64, "plain", base=500000.0)
    linear, _ = scaled_rotary_frequencies(64, "linear", base=500000.0, factor=8.0)
    both = {"short_factor": (1.0,) * 32, "long_factor": (8.0,) * 32}
    common = {"base": 500000.0, "factor": 8.0, "original_max_positions": 1024}
    short, _ = scaled_rotary_frequencies(64, "longrope", seq_len=1024, **common, **both)
    long, _ = scaled_rotary_frequencies(64, "longrope", seq_len=1025, **common, **both)
    assert torch.equal(short, plain) and torch.equal(long, linear)


def test_longrope_takes_its_factors_as_a_tensor_and_an_explicit_attention_factor():
    common = {"factor": 4.0, "original_max_positions": 16, "seq_len": 64}
    as_lists = {"short_factor": list(rescale(8, 13)), "long_factor": list(rescale(8, 14))}
    as_tensors = {k: torch.tensor(v, dtype=torch.float32) for k, v in as_lists.items()}
    a, scale_a = scaled_rotary_frequencies(16, "longrope", **common, **as_lists)
    b, scale_b = scaled_rotary_frequencies(16, "longrope", **common, **as_tensors)
    torch.testing.assert_close(a, b, rtol=1e-6, atol=0)  # the tensor held float32 factors
    c, scale_c = scaled_rotary_frequencies(
        16, "longrope", attention_factor=2.5, **common, **as_lists
    )
    assert torch.equal(a, c) and scale_a == scale_b != 2.5 and scale_c == 2.5


@settings(max_examples=60, deadline=None)
@given(
    pairs=st.integers(1, 24),
    data=st.data(),
    base=st.floats(2.0, 1e6),
    beyond=st.booleans(),
)
def test_longrope_times_its_factors_gives_back_the_plain_frequencies(pairs, data, base, beyond):
    factor = st.floats(1e-3, 1e3, allow_nan=False, allow_infinity=False)
    short = tuple(data.draw(st.lists(factor, min_size=pairs, max_size=pairs)))
    long = tuple(data.draw(st.lists(factor, min_size=pairs, max_size=pairs)))
    inv_freq, _ = scaled_rotary_frequencies(
        2 * pairs,
        "longrope",
        base=base,
        original_max_positions=100,
        seq_len=101 if beyond else 100,
        short_factor=short,
        long_factor=long,
    )
    plain, _ = scaled_rotary_frequencies(2 * pairs, "plain", base=base)
    chosen = torch.tensor(long if beyond else short, dtype=F64)
    torch.testing.assert_close(inv_freq * chosen, plain, rtol=1e-13, atol=0)


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"short_factor": None}, ValueError, "short_factor .* is required for method='longrope'"),
        ({"long_factor": None}, ValueError, "long_factor .* is required for method='longrope'"),
        (
            {"short_factor": (1.0,) * 3},
            ValueError,
            "short_factor must hold dim/2 = 4 factors, got 3",
        ),
        ({"long_factor": (2.0,) * 5}, ValueError, "long_factor must hold dim/2 = 4 factors, got 5"),
        ({"short_factor": 1.0}, TypeError, "short_factor must be a sequence of dim/2 = 4 factors"),
        ({"short_factor": "1111"}, TypeError, "short_factor must be a sequence"),
        ({"long_factor": (2.0, 2.0, 0.0, 2.0)}, ValueError, r"long_factor\[2\] must be a finite"),
        ({"long_factor": (2.0, -1.0, 2.0, 2.0)}, ValueError, r"long_factor\[1\] must be a finite"),
        ({"short_factor": (1.0, math.nan, 1.0, 1.0)}, ValueError, r"short_factor\[1\]"),
        ({"short_factor": (True, 1.0, 1.0, 1.0)}, TypeError, r"short_factor\[0\] must be a real"),
        ({"short_factor": torch.ones(2, 2)}, ValueError, "short_factor must be a 1-D real tensor"),
        ({"attention_factor": 0.0}, ValueError, "attention_factor must be a finite number > 0"),
        ({"attention_factor": math.inf}, ValueError, "attention_factor must be a finite number"),
        ({"attention_factor": True}, TypeError, "attention_factor must be a real number"),
        (
            {"original_max_positions": 1},
            ValueError,
            r"original_max_positions must be >= 2 for method='longrope' with factor > 1",
        ),
    ],
)
def test_longrope_refusals_name_the_argument_and_the_rule(kwargs, error, words):
    good = {
        "factor": 4.0,
        "original_max_positions": 16,
        "short_factor": (1.0,) * 4,
        "long_factor": (2.0,) * 4,
    }
    with pytest.raises(error, match=words):
        scaled_rotary_frequencies(8, "longrope", **(good | kwargs))


def test_longrope_with_one_trained_position_needs_its_scale_only_when_stretched():
    common = {"original_max_positions": 1, "short_factor": (1.0,) * 4, "long_factor": (2.0,) * 4}
    assert scaled_rotary_frequencies(8, "longrope", factor=1.0, **common)[1] == 1.0
    assert scaled_rotary_frequencies(8, "longrope", factor=4.0, attention_factor=1.5, **common)[
        1
    ] == pytest.approx(1.5)


def test_longrope_needs_the_trained_length():
    with pytest.raises(ValueError, match="original_max_positions .* is required"):
        scaled_rotary_frequencies(
            8, "longrope", factor=4.0, short_factor=(1.0,) * 4, long_factor=(2.0,) * 4
        )


# -- refusals -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "words"),
    [
        ((16, "xpos"), {}, ValueError, "method must be one of"),
        ((16, "longrope2"), {}, ValueError, "method must be one of"),
        ((16, 3), {}, ValueError, "method must be one of"),
        ((15, "linear"), {}, ValueError, "dim must be even"),
        ((True, "linear"), {}, TypeError, "dim must be an integer"),
        ((16.0, "linear"), {}, TypeError, "dim must be an integer"),
        ((0, "linear"), {}, ValueError, "dim must be >= 2"),
        ((16, "linear"), {"factor": 0.0}, ValueError, "factor must be a finite number > 0"),
        ((16, "linear"), {"factor": -2.0}, ValueError, "factor must be a finite number > 0"),
        ((16, "linear"), {"factor": math.inf}, ValueError, "factor must be a finite number > 0"),
        ((16, "linear"), {"factor": math.nan}, ValueError, "factor must be a finite number > 0"),
        ((16, "linear"), {"factor": True}, TypeError, "factor must be a real number"),
        ((16, "linear"), {"base": 1.0}, ValueError, "base must be a finite number > 1"),
        ((16, "linear"), {"base": 0.5}, ValueError, "base must be a finite number > 1"),
        (
            (16, "dynamic"),
            {"factor": 2.0},
            ValueError,
            "original_max_positions .*required for method='dynamic'",
        ),
        (
            (16, "yarn"),
            {"factor": 2.0},
            ValueError,
            "original_max_positions .*required for method='yarn'",
        ),
        (
            (16, "llama3"),
            {"factor": 2.0},
            ValueError,
            "original_max_positions .*required for method='llama3'",
        ),
        ((16, "linear"), {"original_max_positions": 64}, ValueError, "not used by method='linear'"),
        ((16, "yarn"), {"original_max_positions": 0}, ValueError, "original_max_positions must"),
        ((16, "yarn"), {"original_max_positions": 64.0}, TypeError, "original_max_positions must"),
        (
            (16, "yarn"),
            {"original_max_positions": 64, "seq_len": 100},
            ValueError,
            "seq_len is not used by method='yarn'; leave it None",
        ),
        (
            (16, "yarn"),
            {"original_max_positions": 64, "short_factor": (1.0,) * 8},
            ValueError,
            r"short_factor is not used by method='yarn' \(.* by method='longrope' only\)",
        ),
        (
            (16, "dynamic"),
            {"original_max_positions": 64, "seq_len": 0},
            ValueError,
            "seq_len must be positive",
        ),
        (
            (16, "yarn"),
            {"original_max_positions": 64, "beta_fast": 1.0, "beta_slow": 2.0},
            ValueError,
            "beta_fast must be > beta_slow",
        ),
        (
            (16, "yarn"),
            {"original_max_positions": 64, "beta_slow": 0.0},
            ValueError,
            "beta_slow must be a finite number > 0",
        ),
        (
            (16, "llama3"),
            {"original_max_positions": 64, "low_freq_factor": 4.0, "high_freq_factor": 4.0},
            ValueError,
            "high_freq_factor must be > low_freq_factor",
        ),
        (
            (16, "llama3"),
            {"original_max_positions": 64, "low_freq_factor": -1.0},
            ValueError,
            "low_freq_factor must be a finite number > 0",
        ),
    ],
)
def test_scaled_frequencies_refuse(args, kwargs, error, words):
    with pytest.raises(error, match=words):
        scaled_rotary_frequencies(*args, **kwargs)


@pytest.mark.parametrize(
    ("inv_freq", "error", "words"),
    [
        (torch.ones(3, dtype=F64), ValueError, r"dim // 2 = 4 frequencies"),
        (torch.ones(2, 4, dtype=F64), ValueError, "inv_freq must have 1 dimension"),
        (torch.ones(4, dtype=torch.long), TypeError, "inv_freq"),
        ([1.0, 0.5, 0.25, 0.125], TypeError, "inv_freq must be a torch.Tensor"),
        (torch.tensor([1.0, math.nan, 0.1, 0.01]), ValueError, "inv_freq must be finite"),
    ],
)
def test_inv_freq_refusals(inv_freq, error, words):
    x = randn(5, 8)
    for call in (
        lambda: rotary_angles(5, 8, inv_freq=inv_freq),
        lambda: rotary_cos_sin(5, 8, inv_freq=inv_freq),
        lambda: apply_rotary(x, inv_freq=inv_freq),
        lambda: RotaryEmbedding(8, inv_freq=inv_freq),
    ):
        with pytest.raises(error, match=words):
            call()


@pytest.mark.parametrize(
    ("scale", "error"),
    [(0.0, ValueError), (-1.0, ValueError), (math.inf, ValueError), (True, TypeError)],
)
def test_attention_scale_refusals(scale, error):
    x = randn(5, 8)
    for call in (
        lambda: rotary_cos_sin(5, 8, attention_scale=scale),
        lambda: apply_rotary(x, attention_scale=scale),
        lambda: RotaryEmbedding(8, attention_scale=scale),
    ):
        with pytest.raises(error, match="attention_scale"):
            call()


# -- running a model scaled ---------------------------------------------------------------------

# (dim, method, base, keyword arguments): trained on a short length, run well beyond it
RUNS = [
    (16, "linear", 10000.0, {"factor": 4.0}),
    (16, "dynamic", 10000.0, {"factor": 2.0, "original_max_positions": 32}),
    (32, "yarn", 10000.0, {"factor": 4.0, "original_max_positions": 32}),
    (64, "yarn", 500000.0, {"factor": 8.0, "original_max_positions": 64, "beta_fast": 16.0}),
    (32, "llama3", 10000.0, {"factor": 8.0, "original_max_positions": 32}),
]


@pytest.mark.parametrize("run", RUNS, ids=config_id)
def test_apply_rotary_with_scaled_frequencies_matches_transformers_llama(run):
    dim, method, base, kwargs = run
    n = 96
    q, k = randn(2, 3, n, dim, seed=1), randn(2, 3, n, dim, seed=2)  # [b, h, n, d]
    position_ids = torch.stack((torch.arange(n), torch.arange(20, 20 + n)))  # [b, n]
    config = llama_config(dim, method, base=base, max_positions=256, **kwargs)
    cos, sin = LlamaRotaryEmbedding(config)(q, position_ids)  # [b, n, d]
    hf_q, hf_k = apply_rotary_pos_emb(q, k, cos, sin)
    if method == "dynamic":  # transformers grows the base for the longest position in the batch
        kwargs = {**kwargs, "seq_len": int(position_ids.max()) + 1}
    inv_freq, scale = scaled_rotary_frequencies(dim, method, base=base, **kwargs)
    pos = position_ids[:, None, :]  # [b, 1, n]
    # transformers' angles are float32: agreement to its rounding at positions up to ~120
    for ours, theirs in ((q, hf_q), (k, hf_k)):
        got = apply_rotary(ours, pos, interleaved=False, inv_freq=inv_freq, attention_scale=scale)
        torch.testing.assert_close(got, theirs, rtol=0, atol=1e-4)
    module = RotaryEmbedding(dim, interleaved=False, inv_freq=inv_freq, attention_scale=scale)
    mod_q, mod_k = module(q[:1], k[:1])
    torch.testing.assert_close(mod_q, hf_q[:1], rtol=0, atol=1e-4)
    torch.testing.assert_close(mod_k, hf_k[:1], rtol=0, atol=1e-4)


def test_scaled_tables_are_the_plain_ones_times_the_scale():
    inv_freq, scale = scaled_rotary_frequencies(16, "yarn", factor=4.0, original_max_positions=32)
    assert scale > 1
    cos, sin = rotary_cos_sin(50, 16, inv_freq=inv_freq, attention_scale=scale, dtype=F64)
    angles = rotary_angles(50, 16, inv_freq=inv_freq)  # [50, 8]
    torch.testing.assert_close(
        cos, scale * torch.cos(angles).repeat_interleave(2, -1), rtol=0, atol=0
    )
    torch.testing.assert_close(
        sin, scale * torch.sin(angles).repeat_interleave(2, -1), rtol=0, atol=0
    )
    # a rotation scaled by a: every pair's norm grows by a
    x = randn(50, 16, seed=3)
    y = apply_rotary(x, inv_freq=inv_freq, attention_scale=scale)
    torch.testing.assert_close(y.norm(dim=-1), scale * x.norm(dim=-1), rtol=1e-13, atol=0)


@pytest.mark.parametrize("interleaved", [True, False])
def test_default_frequencies_given_explicitly_are_bit_identical(interleaved):
    x = randn(2, 3, 40, 16, seed=4, dtype=torch.float32)
    plain = sinusoidal_frequencies(16, base=500.0)
    got = apply_rotary(x, interleaved=interleaved, inv_freq=plain, attention_scale=1.0)
    torch.testing.assert_close(
        got, apply_rotary(x, base=500.0, interleaved=interleaved), rtol=0, atol=0
    )
    a, b = (
        RotaryEmbedding(16, base=500.0, interleaved=interleaved),
        RotaryEmbedding(16, interleaved=interleaved, inv_freq=plain),
    )
    for ours, theirs in zip(a(x, x), b(x, x)):
        torch.testing.assert_close(ours, theirs, rtol=0, atol=0)


def test_module_with_scaled_frequencies_is_the_function_and_rebuilds_them():
    inv_freq, _ = scaled_rotary_frequencies(8, "llama3", factor=8.0, original_max_positions=16)
    module = RotaryEmbedding(8, inv_freq=inv_freq, attention_scale=1.5, max_positions=4)
    assert "inv_freq=given" in repr(module) and "attention_scale=1.5" in repr(module)
    assert "inv_freq=given" not in repr(RotaryEmbedding(8))
    assert list(module.state_dict()) == []  # tables and frequencies stay out of the state dict
    q, k = randn(2, 6, 8, seed=5), randn(2, 9, 8, seed=6)
    q_rot, k_rot = module(q, k)  # grows the cache past 4
    expected_q = apply_rotary(q, torch.arange(3, 9), inv_freq=inv_freq, attention_scale=1.5)
    torch.testing.assert_close(q_rot, expected_q, rtol=0, atol=0)
    torch.testing.assert_close(
        k_rot, apply_rotary(k, inv_freq=inv_freq, attention_scale=1.5), rtol=0, atol=0
    )
    inv_freq.mul_(2)  # the module keeps its own copy
    with torch.device("meta"):
        meta = RotaryEmbedding(8, inv_freq=inv_freq / 2, attention_scale=1.5, max_positions=4)
    meta.to_empty(device="cpu")
    meta.load_state_dict({})  # rebuilds the tables
    torch.testing.assert_close(meta(q, k)[0], q_rot, rtol=0, atol=0)


def test_scaled_frequencies_on_the_meta_device():
    meta = torch.device("meta")
    for method, kwargs in (
        ("linear", {}),
        ("dynamic", {"original_max_positions": 8, "seq_len": 32}),
        ("yarn", {"original_max_positions": 8}),
        ("llama3", {"original_max_positions": 8}),
    ):
        inv_freq, scale = scaled_rotary_frequencies(16, method, factor=2.0, device=meta, **kwargs)
        assert inv_freq.device == meta and inv_freq.shape == (8,) and isinstance(scale, float)
    x = torch.empty(2, 5, 16, device=meta)
    assert apply_rotary(x, inv_freq=inv_freq, attention_scale=1.1).device == meta


# -- plain, NTK-aware and partial RoPE ----------------------------------------------------------


@pytest.mark.parametrize("method", ["plain", "default"])
def test_plain_is_base_to_the_minus_2i_over_d(method):
    inv_freq, scale = scaled_rotary_frequencies(12, method, base=500.0)
    expected = torch.tensor([500.0 ** (-2 * i / 12) for i in range(6)], dtype=F64)
    torch.testing.assert_close(inv_freq, expected, rtol=1e-15, atol=0)
    assert scale == 1.0 and inv_freq.dtype == F64


@pytest.mark.parametrize(("dim", "base"), [(8, 10000.0), (128, 500000.0), (64, 100.0)])
def test_default_matches_transformers_default_rope_parameters(dim, base):
    config = LlamaConfig(
        hidden_size=2 * dim,
        num_attention_heads=2,
        head_dim=dim,
        rope_parameters={"rope_type": "default", "rope_theta": base},
    )
    theirs, their_scale = LlamaRotaryEmbedding.compute_default_rope_parameters(config)
    for method in ("default", "plain"):
        ours, scale = scaled_rotary_frequencies(dim, method, base=base)
        torch.testing.assert_close(ours, theirs.to(F64), rtol=1e-6, atol=0)
        assert scale == float(their_scale) == 1.0


@pytest.mark.parametrize(
    ("dim", "base", "factor"), [(8, 1e4, 4.0), (128, 5e5, 8.0), (64, 1e4, 2.5)]
)
def test_ntk_is_bloc97s_larger_base(dim, base, factor):
    inv_freq, scale = scaled_rotary_frequencies(dim, "ntk", base=base, factor=factor)
    stretched = base * factor ** (dim / (dim - 2))
    expected = torch.tensor([stretched ** (-2 * i / dim) for i in range(dim // 2)], dtype=F64)
    torch.testing.assert_close(inv_freq, expected, rtol=1e-13, atol=0)
    assert scale == 1.0
    plain = base ** (-torch.arange(0, dim, 2, dtype=F64) / dim)
    assert inv_freq[0] == plain[0] == 1.0  # the fastest pair is kept
    assert math.isclose(float(plain[-1] / inv_freq[-1]), factor, rel_tol=1e-12)  # slowest: ÷ s


@pytest.mark.parametrize(("dim", "factor", "original"), [(8, 4.0, 16), (64, 8.0, 2048)])
def test_ntk_is_dynamic_frozen_at_one_length(dim, factor, original):
    # transformers' dynamic NTK with factor 1 at seq_len = s·L0 has base·s^(d/(d−2))
    config = LlamaConfig(
        hidden_size=2 * dim,
        num_attention_heads=2,
        head_dim=dim,
        max_position_embeddings=original,
        rope_parameters={"rope_type": "dynamic", "rope_theta": 10000.0, "factor": 1.0},
    )
    theirs, _ = ROPE_INIT_FUNCTIONS["dynamic"](config, "cpu", seq_len=round(factor * original))
    ours, _ = scaled_rotary_frequencies(dim, "ntk", factor=factor)
    torch.testing.assert_close(ours.float(), theirs, rtol=2e-6, atol=0)
    same, _ = scaled_rotary_frequencies(
        dim,
        "dynamic",
        factor=1.0,
        original_max_positions=original,
        seq_len=round(factor * original),
    )
    torch.testing.assert_close(ours, same, rtol=1e-12, atol=0)


def neox_config(dim, rotary_dim, base=10000.0):
    """A GPTNeoXConfig whose heads of ``dim`` channels rotate the first ``rotary_dim``."""
    return GPTNeoXConfig(
        hidden_size=2 * dim,
        num_attention_heads=2,
        rope_parameters={
            "rope_type": "default",
            "rope_theta": base,
            "partial_rotary_factor": rotary_dim / dim,
        },
    )


@pytest.mark.parametrize(("dim", "rotary_dim"), [(64, 16), (32, 8), (8, 8), (8, 2)])
def test_partial_matches_transformers_partial_rotary_factor(dim, rotary_dim):
    config = neox_config(dim, rotary_dim)
    theirs, _ = GPTNeoXRotaryEmbedding.compute_default_rope_parameters(config, "cpu")
    ours, scale = scaled_rotary_frequencies(dim, "partial", rotary_dim=rotary_dim)
    assert ours.shape == (dim // 2,) and scale == 1.0
    torch.testing.assert_close(ours[: rotary_dim // 2].float(), theirs, rtol=1e-6, atol=0)
    assert (ours[rotary_dim // 2 :] == 0).all()  # not rotated: no position at all


@pytest.mark.parametrize(("dim", "rotary_dim", "base"), [(128, 32, 10000.0), (80, 20, 500.0)])
def test_rotary_dim_is_partial_rotary_factor_times_dim(dim, rotary_dim, base):
    # GPT-NeoX-20B's rotary_pct = 0.25 and Phi-2's 0.4, through the GPT-NeoX rotary embedding
    config = neox_config(dim, rotary_dim, base=base)
    factor = config.rope_parameters["partial_rotary_factor"]
    assert int(dim * factor) == rotary_dim
    theirs, their_scale = GPTNeoXRotaryEmbedding.compute_default_rope_parameters(config, "cpu")
    ours, scale = scaled_rotary_frequencies(dim, "partial", base=base, rotary_dim=rotary_dim)
    assert theirs.shape == (rotary_dim // 2,) and scale == float(their_scale)
    torch.testing.assert_close(ours[: rotary_dim // 2], theirs.to(F64), rtol=1e-6, atol=0)
    torch.testing.assert_close(
        ours[: rotary_dim // 2],
        scaled_rotary_frequencies(rotary_dim, "plain", base=base)[0],
        rtol=0,
        atol=0,
    )  # an r-channel RoPE, then (d − r)/2 zeros
    assert ours[rotary_dim // 2 :].eq(0).all()


@pytest.mark.parametrize(("dim", "rotary_dim"), [(16, 4), (12, 8), (8, 8)])
def test_partial_logits_equal_gpt_neox_up_to_a_channel_permutation(dim, rotary_dim):
    n, r, half = 7, rotary_dim, dim // 2
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(2, 1, 1, n, dim, generator=g, dtype=F64)  # [b, h, n, d] each
    # GPT-NeoX: rotate-half on the first r channels, the rest passed through
    inv = 10000.0 ** (-torch.arange(0, r, 2, dtype=F64) / r)  # [r/2]
    angles = torch.arange(n, dtype=F64)[:, None] * inv  # [n, r/2]
    emb = torch.cat((angles, angles), -1)[None]  # [1, n, r]
    q_neox, k_neox = neox_apply_rotary_pos_emb(q, k, emb.cos(), emb.sin())
    logits_neox = q_neox @ k_neox.transpose(-1, -2)  # [1, 1, n, n]
    # ours: pair c = channels (c, c + d/2); NeoX's pair c = (c, c + r/2), then r.. passed
    perm = list(range(r // 2)) + list(range(r, r + half - r // 2))
    perm += list(range(r // 2, r)) + list(range(r + half - r // 2, dim))
    inv_freq, _ = scaled_rotary_frequencies(dim, "partial", rotary_dim=r)
    q_ours = apply_rotary(q[..., perm], torch.arange(n), inv_freq=inv_freq, interleaved=False)
    k_ours = apply_rotary(k[..., perm], torch.arange(n), inv_freq=inv_freq, interleaved=False)
    torch.testing.assert_close(
        q_ours @ k_ours.transpose(-1, -2), logits_neox, rtol=1e-12, atol=1e-12
    )


# -- the registry ---------------------------------------------------------------------------------

# the arguments each built-in method needs (the rest left unset)
NEEDS = {
    "default": {},
    "plain": {},
    "linear": {"factor": 4.0},
    "ntk": {"factor": 4.0},
    "dynamic": {"factor": 4.0, "original_max_positions": 16, "seq_len": 64},
    "yarn": {"factor": 4.0, "original_max_positions": 16},
    "llama3": {"factor": 8.0, "original_max_positions": 8192},
    "longrope": {
        "factor": 4.0,
        "original_max_positions": 16,
        "seq_len": 64,
        "short_factor": rescale(16, 7, 1.0, 1.5),
        "long_factor": rescale(16, 8),
        "attention_factor": 1.25,
    },
    "partial": {"rotary_dim": 8},
}

# every field of the RotaryScalingArgs a registered function gets (but method), at the defaults
# of scaled_rotary_frequencies
DEFAULTS = {
    "base": 10000.0,
    "factor": 1.0,
    "original_max_positions": None,
    "seq_len": None,
    "rotary_dim": None,
    "beta_fast": 32.0,
    "beta_slow": 1.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "short_factor": None,
    "long_factor": None,
    "attention_factor": None,
    "device": None,
}


def test_the_registry_holds_the_methods_of_both_former_functions():
    assert list(ROTARY_SCALINGS) == list(NEEDS)
    assert ROTARY_SCALINGS["default"] is ROTARY_SCALINGS["plain"]


@pytest.mark.parametrize("method", list(ROTARY_SCALINGS))
def test_every_registered_method_is_reachable_through_the_function(method):
    kwargs = NEEDS[method]
    inv_freq, scale = scaled_rotary_frequencies(32, method, base=500.0, **kwargs)
    assert inv_freq.dtype == F64 and inv_freq.shape == (16,) and isinstance(scale, float)
    args = RotaryScalingArgs(method=method, **(DEFAULTS | {"base": 500.0} | kwargs))
    direct = ROTARY_SCALINGS[method](32, args)
    assert torch.equal(inv_freq, direct[0]) and scale == direct[1]
    assert (scale != 1.0) == (method in ("yarn", "longrope"))


@pytest.mark.parametrize(
    ("method", "kwargs"),
    [
        ("linear", {"factor": 4.0}),
        ("dynamic", {"factor": 4.0, "original_max_positions": 16, "seq_len": 64}),
        ("yarn", {"factor": 4.0, "original_max_positions": 16}),
        ("llama3", {"factor": 8.0, "original_max_positions": 8192}),
    ],
)
def test_the_other_methods_are_scaled_rotary_frequencies(method, kwargs):
    # stretched_rotary_frequencies handed these four on to scaled_rotary_frequencies: now one
    # function, whose registry entry called directly gives the same
    args = RotaryScalingArgs(method=method, **(DEFAULTS | {"base": 500.0} | kwargs))
    ours = ROTARY_SCALINGS[method](32, args)
    theirs = scaled_rotary_frequencies(32, method, base=500.0, **kwargs)
    assert torch.equal(ours[0], theirs[0]) and ours[1] == theirs[1]


@pytest.mark.parametrize("method", ["xpos", "Linear", "", "LongRoPE"])
def test_an_unknown_method_is_a_value_error_naming_it_and_the_known_ones(method):
    with pytest.raises(ValueError, match="method must be one of") as info:
        scaled_rotary_frequencies(16, method, factor=2.0)
    message = str(info.value)
    assert repr(method) in message
    assert all(repr(known) in message for known in ROTARY_SCALINGS)


@contextlib.contextmanager
def registered(name, fn):
    """``fn`` registered as ``name`` within the block, removed again however the block ends."""
    assert name not in ROTARY_SCALINGS
    ROTARY_SCALINGS[name] = fn
    try:
        yield
    finally:
        del ROTARY_SCALINGS[name]


def test_registering_within_a_test_leaves_the_registry_as_it_was():
    before = dict(ROTARY_SCALINGS)
    with pytest.raises(RuntimeError), registered("mine", ROTARY_SCALINGS["plain"]):
        assert scaled_rotary_frequencies(8, "mine")[0].equal(sinusoidal_frequencies(8))
        raise RuntimeError("the block fails")
    assert ROTARY_SCALINGS == before and list(ROTARY_SCALINGS) == list(NEEDS)


def test_a_user_registered_method_is_dispatched_with_every_argument_checked():
    calls = []

    def halved(dim, args):
        calls.append((dim, args))
        inv_freq, _ = scaled_rotary_frequencies(dim, "plain", base=args.base)
        return inv_freq.float() / 2, 1.5  # float32 on purpose: returned in float64

    with registered("halved", halved):
        with pytest.raises(ValueError, match="method must be one of .*'halved'"):
            scaled_rotary_frequencies(8, "halve")  # the known methods now include it
        inv_freq, scale = scaled_rotary_frequencies(8, "halved", base=100, factor=2, seq_len=40)
        with pytest.raises(ValueError, match="factor must be a finite number > 0"):
            scaled_rotary_frequencies(8, "halved", factor=-1.0)  # checked before the call
    with pytest.raises(ValueError, match="method must be one of"):
        scaled_rotary_frequencies(8, "halved")  # gone again
    assert inv_freq.dtype == F64 and scale == 1.5
    torch.testing.assert_close(
        inv_freq, sinusoidal_frequencies(8, base=100.0) / 2, rtol=1e-7, atol=0
    )
    (dim, args), *_ = calls
    kwargs = dataclasses.asdict(args)
    assert dim == 8 and kwargs == DEFAULTS | {
        "method": "halved",
        "base": 100.0,
        "factor": 2.0,
        "seq_len": 40,
    }
    assert type(kwargs["base"]) is float and type(kwargs["factor"]) is float  # checked, cast
    assert len(calls) == 1


@pytest.mark.parametrize(
    ("returned", "error", "words"),
    [
        (torch.ones(4, dtype=F64), TypeError, "must return a pair"),
        ((torch.ones(4, dtype=F64), 1.0, 2.0), TypeError, "must return a pair"),
        ((torch.ones(3, dtype=F64), 1.0), ValueError, "returned by ROTARY_SCALINGS\\['bad'\\]"),
        ((torch.ones(4, dtype=torch.long), 1.0), TypeError, "inv_freq returned by"),
        ((torch.full((4,), math.nan), 1.0), ValueError, "must be finite"),
        (([1.0, 1.0, 1.0, 1.0], 1.0), TypeError, "must be a torch.Tensor"),
        ((torch.ones(4), 0.0), ValueError, "attention_scale returned by"),
        ((torch.ones(4), "1"), TypeError, "attention_scale returned by"),
    ],
)
def test_what_a_registered_method_returns_is_checked(returned, error, words):
    with registered("bad", lambda dim, args: returned), pytest.raises(error, match=words):
        scaled_rotary_frequencies(8, "bad")


def plain_halved(dim, args):
    return sinusoidal_frequencies(dim, base=args.base, device=args.device) / 2, 1.0


def test_a_registered_method_that_declares_its_reads_gets_the_built_in_refusals():
    def linear_halved(dim, args):
        args.refuse_unread(("factor",))  # as "linear"
        return plain_halved(dim, args)

    with registered("linear_halved", linear_halved):
        inv_freq, _ = scaled_rotary_frequencies(8, "linear_halved", factor=2.0)
        torch.testing.assert_close(inv_freq, sinusoidal_frequencies(8) / 2, rtol=0, atol=0)
        for kwargs, words in [
            ({"seq_len": 4}, "seq_len is not used by method='linear_halved'"),
            (
                {"rotary_dim": 4},
                "rotary_dim is not used by method='linear_halved' .*'partial' only",
            ),
            ({"original_max_positions": 4}, "original_max_positions is not used"),
        ]:
            with pytest.raises(ValueError, match=words):
                scaled_rotary_frequencies(8, "linear_halved", factor=2.0, **kwargs)


def test_a_registered_method_that_declares_nothing_ignores_what_it_does_not_read():
    with registered("ignoring", plain_halved):
        inv_freq, _ = scaled_rotary_frequencies(8, "ignoring", factor=2.0, seq_len=4)
    torch.testing.assert_close(inv_freq, sinusoidal_frequencies(8) / 2, rtol=0, atol=0)


def test_a_built_in_method_refuses_under_any_name_it_is_registered_as():
    with (
        registered("mine", ROTARY_SCALINGS["linear"]),
        pytest.raises(ValueError, match="seq_len is not used by method='mine'"),
    ):
        scaled_rotary_frequencies(8, "mine", factor=2.0, seq_len=4)


@pytest.mark.parametrize(
    ("reads", "error", "words"),
    [
        (("factr",), ValueError, "reads must name some of"),
        (("factor", "beta_fast"), ValueError, "reads must name some of"),
        ("factor", TypeError, "reads must be a tuple of names, got str"),
        (["factor"], TypeError, "reads must be a tuple of names, got list"),
    ],
)
def test_refuse_unread_refuses_what_is_not_an_optional_argument(reads, error, words):
    args = RotaryScalingArgs(method="mine", **DEFAULTS)
    with pytest.raises(error, match=words):
        args.refuse_unread(reads)


def test_the_arguments_are_frozen_and_given_by_keyword():
    args = RotaryScalingArgs(method="plain", **DEFAULTS)
    with pytest.raises(dataclasses.FrozenInstanceError):
        args.factor = 2.0
    with pytest.raises(TypeError):
        RotaryScalingArgs("plain", *DEFAULTS.values())


def test_the_registration_example_of_the_docstring_runs():
    block = scaled_rotary_frequencies.__doc__.split(".. code-block:: python\n")[1]
    code = textwrap.dedent(block.split("\n\n    The frequencies")[0])
    assert 'ROTARY_SCALINGS["halved"] = halved' in code
    namespace = {
        "ROTARY_SCALINGS": ROTARY_SCALINGS,
        "scaled_rotary_frequencies": scaled_rotary_frequencies,
    }
    try:
        exec(compile(code, "scaled_rotary_frequencies", "exec"), namespace)  # noqa: S102 - its example
        torch.testing.assert_close(
            namespace["inv_freq"], sinusoidal_frequencies(64) / 2, rtol=0, atol=0
        )
        assert namespace["scale"] == 1.0
        with pytest.raises(ValueError, match="factor is not used by method='halved'"):
            scaled_rotary_frequencies(64, "halved", factor=2.0)
    finally:
        ROTARY_SCALINGS.pop("halved", None)
    assert list(ROTARY_SCALINGS) == list(NEEDS)


def test_a_registered_value_that_is_not_a_function_is_refused():
    with registered("broken", "not a function"), pytest.raises(TypeError, match="a function"):
        scaled_rotary_frequencies(8, "broken")


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: scaled_rotary_frequencies(8, "xpos"), ValueError, "method must be one of"),
        (lambda: scaled_rotary_frequencies(7, "plain"), ValueError, "dim must be even"),
        (lambda: scaled_rotary_frequencies(8, "plain", base=1.0), ValueError, "base"),
        (
            lambda: scaled_rotary_frequencies(8, "plain", factor=2.0),
            ValueError,
            "factor is not used",
        ),
        (
            lambda: scaled_rotary_frequencies(8, "default", factor=2.0),
            ValueError,
            "factor is not used by method='default'",
        ),
        (lambda: scaled_rotary_frequencies(8, "ntk", factor=0.0), ValueError, "factor must be"),
        (
            lambda: scaled_rotary_frequencies(8, "ntk", factor=2.0, original_max_positions=4),
            ValueError,
            "original_max_positions is not used",
        ),
        (
            lambda: scaled_rotary_frequencies(8, "ntk", seq_len=4),
            ValueError,
            "seq_len is not used",
        ),
        (
            lambda: scaled_rotary_frequencies(8, "partial"),
            ValueError,
            "rotary_dim .* is required",
        ),
        (
            lambda: scaled_rotary_frequencies(8, "partial", rotary_dim=3),
            ValueError,
            "rotary_dim must be even",
        ),
        (
            lambda: scaled_rotary_frequencies(8, "partial", rotary_dim=10),
            ValueError,
            "rotary_dim must be <= dim",
        ),
        (
            lambda: scaled_rotary_frequencies(8, "partial", rotary_dim=True),
            TypeError,
            "rotary_dim",
        ),
        (
            lambda: scaled_rotary_frequencies(8, "partial", rotary_dim=4, factor=2.0),
            ValueError,
            "factor is not used by method='partial'",
        ),
        (
            lambda: scaled_rotary_frequencies(
                8, "yarn", factor=2.0, original_max_positions=4, rotary_dim=4
            ),
            ValueError,
            "rotary_dim is used by method='partial' only",
        ),
        (
            lambda: scaled_rotary_frequencies(8, "linear", factor=2.0, rotary_dim=4),
            ValueError,
            "rotary_dim is not used by method='linear'",
        ),
        (
            lambda: scaled_rotary_frequencies(8, "yarn", factor=2.0),
            ValueError,
            "original_max_positions",
        ),
    ],
)
def test_refusals_name_the_argument(call, error, match):
    with pytest.raises(error, match=match):
        call()


# -- rotary_scaling_reads: what each method reads, declared once

OPTIONAL = (
    "factor",
    "original_max_positions",
    "seq_len",
    "rotary_dim",
    "short_factor",
    "long_factor",
    "attention_factor",
)
# a value of each optional argument that every method reading it accepts (with NEEDS, dim 32)
SET = {
    "factor": 2.0,
    "original_max_positions": 16,
    "seq_len": 64,
    "rotary_dim": 4,
    "short_factor": (1.0,) * 16,
    "long_factor": (2.0,) * 16,
    "attention_factor": 1.5,
}


def test_rotary_scaling_reads_names_what_each_built_in_method_reads():
    assert {method: rotary_scaling_reads(method) for method in ROTARY_SCALINGS} == {
        "default": (),
        "plain": (),
        "linear": ("factor",),
        "ntk": ("factor",),
        "dynamic": ("factor", "original_max_positions", "seq_len"),
        "yarn": ("factor", "original_max_positions"),
        "llama3": ("factor", "original_max_positions"),
        "longrope": (
            "factor",
            "original_max_positions",
            "seq_len",
            "short_factor",
            "long_factor",
            "attention_factor",
        ),
        "partial": ("rotary_dim",),
    }
    assert all(tuple(NEEDS[method]) == rotary_scaling_reads(method) for method in NEEDS)


@pytest.mark.parametrize("name", OPTIONAL)
@pytest.mark.parametrize("method", list(ROTARY_SCALINGS))
def test_an_optional_argument_is_refused_exactly_when_the_method_does_not_read_it(method, name):
    kwargs = NEEDS[method] | {name: SET[name]}
    if name in rotary_scaling_reads(method):
        inv_freq, _ = scaled_rotary_frequencies(32, method, **kwargs)
        assert inv_freq.shape == (16,)
    else:
        with pytest.raises(ValueError, match=f"{name} is not used by method={method!r}"):
            scaled_rotary_frequencies(32, method, **kwargs)


@pytest.mark.parametrize("method", list(ROTARY_SCALINGS))
def test_a_built_in_method_refuses_by_its_declaration_when_called_directly(method):
    reads = rotary_scaling_reads(method)
    for name in OPTIONAL:
        args = RotaryScalingArgs(method=method, **(DEFAULTS | NEEDS[method] | {name: SET[name]}))
        if name in reads:
            assert ROTARY_SCALINGS[method](32, args)[0].shape == (16,)
        else:
            with pytest.raises(ValueError, match=f"{name} is not used by method={method!r}"):
                ROTARY_SCALINGS[method](32, args)


def test_filtering_one_full_set_of_arguments_gives_every_method_a_valid_call():
    full = {"factor": 8.0, "original_max_positions": 64, "seq_len": 512, "rotary_dim": 8}
    full |= {"short_factor": (1.0,) * 16, "long_factor": (8.0,) * 16, "attention_factor": 1.2}
    for method in ROTARY_SCALINGS:
        reads = rotary_scaling_reads(method)
        kwargs = {k: v for k, v in full.items() if k in reads}
        assert set(kwargs) == set(reads)
        inv_freq, _ = scaled_rotary_frequencies(32, method, **kwargs)
        assert inv_freq.shape == (16,)


def test_the_filtering_example_of_the_reads_docstring_runs():
    block = rotary_scaling_reads.__doc__.split("one full set::\n")[1]
    code = textwrap.dedent(block.split("\n\n    The built-in")[0])
    assert "rotary_scaling_reads(method)" in code
    namespace = {
        "rotary_scaling_reads": rotary_scaling_reads,
        "scaled_rotary_frequencies": scaled_rotary_frequencies,
    }
    exec(compile(code, "rotary_scaling_reads", "exec"), namespace)  # noqa: S102 - its example
    assert namespace["method"] == "llama3" and namespace["inv_freq"].shape == (64,)


def test_a_registered_method_without_a_declaration_reads_everything():
    with registered("ignoring", plain_halved):
        assert rotary_scaling_reads("ignoring") == OPTIONAL
        four_pairs = {"short_factor": (1.0,) * 4, "long_factor": (2.0,) * 4}
        scaled_rotary_frequencies(8, "ignoring", **(SET | four_pairs))  # none refused


def test_a_registered_method_declares_its_reads_as_an_attribute_and_is_held_to_them():
    def linear_halved(dim, args):
        return plain_halved(dim, args)

    linear_halved.reads = ("factor",)
    with registered("linear_halved", linear_halved):
        assert rotary_scaling_reads("linear_halved") == ("factor",)
        inv_freq, _ = scaled_rotary_frequencies(8, "linear_halved", factor=2.0)
        torch.testing.assert_close(inv_freq, sinusoidal_frequencies(8) / 2, rtol=0, atol=0)
        with pytest.raises(
            ValueError, match="rotary_dim is not used by method='linear_halved' .*'partial' only"
        ):
            scaled_rotary_frequencies(8, "linear_halved", factor=2.0, rotary_dim=4)


def test_a_built_in_method_reads_the_same_under_any_name_it_is_registered_as():
    with registered("mine", ROTARY_SCALINGS["dynamic"]):
        assert rotary_scaling_reads("mine") == rotary_scaling_reads("dynamic")


@pytest.mark.parametrize(
    ("reads", "error", "words"),
    [
        ("factor", TypeError, "ROTARY_SCALINGS\\['odd'\\].reads must be a tuple of names, got str"),
        (["factor"], TypeError, "must be a tuple of names, got list"),
        (("factr",), ValueError, "ROTARY_SCALINGS\\['odd'\\].reads must name some of"),
        (("factor", "beta_fast"), ValueError, "must name some of"),
    ],
)
def test_a_declaration_that_is_not_a_tuple_of_optional_arguments_is_refused(reads, error, words):
    def odd(dim, args):
        return plain_halved(dim, args)

    odd.reads = reads
    with registered("odd", odd):
        with pytest.raises(error, match=words):
            rotary_scaling_reads("odd")
        with pytest.raises(error, match=words):
            scaled_rotary_frequencies(8, "odd")


@pytest.mark.parametrize("method", ["xpos", "Linear", "", 3, None])
def test_rotary_scaling_reads_refuses_an_unknown_method_as_the_function_does(method):
    with pytest.raises((ValueError, TypeError)) as ours:
        rotary_scaling_reads(method)
    with pytest.raises((ValueError, TypeError)) as theirs:
        scaled_rotary_frequencies(8, method)
    assert type(ours.value) is type(theirs.value) and str(ours.value) == str(theirs.value)


def test_rotary_scaling_reads_is_public_in_posenc_rotary():
    import posenc.rotary

    assert "rotary_scaling_reads" in posenc.rotary.__all__
