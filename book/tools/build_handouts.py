"""Print the built book into PDF handouts: one per page of ``_toc.yml``, and the whole book.

    python -m book handouts [SITE ...] [--jobs N] [--force] [--toc _toc.yml]
                                   [--only STEM ...]

Writes ``<site>/pdf/<stem>.pdf`` for every page of ``_toc.yml`` (intro, chapters, appendix;
``<stem>`` is the file's name without its folder) and ``<site>/pdf/book.pdf``, the pages
joined in reading order with one bookmark per page and the pages' own headings below it.
``make book`` runs it after the build, for both editions at once (``_build/html`` and
``_build/html/zh_CN``: one browser prints the pages of both), and before
``book/tools/check_site.py``, which checks that the download menus' links to these files
resolve.

The pages are printed by Debian's chromium, driven by playwright (never
``playwright install``), from the built site served on 127.0.0.1, so what is printed is what
a reader sees, with the print stylesheet of ``book/ext/handouts.py``. Each page is printed once the
network is idle, MathJax has typeset every formula and the fonts and images have loaded, after
``bookHandout.prepare()`` has moved the solutions to the end of the chapter. Several pages
print at once in one browser (``--jobs``, default 3). A page whose math or images did not
render fails the run.

Every slide deck of a site (``<site>/slides/<stem>.slides.html``, ``book/ext/slides.py``) is
printed too, into ``<site>/pdf/<stem>.slides.pdf``: opened with ``?print-pdf`` at 1920 × 1080,
fitted as the deck fits it, one page the size of a slide per slide. A deck whose printed pages
would clip a slide fails the run.

Printing costs about 3 s of CPU per page, so a page whose print would not change keeps its
handout: ``_build/handouts_cache.json`` (``_build/zh_CN_handouts_cache.json`` for the Chinese
edition) records, per page, a digest of what its print depends on (``page_key``): the page's
article (what prints; not its sidebars, nor the widget state of the live explorers), the
files its stylesheets, scripts and images are read from, its print style, and how this
script prints (``print_settings``: chromium, its flags, the page-ready and PDF settings).
``book.pdf`` is joined again only when one of its pages changed; a deck is printed again only
when its file changed (``deck_key``). When nothing needs printing,
no browser is started. ``--force`` reprints everything.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import hashlib
import http.server
import inspect
import json
import os
import re
import shutil
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from book.ext.handouts import BOOK_STEM, PDF_FOLDER, SOLUTIONS_STEM, handout_stem
from book.ext.slides import deck_pdf

DECK_FOLDER = "slides"  # the decks of a site (book/ext/slides.py)
DECKS_ENTRY = "slides"  # the decks' entry in a site's cache: deck file name -> key, pages
from book.tools import stamps

ROOT = Path(__file__).resolve().parents[2]
CACHE_NAME = "handouts_cache.json"  # beside the site (_build/), not published with it
RAW_FOLDER = "handouts_raw"  # the prints, beside the cache (Handouts.raw_dir)
TIMEOUT_MS = 120_000  # per step of a page; generous for a loaded 2-core machine
PDF_OPTIONS: dict[str, Any] = {
    "print_background": True,
    "prefer_css_page_size": True,
    "outline": True,
    "tagged": True,
}

# Debian's chromium in a container with no display, no GPU and no network.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]

# Resolves once MathJax (when the page loads it) has typeset, fonts are loaded and every image
# has decoded; returns what did not render.
_READY = """async () => {
  if (document.querySelector('script[src*="mathjax"]')) {
    const deadline = Date.now() + 30000;
    while (!(window.MathJax && MathJax.startup && MathJax.startup.promise)) {
      if (Date.now() > deadline) { return {error: "MathJax never started"}; }
      await new Promise(r => setTimeout(r, 50));
    }
    await MathJax.startup.promise;
  }
  await document.fonts.ready;
  await Promise.all(Array.from(document.images).map(img => img.decode().catch(() => null)));
  return {
    raw_math: Array.from(document.querySelectorAll('.math'))
      .filter(e => !e.querySelector('mjx-container')).length,
    math_errors: document.querySelectorAll('mjx-merror').length,
    broken_images: Array.from(document.images)
      .filter(img => !(img.complete && img.naturalWidth > 0)).length,
    handout_js: !!window.bookHandout,
    title: document.title.split(" \\u2014 ")[0].trim(),
  };
}"""

# Each heading's text as chromium's bookmarks spell it (no math: MathJax draws it), and as the
# reader sees it (math as its text from MathJax's assistive MathML).
_HEADINGS = """() => Array.from(document.querySelectorAll('h1, h2, h3, h4, h5, h6')).map(h => {
  const bare = h.cloneNode(true);
  bare.querySelectorAll('.headerlink, mjx-container').forEach(e => e.remove());
  const full = h.cloneNode(true);
  full.querySelectorAll('.headerlink').forEach(e => e.remove());
  full.querySelectorAll('mjx-container').forEach(m => {
    const mml = m.querySelector('mjx-assistive-mml');
    m.replaceWith(mml ? mml.textContent : '');
  });
  const section = h.closest('section[id]');
  return [bare.textContent, full.textContent.replace(/\\s+/g, ' ').trim(), section ? section.id : ''];
})"""

# Every id of the article -> the id of the section holding it: where book.pdf sends a link to it.
_ANCHORS = """() => {
  const out = {};
  document.querySelectorAll('main [id]').forEach(e => {
    const section = e.closest('section[id]');
    if (section) out[e.id] = section.id;
  });
  return out;
}"""

# A link to another page of the site (or to a deck, a download) points, while printed, at
# SITE_MARKER + its path: never at the temporary server. The published PDFs then link it to the
# site's base URL (``html.baseurl``) or drop it (``publish_handout``), and book.pdf links the
# book's own pages inside itself (``BookJoin``). Links within the page stay chromium's own.
SITE_MARKER = "https://book-site.invalid/"
_SITE_LINKS = """(marker) => {
  let n = 0;
  document.querySelectorAll('a[href]').forEach(a => {
    const url = new URL(a.getAttribute('href'), location.href);
    if (url.origin !== location.origin || url.pathname === location.pathname) return;
    a.setAttribute('href', marker + url.pathname.replace(/^\\//, '') + url.hash);
    n += 1;
  });
  return n;
}"""


def toc_pages(toc_file: Path = ROOT / "_toc.yml") -> list[str]:
    """Return the document names in ``_toc.yml``, root first, in reading order."""
    return stamps.toc_pages(toc_file)


@dataclass
class Printed:
    """One page printed to PDF."""

    docname: str
    path: Path
    title: str
    seconds: float
    headings: list[tuple[str, str, str]] = field(default_factory=list)
    pages: int = 0
    anchors: dict[str, str] = field(default_factory=dict)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def serve(site: Path) -> Iterator[str]:
    """Serve ``site`` on a free port of 127.0.0.1; yield its base URL."""
    handler = functools.partial(_Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


async def _print_page(context: Any, base: str, docname: str, out: Path) -> Printed:
    start = time.perf_counter()
    page = await context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    try:
        await page.goto(f"{base}/{docname}.html", wait_until="networkidle")
        state = await page.evaluate(_READY)
        problems = [
            f"{state[key]} {what}"
            for key, what in (
                ("raw_math", "formulas not typeset"),
                ("math_errors", "MathJax errors"),
                ("broken_images", "broken images"),
            )
            if state.get(key)
        ]
        if state.get("error"):
            problems.append(state["error"])
        if not state.get("handout_js"):
            problems.append("no handout.js (was the site built with book/ext/handouts.py?)")
        if problems:
            raise RuntimeError(f"{docname}: " + "; ".join(problems))
        await page.evaluate("() => window.bookHandout.prepare()")
        await page.evaluate(_SITE_LINKS, SITE_MARKER)
        headings = [tuple(h) for h in await page.evaluate(_HEADINGS)]
        anchors = await page.evaluate(_ANCHORS)
        tmp = out.with_suffix(".pdf.part")
        await page.pdf(path=str(tmp), **PDF_OPTIONS)
        tmp.replace(out)
        answers = solutions_path(out)
        # printing restored the page ("afterprint"): prepare it again, then keep the solutions
        if await page.evaluate(
            "() => { window.bookHandout.prepare(); return window.bookHandout.solutionsOnly(); }"
        ):
            tmp = answers.with_suffix(".pdf.part")
            await page.pdf(path=str(tmp), **PDF_OPTIONS)
            tmp.replace(answers)
        else:
            answers.unlink(missing_ok=True)
        seconds = time.perf_counter() - start
        return Printed(docname, out, state["title"], seconds, headings, anchors=anchors)
    finally:
        await page.close()


# Resolves once a deck's ?print-pdf layout is final: reveal.js has laid out its pages, MathJax has
# typeset, the deck has fitted every page (its fitEveryPage), fonts and images have loaded;
# returns the count of pages, of slides, and of pages whose slide runs past the page.
_DECK_READY = """async () => {
  const deadline = Date.now() + 60000;
  const ready = () => window.Reveal && Reveal.isReady()
    && document.querySelectorAll('.pdf-page').length > 0;
  while (!ready()) {
    if (Date.now() > deadline) { return {error: "the deck never laid out its pages"}; }
    await new Promise(r => setTimeout(r, 50));
  }
  if (window.MathJax && MathJax.startup) { await MathJax.startup.promise; }
  await document.fonts.ready;
  await Promise.all(Array.from(document.images).map(img => img.decode().catch(() => null)));
  if (window.fitEveryPage) { fitEveryPage(); }
  const pages = Array.from(document.querySelectorAll('.pdf-page'));
  return {
    pages: pages.length,
    slides: Reveal.getTotalSlides(),
    clipped: pages.filter(p => {
      const s = p.querySelector('section');
      return s && s.scrollHeight - p.clientHeight > 2;
    }).length,
    math_errors: document.querySelectorAll('mjx-merror').length,
    title: document.title,
  };
}"""
DECK_VIEWPORT = {"width": 1920, "height": 1080}  # a projector's: what the deck is fitted at


async def _print_deck(context: Any, base: str, name: str, out: Path) -> Printed:
    """Print the deck ``slides/<name>`` with ``?print-pdf``: one page per slide, the size of a
    slide, as a lecturer's "Print" would. A deck whose pages would clip a slide or whose math
    did not typeset fails the run."""
    start = time.perf_counter()
    page = await context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    try:
        await page.set_viewport_size(DECK_VIEWPORT)
        await page.goto(f"{base}/slides/{name}?print-pdf", wait_until="load")
        state = await page.evaluate(_DECK_READY)
        problems = [state["error"]] if state.get("error") else []
        if state.get("clipped"):
            problems.append(f"{state['clipped']} printed slide(s) run past their page")
        if state.get("math_errors"):
            problems.append(f"{state['math_errors']} MathJax errors")
        if not problems and state["pages"] != state["slides"]:
            problems.append(f"{state['pages']} pages for {state['slides']} slides")
        if problems:
            raise RuntimeError(f"slides/{name}: " + "; ".join(problems))
        await page.evaluate(_SITE_LINKS, SITE_MARKER)
        tmp = out.with_suffix(".pdf.part")
        await page.pdf(path=str(tmp), print_background=True, prefer_css_page_size=True)
        tmp.replace(out)
        seconds = time.perf_counter() - start
        return Printed(f"slides/{name}", out, state["title"], seconds, pages=state["pages"])
    finally:
        await page.close()


def deck_names(site: Path) -> list[str]:
    """The file names of the site's slide decks (``slides/<stem>.slides.html``), sorted."""
    return sorted(path.name for path in (site / DECK_FOLDER).glob("*.slides.html"))


def deck_pdf_name(name: str) -> str:
    """The published PDF of deck ``name``: ``03_sinusoidal.slides.html`` ->
    ``03_sinusoidal.slides.pdf`` (``book.ext.slides.deck_pdf``), beside the handouts in
    ``pdf/``."""
    return deck_pdf(name.removesuffix(".slides.html"))


def deck_key(site: Path, name: str) -> str:
    """A digest of what the PDF of deck ``name`` depends on: the deck's file (its slides,
    figures, styles and scripts are inline) and how it is printed."""
    digest = hashlib.sha256(print_settings().encode())
    digest.update(inspect.getsource(_print_deck).encode() + _DECK_READY.encode())
    digest.update(_content_digest(site / DECK_FOLDER / name).encode())
    return digest.hexdigest()


def solutions_path(raw: Path) -> Path:
    """Where a page's solutions alone are printed, beside its print ``raw``
    (``03_sinusoidal.pdf`` -> ``03_sinusoidal.solutions.pdf``), for the instructor's PDF."""
    return raw.with_name(f"{raw.stem}.solutions.pdf")


def join_solutions(printed: list[Printed], out: Path, base: str | None, title: str) -> int:
    """The instructor's ``solutions.pdf``: every page's solutions (``solutions_path``) in
    reading order, a bookmark per chapter, pages labelled 1…n, ``title`` in its metadata; links
    to the site go to ``base`` or are dropped. Return its page count (0, and no file, when no
    page has solutions)."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for item in printed:
        path = solutions_path(item.path)
        if not path.is_file():
            continue
        first = len(writer.pages)
        writer.append(PdfReader(path), import_outline=False)
        writer.add_outline_item(title=item.title, page_number=first)
    if not writer.pages:
        out.unlink(missing_ok=True)
        return 0
    for page in writer.pages:
        relink_page(writer, page, base)
    writer.set_page_label(0, len(writer.pages) - 1, style="/D", start=1)
    writer.add_metadata({"/Title": title, "/Creator": "posenc book: book/tools/build_handouts.py"})
    tmp = out.with_suffix(".pdf.part")
    with tmp.open("wb") as f:
        writer.write(f)
    tmp.replace(out)
    return len(writer.pages)


@dataclass(frozen=True)
class Job:
    """One page to print: from ``site`` (served), to ``out``; a deck (``deck``: its file name
    under ``slides/``) prints through ``?print-pdf``."""

    site: Path
    docname: str
    out: Path
    deck: bool = False


async def print_pages(jobs: list[Job], at_once: int) -> list[Printed]:
    """Print every page of ``jobs``, ``at_once`` at a time, in one browser."""
    from playwright.async_api import async_playwright

    chromium_path = shutil.which("chromium")
    if chromium_path is None:
        raise SystemExit(
            "build_handouts: Debian's chromium is not installed (sudo apt-get install -y "
            "chromium); do not run `playwright install`."
        )
    limit = asyncio.Semaphore(at_once)
    with ExitStack() as stack:
        bases = {site: stack.enter_context(serve(site)) for site in {job.site for job in jobs}}
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=chromium_path, args=CHROMIUM_FLAGS)
            # one context: the pages share the HTTP cache and compiled scripts (MathJax)
            context = await browser.new_context()
            try:

                async def one(job: Job) -> Printed:
                    async with limit:
                        if job.deck:
                            return await _print_deck(context, bases[job.site], job.docname, job.out)
                        return await _print_page(context, bases[job.site], job.docname, job.out)

                return list(await asyncio.gather(*(one(job) for job in jobs)))
            finally:
                await browser.close()


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _same_heading(title: str, bare: str) -> bool:
    """Whether chromium's bookmark ``title`` spells the heading whose text without math is
    ``bare``: equal up to white space, or the heading twice over, whole or interleaved (a
    heading with math comes out as "A B A B" or "A A , B B": the same letters, twice)."""
    key, bare = _squash(title), _squash(bare)
    if not bare:
        return False
    if key in (bare, bare + bare):
        return True
    return len(key) == 2 * len(bare) and sorted(key) == sorted(bare + bare)


def heading_matches(titles: list[str], headings: list[tuple[str, ...]]) -> list[int | None]:
    """For each of chromium's bookmark titles, the index of the page's heading it stands for.

    Chromium drops the math from a heading, joins the lines of a wrapped heading without a
    space, and spells a heading with math or that starts a page twice (``_same_heading``);
    each bookmark is matched, in order, with the next heading it spells. None: no match.
    """
    found: list[int | None] = []
    k = 0
    for title in titles:
        for j in range(k, len(headings)):
            if _same_heading(title, headings[j][0]):
                found.append(j)
                k = j + 1
                break
        else:
            found.append(None)
    return found


def heading_titles(titles: list[str], headings: list[tuple[str, ...]]) -> list[str]:
    """Chromium's bookmark titles, each replaced by its heading's text as the page shows it
    (math as its text), a bookmark with no matching heading keeping its title."""
    return [
        headings[j][1] if j is not None else title
        for title, j in zip(titles, heading_matches(titles, headings))
    ]


def _bookmarks(reader: Any, items: Any, depth: int = 0) -> list[tuple[int, str, int, Any]]:
    """(depth, title, page index, top) of every bookmark, depth first."""
    found = []
    for item in items:
        if isinstance(item, list):
            found += _bookmarks(reader, item, depth + 1)
        else:
            page = reader.get_destination_page_number(item)
            found.append((depth, str(item.title), page, item.get("/Top")))
    return found


class BookJoin:
    """Joins the handouts into ``book.pdf``: one bookmark per page, its sections' bookmarks
    below.

    Reading the PDFs is most of a join (a Chinese handout's fonts are large), so ``start``
    forks a process that reads the handouts that were kept while the others print; ``submit``
    then hands it the fresh ones, which it puts in place before it writes the book, while the
    other edition's book is joined beside it; ``result`` waits for it. Without ``start`` the
    join happens in this process, in ``result``.

    Each page's bookmarks are chromium's (from its headings, ``outline=True``), with their
    titles spelled as the page shows them; the page's own title (its ``<h1>``) is the
    top-level bookmark, numbered like the chapter.
    """

    def __init__(self, docnames: list[str], kept: dict[str, Printed]) -> None:
        self.docnames = docnames
        self.kept = kept
        self._readers: dict[str, Any] = {}
        self._writer: Any = None
        self._process: Any = None
        self._conn: Any = None
        self._fresh: dict[str, Printed] = {}
        self._out: Path | None = None
        self.base: str | None = None  # the site's published address (links off the book)
        self.numbers: Path | None = None  # the continuous page numbers, printed to lay over

    def start(self) -> BookJoin:
        import multiprocessing

        context = multiprocessing.get_context("fork")  # before any thread or event loop starts
        self._conn, child = context.Pipe()
        self._process = context.Process(target=self._serve, args=(child,), daemon=True)
        self._process.start()
        child.close()
        return self

    def _serve(self, conn: Any) -> None:
        """The joining process: read the kept handouts, then join what ``submit`` sends."""
        self._conn.close()  # the main process's end, copied by the fork: its closing ends recv
        try:
            self._read_kept()
            request = conn.recv()
            if request is not None:
                fresh, out, self.base, self.numbers = request
                conn.send(("joined", self._join(fresh, out)))
        except EOFError:  # the printing failed: nothing to join
            pass
        except Exception as error:  # noqa: BLE001 (reported by result, in the main process)
            conn.send(("failed", f"{type(error).__name__}: {error}"))
        finally:
            conn.close()

    def _read_kept(self) -> None:
        from pypdf import PdfReader, PdfWriter

        self._writer = PdfWriter()
        for docname in self.docnames:
            if docname in self.kept:
                reader = PdfReader(self.kept[docname].path)
                self._writer.append(reader, import_outline=False)
                self._readers[docname] = reader

    def submit(
        self,
        fresh: dict[str, Printed],
        out: Path,
        base: str | None = None,
        numbers: Path | None = None,
    ) -> None:
        """The freshly printed handouts (every page not kept), where the book goes, the site's
        address (``site_base``) and the page numbers to lay over the book's (``print_numbers``)."""
        self._fresh, self._out, self.base, self.numbers = fresh, out, base, numbers
        if self._process is not None:
            try:
                self._conn.send((fresh, out, base, numbers))
            except (BrokenPipeError, ConnectionResetError):
                pass  # the process failed reading the kept handouts: ``result`` reports why

    def cancel(self) -> None:
        if self._process is not None:
            self._conn.close()
            # a join process forked after this one holds a copy of this pipe's end too, so
            # closing ours need not end its recv: stop it
            self._process.join(timeout=5)
            if self._process.is_alive():
                self._process.terminate()
                self._process.join()

    def result(self) -> int:
        """Wait for the book; return its number of pages (and set each handout's)."""
        if self._process is None:
            assert self._out is not None, "submit the fresh handouts first"
            self._read_kept()
            joined = self._join(self._fresh, self._out)
        else:
            try:
                outcome, joined = self._conn.recv()
            except EOFError:
                outcome, joined = "failed", "the joining process ended without a word"
            self._process.join()
            if outcome != "joined":
                raise RuntimeError(f"book.pdf: {joined}")
        total, pages = joined
        items = {**self.kept, **self._fresh}
        for docname, count in pages.items():
            items[docname].pages = count
        return total

    def _join(self, fresh: dict[str, Printed], out: Path) -> tuple[int, dict[str, int]]:
        from pypdf import PdfReader
        from pypdf.generic import Fit

        writer = self._writer
        first: dict[str, int] = {}
        for docname in self.docnames:
            first[docname] = position = sum(len(self._readers[d].pages) for d in first)
            if docname not in self.kept:
                reader = PdfReader(fresh[docname].path)
                writer.merge(position, reader, import_outline=False)
                self._readers[docname] = reader
        items = {**self.kept, **fresh}
        sections: dict[str, dict[str, tuple[int, Any]]] = {}  # page -> section id -> (page, top)
        for docname in self.docnames:
            item, reader = items[docname], self._readers[docname]
            parents = [writer.add_outline_item(title=item.title, page_number=first[docname])]
            marks = _bookmarks(reader, reader.outline)
            titles = [title for _, title, _, _ in marks]
            found = heading_matches(titles, item.headings)
            sections[docname] = {}
            for n, ((depth, title, page, top), j) in enumerate(zip(marks, found)):
                if j is not None and len(item.headings[j]) > 2 and item.headings[j][2]:
                    sections[docname].setdefault(item.headings[j][2], (first[docname] + page, top))
                if n == 0 and depth == 0 and page == 0:
                    continue  # the page's <h1>: the top-level bookmark already
                level = max(depth, 1)
                del parents[level:]
                fit = Fit.xyz(top=float(top)) if top is not None else Fit.fit()
                parent = parents[-1]  # the nearest enclosing bookmark
                parents.append(
                    writer.add_outline_item(
                        title=item.headings[j][1] if j is not None else title,
                        page_number=first[docname] + page,
                        parent=parent,
                        fit=fit,
                    )
                )

        def target(path: str) -> tuple[int, Any] | None:
            """Where in the book a link to the site's ``path`` lands: the page and height of
            the section holding its anchor (the page's top without one); None off the book."""
            address, _, anchor = path.partition("#")
            docname = address.removesuffix(".html")
            if docname not in first:
                return None
            section = items[docname].anchors.get(anchor, anchor)
            return sections[docname].get(section, (first[docname], None))

        for docname in self.docnames:
            reader = self._readers[docname]
            for k in range(len(reader.pages)):
                relink_page(
                    writer,
                    writer.pages[first[docname] + k],
                    self.base,
                    target,
                    reader,
                    first[docname],
                )
        if self.numbers is not None:
            numbers = PdfReader(self.numbers)
            if len(numbers.pages) != len(writer.pages):
                raise RuntimeError(
                    f"{len(numbers.pages)} page numbers printed for {len(writer.pages)} pages"
                )
            for page, number in zip(writer.pages, numbers.pages):
                page.merge_page(number)
        writer.set_page_label(0, len(writer.pages) - 1, style="/D", start=1)
        writer.add_metadata(
            {
                "/Title": items[self.docnames[0]].title if self.docnames else "",
                "/Creator": "posenc book: book/tools/build_handouts.py",
            }
        )
        writer.compress_identical_objects(remove_duplicates=True, remove_unreferenced=True)
        tmp = out.with_suffix(".pdf.part")
        with tmp.open("wb") as f:
            writer.write(f)
        tmp.replace(out)
        return len(writer.pages), {d: len(r.pages) for d, r in self._readers.items()}


def _explicit(writer: Any, page: int, top: Any) -> Any:
    """A destination at height ``top`` (None: the top) of the writer's page ``page``."""
    from pypdf.generic import ArrayObject, FloatObject, NameObject, NullObject

    height = FloatObject(float(top)) if top is not None else NullObject()
    return ArrayObject(
        [
            writer.pages[page].indirect_reference,
            NameObject("/XYZ"),
            NullObject(),
            height,
            NullObject(),
        ]
    )


def relink_page(
    writer: Any,
    page: Any,
    base: str | None,
    target: Any = None,
    reader: Any = None,
    offset: int = 0,
) -> None:
    """Rewrite the links of one printed page of ``writer``.

    A link to the site (``SITE_MARKER`` + path) goes where ``target(path)`` says, a (page,
    top) of the book, when it says; else to ``base`` + path; else (no ``base``) it is dropped.
    With ``reader`` (the handout the page came from, at ``offset`` in the book), a link within
    the page (chromium's named destination) gets an explicit one: the chapters of book.pdf use
    the same names ("summary"), so names would send a link to another chapter.
    """
    from pypdf.generic import ArrayObject, NameObject, TextStringObject

    annots = page.get("/Annots")
    if annots is None:
        return
    named = _named_pages(reader) if reader is not None else {}
    kept = ArrayObject()
    for ref in annots.get_object():
        annot = ref.get_object()
        action = annot.get("/A")
        action = action.get_object() if action is not None else None
        uri = str(action.get("/URI", "")) if action is not None else ""
        if uri.startswith(SITE_MARKER):
            path = uri[len(SITE_MARKER) :]
            place = target(path) if target is not None else None
            if place is not None:
                del annot["/A"]
                annot[NameObject("/Dest")] = _explicit(writer, *place)
            elif base:
                action[NameObject("/URI")] = TextStringObject(base + path)
            else:
                continue  # no address to send it to: the words stay, the link goes
        elif reader is not None and annot.get("/Dest") is not None:
            name = str(annot["/Dest"])
            if name in named:
                number, top = named[name]
                annot[NameObject("/Dest")] = _explicit(writer, offset + number, top)
        kept.append(ref)
    page[NameObject("/Annots")] = kept


def _named_pages(reader: Any) -> dict[str, tuple[int, Any]]:
    """A handout's named destinations: name -> (its page, height)."""
    cached = getattr(reader, "_book_named_pages", None)
    if cached is None:
        cached = {
            str(name): (reader.get_destination_page_number(dest), dest.get("/Top"))
            for name, dest in reader.named_destinations.items()
        }
        reader._book_named_pages = cached
    return cached


def publish_handout(
    raw: Path, out: Path, base: str | None, headings: list[tuple[str, ...]] | None = None
) -> int:
    """Write the published handout ``out`` from its print ``raw``: links to the site go to
    ``base`` (or are dropped), pages are labelled 1…n as they are numbered, and the bookmarks
    are the page's ``headings`` as it shows them (chromium's own titles drop math, double some
    and run wrapped lines together: ``heading_titles``); return n."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import Fit, NameObject

    reader = PdfReader(raw)
    writer = PdfWriter(clone_from=reader)
    for page in writer.pages:
        relink_page(writer, page, base)
    marks = _bookmarks(reader, reader.outline)
    if marks and headings:
        titles = heading_titles([title for _, title, _, _ in marks], list(headings))
        writer._root_object.pop(NameObject("/Outlines"), None)
        parents: list[Any] = []
        for (depth, _, page, top), title in zip(marks, titles):
            del parents[depth:]
            fit = Fit.xyz(top=float(top)) if top is not None else Fit.fit()
            parents.append(
                writer.add_outline_item(
                    title=title,
                    page_number=page,
                    parent=parents[-1] if parents else None,
                    fit=fit,
                )
            )
    writer.set_page_label(0, len(writer.pages) - 1, style="/D", start=1)
    tmp = out.with_suffix(".pdf.part")
    with tmp.open("wb") as f:
        writer.write(f)
    tmp.replace(out)
    return len(writer.pages)


@functools.cache
def publish_settings() -> str:
    """A digest of how the prints become the published handouts and ``book.pdf`` (links,
    bookmarks, page labels and numbers, the join): a change republishes every handout and
    joins the book again, without printing anything again."""
    parts = [
        inspect.getsource(f)
        for f in (
            publish_handout,
            relink_page,
            _explicit,
            _named_pages,
            heading_matches,
            heading_titles,
            _same_heading,
            _bookmarks,
            numbers_html,
            print_numbers,
            BookJoin,
        )
    ]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def site_language(site: Path) -> str:
    """The language of a built site: a translation's folder name, else the source language."""
    from book.ext.editions import SOURCE_LANGUAGE, TRANSLATIONS

    return site.name if site.name in TRANSLATIONS else SOURCE_LANGUAGE


def site_base(site: Path, config: Path = ROOT / "_config.yml") -> str | None:
    """Where the site is published: ``html.baseurl`` of ``_config.yml`` (with a translation's
    folder), or None when it is not set."""
    import yaml

    data = yaml.safe_load(config.read_text(encoding="utf-8")) or {}
    base = str((data.get("html") or {}).get("baseurl") or "").strip()
    if not base:
        return None
    base = base.rstrip("/") + "/"
    language = site_language(site)
    from book.ext.editions import SOURCE_LANGUAGE

    return base if language == SOURCE_LANGUAGE else f"{base}{language}/"


_PAGE_MARGIN = re.compile(r"@page\s*\{[^}]*?\bmargin:\s*([^;]+);", re.DOTALL)


def numbers_html(count: int, language: str) -> str:
    """A page of ``count`` blank A4 pages whose only mark is the handouts' page counter, on
    white, where handout.css prints it: laid over book.pdf, it numbers the book's pages
    continuously over the chapters' own numbers."""
    from book.ext.editions import PAGE_COUNTER, ui_text
    from book.ext.handouts import STATIC, css_counter

    sheet = (STATIC / "handout.css").read_text(encoding="utf-8")
    margin = _PAGE_MARGIN.search(sheet)
    if margin is None:
        raise RuntimeError("handout.css has no @page margin")
    counter = css_counter(ui_text(language, PAGE_COUNTER))
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><style>"
        f"@page {{ size: A4; margin: {margin.group(1)}; @bottom-right {{ content: {counter}; "
        'font: 8.5pt "DejaVu Sans", sans-serif; color: #555; vertical-align: top; '
        "padding-top: 3mm; width: 60mm; text-align: right; background: #fff; } }"
        "html, body { background: transparent; margin: 0; } div { break-after: page; height: 1px; }"
        "</style></head><body>" + "<div></div>" * count + "</body></html>"
    )


def print_numbers(requests: list[tuple[int, str, Path]]) -> None:
    """Print :func:`numbers_html` for each (count, language, out)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page()
            for count, language, out in requests:
                page.set_content(numbers_html(count, language))
                page.pdf(path=str(out), print_background=True, prefer_css_page_size=True)
        finally:
            browser.close()


def join_book(printed: list[Printed], out: Path) -> int:
    """Join the handouts ``printed`` (in reading order) into ``out`` (see ``BookJoin``)."""
    join = BookJoin([item.docname for item in printed], {})
    join.submit({item.docname: item for item in printed}, out)
    return join.result()


def _count_pages(path: Path) -> int:
    from pypdf import PdfReader

    return len(PdfReader(path).pages)


# What a printed page depends on: its stylesheets and scripts, its print style, and its
# article (what prints), with the files its stylesheets, scripts and images are read from. Not
# the sidebars, which do not print, nor the widget state of the live explorers, whose model
# ids are new at every execution.
_ASSETS = re.compile(
    r'<link[^>]*rel="stylesheet"[^>]*>|<script[^>]*\ssrc="[^"]*"[^>]*>'
    r'|<style media="print">.*?</style>',
    re.DOTALL,
)
# The relative address (no scheme: not data: or https:) of a file that a tag reads: in an
# asset tag, its href or src; in the article, src only (a link to another page does not print it).
_ASSET_FILE = re.compile(r'\s(?:href|src)="([^"#?:]+)(?:[?#][^"]*)?"')
_ARTICLE_FILE = re.compile(r'\ssrc="([^"#?:]+)(?:[?#][^"]*)?"')
# Files every page loads that hold the whole site, not the page: the search index changes with
# any page's text, and nothing of it prints.
NOT_PRINTED = frozenset({"searchindex.js"})
# The browser whose print is kept: Debian's chromium is a script that starts this binary.
BROWSER_FILES = ("/usr/lib/chromium/chromium",)


def _file_identity(path: str | None) -> str:
    try:
        info = os.stat(path) if path else None
    except OSError:
        info = None
    return f"{path}:{info.st_size}:{info.st_mtime_ns}" if info else f"{path}:-"


@functools.cache
def print_settings() -> str:
    """A digest of how this script prints a page: the browser (its files' sizes and times),
    its flags, what a page waits for, how the headings are read, and the PDF settings. Not the
    rest of this script: an edit elsewhere (this docstring) keeps every handout."""
    chromium = shutil.which("chromium")
    parts = [
        _file_identity(chromium),
        *(_file_identity(path) for path in BROWSER_FILES),
        json.dumps(CHROMIUM_FLAGS),
        _READY,
        _HEADINGS,
        json.dumps(PDF_OPTIONS, sort_keys=True),
        inspect.getsource(_print_page),
    ]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


@functools.cache
def _content_digest(path: Path) -> str:
    """A digest of a file of the site (the same file is read once per run); "-" if missing."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return "-"


def page_key(site: Path, docname: str) -> str:
    """A digest of what the handout of ``docname`` depends on (see ``_ASSETS``) and of how
    this script prints (``print_settings``): a page whose key has not changed prints the same
    handout."""
    page = (site / f"{docname}.html").read_text(encoding="utf-8")
    start = page.find('<div id="jb-print-docs-body"')
    end = page.rfind("</article>")
    printed = page[start:end] if 0 <= start < end else page
    folder = (site / docname).parent
    digest = hashlib.sha256(print_settings().encode())
    parts = [(tag, _ASSET_FILE) for tag in _ASSETS.findall(page)] + [(printed, _ARTICLE_FILE)]
    for part, files in parts:
        digest.update(part.encode() + b"\0")
        for address in files.findall(part):
            if address.rsplit("/", 1)[-1] not in NOT_PRINTED:
                digest.update(_content_digest((folder / address).resolve()).encode())
    return digest.hexdigest()


def cache_path(site: Path) -> Path:
    """Where the handouts of ``site`` keep their cache: beside the site, never inside a site
    (a translated edition, ``_build/html/zh_CN``, lies inside the English one)."""
    if (site.parent / "index.html").is_file():
        return site.parent.parent / f"{site.name}_{CACHE_NAME}"
    return site.parent / CACHE_NAME


def load_cache(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


@dataclass
class Handouts:
    """The handouts of one site: which are kept, which must be printed."""

    site: Path
    cache_file: Path
    cache: dict[str, Any]
    keys: dict[str, str]
    kept: dict[str, Printed]
    todo: list[str]

    base: str | None = None  # where the site is published (site_base)
    deck_keys: dict[str, str] = field(default_factory=dict)  # deck file name -> deck_key
    decks_todo: list[str] = field(default_factory=list)  # the decks to print

    @property
    def out_dir(self) -> Path:
        """The published handouts (``<site>/pdf``)."""
        return self.site / PDF_FOLDER

    @property
    def raw_dir(self) -> Path:
        """The prints as chromium made them, links to the site still marked (``SITE_MARKER``):
        beside the cache, never published; book.pdf is joined from them."""
        return self.cache_file.with_name(self.cache_file.name.replace(CACHE_NAME, RAW_FOLDER))

    @property
    def book_key(self) -> str:
        """The key of ``book.pdf``: its pages' keys, in reading order, the site's address and
        how it is put together (``publish_settings``)."""
        parts = [*self.keys.values(), self.base or "", publish_settings()]
        return hashlib.sha256("".join(parts).encode()).hexdigest()

    def out(self, docname: str) -> Path:
        """Where ``docname`` is printed to (in ``raw_dir``)."""
        return self.raw_dir / f"{handout_stem(docname)}.pdf"

    def published(self, docname: str) -> Path:
        return self.out_dir / f"{handout_stem(docname)}.pdf"

    def deck_pdf(self, name: str) -> Path:
        """The published PDF of deck ``name`` (``deck_pdf_name``)."""
        return self.out_dir / deck_pdf_name(name)


def plan_site(site: Path, docnames: list[str], force: bool) -> Handouts:
    """Which handouts of ``site`` are kept (their key is the one they were printed with) and
    which must be printed."""
    cache_file = cache_path(site)
    cache = {} if force else load_cache(cache_file)
    keys = {d: page_key(site, d) for d in docnames}
    handouts = Handouts(site, cache_file, cache, keys, {}, [], site_base(site))
    for d in docnames:
        entry = cache.get(d, {})
        path = handouts.out(d)
        if entry.get("key") == keys[d] and path.is_file() and "anchors" in entry:
            path.touch()  # printed from this very page: as new as it
            headings = [tuple(h) for h in entry["headings"]]
            handouts.kept[d] = Printed(
                d, path, entry["title"], 0.0, headings, entry["pages"], entry["anchors"]
            )
        else:
            handouts.todo.append(d)
    decks = cache.get(DECKS_ENTRY, {})
    for name in deck_names(site):
        key = handouts.deck_keys[name] = deck_key(site, name)
        if decks.get(name, {}).get("key") != key or not handouts.deck_pdf(name).is_file():
            handouts.decks_todo.append(name)
    return handouts


def finish_decks(handouts: Handouts, fresh: list[Printed]) -> None:
    """Publish the decks printed this run (links to the site go to its base URL or are
    dropped; pages labelled 1…n) and note them in the cache; drop the PDFs of decks the site
    no longer has."""
    decks = handouts.cache.setdefault(DECKS_ENTRY, {})
    for item in fresh:
        name = item.docname.removeprefix(f"{DECK_FOLDER}/")
        publish_handout(item.path, handouts.deck_pdf(name), handouts.base)
        decks[name] = {"key": handouts.deck_keys[name], "pages": item.pages}
        print(f"  printed {item.docname} ({item.pages} slides) in {item.seconds:.1f} s")
    for name in set(decks) - set(handouts.deck_keys):
        del decks[name]
        handouts.deck_pdf(name).unlink(missing_ok=True)
    kept = len(handouts.deck_keys) - len(fresh)
    if kept:
        print(f"  kept {kept} deck PDF(s) whose deck did not change")


def start_join(handouts: Handouts, docnames: list[str]) -> BookJoin | None:
    """Start joining ``book.pdf`` (``BookJoin``) when one of its pages changed or it is
    missing; None when it is kept."""
    book = handouts.out_dir / f"{BOOK_STEM}.pdf"
    if handouts.cache.get(BOOK_STEM, {}).get("key") == handouts.book_key and book.is_file():
        book.touch()
        return None
    return BookJoin(docnames, handouts.kept).start()


def finish_site(
    handouts: Handouts, fresh: list[Printed], docnames: list[str], join: BookJoin | None | bool
) -> None:
    """Join ``book.pdf`` (``join``: the join started for it, None when it is kept, False for
    no book), save the cache, and print what the site's handouts are."""
    by_name = {item.docname: item for item in fresh} | handouts.kept
    printed = [by_name[d] for d in docnames]
    for item in fresh:
        print(f"  printed {item.docname} in {item.seconds:.1f} s")
    if handouts.kept:
        print(f"  kept {len(handouts.kept)} handout(s) whose page did not change")
    cache, keys = handouts.cache, handouts.keys
    book = handouts.out_dir / f"{BOOK_STEM}.pdf"
    book_key = handouts.book_key
    if join is False:
        book_pages = 0
    elif join is None:
        book_pages = cache[BOOK_STEM]["pages"]
        print(f"  kept {book.name}: none of its pages changed")
    else:
        start = time.perf_counter()
        book_pages = join.result()
        print(f"  joined {book.name} ({time.perf_counter() - start:.1f} s more)")
    published = 0
    for item in printed:
        item.pages = item.pages or _count_pages(item.path)
        out = handouts.published(item.docname)
        entry = cache.get(item.docname, {})
        if (
            item in fresh
            or not out.is_file()
            or entry.get("base", "") != (handouts.base or "")
            or entry.get("published_with") != publish_settings()
        ):
            publish_handout(item.path, out, handouts.base, item.headings)
            published += 1
        else:
            out.touch()  # published from this very print: as new as it
        cache[item.docname] = {
            "key": keys[item.docname],
            "title": item.title,
            "headings": item.headings,
            "pages": item.pages,
            "anchors": item.anchors,
            "base": handouts.base or "",
            "published_with": publish_settings(),
        }
    if published:
        print(
            f"  published {published} handout(s) (links to the site: {handouts.base or 'dropped'})"
        )
    if book_pages:
        cache[BOOK_STEM] = {"key": book_key, "pages": book_pages}
    answers = handouts.out_dir / f"{SOLUTIONS_STEM}.pdf"
    if fresh or not answers.is_file() or cache.get(SOLUTIONS_STEM, {}).get("key") != book_key:
        from book.ext.editions import ui_text

        title = ui_text(site_language(handouts.site), "Solutions to the exercises")
        pages = join_solutions(printed, answers, handouts.base, title)
        cache[SOLUTIONS_STEM] = {"key": book_key, "pages": pages}
        print(f"  joined {answers.name}: the exercises' solutions, {pages} pages")
    handouts.cache_file.write_text(json.dumps(cache, indent=1))

    lines = [(item.path.name, item.pages, handouts.published(item.docname)) for item in printed]
    if book_pages:
        lines.append((book.name, book_pages, book))
    for name, pages, path in lines:
        print(f"{name:28s} {pages:4d} pages {path.stat().st_size / 1e6:6.2f} MB")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "site",
        nargs="*",
        default=[str(ROOT / "_build" / "html")],
        help="built sites (default _build/html); their pages print in one browser",
    )
    parser.add_argument("--jobs", type=int, default=3, help="pages printed at once (default 3)")
    parser.add_argument(
        "--toc", default=str(ROOT / "_toc.yml"), help="the book's _toc.yml (default: this repo's)"
    )
    parser.add_argument(
        "--only", nargs="*", metavar="STEM", help="print only these pages; no book.pdf"
    )
    parser.add_argument(
        "--force", action="store_true", help="reprint every page, even those that did not change"
    )
    args = parser.parse_args(argv)
    sites = [Path(site).resolve() for site in args.site]
    for site in sites:
        if not (site / "index.html").is_file():
            print(f"build_handouts: no built book at {site}", file=sys.stderr)
            return 1
    docnames = toc_pages(Path(args.toc))
    if args.only:
        docnames = [d for d in docnames if handout_stem(d) in set(args.only)]
    start = time.perf_counter()

    # A page whose print would not change since its handout was printed keeps its handout.
    plans = [plan_site(site, docnames, args.force) for site in sites]
    jobs = [Job(h.site, d, h.out(d)) for h in plans for d in h.todo]
    if not args.only:
        jobs += [
            Job(h.site, name, h.raw_dir / deck_pdf_name(name), deck=True)
            for h in plans
            for name in h.decks_todo
        ]
    for h in plans:
        h.out_dir.mkdir(exist_ok=True)
        h.raw_dir.mkdir(exist_ok=True)
    # each book is joined in a process of its own, which reads the kept handouts while the
    # others print
    joins = [False if args.only else start_join(h, docnames) for h in plans]
    try:
        fresh = asyncio.run(print_pages(jobs, max(1, args.jobs))) if jobs else []
    except RuntimeError as error:
        for join in joins:
            if join:
                join.cancel()
        print(f"build_handouts: {error}", file=sys.stderr)
        return 1
    printed_s = time.perf_counter() - start
    decks = {
        h.site: [i for i in fresh if i.path.parent == h.raw_dir and i.docname.startswith("slides/")]
        for h in plans
    }
    mine = {
        h.site: [i for i in fresh if i.path.parent == h.raw_dir and i not in decks[h.site]]
        for h in plans
    }
    # the books' continuous page numbers, printed before they are joined
    numbers = []
    for h, join in zip(plans, joins):
        if join:
            total = sum(item.pages for item in h.kept.values())
            total += sum(_count_pages(item.path) for item in mine[h.site])
            numbers.append((total, site_language(h.site), h.raw_dir / "book_numbers.pdf"))
    if numbers:
        print_numbers(numbers)
    for h, join in zip(plans, joins):
        if join:  # the books are joined side by side
            join.submit(
                {item.docname: item for item in mine[h.site]},
                h.out_dir / f"{BOOK_STEM}.pdf",
                h.base,
                h.raw_dir / "book_numbers.pdf",
            )
    for h, join in zip(plans, joins):
        print(f"build_handouts: {h.out_dir}")
        if not args.only:
            finish_decks(h, decks[h.site])
        try:
            finish_site(h, mine[h.site], docnames, join)
        except RuntimeError as error:  # the book could not be joined: print it again next time
            print(f"build_handouts: {error}", file=sys.stderr)
            return 1
    print(
        f"build_handouts: {len(fresh)} page(s) printed in {printed_s:.1f} s, "
        f"{time.perf_counter() - start:.1f} s in all"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
