"""The PDF handouts that ``book/tools/build_handouts.py`` prints from the built book (``make book``).

For every page of ``_toc.yml`` there must be ``pdf/<stem>.pdf``, printed after the page was
built, with a sane number of pages, text that pypdf can extract (so it is real text, not
pictures of text), the page's title, no TeX left untypeset, at least as many images as the page
shows, and every font embedded. Pages with explorers say in print that the web page is
interactive; pages with exercises print the solutions after the last exercise. ``book.pdf``
holds every page, in order, with one bookmark per page. Every page's download menu links to its
handout and to the whole book, and the links resolve on the served site.

What a reader meets in the printed PDFs, handouts and ``book.pdf`` of both editions alike:

- no link points at the build's temporary server (127.0.0.1, localhost, any ``host:port``) or at
  the print's placeholder for the site: links to the site go to ``html.baseurl`` of
  ``_config.yml`` (``site_base``) or, with none set, are dropped, so that only references
  off the site remain; every internal link lands on a page of its PDF;
- ``book.pdf`` links its own pages inside itself: each page of ``_toc.yml`` has internal links,
  its links within the page land where its handout's do, and the pages it reaches are the ones
  its article links to;
- the pages are labelled 1…n (``/PageLabels``), and the counter printed at the foot of each page
  ("page 3 of 21") agrees: a handout counts its own pages, ``book.pdf`` counts on through the
  chapters (its counter laid over each handout's own);
- every bookmark is the plain text of a heading (h1–h3) of its page as the built page shows it,
  or of the solutions section a handout adds: not chromium's spelling of it, doubled ("Summary
  Summary") or with the lines of a wrapped heading run together ("andRSTT");
- no page is more than two-thirds empty below its last mark, except the last page of each
  handout (and of each chapter in ``book.pdf``), rendered with pypdfium2.
"""

from __future__ import annotations

import functools
import html
import posixpath
import re
import unicodedata
import urllib.request
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import numpy as np
import pypdf
import pypdfium2
import pytest

from book.ext.editions import (
    HANDOUT_CSS_WORDS,
    LICENCE_SHORT,
    PAGE_COUNTER,
    translate_text,
    ui_text,
)
from book.ext.handouts import STATIC as HANDOUT_STATIC
from book.ext.slides import deck_pdf
from book.tools.build_handouts import BOOK_STEM, handout_stem, site_base

from .conftest import (
    LANGUAGES,
    SITE,
    edition,
    edition_folder,
    edition_pages,
    toc_pages,
)

PAGES = edition_pages()  # every page of every edition: "chapters/03_x", "zh_CN/chapters/03_x"
BOOKS = [f"{edition_folder(language)}{BOOK_STEM}" for language in LANGUAGES]  # "book", "zh_CN/book"
PRINTS = PAGES + BOOKS  # every PDF of every edition
UI_EXPLORER_NOTE = HANDOUT_CSS_WORDS["--handout-explorer-note"]
RAW_TEX = ("\\frac", "$$", "\\begin{")


def site_of(language: str) -> Path:
    return SITE / edition_folder(language)


def pdf_path(name: str) -> Path:
    language, docname = edition(name)
    return site_of(language) / "pdf" / f"{handout_stem(docname)}.pdf"


def words(name: str, english: str) -> str:
    """What a handout of ``name``'s edition prints for an English UI message, as read back."""
    return normalise(ui_text(edition(name)[0], english))


def heading(name: str, english: str) -> str:
    """A page's heading ("Summary") in the page's edition."""
    language, docname = edition(name)
    return normalise(translate_text(english, language, docname))


def page_range(docname: str) -> range:
    """Pages a handout may have: the intro and the teaching guide are short; the summary sheet
    is one A4 side (it is printed for the lecture hall); a chapter (or the figure gallery) fits
    between 3 and 60 A4 pages."""
    if docname == "instructor/summary":
        return range(1, 2)
    if docname in ("intro", "instructor/teaching"):
        return range(1, 9)
    return range(3, 61)


# pypdf reads some glyphs of the CJK font as radicals that NFKC leaves alone (⻚ for 页).
_RADICALS = str.maketrans("⻚⻓⻅⻆⻬⻩⻛⻣⻔⻢", "页长见角齐黄风骨门马")


def normalise(text: str) -> str:
    """Fold ligatures (pypdf reads "ﬁ"), CJK radicals and runs of white space, so that titles
    and notes can be found."""
    text = unicodedata.normalize("NFKC", text).translate(_RADICALS)
    return re.sub(r"\s+", " ", text).strip()


def bare(text: str) -> str:
    """``text`` without white space: a PDF's text has spaces after CJK punctuation that the
    page has not ("、 ALiBi")."""
    return re.sub(r"\s+", "", text)


