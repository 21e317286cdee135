"""book.demos.alibi: each head's span against the geometric series and the attention itself."""

import math

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from book.demos.alibi import alibi_span
from posenc.alibi import alibi_bias
from posenc.attention import attention_weights, causal_mask
from tests.references import official_get_slopes

F64 = torch.float64


@pytest.mark.parametrize(
    ("heads", "n", "mass"), [(8, 1024, 0.9), (12, 300, 0.5), (16, 64, 0.99), (3, 1, 0.9)]
)
def test_span_matches_the_geometric_series(heads, n, mass):
    got = alibi_span(heads, n, mass=mass)
    assert got.dtype == torch.long and got.shape == (heads,)
    for c, m in zip(got.tolist(), official_get_slopes(heads)):

        def covered(c, m=m):
            return (1 - math.exp(-m * c)) / (1 - math.exp(-m * n))

        assert 1 <= c <= n and covered(c) >= mass - 1e-12
        assert c == 1 or covered(c - 1) < mass


def test_span_is_the_attention_of_a_query_with_equal_content_logits():
    heads, n = 8, 200
    zeros = torch.zeros(heads, n, 4, dtype=F64)  # q·k = 0 for every pair: only the bias speaks
    weights = attention_weights(
        zeros, zeros, bias=alibi_bias(n, n, heads, dtype=F64), mask=causal_mask(n, n)
    )
    last = weights[:, -1].flip(-1)  # [h, n]: the last query's weights, nearest key first
    for h, c in enumerate(alibi_span(heads, n).tolist()):
        assert last[h, :c].sum() >= 0.9 > last[h, : c - 1].sum()
    # the 90 % span is about ln(10)/m for long sequences: 5 keys for m = 1/2, 551 for m = 1/256
    assert alibi_span(8, 4096).tolist() == [5, 10, 19, 37, 74, 148, 295, 590]
    assert [math.ceil(math.log(10) * 2**k) for k in range(1, 9)] == [
        5,
        10,
        19,
        37,
        74,
        148,
        295,
        590,
    ]


def test_span_errors():
    with pytest.raises(ValueError, match=r"^mass must be a finite number in \(0, 1\), got 1.0"):
        alibi_span(8, 10, mass=1.0)
    with pytest.raises(TypeError, match="mass must be a real number"):
        alibi_span(8, 10, mass="0.9")
    with pytest.raises(ValueError, match="n must be positive"):
        alibi_span(8, 0)


@given(mass=st.floats(allow_nan=True).filter(lambda m: not 0 < m < 1))
def test_span_mass_must_lie_strictly_between_zero_and_one(mass):
    with pytest.raises(ValueError, match=r"^mass must be a finite number in \(0, 1\)"):
        alibi_span(4, 10, mass=mass)


@pytest.mark.parametrize("value", [True, 2.0, "2"])
def test_sizes_must_be_ints(value):
    with pytest.raises(TypeError, match=r"^n must be an integer"):
        alibi_span(2, value)


def test_meta_device():
    meta = torch.device("meta")
    out = alibi_span(4, 10, device=meta)
    assert out.device == meta and out.shape == (4,), "span"
