"""The site's search as a reader meets it (``book/ext/search.py``), in both editions.

For five English and five Chinese queries whose answer is plain from the chapters' titles, the
chapter must come first; every result shows an excerpt of prose that holds a word of the query
(or its stem), with no TeX (``\\(``, ``$$``), no ".ipynb" stub and more than a few characters;
and no page or section is listed twice. Inline math in excerpts reads as plain text. The search
boxes (the search page's and the Ctrl+K dialog's) start their typed text after the magnifier, on a
laptop and on a phone.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote, urlsplit

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from .conftest import LANGUAGES, edition_folder
from .reading import LAPTOP, PHONE  # the suite's laptop and phone

# (edition, query, the page that must come first, words of which every excerpt holds one)
QUERIES = [
    ("en", "rotary", "chapters/09_rotary_alibi_t5", ("rotar",)),
    ("en", "window", "chapters/07_swin_relative_bias", ("window",)),
    ("en", "sinusoidal", "chapters/03_sinusoidal", ("sinusoid",)),
    ("en", "stretching", "chapters/11_stretching_rope", ("stretch",)),
    ("en", "length generalisation", "chapters/10_length_experiment", ("length", "generalis")),
    ("zh_CN", "旋转位置编码", "chapters/09_rotary_alibi_t5", ("旋转位置编码",)),
    ("zh_CN", "窗口", "chapters/07_swin_relative_bias", ("窗口",)),
    # not one word of the index: searched as its words (正余弦 → 余弦, 长度泛化 → 长度 + 泛化)
    ("zh_CN", "正余弦", "chapters/03_sinusoidal", ("余弦",)),
    ("zh_CN", "长度泛化", "chapters/10_length_experiment", ("长度", "泛化")),
    ("zh_CN", "交叉注意力", "chapters/08_video_cross_attention", ("交叉", "注意力")),
]
RAW = ("\\(", "\\)", "\\[", "$$", ".ipynb")  # TeX that was never typeset, a download menu's stub
SHORTEST = 12  # characters (not counting spaces) of an excerpt that says something

_SUMMARY_SHOWN = (
    "() => /\\S/.test((document.querySelector('#search-results .search-summary') || {})"
    ".textContent || '')"
)
_EXCERPTS_SHOWN = (
    "() => [...document.querySelectorAll('#search-results li')]"
    ".every(li => li.querySelector('.context'))"
)
_RESULTS = """() => [...document.querySelectorAll('#search-results li')].map(li => {
  const link = li.querySelector('a');
  return {href: link.getAttribute('href'), title: link.textContent,
          excerpt: (li.querySelector('.context') || {textContent: null}).textContent};
})"""


def _search(browser: Any, site_url: str, language: str, query: str) -> tuple[list[dict], list[str]]:
    """The results of ``query`` on the edition's search page, once every excerpt is shown (or
    20 s have passed), and the errors the page logged."""
    context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        url = f"{site_url}/{edition_folder(language)}search.html?q={quote(query)}"
        page.goto(url, wait_until="load")
        page.wait_for_function(_SUMMARY_SHOWN)
        try:  # each excerpt comes from its page, fetched after the results are listed
            page.wait_for_function(_EXCERPTS_SHOWN, timeout=20_000)
        except PlaywrightTimeout:
            pass  # a result without an excerpt fails below, by name
        return page.evaluate(_RESULTS), errors
    finally:
        context.close()


def _page_of(href: str) -> str:
    return urlsplit(href).path.removesuffix(".html")


@pytest.mark.parametrize(("language", "query", "first", "words"), QUERIES)
def test_a_query_finds_its_chapter_first_with_readable_excerpts(
    browser: Any, site_url: str, language: str, query: str, first: str, words: tuple[str, ...]
) -> None:
    results, errors = _search(browser, site_url, language, query)
    assert errors == []
    assert results, f"{query!r}: nothing found"
    ranked = [_page_of(r["href"]) for r in results]
    assert ranked[0] == first, f"{query!r}: {ranked[:3]} (the first three)"
    places = [r["href"] for r in results]
    assert len(places) == len(set(places)), "a page or section listed twice"
    for r in results:
        where = f"{query!r} → {r['href']}"
        excerpt = r["excerpt"]
        assert excerpt is not None, f"{where}: no excerpt"
        assert not [raw for raw in RAW if raw in excerpt], f"{where}: {excerpt!r}"
        assert not [raw for raw in RAW if raw in r["title"]], f"{where}: title {r['title']!r}"
        assert len(re.sub(r"\s", "", excerpt)) >= SHORTEST, f"{where}: {excerpt!r}"
        assert any(w in excerpt.lower() for w in words), f"{where}: {excerpt!r} lacks {words}"


# TeX of the chapters' inline math, and what an excerpt shows of it
MATH = [
    ("\\(q_i^\\top k_j\\)", "qᵢᵀ kⱼ"),
    ("\\(\\theta_i = \\text{base}^{-2i/d}\\)", "θᵢ = base^(−2i/d)"),
    ("\\(|j - i| \\le k\\)", "|j − i| ≤ k"),
    ("\\(\\operatorname{softmax}(q^\\top k/(t\\sqrt{d}))\\)", "softmax(qᵀ k/(t√d))"),
    ("\\(P \\in \\mathbb{R}^{N_{\\max} \\times d}\\)", "P ∈ ℝ^(Nₘₐₓ×d)"),
    ("\\(\\tfrac{1}{2}\\lfloor n/2 \\rfloor\\)", "1/2⌊n/2⌋"),
    ("\\(2W_w - 1\\)", "2W_w − 1"),
]


def test_inline_math_in_excerpts_reads_as_plain_text(browser: Any, site_url: str) -> None:
    context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    try:
        page.goto(f"{site_url}/search.html", wait_until="load")
        shown = page.evaluate("texs => texs.map(t => Search.texToText(t))", [t for t, _ in MATH])
    finally:
        context.close()
    assert shown == [plain for _, plain in MATH]


# Where the typed text starts (the input's content box) and where the magnifier ends.
_BOX = """form => {
  const icon = form.querySelector('.fa-magnifying-glass');
  const input = form.querySelector('input');
  const box = input.getBoundingClientRect();
  const style = getComputedStyle(input);
  const shown = icon && getComputedStyle(icon).display !== 'none' ? icon.getBoundingClientRect() : null;
  return {
    text_left: box.left + parseFloat(style.borderLeftWidth) + parseFloat(style.paddingLeft),
    icon: shown && {left: shown.left, right: shown.right, top: shown.top, bottom: shown.bottom},
    input: {top: box.top, bottom: box.bottom},
  };
}"""


def _clear_of_icon(found: dict, where: str) -> None:
    icon = found["icon"]
    assert icon is not None, f"{where}: no magnifier shown"
    assert icon["right"] <= found["text_left"], f"{where}: the text starts under the magnifier"
    # the icon sits in the box's row, not above or below it
    assert found["input"]["top"] <= (icon["top"] + icon["bottom"]) / 2 <= found["input"]["bottom"]


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
@pytest.mark.parametrize("language", LANGUAGES)
def test_typed_text_clears_the_magnifier(
    browser: Any, site_url: str, language: str, viewport: dict
) -> None:
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    folder = edition_folder(language)
    try:
        page.goto(f"{site_url}/{folder}search.html?q=window", wait_until="load")
        box = page.locator(".bd-search-container form.bd-search")
        _clear_of_icon(box.evaluate(_BOX), "search page")
        page.goto(f"{site_url}/{folder}intro.html", wait_until="load")
        page.keyboard.press("Control+k")
        dialog = page.locator("#pst-search-dialog form.bd-search")
        dialog.locator("input").wait_for(state="visible")
        page.keyboard.type("window")
        _clear_of_icon(dialog.evaluate(_BOX), "search dialog")
    finally:
        context.close()
