"""Throw bad inputs at the public API and classify what happens (issue 11).

Each call takes a valid call and replaces one argument with a bad value. The outcome is:

* ``clear``: a ``ValueError`` or ``TypeError`` whose message names the argument;
* ``unclear``: any other exception, or a ``ValueError``/``TypeError`` that does not name it;
* ``silent``: the call returned, although the value is bad;
* ``allowed``: a generated value that :data:`~book.tools.sweep_cases.ALLOWED` declares valid
  for that argument (with the reason) returned, as it should.

The calls are generated, not listed. The targets are every name in the ``__all__`` of a
public ``posenc`` module (and the ``forward`` of each ``nn.Module`` among them; a constant, an
alias or a protocol must be exempt, with its reason), and every function of a
``book.figures.*`` or ``book.explorers.*`` module's ``__all__`` that returns a ``Figure`` or
an ``Explorer`` (:func:`find_targets`). For each parameter, the bad values
come from its annotation (:func:`hostile_values`: an ``int`` gets ``True``, ``2.5``, ``"3"``,
``0`` and ``-1``; a tensor a list, another dtype and another rank; ...), each put into the
target's valid example call (:data:`~book.tools.sweep_cases.BASELINES`). Hand-written cases
(:data:`~book.tools.sweep_cases.HAND_CASES`) cover only the rules a signature cannot say:
two tensors that disagree, a state dict of other sizes, ... A target with neither a baseline
nor an entry in :data:`~book.tools.sweep_cases.EXEMPT` is reported as not swept.

Usage::

    .venv/bin/python -m book sweep            # counts per outcome and per area
    .venv/bin/python -m book sweep --list     # also every unclear and silent call
    .venv/bin/python -m book sweep --only posenc.rotary   # the targets whose key has this
"""

from __future__ import annotations

import argparse
import collections.abc as cabc
import importlib
import inspect
import os
import pkgutil
import re
import signal
import sys
import types
import typing
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import torch
from torch import Tensor, nn

from book.tools.sweep_cases import (
    ALLOWED,
    BASELINES,
    EXEMPT,
    HAND_CASES,
    NAMED_RULES,
    NOT_GENERATED,
    HandCase,
)

__all__ = [
    "Case",
    "Outcome",
    "Sweep",
    "Target",
    "build_sweep",
    "classify",
    "find_targets",
    "hand_case",
    "hostile_values",
    "main",
    "run_baseline",
    "run_sweep",
]

NAN, INF = float("nan"), float("inf")
BAD, VALID = "bad", "valid"  # what a case expects
KINDS = ("clear", "unclear", "silent", "allowed")
TIMEOUT_S = 20
LIBRARY = "posenc"
BOOK_PACKAGES = ("book.figures", "book.explorers")
BOOK_RETURNS = ("Figure", "Explorer")


# ---------------------------------------------------------------------------------------------
# Targets: what is public, found by walking the packages


@dataclass(frozen=True)
class Target:
    """One public callable to sweep.

    ``key`` is its dotted name in the module that makes it public
    (``posenc.attention.attention_weights``; ``posenc.attention.SelfAttention.forward`` for a
    module's forward, called on an instance built from the class's baseline).
    """

    key: str
    obj: Callable[..., object]
    owner: type | None = None  # the class whose instance ``obj`` (a method) is called on

    def call(self, kwargs: dict[str, object], owner_kwargs: dict[str, object]) -> object:
        """Call the target with ``kwargs`` (a method: on a new instance of its class)."""
        torch.manual_seed(0)
        if self.owner is None:
            return self.obj(**kwargs)
        return getattr(self.owner(**owner_kwargs), self.obj.__name__)(**kwargs)


