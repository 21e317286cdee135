"""Check the built HTML book for defects a reader would see (run after the build).

    python -m book check-site [_build/html] [--force]

Fails (exit 1) when a chapter page shows a figure as text (``<Figure size …>``, which means
the inline backend was off), shows a Python traceback or error output, has no image, has an
explorer without its pre-rendered static version, weighs more than 3 MB, or links to a page
or anchor of the book that does not exist. A page of a translated edition (``<site>/zh_CN/``)
fails when it still holds English prose: a run of ``ENGLISH_RUN`` or more English words in its
article's text, outside code, math, outputs, explorers and the references.

Only the pages written since the last check are read again: ``_build/.stamps/check_site_html.json``
keeps, per page, its size and time, its links, its anchors and its own problems (and this
script's digest); the links of every page are checked again each time, against the files there
are now. ``--force`` reads every page.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from book.ext.editions import TRANSLATIONS

MAX_PAGE_BYTES = 3_000_000
ENGLISH_RUN = 5  # this many English words in a row are a sentence left untranslated
_ENGLISH_RUN = re.compile(
    r"[A-Za-z][A-Za-z'’-]*(?:[ ,;:()/-]+[A-Za-z][A-Za-z'’-]*){" + str(ENGLISH_RUN - 1) + ",}"
)
# Parts of a page whose text is not prose: code, math, outputs, explorers, references,
# the header and sidebars, and the terms of a definition list (the glossary is bilingual).
_SKIP_TAGS = {
    "pre",
    "code",
    "kbd",
    "script",
    "style",
    "math",
    "svg",
    "nav",
    "header",
    "footer",
    "dt",
}
_SKIP_CLASSES = {
    "math",
    "highlight",
    "cell_output",
    "output",
    "posenc-explorer",
    "footnote-list",
    "footnote",
    "bibliography",
    "headerlink",
    "bd-header-article",
    "sig",
    "citation",
    "language-links",
    "deck-link",
}
_VOID = {
    "area",
    "base",
    "br",
    "col",
    "embed",
    "hr",
    "img",
    "input",
    "link",
    "meta",
    "source",
    "track",
    "wbr",
}


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        d = dict(attrs)
        if d.get("id"):
            self.ids.add(d["id"])
        if tag == "a" and d.get("href"):
            self.hrefs.append(d["href"])


class Prose(HTMLParser):
    """The text of a page's article, without the parts listed in ``_SKIP_*``."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0  # inside <article>
        self.skip: list[int] = []  # depths of open skipped elements
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID:
            return
        classes = set((dict(attrs).get("class") or "").split())
        if tag == "article" and "bd-article" in classes:
            self.depth = 1
            return
        if not self.depth:
            return
        self.depth += 1
        if tag in _SKIP_TAGS or classes & _SKIP_CLASSES or dict(attrs).get("id") == "references":
            self.skip.append(self.depth)
        if tag in ("p", "li", "dt", "dd", "td", "th", "h1", "h2", "h3", "h4", "div", "figcaption"):
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID or not self.depth:
            return
        if self.skip and self.skip[-1] == self.depth:
            self.skip.pop()
        self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth and not self.skip:
            self.parts.append(data)


def english_runs(page_html: str) -> list[str]:
    """Runs of ``ENGLISH_RUN`` or more English words in the prose of a page's article."""
    parser = Prose()
    parser.feed(page_html)
    text = re.sub(r"[ \t]+", " ", "".join(parser.parts))
    return [m.group(0) for m in _ENGLISH_RUN.finditer(text)]


def page_problems(site: Path, name: str, html: str, size: int) -> list[str]:
    """The problems of one page that its own content shows (the links are checked apart)."""
    problems = []
    parts = name.split("/")
    if len(parts) == 2 and parts[0] == "chapters":
        if "&lt;Figure size" in html:
            problems.append(f"{name}: a figure is shown as text (is %matplotlib inline missing?)")
        if re.search(
            r"Traceback \(most recent call last\)|output stderr|class=\"output error", html
        ):
            problems.append(f"{name}: shows an error or stderr output")
        if "<img" not in html:
            problems.append(f"{name}: has no image")
        if "application/vnd.jupyter.widget-view" in html:
            problems.append(f"{name}: shows a widget view instead of the static explorer")
        if size > MAX_PAGE_BYTES:
            problems.append(f"{name}: {size / 1e6:.2f} MB, over the 3 MB budget")
    translated = parts[0] in TRANSLATIONS and len(parts) > 1
    if translated and parts[-1] not in ("search.html", "genindex.html") and "slides" not in parts:
        for run in english_runs(html):
            problems.append(f"{name}: English prose left: {run[:100]!r}")
    return problems


def cache_path(site: Path) -> Path:
    """Where the check of ``site`` keeps what it read of each page: ``<site>/../.stamps/``."""
    return site.resolve().parent / ".stamps" / f"check_site_{site.resolve().name}.json"


def _script_digest() -> str:
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


def read_pages(site: Path, cache: dict, force: bool = False) -> tuple[dict[str, dict], int]:
    """Each page's links, anchors and own problems: read again for a page whose size or time
    changed since the last check (``cache``), kept for the others; and how many were read."""
    known = {} if force or cache.get("script") != _script_digest() else cache.get("pages", {})
    pages, read = {}, 0
    for page in sorted(site.rglob("*.html")):
        name = page.relative_to(site).as_posix()
        info = page.stat()
        stat = [info.st_size, info.st_mtime_ns]
        if known.get(name, {}).get("stat") == stat:
            pages[name] = known[name]
            continue
        html = page.read_text(encoding="utf-8")
        links = Links()
        links.feed(html)
        pages[name] = {
            "stat": stat,
            "hrefs": links.hrefs,
            "ids": sorted(links.ids),
            "problems": page_problems(site, name, html, info.st_size),
        }
        read += 1
    return pages, read


def link_problems(site: Path, pages: dict[str, dict]) -> list[str]:
    """Links to a page or file of the site that does not exist, or to a missing anchor."""
    problems = []
    ids = {name: set(entry["ids"]) for name, entry in pages.items()}
    exists: dict[Path, bool] = {}
    for name, entry in pages.items():
        page = site / name
        for href in entry["hrefs"]:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or href.startswith(("mailto:", "javascript:")):
                continue
            target = (
                Path(os.path.normpath(page.parent / unquote(parts.path))) if parts.path else page
            )
            if target not in exists:
                exists[target] = target.exists()
            if exists[target] and target.is_dir():
                target = target / "index.html"
                exists[target] = target.exists()
            if not exists[target]:
                problems.append(f"{name}: broken link {href}")
                continue
            try:
                relative = target.relative_to(site).as_posix()
            except ValueError:
                continue
            if parts.fragment and relative in ids and parts.fragment not in ids[relative]:
                problems.append(f"{name}: missing anchor {href}")
    return problems


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    force = "--force" in argv
    argv = [arg for arg in argv if arg != "--force"]
    site = Path(argv[0] if argv else "_build/html").resolve()
    path = cache_path(site)
    try:
        cache = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        cache = {}
    pages, read = read_pages(site, cache, force)
    problems = [problem for entry in pages.values() for problem in entry["problems"]]
    problems += link_problems(site, pages)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"script": _script_digest(), "pages": pages}), encoding="utf-8")
    for line in problems:
        print(line)
    print(
        f"checked {len(pages)} pages ({read} read again, the others unchanged): "
        f"{len(problems)} problem(s)"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
