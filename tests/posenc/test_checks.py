"""The argument checks: right type and rule, and messages that name the argument."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from torch import nn

from posenc._checks import (
    as_positions,
    broadcast_shape,
    check_base,
    check_bias,
    check_bool,
    check_choice,
    check_even,
    check_finite,
    check_float_tensor,
    check_floating_dtype,
    check_heads,
    check_int,
    check_mask,
    check_multiple,
    check_pair,
    check_positive_float,
    check_real,
    check_same_dtype,
    check_state_dict_tables,
    check_table_shape,
    check_tensor,
)

# Anything but a bool: the generic "wrong kind" values for the flag and number checks.
NON_BOOLS = st.one_of(
    st.none(),
    st.integers(),
    st.floats(allow_nan=True),
    st.text(max_size=6),
    st.lists(st.booleans(), max_size=2),
    st.just(torch.tensor(True)),
)
NON_FINITE = st.sampled_from([math.nan, math.inf, -math.inf])
NON_REALS = st.one_of(
    st.none(),
    st.booleans(),
    st.text(max_size=6),
    st.complex_numbers(allow_nan=False),
    st.just(torch.tensor(1j)),
    st.just(torch.zeros(2)),
)


@pytest.mark.parametrize("value", [1, 7, np.int64(3), torch.tensor(5)])
def test_check_int_accepts_integers(value):
    assert check_int("n", value) == int(value)
    assert type(check_int("n", value)) is int


@pytest.mark.parametrize("value", [1.0, "3", None, True, torch.tensor(2.0), [1]])
def test_check_int_rejects_non_integers_naming_the_argument(value):
    with pytest.raises(TypeError, match=r"^n_positions must be an integer"):
        check_int("n_positions", value)


@pytest.mark.parametrize("value", [0, -3])
def test_check_int_rejects_non_positive(value):
    with pytest.raises(ValueError, match=rf"^dim must be positive, got {value}$"):
        check_int("dim", value)


def test_check_int_minimum_zero_and_none():
    assert check_int("k", 0, minimum=0) == 0
    assert check_int("offset", -4, minimum=None) == -4
    with pytest.raises(ValueError, match=r"k must be >= 0, got -1"):
        check_int("k", -1, minimum=0)


def test_check_even():
    assert check_even("dim", 8) == 8
    with pytest.raises(ValueError, match=r"dim must be even .* got 7"):
        check_even("dim", 7)
    with pytest.raises(ValueError, match=r"dim must be >= 2"):
        check_even("dim", 0)


def test_check_multiple():
    assert check_multiple("dim", 8, 4, "two axes of sin/cos pairs") == 8
    with pytest.raises(ValueError, match=r"dim must be a multiple of 4 \(two axes.*got 6"):
        check_multiple("dim", 6, 4, "two axes of sin/cos pairs")


@pytest.mark.parametrize("value", [0.0, -1.0, float("inf"), float("nan")])
def test_check_positive_float_rejects(value):
    with pytest.raises(ValueError, match=r"^base must be a finite number > 0"):
        check_positive_float("base", value)


@pytest.mark.parametrize("value", ["10", None, True])
def test_check_positive_float_rejects_types(value):
    with pytest.raises(TypeError, match=r"^base must be a real number"):
        check_positive_float("base", value)


def test_check_tensor():
    x = torch.zeros(2, 3)
    assert check_tensor("x", x, ndim=2) is x
    with pytest.raises(TypeError, match=r"^x must be a torch.Tensor, got list"):
        check_tensor("x", [1, 2])
    with pytest.raises(ValueError, match=r"^x must have 3 dimensions, got shape \(2, 3\)"):
        check_tensor("x", x, ndim=3)


def test_check_floating_dtype():
    assert check_floating_dtype("dtype", torch.float16) is torch.float16
    with pytest.raises(ValueError, match="dtype must be a floating-point dtype"):
        check_floating_dtype("dtype", torch.int64)
    with pytest.raises(TypeError, match="dtype must be a torch.dtype"):
        check_floating_dtype("dtype", "float32")


def test_as_positions():
    assert torch.equal(
        as_positions("positions", 3), torch.tensor([0.0, 1.0, 2.0], dtype=torch.float64)
    )
    p = as_positions("positions", torch.tensor([-1.5, 2.25], dtype=torch.float32))
    assert p.dtype == torch.float64 and p.tolist() == [-1.5, 2.25]
    with pytest.raises(ValueError, match=r"positions must have 1 dimension"):
        as_positions("positions", torch.zeros(2, 2))
    with pytest.raises(ValueError, match=r"positions must be positive"):
        as_positions("positions", 0)


@given(a=st.lists(st.integers(1, 3), max_size=4), b=st.lists(st.integers(1, 3), max_size=4))
def test_broadcast_shape_follows_torch(a, b):
    try:
        expected = tuple(torch.broadcast_shapes(tuple(a), tuple(b)))
    except RuntimeError:
        expected = None
    assert broadcast_shape(tuple(a), tuple(b)) == expected


@given(head_dim=st.integers(1, 16), num_heads=st.integers(1, 8))
def test_check_heads_returns_the_channels_per_head(head_dim, num_heads):
    got = check_heads(head_dim * num_heads, num_heads)
    assert got == head_dim and type(got) is int
    assert check_heads(np.int64(head_dim * num_heads), torch.tensor(num_heads)) == head_dim


@pytest.mark.parametrize("dim, num_heads", [(6, 4), (10, 3), (1, 2)])
def test_check_heads_rejects_heads_that_do_not_divide(dim, num_heads):
    rule = rf"^num_heads must divide dim, got dim={dim}, num_heads={num_heads}$"
    with pytest.raises(ValueError, match=rule):
        check_heads(dim, num_heads)


def test_check_heads_names_the_bad_argument_first():
    with pytest.raises(ValueError, match=r"^dim must be positive"):
        check_heads(0, 0)
    with pytest.raises(ValueError, match=r"^num_heads must be positive"):
        check_heads(8, 0)
    with pytest.raises(TypeError, match=r"^num_heads must be an integer"):
        check_heads(8, 2.0)


@pytest.mark.parametrize("value", [torch.tensor(True), torch.tensor(1 + 0j)])
def test_check_int_rejects_bool_and_complex_tensors(value):
    with pytest.raises(TypeError, match=r"^n must be an integer"):
        check_int("n", value)


# --- check_bool -------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [True, False, np.bool_(True)])
def test_check_bool_accepts_bools(value):
    got = check_bool("causal", value)
    assert got is bool(value)


@given(NON_BOOLS)
def test_check_bool_refuses_everything_else(value):
    with pytest.raises(TypeError, match=r"^causal must be a bool \(True or False\), got "):
        check_bool("causal", value)


def test_check_bool_refuses_the_string_false():
    with pytest.raises(TypeError, match=r"^interleaved must be a bool.*'False'"):
        check_bool("interleaved", "False")


# --- check_real / check_base / check_positive_float ---------------------------------------------


@given(st.floats(allow_nan=False, allow_infinity=False) | st.integers(-(10**6), 10**6))
def test_check_real_accepts_finite_reals(value):
    got = check_real("scale", value)
    assert type(got) is float and got == float(value)


def test_check_real_accepts_numpy_and_0d_tensors():
    assert check_real("scale", np.float32(0.5)) == 0.5
    assert check_real("scale", torch.tensor(2.5)) == 2.5
    assert check_real("scale", torch.tensor(3)) == 3.0


@given(NON_FINITE)
def test_check_real_refuses_non_finite(value):
    with pytest.raises(ValueError, match=r"^scale must be a finite number, got (nan|inf|-inf)$"):
        check_real("scale", value)


@given(NON_REALS)
def test_check_real_refuses_non_reals(value):
    with pytest.raises(TypeError, match=r"^scale must be a real number"):
        check_real("scale", value)


@pytest.mark.parametrize(
    "value, kwargs, words",
    [
        (-0.5, {"minimum": 0}, r"^p must be a finite number >= 0, got -0.5$"),
        (0.0, {"minimum": 0, "inclusive": False}, r"^p must be a finite number > 0, got 0.0$"),
        (1.5, {"maximum": 1}, r"^p must be a finite number <= 1, got 1.5$"),
        (
            1.0,
            {"minimum": 0, "maximum": 1, "inclusive": False},
            r"^p must be a finite number in \(0, 1\), got 1.0$",
        ),
        (math.inf, {"minimum": 0}, r"^p must be a finite number >= 0, got inf$"),
    ],
)
def test_check_real_bounds(value, kwargs, words):
    with pytest.raises(ValueError, match=words):
        check_real("p", value, **kwargs)


def test_check_real_bounds_are_inclusive_by_default():
    assert check_real("p", 0, minimum=0, maximum=1) == 0.0
    assert check_real("p", 1, minimum=0, maximum=1) == 1.0
    with pytest.raises(ValueError, match=r"^p must be a finite number in \[0, 1\], got -0.5$"):
        check_real("p", -0.5, minimum=0, maximum=1)


@given(st.floats(min_value=1.0, max_value=1e300, exclude_min=True))
def test_check_base_accepts_above_one(value):
    assert check_base("base", value) == value


@given(st.floats(max_value=1.0) | NON_FINITE)
def test_check_base_refuses_one_and_below_and_non_finite(value):
    with pytest.raises(ValueError, match=r"^base must be a finite number > 1, got "):
        check_base("base", value)


@given(NON_REALS)
def test_check_base_refuses_non_reals(value):
    with pytest.raises(TypeError, match=r"^base must be a real number"):
        check_base("base", value)


# --- tensors: float, one dtype, finite ----------------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
def test_check_float_tensor_accepts_floats(dtype):
    x = torch.zeros(2, 3, dtype=dtype)
    assert check_float_tensor("x", x, ndim=2) is x


@pytest.mark.parametrize("dtype", [torch.bool, torch.int64, torch.uint8, torch.complex64])
def test_check_float_tensor_refuses_other_dtypes(dtype):
    with pytest.raises(TypeError, match=rf"^x must be a floating-point tensor, got dtype {dtype}$"):
        check_float_tensor("x", torch.zeros(2, dtype=dtype))


def test_check_float_tensor_checks_kind_and_rank():
    with pytest.raises(TypeError, match=r"^x must be a torch.Tensor"):
        check_float_tensor("x", [1.0])
    with pytest.raises(ValueError, match=r"^x must have 2 dimensions, got shape \(3,\)"):
        check_float_tensor("x", torch.zeros(3), ndim=2)


def test_check_same_dtype():
    a, b = torch.zeros(2), torch.zeros(3)
    assert check_same_dtype(q=a, k=b, bias=None) is torch.float32
    assert check_same_dtype(bias=None) is None
    with pytest.raises(
        TypeError,
        match=r"^q, k, v must have one dtype, got q torch.float32, k torch.float64, v torch",
    ):
        check_same_dtype(q=a, k=b.double(), v=a)


@given(st.lists(NON_FINITE, min_size=1, max_size=3), st.integers(0, 4))
def test_check_finite_refuses_nan_and_inf(bad, at):
    values = [0.0] * 4
    values[at:at] = bad
    with pytest.raises(ValueError, match=rf"^x must be finite, got {len(bad)} NaN or infinite"):
        check_finite("x", torch.tensor(values))


def test_check_finite_passes_finite_integer_and_meta_tensors():
    x = torch.tensor([1.0, -2.0])
    assert check_finite("x", x) is x
    assert check_finite("x", torch.tensor([1, 2])) is not None
    meta = torch.empty(3, device="meta")
    assert check_finite("x", meta) is meta


# --- bias and mask ----------------------------------------------------------------------------


def test_check_bias_accepts_broadcasting_float_bias():
    for shape in [(4, 5), (1, 5), (3, 1, 5), (1, 3, 4, 5), ()]:
        bias = torch.zeros(shape)
        assert check_bias("bias", bias, (2, 3, 4, 5)) is bias


def test_check_bias_refuses_a_bool_tensor_pointing_to_mask():
    with pytest.raises(TypeError, match=r"^bias must be a floating-point .* bool tensor.*mask="):
        check_bias("bias", torch.ones(4, 5, dtype=torch.bool), (4, 5))


@pytest.mark.parametrize("dtype", [torch.int64, torch.complex64])
def test_check_bias_refuses_integer_and_complex(dtype):
    with pytest.raises(TypeError, match=r"^bias must be a floating-point tensor"):
        check_bias("bias", torch.zeros(4, 5, dtype=dtype), (4, 5))


@pytest.mark.parametrize("shape", [(4, 6), (5, 4), (2, 2, 4, 5), (7, 1, 1)])
def test_check_bias_refuses_shapes_that_do_not_broadcast(shape):
    words = rf"^bias of shape \({', '.join(map(str, shape))},?\) does not broadcast .*\(3, 4, 5\)$"
    with pytest.raises(ValueError, match=words):
        check_bias("bias", torch.zeros(shape), (3, 4, 5))


@given(
    a=st.lists(st.integers(1, 3), max_size=4),
    b=st.lists(st.integers(1, 3), max_size=4),
)
def test_check_mask_broadcast_rule_follows_torch(a, b):
    mask = torch.ones(a, dtype=torch.bool)
    try:
        ok = tuple(torch.broadcast_shapes(tuple(a), tuple(b))) == tuple(b)
    except RuntimeError:
        ok = False
    if ok:
        assert check_mask("mask", mask, b) is mask
    else:
        with pytest.raises(ValueError, match=r"^mask of shape .* does not broadcast to"):
            check_mask("mask", mask, b)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64])
def test_check_mask_refuses_non_bool(dtype):
    with pytest.raises(TypeError, match=rf"^mask must be a boolean tensor .*got dtype {dtype}"):
        check_mask("mask", torch.ones(2, 2, dtype=dtype), (2, 2))
    with pytest.raises(TypeError, match=r"^mask must be a torch.Tensor"):
        check_mask("mask", [[True]], (1, 1))


# --- state-dict tables --------------------------------------------------------------------------


def test_check_table_shape():
    check_table_shape("table.weight", torch.zeros(4, 3), (4, 3))
    words = r"^state dict entry 'table.weight' has shape \(5, 3\), .* has shape \(4, 3\)"
    with pytest.raises(ValueError, match=words):
        check_table_shape("table.weight", torch.zeros(5, 3), torch.Size([4, 3]))
    with pytest.raises(TypeError, match=r"^state dict entry 'w' must be a torch.Tensor"):
        check_table_shape("w", [0.0], (1,))


class _Table(nn.Module):
    def __init__(self, n: int) -> None:
        super().__init__()
        self.embedding = nn.Embedding(n, 3)
        self.register_buffer("counts", torch.zeros(n))
        self.register_buffer("cache", torch.zeros(n), persistent=False)

    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):
        check_state_dict_tables(self, state_dict, prefix)
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)


def test_check_state_dict_tables_names_the_key_and_both_sizes():
    small, big = _Table(4), _Table(6)
    small.load_state_dict(_Table(4).state_dict())  # the right sizes load
    words = r"^state dict entry 'embedding.weight' has shape \(6, 3\), .* shape \(4, 3\)"
    with pytest.raises(ValueError, match=words):
        small.load_state_dict(big.state_dict())
    outer = nn.Sequential(small)
    with pytest.raises(ValueError, match=r"^state dict entry '0.counts' has shape \(6,\)"):
        outer.load_state_dict({**outer.state_dict(), "0.counts": torch.zeros(6)})
    # missing keys are still torch's to report, and a non-persistent buffer is not looked at
    with pytest.raises(RuntimeError, match="Missing key"):
        small.load_state_dict({"counts": torch.zeros(4)})
    small.load_state_dict({**small.state_dict(), "cache": torch.zeros(9)}, strict=False)


# --- as_positions -------------------------------------------------------------------------------


@given(NON_FINITE)
def test_as_positions_refuses_non_finite(value):
    with pytest.raises(ValueError, match=r"^positions must be finite, got 1 NaN or infinite"):
        as_positions("positions", torch.tensor([0.0, value]))


@pytest.mark.parametrize("dtype", [torch.bool, torch.complex64])
def test_as_positions_refuses_bool_and_complex(dtype):
    with pytest.raises(TypeError, match=rf"^positions must hold real numbers, got dtype {dtype}"):
        as_positions("positions", torch.zeros(3, dtype=dtype))


def test_as_positions_refuses_bool_counts_and_stays_on_the_device():
    with pytest.raises(TypeError, match=r"^positions must be an integer"):
        as_positions("positions", True)
    assert as_positions("positions", 3, device="meta").device.type == "meta"
    p = as_positions("positions", torch.zeros(5, device="meta"))
    assert p.device.type == "meta" and p.dtype == torch.float64 and p.shape == (5,)


def test_check_mask_widen_lets_the_mask_add_batch_dimensions():
    mask = torch.ones(3, 4, 5, dtype=torch.bool)
    assert check_mask("mask", mask, (4, 5), widen=True) is mask
    with pytest.raises(ValueError, match=r"^mask of shape \(3, 4, 5\) does not broadcast to"):
        check_mask("mask", mask, (4, 5))
    with pytest.raises(ValueError, match=r"^mask of shape \(3, 4, 5\) does not broadcast with"):
        check_mask("mask", mask, (2, 4, 5), widen=True)


def test_check_pair_and_choice():
    assert check_pair("window", (3, 4)) == (3, 4)
    assert check_pair("offset", [-1, 0], minimum=None) == (-1, 0)
    with pytest.raises(TypeError, match="window must be a pair of ints, got str"):
        check_pair("window", "34")
    with pytest.raises(ValueError, match=r"window must have two entries, got \(3,\)"):
        check_pair("window", (3,))
    with pytest.raises(ValueError, match=r"window\[1\] must be positive, got 0"):
        check_pair("window", (3, 0))
    with pytest.raises(TypeError, match=r"window\[0\] must be an integer, got float"):
        check_pair("window", (2.5, 3))
    assert check_choice("pair", "middle", ("fastest", "middle")) == "middle"
    with pytest.raises(ValueError, match=r"pair must be one of \('fastest', 'middle'\)"):
        check_choice("pair", "slow", ("fastest", "middle"))
    with pytest.raises(ValueError, match="flag must be one of"):
        check_choice("flag", True, (1, 0))  # a bool is not the int 1


def test_meta_scalars_are_refused_by_name():
    with pytest.raises(TypeError, match="n must be a number or a tensor with a value"):
        check_int("n", torch.tensor(4, device="meta"))
    with pytest.raises(TypeError, match="base must be a number or a tensor with a value"):
        check_real("base", torch.tensor(100.0, device="meta"))


def test_check_rotated_wants_pairs_of_channels_in_a_float_tensor():
    from posenc._checks import check_rotated

    assert check_rotated("x", torch.zeros(2, 5, 4)) == (5, 4)
    with pytest.raises(TypeError, match="x must be a floating-point tensor"):
        check_rotated("x", torch.zeros(5, 4, dtype=torch.long))
    with pytest.raises(ValueError, match=r"x must have at least 2 dimensions"):
        check_rotated("x", torch.zeros(4))
    with pytest.raises(ValueError, match=r"x's last dimension d must be even and >= 2"):
        check_rotated("x", torch.zeros(5, 3))


def test_check_shape_names_the_entry_at_fault():
    from posenc._checks import check_shape

    assert check_shape("window_size", (7, 7)) == (7, 7)
    assert check_shape("window_size", [2, np.int64(3), torch.tensor(4)]) == (2, 3, 4)
    assert check_shape("shift", (0, 1), rank=2, minimum=0) == (0, 1)
    with pytest.raises(TypeError, match=r"^window_size must be a tuple of ints such as \(7, 7\)"):
        check_shape("window_size", 7)
    with pytest.raises(TypeError, match=r"^key_step must be a tuple of ints"):
        check_shape("key_step", "22")
    with pytest.raises(ValueError, match=r"^window_size must have at least one axis"):
        check_shape("window_size", ())
    with pytest.raises(ValueError, match=r"^query_shape must have 3 entries such as \(7, 7, 7\)"):
        check_shape("query_shape", (7, 7), rank=3)
    with pytest.raises(TypeError, match=r"^window_size\[1\] must be an integer"):
        check_shape("window_size", (7, True))
    with pytest.raises(ValueError, match=r"^shift\[1\] must be >= 0, got -1"):
        check_shape("shift", (1, -1), rank=2, minimum=0)
    with pytest.raises(ValueError, match=r"^window_size\[0\] must be positive, got 0"):
        check_shape("window_size", (0, 2))
