"""Sphinx settings for this book that Jupyter Book 1's ``_config.yml`` cannot express.

* **Offline math.** MathJax 3 is served from the site itself (``_static/mathjax``), copied
  from the pinned PyPI package ``sphinx-mathjax-offline``, instead of from a CDN: pages must
  render their math with no network (lecture halls, trains) and must not send readers'
  browsers to third-party servers.
* **No thebe.** Jupyter Book always loads ``sphinx_thebe``, which declares
  ``const THEBE_JS_URL`` in an inline script that ends up twice on every page (a console
  ``SyntaxError``) and points at unpkg.com. The book's explorers are pre-rendered and need no
  kernel, and thebe buttons are off, so its scripts and stylesheet are dropped from pages.
* **A quiet console.** The theme's 1.5 MB ``fontawesome.js`` is dropped too: it redraws icons
  as SVG, but the theme's stylesheet already draws every icon the pages use from its webfont.
  ``default_mode`` is set to ``light`` (the figures are drawn on white); left empty, the theme
  logs "Got invalid theme mode" on a reader's first visit.
* **Parallel reading.** Reading a chapter means executing it (2–3 s of kernel start and
  ``import torch`` each), so the build reads chapters in ``book_parallel_jobs`` processes
  (default: the CPUs this process may use; ``BOOK_JOBS`` in the environment overrides it). The
  ``jupyter-book`` command line has no ``-j`` option, and ``sphinx_external_toc`` always
  loads ``sphinx_multitoc_numbering``, which does not declare itself parallel-safe and so
  forces a serial read. That extension only renumbers sections after all documents are read
  and merged (``env-updated``), so reading in parallel is safe for it.
* **Citations formatted fast.** pybtex's plugin lookups are cached (``_cache_pybtex_plugins``).
* **Executed once, for both editions.** ``execute_notebooks: cache`` stores each chapter's
  outputs in a jupyter-cache keyed by its code cells. What the chapters import is not part of
  that key: ``posenc``'s sources, the ``book`` package's (figures, explorers, toy model,
  catalogue, demos, experiments; not ``book/ext`` or ``book/tools``, which no chapter imports)
  and ``requirements.txt``; so the cache lives in a folder named by their digest,
  ``_build/.jupyter_cache/<digest>`` (``execution_digest``): a change to the library, to a
  figure or to a pinned package re-executes every chapter, a change to prose re-executes
  nothing, and the Chinese edition (``book/tools/build_book.py``) reuses the English edition's
  outputs. The cache's folder and database are made before the reading processes start
  (``prepare_execution_cache``): jupyter-cache 1.0 makes them on first use, and processes that
  do so at the same time fail (``FileExistsError`` in its ``mkdir``).
* **Incremental builds.** ``book/tools/build_book.py`` decides from its stamps what a build must
  redo (``book/tools/stamps.py``) and names the pages whose own inputs changed (the page, its
  quiz, its catalogue) in ``book_reread_docs``: Sphinx re-reads them even where it would not
  see the change by itself (``env-get-outdated``). When a re-read page's title, sections,
  labels or numbers changed, every page is written again (``env-get-updated``), since the
  sidebars and cross-references of the others show them. The build-finished steps redo only
  the pages this build wrote: the executed notebooks of the pages it read, the thebe-free
  heads of the pages it wrote.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from importlib.metadata import distribution
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.fileutil import copy_asset

logger = logging.getLogger(__name__)

MATHJAX_DISTRIBUTION = "sphinx-mathjax-offline"
MATHJAX_SCRIPT = "mathjax/tex-chtml.js"  # relative to the site's _static/


def mathjax_source() -> Path:
    """Return the folder holding the MathJax 3 files shipped by ``sphinx-mathjax-offline``."""
    folder = Path(
        str(distribution(MATHJAX_DISTRIBUTION).locate_file("sphinx-mathjax-offline/static/mathjax"))
    )
    if not (folder / "tex-chtml.js").is_file():
        raise FileNotFoundError(
            f"{MATHJAX_DISTRIBUTION} is installed but {folder}/tex-chtml.js is missing"
        )
    return folder


# The packages the chapters' kernels import: their outputs depend on them besides the code
# cells. The build's own code (Sphinx extensions, tools) is imported by no chapter.
EXECUTED_PACKAGES = ("posenc", "book")
NOT_EXECUTED = ("book/ext/", "book/tools/", "book/__main__.py")


def executed_packages() -> list[Path]:
    """The folders of the installed packages that the chapters import (``EXECUTED_PACKAGES``)."""
    folders = []
    for name in EXECUTED_PACKAGES:
        spec = find_spec(name)
        if spec is None or spec.origin is None:
            raise ModuleNotFoundError(f"{name} is not installed: run `make setup`")
        folders.append(Path(spec.origin).parent)
    return folders


def executed_sources(root: Path, packages: list[Path] | None = None) -> list[tuple[str, Path]]:
    """(name, path) of every file a chapter's outputs depend on besides its code: the Python
    sources of ``packages`` (default: ``executed_packages()``) but ``NOT_EXECUTED``, and
    ``requirements.txt``; sorted by name."""
    named = [("requirements.txt", root / "requirements.txt")]
    for package in executed_packages() if packages is None else packages:
        for path in package.rglob("*.py"):
            name = f"{package.name}/{path.relative_to(package).as_posix()}"
            if not name.startswith(NOT_EXECUTED):
                named.append((name, path))
    return sorted(named)


def execution_digest(root: Path, packages: list[Path] | None = None) -> str:
    """A digest of what a chapter's outputs depend on besides its code (``executed_sources``):
    posenc, the book's figures, explorers, toy model…, and the pins."""
    digest = hashlib.sha256()
    for name, path in executed_sources(root, packages):
        digest.update(name.encode() + b"\0")
        digest.update(path.read_bytes() if path.is_file() else b"")
    return digest.hexdigest()[:16]


