"""Every public function and module keeps its input's device: checked on ``meta``, no GPU needed.

Each case builds its inputs on the CPU from a seeded generator, moves them (and any module) to
the device under test, and calls the public name. On ``meta`` the output must be on ``meta``
with the CPU run's shape and dtype: a tensor built on the CPU behind the user's back (a
``torch.arange`` without ``device=``) fails there exactly as it would on a GPU. Names that take
no tensor, or return Python values, are exempt with the reason written down; a new public name
that is neither covered nor exempt fails :func:`test_every_public_name_is_covered_or_exempt`.
"""

from __future__ import annotations

import importlib
import inspect
import math
import pkgutil
from collections.abc import Callable
from types import SimpleNamespace

import pytest
import torch
from torch import Tensor, nn

import posenc

META = torch.device("meta")
CPU = torch.device("cpu")

Case = Callable[[torch.device], object]


def randn(*shape: int, dtype: torch.dtype = torch.float32) -> Tensor:
    """Seeded normal values on the CPU (the case moves them)."""
    g = torch.Generator().manual_seed(sum(shape) + len(shape))
    return torch.randn(shape, generator=g, dtype=dtype)


def on(device: torch.device, *items):
    """Move tensors and modules to ``device``; a module is built on the CPU first, then moved."""
    moved = tuple(item.to(device) for item in items)
    return moved[0] if len(moved) == 1 else moved


def causal(n_q: int, n_k: int) -> Tensor:
    return torch.ones(n_q, n_k, dtype=torch.bool).tril(n_k - n_q)  # [n_q, n_k]


def seeded(build: Callable[[], nn.Module]) -> nn.Module:
    torch.manual_seed(0)
    return build()


# ---------------------------------------------------------------------------------------------
# Cases: name -> callables taking the device and returning the output (tensor, tuple, list or a
# Python value). Several cases per name exercise optional tensor arguments (masks, biases,
# positions given as tensors).


def posenc_exports() -> dict[str, object]:
    """Every name in the ``__all__`` of posenc and of its public modules (no ``_`` in the path)."""
    exports: dict[str, object] = {}
    modules = [posenc] + [
        importlib.import_module(info.name)
        for info in pkgutil.walk_packages(posenc.__path__, prefix="posenc.")
        if not any(part.startswith("_") for part in info.name.split("."))
    ]
    for module in modules:
        for name in module.__all__:
            exports[name] = getattr(module, name)
    return exports


