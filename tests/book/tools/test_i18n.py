"""The Chinese edition's catalogues, quizzes and translated notebooks, and the tools behind them.

What needs a build is checked elsewhere: ``make i18n-check`` compares the catalogues with a
fresh extraction of the English text, and ``book/tools/check_site.py`` fails a Chinese page that
still holds English prose.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import nbformat
import polib
import pytest

ROOT = Path(__file__).resolve().parents[3]

from book.ext import editions, quiz
from book.tools import i18n
from book.tools.build_handouts import toc_pages

LANGUAGE = "zh_CN"
CJK = re.compile(r"[\u3400-\u9fff]")


DOCNAMES = toc_pages()  # every page of _toc.yml, the root first
NOTEBOOKS = [d for d in DOCNAMES if (ROOT / f"{d}.ipynb").is_file()]


# ---------------------------------------------------------------------------------------------
# the committed catalogues


DOMAINS = [editions.UI_DOMAIN, editions.EXPLORER_DOMAIN, editions.SLIDES_DOMAIN]


@pytest.mark.parametrize("docname", [*DOCNAMES, *DOMAINS])
def test_every_page_has_a_complete_catalogue(docname: str) -> None:
    path = editions.catalogue_path(LANGUAGE, docname)
    assert path.is_file(), f"no catalogue {path.relative_to(ROOT)}: run `make i18n-update`"
    po = polib.pofile(str(path))
    live = [e for e in po if not e.obsolete]
    assert live, f"{path.name} has no entries"
    untranslated = [e.msgid[:60] for e in live if not e.msgstr]
    fuzzy = [e.msgid[:60] for e in live if e.fuzzy]
    assert not untranslated, f"{len(untranslated)} untranslated in {path.name}: {untranslated[:3]}"
    assert not fuzzy, f"{len(fuzzy)} fuzzy in {path.name}: {fuzzy[:3]}"
    problems = [(e.msgid[:60], p) for e in live for p in i18n.entry_problems(e)]
    assert not problems, f"{len(problems)} problem(s) in {path.name}: {problems[:3]}"


def test_msgfmt_accepts_every_catalogue() -> None:
    """msgfmt's own checks (format strings, header) on every catalogue."""
    import subprocess

    for path in i18n.catalogues(LANGUAGE):
        result = subprocess.run(
            ["msgfmt", "--check", "--statistics", "-o", "/dev/null", str(path)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, f"{path.name}: {result.stderr}"
        assert "untranslated" not in result.stderr and "fuzzy" not in result.stderr, (
            f"{path.name}: {result.stderr.strip()}"
        )


def test_no_catalogue_of_a_page_outside_the_book() -> None:
    pages = {*DOCNAMES, *DOMAINS}
    extra = [i18n.docname_of(p, LANGUAGE) for p in i18n.catalogues(LANGUAGE)]
    assert sorted(set(extra) - pages) == []


def test_ui_catalogue_matches_the_ui_messages() -> None:
    po = polib.pofile(str(editions.catalogue_path(LANGUAGE, editions.UI_DOMAIN)))
    assert [e.msgid for e in po] == list(editions.UI_MESSAGES)
    for e in po:
        for placeholder in re.findall(r"\{\w+\}", e.msgid):
            assert placeholder in e.msgstr, f"{e.msgid!r} lost {placeholder}"


def test_ui_text_refuses_a_message_that_is_not_listed() -> None:
    with pytest.raises(KeyError, match="UI_MESSAGES"):
        editions.ui_text(LANGUAGE, "Some words nobody listed")
    assert editions.ui_text("en", "Print") == "Print"
    assert editions.ui_text(LANGUAGE, "Print") != "Print"


# ---------------------------------------------------------------------------------------------
# quizzes


@pytest.mark.parametrize("english", sorted((ROOT / "quizzes" / "en").glob("*.yaml")), ids=str)
def test_every_quiz_is_translated_with_the_same_answers(english: Path) -> None:
    chinese = ROOT / "quizzes" / LANGUAGE / english.name
    assert chinese.is_file(), f"no {chinese.relative_to(ROOT)}"
    en, zh = quiz.load_quiz(english), quiz.load_quiz(chinese)
    assert [q["id"] for q in zh] == [q["id"] for q in en]
    for a, b in zip(en, zh, strict=True):
        assert b["type"] == a["type"], a["id"]
        assert CJK.search(b["question"]), f"{a['id']}: question not in Chinese"
        assert i18n.markup(b["question"]) == i18n.markup(a["question"]), a["id"]
        if a["type"] == "number":
            assert (b["answer"], b.get("tolerance", 0)) == (a["answer"], a.get("tolerance", 0))
            assert CJK.search(b["why"]), a["id"]
            continue
        assert len(b["choices"]) == len(a["choices"]), a["id"]
        for ca, cb in zip(a["choices"], b["choices"], strict=True):
            assert bool(cb.get("correct")) == bool(ca.get("correct")), a["id"]
            assert CJK.search(cb["why"]), f"{a['id']}: a reason not in Chinese"
            assert i18n.markup(cb["text"]) == i18n.markup(ca["text"]), a["id"]
            assert i18n.markup(cb["why"]) == i18n.markup(ca["why"]), a["id"]


# ---------------------------------------------------------------------------------------------
# the glossary is the term base


GLOSSARY = editions.glossary()


def chinese_prose() -> str:
    """Every translation of every page, the glossary's own entries and display math left out."""
    texts = []
    for docname in DOCNAMES:
        po = polib.pofile(str(editions.catalogue_path(LANGUAGE, docname)))
        texts += [
            e.msgstr
            for e in po
            if e.msgstr and " · " not in e.msgid and i18n.needs_translation(e.msgid)
        ]
    return "\n".join(texts)


def test_the_glossary_is_read() -> None:
    assert len(GLOSSARY) >= 40
    assert (["attention"], ["注意力"]) in GLOSSARY


@pytest.mark.parametrize("terms", GLOSSARY, ids=lambda t: t[0][0] if t and t[0] else "?")
def test_each_glossary_term_is_used_in_chinese(terms: tuple[list[str], list[str]]) -> None:
    english, chinese = terms
    prose = chinese_prose()
    assert any(form in prose for form in chinese), (
        f"none of {chinese} ({english}) is used in the Chinese pages"
    )
    words = " ".join(i18n.prose_words(prose)).lower()
    for term in english:
        if any(term.lower() in form.lower() for form in chinese) or not term.isascii():
            continue  # the Chinese name is the English one (YaRN), or the term is not English
        assert not re.search(rf"\b{re.escape(term.lower())}\b", words), (
            f"the English term {term!r} is left standing in Chinese prose"
        )


# ---------------------------------------------------------------------------------------------
# translated notebooks (the Chinese download, decks and handouts)


def _squash(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("docname", NOTEBOOKS)
def test_every_entry_lands_in_the_translated_notebook(docname: str) -> None:
    """Each catalogue entry written in the notebook's markdown or captions is replaced, so its
    Chinese download is all Chinese. (Entries from a code cell's Markdown output, the
    appendix's tables, are not in the stripped notebook; the executed one that the decks use
    has them, and ``translate_notebook`` translates them there.)"""
    original = nbformat.read(ROOT / f"{docname}.ipynb", as_version=4)
    nb = nbformat.read(ROOT / f"{docname}.ipynb", as_version=4)
    used = editions.translate_notebook(nb, LANGUAGE, docname)
    wanted = {msgid for _, msgid, _ in editions.translation_table(LANGUAGE, docname)}
    assert wanted, f"{docname}: no translations"
    written = _squash(
        "\n".join(
            [c.source for c in original.cells if c.cell_type == "markdown"]
            + [
                c.metadata.get("mystnb", {}).get("figure", {}).get("caption", "")
                for c in original.cells
            ]
        )
    )
    # An entry of a few words ("absolute") may stand inside other prose: only a longer one
    # found in the markdown is certainly a block of it.
    missed = sorted(m for m in wanted - used if len(m.split()) > 3 and _squash(m) in written)
    assert missed == []
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    assert code == [c.source for c in original.cells if c.cell_type == "code"]


@pytest.mark.parametrize("docname", NOTEBOOKS)
def test_speaker_notes_and_compact_slides_are_translated(docname: str) -> None:
    """Cells only a deck shows (speaker notes, compact slides) come from slides.po, whole."""
    nb = nbformat.read(ROOT / f"{docname}.ipynb", as_version=4)
    english = [c.source for c in nb.cells if editions.deck_only(c)]
    editions.translate_notebook(nb, LANGUAGE, docname)
    chinese = [c.source for c in nb.cells if editions.deck_only(c)]
    assert english, f"{docname} has no speaker notes"
    left = [e[:60] for e, z in zip(english, chinese, strict=True) if e == z or not CJK.search(z)]
    assert left == []


def test_markdown_outputs_are_translated() -> None:
    """The appendix's tables are a code cell's Markdown output: the executed notebook of a
    deck gets them in Chinese."""
    table = editions.translation_table(LANGUAGE, "appendix/which_encoding")
    msgid, msgstr = next((m, s) for _, m, s in table if m == "kind")
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("show()")
    cell.outputs = [
        nbformat.v4.new_output(
            "display_data", data={"text/markdown": f"| {msgid} | x |\n|---|---|\n| a | b |"}
        )
    ]
    nb.cells = [cell]
    assert editions.translate_notebook(nb, LANGUAGE, "appendix/which_encoding") == {msgid}
    assert cell.outputs[0]["data"]["text/markdown"].startswith(f"| {msgstr} | x |")


def test_translate_text_replaces_whole_blocks_only(tmp_path: Path, monkeypatch) -> None:
    po = polib.POFile()
    for msgid, msgstr in [
        ("Summary", "小结"),
        ("A long sentence that wraps over two lines.", "一个跨两行的长句子。"),
        ("cell", "单元"),
        ("the list item", "列表项"),
    ]:
        po.append(polib.POEntry(msgid=msgid, msgstr=msgstr))
    (tmp_path / "xx" / "LC_MESSAGES").mkdir(parents=True)
    po.save(str(tmp_path / "xx" / "LC_MESSAGES" / "page.po"))
    monkeypatch.setattr(editions, "LOCALES", tmp_path)
    editions.translation_table.cache_clear()
    editions.messages.cache_clear()
    try:
        text = (
            "## Summary\n\nA long sentence that\n  wraps over two lines.\n\n"
            "- the list item\n\n| x | cell |\n|---|---|\n\nThe Summary of a cell stays."
        )
        used: set[str] = set()
        out = editions.translate_text(text, "xx", "page", used)
    finally:
        editions.translation_table.cache_clear()
        editions.messages.cache_clear()
    assert out == (
        "## 小结\n\n一个跨两行的长句子。\n\n- 列表项\n\n| x | 单元 |\n|---|---|\n\n"
        "The Summary of a cell stays."
    )
    assert used == {
        "Summary",
        "A long sentence that wraps over two lines.",
        "cell",
        "the list item",
    }


EXPLORER_HTML = (
    '<div class="posenc-explorer" id="x"><div class="posenc-explorer-title">{title}</div>'
    '<div class="posenc-explorer-controls"><label style="display:flex">{name} <input '
    'type="range" data-control="0" aria-label="{name}" id="x-c0" min="0" max="1"> '
    '<output for="x-c0">64</output></label></div><img class="posenc-explorer-figure" '
    'alt="{title}" width="6" height="2" src="data:image/png;base64,AAAA"></div>'
)


def test_explorer_titles_and_control_names_are_translated() -> None:
    table = editions.messages(LANGUAGE, editions.EXPLORER_DOMAIN)
    title = next(t for t in table if t.startswith("Sinusoidal encoding"))
    name = "positions"
    assert name in table, "the explorers' control names are in explorers.po"
    english = EXPLORER_HTML.format(title=title, name=name)
    assert editions.explorer_messages(english) == [title, name]
    chinese = editions.translate_explorers(english, LANGUAGE)
    assert chinese == EXPLORER_HTML.format(title=table[title], name=table[name])
    assert editions.translate_explorers(english, "en") == english
    assert CJK.search(table[title]) and CJK.search(table[name])


def test_a_live_explorers_button_messages_and_rules_are_translated(monkeypatch) -> None:
    from book.explorers.attention import permutation_explorer
    from book.explorers.explorer import LIVE_WORDS, RULE_WORDS
    from book.explorers.sinusoidal import sinusoidal_explorer

    english = sinusoidal_explorer().static_html() + permutation_explorer().static_html()
    found = editions.explorer_messages(english)
    for text in (*LIVE_WORDS.values(), *RULE_WORDS.values(), "dim", "shuffle"):
        assert text in found, text
    fake = {text: f"«{text}»" for text in found}
    fake["an even number from {low} to {high}"] = "从 {low} 到 {high} 的偶数"
    fake["a number above {above}"] = "大于 {above} 的数"
    monkeypatch.setattr(editions, "messages", lambda language, domain: fake)
    chinese = editions.translate_explorers(english, LANGUAGE)
    assert 'data-rule="从 2 到 256 的偶数"' in chinese
    assert 'data-rule="大于 1 的数"' in chinese
    assert 'data-rule="«an integer from {low} to {high}»"' not in chinese
    assert f">«{LIVE_WORDS['reshuffle']}»</button>" in chinese
    assert 'aria-label="«dim»"' in chinese and 'data-name="dim"' in chinese
    assert 'data-name="shuffle" aria-label="«shuffle»"' in chinese
    words = re.search(r'data-words="([^"]*)"', chinese).group(1)
    assert json.loads(html.unescape(words))["unavailable"] == f"«{LIVE_WORDS['unavailable']}»"


# ---------------------------------------------------------------------------------------------
# links between editions, the markup check, the execution cache


@pytest.mark.parametrize(
    ("page", "here", "there", "href"),
    [
        ("intro", "en", "zh_CN", "zh_CN/intro.html"),
        ("chapters/03_sinusoidal", "en", "zh_CN", "../zh_CN/chapters/03_sinusoidal.html"),
        ("chapters/03_sinusoidal", "zh_CN", "en", "../../chapters/03_sinusoidal.html"),
        ("intro", "zh_CN", "en", "../intro.html"),
        ("intro", "zh_CN", "zh_CN", "../zh_CN/intro.html"),
    ],
)
def test_edition_href(page: str, here: str, there: str, href: str) -> None:
    assert editions.edition_href(page, here, there) == href


def test_markup_check_catches_lost_roles_math_and_code() -> None:
    english = "See {eq}`eq-a` and {doc}`chapter 3 <../chapters/03_x>`: $x^2$ with `posenc`."
    good = "见 {eq}`eq-a` 与 {doc}`第 3 章 <../chapters/03_x>`：用 `posenc` 算 $x^2$。"
    assert i18n.entry_problems(polib.POEntry(msgid=english, msgstr=good)) == []
    for bad in [
        good.replace("{eq}`eq-a`", "式 (1)"),
        good.replace("$x^2$", "x 的平方"),
        good.replace("`posenc`", "posenc"),
        good.replace("03_x", "04_y"),
    ]:
        assert i18n.entry_problems(polib.POEntry(msgid=english, msgstr=bad))
    assert i18n.entry_problems(polib.POEntry(msgid=english, msgstr="")) == ["untranslated"]
    left = polib.POEntry(msgid="A sentence of plain English words.", msgstr="A sentence.")
    assert "no Chinese in the translation" in i18n.entry_problems(left)
