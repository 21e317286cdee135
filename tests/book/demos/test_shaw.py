"""Chapter 6's demonstrations: the written-out reference against a float64 double loop and its
argument checks; the analytic byte count against golden values and the tensors it counts; the
timing run's shape and its argument checks."""

from __future__ import annotations

import weakref

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

import posenc.shaw
from book.demos.shaw import (
    shaw_attention_reference,
    shaw_attention_timings,
    shaw_intermediate_bytes,
)
from tests.posenc.test_shaw import (
    assert_masks_that_do_not_broadcast_name_both_shapes,
    assert_tensors_must_be_float_of_one_dtype_on_one_device,
    random_inputs,
)
from tests.references import loop_reference, t2t_relative_positions_matrix

# -- shaw_attention_reference: the formula written out ------------------------------------------


@pytest.mark.parametrize(
    "n_q,n_k,k", [(1, 1, 0), (5, 5, 2), (7, 4, 1), (3, 9, 4), (6, 6, 20), (4, 1, 3)]
)
def test_reference_matches_the_float64_loop(n_q, n_k, k):
    q, kk, v, rk, rv = random_inputs(n_q * 100 + n_k, (), n_q, n_k, 6, 3, k)
    expected = torch.from_numpy(loop_reference(q, kk, v, rk, rv))
    torch.testing.assert_close(
        shaw_attention_reference(q, kk, v, rk, rv), expected, rtol=1e-12, atol=1e-12
    )


def test_reference_errors_name_the_argument():
    q, kk, v, rk, rv = random_inputs(8, (), 3, 3, 4, 4, 1)
    with pytest.raises(TypeError, match=r"mask must be a boolean tensor"):
        shaw_attention_reference(q, kk, v, rk, rv, mask=torch.ones(3, 3))


def test_reference_tensors_must_be_float_of_one_dtype_on_one_device():
    assert_tensors_must_be_float_of_one_dtype_on_one_device(shaw_attention_reference)


def test_reference_masks_that_do_not_broadcast_name_both_shapes():
    assert_masks_that_do_not_broadcast_name_both_shapes(shaw_attention_reference)


def test_reference_on_the_meta_device_gives_meta_outputs():
    q = torch.empty(2, 3, 10, 8, device="meta")
    kk = torch.empty(2, 3, 12, 8, device="meta")
    v = torch.empty(2, 3, 12, 5, device="meta")
    rk, rv = torch.empty(9, 8, device="meta"), torch.empty(9, 5, device="meta")
    mask = torch.empty(10, 12, dtype=torch.bool, device="meta")
    ref = shaw_attention_reference(q, kk, v, rk, rv, mask=mask)
    assert ref.device.type == "meta" and ref.shape == (2, 3, 10, 5)


def test_reference_of_empty_inputs_is_empty():
    q, kk, v, rk, rv = random_inputs(27, (2,), 0, 5, 4, 3, 2)
    assert shaw_attention_reference(q, kk, v, rk, rv).shape == (2, 0, 3)


# -- the cost of Shaw attention -----------------------------------------------------------------


def test_intermediate_bytes_golden_values():
    # Huang et al.'s example: L = 2048, D = 512 in float32, one n × n × d tensor ≈ 8.6 GB
    got = shaw_intermediate_bytes(2048, 512, 16)
    assert got["naive"] == 2 * 2048 * 2048 * 512 * 4
    assert got["attention"] == 2048 * 2048 * 4
    c = 2**18 // 2048  # query rows per block in shaw_attention
    # a block's buffer covers the offsets its rows meet: c + n − 1 columns
    assert got["posenc"] == (c * (c + 2048 - 1) + 3 * c * 2048 + 2 * c * 33) * 4
    # n = 512 is one block: the buffer is 512 × 1023 (issue 23 measured [1, 512, 1023])
    assert (
        shaw_intermediate_bytes(512, 64, 16)["posenc"]
        == (4 * 512 * 512 + 512**2 + (4 * 16 + 1) * 512) * 4
    )
    assert (
        shaw_intermediate_bytes(64, 8, 2)["posenc"]
        == (64 * (64 + 64 - 1) + 3 * 64 * 64 + 2 * 64 * 5) * 4
    )
    # k = 0: one bucket, no running sum; k ≥ n: the buffer is the 2k + 1 table columns
    assert shaw_intermediate_bytes(10, 8, 0)["posenc"] == (10 * 19 + 2 * 10 * 10 + 2 * 10) * 4
    assert shaw_intermediate_bytes(4, 8, 9)["posenc"] == (4 * 19 + 3 * 4 * 4 + 2 * 4 * 19) * 4
    # the naive count is the size of the two gathered tables for a small case
    n, d, k = 7, 3, 2
    idx = torch.as_tensor(t2t_relative_positions_matrix(n, n, k))
    a = torch.zeros(2 * k + 1, d)[idx]  # [n, n, d] float32
    assert shaw_intermediate_bytes(n, d, k)["naive"] == 2 * a.numel() * a.element_size()
    in_float64 = shaw_intermediate_bytes(n, d, k, element_size=8)["naive"]
    assert in_float64 == 4 * a.numel() * a.element_size()
    with pytest.raises(ValueError, match="dim must be positive"):
        shaw_intermediate_bytes(4, 0, 1)


def test_intermediate_bytes_crosses_one_n_by_n_matrix_near_1061():
    # Chapter 6: below this length posenc's block buffers exceed plain attention's weights.
    def above(n: int) -> bool:
        count = shaw_intermediate_bytes(n, 64, 16)
        return count["posenc"] > count["attention"]

    assert above(1060) and not above(1061)
    assert all(above(n) for n in range(2, 1061, 7))
    assert not any(above(n) for n in range(1061, 8192, 13))


