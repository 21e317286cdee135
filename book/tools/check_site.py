"""Check the built HTML book for defects a reader would see (run after the build).

    python -m book check-site [_build/html] [--force]

Fails (exit 1) when a chapter page shows a figure as text (``<Figure size …>``, which means
the inline backend was off), shows a Python traceback or error output, has no image, has an
explorer without its pre-rendered static version, weighs more than 3 MB, or links to a page
or anchor of the book that does not exist. A page of a translated edition (``<site>/zh_CN/``)
fails when it still holds English prose: a run of ``ENGLISH_RUN`` or more English words in its
article's text, outside code, math, outputs, explorers and the references.

A site that passed is not checked again until it changes: ``_build/.stamps/check_site_<site>.json``
records every page's size and time and the names of every other file (the targets of links),
and this script's own digest. ``--force`` checks all the same.
"""

from __future__ import annotations

import hashlib
import json
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


def site_stamp(site: Path) -> dict[str, object]:
    """What a check of ``site`` reads: each page's size and time (a page written again is
    checked again), the names of the other files (links to them resolve or not), and this
    script."""
    pages, files = {}, []
    for path in sorted(site.rglob("*")):
        if path.is_dir():
            continue
        name = path.relative_to(site).as_posix()
        if path.suffix == ".html":
            info = path.stat()
            pages[name] = [info.st_size, info.st_mtime_ns]
        else:
            files.append(name)
    script = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
    return {"script": script, "pages": pages, "files": files}


def stamp_path(site: Path) -> Path:
    """Where the stamp of a passed check of ``site`` is kept: ``<site>/../.stamps/``."""
    return site.resolve().parent / ".stamps" / f"check_site_{site.resolve().name}.json"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    force = "--force" in argv
    argv = [arg for arg in argv if arg != "--force"]
    site = Path(argv[0] if argv else "_build/html")
    stamp_file = stamp_path(site)
    stamp = site_stamp(site)
    try:
        passed = json.loads(stamp_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        passed = None
    if passed == stamp and not force:
        print(f"checked {len(stamp['pages'])} pages: unchanged since they passed")
        return 0
    stamp_file.unlink(missing_ok=True)
    status = check(site)
    if status == 0:
        stamp_file.parent.mkdir(parents=True, exist_ok=True)
        stamp_file.write_text(json.dumps(stamp), encoding="utf-8")
    return status


def check(site: Path) -> int:
    """Check every page of ``site``; print the problems; 1 when there are any."""
    pages = sorted(site.rglob("*.html"))
    parsed = {}
    for page in pages:
        p = Links()
        p.feed(page.read_text(encoding="utf-8"))
        parsed[page.resolve()] = p
    problems = []
    for page in sorted((site / "chapters").glob("*.html")):
        html = page.read_text(encoding="utf-8")
        name = page.relative_to(site)
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
        if page.stat().st_size > MAX_PAGE_BYTES:
            problems.append(f"{name}: {page.stat().st_size / 1e6:.2f} MB, over the 3 MB budget")
    for language in TRANSLATIONS:
        for page in sorted((site / language).rglob("*.html")):
            if page.name in ("search.html", "genindex.html") or "slides" in page.parts:
                continue
            for run in english_runs(page.read_text(encoding="utf-8")):
                problems.append(f"{page.relative_to(site)}: English prose left: {run[:100]!r}")
    for page, p in parsed.items():
        for href in p.hrefs:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or href.startswith(("mailto:", "javascript:")):
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                problems.append(f"{page.relative_to(site.resolve())}: broken link {href}")
            elif parts.fragment and target in parsed and parts.fragment not in parsed[target].ids:
                problems.append(f"{page.relative_to(site.resolve())}: missing anchor {href}")
    for line in problems:
        print(line)
    print(f"checked {len(pages)} pages: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
