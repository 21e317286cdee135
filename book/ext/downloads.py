"""Everything a reader needs to run the chapters: the wheels of posenc and book, and the pins.

Each chapter's notebook (the download button of its page) imports ``posenc`` and ``book``. The
site publishes both as wheels, with the versions of PyTorch, Jupyter and the rest that the book
was built with, in a folder of each edition (``wheels/`` at the English root, ``zh_CN/wheels/``
in the Chinese edition, so that every edition's relative links work on their own):

* ``posenc-<version>-py3-none-any.whl`` and ``posenc_book-<version>-py3-none-any.whl``, built by
  ``pip wheel --no-deps --no-build-isolation`` from a copy of the sources (the working tree gets
  no ``build/`` or ``*.egg-info``), with ``SOURCE_DATE_EPOCH`` fixed so that the same sources
  always give the same bytes; their names come from the versions in the two ``pyproject.toml``;
* ``requirements-reader.txt``: the part of ``requirements.txt`` that running the chapters in
  JupyterLab needs, at the same pins: ``READER_PACKAGES`` (what the chapters, posenc and the
  book's figures, explorers and toy model import, and JupyterLab with its kernel) and everything
  they require, read from the installed packages' metadata (``reader_requirements``).

**Built once.** The three files are kept in ``_build/.wheels/<digest>/``, named by a digest of
what they are made from (``downloads_sources``: both projects' files, the readme the posenc
wheel carries, ``requirements.txt``, the Python version): a build whose sources did not change
builds nothing, and copies nothing into a site that already holds the same files.
``book/tools/stamps.py`` makes the digest an input of every page that shows the downloads
(``shows_downloads``: the intro), so a change to them (the README, a tool, a version) updates
that page and the published files without rebuilding the others.

**On the pages.** Markdown may link to a published file with a relative link, ``[text](wheels/
posenc-0.1.0-py3-none-any.whl)``: the link is checked at build time (a name the site does not
publish is a warning, and the build treats warnings as errors) and stays relative.
MyST substitutions give the current names: ``{{ posenc_wheel }}``, ``{{ book_wheel }}`` and
``{{ reader_requirements }}`` (links with the file's name as their text), ``{{ reader_commands
}}`` (a code block: make a virtual environment, install the three files, start JupyterLab),
``{{ reader_python }}`` (the Python version the book is built with). A translation keeps the
substitutions in its text, so it never goes stale when a version changes.

**Repository and launch buttons.** ``_config.yml``'s ``repository.url`` is empty while the book
has no public repository: then the pages show no repository link and no launch buttons (the
theme would fail on launch buttons without a repository). Filled in, the pages get a link to the
repository and, on the notebook pages, the Binder and Colab buttons of ``launch_buttons``
(Colab only for a GitHub repository: the theme supports no other).
"""

from __future__ import annotations

import filecmp
import hashlib
import os
import posixpath
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import tomllib
from docutils import nodes
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging

logger = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[2]
SITE_FOLDER = "wheels"  # under each edition's root
CACHE = Path("_build") / ".wheels"  # under the repository: one folder per digest
READER_REQUIREMENTS = "requirements-reader.txt"
# PyTorch's index of builds for computers without a GPU: the chapters need none, and PyPI's
# Linux build of torch brings the CUDA libraries with it (gigabytes).
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
# What running the chapters in JupyterLab needs besides posenc and book: the third-party
# packages that the chapters, posenc and the book's figures, explorers, toy model and
# experiments import (tests/book/ext/test_downloads.py checks the list against their imports),
# JupyterLab with the kernel that runs the notebooks, and jupyterlab-myst, which renders the
# chapters' MyST Markdown (equations, boxes, roles) in JupyterLab. Their own requirements
# follow.
READER_PACKAGES = (
    "torch",
    "numpy",
    "matplotlib",
    "ipywidgets",
    "tqdm",
    "ipykernel",
    "jupyterlab",
    "jupyterlab-myst",
)
RECIPE = "1"  # bump when the way the files are made changes, to make them again
SOURCE_DATE_EPOCH = "315532800"  # 1980-01-01, the earliest time a zip file can hold
_SKIP_PARTS = {"__pycache__", ".ipynb_checkpoints", ".pytest_cache"}
_SKIP_TOP = ("build", "dist")  # a project's own build output, never a source


@dataclass(frozen=True)
class Project:
    """A distribution published as a wheel: its folder (where its ``pyproject.toml`` is,
    relative to the repository) and the files and folders, relative to that, it is built from."""

    folder: str
    sources: tuple[str, ...]


# posenc's folder is the repository's root, so only its own files; the book's is its package.
PROJECTS = (
    Project(".", ("pyproject.toml", "README.md", "posenc")),
    Project("book", (".",)),
)