def test_intermediate_bytes_follows_the_block_size_of_shaw_attention(monkeypatch):
    monkeypatch.setattr("book.demos.shaw._BLOCK_ELEMENTS", 64)
    c = 64 // 16  # rows per block at n = 16
    # the widest block is the first (or last): its rows meet offsets -(c-1) .. 15
    assert (
        shaw_intermediate_bytes(16, 4, 1)["posenc"]
        == (c * (c + 16 - 1) + 3 * c * 16 + 2 * c * 3) * 4
    )
    assert posenc.shaw._BLOCK_ELEMENTS == 2**18  # the library's constant is untouched


class _LiveBytes(TorchDispatchMode):
    """The bytes held by the tensors that ops create, and which were alive at the peak."""

    def __init__(self) -> None:
        super().__init__()
        self.live: dict[int, tuple[int, tuple[int, ...]]] = {}
        self.current = self.peak = 0
        self.at_peak: list[tuple[int, tuple[int, ...]]] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        out = func(*args, **(kwargs or {}))
        for t in tree_flatten(out)[0]:
            if isinstance(t, torch.Tensor):
                storage = t.untyped_storage()
                key = storage.data_ptr()
                if key in self.live or storage.nbytes() == 0:
                    continue  # a view of a tensor already counted
                self.live[key] = (storage.nbytes(), tuple(t.shape))
                self.current += storage.nbytes()
                if self.current > self.peak:
                    self.peak, self.at_peak = self.current, list(self.live.values())
                weakref.finalize(t, self._free, key)
        return out

    def _free(self, key: int) -> None:
        self.current -= self.live.pop(key, (0, ()))[0]


@pytest.mark.parametrize(
    "n,k,block_elements",
    [(512, 16, 2**18), (2048, 16, 2**18), (1000, 7, 2**18), (300, 3, 2**14), (300, 0, 2**14)],
)
def test_intermediate_bytes_match_what_shaw_attention_keeps_alive(
    n, k, block_elements, monkeypatch
):
    # An independent count: follow every tensor that one call creates, and when it dies. The
    # large ones, whose rows are at least n wide (the padded buffer, logits, weights, running
    # sum), must add up exactly to the count's; the rest are O(c·k) (index temporaries of the
    # bucket sums) plus the blocks' outputs.
    monkeypatch.setattr("posenc.shaw._BLOCK_ELEMENTS", block_elements)
    monkeypatch.setattr("book.demos.shaw._BLOCK_ELEMENTS", block_elements)
    d = 8
    g = torch.Generator().manual_seed(0)
    q, kk, v = (torch.randn(n, d, generator=g) for _ in range(3))
    rel_k, rel_v = torch.randn(2, 2 * k + 1, d, generator=g)
    tracker = _LiveBytes()
    with torch.no_grad(), tracker:
        posenc.shaw.shaw_attention(q, kk, v, rel_k, rel_v, strategy="blocked")
    c = min(n, block_elements // n)  # query rows per block
    small = 2 * c * (2 * k + 1) * 4  # the count's two c × (2k+1) matrices
    large = sum(size for size, shape in tracker.at_peak if len(shape) >= 2 and shape[-1] >= n)
    assert large == shaw_intermediate_bytes(n, d, k)["posenc"] - small
    rest = tracker.peak - large
    outputs = 2 * n * d * 4  # the blocks' outputs and their concatenation
    assert rest <= outputs + 8 * small  # int64 indices are twice a float's size


def test_intermediate_bytes_arguments_are_checked():
    with pytest.raises(TypeError, match="n must be an integer"):
        shaw_intermediate_bytes(2048.0, 64, 16)
    with pytest.raises(TypeError, match="max_relative_position must be an integer"):
        shaw_intermediate_bytes(2048, 64, True)
    with pytest.raises(ValueError, match="max_relative_position must be >= 0"):
        shaw_intermediate_bytes(2048, 64, -1)
    with pytest.raises(ValueError, match="element_size must be positive"):
        shaw_intermediate_bytes(2048, 64, 16, element_size=0)


def test_timings_shape_and_threads():
    before = torch.get_num_threads()
    out = shaw_attention_timings((4, 8), dim=4, max_relative_position=1, naive_max=4, repeats=1)
    assert torch.get_num_threads() == before
    assert set(out) == {"n", "plain", "posenc", "naive"}
    assert out["n"] == [4.0, 8.0]
    assert out["naive"][1] is None and out["naive"][0] > 0
    assert all(t > 0 for key in ("plain", "posenc") for t in out[key])


@pytest.mark.parametrize(
    "kwargs,error,message",
    [
        ({"sizes": ()}, ValueError, "sizes must be a non-empty sequence"),
        ({"sizes": "12"}, ValueError, "sizes must be a non-empty sequence"),
        ({"sizes": (8, 0)}, ValueError, r"sizes\[1\] must be positive"),
        ({"sizes": (8.0,)}, TypeError, r"sizes\[0\] must be an integer"),
        ({"dim": 0}, ValueError, "dim must be positive"),
        ({"max_relative_position": -1}, ValueError, "max_relative_position must be >= 0"),
        ({"naive_max": -1}, ValueError, "naive_max must be >= 0"),
        ({"repeats": 0}, ValueError, "repeats must be positive"),
        ({"seed": -1}, ValueError, "seed must be >= 0"),
        ({"threads": 0}, ValueError, "threads must be positive"),
    ],
)
def test_timings_arguments_are_checked(kwargs, error, message):
    args = {"sizes": (4,), "dim": 4, "max_relative_position": 1, "repeats": 1, **kwargs}
    with pytest.raises(error, match=message):
        shaw_attention_timings(**args)
