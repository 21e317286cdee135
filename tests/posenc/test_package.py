"""The public surface: every module declares its exports, and every export is documented and typed."""

import importlib
import inspect
import json
import pkgutil
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest

import posenc


def _modules() -> list[str]:
    names = [posenc.__name__]
    for info in pkgutil.walk_packages(posenc.__path__, prefix="posenc."):
        names.append(info.name)
    return sorted(names)


MODULES = _modules()


def _public_exports() -> list[tuple[str, str]]:
    """(module, name) for each export of a public module (no ``_`` in its dotted path)."""
    pairs = []
    for name in MODULES:
        if any(part.startswith("_") for part in name.split(".")):
            continue
        module = importlib.import_module(name)
        pairs += [(name, export) for export in getattr(module, "__all__", [])]
    return pairs


FAMILIES = (
    "absolute_2d",
    "alibi",
    "attention",
    "learned",
    "numeric",
    "rotary",
    "rotary_nd",
    "shaw",
    "sinusoidal",
    "t5",
    "window",
    "window_v2",
)


def test_the_walk_finds_every_module_the_families_and_no_subpackage():
    """posenc is flat: one module per family, the helpers, and nothing the book owns."""
    on_disk = {p.stem for p in Path(posenc.__file__).parent.glob("*.py")} - {"__init__"}
    assert sorted(MODULES) == sorted(["posenc", *(f"posenc.{stem}" for stem in on_disk)])
    for family in FAMILIES:
        assert f"posenc.{family}" in MODULES
    for helper in ("_buffers", "_checks", "_threads"):
        assert f"posenc.{helper}" in MODULES
    packages = [info.name for info in pkgutil.walk_packages(posenc.__path__) if info.ispkg]
    assert not packages, f"posenc has subpackages: {packages}"
    assert not [m for m in MODULES if m.startswith(("book", "posenc.toy", "posenc.plotting"))]


# What a model's process may not pay for, or have changed under it, by importing posenc.
FORBIDDEN = {
    "matplotlib",
    "IPython",
    "ipywidgets",
    "ipykernel",
    "book",
    "pandas",
    "scipy",
    "transformers",
    "nbformat",
}

_STATE = """
def state():
    found = {
        "default_dtype": str(torch.get_default_dtype()),
        "default_device": str(torch.get_default_device()),
        "threads": torch.get_num_threads(),
        "interop_threads": torch.get_num_interop_threads(),
        "grad_enabled": torch.is_grad_enabled(),
        "deterministic": torch.are_deterministic_algorithms_enabled(),
        "rng_state": torch.random.get_rng_state().tolist(),
        "warning_filters": [repr(f) for f in warnings.filters],
    }
    # last: reading the state may itself import a module of torch's (torch.utils._device)
    return {**found, "modules": sorted(sys.modules)}
"""


def test_importing_posenc_loads_torch_and_nothing_else():
    """In a fresh interpreter: after a plain ``import torch``, ``import posenc`` adds only posenc's
    own modules (none of the book's, no plotting, notebook or model library) and leaves torch's
    global state and the warning filters as they were."""
    code = (
        "import json, sys, warnings\nimport torch\n"
        + _STATE
        + textwrap.dedent(
            """
            before = state()
            import posenc
            after = state()
            print(json.dumps({"before": before, "after": after}))
            """
        )
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(posenc.__file__).parents[1],
    )
    result = json.loads(out.stdout)
    before, after = result["before"], result["after"]
    top_level = {name.split(".")[0] for name in after["modules"]}
    assert not top_level & FORBIDDEN, f"importing posenc loads {sorted(top_level & FORBIDDEN)}"
    added = sorted(set(after["modules"]) - set(before["modules"]))
    foreign = sorted(name for name in added if name.split(".")[0] != "posenc")
    assert not foreign, f"importing posenc loads modules beyond its own: {foreign}"
    assert "posenc" in added
    for key in before:
        if key != "modules":
            assert after[key] == before[key], f"importing posenc changes {key}"