class _Article(HTMLParser):
    """What a built page shows in its article: images, explorers, exercises, solutions; and
    the links of its download menu."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0  # nesting of <article> inside <article class="bd-article">
        self.images = 0
        self.explorers = 0
        self.exercises = 0
        self.solutions = 0
        self.links: dict[str, str] = {}
        self.hrefs: list[str] = []  # every link of the article
        self.title = ""
        self.solution_title = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        d = {k: v or "" for k, v in attrs}
        classes = d.get("class", "").split()
        if tag == "a":
            for c in classes:
                if c.startswith("btn-download-"):
                    self.links[c] = d.get("href", "")
        if tag == "article" and (self.depth or "bd-article" in classes):
            self.depth += 1
        if not self.depth:
            return
        if tag == "a" and d.get("href"):
            self.hrefs.append(d["href"])
        self.images += tag == "img"
        if tag == "div":
            self.explorers += "posenc-explorer" in classes
            self.exercises += "exercise" in classes
            self.solutions += "solution" in classes

    def handle_endtag(self, tag: str) -> None:
        if tag == "article" and self.depth:
            self.depth -= 1


def _title(page: str) -> str:
    """The text of the article's <h1>, without its section number and its "#" link."""
    body = page[page.index('<article class="bd-article"') :]
    h1 = re.search(r"<h1[^>]*>(.*?)</h1>", body, re.DOTALL)
    if h1 is None:
        return ""
    inner = re.sub(r'<span class="section-number">.*?</span>', "", h1.group(1))
    inner = re.sub(r'<a class="headerlink".*?</a>', "", inner)
    return normalise(html.unescape(re.sub(r"<[^>]+>", "", inner)))


@functools.cache
def article(docname: str) -> _Article:
    page = (SITE / f"{docname}.html").read_text(encoding="utf-8")
    parser = _Article()
    parser.feed(page)
    parser.title = _title(page)
    # How the edition titles a solution ("Solution to Exercise", "解答 练习"), as printed.
    found = re.search(r'class="admonition-title">([^<]*)<a[^>]*>([^<\d]*)', page)
    parser.solution_title = normalise(f"{found.group(1)} {found.group(2)}") if found else ""
    return parser


@functools.cache
def printed(name: str) -> Any:
    """The reader of a page's handout, or of a ``book.pdf`` (``BOOKS``), read once a session."""
    path = pdf_path(name)
    if not path.is_file():
        pytest.fail(f"no handout {path.relative_to(SITE)}: run `make book` (or `make handouts`)")
    return pypdf.PdfReader(path)


@functools.cache
def handout(docname: str) -> tuple[Any, tuple[str, ...], str]:
    """The handout's reader, the text of each page and the whole text (read once a session)."""
    reader = printed(docname)
    pages = tuple(normalise(page.extract_text()) for page in reader.pages)
    return reader, pages, " ".join(pages)


