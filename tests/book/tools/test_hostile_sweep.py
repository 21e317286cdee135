"""book.tools.hostile_sweep: every public name is swept, and no bad input gets through."""

from __future__ import annotations

import inspect
import math
import typing
from collections.abc import Sequence

import pytest
import torch
from matplotlib.figure import Figure

import posenc
from book.__main__ import main as book_main
from book.explorers.explorer import Explorer
from book.tools import hostile_sweep as hs
from book.tools.sweep_cases import ALLOWED, BASELINES, EXEMPT, HAND_CASES, NOT_GENERATED


@pytest.fixture(scope="module")
def sweep() -> hs.Sweep:
    return hs.build_sweep()


@pytest.fixture(scope="module")
def outcomes(sweep: hs.Sweep) -> list[hs.Outcome]:
    return hs.run_sweep(sweep)


# -- coverage ---------------------------------------------------------------------------------


def test_every_public_name_is_swept_or_exempt_and_every_table_entry_is_live(sweep) -> None:
    assert not sweep.broken, "\n".join(sweep.broken)
    assert not sweep.not_swept, (
        "public but not swept: give each a valid call in book/tools/sweep_cases.py BASELINES "
        "(or an EXEMPT entry with the reason):\n" + "\n".join(sweep.not_swept)
    )
    assert not sweep.stale, "\n".join(sweep.stale)
    assert all(why.strip() for why in EXEMPT.values())
    assert all(why.strip() for _, why in ALLOWED.values())


def test_the_targets_are_the_public_api(sweep) -> None:
    targets, _ = hs.find_targets()
    objects = {id(t.obj) for t in targets.values()}
    for name in posenc.__all__:
        assert id(getattr(posenc, name)) in objects, name
    kinds = {k.split(".")[1] for k in targets if k.startswith("book.")}
    assert kinds == {"figures", "explorers"}
    for key, target in targets.items():
        if key.startswith("book."):
            assert hs._returns(target.obj, hs.BOOK_RETURNS), key
    assert set(targets) <= set(sweep.targets)  # the sweep may go beyond: book.catalogue, ...
    # a module's forward is a target of its own, called on an instance
    forward = sweep.targets["posenc.attention.SelfAttention.forward"]
    assert forward.owner is posenc.SelfAttention


def test_a_new_public_name_without_a_baseline_is_reported(monkeypatch) -> None:
    import posenc.alibi

    def alibi_new_helper(n: int) -> int:
        return n

    monkeypatch.setattr(posenc.alibi, "alibi_new_helper", alibi_new_helper, raising=False)
    monkeypatch.setattr(posenc.alibi, "__all__", [*posenc.alibi.__all__, "alibi_new_helper"])
    monkeypatch.setitem(EXEMPT, "posenc.alibi.gone", "no longer public")
    sweep = hs.build_sweep(only="no target has this in its key")
    assert "posenc.alibi.alibi_new_helper" in sweep.not_swept
    assert any("posenc.alibi.gone" in line for line in sweep.stale)
    assert not sweep.cases


@pytest.mark.parametrize("key", sorted(BASELINES))
def test_each_baseline_call_succeeds(key: str, sweep) -> None:
    target = sweep.targets[key]
    for result in hs.run_baseline(target):
        if key.startswith("book.explorers."):
            assert isinstance(result, Explorer)
            assert isinstance(result.figure(), Figure)  # its first frame draws
        elif key.startswith("book.figures.") and hs._returns(target.obj, ("Figure",)):
            assert isinstance(result, Figure)


def test_every_swept_target_with_arguments_gets_cases(sweep) -> None:
    counts = {key: 0 for key in sweep.swept}
    for case in sweep.cases:
        counts[case.key] += 1
    bare = [k for k, n in counts.items() if n == 0 and hs.parameters(sweep.targets[k])]
    assert not bare, bare
    # every parameter gets bad values, but those whose type is left to torch (a device)
    swept_args = {(case.key, case.arg) for case in sweep.cases}
    unswept = [
        f"{key}({param.name}: {param.annotation})"
        for key in sorted(sweep.swept)
        for param in hs.parameters(sweep.targets[key])
        if (key, param.name) not in swept_args
        and not any(
            m is kind
            for m in hs.split_optional(
                hs.parameter_hints(sweep.targets[key].obj).get(param.name, object)
            )[0]
            for kind in NOT_GENERATED
        )
    ]
    assert not unswept, unswept
    assert sum(c.source == "hand" for c in sweep.cases) == len(HAND_CASES)