def prepare_execution_cache(path: Path) -> None:
    """Make the jupyter-cache at ``path`` (its folder and database) if it does not exist yet.

    jupyter-cache 1.0 makes both on first use, with a ``mkdir`` that fails when the folder
    exists and a table creation that races; the build's reading processes (one per CPU) all
    use the cache at once, so it must exist before they start.
    """
    from jupyter_cache.cache.db import create_db

    path.mkdir(parents=True, exist_ok=True)
    create_db(path).dispose()


def _configure(app: Sphinx, config: Any) -> None:
    config.mathjax_path = MATHJAX_SCRIPT
    if config.nb_execution_mode == "cache":
        if not config.nb_execution_cache_path:
            root = Path(app.srcdir)
            config.nb_execution_cache_path = str(
                root / "_build" / ".jupyter_cache" / execution_digest(root)
            )
        prepare_execution_cache(Path(config.nb_execution_cache_path))
    config.html_context = {"default_mode": "light", **config.html_context}


def _write_executed_notebooks(app: Sphinx, exception: Exception | None) -> None:
    """Put each chapter's cached outputs into ``jupyter_execute/<doc>.ipynb``.

    In ``cache`` mode myst-nb 1.4 renders the page from the cached outputs but writes the
    notebook it read, without them, to ``jupyter_execute/``, where the slide decks
    (``slides.py``, which runs after this) and ``book/tools/i18n.py`` look for the executed
    notebooks. This writes the merged notebook instead, for each page this build read (the
    others' are as the build that read them left them) or whose notebook is missing.
    """
    if exception is not None or app.config.nb_execution_mode != "cache":
        return
    import nbformat
    from jupyter_cache import get_cache

    cache = get_cache(app.env.mystnb_config.execution_cache_path)
    executed = Path(app.outdir).parent / "jupyter_execute"
    read = getattr(app, READ_DOCS, None)
    for docname in sorted(app.env.found_docs):
        source = Path(app.srcdir) / f"{docname}.ipynb"
        target = executed / f"{docname}.ipynb"
        if not source.is_file() or (read is not None and docname not in read and target.is_file()):
            continue
        try:
            _, merged = cache.merge_match_into_notebook(nbformat.read(source, as_version=4))
        except KeyError:  # not in the cache: the page was built without executing it
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(merged, target)


# ---------------------------------------------------------------------------------------------
# incremental builds

READ_DOCS = "_book_read_docs"  # the pages this build reads (an attribute of the application)
_OUTLINES = "_book_outlines"  # their outlines before reading
_STARTED = "_book_started"  # when this build began (time.time())