P = SimpleNamespace(**posenc_exports())
CASES: dict[str, list[Case]] = {
    # -- attention
    "attention_weights": [
        lambda dev: P.attention_weights(*on(dev, randn(2, 5, 8), randn(2, 6, 8))),
        lambda dev: P.attention_weights(
            *on(dev, randn(2, 2, 5, 8), randn(2, 2, 6, 8)),
            bias=on(dev, randn(2, 5, 6)),
            mask=on(dev, causal(5, 6)),
        ),
    ],
    "dot_product_attention": [
        lambda dev: P.dot_product_attention(
            *on(dev, randn(2, 5, 8), randn(2, 6, 8), randn(2, 6, 4))
        ),
        lambda dev: P.dot_product_attention(
            *on(dev, randn(2, 5, 8), randn(2, 6, 8), randn(2, 6, 4)),
            bias=on(dev, randn(5, 6)),
            mask=on(dev, causal(5, 6)),
        ),
    ],
    "masked_softmax": [
        lambda dev: P.masked_softmax(on(dev, randn(3, 5, 6))),
        lambda dev: P.masked_softmax(*on(dev, randn(3, 5, 6), causal(5, 6))),
    ],
    "SelfAttention": [
        lambda dev: on(dev, seeded(lambda: P.SelfAttention(8, 2)))(on(dev, randn(2, 5, 8))),
        lambda dev: on(dev, seeded(lambda: P.SelfAttention(8, 2)))(
            on(dev, randn(2, 5, 8)),
            bias=on(dev, randn(2, 5, 5)),
            mask=on(dev, causal(5, 5)),
            return_weights=True,
        ),
        lambda dev: on(dev, seeded(lambda: P.SelfAttention(8, 2, rotary=P.RotaryEmbedding(4))))(
            on(dev, randn(2, 5, 8))
        ),
    ],
    # -- numeric, sinusoidal, learned
    "periodic_encoding": [
        lambda dev: P.periodic_encoding(on(dev, torch.arange(5.0)), alpha=0.5),
        lambda dev: P.periodic_encoding(on(dev, torch.arange(5.0)), alpha=0.5, cosine=True),
    ],
    "sinusoidal_encoding": [lambda dev: P.sinusoidal_encoding(on(dev, torch.arange(5.0)), 8)],
    "sinusoidal_dot_product": [
        lambda dev: P.sinusoidal_dot_product(on(dev, torch.arange(-3.0, 4.0)), 8)
    ],
    "SinusoidalPositionalEncoding": [
        lambda dev: on(dev, P.SinusoidalPositionalEncoding(8, max_positions=16))(
            on(dev, randn(2, 5, 8))
        )
    ],
    "LearnedPositionalEmbedding": [
        lambda dev: on(dev, seeded(lambda: P.LearnedPositionalEmbedding(16, 8)))(
            on(dev, randn(2, 5, 8))
        )
    ],
    # -- 2-D absolute
    "detr_sine_encoding": [
        lambda dev: P.detr_sine_encoding(on(dev, torch.zeros(2, 3, 4, dtype=torch.bool)), 4),
        lambda dev: P.detr_sine_encoding(
            on(dev, torch.zeros(2, 3, 4, dtype=torch.bool)), 4, normalize=True
        ),
    ],
    "LearnedRowColEmbedding": [
        lambda dev: on(dev, seeded(lambda: P.LearnedRowColEmbedding(4, 6)))(
            on(dev, randn(2, 3, 5, 6))
        )
    ],
    "resample_positional_embedding": [
        lambda dev: P.resample_positional_embedding(on(dev, randn(9, 8)), 3, 4),
        lambda dev: P.resample_positional_embedding(
            on(dev, randn(1, 10, 8)), 3, (4, 5), mode="bilinear", num_prefix_tokens=1
        ),
    ],
    # -- Shaw
    "shaw_attention": [
        lambda dev: P.shaw_attention(
            *on(dev, randn(2, 5, 8), randn(2, 6, 8), randn(2, 6, 4), randn(5, 8), randn(5, 4))
        ),
        lambda dev: P.shaw_attention(
            *on(dev, randn(2, 5, 8), randn(2, 6, 8), randn(2, 6, 4), randn(5, 8), randn(5, 4)),
            mask=on(dev, causal(5, 6)),
        ),
    ],
    "ShawRelativeMultiheadAttention": [
        lambda dev: on(dev, seeded(lambda: P.ShawRelativeMultiheadAttention(8, 2, 3)))(
            on(dev, randn(2, 5, 8))
        ),
        lambda dev: on(dev, seeded(lambda: P.ShawRelativeMultiheadAttention(8, 2, 3)))(
            *on(dev, randn(2, 5, 8), randn(2, 6, 8)), mask=on(dev, causal(5, 6))
        ),
    ],
    # -- window
    "SwinRelativePositionBias": [
        lambda dev: on(dev, seeded(lambda: P.SwinRelativePositionBias((2, 3), 2)))(),
        lambda dev: on(
            dev,
            seeded(lambda: P.SwinRelativePositionBias((3, 2, 2), 2, (2, 2, 2), key_step=(2, 1, 1))),
        )(),
    ],
    "WindowAttention": [
        lambda dev: on(dev, seeded(lambda: P.WindowAttention(8, (2, 2), 2)))(
            on(dev, randn(3, 4, 8))
        ),
        lambda dev: on(dev, seeded(lambda: P.WindowAttention(8, (2, 2), 2)))(
            on(dev, randn(8, 4, 8)), on(dev, P.shifted_window_mask(4, 4, (2, 2), (1, 1)))
        ),
    ],
    "window_partition": [lambda dev: P.window_partition(on(dev, randn(2, 4, 6, 3)), (2, 3))],
    "ContinuousPositionBias": [
        lambda dev: on(dev, seeded(lambda: P.ContinuousPositionBias((2, 3), 2, hidden_dim=8)))(),
        lambda dev: on(
            dev,
            seeded(
                lambda: P.ContinuousPositionBias(
                    (4, 4), 2, pretrained_window_size=(2, 2), hidden_dim=8
                )
            ),
        )(),
    ],
    "window_merge": [lambda dev: P.window_merge(on(dev, randn(8, 6, 3)), (2, 3), 4, 6)],
    # -- rotary
    "apply_rotary": [
        lambda dev: P.apply_rotary(on(dev, randn(2, 5, 8))),
        lambda dev: P.apply_rotary(*on(dev, randn(2, 5, 8), torch.arange(3.0, 8.0))),
        lambda dev: P.apply_rotary(on(dev, randn(2, 5, 8)), interleaved=False),
        lambda dev: P.apply_rotary(
            on(dev, randn(2, 5, 8)), inv_freq=on(dev, randn(4).abs()), attention_scale=1.2
        ),
    ],
    "rotary_angles": [lambda dev: P.rotary_angles(on(dev, torch.arange(5.0)), 8)],
    "rotary_cos_sin": [
        lambda dev: P.rotary_cos_sin(on(dev, torch.arange(5.0)), 8),
        lambda dev: P.rotary_cos_sin(
            on(dev, torch.arange(5.0)), 8, inv_freq=on(dev, randn(4).abs()), attention_scale=1.2
        ),
    ],
    "rotary_quarter_turn": [lambda dev: P.rotary_quarter_turn(on(dev, randn(2, 5, 8)))],
    "rotary_angles_nd": [
        lambda dev: P.rotary_angles_nd(on(dev, torch.arange(15.0).reshape(5, 3)), 12),
        lambda dev: P.rotary_angles_nd(
            on(dev, torch.arange(30).reshape(2, 5, 3)), 12, sections=[1, 2, 3]
        ),
    ],
    "rotary_angles_2d": [lambda dev: P.rotary_angles_2d(2, 3, 8, device=dev)],
    "rotary_pair_axes": [lambda dev: P.rotary_pair_axes(12, 3, device=dev)],
    "rotary_cos_sin_nd": [
        lambda dev: P.rotary_cos_sin_nd(on(dev, randn(5, 6, dtype=torch.float64))),
        lambda dev: P.rotary_cos_sin_nd(on(dev, randn(5, 6)), interleaved=False),
    ],
    "apply_rotary_nd": [
        lambda dev: P.apply_rotary_nd(*on(dev, randn(2, 5, 12), torch.arange(15.0).reshape(5, 3))),
        lambda dev: P.apply_rotary_nd(
            *on(dev, randn(2, 3, 5, 12), torch.arange(30.0).reshape(2, 1, 5, 3)),
            sections=[2, 2, 2],
            interleaved=False,
        ),
    ],
    "scaled_rotary_frequencies": [
        lambda dev: P.scaled_rotary_frequencies(8, "linear", factor=2.0, device=dev),
        lambda dev: P.scaled_rotary_frequencies(
            8, "dynamic", factor=2.0, original_max_positions=16, seq_len=40, device=dev
        ),
        lambda dev: P.scaled_rotary_frequencies(
            8, "yarn", factor=4.0, original_max_positions=64, device=dev
        ),
        lambda dev: P.scaled_rotary_frequencies(
            8, "llama3", factor=8.0, original_max_positions=64, device=dev
        ),
        lambda dev: P.scaled_rotary_frequencies(
            8,
            "longrope",
            factor=4.0,
            original_max_positions=16,
            seq_len=64,
            short_factor=(1.0, 1.1, 1.2, 1.3),
            long_factor=torch.tensor([1.0, 2.0, 3.0, 4.0], device=dev),
            device=dev,
        ),
        lambda dev: P.scaled_rotary_frequencies(8, "plain", device=dev),
        lambda dev: P.scaled_rotary_frequencies(8, "default", device=dev),
        lambda dev: P.scaled_rotary_frequencies(8, "ntk", factor=4.0, device=dev),
        lambda dev: P.scaled_rotary_frequencies(8, "partial", rotary_dim=4, device=dev),
        lambda dev: P.scaled_rotary_frequencies(
            8, "yarn", factor=4.0, original_max_positions=16, device=dev
        ),
    ],
    "RotaryEmbedding": [
        lambda dev: on(dev, P.RotaryEmbedding(8))(*on(dev, randn(2, 2, 5, 8), randn(2, 2, 6, 8))),
        lambda dev: on(dev, P.RotaryEmbedding(8, interleaved=False))(
            *on(dev, randn(2, 5, 8), randn(2, 5, 8)), query_offset=2
        ),
        lambda dev: on(
            dev, P.RotaryEmbedding(8, inv_freq=randn(4).abs(), attention_scale=1.2, max_positions=4)
        )(*on(dev, randn(2, 5, 8), randn(2, 5, 8))),
    ],
    # -- biases that take sizes: the module's buffers/parameters carry the device
    "ALiBiBias": [lambda dev: on(dev, P.ALiBiBias(4))(5, 7)],
    "T5RelativePositionBias": [
        lambda dev: on(dev, seeded(lambda: P.T5RelativePositionBias(2)))(5, 7),
        lambda dev: on(dev, seeded(lambda: P.T5RelativePositionBias(2, bidirectional=False)))(
            5, query_offset=2
        ),
    ],
    "t5_relative_bucket": [
        lambda dev: P.t5_relative_bucket(on(dev, torch.arange(-40, 41).reshape(9, 9)))
    ],
    # -- a Python value from a module: it must work on a meta module
}