def bookmarks(reader: Any, items: Any = None) -> list[tuple[str, int]]:
    """Every bookmark of a PDF, depth first: (title, page index)."""
    found = []
    for item in reader.outline if items is None else items:
        if isinstance(item, list):
            found += bookmarks(reader, item)
        else:
            title = normalise(item.title)
            half = title[: len(title) // 2]
            if title == half * 2:  # chromium spells some headings that start a page twice
                title = half
            found.append((title, reader.get_destination_page_number(item)))
    return found


def _fonts(resources: Any, seen: set[int]) -> list[tuple[str, bool]]:
    """(name, embedded) for every font used by a page's resources, forms included."""
    found = []
    resources = resources.get_object() if resources is not None else None
    if not resources:
        return found
    for name, ref in (resources.get("/Font") or {}).items():
        font = ref.get_object()
        kind = font.get("/Subtype")
        if kind == "/Type3":  # glyphs drawn by the PDF itself
            found.append((f"{name} (Type3)", "/CharProcs" in font))
            continue
        if kind == "/Type0":
            font = font["/DescendantFonts"][0].get_object()
        descriptor = font.get("/FontDescriptor")
        descriptor = descriptor.get_object() if descriptor is not None else {}
        embedded = any(k in descriptor for k in ("/FontFile", "/FontFile2", "/FontFile3"))
        found.append((str(font.get("/BaseFont", name)), embedded))
    for ref in (resources.get("/XObject") or {}).values():
        xobject = ref.get_object()
        if xobject.get("/Subtype") == "/Form" and id(xobject) not in seen:
            seen.add(id(xobject))
            found += _fonts(xobject.get("/Resources"), seen)
    return found


@pytest.mark.parametrize("name", PAGES)
def test_handout_is_printed_from_the_current_build(name: str) -> None:
    path = pdf_path(name)
    assert path.is_file(), f"no handout {path.relative_to(SITE)}: run `make book`"
    assert path.read_bytes()[:5] == b"%PDF-"
    built = (SITE / f"{name}.html").stat().st_mtime
    assert path.stat().st_mtime >= built, f"{path.name} is older than {name}.html: reprint it"


@pytest.mark.parametrize("name", PAGES)
def test_handout_has_pages_text_and_title(name: str) -> None:
    reader, _, text = handout(name)
    assert len(reader.pages) in page_range(edition(name)[1]), f"{len(reader.pages)} pages"
    assert len(text) > 1000, "almost no extractable text: pages printed as pictures?"
    title = article(name).title
    assert title, f"{name}.html has no title"
    assert bare(title) in bare(text), f"the title {title!r} is not in the handout"


@pytest.mark.parametrize("name", PAGES)
def test_handout_numbers_its_pages_in_its_language(name: str) -> None:
    """The footer counts pages in the edition's words ("page 2 of 9", "第 2 页，共 9 页")."""
    _, pages, _ = handout(name)
    for k in sorted({1, min(2, len(pages)), len(pages)}):
        footer = words(name, PAGE_COUNTER).format(page=k, pages=len(pages))
        assert bare(footer) in bare(pages[k - 1]), f"page {k} has no footer {footer!r}"


@pytest.mark.parametrize("name", PAGES)
def test_handout_states_the_licence_on_every_page(name: str) -> None:
    """The foot of each printed page names the licences, in the edition's words."""
    _, pages, _ = handout(name)
    licence = bare(words(name, LICENCE_SHORT))
    missing = [k + 1 for k, page in enumerate(pages) if licence not in bare(page)]
    assert missing == [], f"pages without {licence!r}"


@pytest.mark.parametrize("name", PAGES)
def test_handout_has_no_raw_tex(name: str) -> None:
    _, _, text = handout(name)
    left = [tex for tex in RAW_TEX if tex in text]
    assert not left, f"untypeset TeX in the handout: {left}"


def _image_count(resources: Any, seen: set[int]) -> int:
    """Image XObjects drawn from ``resources``, inside form XObjects too (none decoded)."""
    if resources is None:
        return 0
    resources = resources.get_object()
    count = 0
    for ref in (resources.get("/XObject") or {}).values():
        xobject = ref.get_object()
        key = getattr(ref, "idnum", id(xobject))
        if key in seen:
            continue
        seen.add(key)
        if xobject.get("/Subtype") == "/Image":
            count += 1
        elif xobject.get("/Subtype") == "/Form":
            count += _image_count(xobject.get("/Resources"), seen)
    return count


@pytest.mark.parametrize("name", PAGES)
def test_handout_shows_every_figure(name: str) -> None:
    reader, _, _ = handout(name)
    images = sum(_image_count(page.get("/Resources"), set()) for page in reader.pages)
    assert images >= article(name).images, (
        f"{images} images in the PDF, {article(name).images} on the page"
    )


@pytest.mark.parametrize("name", PAGES)
def test_handout_embeds_every_font(name: str) -> None:
    reader, _, _ = handout(name)
    fonts = [f for page in reader.pages for f in _fonts(page.get("/Resources"), set())]
    assert fonts, "no fonts at all"
    missing = sorted({font for font, embedded in fonts if not embedded})
    assert not missing, f"fonts not embedded: {missing}"


@pytest.mark.parametrize("name", PAGES)
def test_handout_prints_explorers_and_moves_solutions_to_the_end(name: str) -> None:
    reader, pages, text = handout(name)
    page = article(name)
    note = words(name, UI_EXPLORER_NOTE)[:12]
    assert text.count(note) == page.explorers, "one note per explorer"
    if not page.solutions:
        return
    marks = bookmarks(reader)
    titles = [title for title, _ in marks]
    sols = words(name, "Solutions")
    assert sols in titles, f"no {sols} section (bookmark) in the handout"
    where = dict(marks)
    solutions = where[sols]
    for before in (heading(name, "Exercises"), heading(name, "Summary")):
        if before in where:
            assert titles.index(before) < titles.index(sols), f"Solutions before {before}"
            assert where[before] <= solutions, f"Solutions start before {before}'s page"
    references = heading(name, "References")
    if references in titles:
        assert titles.index(references) > titles.index(sols), "Solutions after References"
    pointer = words(name, "{solution} at the end of the chapter.").replace(
        "{solution}", words(name, "Solution")
    )[:10]
    pointers = [i for i, t in enumerate(pages) for _ in range(t.count(pointer))]
    answers = [i for i, t in enumerate(pages) for _ in range(t.count(page.solution_title))]
    assert len(pointers) == len(answers) == page.solutions
    assert max(pointers) <= solutions <= min(answers), "exercises, then their solutions"
    last_pointer = max(m.start() for m in re.finditer(re.escape(pointer), text))
    assert last_pointer < text.index(page.solution_title), "a solution before its exercise"


def _article_html(name: str) -> str:
    """The HTML of a built page's article (its sidebars left out)."""
    page = (SITE / f"{name}.html").read_text(encoding="utf-8")
    start = page.find('<article class="bd-article"')
    return page[start : page.find("</article>", start)] if start >= 0 else page


@pytest.mark.parametrize("language", LANGUAGES)
def test_book_holds_every_page_with_a_bookmark(language: str) -> None:
    path = site_of(language) / "pdf" / "book.pdf"
    assert path.is_file(), f"no {path.relative_to(SITE)}: run `make book`"
    book = pypdf.PdfReader(path)
    names = [p for p in PAGES if edition(p)[0] == language]
    counts = [len(handout(name)[1]) for name in names]
    assert len(book.pages) == sum(counts)
    top = [item for item in book.outline if not isinstance(item, list)]
    assert len(top) == len(names), "one top-level bookmark per page of _toc.yml"
    sections = [item for item in book.outline if isinstance(item, list)]
    with_sections = [n for n in names if "<h2" in _article_html(n)]  # the summary sheet has none
    assert len(sections) == len(with_sections), "every page's sections are bookmarked below it"
    first = 0
    for name, count, item in zip(names, counts, top):
        assert book.get_destination_page_number(item) == first, f"{name}: bookmark page"
        title = bare(article(name).title)
        assert title in bare(normalise(item.title)), f"{name}: bookmark {item.title!r}"
        assert title in bare(normalise(book.pages[first].extract_text()))
        first += count


@pytest.mark.parametrize("name", PAGES)
def test_download_menu_links_to_the_handouts(site_url: str, name: str) -> None:
    links = article(name).links
    expected = {
        "btn-download-handout-button": f"pdf/{handout_stem(name)}.pdf",
        "btn-download-book-pdf-button": "pdf/book.pdf",
    }
    for label, target in expected.items():
        href = links.get(label)
        assert href, f"no {label} in the download menu"
        assert not re.match(r"[a-z]+:|/", href), f"{href} is not relative"
        url = urljoin(f"{site_url}/{name}.html", href)
        folder = edition_folder(edition(name)[0])
        assert url == f"{site_url}/{folder}{target}", f"{href} points at {url}"
        with urllib.request.urlopen(url) as response:
            assert response.status == 200
            assert response.read().startswith(b"%PDF-")  # whole: no broken pipe


@pytest.mark.parametrize("language", LANGUAGES)
def test_intro_lists_every_handout(language: str) -> None:
    intro = (site_of(language) / "intro.html").read_text(encoding="utf-8")
    listed = re.findall(r'<ul class="handout-list">(.*?)</ul>', intro, re.DOTALL)
    assert listed, "the intro has no list of handouts"
    hrefs = re.findall(r'href="([^"]+)"', listed[0])
    assert hrefs == ["pdf/book.pdf"] + [f"pdf/{handout_stem(n)}.pdf" for n in toc_pages()]
    for href in hrefs:
        assert (site_of(language) / href).is_file(), f"the intro links to a missing {href}"


# ---------------------------------------------------------------------------------------------
# links, page numbers, bookmarks and empty pages of every PDF, handouts and book.pdf alike

# Hosts of a server on the printing machine itself: a link there works for nobody else.
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "0.0.0.0", "::1"})
WEB_SCHEMES = frozenset({"http", "https", "mailto"})


