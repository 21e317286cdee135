"""Tests for book.experiments.results: reading the results, their table and the progress bar."""

from __future__ import annotations

import math

import pytest
import torch

from tests.book.experiments.test_length import _tiny_experiment


def test_first_failure_reads_the_position_accuracy() -> None:
    results = _tiny_experiment(encodings=["none"], steps=1)
    results.position_accuracy["none"][16] = torch.tensor(
        [math.nan, math.nan] + [1.0] * 5 + [0.2] + [1.0] * 8
    )
    assert results.first_failure("none", 16) == 7
    assert results.first_failure("none", 16, threshold=0.1) is None
    with pytest.raises(ValueError, match="length must be one of"):
        results.first_failure("none", 12)
    with pytest.raises(ValueError, match="encoding must be one of"):
        results.first_failure("rope", 16)


def test_progress_bar_outside_a_notebook_is_tqdm_on_stderr(capsys: pytest.CaptureFixture) -> None:
    _tiny_experiment(encodings=["none"], steps=2, progress=True)
    err = capsys.readouterr().err
    assert "training" in err and "2/2" in err


def test_strict_results_inputs() -> None:
    results = _tiny_experiment(encodings=["none"], steps=1)
    with pytest.raises(TypeError, match="threshold must be a real number"):
        results.first_failure("none", 16, threshold="0.5")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="length must be one of"):
        results.first_failure("none", True)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="digits must be an integer"):
        results.table(digits=2.0)  # type: ignore[arg-type]