NO_TENSOR = "takes no tensor (sizes and options only): its result is built on the default device"
EXEMPT: dict[str, str] = {
    "ROTARY_SCALINGS": "the registry of scaling methods (covered through scaled_rotary_frequencies)",
    "RotaryScaling": "a typing.Protocol: the signature of a scaling method",
    "RotaryScalingArgs": "a record of checked arguments for a scaling method; holds no tensor",
    "rotary_scaling_reads": "takes a method name; returns the names of the arguments it reads",
    "ResampleMode": "a Literal type of interpolation mode names",
    "relative_table_size": "returns an int from a window shape",
    **{
        name: NO_TENSOR
        for name in (
            "alibi_bias",
            "alibi_distances",
            "alibi_slopes",
            "causal_mask",
            "numeric_encoding",
            "periodic_shift_matrix",
            "query_key_positions",
            "relative_offsets",
            "relative_position_index",
            "log_spaced_relative_coords",
            "rotary_matrix",
            "rotary_permutation",
            "shaw_relative_index",
            "shifted_window_mask",
            "sinusoidal_2d_channel_permutation",
            "sliding_window_mask",
            "sinusoidal_encoding_2d",
            "sinusoidal_frequencies",
            "sinusoidal_shift_matrix",
            "sinusoidal_wavelengths",
            "t5_bucket_index",
            "t5_bucket_starts",
        )
    },
}

