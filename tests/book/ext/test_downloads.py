"""What a reader downloads to run the chapters (book/ext/downloads.py): the wheels of posenc and
book, built once per digest of their sources and published where they changed, the reader's
pins (a part of requirements.txt that covers every import of the chapters and the book), the
links and substitutions of the pages, and the repository and launch buttons.

The end-to-end check, the site's files installed into a fresh environment that runs a chapter,
is tests/browser/test_run_yourself.py (it needs the built site).
"""

from __future__ import annotations

import ast
import io
import json
import os
import re
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from book.ext import downloads
from book.tools import stamps

ROOT = Path(__file__).resolve().parents[3]
REQUIREMENTS = (ROOT / "requirements.txt").read_text(encoding="utf-8")

# PyTorch's CPU build, which the reader's install command takes (the chapters need no GPU)
CPU_BUILD = " --extra-index-url https://download.pytorch.org/whl/cpu"


# ---------------------------------------------------------------------------------------------
# the reader's requirements


def test_reader_requirements_follow_requirements_extras_and_markers() -> None:
    pins = "# pins\ne==5\na==1\nb==2\nc==3\nd==4\nx==9\nwin==1\n"
    requires = {
        "a": [
            "b>=1",
            "c[fast]; python_version >= '3'",
            "win; sys_platform == 'no-such-platform'",
            "setuptools>=40",  # not pinned (pip freeze leaves it out): pip resolves it
        ],
        "b": ["a"],  # a cycle
        "c": ["d; extra == 'fast'", "x; extra == 'slow'"],
        "d": ["e"],
        "e": [],
        "setuptools": ["f"],  # what an unpinned requirement needs is needed too
        "f": [],
    }
    lines = downloads.reader_requirements(pins, ["a"], lambda name: requires[name])
    assert lines == ["e==5", "a==1", "b==2", "c==3", "d==4"]  # in the file's order
    names = downloads.required_names(["a"], lambda name: requires[name])
    assert names == {"a", "b", "c", "d", "e", "setuptools", "f"}
    with pytest.raises(ValueError, match="pin no"):
        downloads.reader_requirements(pins, ["a", "zzz"], lambda name: requires[name])


def test_the_reader_pins_are_a_part_of_requirements_txt() -> None:
    lines = downloads.reader_requirements(REQUIREMENTS)
    every = downloads.pinned(REQUIREMENTS)
    assert set(lines) <= set(every.values())
    names = {canonicalize_name(Requirement(line).name) for line in lines}
    assert "torch==2.13.0" in lines  # exactly: a CPU build of it is on the build machines
    readers = ("numpy", "matplotlib", "ipywidgets", "ipykernel", "jupyterlab", "jupyterlab-myst")
    for name in (*readers, "pillow"):
        assert every[name] in lines, name
    for name in ("sphinx", "jupyter-book", "playwright", "pytest", "nbval", "transformers"):
        assert name not in names, f"{name} is the build's or the tests', not the reader's"


def kernel_code() -> list[tuple[str, str]]:
    """(where, Python source) of the code a chapter's kernel may run: the code cells of every
    notebook of the book (magics left out), and posenc and the book's modules but the build's
    own (book/ext, book/tools, book/__main__.py)."""
    code = []
    for notebook in sorted([*ROOT.glob("chapters/*.ipynb"), *ROOT.glob("appendix/*.ipynb")]):
        for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "code":
                lines = "".join(cell["source"]).splitlines()
                kept = [line for line in lines if not line.lstrip().startswith(("%", "!"))]
                code.append((notebook.name, "\n".join(kept)))
    for path in sorted([*(ROOT / "posenc").rglob("*.py"), *(ROOT / "book").rglob("*.py")]):
        name = path.relative_to(ROOT).as_posix()
        if not name.startswith(("book/ext/", "book/tools/")) and name != "book/__main__.py":
            code.append((name, path.read_text(encoding="utf-8")))
    return code