# -- outcomes ---------------------------------------------------------------------------------


def test_the_sweep_finds_nothing_silent_or_unclear(outcomes) -> None:
    bad = [o for o in outcomes if o.kind in ("silent", "unclear")]
    assert not bad, "(python -m book sweep --list lists them)\n" + "\n".join(
        f"{o.kind}: {o.case.arg} = {o.case.label}: {o.case.describe()} -> {o.detail[:160]}"
        for o in bad
    )
    assert sum(o.kind == "clear" for o in outcomes) > 2500  # the generator made its values


def test_every_hand_case_is_refused_clearly(outcomes) -> None:
    hand = [o for o in outcomes if o.case.source == "hand"]
    assert hand and all(o.kind == "clear" for o in hand), [
        (o.kind, o.case.describe(), o.detail[:160]) for o in hand if o.kind != "clear"
    ]


# -- values from annotations ------------------------------------------------------------------


def labels(hint: object, example: object = None) -> list[str]:
    return [label for label, _ in hs.hostile_values(hint, example)]


def test_scalars_get_the_values_their_type_refuses() -> None:
    assert labels(int, 4) == ["True", "2.5", "'3'", "0", "-1", "None"]
    assert labels(bool, True) == ["1", "0", "'False'", "None"]
    assert labels(float, 2.0)[:3] == ["nan", "inf", "'1.0'"]
    assert labels(typing.Literal["a", "b"], "a") == ["'nonsense'", "3", "None"]
    assert "None" not in labels(int | None, 4)  # optional: None is valid
    assert labels(torch.device | str | None) == []  # torch checks devices itself


def test_a_union_keeps_only_what_no_member_accepts() -> None:
    values = dict(hs.hostile_values(int | tuple[int, int], (4, 5)))
    assert "'3'" in values and "a bare entry" not in values  # 4 alone is a valid int
    assert values["one entry more"] == (4, 5, 5) and values["(-1, ...)"] == (-1, 5)
    assert "3" not in labels(str | int, "middle")  # an int is valid there


def test_a_sequence_gets_a_bad_entry_and_a_tensor_another_dtype_and_rank() -> None:
    values = dict(hs.hostile_values(Sequence[int], (2, 3)))
    assert values["(True, ...)"] == (True, 3) and values["'ab'"] == "ab" and values["()"] == ()
    assert "(2, ...)" not in values  # the valid value itself is never a bad one
    x = torch.zeros(2, 3)
    values = dict(hs.hostile_values(torch.Tensor, x))
    assert values["int64 tensor"].dtype == torch.int64
    assert values["wrong ndim"].shape == (6,)
    assert values["a list"] == x.tolist() and values["None"] is None
    nan = dict(hs.named_values("positions", torch.Tensor | int, x))["a NaN entry"]
    assert math.isnan(nan[0, 0])


def test_a_message_names_the_argument_as_a_word() -> None:
    assert hs.names("dims[0] must be an integer", "dims")
    assert not hs.names("dimension must be even", "dim")
    assert hs.names("state dict entry 'rel_k' has shape", "rel_k")


# -- the command ------------------------------------------------------------------------------


def test_the_command_counts_outcomes_per_area_and_lists_them(capsys) -> None:
    assert book_main(["sweep", "--only", "posenc.alibi.alibi_slopes", "--list"]) == 0
    out = capsys.readouterr().out
    assert "posenc: " in out and "silent (0):" in out and "unclear (0):" in out
    counts = dict(line.split()[:2] for line in out.splitlines() if line.startswith("  clear"))
    assert int(counts["clear"]) >= 5
    assert inspect.signature(hs.main).parameters["argv"].default is None
