"""book.demos.window: the index check on the official index and the seeds' bugs, RSTT's frames."""

import itertools
import math
from collections import Counter

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from book.demos.window import (
    IndexCheck,
    frame_offset_counts,
    relative_index_check,
    rstt_key_frames,
    spread_key_step,
)
from posenc.window import relative_offsets, relative_position_index, relative_table_size
from tests.posenc.test_window import (
    offsets,
    seed_001_index_slice_fixed,
)
from tests.references import swin_index, video_swin_index

# ---------------------------------------------------------------------------------------------
# Frame offsets, RSTT's key frames and the spread step (chapter 8)


def frame_offsets(d1, d2, step):
    """The frame axis of relative_offsets: Δt = t − step·j for query frame t and key frame j."""
    return relative_offsets((d1,), (d2,), key_step=(step,))[..., 0].numpy()


@pytest.mark.parametrize("d1,d2,step", [(7, 4, 2), (3, 3, 1), (6, 3, 2), (5, 2, 4), (4, 1, 1)])
def test_frame_offsets_and_counts_by_loops(d1, d2, step):
    expected = np.array([[t - step * j for j in range(d2)] for t in range(d1)])
    np.testing.assert_array_equal(frame_offsets(d1, d2, step), expected)
    counts = Counter(expected.ravel().tolist())
    np.testing.assert_array_equal(
        frame_offset_counts(d1, d2, step).numpy(), [counts.get(d, 0) for d in range(-(d1 - 1), d1)]
    )


def test_rstt_counts_and_parity():
    """7 → 4 frames: every frame offset is used, unevenly; odd offsets only by odd query frames."""
    assert frame_offset_counts(7, 4, 2).tolist() == [1, 1, 2, 2, 3, 3, 4, 3, 3, 2, 2, 1, 1]
    assert frame_offset_counts(7).tolist() == [1, 2, 3, 4, 5, 6, 7, 6, 5, 4, 3, 2, 1]
    offsets = frame_offsets(7, 4, 2)
    assert np.all(offsets % 2 == np.arange(7)[:, None] % 2)
    assert frame_offset_counts(6, 3, 2)[0] == 0  # Δt = −5 never occurs
    with pytest.raises(ValueError, match=r"key coordinates on axis 0 reach 6"):
        frame_offsets(6, 4, 2)