# ---------------------------------------------------------------------------------------------
# The checks


def leaves(value: object) -> list[object]:
    """Tensors and Python values of a (nested) tuple/list/dict output, in order."""
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in leaves(item)]
    if isinstance(value, dict):
        return [leaf for key in sorted(value) for leaf in leaves(value[key])]
    return [value]


def check_on_meta(case: Case) -> None:
    expected = leaves(case(CPU))
    got = leaves(case(META))
    assert len(got) == len(expected), "the meta call returned a different structure"
    for i, (g, e) in enumerate(zip(got, expected)):
        if isinstance(e, Tensor):
            assert isinstance(g, Tensor), f"output {i}: expected a tensor, got {type(g).__name__}"
            assert g.device == META, f"output {i} is on {g.device}, not meta"
            assert g.shape == e.shape, f"output {i}: shape {tuple(g.shape)} != {tuple(e.shape)}"
            assert g.dtype == e.dtype, f"output {i}: dtype {g.dtype} != {e.dtype}"
        else:
            assert g == e, f"output {i}: {g!r} on a meta module, {e!r} on the CPU"


def params(cases: dict[str, list[Case]], prefix: str = "") -> list:
    return [
        pytest.param(case, id=f"{prefix}{name}-{i}")
        for name, group in cases.items()
        for i, case in enumerate(group)
    ]


