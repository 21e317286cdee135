"""book.demos.sinusoidal: the binary digits against Python's own formatting."""

import math

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from book.demos.sinusoidal import binary_digits

NON_FINITE = st.sampled_from([math.nan, math.inf, -math.inf])
META = torch.device("meta")


def test_binary_digits_match_python_formatting():
    bits = binary_digits(40, 6)
    assert bits.shape == (40, 6)
    for p in range(40):
        assert "".join(str(int(b)) for b in bits[p].flip(0)) == format(p, "06b")
    torch.testing.assert_close(
        binary_digits(torch.tensor([5.0, 63.0]), 6)[:, :3],
        torch.tensor([[1.0, 0.0, 1.0], [1.0, 1.0, 1.0]]),
    )


def test_errors_name_the_argument():
    with pytest.raises(ValueError, match="positions must be non-negative integers"):
        binary_digits(torch.tensor([1.5]), 4)
    with pytest.raises(ValueError, match="positions must be non-negative integers"):
        binary_digits(torch.tensor([-1.0]), 4)
    with pytest.raises(ValueError, match="positions must be below 2\\*\\*n_bits"):
        binary_digits(17, 4)
    with pytest.raises(ValueError, match="n_bits must be positive"):
        binary_digits(4, 0)


@given(bad=NON_FINITE)
def test_positions_must_be_finite(bad):
    with pytest.raises(ValueError, match=r"^positions must be finite"):
        binary_digits(torch.tensor([bad]), 8)


def test_on_the_meta_device():
    outs = {
        "bits": (binary_digits(torch.empty(4, device=META), 5), (4, 5)),
        "bits(int)": (binary_digits(4, 5, device=META), (4, 5)),
    }
    for name, (out, shape) in outs.items():
        assert out.device == META and out.shape == shape, name