def _links(reader: Any) -> list[tuple[int, Any]]:
    """(page index, annotation) of every link annotation of a PDF."""
    found = []
    for k, page in enumerate(reader.pages):
        for ref in page.get("/Annots") or []:
            annot = ref.get_object()
            if annot.get("/Subtype") == "/Link":
                found.append((k, annot))
    return found


def _uri(annot: Any) -> str | None:
    """Where a link to a web address (a /URI action) goes; None for any other link."""
    action = annot.get("/A")
    action = action.get_object() if action is not None else None
    if action is None or action.get("/S") != "/URI":
        return None
    return str(action.get("/URI"))


def _destination(annot: Any) -> Any:
    """The destination of a link within the PDF (/Dest, or a /GoTo action); None otherwise."""
    if annot.get("/Dest") is not None:
        return annot["/Dest"].get_object()
    action = annot.get("/A")
    action = action.get_object() if action is not None else None
    if action is not None and action.get("/S") == "/GoTo":
        return action["/D"].get_object()
    return None


@functools.cache
def _page_numbers(name: str) -> dict[int, int]:
    """A PDF's pages by object number: which page an explicit destination names."""
    return {page.indirect_reference.idnum: k for k, page in enumerate(printed(name).pages)}


@functools.cache
def _named_pages(name: str) -> dict[str, int]:
    """A PDF's named destinations (chromium's, one per id of the page) and their pages."""
    reader = printed(name)
    found = {}
    for key, destination in reader.named_destinations.items():
        k = reader.get_destination_page_number(destination)  # None or -1: not one of its pages
        if k is not None and 0 <= k < len(reader.pages):
            found[str(key)] = k
    return found


def _landing(name: str, destination: Any) -> int | None:
    """The page index where a destination of ``name``'s PDF lands; None: nowhere in it."""
    if isinstance(destination, pypdf.generic.ArrayObject):
        page = destination[0] if destination else None
        number = getattr(page, "idnum", None)
        return _page_numbers(name).get(number) if number is not None else None
    return _named_pages(name).get(str(destination))