@pytest.mark.parametrize("name", MODULES)
def test_every_module_declares_its_exports(name):
    module = importlib.import_module(name)
    assert hasattr(module, "__all__"), f"{name} has no __all__"
    exports = list(module.__all__)
    assert len(exports) == len(set(exports)), f"{name}.__all__ repeats a name"
    missing = [export for export in exports if not hasattr(module, export)]
    assert not missing, f"{name}.__all__ names what the module lacks: {missing}"


@pytest.mark.parametrize("name", MODULES)
def test_every_public_definition_is_exported(name):
    """A public function or class defined in a module is in its ``__all__`` (or ``_``-named)."""
    module = importlib.import_module(name)
    defined = [
        attr
        for attr, obj in vars(module).items()
        if not attr.startswith("_")
        and (inspect.isfunction(obj) or inspect.isclass(obj))
        and getattr(obj, "__module__", None) == name
    ]
    unexported = sorted(set(defined) - set(getattr(module, "__all__", ())))
    assert not unexported, f"{name} defines public names outside __all__: {unexported}"


def test_the_package_exports_only_what_its_modules_export():
    exported_by_modules = {
        export
        for mod in MODULES
        if mod != "posenc"
        for export in getattr(importlib.import_module(mod), "__all__", ())
    }
    stray = sorted(set(posenc.__all__) - exported_by_modules)
    assert not stray, f"posenc.__all__ names that no module exports: {stray}"


@pytest.mark.parametrize(("module", "name"), _public_exports(), ids=lambda x: str(x))
def test_every_export_is_documented(module, name):
    obj = getattr(importlib.import_module(module), name)
    if not (inspect.isfunction(obj) or inspect.isclass(obj)):
        return  # a constant (a registry, a type alias) is documented by its module
    doc = inspect.getdoc(obj) or ""
    assert len(doc.splitlines()) >= 3, f"{module}.{name} needs a real docstring"


@pytest.mark.parametrize(("module", "name"), _public_exports(), ids=lambda x: str(x))
def test_every_export_is_fully_type_hinted(module, name):
    obj = getattr(importlib.import_module(module), name)
    if not (inspect.isfunction(obj) or inspect.isclass(obj)):
        return
    # a NamedTuple's or dataclass's fields are its constructor's parameters
    named_tuple = inspect.isclass(obj) and issubclass(obj, tuple) and hasattr(obj, "_fields")
    fn = obj if named_tuple or not inspect.isclass(obj) else obj.__init__
    if fn is object.__init__:
        return
    sig = inspect.signature(fn)
    missing = [
        p
        for p, v in sig.parameters.items()
        if p != "self"
        and v.kind not in (v.VAR_POSITIONAL, v.VAR_KEYWORD)
        and v.annotation is inspect.Parameter.empty
    ]
    assert not missing, f"{module}.{name}: parameters without type hints: {missing}"
    if not inspect.isclass(obj):
        assert sig.return_annotation is not inspect.Signature.empty, (
            f"{module}.{name}: no return annotation"
        )


def test_sources_compile_without_warnings():
    """Catches invalid escapes such as an unescaped backslash in a docstring's math."""
    import pathlib

    root = pathlib.Path(posenc.__file__).parent
    for path in sorted(root.rglob("*.py")):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            compile(path.read_text(), str(path), "exec")


def test_posenc_sources_import_torch_the_standard_library_and_posenc_only():
    """Read with ``ast``, so that a package torch happens to load (numpy) cannot hide an import."""
    import ast
    import pathlib
    import sys

    allowed = {"torch", "posenc", "__future__", *sys.stdlib_module_names}
    found = {}
    for path in sorted(pathlib.Path(posenc.__file__).parent.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                if name.split(".")[0] not in allowed:
                    found.setdefault(path.name, []).append(name)
    assert found == {}