@pytest.mark.parametrize("case", params(CASES))
def test_public_name_keeps_meta(case: Case) -> None:
    check_on_meta(case)


def check_coverage(
    names: set[str],
    cases: dict[str, list[Case]],
    exempt: dict[str, str],
    tolerated: Callable[[str], bool] | None = None,
) -> None:
    """Every public name has a meta-device case or an exemption, never both, and none is stale."""
    both = sorted(set(cases) & set(exempt))
    assert not both, f"names both covered and exempt: {both}"
    missing = sorted(names - set(cases) - set(exempt))
    assert not missing, (
        f"public names with no meta-device case and no exemption: {missing} "
        f"(add a case that calls it with meta inputs, or an exemption with the reason)"
    )
    stale = sorted(
        name
        for name in (set(cases) | set(exempt)) - names
        if not (tolerated and name in exempt and tolerated(name))
    )
    assert not stale, f"cases or exemptions for names that are no longer public: {stale}"


def test_every_public_name_is_covered_or_exempt() -> None:
    check_coverage(set(posenc_exports()), CASES, EXEMPT)


def test_exemptions_take_no_tensor_or_return_python_values() -> None:
    """An exempt function must not have a tensor parameter unless it returns Python values."""
    for name, reason in EXEMPT.items():
        obj = getattr(P, name)
        if inspect.isclass(obj) or reason != NO_TENSOR:
            continue
        hints = {p.name: str(p.annotation) for p in inspect.signature(obj).parameters.values()}
        tensors = [p for p, annotation in hints.items() if "Tensor" in annotation]
        assert not tensors, f"{name} is exempt as taking no tensor but has {tensors}"


def difference(
    cpu_out: object,
    dev_out: object,
    device: torch.device,
    *,
    equal_nan: bool = False,
    close_floats: bool = False,
) -> str | None:
    """``None`` when the device's output matches the CPU's (same structure, device, shape,
    dtype and tensor values within rtol 1e-4, atol 1e-5; Python values equal, or close with
    ``close_floats``), else what differs. ``benchmarks/gpu_check.py`` uses it too, with
    ``equal_nan=True, close_floats=True``."""
    expected, got = leaves(cpu_out), leaves(dev_out)
    if len(expected) != len(got):
        return f"{len(got)} outputs on the device, {len(expected)} on the CPU"
    for i, (e, g) in enumerate(zip(expected, got)):
        if isinstance(e, Tensor):
            if not isinstance(g, Tensor):
                return f"output {i}: a tensor on the CPU, a {type(g).__name__} on the device"
            if g.device.type != device.type:
                return f"output {i} is on {g.device}, not {device}"
            if g.shape != e.shape or g.dtype != e.dtype:
                return f"output {i}: {tuple(g.shape)} {g.dtype} vs {tuple(e.shape)} {e.dtype}"
            g = g.detach().cpu()
            e = e.detach()
            if e.is_floating_point() or e.is_complex():
                if not torch.allclose(g, e, rtol=1e-4, atol=1e-5, equal_nan=equal_nan):
                    diff = (g.double() - e.double()).abs().nan_to_num(0).max().item()
                    return f"output {i}: max |device − cpu| = {diff:.2e}"
            elif not torch.equal(g, e):
                return f"output {i}: integer/bool values differ"
        elif close_floats and isinstance(e, float) and isinstance(g, float):
            if not math.isclose(g, e, rel_tol=1e-4, abs_tol=1e-5):
                return f"output {i}: {g!r} vs {e!r}"
        elif g != e:
            return f"output {i}: {g!r} vs {e!r}"
    return None


def check_on_cuda(case: Case) -> None:
    """On a GPU the output stays on it and matches the CPU's numbers."""
    cuda = torch.device("cuda")
    why = difference(case(CPU), case(cuda), cuda)
    assert why is None, why


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
@pytest.mark.parametrize("case", params(CASES))
def test_public_name_matches_the_cpu_on_cuda(case: Case) -> None:
    check_on_cuda(case)
