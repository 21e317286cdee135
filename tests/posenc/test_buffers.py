"""Fixed tables survive the meta-device path: build on ``meta``, ``to_empty``, load a state dict."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from posenc import (
    ALiBiBias,
    RotaryEmbedding,
    SinusoidalPositionalEncoding,
    SwinRelativePositionBias,
    WindowAttention,
)

BUILDERS = {
    "sinusoidal": (
        lambda: SinusoidalPositionalEncoding(16, max_positions=32),
        lambda m: m(torch.ones(2, 20, 16)),
    ),
    "alibi": (lambda: ALiBiBias(6), lambda m: m(12)),
    "swin": (lambda: SwinRelativePositionBias((3, 4), 2), lambda m: m()),
    "rotary": (
        lambda: RotaryEmbedding(8, max_positions=16),
        lambda m: torch.cat(m(torch.ones(1, 10, 8), torch.ones(1, 10, 8))),
    ),
    "window": (
        lambda: WindowAttention(8, (2, 3), 2),
        lambda m: m(torch.linspace(-1, 1, 2 * 6 * 8).reshape(2, 6, 8)),
    ),
}


def _fill(module: nn.Module, value: float) -> None:
    """Stand-in for the uninitialised memory that ``to_empty`` leaves in buffers."""
    with torch.no_grad():
        for buffer in module.buffers():
            buffer.fill_(value if buffer.is_floating_point() else 7)


@pytest.mark.parametrize("name", BUILDERS)
def test_meta_then_to_empty_then_load_state_dict_gives_the_cpu_module(name):
    build, run = BUILDERS[name]
    torch.manual_seed(0)
    reference = build()
    with torch.device("meta"):
        module = build()
    assert all(b.is_meta for b in module.buffers())
    module = module.to_empty(device="cpu")
    _fill(module, 7.0)
    module.load_state_dict(reference.state_dict())
    torch.testing.assert_close(run(module), run(reference), rtol=0, atol=0)


@pytest.mark.parametrize("name", BUILDERS)
def test_reset_buffers_alone_restores_the_tables(name):
    build, run = BUILDERS[name]
    torch.manual_seed(0)
    reference = build()
    module = build()
    module.load_state_dict(reference.state_dict())
    _fill(module, 3.0)
    for sub in module.modules():
        if hasattr(sub, "reset_buffers"):
            sub.reset_buffers()
    torch.testing.assert_close(run(module), run(reference), rtol=0, atol=0)


def test_a_nested_model_rebuilds_every_table_it_holds():
    def build() -> nn.Module:
        return nn.ModuleDict(
            {"pe": SinusoidalPositionalEncoding(8, max_positions=16), "bias": ALiBiBias(4)}
        )

    reference = build()
    with torch.device("meta"):
        model = build()
    model = model.to_empty(device="cpu")
    _fill(model, 5.0)
    model.load_state_dict(reference.state_dict())
    torch.testing.assert_close(model["pe"].encoding, reference["pe"].encoding, rtol=0, atol=0)
    torch.testing.assert_close(model["bias"].slopes, reference["bias"].slopes, rtol=0, atol=0)