def public_modules(
    package: str, *, include_package: bool
) -> tuple[list[types.ModuleType], list[str]]:
    """The modules of ``package`` with no ``_`` in their dotted names, and import failures."""
    modules, broken = [], []
    try:
        pkg = importlib.import_module(package)
    except Exception as error:  # noqa: BLE001 (report it, go on)
        return [], [f"{package}: {type(error).__name__}: {error}"]
    if include_package:
        modules.append(pkg)
    for info in pkgutil.walk_packages(pkg.__path__, package + "."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        try:
            modules.append(importlib.import_module(info.name))
        except Exception as error:  # noqa: BLE001 (report it, go on)
            broken.append(f"{info.name}: {type(error).__name__}: {error}")
    return modules, broken


def _forward(cls: type) -> Callable[..., object] | None:
    """The ``forward`` of an ``nn.Module`` class when it takes arguments, else ``None``."""
    if not (issubclass(cls, nn.Module) and cls.forward is not nn.Module.forward):
        return None
    params = list(inspect.signature(cls.forward).parameters.values())[1:]
    return cls.forward if params else None


def _returns(fn: Callable[..., object], names: tuple[str, ...]) -> bool:
    """Whether ``fn``'s return annotation is one of the classes ``names``."""
    annotation = inspect.signature(fn).return_annotation
    if isinstance(annotation, str):
        return annotation.rsplit(".", 1)[-1] in names
    return getattr(annotation, "__name__", None) in names


def find_targets() -> tuple[dict[str, Target], list[str]]:
    """Every public target by key, and the modules that failed to import.

    In ``posenc``, every name of a public module's ``__all__`` is a target, a constant or a
    type alias too (it must be exempt, with its reason); in ``book.figures`` and
    ``book.explorers``, every function of an ``__all__`` that returns a ``Figure`` or an
    ``Explorer``.
    """
    listed: list[tuple[str, str, object]] = []  # (module, name, object)
    modules, broken = public_modules(LIBRARY, include_package=True)
    for module in modules:
        listed += [(module.__name__, n, getattr(module, n, None)) for n in module.__all__]
    for package in BOOK_PACKAGES:
        modules, failed = public_modules(package, include_package=False)
        broken += failed
        for module in modules:
            for name in getattr(module, "__all__", ()):
                obj = getattr(module, name, None)
                if inspect.isfunction(obj) and _returns(obj, BOOK_RETURNS):
                    listed.append((module.__name__, name, obj))
    found: dict[tuple[int, str], list[tuple[str, object]]] = {}
    for module, name, obj in listed:  # a re-export is the same object under the same name
        found.setdefault((id(obj), name), []).append((module, obj))
    targets: dict[str, Target] = {}
    for (_, name), entries in found.items():
        obj = entries[0][1]
        # the module that defines it, else the deepest module that lists it
        home = [m for m, _ in entries if m == getattr(obj, "__module__", None)]
        key = f"{home[0] if home else max((m for m, _ in entries), key=lambda m: m.count('.'))}.{name}"
        targets[key] = Target(key, obj)
        if inspect.isclass(obj) and (forward := _forward(obj)) is not None:
            targets[f"{key}.forward"] = Target(f"{key}.forward", forward, owner=obj)
    return dict(sorted(targets.items())), broken


def resolve(key: str) -> Target | None:
    """The target a dotted key names (a function, class or a class's method), or ``None``."""
    parts = key.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        owner = None
        for i, part in enumerate(parts[cut:]):
            if i == 0 and part not in getattr(obj, "__all__", ()):
                return None  # not public
            owner = obj if inspect.isclass(obj) else None
            obj = getattr(obj, part, None)
            if obj is None:
                return None
        return Target(key, obj, owner=owner)
    return None


# ---------------------------------------------------------------------------------------------
# Bad values from annotations


def parameter_hints(fn: Callable[..., object]) -> dict[str, object]:
    """``fn``'s annotations as objects; one that cannot be evaluated stays a string."""
    target = fn.__init__ if inspect.isclass(fn) else fn
    try:
        return typing.get_type_hints(target)
    except Exception:  # noqa: BLE001, S110 (a name imported only for type checkers)
        pass  # evaluate them one at a time below
    namespace = dict(getattr(inspect.unwrap(target), "__globals__", {}))
    hints: dict[str, object] = {}
    for name, annotation in getattr(target, "__annotations__", {}).items():
        try:
            hints[name] = eval(annotation, namespace) if isinstance(annotation, str) else annotation
        except Exception:  # noqa: BLE001 (unknown: no values derived from it)
            hints[name] = annotation
    return hints


def split_optional(hint: object) -> tuple[list[object], bool]:
    """The members of a union (a lone type: itself), without ``None``; and whether it had it."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        members = list(typing.get_args(hint))
    else:
        members = [hint]
    optional = any(m is type(None) or m is None for m in members)
    return [m for m in members if m is not type(None) and m is not None], optional


def _is_sequence(hint: object) -> bool:
    origin = typing.get_origin(hint)
    return origin in (cabc.Sequence, list, tuple) or hint in (cabc.Sequence, list, tuple)


def _is_mapping(hint: object) -> bool:
    origin = typing.get_origin(hint)
    return origin in (cabc.Mapping, dict) or hint in (cabc.Mapping, dict)


def _element_hints(hint: object) -> tuple[list[object], bool]:
    """The element types of a sequence hint; ``True`` when its length is fixed (a tuple)."""
    args = list(typing.get_args(hint))
    if typing.get_origin(hint) is tuple and args and args[-1] is not Ellipsis:
        return args, True
    return args[:1] or [object], False


def fits(value: object, hint: object) -> bool:
    """Whether ``value`` has the type ``hint`` describes (shallow for tensors, deep for
    sequences; ``bool`` is not an ``int``, an ``int`` is a ``float``)."""
    members, optional = split_optional(hint)
    if value is None:
        return optional
    if len(members) > 1:
        return any(fits(value, m) for m in members)
    hint = members[0]
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if typing.get_origin(hint) is typing.Literal:
        return any(type(value) is type(c) and value == c for c in typing.get_args(hint))
    if _is_sequence(hint):
        if isinstance(value, (str, bytes)) or not isinstance(value, cabc.Sequence):
            return False
        elements, fixed = _element_hints(hint)
        if fixed:
            return len(value) == len(elements) and all(map(fits, value, elements))
        return all(fits(v, elements[0]) for v in value)
    if _is_mapping(hint):
        return isinstance(value, cabc.Mapping)
    if typing.get_origin(hint) is cabc.Callable or hint is cabc.Callable:
        return callable(value)
    if hint in (object, typing.Any):
        return True
    if isinstance(hint, type):
        return isinstance(value, hint)
    return False


def same(value: object, example: object) -> bool:
    """Whether a generated value is the valid one itself (``(0, 2)`` made from ``(0, 2)``)."""
    if isinstance(value, Tensor) or isinstance(example, Tensor):
        return False  # derived from the example, never equal to it
    return type(value) is type(example) and value == example


def _wrong_rank(v: Tensor) -> Tensor:
    return v.reshape(-1) if v.ndim > 1 else v[None, None]


def tensor_values(example: object) -> list[tuple[str, object]]:
    """Bad values for a tensor argument, derived from its valid value when there is one."""
    if not isinstance(example, Tensor):
        return [("a list", [1.0, 2.0]), ("'abc'", "abc")]
    v = example
    out: list[tuple[str, object]] = [("a list", v.tolist()), ("a numpy array", v.numpy())]
    if v.is_floating_point():
        out += [
            ("int64 tensor", v.round().long()),
            ("bool tensor", v > 0),
            ("complex tensor", v.to(torch.complex64)),
        ]
    elif v.dtype == torch.bool:
        out += [("float tensor", v.float()), ("int64 tensor", v.long())]
    else:
        out += [
            ("float tensor", v.double() + 0.5),
            ("bool tensor", v > 0),
            ("complex tensor", v.to(torch.complex64)),
        ]
    return out + [("wrong ndim", _wrong_rank(v))]


def sequence_values(hint: object, example: object) -> list[tuple[str, object]]:
    """Bad values for a sequence: not one, empty, or with one bad entry (from its type)."""
    elements, fixed = _element_hints(hint)
    ok = isinstance(example, cabc.Sequence) and not isinstance(example, str) and len(example)
    sample = list(example) if ok else []
    out: list[tuple[str, object]] = [("'ab'", "ab"), ("()", ())]
    if sample and not isinstance(sample[0], str):
        out.append(("a bare entry", sample[0]))
    first = sample[0] if sample else None
    for label, bad in hostile_values(elements[0], first, nested=True):
        out.append((f"({label}, ...)", (bad, *sample[1:])))
    if fixed and sample:
        out += [("one entry more", (*sample, sample[-1])), ("one entry fewer", tuple(sample[:-1]))]
    return out


def member_values(hint: object, example: object, nested: bool) -> list[tuple[str, object]]:
    """Bad values for one member of an annotation (not a union)."""
    if hint is bool:
        return [("1", 1), ("0", 0), ("'False'", "False")]
    if hint is int:
        return [("True", True), ("2.5", 2.5), ("'3'", "3"), ("0", 0), ("-1", -1)]
    if hint is float:
        return [
            ("nan", NAN),
            ("inf", INF),
            ("'1.0'", "1.0"),
            ("True", True),
            ("0.0", 0.0),
            ("-1.0", -1.0),
        ]
    if hint is str or typing.get_origin(hint) is typing.Literal:
        return [("'nonsense'", "nonsense"), ("3", 3)]
    if hint is torch.dtype:
        return [("torch.int64", torch.int64), ("torch.bool", torch.bool), ("'float32'", "float32")]
    if hint is Tensor:
        return tensor_values(example)
    if _is_sequence(hint):
        return [] if nested and not example else sequence_values(hint, example)
    if _is_mapping(hint):
        items = list(example.items()) if isinstance(example, cabc.Mapping) else [("a", 1)]
        return [("a list of pairs", items), ("'ab'", "ab")]
    if typing.get_origin(hint) is cabc.Callable or hint is cabc.Callable:
        return [("3", 3), ("'nonsense'", "nonsense")]
    if isinstance(hint, type) and hint not in (object,):
        return [("'nonsense'", "nonsense"), ("3", 3)]
    return []  # Any, an unresolved name: nothing to derive


def hostile_values(
    hint: object, example: object, *, nested: bool = False
) -> list[tuple[str, object]]:
    """Bad values of the type ``hint`` (``example``: a valid value, to derive them from).

    A union gets each member's bad values that fit no other member; ``None`` is bad unless
    the hint is optional. A hint with a member in
    :data:`~book.tools.sweep_cases.NOT_GENERATED` (``torch.device``) gets none.
    """
    members, optional = split_optional(hint)
    if any(m is kind for m in members for kind in NOT_GENERATED):
        return []
    out: dict[str, object] = {}
    for member in members:
        sample = example if fits(example, member) else None
        for label, value in member_values(member, sample, nested):
            others = [m for m in members if m is not member]
            if label in out or same(value, example) or any(fits(value, m) for m in others):
                continue
            out[label] = value
    if not optional and members and not nested:
        out["None"] = None
    return list(out.items())


# ---------------------------------------------------------------------------------------------
# Cases


@dataclass
class Case:
    """One call with one bad argument."""

    key: str  # the target
    arg: str  # the argument replaced; a clear message names it
    label: str  # the bad value, briefly
    expect: str  # BAD (must be refused) or VALID (allowed for this argument: may work)
    run: Callable[[], object]
    source: str = "generated"  # or "hand"
    kwargs: dict[str, object] | None = None  # the call's arguments, for the listing

    def describe(self) -> str:
        """The call, for a person to rerun: every argument, tensors by dtype and shape."""
        if self.kwargs is None:
            return self.key  # a hand-written call of its own: its label says what it does
        args = ", ".join(f"{k}={_short(v)}" for k, v in self.kwargs.items())
        return f"{self.key}({args})"

    @property
    def area(self) -> str:
        """``posenc``, ``book.figures``, ``book.explorers`` or another ``book`` package."""
        parts = self.key.split(".")
        return parts[0] if parts[0] == LIBRARY else ".".join(parts[:2])


def _short(value: object, width: int = 60) -> str:
    """``value`` briefly: a tensor by dtype and shape, a model or a record by its type."""
    if isinstance(value, Tensor):
        return f"<{str(value.dtype).removeprefix('torch.')} tensor {tuple(value.shape)}>"
    if isinstance(value, cabc.Mapping):
        text = "{" + ", ".join(f"{k!r}: {_short(v, width)}" for k, v in value.items()) + "}"
    elif isinstance(value, nn.Module) or hasattr(type(value), "__dataclass_fields__"):
        return f"<{type(value).__name__}>"
    else:
        text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


@dataclass
class Outcome:
    """What one case did."""

    case: Case
    kind: str  # clear / unclear / silent / allowed
    detail: str = ""


@dataclass
class Sweep:
    """The cases, and what kept the sweep from covering everything."""

    targets: dict[str, Target] = field(default_factory=dict)
    cases: list[Case] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)  # imports or baselines that failed
    not_swept: list[str] = field(default_factory=list)  # targets with no baseline, not exempt
    stale: list[str] = field(default_factory=list)  # table entries naming nothing public
    swept: set[str] = field(default_factory=set)


def examples_of(key: str) -> list[dict[str, object]]:
    """The valid example calls of ``key`` (fresh tensors each time)."""
    made = BASELINES[key]()
    return [dict(e) for e in (made if isinstance(made, list) else [made])]


def owner_kwargs(target: Target) -> dict[str, object]:
    """The constructor arguments of a method's class: its class's first baseline."""
    if target.owner is None:
        return {}
    return examples_of(target.key.rsplit(".", 1)[0])[0]


def run_baseline(target: Target) -> list[object]:
    """Call every example of ``target``; return the results (an error propagates)."""
    owner = owner_kwargs(target)
    return [target.call(example, owner) for example in examples_of(target.key)]


def named_values(
    name: str, hint: object, example: object, used: set[str] | None = None
) -> list[tuple[str, object]]:
    """The extra bad values :data:`~book.tools.sweep_cases.NAMED_RULES` gives ``name``
    (the patterns that applied are added to ``used``)."""
    out = []
    for pattern, rule in NAMED_RULES.items():
        if re.fullmatch(pattern, name) and rule.applies(hint, example):
            out += rule.values(example)
            if used is not None:
                used.add(pattern)
    return out


def allowance(key: str, arg: str, label: str) -> str | None:
    """The :data:`~book.tools.sweep_cases.ALLOWED` entry that makes ``label`` valid, if any."""
    for entry in (f"{key}:{arg}", f"*:{arg}"):
        labels, _why = ALLOWED.get(entry, ((), ""))
        if label in labels:
            return entry
    return None


def parameters(target: Target) -> list[inspect.Parameter]:
    """The parameters a caller passes (no ``self``, ``*args``, ``**kwargs``)."""
    params = list(inspect.signature(target.obj).parameters.values())
    if target.owner is not None:
        params = params[1:]
    skip = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    return [p for p in params if p.kind not in skip]


def generated_cases(target: Target, used: set[str]) -> list[Case]:
    """One case per bad value of each parameter, in the first example that gives it.

    ``used`` collects the :data:`~book.tools.sweep_cases.ALLOWED` entries and
    :data:`~book.tools.sweep_cases.NAMED_RULES` patterns that applied.
    """
    examples = examples_of(target.key)
    owner = owner_kwargs(target)
    hints = parameter_hints(target.obj)
    cases = []
    for param in parameters(target):
        base = next((e for e in examples if param.name in e), examples[0])
        example = base.get(param.name, None if param.default is param.empty else param.default)
        hint = hints.get(param.name, object)
        values = dict(hostile_values(hint, example))
        values.update(named_values(param.name, hint, example, used))
        for label, value in values.items():
            entry = allowance(target.key, param.name, label)
            if entry:
                used.add(entry)
            kwargs = dict(base, **{param.name: value})
            cases.append(
                Case(
                    target.key,
                    param.name,
                    label,
                    VALID if entry else BAD,
                    lambda t=target, kw=kwargs, o=owner: t.call(kw, o),
                    kwargs=kwargs,
                )
            )
    return cases


def hand_case(hand: HandCase, target: Target) -> Case:
    """The case of a hand-written entry of :data:`~book.tools.sweep_cases.HAND_CASES`."""
    if hand.call is not None:
        call = hand.call
        return Case(hand.key, hand.arg, hand.label, BAD, lambda: call(target.obj), source="hand")
    if hand.change is None:
        raise ValueError(f"hand case {hand.key} ({hand.label}) needs change or call")
    base = examples_of(hand.key)[0]
    kwargs = dict(base, **hand.change(base))
    owner = owner_kwargs(target)
    return Case(
        hand.key,
        hand.arg,
        hand.label,
        BAD,
        lambda: target.call(kwargs, owner),
        source="hand",
        kwargs=kwargs,
    )


def build_sweep(only: str = "") -> Sweep:
    """Find the targets, check the tables against them and build every case."""
    sweep = Sweep()
    sweep.targets, sweep.broken = find_targets()
    for key in BASELINES:
        if key not in sweep.targets:
            target = resolve(key)
            if target is None:
                sweep.stale.append(f"BASELINES[{key!r}]: not public (removed or renamed?)")
            else:
                sweep.targets[key] = target  # swept beyond the required targets
    for key, why in EXEMPT.items():
        if key not in sweep.targets:
            sweep.stale.append(f"EXEMPT[{key!r}] ({why}): not public any more")
        elif key in BASELINES:
            sweep.stale.append(f"EXEMPT[{key!r}]: has a baseline too")
    sweep.not_swept = [k for k in sweep.targets if k not in BASELINES and k not in EXEMPT]
    used: set[str] = set()
    for key, target in sweep.targets.items():
        if key not in BASELINES or only not in key:
            continue
        try:
            sweep.cases += generated_cases(target, used)
            sweep.swept.add(key)
        except Exception as error:  # noqa: BLE001 (a stale baseline: report it, go on)
            sweep.broken.append(f"{key}: baseline: {type(error).__name__}: {error}")
    for hand in HAND_CASES:
        if hand.key not in sweep.targets:
            sweep.stale.append(f"HAND_CASES {hand.key} ({hand.label}): not public any more")
        elif only in hand.key:
            target = sweep.targets[hand.key]
            sweep.cases.append(hand_case(hand, target))
    if not only:
        for entry in [*ALLOWED, *NAMED_RULES]:
            if entry not in used:
                table = "ALLOWED" if entry in ALLOWED else "NAMED_RULES"
                sweep.stale.append(f"{table}[{entry!r}]: matches no generated value")
    return sweep


# ---------------------------------------------------------------------------------------------
# Running and classifying


class Timeout(Exception):
    """A call that did not return within :data:`TIMEOUT_S`."""


def _alarm(signum: int, frame: object) -> None:
    raise Timeout(f"no answer within {TIMEOUT_S} s")


def names(message: str, arg: str) -> bool:
    """Whether ``message`` names the argument ``arg`` (as a word: ``arg[0]`` counts)."""
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(arg)}(?![A-Za-z0-9_])", message) is not None


def classify(case: Case) -> Outcome:
    """Run ``case`` and say how it ended."""
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIMEOUT_S)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = case.run()
    except (ValueError, TypeError) as error:
        kind = "clear" if names(str(error), case.arg) else "unclear"
        return Outcome(case, kind, f"{type(error).__name__}: {error}")
    except Exception as error:  # noqa: BLE001 (classifying is the point)
        return Outcome(case, "unclear", f"{type(error).__name__}: {str(error)[:200]}")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        _close_figures()
    del result
    return Outcome(case, "silent" if case.expect == BAD else "allowed")


def _close_figures() -> None:
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")


def run_sweep(sweep: Sweep) -> list[Outcome]:
    """Classify every case of ``sweep``, one thread."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return [classify(case) for case in sweep.cases]
    finally:
        torch.set_num_threads(threads)


def iter_report(sweep: Sweep, outcomes: list[Outcome], listing: bool) -> Iterator[str]:
    """The lines ``python -m book sweep`` prints."""
    counts = Counter(o.kind for o in outcomes)
    hand = sum(1 for o in outcomes if o.case.source == "hand")
    yield f"posenc from {os.path.dirname(importlib.import_module(LIBRARY).__file__ or '')}"
    yield (
        f"{len(sweep.targets)} targets: {len(sweep.swept)} swept, {len(EXEMPT)} exempt, "
        f"{len(sweep.not_swept)} not swept"
    )
    yield (
        f"{len(outcomes)} calls ({len(outcomes) - hand} generated, {hand} hand-written of "
        f"{len(HAND_CASES)})"
    )
    for kind in KINDS:
        share = counts[kind] / max(len(outcomes), 1)
        yield f"  {kind:8s} {counts[kind]:5d}  ({share:.0%})"
    by_area = Counter((o.case.area, o.kind) for o in outcomes)
    for area in sorted({o.case.area for o in outcomes}):
        parts = ", ".join(f"{k} {by_area[area, k]}" for k in KINDS)
        yield f"  {area}: {sum(by_area[area, k] for k in KINDS)} calls: {parts}"
    for title, lines in (
        ("could not be built (import or baseline failed)", sweep.broken),
        ("public, neither swept nor exempt (add it to sweep_cases.BASELINES or EXEMPT)",
         sweep.not_swept),
        ("table entries that name nothing public or match nothing", sweep.stale),
    ):  # fmt: skip
        if lines:
            yield f"\n{len(lines)} {title}:"
            yield from (f"  {line}" for line in lines)
    if listing:
        for kind in ("silent", "unclear"):
            chosen = [o for o in outcomes if o.kind == kind]
            yield f"\n{kind} ({len(chosen)}):"
            for o in chosen:
                c = o.case
                detail = " ".join(o.detail.split())[:160]
                detail = f"\n      -> {detail}" if detail else ""
                yield f"  {c.arg} = {c.label}: {c.describe()}{detail}"
    else:
        yield "\n(--list prints every unclear and silent call)"


def main(argv: list[str] | None = None) -> int:
    """``python -m book sweep [--list] [--only TEXT]``; 1 when anything is not clear."""
    parser = argparse.ArgumentParser(
        prog="python -m book sweep", description=(__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument("--list", action="store_true", help="list every unclear and silent call")
    parser.add_argument("--only", default="", help="only the targets whose key has this text")
    args = parser.parse_args(argv)
    sweep = build_sweep(args.only)
    outcomes = run_sweep(sweep)
    for line in iter_report(sweep, outcomes, args.list):
        print(line)
    failed = any(o.kind in ("silent", "unclear") for o in outcomes)
    incomplete = sweep.broken or sweep.stale or (sweep.not_swept and not args.only)
    return 1 if failed or incomplete else 0


if __name__ == "__main__":
    sys.exit(main())