def imported(source: str) -> set[str]:
    """The modules ``source`` imports by absolute name, inside functions too."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


def chapter_and_package_imports() -> dict[str, set[str]]:
    """Top-level module -> where it is imported (``kernel_code``)."""
    where: dict[str, set[str]] = {}
    for place, source in kernel_code():
        for module in imported(source):
            where.setdefault(module.partition(".")[0], set()).add(place)
    return where


def test_the_reader_pins_cover_every_import_of_the_chapters_and_the_book() -> None:
    """Each third-party module that a chapter or the code it runs imports (inside functions
    too) comes from a distribution that requirements-reader.txt pins. (The browser suite runs
    a chapter with nothing else importable.)"""
    pinned = {
        canonicalize_name(Requirement(line).name)
        for line in downloads.reader_requirements(REQUIREMENTS)
    }
    owners = metadata.packages_distributions()
    missing = {}
    for module, where in sorted(chapter_and_package_imports().items()):
        if module in sys.stdlib_module_names or module in ("posenc", "book", "__future__"):
            continue
        dists = {canonicalize_name(d) for d in owners.get(module, [])}
        assert dists, f"{module} (imported by {sorted(where)[:3]}) is installed by no package"
        if not dists & pinned:
            missing[module] = sorted(where)[:3]
    assert missing == {}, "imported, but not in the reader's requirements"


HIDE = """
import importlib, sys

HIDDEN = frozenset({hidden!r})


class Hide:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.partition(".")[0] in HIDDEN:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)


sys.meta_path.insert(0, Hide)
for module in {modules!r}:
    importlib.import_module(module)
