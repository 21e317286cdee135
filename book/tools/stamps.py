"""What each edition of the book is built from, and what a build must redo (``make book``).

``book/tools/build_book.py`` keeps a stamp per edition, ``_build/.stamps/<language>.json``: a
digest of every input of the edition's last successful build, in two kinds.

* **Global inputs**, which every page depends on: ``_config.yml``, ``_toc.yml``, the
  bibliography, the images of the configuration (favicon), the Sphinx extensions of
  ``book/ext`` (their code, stylesheets, scripts and templates), the build's own scripts and
  settings, and the execution digest (``book_site.execution_digest``: posenc, the book's
  figures, explorers, toy model…, the pins). A translation adds its catalogues that are no
  page's own (``book_ui.po``, ``explorers.po``, ``slides.po``) and, for a search that splits
  words with the glossary (Chinese), the appendix's glossary.
* **A page's own inputs**: its source (notebook or Markdown), the quiz files it shows
  (``quizzes/<language>/<name>.yaml``) and, in a translation, its catalogue
  (``locales/<language>/LC_MESSAGES/<page>.po``); for a notebook, the digest of its
  code cells and kernel (``CODE``), which tells whether rebuilding it executes it; and, for a
  page that offers the wheels of posenc and book (the intro), the digest of what they are made
  from (``DOWNLOADS``: ``book/ext/downloads.py``, which builds and publishes them); for the
  figure gallery, every figure's label and caption (``GALLERY``: ``book/ext/gallery.py``).

``plan`` compares a stamp with the inputs as they are now: nothing changed, the edition is not
built at all; only pages' own inputs changed, Sphinx updates the edition and re-reads those
pages; a global input changed (or there is no stamp, or no built edition), every page is
read and written again (``sphinx -a``, with every page named to be read again).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from book.ext.downloads import downloads_digest, shows_downloads
from book.ext.editions import SOURCE_LANGUAGE
from book.ext.gallery import gallery_digest, shows_gallery, toc_docnames

STAMP_VERSION = 1
PAGE_SUFFIXES = (".ipynb", ".md")
# The catalogues of a translation that are no page's own: the extensions' words, the
# explorers' titles and controls, the decks' notes (book/ext/editions.py).
SHARED_CATALOGUES = ("book_ui", "explorers", "slides")
GLOSSARY = ("appendix/which_encoding.ipynb", "## Glossary")  # the notebook, the cell's start
_QUIZ = re.compile(r"\{quiz\}[ \t]+([\w.-]+)")
_SKIP_PARTS = {"__pycache__", ".ipynb_checkpoints", ".pytest_cache"}


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:20]


def file_digest(path: Path) -> str | None:
    """A digest of a file's content; None when there is no such file."""
    try:
        return _digest(path.read_bytes())
    except FileNotFoundError:
        return None


def tree_digest(folder: Path) -> str | None:
    """A digest of every file under ``folder`` (names and contents; caches left out)."""
    if not folder.is_dir():
        return None
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not _SKIP_PARTS & set(path.parts) and path.suffix != ".pyc":
            digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:20]


def toc_pages(toc_file: Path) -> list[str]:
    """The document names of ``_toc.yml``, root first, in reading order."""
    return toc_docnames(toc_file)


def page_source(root: Path, docname: str) -> Path | None:
    """The source file of page ``docname`` (a notebook or Markdown), None when missing."""
    for suffix in PAGE_SUFFIXES:
        path = root / f"{docname}{suffix}"
        if path.is_file():
            return path
    return None


def quiz_names(text: str) -> list[str]:
    """The quizzes a page's source shows: ``{quiz} name`` directives, in order."""
    return list(dict.fromkeys(_QUIZ.findall(text)))


CODE = "code"  # a notebook's code cells and kernel: what its execution depends on
DOWNLOADS = "downloads"  # the wheels and pins a page offers (book/ext/downloads.py)
GALLERY = "gallery"  # every figure's label and caption (book/ext/gallery.py)