def _internal_links(name: str) -> list[tuple[int, tuple[int, ...], int | None]]:
    """(page index, rectangle in whole points, landing page) of every internal link of a PDF."""
    found = []
    for k, annot in _links(printed(name)):
        destination = _destination(annot)
        if destination is not None:
            rect = tuple(round(float(x)) for x in annot.get("/Rect", ()))
            found.append((k, rect, _landing(name, destination)))
    return found


def _book_name(language: str) -> str:
    return f"{edition_folder(language)}{BOOK_STEM}"


@functools.cache
def book_pages(language: str) -> tuple[tuple[str, range], ...]:
    """Each page of the edition's ``_toc.yml`` and the pages of book.pdf it fills, from the
    book's top-level bookmarks (one per page, in reading order)."""
    reader = printed(_book_name(language))
    names = [p for p in PAGES if edition(p)[0] == language]
    top = [item for item in reader.outline if not isinstance(item, list)]
    if len(top) != len(names):
        pytest.fail(f"book.pdf has {len(top)} top-level bookmarks for {len(names)} pages")
    starts = [reader.get_destination_page_number(item) for item in top]
    ends = starts[1:] + [len(reader.pages)]
    return tuple((name, range(a, b)) for name, a, b in zip(names, starts, ends))


def linked_pages(name: str) -> set[str]:
    """The other pages of the edition that ``name``'s article links to (as site paths)."""
    pages = {p for p in PAGES if edition(p)[0] == edition(name)[0]}
    found = set()
    for href in article(name).hrefs:
        address = href.split("#")[0]
        if not address or re.match(r"[a-z][a-z0-9+.-]*:", address):
            continue
        target = posixpath.normpath(posixpath.join(posixpath.dirname(name), address))
        if target.endswith(".html") and target[: -len(".html")] in pages:
            found.add(target[: -len(".html")])
    return found - {name}


@pytest.mark.parametrize("name", PRINTS)
def test_print_links_to_no_temporary_server(name: str) -> None:
    """Links to the site go to ``html.baseurl`` or nowhere: never to the server the pages were
    printed from, nor to the print's placeholder for the site; with no base URL set, only
    references off the site remain."""
    language, _ = edition(name)
    base = site_base(site_of(language))
    book_pages_html = {f"{edition(p)[1]}.html" for p in PAGES}  # "chapters/03_x.html"
    wrong = []
    for k, annot in _links(printed(name)):
        uri = _uri(annot)
        if uri is None:
            continue
        parts = urlsplit(uri)
        host = (parts.hostname or "").lower()
        why = ""
        if parts.scheme not in WEB_SCHEMES:
            why = "not an address on the web"
        elif host in LOCAL_HOSTS or host.endswith(".localhost") or parts.port is not None:
            why = "a temporary server"
        elif host.endswith(".invalid"):
            why = "the print's placeholder for the site"
        elif base and uri.startswith(base):
            path = uri[len(base) :].split("#")[0]
            if not (site_of(language) / (path or "index.html")).is_file():
                why = "a file the site does not have"
            elif name in BOOKS and path in book_pages_html:
                why = "a page of the book, off book.pdf"
        elif any(parts.path.endswith(f"/{page}") for page in book_pages_html):
            why = "a page of the site, " + ("off its base URL" if base else "with no base URL set")
        if why:
            wrong.append(f"page {k + 1}: {uri} ({why})")
    assert not wrong, f"{len(wrong)} links (base URL {base!r}): " + "; ".join(wrong[:10])


@pytest.mark.parametrize("name", PRINTS)
def test_print_internal_links_land_on_its_pages(name: str) -> None:
    lost = [(k + 1, rect) for k, rect, landing in _internal_links(name) if landing is None]
    assert not lost, f"{len(lost)} internal links land nowhere (page, rectangle): {lost[:10]}"


@pytest.mark.parametrize("name", BOOKS)  # by name: on the worker that reads this book anyway
def test_book_links_its_own_pages_inside_itself(name: str) -> None:
    """In book.pdf a page's links within itself land where its handout's do, its links to the
    other pages of the book (the contents, the cross-references) are internal links to them,
    and every page of ``_toc.yml`` has internal links."""
    parts = book_pages(edition(name)[0])
    owner = {k: page for page, pages in parts for k in pages}
    links = _internal_links(name)
    problems = []
    for page, pages in parts:
        mine = [(k, rect, landing) for k, rect, landing in links if k in pages]
        if not mine:
            problems.append(f"{page}: no internal link at all")
        reached = {owner[landing] for _, _, landing in mine if landing is not None}
        expected = linked_pages(page)
        if reached - {page} != expected:
            problems.append(
                f"{page}: links to {sorted(expected)} on the site, in book.pdf to "
                f"{sorted(reached - {page})}"
            )
        own = sorted((k, rect, landing) for k, rect, landing in mine if landing in pages)
        shifted = sorted(
            (pages.start + k, rect, None if landing is None else pages.start + landing)
            for k, rect, landing in _internal_links(page)
        )
        if own != shifted:
            differ = sorted(set(own) ^ set(shifted))[:5]
            problems.append(f"{page}: links within it differ from its handout's: {differ}")
    assert not problems, "; ".join(problems)


