"""posenc.sinusoidal against the paper's formula, golden values, a PyPI library and properties."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from positional_encodings.torch_encodings import PositionalEncoding1D

from posenc.sinusoidal import (
    SinusoidalPositionalEncoding,
    sinusoidal_dot_product,
    sinusoidal_encoding,
    sinusoidal_frequencies,
    sinusoidal_shift_matrix,
    sinusoidal_wavelengths,
)

F64 = torch.float64


def paper_table(positions, dim, base=10000.0, interleaved=True):
    """Vaswani et al. §3.5, one math.sin/math.cos at a time, in float64."""
    rows = []
    for p in positions:
        sines = [math.sin(p / base ** (2 * i / dim)) for i in range(dim // 2)]
        cosines = [math.cos(p / base ** (2 * i / dim)) for i in range(dim // 2)]
        if interleaved:
            rows.append([v for pair in zip(sines, cosines) for v in pair])
        else:
            rows.append(sines + cosines)
    return np.array(rows, dtype=np.float64)


# -- the formula ------------------------------------------------------------------------------


def test_golden_values_dim4():
    # ω_0 = 1, ω_1 = 10000^(-1/2) = 0.01; values of sin/cos from tables, by hand
    expected = torch.tensor(
        [
            [0.0, 1.0, 0.0, 1.0],
            [0.8414709848078965, 0.5403023058681398, 0.009999833334166664, 0.9999500004166653],
            [0.9092974268256817, -0.4161468365471424, 0.01999866669333308, 0.9998000066665778],
        ],
        dtype=F64,
    )
    torch.testing.assert_close(sinusoidal_encoding(3, 4, dtype=F64), expected, rtol=0, atol=1e-15)
    halves = sinusoidal_encoding(3, 4, interleaved=False, dtype=F64)
    torch.testing.assert_close(halves, expected[:, [0, 2, 1, 3]], rtol=0, atol=1e-15)
    assert sinusoidal_encoding(3, 4).dtype == torch.float32


@pytest.mark.parametrize("interleaved", [True, False])
@pytest.mark.parametrize(("dim", "base"), [(2, 10000.0), (6, 10000.0), (64, 10000.0), (32, 100.0)])
def test_matches_paper_formula(dim, base, interleaved):
    pos = [0, 1, 2, 7, 50, 511, 2.5, -3.25]
    got = sinusoidal_encoding(torch.tensor(pos), dim, base=base, interleaved=interleaved, dtype=F64)
    expected = paper_table(pos, dim, base, interleaved)
    np.testing.assert_allclose(got.numpy(), expected, atol=1e-12, rtol=0)


def test_matches_annotated_transformer_exp_log_form():
    # the Annotated Transformer writes the frequencies as exp(2i · (-ln 10000 / d))
    n, d = 100, 32
    pos = np.arange(n, dtype=np.float64)[:, None]
    div = np.exp(np.arange(0, d, 2, dtype=np.float64) * -(math.log(10000.0) / d))
    ref = np.zeros((n, d))
    ref[:, 0::2] = np.sin(pos * div)
    ref[:, 1::2] = np.cos(pos * div)
    ours = sinusoidal_encoding(n, d, dtype=F64).numpy()
    np.testing.assert_allclose(ours, ref, atol=1e-12, rtol=0)


def test_matches_positional_encodings_package():
    # positional-encodings 6.0.3: input and output [batch, x, ch], interleaved sin/cos, float32
    n, d = 60, 32
    theirs = PositionalEncoding1D(d)(torch.zeros(2, n, d))  # [2, n, d]
    assert theirs.shape == (2, n, d)
    ours = sinusoidal_encoding(n, d)
    torch.testing.assert_close(theirs[0], ours, rtol=0, atol=1e-5)
    torch.testing.assert_close(theirs[1], ours, rtol=0, atol=1e-5)


def test_frequencies_and_wavelengths():
    omega = sinusoidal_frequencies(64)
    assert omega.dtype == F64 and omega.shape == (32,)
    assert omega[0] == 1.0
    expected = [10000.0 ** (-2 * i / 64) for i in range(32)]
    np.testing.assert_allclose(omega.numpy(), expected, rtol=1e-14)
    lam = sinusoidal_wavelengths(64)
    assert lam[0].item() == pytest.approx(2 * math.pi)
    assert lam[-1].item() == pytest.approx(2 * math.pi * 10000.0 ** (62 / 64))
    ratios = lam[1:] / lam[:-1]
    np.testing.assert_allclose(ratios.numpy(), 10000.0 ** (2 / 64), rtol=1e-12)  # geometric
    assert (lam < 2 * math.pi * 10000.0).all()


# -- precision --------------------------------------------------------------------------------


def test_float32_output_within_1e6_of_float64_up_to_a_million():
    gen = torch.Generator().manual_seed(0)
    pos = torch.cat(
        [
            torch.arange(10**6 - 300, 10**6 + 1, dtype=F64),
            torch.randint(0, 10**6, (300,), generator=gen).to(F64),
            torch.rand(300, generator=gen, dtype=F64) * 1e6,  # fractional positions
        ]
    )
    d = 128
    exact = paper_table(pos.tolist(), d)
    ours = sinusoidal_encoding(pos, d)
    assert ours.dtype == torch.float32
    assert np.abs(ours.double().numpy() - exact).max() < 1e-6
    # the same table with float32 angles (what most copied code does) is far off there
    fast = sinusoidal_encoding(pos, d, compute_dtype=torch.float32)
    assert np.abs(fast.double().numpy() - exact).max() > 1e-2


# -- properties -------------------------------------------------------------------------------

reals = st.floats(min_value=-1e4, max_value=1e4, allow_nan=False)
dims = st.sampled_from([2, 4, 8, 16, 64])
bases = st.sampled_from([100.0, 10000.0])


@given(
    p=reals,
    k=st.floats(min_value=-1e3, max_value=1e3),
    dim=dims,
    base=bases,
    interleaved=st.booleans(),
)
def test_shift_is_a_rotation_independent_of_position(p, k, dim, base, interleaved):
    m = sinusoidal_shift_matrix(k, dim, base=base, interleaved=interleaved)  # [d, d]
    pk = torch.tensor([p, p + k], dtype=F64)
    at = sinusoidal_encoding(pk, dim, base=base, interleaved=interleaved, dtype=F64)  # [2, d]
    torch.testing.assert_close(m @ at[0], at[1], rtol=0, atol=1e-9)
    torch.testing.assert_close(m @ m.T, torch.eye(dim, dtype=F64), rtol=0, atol=1e-12)


@given(a=st.floats(-100, 100), b=st.floats(-100, 100), dim=dims)
def test_shift_matrices_compose(a, b, dim):
    ma, mb = sinusoidal_shift_matrix(a, dim), sinusoidal_shift_matrix(b, dim)
    torch.testing.assert_close(ma @ mb, sinusoidal_shift_matrix(a + b, dim), rtol=0, atol=1e-10)


@given(k=st.floats(-100, 100), dim=dims, base=bases, interleaved=st.booleans())
def test_shift_back_is_the_transpose_and_differs_from_shift_forward(k, dim, base, interleaved):
    m = sinusoidal_shift_matrix(k, dim, base=base, interleaved=interleaved)
    back = sinusoidal_shift_matrix(-k, dim, base=base, interleaved=interleaved)
    torch.testing.assert_close(back, m.T, rtol=0, atol=1e-15)
    # the top-right entry of pair 0's block is sin(k·ω_0) = sin k, the bottom-left -sin k
    j = 1 if interleaved else dim // 2
    assert m[0, j].item() == pytest.approx(math.sin(k), abs=1e-12)
    assert m[j, 0].item() == pytest.approx(-math.sin(k), abs=1e-12)


@pytest.mark.parametrize("k", [3, -3, 17, -40])
def test_query_rotated_by_shift_matrix_attends_k_steps_away(k):
    # scores[p, q] = (M_k PE(p)) · PE(q) = PE(p+k) · PE(q), written with numpy in float64
    d, n = 64, 200
    omega = 10000.0 ** (-np.arange(0, d, 2) / d)  # [d/2]
    angles = np.arange(n)[:, None] * omega[None, :]  # [n, d/2]
    codes = np.stack([np.sin(angles), np.cos(angles)], axis=-1).reshape(n, d)  # [n, d]
    m = sinusoidal_shift_matrix(k, d).numpy()
    scores = codes @ m.T @ codes.T  # [n, n]
    rows = [p for p in range(n) if 0 <= p + k < n]
    assert [int(scores[p].argmax()) for p in rows] == [p + k for p in rows]


@given(pos=st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=20), dim=dims, base=bases)
def test_values_bounded_and_pairs_on_unit_circle(pos, dim, base):
    t = sinusoidal_encoding(torch.tensor(pos, dtype=F64), dim, base=base, dtype=F64)
    assert t.shape == (len(pos), dim)
    assert (t.abs() <= 1.0).all()
    radius = t[:, 0::2] ** 2 + t[:, 1::2] ** 2  # [n, d/2]
    torch.testing.assert_close(radius, torch.ones_like(radius), rtol=0, atol=1e-12)


@given(n=st.integers(1, 50), dim=dims, base=bases)
def test_halves_layout_is_a_fixed_channel_permutation(n, dim, base):
    perm = list(range(0, dim, 2)) + list(range(1, dim, 2))
    inter = sinusoidal_encoding(n, dim, base=base)
    halves = sinusoidal_encoding(n, dim, base=base, interleaved=False)
    torch.testing.assert_close(halves, inter[:, perm], rtol=0, atol=0)


@given(p=reals, ks=st.lists(st.floats(-500, 500), min_size=1, max_size=10), dim=dims, base=bases)
def test_dot_product_depends_only_on_offset(p, ks, dim, base):
    k = torch.tensor(ks, dtype=F64)
    a = sinusoidal_encoding(torch.tensor([p], dtype=F64), dim, base=base, dtype=F64)[0]  # [d]
    b = sinusoidal_encoding(p + k, dim, base=base, dtype=F64)  # [m, d]
    closed = sinusoidal_dot_product(k, dim, base=base)
    torch.testing.assert_close(b @ a, closed, rtol=0, atol=1e-8)
    torch.testing.assert_close(sinusoidal_dot_product(-k, dim, base=base), closed, rtol=0, atol=0)


def test_dot_product_peak_at_zero():
    vals = sinusoidal_dot_product(torch.arange(-50, 51, dtype=F64), 64)
    assert vals[50].item() == pytest.approx(32.0)
    assert int(vals.argmax()) == 50
    assert sinusoidal_dot_product(3, 8).shape == (3,)  # an int means offsets 0..m-1


# -- the module -------------------------------------------------------------------------------


def test_module_adds_table_and_keeps_it_out_of_state_dict():
    mod = SinusoidalPositionalEncoding(16, max_positions=32)
    assert "encoding" not in mod.state_dict()
    assert "encoding" in dict(mod.named_buffers())
    assert len(list(mod.parameters())) == 0
    x = torch.randn(2, 10, 16, generator=torch.Generator().manual_seed(1))
    torch.testing.assert_close(mod(x), x + sinusoidal_encoding(10, 16), rtol=0, atol=0)


def test_module_encodes_inputs_longer_than_its_table():
    mod = SinusoidalPositionalEncoding(8, max_positions=4, base=100.0, interleaved=False)
    out = mod(torch.zeros(1, 50, 8))
    expected = sinusoidal_encoding(50, 8, base=100.0, interleaved=False)
    torch.testing.assert_close(out[0], expected, rtol=0, atol=0)


# -- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"positions": 4, "dim": 7}, ValueError, "dim must be even"),
        ({"positions": 4, "dim": 0}, ValueError, "dim must be >= 2"),
        ({"positions": 4, "dim": -4}, ValueError, "dim must be >= 2"),
        ({"positions": 4, "dim": 8.0}, TypeError, "dim must be an integer"),
        ({"positions": 0, "dim": 8}, ValueError, "positions must be positive"),
        ({"positions": 2.5, "dim": 8}, TypeError, "positions must be an integer"),
        ({"positions": torch.zeros(2, 3), "dim": 8}, ValueError, "positions must have 1 dim"),
        ({"positions": 4, "dim": 8, "base": 0.0}, ValueError, "base must be a finite number > 1"),
        ({"positions": 4, "dim": 8, "base": "1e4"}, TypeError, "base must be a real number"),
        ({"positions": 4, "dim": 8, "dtype": torch.int64}, ValueError, "dtype must be a floating"),
    ],
)
def test_encoding_errors_name_the_argument(kwargs, error, message):
    with pytest.raises(error, match=message):
        sinusoidal_encoding(**kwargs)


def test_other_errors_name_the_argument():
    with pytest.raises(TypeError, match="offset must be a real number"):
        sinusoidal_shift_matrix("3", 8)
    with pytest.raises(ValueError, match="dim must be even"):
        sinusoidal_shift_matrix(3, 5)
    with pytest.raises(ValueError, match="dim must be even"):
        SinusoidalPositionalEncoding(15)
    with pytest.raises(ValueError, match="max_positions must be positive"):
        SinusoidalPositionalEncoding(16, max_positions=0)
    mod = SinusoidalPositionalEncoding(16)
    with pytest.raises(ValueError, match="x must have 3 dimensions"):
        mod(torch.zeros(10, 16))
    with pytest.raises(ValueError, match="x must have 16 channels"):
        mod(torch.zeros(1, 10, 8))


# -- strict inputs -------------------------------------------------------------------------------

NON_FINITE = st.sampled_from([math.nan, math.inf, -math.inf])


@given(base=st.floats(max_value=1.0, allow_nan=False) | NON_FINITE)
def test_base_must_be_finite_and_above_one(base):
    for call in (
        lambda: sinusoidal_frequencies(8, base=base),
        lambda: sinusoidal_encoding(4, 8, base=base),
        lambda: sinusoidal_shift_matrix(1.0, 8, base=base),
        lambda: SinusoidalPositionalEncoding(8, base=base),
    ):
        with pytest.raises(ValueError, match=r"^base must be a finite number > 1, got "):
            call()


@pytest.mark.parametrize("flag", ["False", 0, 1, None, torch.tensor(True)])
def test_interleaved_must_be_a_bool(flag):
    for call in (
        lambda: sinusoidal_encoding(4, 8, interleaved=flag),
        lambda: sinusoidal_shift_matrix(1.0, 8, interleaved=flag),
        lambda: SinusoidalPositionalEncoding(8, interleaved=flag),
    ):
        with pytest.raises(TypeError, match=r"^interleaved must be a bool"):
            call()


@given(bad=NON_FINITE)
def test_positions_and_offsets_must_be_finite(bad):
    with pytest.raises(ValueError, match=r"^positions must be finite"):
        sinusoidal_encoding(torch.tensor([0.0, bad]), 8)
    with pytest.raises(ValueError, match=r"^offsets must be finite"):
        sinusoidal_dot_product(torch.tensor([bad]), 8)
    with pytest.raises(ValueError, match=r"^offset must be a finite number, got "):
        sinusoidal_shift_matrix(bad, 8)


@pytest.mark.parametrize("dtype", [torch.bool, torch.complex64])
def test_positions_must_be_real(dtype):
    with pytest.raises(TypeError, match=rf"^positions must hold real numbers, got dtype {dtype}"):
        sinusoidal_encoding(torch.zeros(3, dtype=dtype), 8)
    with pytest.raises(TypeError, match=r"^positions must be an integer"):
        sinusoidal_encoding(True, 8)
    with pytest.raises(TypeError, match=r"^offset must be a real number"):
        sinusoidal_shift_matrix(True, 8)


@pytest.mark.parametrize("dtype", [torch.int64, torch.bool])
def test_module_refuses_integer_x(dtype):
    with pytest.raises(TypeError, match=rf"^x must be a floating-point tensor, got dtype {dtype}"):
        SinusoidalPositionalEncoding(8)(torch.zeros(1, 3, 8, dtype=dtype))


@pytest.mark.parametrize("value", [True, 4.0])
def test_sizes_must_be_ints(value):
    with pytest.raises(TypeError, match=r"^max_positions must be an integer"):
        SinusoidalPositionalEncoding(8, max_positions=value)
    with pytest.raises(TypeError, match=r"^dim must be an integer"):
        sinusoidal_encoding(3, value)


def test_empty_positions_give_an_empty_table():
    assert sinusoidal_encoding(torch.zeros(0), 8).shape == (0, 8)
    assert SinusoidalPositionalEncoding(8)(torch.zeros(2, 0, 8)).shape == (2, 0, 8)


# -- the meta device: nothing built on the CPU ---------------------------------------------------

META = torch.device("meta")


def test_functions_on_the_meta_device():
    outs = {
        "frequencies": (sinusoidal_frequencies(8, device=META), (4,)),
        "wavelengths": (sinusoidal_wavelengths(8, device=META), (4,)),
        "encoding(int)": (sinusoidal_encoding(5, 8, device=META), (5, 8)),
        "encoding(tensor)": (sinusoidal_encoding(torch.empty(5, device=META), 8), (5, 8)),
        "halves": (sinusoidal_encoding(5, 8, interleaved=False, device=META), (5, 8)),
        "shift": (sinusoidal_shift_matrix(2.0, 8, device=META), (8, 8)),
        "shift halves": (sinusoidal_shift_matrix(2.0, 8, interleaved=False, device=META), (8, 8)),
        "dot": (sinusoidal_dot_product(torch.empty(3, device=META), 8), (3,)),
        "dot(int)": (sinusoidal_dot_product(3, 8, device=META), (3,)),
    }
    for name, (out, shape) in outs.items():
        assert out.device == META and out.shape == shape, name


def test_module_on_the_meta_device():
    mod = SinusoidalPositionalEncoding(8, max_positions=4).to(META)
    for n in (3, 9):  # from the table, and encoded on the fly
        y = mod(torch.empty(2, n, 8, device=META))
        assert y.device == META and y.shape == (2, n, 8)


def test_positions_that_require_grad_keep_their_graph():
    """d/dp sin(p·ω_0) = cos(p) for the fastest pair (ω_0 = 1): the graph is not cut."""
    p = torch.tensor([0.0, 0.5, 2.0, 7.0], dtype=torch.float64, requires_grad=True)
    sinusoidal_encoding(p, 8, dtype=torch.float64)[:, 0].sum().backward()
    torch.testing.assert_close(p.grad, torch.cos(p.detach()))


def test_module_in_float64_adds_the_float64_table():
    """The stored table is float32; a float64 input gets the table computed in float64."""
    module = SinusoidalPositionalEncoding(16).double()
    x = torch.zeros(1, 40, 16, dtype=torch.float64)
    expected = sinusoidal_encoding(40, 16, dtype=torch.float64)
    torch.testing.assert_close(module(x)[0], expected, rtol=0, atol=1e-15)