def code_digest(notebook: bytes) -> str | None:
    """A digest of what executing a notebook depends on besides the packages: its kernel and
    its code cells (the jupyter-cache's key is made of them); None when it is not JSON."""
    try:
        nb = json.loads(notebook)
    except ValueError:
        return None
    cells = [
        "".join(c["source"]) if isinstance(c.get("source"), list) else c.get("source", "")
        for c in nb.get("cells", [])
        if c.get("cell_type") == "code"
    ]
    kernel = nb.get("metadata", {}).get("kernelspec", {})
    return _digest(json.dumps([kernel, cells], sort_keys=True).encode())


def page_inputs(root: Path, docname: str, language: str) -> dict[str, str | None]:
    """Path (relative to ``root``) -> digest of each of a page's own inputs in ``language``;
    and, for a notebook, ``CODE``: the digest of what its execution depends on; and, for a
    page that offers the wheels of posenc and book (the intro), ``DOWNLOADS``: the digest of
    what they are made from."""
    source = page_source(root, docname)
    if source is None:
        return {f"{docname}{PAGE_SUFFIXES[0]}": None}
    data = source.read_bytes()
    inputs: dict[str, str | None] = {source.relative_to(root).as_posix(): _digest(data)}
    if source.suffix == ".ipynb":
        inputs[CODE] = code_digest(data)
    text = data.decode("utf-8", errors="replace")
    for name in quiz_names(text):
        quiz = f"quizzes/{language}/{name}.yaml"
        inputs[quiz] = file_digest(root / quiz)
    if shows_downloads(text):
        inputs[DOWNLOADS] = downloads_digest(root)
    if shows_gallery(text):
        inputs[GALLERY] = gallery_digest(root, language)
    if language != SOURCE_LANGUAGE:
        catalogue = f"locales/{language}/LC_MESSAGES/{docname}.po"
        inputs[catalogue] = file_digest(root / catalogue)
    return inputs


def glossary_digest(root: Path) -> str | None:
    """A digest of the appendix's glossary cell (a translation's search dictionary)."""
    path, start = GLOSSARY
    try:
        cells = json.loads((root / path).read_text(encoding="utf-8"))["cells"]
    except (OSError, ValueError, KeyError):
        return None
    for cell in cells:
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else source
        if cell.get("cell_type") == "markdown" and source.startswith(start):
            return _digest(source.encode())
    return None


@dataclass(frozen=True)
class Book:
    """Where a book's inputs are, besides its pages (``this_book()`` for this repository)."""

    root: Path
    extensions: Path  # the Sphinx extensions: code, static files, templates
    build_files: tuple[Path, ...] = ()  # the build's own scripts
    config_files: tuple[str, ...] = ("_config.yml", "_toc.yml")