def _counter(name: str) -> re.Pattern[str]:
    """The page counter at the foot of ``name``'s pages ("page 3 of 21"), as read back: its
    page and its count captured, any white space between its words."""
    words_ = words(name, PAGE_COUNTER).split()
    pattern = r"\s*".join(re.escape(word) for word in words_)
    for field in ("page", "pages"):
        pattern = pattern.replace(re.escape(f"{{{field}}}"), r"(\d+)")
    return re.compile(pattern)


def _counted(name: str, text: str) -> list[tuple[int, int]]:
    return [(int(page), int(pages)) for page, pages in _counter(name).findall(text)]


@functools.cache
def footers(name: str) -> tuple[str, ...]:
    """The text printed in the bottom margin of each page of a PDF (the licence and the page
    counter), in drawing order, as pypdfium2 reads it (pypdf takes a minute over a book)."""
    printed(name)  # fails when there is no such PDF
    height = page_margins()[1] * 72 / 25.4  # the bottom margin, in points
    document = pypdfium2.PdfDocument(pdf_path(name))
    found = []
    try:
        for k in range(len(document)):
            page = document[k]
            text = page.get_textpage()
            try:
                found.append(normalise(text.get_text_bounded(bottom=0, top=height)))
            finally:
                text.close()
                page.close()
    finally:
        document.close()
    return tuple(found)


def _labels(name: str) -> list[str]:
    reader = printed(name)
    assert "/PageLabels" in reader.trailer["/Root"], "no /PageLabels: viewers show no numbers"
    return list(reader.page_labels)


@pytest.mark.parametrize("name", PAGES)
def test_handout_is_labelled_and_numbered_1_to_n(name: str) -> None:
    """A handout keeps its own numbering: labels 1…n, and "page k of n" printed at the foot
    of page k."""
    pages = footers(name)
    n = len(printed(name).pages)
    labels = _labels(name)
    assert labels == [str(k) for k in range(1, n + 1)], f"page labels {labels}"
    wrong = [
        (k, found)
        for k, text in enumerate(pages, start=1)
        if (found := _counted(name, text)) != [(k, n)]
    ]
    assert not wrong, f"page counters other than 'k of {n}' (page, counters read): {wrong}"


@pytest.mark.parametrize("name", BOOKS)
def test_book_is_labelled_and_numbered_continuously(name: str) -> None:
    """book.pdf counts on through the chapters: labels 1…N, and "page k of N" printed at the
    foot of page k, laid over (drawn after) the handout's own counter."""
    pages = footers(name)
    total = len(printed(name).pages)
    labels = _labels(name)
    assert labels == [str(k) for k in range(1, total + 1)], f"page labels {labels[:20]}…"
    wrong = []
    for page, numbers in book_pages(edition(name)[0]):
        own = len(numbers)
        for k in numbers:
            found = _counted(name, pages[k])
            chapter = [(k - numbers.start + 1, own)]  # the handout's own, covered by the book's
            if not found or found[-1] != (k + 1, total) or found[:-1] not in ([], chapter):
                wrong.append((k + 1, page, found))
    assert not wrong, (
        f"pages whose counter on top is not 'k of {total}' (page, from, counters read in "
        f"drawing order): {wrong[:10]}"
    )


_MATH = re.compile(r'<span class="math[^"]*">.*?</span>', re.DOTALL)
_SECTION_NUMBER = re.compile(r'<span class="section-number">(.*?)</span>', re.DOTALL)
_HEADERLINK = re.compile(r'<a class="headerlink".*?</a>', re.DOTALL)
_FORMULA = "\0"  # where a heading holds a formula


def _heading_text(inner: str) -> str:
    """The plain text of a heading's HTML, each formula a ``_FORMULA`` mark."""
    inner = _MATH.sub(_FORMULA, _HEADERLINK.sub("", inner))
    return normalise(html.unescape(re.sub(r"<[^>]+>", "", inner)))


@functools.cache
def heading_patterns(name: str) -> tuple[re.Pattern[str], ...]:
    """What a bookmark of ``name``'s page may read: the text of one of its article's headings
    (h1–h3), with or without its section number, white space normalised, a formula any text
    without a space (MathJax draws it, from TeX the HTML holds); or the heading of the
    solutions a handout adds."""
    page = (SITE / f"{name}.html").read_text(encoding="utf-8")
    body = page[page.index('<article class="bd-article"') : page.rindex("</article>")]
    texts = set()
    for found in re.finditer(r"<h([1-3])\b[^>]*>(.*?)</h\1>", body, re.DOTALL):
        inner = found.group(2)
        texts.add(_heading_text(_SECTION_NUMBER.sub("", inner)))
        texts.add(_heading_text(_SECTION_NUMBER.sub(r"\1", inner)))
    patterns = [r"\S+".join(re.escape(part) for part in text.split(_FORMULA)) for text in texts]
    for english in ("Solutions", "Answers", "Check yourself: answers"):
        patterns.append(re.escape(words(name, english)))
    return tuple(re.compile(pattern) for pattern in patterns)


