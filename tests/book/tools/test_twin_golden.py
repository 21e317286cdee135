"""book.tools.twin_golden: the committed golden values are what posenc computes now.

``tests/data/posenc_twin_golden.json`` holds posenc's results for the cases that
``tests/browser/test_twin.py`` runs against the JavaScript twin (``book/ext/twin_static/
posenc.js``). If posenc changes, this test fails until the file is written again
(``python -m book.tools.twin_golden``), and then the browser test fails until the twin follows.
"""

from __future__ import annotations

import importlib
import json
import re
from typing import Any

import pytest

from book.tools import twin_golden as tg

TWIN_JS = tg.ROOT / "book" / "ext" / "twin_static" / "posenc.js"
REWRITE = "run `.venv/bin/python -m book.tools.twin_golden`, then make the twin follow"


@pytest.fixture(scope="module")
def committed() -> dict[str, list[dict[str, Any]]]:
    return json.loads(tg.GOLDEN_PATH.read_text(encoding="utf-8"))


def _differences(got: Any, want: Any, atol: float, path: str) -> list[str]:
    """Where ``got`` (fresh) departs from ``want`` (committed): shapes, kinds, and numbers
    beyond ``1e-12`` relative (``atol`` absolute near 0)."""
    if isinstance(want, dict):
        if not isinstance(got, dict) or sorted(got) != sorted(want):
            return [f"{path}: {got!r:.80} is not like {want!r:.80}"]
        return [d for k in want for d in _differences(got[k], want[k], atol, f"{path}.{k}")]
    if isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            return [f"{path}: {str(got)[:80]} has another shape than {str(want)[:80]}"]
        return [
            d for i, w in enumerate(want) for d in _differences(got[i], w, atol, f"{path}[{i}]")
        ]
    if isinstance(want, float) and isinstance(got, float):
        if abs(got - want) <= max(1e-12 * abs(want), atol):
            return []
    elif type(got) is type(want) and got == want:
        return []
    return [f"{path}: posenc now gives {got!r}, the file has {want!r}"]


def test_the_golden_file_is_what_posenc_computes_now(committed) -> None:
    fresh = tg.golden()
    assert list(committed) == list(fresh), f"the functions differ: {REWRITE}"
    problems: list[str] = []
    for name, cases in fresh.items():
        if len(cases) != len(committed[name]):
            problems.append(f"{name}: {len(cases)} cases now, {len(committed[name])} in the file")
            continue
        for i, (new, old) in enumerate(zip(cases, committed[name], strict=True)):
            where = f"{name}[{i}] {json.dumps(old['args'])[:60]}"
            if sorted(new) != sorted(old) or new["args"] != old["args"]:
                problems.append(f"{where}: the case changed")
            elif "throws" in old:
                if new["throws"] != old["throws"]:
                    problems.append(f"{where}: throws {new['throws']}, not {old['throws']}")
            else:
                atol = max(old.get("atol", 0.0), 1e-15)
                problems += _differences(new["expected"], old["expected"], atol, where)
    assert not problems, f"{REWRITE}:\n" + "\n".join(problems[:20])


def test_the_file_is_written_as_the_tool_writes_it(committed) -> None:
    text = tg.GOLDEN_PATH.read_text(encoding="utf-8")
    assert text == tg.serialise(committed), f"edited by hand? {REWRITE}"
    assert len(text.encode()) < 400 * 1024, "keep the golden cases small (under 400 KB)"


def test_every_twin_has_good_and_bad_cases_and_names_its_python_original(committed) -> None:
    source = TWIN_JS.read_text(encoding="utf-8")
    exported = re.search(r"window\.posenc = Object\.freeze\(\{(.*?)\}\);", source, re.DOTALL)
    assert exported, "posenc.js must end by freezing window.posenc"
    names = re.findall(r"^\s*(\w+):", exported.group(1), re.MULTILINE)
    assert names == list(tg.TWINS), "window.posenc's functions and TWINS must be the same list"
    for name, twin in tg.TWINS.items():
        cases = committed[name]
        assert any("expected" in c for c in cases), f"{name} has no golden value"
        assert any("throws" in c for c in cases), f"{name} has no bad input"
        assert f"Twin of `{twin.python}(" in source, f"{name}'s doc comment must name {twin.python}"
        module, _, function = twin.python.rpartition(".")
        assert callable(getattr(importlib.import_module(module), function)), twin.python


def test_bad_inputs_map_to_the_javascript_error_classes() -> None:
    assert tg.evaluate("alibiSlopes", [0], bad=True)["throws"] == "RangeError"
    assert tg.evaluate("alibiSlopes", [2.5], bad=True)["throws"] == "TypeError"
    with pytest.raises(AssertionError, match="accepts this bad input"):
        tg.evaluate("alibiSlopes", [4], bad=True)


def test_main_writes_the_file(tmp_path, capsys) -> None:
    path = tmp_path / "golden.json"
    assert tg.main([str(path)]) == 0
    assert json.loads(path.read_text(encoding="utf-8")).keys() == tg.TWINS.keys()
    assert f"{len(tg.TWINS)} functions" in capsys.readouterr().out