def _name(root: Path, path: Path) -> str:
    """``path`` relative to ``root`` where it lies under it (the stamp's names)."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def bibliographies(root: Path) -> list[str]:
    """The BibTeX files ``_config.yml`` names (``bibtex_bibfiles``)."""
    try:
        config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8")) or {}
    except OSError:
        return []
    return [str(name) for name in config.get("bibtex_bibfiles", [])]


def edition_inputs(
    book: Book,
    language: str,
    *,
    execution: str,
    settings: Mapping[str, Any] | None = None,
    search_glossary: bool = False,
) -> dict[str, Any]:
    """The stamp of an edition as its inputs are now: ``global`` (name -> digest) and
    ``pages`` (docname -> its own inputs' digests). ``execution`` is the execution digest,
    ``settings`` the Sphinx settings the build passes, ``search_glossary`` whether its search
    splits words with the glossary."""
    root = book.root
    shared: dict[str, str | None] = {name: file_digest(root / name) for name in book.config_files}
    for name in bibliographies(root):
        shared[name] = file_digest(root / name)
    shared["images/"] = tree_digest(root / "images")
    shared[_name(root, book.extensions) + "/"] = tree_digest(book.extensions)
    for path in book.build_files:
        shared[_name(root, path)] = file_digest(path)
    shared["execution"] = execution
    shared["settings"] = _digest(json.dumps(settings or {}, sort_keys=True, default=str).encode())
    if language != SOURCE_LANGUAGE:
        for domain in SHARED_CATALOGUES:
            name = f"locales/{language}/LC_MESSAGES/{domain}.po"
            shared[name] = file_digest(root / name)
    if search_glossary:
        shared["glossary"] = glossary_digest(root)
    toc = root / "_toc.yml"
    pages = {d: page_inputs(root, d, language) for d in toc_pages(toc)} if toc.is_file() else {}
    return {"version": STAMP_VERSION, "language": language, "global": shared, "pages": pages}


@dataclass(frozen=True)
class Plan:
    """What a build of one edition must do.

    ``action``: ``"skip"`` (nothing changed), ``"update"`` (re-read ``pages``, whose own inputs
    changed, and write what Sphinx finds outdated), or ``"full"`` (read and write every page).
    ``changed``: the inputs that changed, for the log.
    """

    action: str
    pages: tuple[str, ...] = ()
    changed: tuple[str, ...] = field(default=())

    def describe(self) -> str:
        if self.action == "skip":
            return "nothing changed"
        what = ", ".join(self.changed[:6]) + (" …" if len(self.changed) > 6 else "")
        if self.action == "full":
            return f"every page ({what})"
        return f"{len(self.pages)} page(s): {', '.join(self.pages)} ({what})"


def plan(previous: Mapping[str, Any] | None, current: Mapping[str, Any], built: bool) -> Plan:
    """What to rebuild, from the stamp of the last successful build (``previous``), the inputs
    now (``current``, from ``edition_inputs``) and whether the edition's output is there."""
    if not built:
        return Plan("full", changed=("no built edition",))
    if not previous or previous.get("version") != STAMP_VERSION:
        return Plan("full", changed=("no stamp",))
    old_shared, new_shared = previous.get("global", {}), current["global"]
    changed = sorted(
        name
        for name in old_shared.keys() | new_shared.keys()
        if old_shared.get(name) != new_shared.get(name)
    )
    old_pages, new_pages = previous.get("pages", {}), current["pages"]
    if set(old_pages) != set(new_pages):  # (their order is _toc.yml's, a global input)
        changed.append("the pages")
    if changed:
        return Plan("full", changed=tuple(changed))
    pages, inputs = [], []
    for docname, new in new_pages.items():
        old = old_pages[docname]
        differ = [n for n in old.keys() | new.keys() if old.get(n) != new.get(n)]
        if differ:
            pages.append(docname)
            inputs += sorted(differ)
    if not pages:
        return Plan("skip")
    return Plan("update", tuple(pages), tuple(inputs))


UNBUILT = "(unbuilt)"  # a digest that matches no input: its build did not finish


def unbuilt(previous: Mapping[str, Any] | None, todo: Plan) -> dict[str, Any] | None:
    """The stamp to keep while ``todo`` runs: ``previous`` with the pages it rebuilds marked
    ``UNBUILT``, or None (no stamp: every page) when it rebuilds every page. A build that fails
    or is stopped thus leaves them to be rebuilt next time, whatever their inputs then hold:
    a page that failed must be read again to show its warnings again."""
    if todo.action == "full" or not previous:
        return None
    marked = json.loads(json.dumps(previous))
    for docname in todo.pages:
        if docname in marked.get("pages", {}):
            marked["pages"][docname] = {n: UNBUILT for n in marked["pages"][docname]}
    return marked


def load(path: Path) -> dict[str, Any] | None:
    """A saved stamp; None when there is none or it cannot be read."""
    try:
        stamp = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return stamp if isinstance(stamp, dict) else None


def save(path: Path, stamp: Mapping[str, Any]) -> None:
    """Write a stamp (atomically: a stopped build never leaves half a stamp)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.part")
    tmp.write_text(json.dumps(stamp, indent=1, sort_keys=True), encoding="utf-8")
    tmp.replace(path)


def executes(previous: Mapping[str, Any] | None, current: Mapping[str, Any], todo: Plan) -> bool:
    """Whether rebuilding ``todo`` executes a notebook: one of its pages' code (``CODE``)
    differs from the last successful build's, whose outputs the execution cache holds (with
    the same execution digest: a new one is a global change, and every page is rebuilt)."""
    if todo.action == "full" or not previous:
        return True
    old = previous.get("pages", {})
    return any(
        old.get(docname, {}).get(CODE) != current["pages"][docname].get(CODE)
        for docname in todo.pages
        if CODE in current["pages"].get(docname, {})
    )


def changed_catalogues(todo: Plan) -> Iterable[str]:
    """The catalogues (``.po``, relative to the root) among the inputs a plan rebuilds."""
    return [name for name in todo.changed if name.endswith(".po")]