def _doubled(title: str) -> bool:
    """Whether ``title`` is one phrase twice over, with or without a space between."""
    half = len(bare(title)) // 2
    return bool(half) and bare(title) == bare(title)[:half] * 2


def _outline_titles(items: Any) -> list[str]:
    """The raw title of every bookmark below ``items``, depth first."""
    found = []
    for item in items:
        found += _outline_titles(item) if isinstance(item, list) else [str(item.title)]
    return found


@pytest.mark.parametrize("name", PRINTS)
def test_bookmarks_are_the_headings_plain_text(name: str) -> None:
    """Every bookmark reads as a heading of its page reads: chromium's own titles drop the
    space between the lines of a wrapped heading ("andRSTT") and spell some headings twice."""
    reader = printed(name)
    if name in BOOKS:  # each top-level bookmark, then its page's sections below it
        pages = iter(page for page, _ in book_pages(edition(name)[0]))
        owned: list[tuple[str, str]] = []
        page = ""
        for item in reader.outline:
            if not isinstance(item, list):
                page = next(pages)
                owned.append((page, str(item.title)))
            else:
                owned += [(page, title) for title in _outline_titles(item)]
    else:
        owned = [(name, title) for title in _outline_titles(reader.outline)]
    assert owned, "no bookmarks"
    wrong = []
    for page, title in owned:
        text = normalise(title)
        if _doubled(text):
            wrong.append(f"{title!r} (doubled)")
        elif not any(pattern.fullmatch(text) for pattern in heading_patterns(page)):
            wrong.append(f"{title!r} (no heading of {page} reads so)")
    assert not wrong, f"{len(wrong)} of {len(owned)} bookmarks: " + "; ".join(wrong)


# The part of a printed page that holds the article: between the margins of handout.css's
# @page, which hold the running title above and the footer below.
_PAGE_MARGIN = re.compile(r"@page\s*\{[^}]*?\bmargin:\s*([^;]+);", re.DOTALL)
RENDER_SCALE = 0.5  # pixels per point
INK = 200  # a pixel darker than this (0 black, 255 white) is a mark
MOSTLY_EMPTY = 2 / 3


def _mm(length: str) -> float:
    if not length.endswith("mm"):
        raise ValueError(f"handout.css: a margin of {length!r}, not in mm")
    return float(length[:-2])


@functools.cache
def page_margins() -> tuple[float, float]:
    """The top and bottom margins of a printed page in mm (handout.css's ``@page``)."""
    sheet = (HANDOUT_STATIC / "handout.css").read_text(encoding="utf-8")
    found = _PAGE_MARGIN.search(sheet)
    assert found, "handout.css has no @page margin"
    sides = [_mm(side) for side in found.group(1).split()]  # top [right [bottom [left]]]
    return sides[0], sides[2] if len(sides) > 2 else sides[0]


def blank_below(page: Any) -> float:
    """The share of a printed page's content area (between its margins) that is empty below
    its lowest mark: 1.0 for a page with nothing on it."""
    image = page.render(scale=RENDER_SCALE, grayscale=True).to_numpy()
    image = image[..., 0] if image.ndim == 3 else image
    per_mm = RENDER_SCALE * 72 / 25.4
    top_mm, bottom_mm = page_margins()
    top = int(np.ceil(top_mm * per_mm))
    bottom = int(np.floor(image.shape[0] - bottom_mm * per_mm))
    marked = np.flatnonzero((image[top:bottom] < INK).any(axis=1))
    if not marked.size:
        return 1.0
    return (bottom - top - 1 - marked[-1]) / (bottom - top)


@pytest.mark.parametrize("name", PRINTS)
def test_print_has_no_mostly_empty_page(name: str) -> None:
    """No page is more than two-thirds empty, except the last of a handout (in book.pdf, the
    last of each page of ``_toc.yml``): something kept whole that did not fit pushed the rest
    to the next page."""
    count = len(printed(name).pages)
    parts = book_pages(edition(name)[0]) if name in BOOKS else ((name, range(count)),)
    lasts = {pages[-1] for _, pages in parts}
    where = {
        k: f" ({page}, its page {k - pages.start + 1})" for page, pages in parts for k in pages
    }
    document = pypdfium2.PdfDocument(pdf_path(name))
    try:
        assert len(document) == count, f"pypdfium2 reads {len(document)} pages, pypdf {count}"
        empty = []
        for k in range(len(document)):
            if k in lasts:
                continue
            page = document[k]
            try:
                share = blank_below(page)
            finally:
                page.close()
            if share > MOSTLY_EMPTY:
                empty.append(f"page {k + 1}{where[k] if name in BOOKS else ''}: {share:.0%} empty")
    finally:
        document.close()
    assert not empty, f"pages more than {MOSTLY_EMPTY:.0%} empty: " + "; ".join(empty)


