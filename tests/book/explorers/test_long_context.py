"""The chapter 13 explorer: controls, frames that change with them, bad arguments."""

from __future__ import annotations

import pytest

from book.experiments.passkey import trained_passkey_model
from book.explorers.long_context import streaming_explorer


def test_controls_and_frames():
    model, _ = trained_passkey_model("rope", seed=0, train_lengths=(6, 8), steps=10)
    ex = streaming_explorer(model, windows=(4, 6), sinks=(0, 2), lengths=(16, 32), num_sequences=32)
    assert [c.name for c in ex.controls] == ["window", "sinks", "length"]
    assert ex.n_combinations == 8
    base = ex.png()
    for change in ({"window": 4}, {"length": 16}):
        assert ex.png(**change) != base, change
    with pytest.raises(TypeError, match="model must be a TinyTransformer"):
        streaming_explorer("model")  # type: ignore[arg-type]