def _reread_named_docs(
    app: Sphinx, env: Any, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    """Re-read the pages that book/tools/build_book.py names (their page, quiz or catalogue
    changed), whatever their files' times say."""
    return [d for d in app.config.book_reread_docs if d in env.found_docs]


def outline(env: Any, docname: str) -> str | None:
    """What the other pages show of ``docname``: its title, its sections, its labels and
    equations, and its numbers (sections, figures, tables, exercises). None before it is read."""
    if docname not in env.all_docs:
        return None
    std = env.get_domain("std")
    math = env.get_domain("math")
    parts = [
        env.titles[docname].astext() if docname in env.titles else "",
        env.tocs[docname].astext() if docname in env.tocs else "",
        sorted((k, *v[1:]) for k, v in std.labels.items() if v[0] == docname),
        sorted((k, *v[1:]) for k, v in std.anonlabels.items() if v[0] == docname),
        sorted((k, v[1]) for k, v in math.equations.items() if v[0] == docname),
        sorted(env.toc_secnumbers.get(docname, {}).items()),
        sorted((k, sorted(v.items())) for k, v in env.toc_fignumbers.get(docname, {}).items()),
    ]
    return repr(parts)


def _before_reading(app: Sphinx, env: Any, docnames: list[str]) -> None:
    setattr(app, READ_DOCS, set(docnames))
    setattr(app, _OUTLINES, {d: outline(env, d) for d in docnames})


def _write_all_when_an_outline_changed(app: Sphinx, env: Any) -> list[str]:
    """Every page, when a page read by this build changed what the others show of it (their
    sidebars, the numbers and titles of their cross-references); else none beyond Sphinx's."""
    before: dict[str, str | None] = getattr(app, _OUTLINES, {})
    changed = sorted(d for d, old in before.items() if outline(env, d) != old)
    if not changed or len(changed) == len(env.found_docs):
        return []
    logger.info(f"book_site: the outline of {', '.join(changed)} changed: writing every page")
    return sorted(env.found_docs)


def _note_start(app: Sphinx) -> None:
    setattr(app, _STARTED, time.time())


def written_pages(app: Sphinx) -> list[Path]:
    """The HTML pages this build wrote (newer than its start); not those of another edition
    published inside this one's folder (``_build/html/zh_CN``, a folder with its own
    ``.buildinfo``), which its own build looks after, maybe at the same time."""
    since = getattr(app, _STARTED, 0.0) - 2.0  # the file system's clock may round
    pages = []
    for folder, subfolders, files in os.walk(app.outdir):
        subfolders[:] = [
            name
            for name in subfolders
            if not os.path.isfile(os.path.join(folder, name, ".buildinfo"))
        ]
        for name in files:
            page = Path(folder, name)
            if name.endswith(".html") and page.stat().st_mtime >= since:
                pages.append(page)
    return pages


def _copy_mathjax(app: Sphinx, exception: Exception | None) -> None:
    if exception is None and app.builder.format == "html":
        copy_asset(str(mathjax_source()), os.path.join(app.outdir, "_static", "mathjax"))


def _is_thebe_asset(asset: Any) -> bool:
    name = getattr(asset, "filename", None) or str(asset)
    body = getattr(asset, "attributes", {}).get("body", "") or ""
    return "thebe" in name or "THEBE_JS_URL" in body


# The theme writes this tag straight from a template macro, not through Sphinx's asset list.
_FONTAWESOME_TAG = re.compile(
    r'\n?[ \t]*<script defer src="[^"]*_static/scripts/fontawesome\.js[^"]*"></script>'
)


def _strip_fontawesome(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    for page in written_pages(app):
        text = page.read_text(encoding="utf-8")
        stripped = _FONTAWESOME_TAG.sub("", text)
        if stripped != text:
            page.write_text(stripped, encoding="utf-8")


def _drop_thebe(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    for key in ("script_files", "css_files"):
        if key in context:
            context[key] = [asset for asset in context[key] if not _is_thebe_asset(asset)]


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity, where the system has one: Linux)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _read_in_parallel(app: Sphinx) -> None:
    jobs = int(os.environ.get("BOOK_JOBS", "0")) or app.config.book_parallel_jobs
    multitoc = app.extensions.get("sphinx_multitoc_numbering")
    if multitoc is not None:
        multitoc.parallel_read_safe = True
        multitoc.parallel_write_safe = True
    app.parallel = max(app.parallel, jobs)


def _cache_pybtex_plugins() -> None:
    """Look each pybtex plugin up once per process instead of once per citation.

    pybtex 0.24 finds a style or backend by scanning every installed distribution's entry points
    (``_load_entry_point``) each time sphinxcontrib-bibtex formats a ``{footcite}``; profiled,
    that was a third of a build. The answer never changes within a build, so it is cached
    (a failed lookup raises and is not cached).
    """
    import functools

    import pybtex.plugin

    lookup = pybtex.plugin._load_entry_point
    if not hasattr(lookup, "cache_info"):
        pybtex.plugin._load_entry_point = functools.cache(lookup)


def setup(app: Sphinx) -> dict[str, Any]:
    _cache_pybtex_plugins()
    app.add_config_value("book_parallel_jobs", usable_cpus(), "")
    # pages to re-read whatever Sphinx sees (set by book/tools/build_book.py; not a rebuild)
    app.add_config_value("book_reread_docs", [], "")
    app.connect("builder-inited", _note_start)
    app.connect("env-get-outdated", _reread_named_docs)
    app.connect("env-before-read-docs", _before_reading)
    # after Sphinx's own handlers (500) have numbered the sections and figures
    app.connect("env-get-updated", _write_all_when_an_outline_changed, priority=900)
    app.connect("config-inited", _configure, priority=900)
    app.connect("build-finished", _copy_mathjax)
    app.connect("build-finished", _write_executed_notebooks, priority=400)
    app.connect("html-page-context", _drop_thebe)
    app.connect("build-finished", _strip_fontawesome)
    app.connect("builder-inited", _read_in_parallel)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
