"""The PDF handouts that ``book/tools/build_handouts.py`` prints from the built book (``make book``).

For every page of ``_toc.yml`` there must be ``pdf/<stem>.pdf``, printed after the page was
built, with a sane number of pages, text that pypdf can extract (so it is real text, not
pictures of text), the page's title, no TeX left untypeset, at least as many images as the page
shows, and every font embedded. Pages with explorers say in print that the web page is
interactive; pages with exercises print the solutions after the last exercise. ``book.pdf``
holds every page, in order, with one bookmark per page. Every page's download menu links to its
handout and to the whole book, and the links resolve on the served site.
"""

from __future__ import annotations

import functools
import html
import re
import unicodedata
import urllib.request
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import pypdf
import pytest

from book.ext.editions import (
    HANDOUT_CSS_WORDS,
    LICENCE_SHORT,
    PAGE_COUNTER,
    translate_text,
    ui_text,
)
from book.tools.build_handouts import handout_stem  # the handouts' file names

from .conftest import (
    LANGUAGES,
    SITE,
    edition,
    edition_folder,
    edition_pages,
    toc_pages,
)

PAGES = edition_pages()  # every page of every edition: "chapters/03_x", "zh_CN/chapters/03_x"
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
    """Pages a handout may have: the intro is short; a chapter fits between 3 and 60 A4 pages."""
    return range(1, 9) if handout_stem(docname) == "intro" else range(3, 61)


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
def handout(docname: str) -> tuple[Any, tuple[str, ...], str]:
    """The handout's reader, the text of each page and the whole text (read once a session)."""
    path = pdf_path(docname)
    if not path.is_file():
        pytest.fail(f"no handout {path.relative_to(SITE)}: run `make book` (or `make handouts`)")
    reader = pypdf.PdfReader(path)
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
    assert len(reader.pages) in page_range(name), f"{len(reader.pages)} pages"
    assert len(text) > 1000, "almost no extractable text: pages printed as pictures?"
    title = article(name).title
    assert title, f"{name}.html has no title"
    assert bare(title) in bare(text), f"the title {title!r} is not in the handout"


@pytest.mark.parametrize("name", PAGES)
def test_handout_numbers_its_pages_in_its_language(name: str) -> None:
    """The footer counts pages in the edition's words ("page 2 of 9", "第 2 页，共 9 页")."""
    _, pages, _ = handout(name)
    for k in sorted({1, 2, len(pages)}):
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
            assert where[before] < solutions, f"Solutions start on the page of {before}"
    references = heading(name, "References")
    if references in titles:
        assert titles.index(references) > titles.index(sols), "Solutions after References"
    pointer = words(name, "{solution} at the end of the chapter.").replace(
        "{solution}", words(name, "Solution")
    )[:10]
    pointers = [i for i, t in enumerate(pages) for _ in range(t.count(pointer))]
    answers = [i for i, t in enumerate(pages) for _ in range(t.count(page.solution_title))]
    assert len(pointers) == len(answers) == page.solutions
    assert max(pointers) < solutions <= min(answers), "exercises, then their solutions"


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
    assert len(sections) == len(names), "every page's sections are bookmarked below it"
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