@pytest.mark.parametrize("language", LANGUAGES)
def test_lecturers_get_every_solution_in_one_pdf(language: str) -> None:
    """``pdf/solutions.pdf``: the solutions of every page that has exercises, a bookmark per
    page, in reading order, and nothing else of the pages (no exercise, no pointer to a
    solution); the intro links it."""
    site = site_of(language)
    intro = (site / "intro.html").read_text(encoding="utf-8")
    assert 'href="pdf/solutions.pdf"' in intro, "the intro does not link the solutions PDF"
    path = site / "pdf" / "solutions.pdf"
    assert path.is_file(), f"no {path.relative_to(SITE)}: run `make book`"
    reader = pypdf.PdfReader(path)
    names = [p for p in PAGES if edition(p)[0] == language and article(p).solutions]
    assert names, "no page has exercises"
    top = [item for item in reader.outline if not isinstance(item, list)]
    assert len(top) == len(names), "one bookmark per page with solutions"
    for name, item in zip(names, top, strict=True):
        assert bare(article(name).title) in bare(normalise(item.title)), item.title
    pages = [normalise(page.extract_text()) for page in reader.pages]
    text = " ".join(pages)
    expected = sum(article(n).solutions for n in names)
    titles = {article(n).solution_title for n in names}
    assert sum(text.count(t) for t in titles) == expected, "every solution, once"
    pointer = words(names[0], "{solution} at the end of the chapter.").replace(
        "{solution}", words(names[0], "Solution")
    )[:10]
    assert pointer not in text, "the pages' own text (an exercise's pointer) is printed"
    assert reader.page_labels == [str(k + 1) for k in range(len(reader.pages))]


class _Slides(HTMLParser):
    """Counts a deck's slides as reveal.js does: its leaf ``<section>`` elements."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[bool] = []  # per open section: whether it holds another section
        self.slides = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "section":
            if self.stack:
                self.stack[-1] = True
            self.stack.append(False)

    def handle_endtag(self, tag: str) -> None:
        if tag == "section" and self.stack:
            self.slides += not self.stack.pop()


def deck_slides(deck: Path) -> int:
    """The number of slides of a built deck."""
    parser = _Slides()
    parser.feed(deck.read_text(encoding="utf-8"))
    return parser.slides


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_deck_is_printed_one_slide_per_page(language: str) -> None:
    """``pdf/<stem>.slides.pdf``: every deck of the edition printed with ``?print-pdf`` after the
    deck was built, one 16:9 page per slide, its text extractable, with no link to the
    temporary server; the deck and its chapter's page link it."""
    site = site_of(language)
    decks = sorted((site / "slides").glob("*.slides.html"))
    assert len(decks) >= 12, "the chapters' decks"
    problems = []
    for deck in decks:
        stem = deck.name.removesuffix(".slides.html")
        pdf = site / "pdf" / deck_pdf(stem)
        if not pdf.is_file():
            problems.append(f"no {pdf.relative_to(SITE)}: run `make book`")
            continue
        if pdf.stat().st_mtime_ns < deck.stat().st_mtime_ns:
            problems.append(f"{pdf.name} is older than its deck")
        reader = pypdf.PdfReader(pdf)
        slides = deck_slides(deck)
        if len(reader.pages) != slides:
            problems.append(f"{pdf.name}: {len(reader.pages)} pages for {slides} slides")
        for k, page in enumerate(reader.pages):
            width, height = float(page.mediabox.width), float(page.mediabox.height)
            if abs(width / height - 16 / 9) > 0.01:
                problems.append(f"{pdf.name} page {k + 1}: {width:.0f}×{height:.0f}, not 16:9")
                break
        first = bare(normalise(reader.pages[0].extract_text()))
        if len(first) < 10:
            problems.append(f"{pdf.name}: no text on its first page")
        for k, annot in _links(reader):
            host = (urlsplit(_uri(annot) or "").hostname or "").lower()
            if host in LOCAL_HOSTS or host.endswith(".invalid"):
                problems.append(f"{pdf.name} page {k + 1}: a link to {host}")
        if f'href="../pdf/{deck_pdf(stem)}"' not in deck.read_text(encoding="utf-8"):
            problems.append(f"{deck.name} does not link its PDF")
        chapters = list(site.glob(f"*/{stem}.html"))
        if chapters and f'href="../pdf/{deck_pdf(stem)}"' not in chapters[0].read_text("utf-8"):
            problems.append(f"{chapters[0].name} does not link its deck's PDF")
    assert not problems, "; ".join(problems)
