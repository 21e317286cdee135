"""A reader runs a chapter with what the site gives them (intro, "Run the chapters yourself").

The site publishes the wheels of posenc and book and the reader's pinned requirements in
``wheels/`` of each edition (``book/ext/downloads.py``); each chapter's download button serves
its notebook, ``_sources/chapters/<stem>.ipynb``. Here they go into a fresh virtual
environment, the way a reader installs them, and the smallest chapter runs there under nbval.

To stay fast and offline, the environment gets the pinned packages from the book's own
``.venv`` instead of from PyPI: a ``.pth`` file lists ``.venv``'s site-packages as a plain
path, which Python adds to ``sys.path`` without reading the ``.pth`` files inside it, so the
editable installs of posenc and book (import hooks started by those files) stay off. A second
``.pth`` file hides every package of ``.venv`` that ``requirements-reader.txt`` does not list
(with nbval and pytest, which run the test): the chapter runs with what a reader installs, and
a missing pin fails here. posenc and book come from the wheels alone, installed (no index, no
dependencies) before ``.venv`` is visible at all; the test checks that they are imported from
the new environment and that nothing is imported from the repository. Everything runs in a
temporary folder outside the repository, so nothing finds the repository by its working folder.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import sysconfig
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from book.ext.downloads import (
    CACHE,
    READER_REQUIREMENTS,
    SITE_FOLDER,
    downloads_digest,
    published_files,
    required_names,
)
from book.ext.editions import TRANSLATIONS

from .conftest import ROOT, SITE

CHAPTER = "chapters/01_why_position"  # the smallest chapter: about 10 s under nbval
NOTEBOOK = SITE / "_sources" / f"{CHAPTER}.ipynb"  # what its download button serves
RUNNER = ("pytest", "nbval")  # what runs the notebook in the test, besides the reader's set
WHEELS = SITE / SITE_FOLDER
# One worker builds the environment once for all the tests of this module (make browser: -n 2).
pytestmark = pytest.mark.xdist_group("run_yourself")
# Variables of this test run that a reader's shell does not have.
_DROPPED = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "MPLBACKEND", "PYTEST_ADDOPTS")

BLOCKER = '''\
"""Hide the packages that requirements-reader.txt does not list (tests/browser/test_run_yourself.py)."""
import sys

HIDDEN = frozenset({hidden!r})


class ReaderOnly:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.partition(".")[0] in HIDDEN:
            raise ModuleNotFoundError(
                f"No module named {{name!r}} (not in requirements-reader.txt)", name=name
            )
        return None


sys.meta_path.insert(0, ReaderOnly)
'''


def _editions() -> list[Path]:
    return [SITE, *(SITE / language for language in TRANSLATIONS)]


def test_every_edition_publishes_the_current_downloads() -> None:
    """The same three files in each edition's ``wheels/``, made from the sources as they are."""
    names = sorted(published_files(ROOT))
    current = ROOT / CACHE / downloads_digest(ROOT)
    assert current.is_dir(), "the published downloads are not of the current sources: rebuild"
    for site in _editions():
        folder = site / SITE_FOLDER
        assert sorted(p.name for p in folder.iterdir()) == names, folder
        for name in names:
            assert (folder / name).read_bytes() == (current / name).read_bytes(), folder / name


@pytest.mark.parametrize("site", _editions(), ids=lambda site: site.name)
def test_the_intro_links_to_each_download(site: Path) -> None:
    page = (site / "intro.html").read_text(encoding="utf-8")
    for name in published_files(ROOT):
        href = f'href="{SITE_FOLDER}/{name}"'
        assert href in page, f"the intro of {site} has no {href}"
        target = site / unquote(urlsplit(f"{SITE_FOLDER}/{name}").path)
        assert target.is_file()
    text = re.sub(r"<[^>]+>", "", page)  # the code block's words are highlighted apart
    posenc, book, requirements = published_files(ROOT)
    cpu = "--extra-index-url https://download.pytorch.org/whl/cpu"  # PyTorch's CPU build
    assert f"pip install -r {requirements} {posenc} {book} {cpu}" in text
    assert "jupyter lab" in text


def test_the_download_button_serves_the_stripped_notebook_with_checked_cells() -> None:
    notebook = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    cells = [c for c in notebook["cells"] if c["cell_type"] == "code"]
    checked = [c for c in cells if "".join(c["source"]).startswith("# NBVAL_CHECK_OUTPUT")]
    assert len(checked) >= 2 and all(c["outputs"] for c in checked)
    assert all(not c["outputs"] for c in cells if c not in checked), "not stripped"