def _source_files(folder: Path, entry: str) -> list[Path]:
    path = folder / entry
    if path.is_file():
        return [path]
    if not path.is_dir():
        return []
    found = []
    for file in path.rglob("*"):
        parts = file.relative_to(folder).parts
        if (
            file.is_file()
            and not _SKIP_PARTS & set(parts)
            and file.suffix != ".pyc"
            and parts[0] not in _SKIP_TOP
            and not parts[0].endswith(".egg-info")
        ):
            found.append(file)
    return found


def project_files(root: Path, project: Project) -> list[tuple[str, Path]]:
    """(name relative to the project's folder, path) of every file ``project`` is built from."""
    folder = root / project.folder
    files = {f for entry in project.sources for f in _source_files(folder, entry)}
    return sorted((f.relative_to(folder).as_posix(), f) for f in files)


def downloads_sources(root: Path) -> list[tuple[str, Path]]:
    """(name, path) of every file the published downloads are made from, sorted by name: both
    projects' files (``posenc/…``, ``book/…``, posenc's ``pyproject.toml`` and ``README.md``)
    and ``requirements.txt``."""
    named = [("requirements.txt", root / "requirements.txt")]
    for project in PROJECTS:
        for name, path in project_files(root, project):
            named.append((posixpath.normpath(f"{project.folder}/{name}"), path))
    return sorted(named)


def downloads_digest(root: Path) -> str:
    """A digest of what the published downloads are made from (``downloads_sources``), the
    Python version (the requirements' markers are read for it) and ``RECIPE``."""
    digest = hashlib.sha256(f"{RECIPE}\0{sys.version_info[0]}.{sys.version_info[1]}\0".encode())
    for name, path in downloads_sources(root):
        digest.update(name.encode() + b"\0")
        digest.update((path.read_bytes() if path.is_file() else b"") + b"\0")
    return digest.hexdigest()[:16]


def wheel_name(pyproject: Path) -> str:
    """The file name of the pure-Python wheel of the project of ``pyproject`` (its name
    normalised as wheels spell it, and its version)."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    name = canonicalize_name(project["name"]).replace("-", "_")
    return f"{name}-{Version(project['version'])}-py3-none-any.whl"


def published_files(root: Path) -> tuple[str, ...]:
    """The names of the files each edition publishes in ``SITE_FOLDER``: posenc's wheel, the
    book's wheel, the reader's requirements."""
    wheels = tuple(wheel_name(root / p.folder / "pyproject.toml") for p in PROJECTS)
    return (*wheels, READER_REQUIREMENTS)


# ---------------------------------------------------------------------------------------------
# the reader's requirements


def pinned(requirements: str) -> dict[str, str]:
    """The pins of a requirements file, by normalised name, in its order:
    ``{"torch": "torch==2.13.0"}``."""
    pins = {}
    for line in requirements.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("-"):
            continue
        requirement = Requirement(line)
        pins[canonicalize_name(requirement.name)] = line
    return pins


def installed_requirements(name: str) -> list[str]:
    """The requirements (``Requires-Dist``) of the installed distribution ``name``; none when
    it is not installed."""
    try:
        return metadata.requires(name) or []
    except metadata.PackageNotFoundError:
        return []


def required_names(
    packages: Iterable[str],
    requires: Callable[[str], list[str]] = installed_requirements,
) -> set[str]:
    """The normalised names of ``packages`` and of everything they require, recursively
    (``requires``, read from the installed packages; with the extras a requirement asks for),
    markers read for this Python."""
    wanted = [(canonicalize_name(name), "") for name in packages]
    seen: set[tuple[str, str]] = set()
    while wanted:
        name, extra = wanted.pop()
        if (name, extra) in seen:
            continue
        seen.add((name, extra))
        for text in requires(name):
            requirement = Requirement(text)
            marker = requirement.marker
            if marker is not None and not marker.evaluate({"extra": extra}):
                continue
            if extra and (marker is None or "extra" not in str(marker)):
                continue  # not the extra's own: the package's plain requirement, seen already
            other = canonicalize_name(requirement.name)
            wanted += [(other, e) for e in ("", *sorted(requirement.extras))]
    return {name for name, _ in seen}


def reader_requirements(
    requirements: str,
    packages: Iterable[str] = READER_PACKAGES,
    requires: Callable[[str], list[str]] = installed_requirements,
) -> list[str]:
    """The lines of ``requirements`` (a pinned requirements file) that ``packages`` need
    (``required_names``), in its order. A requirement that ``requirements`` does not pin (pip
    and setuptools, which pip freeze leaves out) stays out: pip resolves it."""
    pins = pinned(requirements)
    missing = [name for name in packages if canonicalize_name(name) not in pins]
    if missing:
        raise ValueError(f"the requirements pin no {', '.join(missing)}")
    found = required_names(packages, requires)
    return [line for name, line in pins.items() if name in found]


def install_command(requirements: str, wheels: Iterable[str]) -> str:
    """The ``pip install`` line that installs ``requirements`` and ``wheels``, with PyTorch's
    CPU build (``CPU_INDEX``)."""
    return " ".join(["pip install -r", requirements, *wheels, "--extra-index-url", CPU_INDEX])


def reader_requirements_text(root: Path, wheels: Iterable[str]) -> str:
    """The reader's requirements file: a header saying how to use it, then the pins."""
    lines = reader_requirements((root / "requirements.txt").read_text(encoding="utf-8"))
    install = install_command(READER_REQUIREMENTS, wheels)
    header = [
        "# What running the chapters of 'Positional Encodings in Transformers' in JupyterLab",
        "# needs, at the versions the book was built with (a part of its requirements.txt),",
        f"# with Python {_python()}. Install it with the two wheels published beside it:",
        f"#   {install}",
        "# (the last option takes PyTorch's build for computers without a GPU from PyTorch's",
        "# own index: the chapters need no GPU, and the default build brings GPU libraries).",
    ]
    return "\n".join(header + lines) + "\n"