def test_rstt_key_frames_transcribes_the_official_stride():
    for d1, d2 in itertools.product(range(1, 11), repeat=2):
        if d2 > d1 + 1:
            continue
        official = torch.arange(0, d1, int((d1 + 1) // d2))  # llmpass/RSTT models/layers.py
        assert rstt_key_frames(d1, d2) == official.tolist()
    assert rstt_key_frames(7, 4) == [0, 2, 4, 6]
    assert len(rstt_key_frames(6, 4)) == 6  # the pitfall: six key frames, not four
    assert rstt_key_frames(3, 4) == [0, 1, 2]  # D2 = D1 + 1: step 1, still runs
    with pytest.raises(
        ValueError, match=r"key_frames \(5\) must be at most query_frames \+ 1 \(4\)"
    ):
        rstt_key_frames(3, 5)


def test_spread_key_step_golden_values():
    assert spread_key_step(7, 4) == 2  # RSTT: frames 0, 2, 4, 6
    assert spread_key_step(4, 4) == 1  # Video Swin: the same frames
    assert spread_key_step(7, 3) == 3  # 0, 3, 6
    assert spread_key_step(6, 3) == 2  # 0, 2, 4: falls short of frame 5
    assert spread_key_step(7, 1) == 1
    for d1 in range(1, 9):
        for d2 in range(2, d1 + 1):
            s = spread_key_step(d1, d2)
            assert (d2 - 1) * s <= d1 - 1 < (d2 - 1) * (s + 1)  # the largest step that fits
    with pytest.raises(ValueError, match=r"key_frames \(4\) must not exceed query_frames \(3\)"):
        spread_key_step(3, 4)


# ---------------------------------------------------------------------------------------------
# relative_index_check: the two reference-free properties, on the right index and the seed bugs


def radix_index(height, width, radix):
    """Swin's construction with any radix (the row digit's multiplier)."""
    rows, cols = torch.meshgrid(torch.arange(height), torch.arange(width), indexing="ij")
    coords = torch.stack([rows, cols]).flatten(1)
    rel = coords[:, :, None] - coords[:, None, :]
    return (rel[0] + height - 1) * radix + (rel[1] + width - 1)


def xy_index(height, width):
    """Swin's formula on coordinates from meshgrid(..., indexing="xy"): listed column by column."""
    r, c = torch.meshgrid(torch.arange(height), torch.arange(width), indexing="xy")  # [Ww, Wh] each
    coords = torch.stack([r, c]).flatten(1)
    rel = coords[:, :, None] - coords[:, None, :]
    return (rel[0] + height - 1) * (2 * width - 1) + (rel[1] + width - 1)


@pytest.mark.parametrize("shape", [(3, 4), (4, 3), (7, 7), (1, 5), (2, 2, 3), (5,)])
def test_index_check_accepts_the_official_index(shape):
    index = {2: lambda: swin_index(*shape), 3: lambda: video_swin_index(*shape)}.get(
        len(shape), lambda: relative_position_index(shape)
    )()
    check = relative_index_check(index, shape)
    rows = math.prod(2 * s - 1 for s in shape)
    assert check == IndexCheck(rows, rows, rows, [], [], [], [])
    assert check.relative and check.in_range and check.ok


def test_index_check_finds_the_radix_slips():
    # radix 2·Ww − 2: the last cell of each row meets the first of the next
    check = relative_index_check(radix_index(3, 4, 6), (3, 4))
    assert not check.relative and check.split == []
    assert check.shared[0] == (6, [(-2, 3), (-1, -3)]) and len(check.shared) == 4
    assert check.unused == [31, 32, 33, 34] and check.out_of_range == []
    # the height as radix: a wide window collides, a tall one overflows its table
    wide = relative_index_check(radix_index(3, 4, 2 * 3 - 1), (3, 4))
    assert not wide.relative and not wide.in_range
    tall = relative_index_check(radix_index(4, 3, 2 * 4 - 1), (4, 3))
    assert tall.relative and not tall.in_range and not tall.ok
    assert tall.table_rows == 35 and max(tall.out_of_range) == 46
    assert set(tall.unused) == set(range(35)) - {a * 7 + b for a in range(7) for b in range(5)}


def test_index_check_finds_the_seed_bugs():
    added = relative_index_check(seed_001_index_slice_fixed(7, 7), (7, 7))  # `+=` for `*=`
    assert (added.offsets, added.indices) == (169, 25) and not added.relative
    assert any({(-1, 0), (0, -1)} <= set(owners) for _, owners in added.shared)
    assert added.out_of_range == [] and len(added.unused) == 169 - 25
    # "xy" coordinates: a non-square window is not even relative ...
    oblong = relative_index_check(xy_index(2, 3), (2, 3))
    assert not oblong.relative and ((0, 1), [3, 12]) in oblong.split
    # ... a square one passes both properties, and only the official index tells it apart
    square = relative_index_check(xy_index(3, 3), (3, 3))
    assert square.ok and not torch.equal(xy_index(3, 3), swin_index(3, 3))
    true = offsets((3, 3))  # [N, N, 2], brute force
    swapped = (true[..., 1] + 2) * 5 + (true[..., 0] + 2)  # Swin's formula with Δr and Δc traded
    assert torch.equal(xy_index(3, 3), swapped)  # row and column offsets trade places


@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3), seed=st.integers(0, 2**16))
def test_index_check_relabelled_rows_pass_and_a_swapped_entry_fails(shape, seed):
    shape = tuple(shape)
    index = relative_position_index(shape)
    rows = relative_table_size(shape)
    generator = torch.Generator().manual_seed(seed)
    relabelled = torch.randperm(rows, generator=generator)[index]  # a consistent relabelling
    assert relative_index_check(relabelled, shape).ok
    if rows > 1:
        broken = index.clone()
        i, j = divmod(int(torch.randint(index.numel(), (1,), generator=generator)), index.shape[1])
        broken[i, j] = (broken[i, j] + 1) % rows  # one pair reads a neighbouring row
        assert not relative_index_check(broken, shape).relative


def test_index_check_errors_name_the_rule():
    with pytest.raises(ValueError, match=r"index must be \[6, 6\] for a 2x3 window"):
        relative_index_check(torch.zeros(4, 4, dtype=torch.long), (2, 3))
    with pytest.raises(TypeError, match="index must hold integers"):
        relative_index_check(torch.zeros(6, 6), (2, 3))
    with pytest.raises(TypeError, match="window_size must be a tuple of ints"):
        relative_index_check(torch.zeros(4, 4, dtype=torch.long), 2)
    with pytest.raises(ValueError, match="index must have 2 dimensions"):
        relative_index_check(torch.zeros(4, dtype=torch.long), (2, 2))


# ---------------------------------------------------------------------------------------------
# Strict inputs (issue 11): each bad argument is refused with a message naming it


@pytest.mark.parametrize(
    ("call", "error", "name"),
    [
        (lambda: frame_offset_counts(3, 2, True), TypeError, "key_step"),
        (lambda: rstt_key_frames(7, 0), ValueError, "key_frames"),
        (lambda: spread_key_step(True, 1), TypeError, "query_frames"),
        (
            lambda: relative_index_check(relative_position_index((2, 2)).to("meta"), (2, 2)),
            ValueError,
            "index",
        ),
    ],
)
def test_bad_arguments_are_refused_by_name(call, error, name):
    with pytest.raises(error) as info:
        call()
    assert name in str(info.value)
