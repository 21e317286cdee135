"""The README's "Using posenc in your own model" stays true: its table lists exactly posenc's
namespace, and its example runs."""

import importlib
import re
from pathlib import Path

import posenc

README = Path(__file__).resolve().parents[2] / "README.md"


def section() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("## Using posenc in your own model")
    return text[start : text.index("\n## ", start + 1)]


def test_the_table_lists_exactly_the_namespace():
    rows = [line for line in section().splitlines() if line.startswith("| ") and "`" in line]
    listed = [name for row in rows for name in re.findall(r"`(\w+)`", row.split("|")[2])]
    assert len(listed) == len(set(listed)), "a name is listed twice"
    assert set(listed) == set(posenc.__all__)


def test_the_table_names_each_name_with_its_module():
    for row in section().splitlines():
        if not row.startswith("| ") or "(`posenc." not in row:
            continue
        module = re.search(r"\(`(posenc\.\w+)`\)", row).group(1)
        for name in re.findall(r"`(\w+)`", row.split("|")[2]):
            where = importlib.import_module(module)
            assert getattr(where, name) is getattr(posenc, name), f"{name} is not from {module}"


def test_the_example_runs():
    code = re.search(r"```python\n(.*?)```", section(), re.DOTALL).group(1)
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)  # noqa: S102 - the README's own example
    assert tuple(namespace["pe"].shape) == (128, 64)
    assert tuple(namespace["y"].shape) == (8, 100, 64)