"""


def kernel_modules() -> list[str]:
    """Every module of ``kernel_code`` and every module it imports."""
    modules = set()
    for place, source in kernel_code():
        if place.endswith(".py"):
            parts = Path(place).with_suffix("").parts
            modules.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
        modules |= imported(source)
    return sorted(modules)


def test_the_chapters_import_with_nothing_but_the_reader_pins() -> None:
    """Every module of posenc and the book's kernel-side code, and everything the chapters
    import, imports in a process where only the distributions of the reader's requirements
    (and what pip adds to them) can be imported: the libraries' own imports at import time
    are covered too."""
    reader = [Requirement(line).name for line in downloads.reader_requirements(REQUIREMENTS)]
    allowed = downloads.required_names(reader) | {"posenc", "posenc-book"}
    hidden = sorted(
        module
        for module, dists in metadata.packages_distributions().items()
        if not {canonicalize_name(d) for d in dists} & allowed
    )
    assert "transformers" in hidden and "sphinx" in hidden  # in requirements.txt, not the reader's
    code = HIDE.format(hidden=hidden, modules=kernel_modules())
    env = {**os.environ, "MPLBACKEND": "Agg"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]


def test_the_reader_requirements_file_says_how_to_install_it() -> None:
    names = downloads.published_files(ROOT)
    text = downloads.reader_requirements_text(ROOT, names[:2])
    header = "\n".join(line for line in text.splitlines() if line.startswith("#"))
    install = f"pip install -r {downloads.READER_REQUIREMENTS} {names[0]} {names[1]}"
    assert f"{install}{CPU_BUILD}" in header
    assert header.count("--extra-index-url") == 1, "the install line says it once"
    body = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert body == downloads.reader_requirements(REQUIREMENTS)


# ---------------------------------------------------------------------------------------------
# names and digests


def test_the_wheels_are_named_by_the_pyproject_versions(tmp_path: Path) -> None:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[project]\nname = "My.Book"\nversion = "1.0"\n', encoding="utf-8")
    assert downloads.wheel_name(pyproject) == "my_book-1.0-py3-none-any.whl"
    files = downloads.published_files(ROOT)
    assert files[-1] == downloads.READER_REQUIREMENTS
    assert re.fullmatch(r"posenc-[\w.]+-py3-none-any\.whl", files[0])
    assert re.fullmatch(r"posenc_book-[\w.]+-py3-none-any\.whl", files[1])


SOURCES = {
    "pyproject.toml": '[project]\nname = "posenc"\nversion = "0.1.0"\nreadme = "README.md"\n'
    '[tool.setuptools.packages.find]\ninclude = ["posenc*"]\n',
    "README.md": "# posenc\n",
    "requirements.txt": REQUIREMENTS,
    "posenc/__init__.py": "VALUE = 1\n",
    "book/pyproject.toml": '[project]\nname = "posenc-book"\nversion = "0.2.0"\n'
    '[tool.setuptools]\npackage-dir = { "book" = "." }\npackages = ["book", "book.tools"]\n',
    "book/__init__.py": "",
    "book/figures.py": "WIDTH = 6.7\n",
    "book/tools/__init__.py": "",
    "book/tools/check.py": "LIMIT = 3\n",
}
NOT_SOURCES = {
    "chapters/01_first.ipynb": "{}",
    "tests/test_x.py": "",
    "_build/html/index.html": "",
    "posenc/__pycache__/x.cpython-311.pyc": "",
    "book/build/lib/book/figures.py": "",
    "book/posenc_book.egg-info/PKG-INFO": "",
    "book/.ipynb_checkpoints/x.py": "",
}


def make_sources(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.fixture
def sources(tmp_path: Path) -> Path:
    make_sources(tmp_path, {**SOURCES, **NOT_SOURCES})
    return tmp_path


def test_the_digest_follows_every_source_and_nothing_else(sources: Path) -> None:
    names = [name for name, _ in downloads.downloads_sources(sources)]
    assert names == sorted(SOURCES)
    before = downloads.downloads_digest(sources)
    for name in NOT_SOURCES:
        (sources / name).write_text("changed", encoding="utf-8")
    assert downloads.downloads_digest(sources) == before
    for name in SOURCES:
        path = sources / name
        text = path.read_text(encoding="utf-8")
        path.write_text(text + "\n# edited\n", encoding="utf-8")
        assert downloads.downloads_digest(sources) != before, name
        path.write_text(text, encoding="utf-8")
        assert downloads.downloads_digest(sources) == before


def test_the_intro_depends_on_the_downloads_and_the_chapters_do_not() -> None:
    assert downloads.shows_downloads((ROOT / "intro.md").read_text(encoding="utf-8"))
    intro = stamps.page_inputs(ROOT, "intro", "en")
    assert intro[stamps.DOWNLOADS] == downloads.downloads_digest(ROOT)
    chapter = stamps.page_inputs(ROOT, "chapters/03_sinusoidal", "en")
    assert stamps.DOWNLOADS not in chapter
    assert downloads.shows_downloads("See [the wheel](../wheels/x.whl).")
    assert not downloads.shows_downloads("{{ other }} and [a link](other/wheels/x.whl)")


# ---------------------------------------------------------------------------------------------
# built once, published when changed


def _fake_build(calls: list[Path]):
    def build(root: Path, folder: Path) -> None:
        calls.append(folder)
        folder.mkdir(parents=True)
        for name in downloads.published_files(root):
            (folder / name).write_text(f"{name} of {(root / 'posenc/__init__.py').read_text()}")

    return build


def test_the_downloads_are_built_once_per_digest(sources: Path) -> None:
    calls: list[Path] = []
    first = downloads.cached_downloads(sources, _fake_build(calls))
    assert first == sources / downloads.CACHE / downloads.downloads_digest(sources)
    assert downloads.cached_downloads(sources, _fake_build(calls)) == first
    assert calls == [first], "built again with nothing changed"
    (sources / "posenc/__init__.py").write_text("VALUE = 2\n", encoding="utf-8")
    second = downloads.cached_downloads(sources, _fake_build(calls))
    assert calls == [first, second] and second != first
    assert not first.exists(), "the downloads of old sources are kept"


def test_publishing_copies_only_what_changed(sources: Path, tmp_path: Path) -> None:
    folder = downloads.cached_downloads(sources, _fake_build([]))
    site = tmp_path / "site"
    names = sorted(downloads.published_files(sources))
    assert sorted(downloads.publish(folder, site)) == names
    published = site / downloads.SITE_FOLDER
    times = {p.name: p.stat().st_mtime_ns for p in published.iterdir()}
    assert downloads.publish(folder, site) == []
    assert {p.name: p.stat().st_mtime_ns for p in published.iterdir()} == times
    (published / "posenc-0.0.1-py3-none-any.whl").write_text("an old version")
    (folder / names[0]).write_text("new bytes")
    assert downloads.publish(folder, site) == [names[0]]
    assert sorted(p.name for p in published.iterdir()) == names
    assert (published / names[0]).read_text() == "new bytes"


def test_the_wheels_are_built_from_the_sources_and_always_the_same(sources: Path) -> None:
    before = sorted(sources.rglob("*"))
    folder = sources / "built"
    downloads.build_downloads(sources, folder)
    names = ["posenc-0.1.0-py3-none-any.whl", "posenc_book-0.2.0-py3-none-any.whl"]
    assert sorted(p.name for p in folder.iterdir()) == sorted([*names, "requirements-reader.txt"])
    with zipfile.ZipFile(folder / names[0]) as wheel:
        assert "posenc/__init__.py" in wheel.namelist()
        dates = {info.date_time for info in wheel.infolist()}
    with zipfile.ZipFile(folder / names[1]) as wheel:
        files = wheel.namelist()
        assert {"book/__init__.py", "book/figures.py", "book/tools/check.py"} <= set(files)
        assert not [f for f in files if "egg-info" in f or "build/" in f or f.endswith(".pyc")]
        dates |= {info.date_time for info in wheel.infolist()}
    # every file dated SOURCE_DATE_EPOCH: the same sources give the same bytes
    assert dates == {(1980, 1, 1, 0, 0, 0)}
    after = sorted(p for p in sources.rglob("*") if not p.is_relative_to(folder))
    assert after == before, "the build wrote into the sources (or left its temporary folder)"


# ---------------------------------------------------------------------------------------------
# the pages


def test_the_substitutions_name_the_published_files() -> None:
    files = downloads.published_files(ROOT)
    values = downloads.substitutions(files)
    assert tuple(values) == downloads.SUBSTITUTIONS
    assert values["posenc_wheel"] == f"[`{files[0]}`](wheels/{files[0]})"
    assert values["reader_requirements"] == f"[`{files[2]}`](wheels/{files[2]})"
    install = f"pip install -r {files[2]} {files[0]} {files[1]}{CPU_BUILD}"
    assert install in values["reader_commands"].splitlines()
    assert values["reader_python"] == f"{sys.version_info[0]}.{sys.version_info[1]}"


def test_the_buttons_appear_only_with_a_repository() -> None:
    launch = {
        "notebook_interface": "jupyterlab",
        "binderhub_url": "https://mybinder.org",
        "colab_url": "https://colab.research.google.com",
    }
    empty = downloads.repository_buttons({"repository_url": "", "launch_buttons": launch})
    assert empty["use_repository_button"] is False
    assert empty["launch_buttons"] == {"notebook_interface": "jupyterlab"}
    github = "https://github.com/someone/posenc-book"
    on = downloads.repository_buttons({"repository_url": github, "launch_buttons": launch})
    assert on["use_repository_button"] is True and on["launch_buttons"] == launch
    gitlab = "https://gitlab.com/someone/posenc-book"
    binder_only = downloads.repository_buttons({"repository_url": gitlab, "launch_buttons": launch})
    assert set(binder_only["launch_buttons"]) == {"notebook_interface", "binderhub_url"}


PAGES = {
    "index.md": "# Index\n\n```{toctree}\nsub/page\n```\n\n"
    "Get {{ posenc_wheel }}, {{ book_wheel }} and {{ reader_requirements }} "
    "for Python {{ reader_python }}:\n\n{{ reader_commands }}\n",
    "sub/page.md": "# Page\n\nThe [pins](../wheels/requirements-reader.txt).\n",
}


def _sphinx(srcdir: Path, pages: dict[str, str]) -> tuple[int, str, Path]:
    from sphinx.application import Sphinx
    from sphinx.util.docutils import docutils_namespace, patch_docutils

    make_sources(srcdir, pages)
    (srcdir / "conf.py").write_text(
        # its own source_suffix: Sphinx 7.4 merges suffixes into the default dict otherwise
        'source_suffix = {".md": "markdown"}\n'
        'extensions = ["myst_parser", "book.ext.downloads"]\n'
        'myst_enable_extensions = ["substitution"]\nhtml_theme = "basic"\n'
    )
    out = srcdir / "_build" / "html"
    warnings = io.StringIO()
    with patch_docutils(None), docutils_namespace():  # registrations end with the build
        app = Sphinx(
            str(srcdir),
            str(srcdir),
            str(out),
            str(srcdir / "_build" / ".doctrees"),
            "html",
            status=None,
            warning=warnings,
        )
        app.build()
    return app.statuscode, warnings.getvalue(), out


def test_a_page_links_to_the_published_files(
    sources: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(downloads, "ROOT", sources)
    monkeypatch.setattr(downloads, "build_downloads", _fake_build([]))
    status, warnings, out = _sphinx(tmp_path / "site", PAGES)
    assert status == 0 and warnings == "", warnings
    files = downloads.published_files(sources)
    index = (out / "index.html").read_text(encoding="utf-8")
    for name in files:
        assert f'href="wheels/{name}"' in index
        assert (out / "wheels" / name).is_file()
    install = f"pip install -r {files[2]} {files[0]} {files[1]}{CPU_BUILD}"
    assert install in re.sub(r"<[^>]+>", "", index)
    page = (out / "sub" / "page.html").read_text(encoding="utf-8")
    assert f'href="../wheels/{files[2]}"' in page


def test_a_link_to_a_file_the_site_does_not_publish_is_a_warning(
    sources: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(downloads, "ROOT", sources)
    monkeypatch.setattr(downloads, "build_downloads", _fake_build([]))
    pages = {"index.md": "# Index\n\nThe [old wheel](wheels/posenc-0.0.1-py3-none-any.whl).\n"}
    _, warnings, _ = _sphinx(tmp_path / "site", pages)
    assert "the site publishes no such file" in warnings