def _hidden_modules(requirements: str) -> list[str]:
    """Top-level modules of ``.venv``'s packages that neither the reader's requirements nor
    the test's runner (``RUNNER``, with what they require) provide."""
    pinned = [line for line in requirements.splitlines() if line and not line.startswith("#")]
    reader = [Requirement(line).name for line in pinned]
    # pip installs what they require but requirements.txt does not pin (setuptools) too
    allowed = required_names([*reader, *RUNNER]) | {"posenc", "posenc-book"}
    owners = metadata.packages_distributions()
    return sorted(
        module
        for module, dists in owners.items()
        if not any(canonicalize_name(d) in allowed for d in dists)
    )


def _run(command: list[str], cwd: Path, env: dict[str, str], timeout: float) -> str:
    done = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, f"{' '.join(command)}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@dataclass(frozen=True)
class Reader:
    """A reader's virtual environment: its folder's parent (``home``, a temporary folder),
    its python and site-packages, and the environment variables to run it with."""

    home: Path
    python: Path
    site_packages: Path
    env: dict[str, str]


@pytest.fixture(scope="module")
def reader(tmp_path_factory: pytest.TempPathFactory) -> Reader:
    """A fresh virtual environment with the site's wheels and (from ``.venv``) the reader's
    pins."""
    home = tmp_path_factory.mktemp("reader")
    assert ROOT not in home.parents
    venv = home / "venv"
    env = {k: v for k, v in os.environ.items() if k not in _DROPPED and "COVERAGE" not in k}
    env.update(PYTHONNOUSERSITE="1", PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], home, env, 120)
    python = venv / "bin" / "python"
    wheels = [str(WHEELS / name) for name in published_files(ROOT)[:-1]]
    # posenc and book from the wheels alone, while the new environment sees nothing else
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet"]
    _run([*install, "--no-deps", "--no-index", "--no-cache-dir", *wheels], home, env, 300)
    purelib = _run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], home, env, 60
    )
    site_packages = Path(purelib.strip())
    assert site_packages.is_relative_to(venv)
    # the pins, from .venv's site-packages as a plain path (its own .pth files stay unread)
    pinned = Path(sysconfig.get_path("purelib"))
    (site_packages / "book_venv_packages.pth").write_text(f"{pinned}\n", encoding="utf-8")
    requirements = (WHEELS / READER_REQUIREMENTS).read_text(encoding="utf-8")
    blocker = BLOCKER.format(hidden=_hidden_modules(requirements))
    (site_packages / "reader_only.py").write_text(blocker, encoding="utf-8")
    (site_packages / "reader_only.pth").write_text("import reader_only\n", encoding="utf-8")
    return Reader(home, python, site_packages, env)


def test_the_wheels_are_what_the_new_environment_imports(reader: Reader) -> None:
    probe = (
        "import json, sys, posenc, book, book.figures, book.explorers, torch, ipykernel; "
        "print(json.dumps({'posenc': posenc.__file__, 'book': book.__file__, "
        "'path': sys.path, 'finders': [repr(f) for f in sys.meta_path]}))"
    )
    found = json.loads(_run([str(reader.python), "-c", probe], reader.home, reader.env, 120))
    for name in ("posenc", "book"):
        assert Path(found[name]).is_relative_to(reader.site_packages), found[name]
    assert str(ROOT) not in found["path"] and str(ROOT / "book") not in found["path"]
    assert not [f for f in found["finders"] if "editable" in f.lower()], found["finders"]
    hidden = "import transformers"  # in .venv (requirements.txt), not in the reader's pins
    done = subprocess.run(
        [str(reader.python), "-c", hidden],
        cwd=reader.home,
        env=reader.env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode != 0 and "not in requirements-reader.txt" in done.stderr


def test_the_downloaded_chapter_runs_in_the_new_environment(reader: Reader) -> None:
    work = reader.home / "chapter"
    work.mkdir()
    notebook = work / NOTEBOOK.name
    notebook.write_bytes(NOTEBOOK.read_bytes())
    (work / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")  # the run's own root
    command = [str(reader.python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "nbval"]
    command += ["--nbval-lax", "--nbval-current-env", notebook.name]
    start = time.perf_counter()
    output = _run(command, work, reader.env, 600)
    print(f"{NOTEBOOK.name} ran in the reader's environment in {time.perf_counter() - start:.1f} s")
    assert " passed" in output and "failed" not in output, output