def _python() -> str:
    return f"{sys.version_info[0]}.{sys.version_info[1]}"


# ---------------------------------------------------------------------------------------------
# building, caching and publishing


def build_downloads(root: Path, target: Path, python: str = sys.executable) -> None:
    """Build the wheels and write the reader's requirements into ``target`` (a new folder).

    Each wheel is built from a copy of its project's files (``project_files``), in a
    temporary folder beside ``target`` that replaces it whole at the end: a build that fails
    or runs beside another one never leaves half a folder.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        out = work / "out"
        out.mkdir()
        env = {
            **os.environ,
            "SOURCE_DATE_EPOCH": SOURCE_DATE_EPOCH,
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        names = published_files(root)
        for index, (project, expected) in enumerate(zip(PROJECTS, names)):
            source = work / "src" / str(index)
            for name, path in project_files(root, project):
                copy = source / name
                copy.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, copy)
            command = [python, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"]
            command += ["--no-index", "--quiet", "--wheel-dir", str(out), str(source)]
            done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
            if done.returncode != 0 or not (out / expected).is_file():
                built = sorted(p.name for p in out.iterdir())
                raise RuntimeError(
                    f"building {expected} failed (built: {built}):\n{done.stdout}{done.stderr}"
                )
        text = reader_requirements_text(root, names[:-1])
        (out / READER_REQUIREMENTS).write_text(text, encoding="utf-8")
        try:
            out.rename(target)
        except OSError:  # another build made it first: the same files
            if not target.is_dir():
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)


def cached_downloads(root: Path, build: Callable[[Path, Path], None] | None = None) -> Path:
    """The folder holding the downloads of the sources as they are now,
    ``_build/.wheels/<digest>/``: made by ``build`` (``build_downloads``) when missing; the
    folders of other digests removed."""
    cache = root / CACHE
    folder = cache / downloads_digest(root)
    if not folder.is_dir():
        logger.info(f"downloads: building the wheels of posenc and book into {folder}")
        (build or build_downloads)(root, folder)
        for other in cache.iterdir():
            if other.is_dir() and other != folder and not other.name.startswith("."):
                shutil.rmtree(other, ignore_errors=True)
    return folder


def publish(folder: Path, site: Path) -> list[str]:
    """Copy the files of ``folder`` into ``site/SITE_FOLDER`` where they differ (atomically,
    so that a server never sends half a file) and remove the files it no longer has; return
    the names copied."""
    target = site / SITE_FOLDER
    target.mkdir(parents=True, exist_ok=True)
    wanted = {path.name: path for path in folder.iterdir() if path.is_file()}
    copied = []
    for name, path in sorted(wanted.items()):
        there = target / name
        if there.is_file() and filecmp.cmp(path, there, shallow=False):
            continue
        part = target / f".{name}.part"
        shutil.copyfile(path, part)
        part.replace(there)
        copied.append(name)
    for path in target.iterdir():
        if path.name not in wanted:
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink()
    return copied


# ---------------------------------------------------------------------------------------------
# the pages


SUBSTITUTIONS = (
    "posenc_wheel",
    "book_wheel",
    "reader_requirements",
    "reader_commands",
    "reader_python",
)
_SHOWS = re.compile(
    r"\{\{\s*(?:" + "|".join(SUBSTITUTIONS) + r")\s*\}\}|\]\((?:\.\./)*" + SITE_FOLDER + "/"
)


def shows_downloads(text: str) -> bool:
    """Whether a page's source shows the downloads (a substitution of ``SUBSTITUTIONS`` or a
    link into ``SITE_FOLDER``): its page then depends on ``downloads_digest``."""
    return _SHOWS.search(text) is not None


def reader_commands(files: tuple[str, ...]) -> str:
    """The commands that install ``files`` (the two wheels and the requirements, as
    ``published_files`` names them) into a new virtual environment and start JupyterLab, as a
    Markdown code block."""
    *wheels, requirements = files
    return "\n".join(
        [
            "```bash",
            "python -m venv .venv",
            "source .venv/bin/activate",
            install_command(requirements, wheels),
            "jupyter lab",
            "```",
        ]
    )


def substitutions(files: tuple[str, ...]) -> dict[str, str]:
    """The MyST substitutions of ``SUBSTITUTIONS`` for the published ``files``."""
    posenc, book, requirements = files

    def link(name: str) -> str:
        return f"[`{name}`]({SITE_FOLDER}/{name})"

    return {
        "posenc_wheel": link(posenc),
        "book_wheel": link(book),
        "reader_requirements": link(requirements),
        "reader_commands": reader_commands(files),
        "reader_python": _python(),
    }


_FILES = "_book_downloads"  # the files this build publishes (an attribute of the application)
_LAUNCH_URLS = ("binderhub_url", "jupyterhub_url", "colab_url", "deepnote_url", "jupyterlite_url")


def repository_buttons(options: dict[str, Any]) -> dict[str, Any]:
    """The theme's options with the repository button and the launch buttons on when
    ``repository_url`` is set and off when it is empty (the theme fails on launch buttons
    without a repository, and Jupyter Book refuses the repository button without one);
    Colab and Deepnote only for a repository on GitHub, the only host they support."""
    if "repository_url" not in options and "launch_buttons" not in options:
        return options  # another theme's options (Jupyter Book always sets the first)
    options = dict(options)
    url = str(options.get("repository_url") or "").strip()
    launch = dict(options.get("launch_buttons") or {})
    if not url:
        options["use_repository_button"] = False
        launch = {key: value for key, value in launch.items() if key not in _LAUNCH_URLS}
    else:
        options["use_repository_button"] = True
        if "github.com" not in url.lower():
            launch.pop("colab_url", None)
            launch.pop("deepnote_url", None)
    if "launch_buttons" in options:
        options["launch_buttons"] = launch
    return options


def _configure(app: Sphinx, config: Any) -> None:
    files = published_files(ROOT)
    setattr(app, _FILES, files)
    config.myst_substitutions = {**config.myst_substitutions, **substitutions(files)}
    config.html_theme_options = repository_buttons(config.html_theme_options)


class PublishedFileLinks(SphinxPostTransform):
    """Resolve a MyST link into ``SITE_FOLDER`` (``[text](wheels/NAME)``) to a relative link
    when the site publishes ``NAME``; warn otherwise. Runs before MyST's own resolver, which
    would look for a page or a source file of that name and find none."""

    default_priority = 8  # MyST's MystReferenceResolver is 9

    def run(self, **kwargs: Any) -> None:
        files = getattr(self.app, _FILES, ())
        for node in list(self.document.findall(addnodes.pending_xref)):
            if node.get("reftype") != "myst" or node.get("refdomain"):
                continue
            refdoc = node.get("refdoc", self.env.docname)
            here = posixpath.dirname(refdoc)
            target = posixpath.normpath(posixpath.join(here, node["reftarget"]))
            folder, _, name = target.partition("/")
            if folder != SITE_FOLDER:
                continue
            if name not in files:
                logger.warning(
                    f"{node['reftarget']!r}: the site publishes no such file in "
                    f"{SITE_FOLDER}/ (it has {', '.join(files)})",
                    location=node,
                )
                node.replace_self(nodes.inline("", "", *node.children))
                continue
            uri = posixpath.relpath(target, here or ".")
            node.replace_self(nodes.reference("", "", *node.children, refuri=uri, internal=True))


def _publish(app: Sphinx, exception: Exception | None) -> None:
    """Put the downloads into this edition's site (built first where the sources changed)."""
    if exception is not None or app.builder.format != "html":
        return
    folder = cached_downloads(ROOT)
    names = sorted(p.name for p in folder.iterdir())
    if names != sorted(getattr(app, _FILES, ())):
        raise RuntimeError(f"downloads: built {names}, the pages link to {getattr(app, _FILES)}")
    copied = publish(folder, Path(app.outdir))
    if copied:
        logger.info(f"downloads: published {', '.join(copied)} in {SITE_FOLDER}/")


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", _configure, priority=800)
    app.add_post_transform(PublishedFileLinks)
    app.connect("build-finished", _publish)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
