"""The import graph of posenc and book has no cycle and never imports upwards.

Every import is read with ``ast``, the ones inside functions too, from the files themselves (no
module is imported). An import of ``a.b.c`` also runs the packages ``a`` and ``a.b`` (their
``__init__``), so it counts as an import of them too, except the packages that hold the
importing module: those are already being imported when it runs.

:data:`LAYERS` is the one declaration of the order, lowest first. A module may import from its
own layer and from any layer below; within a layer the graph must still be free of cycles.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("posenc", "book")

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("posenc's checks and helpers", ("posenc._checks", "posenc._buffers", "posenc._threads")),
    ("plain attention", ("posenc.attention",)),
    (
        "encoding families",
        (
            "posenc.numeric",
            "posenc.sinusoidal",
            "posenc.learned",
            "posenc.absolute_2d",
            "posenc.shaw",
            "posenc.window",
            "posenc.window_v2",
            "posenc.rotary",
            "posenc.rotary_nd",
            "posenc.alibi",
            "posenc.t5",
        ),
    ),
    ("posenc's namespace", ("posenc",)),
    ("the book's namespace and its own checks", ("book", "book._checks", "book.glue")),
    ("the toy Transformer and the demos", ("book.toy", "book.demos")),
    ("the catalogue of encodings", ("book.catalogue",)),
    ("the experiments", ("book.experiments",)),
    ("figures", ("book.figures",)),
    ("explorers", ("book.explorers",)),
    ("Sphinx extensions and tools", ("book.ext", "book.tools", "book.__main__")),
)
"""(name, module prefixes) from the bottom up; a module belongs to its longest prefix."""


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the two packages, by dotted name."""
    return {
        module_name(path, root): path
        for package in PACKAGES
        for path in sorted((root / package).rglob("*.py"))
        if "__pycache__" not in path.parts
    }


MODULES = source_modules()


def layer_of(module: str) -> int:
    """The index in :data:`LAYERS` of the longest prefix that holds ``module``."""
    best, best_len = -1, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = index, len(prefix)
    return best


def _parents(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def imports_of(module: str, path: Path, known: Iterable[str]) -> set[str]:
    """The modules of the two packages that ``module`` imports, anywhere in its file."""
    known = set(known)
    is_package = path.name == "__init__.py"
    package = module.split(".") if is_package else module.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            targets = [stem] + [f"{stem}.{alias.name}" for alias in node.names]
        for target in targets:
            if target not in known:
                continue
            found.add(target)
            found.update(p for p in _parents(target) if p in known)
    # the packages that hold this module are already being imported when it runs
    return found - set(_parents(module)) - {module}


def import_graph(modules: dict[str, Path] = MODULES) -> dict[str, set[str]]:
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def upward_imports(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """(importer, imported) pairs where the imported module sits in a higher layer."""
    return sorted(
        (module, target)
        for module, targets in graph.items()
        for target in targets
        if layer_of(target) > layer_of(module)
    )


GRAPH = import_graph()


@pytest.mark.parametrize("module", sorted(MODULES))
def test_every_module_has_a_layer(module: str) -> None:
    assert layer_of(module) >= 0, f"{module} is in no layer of LAYERS: add it where it belongs"


def test_no_layer_prefix_names_a_missing_module() -> None:
    prefixes = [prefix for _, group in LAYERS for prefix in group]
    missing = [prefix for prefix in prefixes if prefix not in MODULES]
    assert not missing, f"LAYERS names modules that do not exist: {missing}"


def test_the_import_graph_has_no_cycle() -> None:
    assert cycles(GRAPH) == []


def test_no_module_imports_from_a_higher_layer() -> None:
    upward = [
        f"{a} ({LAYERS[layer_of(a)][0]}) imports {b} ({LAYERS[layer_of(b)][0]})"
        for a, b in upward_imports(GRAPH)
    ]
    assert upward == []


def test_posenc_never_imports_the_book() -> None:
    leaks = sorted(
        (a, b)
        for a, targets in GRAPH.items()
        for b in targets
        if a.startswith("posenc") and b.startswith("book")
    )
    assert leaks == []


def test_the_checker_sees_imports_inside_functions_and_relative_ones(tmp_path: Path) -> None:
    """The walk finds a late import in a function body, and a cycle and an upward import made
    that way (the very loop the catalogue and the toy once had)."""
    (tmp_path / "book" / "toy").mkdir(parents=True)
    (tmp_path / "book" / "__init__.py").write_text("")
    (tmp_path / "book" / "toy" / "__init__.py").write_text("from .model import Tiny\n")
    (tmp_path / "book" / "toy" / "model.py").write_text(
        "def build():\n    from ..catalogue import ENTRIES\n    return ENTRIES\n"
    )
    (tmp_path / "book" / "catalogue.py").write_text("from book.toy.model import build\n")
    (tmp_path / "posenc").mkdir()
    (tmp_path / "posenc" / "__init__.py").write_text("")
    modules = source_modules(tmp_path)
    graph = import_graph(modules)
    assert "book.catalogue" in graph["book.toy.model"]
    assert graph["book.catalogue"] == {"book.toy", "book.toy.model"}
    assert cycles(graph) == [["book.catalogue", "book.toy.model"]] or cycles(graph) == [
        ["book.catalogue", "book.toy", "book.toy.model"]
    ]
    assert ("book.toy.model", "book.catalogue") in upward_imports(graph)
