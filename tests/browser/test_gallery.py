"""The figure gallery of the built book (``instructor/figures``, ``book/ext/gallery.py``).

A lecturer takes the book's figures for their own slides: every labelled figure of every
chapter is on the gallery page of each edition, with its number linking to the figure in its
chapter, its caption in the edition's language, a picture with the alt text the figure has in its
chapter, and two files named by
its label, a PNG (the page's picture) and an SVG that is a whole SVG document.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest

from book.ext.gallery import book_figures

from .conftest import LANGUAGES, ROOT, SITE, edition_folder

GALLERY = "instructor/figures"
FIGURES = [label for _, entries in book_figures(ROOT, ROOT / "_toc.yml") for label, _ in entries]


class _Gallery(HTMLParser):
    """Each gallery entry: its picture's src and alt, its links, its text."""

    def __init__(self) -> None:
        super().__init__()
        self.entries: dict[str, dict] = {}
        self.current: dict | None = None
        self.depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        d = {k: v or "" for k, v in attrs}
        if tag == "div" and "gallery-figure" in d.get("class", "").split():
            label = d.get("id", "").removeprefix("gallery-")
            self.current = self.entries[label] = {"img": None, "links": [], "text": ""}
            self.depth = 1
            return
        if self.current is None:
            return
        if tag == "div":
            self.depth += 1
        if tag == "img":
            self.current["img"] = (d.get("src", ""), d.get("alt", ""))
        if tag == "a":
            self.current["links"].append(d.get("href", ""))

    def handle_endtag(self, tag: str) -> None:
        if self.current is not None and tag == "div":
            self.depth -= 1
            if self.depth == 0:
                self.current = None

    def handle_data(self, data: str) -> None:
        if self.current is not None:
            self.current["text"] += data


def gallery(language: str) -> tuple[Path, dict[str, dict]]:
    site = SITE / edition_folder(language)
    page = site / f"{GALLERY}.html"
    if not page.is_file():
        pytest.fail(f"no {page.relative_to(SITE)}: run `make book`")
    parser = _Gallery()
    parser.feed(page.read_text(encoding="utf-8"))
    return site, parser.entries


def test_the_book_has_figures_to_show() -> None:
    assert len(FIGURES) >= 40
    assert len(set(FIGURES)) == len(FIGURES)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_gallery_shows_every_figure_in_reading_order(language: str) -> None:
    _, entries = gallery(language)
    assert list(entries) == FIGURES


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_entry_links_its_figure_and_offers_both_files(language: str) -> None:
    site, entries = gallery(language)
    folder = site / Path(GALLERY).parent
    problems = []
    for label, entry in entries.items():
        links = entry["links"]
        chapter = [href for href in links if href.endswith(f".html#{label}")]
        page_alt = None
        if not chapter:
            problems.append(f"{label}: no link to the figure in its chapter")
        else:
            path, anchor = chapter[0].split("#")
            target = (folder / path).resolve()
            html = target.read_text("utf-8") if target.is_file() else ""
            if f'id="{anchor}"' not in html:
                problems.append(f"{label}: {chapter[0]} does not land on the figure")
            found = re.search(rf'id="{re.escape(anchor)}">\s*<a[^>]*><img alt="([^"]*)"', html)
            page_alt = found.group(1) if found else None
        for suffix in ("png", "svg"):
            href = f"../figures/{label}.{suffix}"
            if href not in links:
                problems.append(f"{label}: no link to {href}")
            elif not (folder / href).resolve().is_file():
                problems.append(f"{label}: {href} is missing")
        src, alt = entry["img"] or ("", "")
        if src != f"../figures/{label}.png" or len(alt) < 5 or alt != page_alt:
            problems.append(f"{label}: picture {src!r} with alt text {alt!r}, not {page_alt!r}")
        if len(re.sub(r"\s+", "", entry["text"])) < 30:
            problems.append(f"{label}: no caption")
        if language != LANGUAGES[0] and not re.search(r"[\u4e00-\u9fff]", entry["text"]):
            problems.append(f"{label}: the caption is not translated")
    assert not problems, "; ".join(problems[:12])


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_files_are_a_png_and_a_whole_svg(language: str) -> None:
    site, _ = gallery(language)
    problems = []
    for label in FIGURES:
        png = (site / "figures" / f"{label}.png").read_bytes()
        if png[:8] != b"\x89PNG\r\n\x1a\n":
            problems.append(f"{label}.png is not a PNG")
        svg = site / "figures" / f"{label}.svg"
        root = ET.parse(svg).getroot()
        if not root.tag.endswith("svg") or not root.get("viewBox"):
            problems.append(f"{label}.svg has no <svg viewBox>")
        if "<text" in svg.read_text("utf-8"):
            problems.append(f"{label}.svg uses fonts (its text should be outlines)")
    assert not problems, "; ".join(problems)
