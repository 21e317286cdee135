"""The book's translations: refresh the catalogues, check them, translate notebooks.

    python -m book i18n update              # after an English edit (make i18n-update)
    python -m book i18n check [PO ...]      # every entry translated, markup kept
    python -m book i18n stale               # catalogues == a fresh extraction (make test)
    python -m book i18n stats               # msgfmt --statistics of every catalogue
    python -m book i18n notebook LANG NB OUT   # NB with its markdown in LANG, written to OUT

Each page of ``_toc.yml`` has one catalogue, ``locales/<language>/LC_MESSAGES/<page>.po``,
whose entries are the page's paragraphs, headings, list items, captions and table cells as
MyST Markdown (Sphinx's gettext builder extracts them; ``python -m book build --gettext``).
``update`` extracts the English text again and merges it into every catalogue with
``sphinx-intl``: a new paragraph arrives untranslated, an edited one is marked fuzzy with its
old translation kept as a draft, a deleted one is dropped. ``make test`` fails while any entry
is untranslated or fuzzy (tests/book/tools/test_i18n.py), or while the catalogues differ from a fresh
extraction (``stale``, after the build). The user-interface words that the book's own extensions add to pages
(deck and handout links, the quiz's buttons, the language switch) are in ``book_ui.po``, and
the explorers' titles and control names (read from the English build's executed notebooks)
in ``explorers.po``, and the speaker notes and slide-only cells, whole, in ``slides.po``.

``notebook`` writes a notebook whose markdown cells, and figure captions in code-cell
metadata, are in another language: each catalogue entry is found in the cell's source
(modulo line breaks and indentation) and replaced by its translation (``editions.py``). Code
cells stay as they are. The translated edition's download button, slide decks and handouts use it.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import polib

ROOT = Path(__file__).resolve().parents[2]

from book.ext.editions import (
    EXPLORER_DOMAIN,
    LOCALES,
    SLIDES_DOMAIN,
    TRANSLATIONS,
    UI_DOMAIN,
    UI_MESSAGES,
    catalogue_path,
    deck_only,
    explorer_messages,
    translate_notebook,
)
from book.tools.build_book import POT_DIR

_ROLE = re.compile(r"\{([a-z:]+)\}`([^`]*)`")
_CODE = re.compile(r"``([^`]+)``|`([^`]+)`")
_MATH = re.compile(r"\$\$.+?\$\$|\$[^$]+\$", re.DOTALL)
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_CJK = re.compile(r"[\u3400-\u9fff]")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_'’-]+")  # a word with "_" is a name from the code
_TEXT_ROLES = {"doc", "ref", "numref", "term", "download"}


def catalogues(language: str) -> list[Path]:
    return sorted((LOCALES / language / "LC_MESSAGES").rglob("*.po"))


def docname_of(po: Path, language: str) -> str:
    return po.relative_to(LOCALES / language / "LC_MESSAGES").with_suffix("").as_posix()


def _role_key(role: str, body: str) -> str:
    """A role as it must survive translation: the target of a {doc}/{ref}, the whole of others."""
    if role in _TEXT_ROLES:
        match = re.fullmatch(r"(?s)(.*?)\s*<([^<>]+)>", body)
        return f"{role}:{match.group(2) if match else body}"
    return f"{role}:{body}"


def markup(text: str) -> Counter[str]:
    """What a translation must keep verbatim: roles (targets), math, inline code, link URLs."""
    found: Counter[str] = Counter()
    for match in _ROLE.finditer(text):
        found[_role_key(match.group(1), match.group(2))] += 1
    rest = _ROLE.sub(" ", text)
    for match in _CODE.finditer(rest):
        found["code:" + (match.group(1) or match.group(2))] += 1
    rest = _CODE.sub(" ", rest)
    for match in _MATH.finditer(rest):
        found["math:" + re.sub(r"\s+", " ", match.group(0)).strip()] += 1
    for match in _LINK.finditer(rest):
        found["link:" + match.group(1)] += 1
    return found


def _role_text(match: re.Match[str]) -> str:
    """What a role shows that a translation translates: the text of a {doc}/{ref} written
    ``Text <target>``; nothing for any other role."""
    if match.group(1) in _TEXT_ROLES:
        explicit = re.fullmatch(r"(?s)(.*?)\s*<([^<>]+)>", match.group(2))
        if explicit:
            return f" {explicit.group(1)} "
    return " "


def prose_words(text: str) -> list[str]:
    """The English words of a text once its roles (but the shown text of a link to a page or
    label), code, math and URLs are taken out."""
    rest = _ROLE.sub(_role_text, text)
    rest = _CODE.sub(" ", rest)
    rest = _MATH.sub(" ", rest)
    rest = re.sub(r"\]\([^)]*\)", "]", rest)
    rest = re.sub(r"<[^>]+>", " ", rest)
    return [word for word in _WORD.findall(rest) if "_" not in word]


def needs_translation(msgid: str) -> bool:
    """False for an entry with no prose (display math, a code name, a number)."""
    if msgid.startswith("\n") or msgid.lstrip().startswith("\\begin"):
        return False  # display math
    return len(prose_words(msgid)) > 0


def entry_problems(entry: polib.POEntry) -> list[str]:
    """What is wrong with one translated entry (empty when nothing)."""
    problems = []
    if not entry.msgstr:
        return ["untranslated"]
    if "fuzzy" in entry.flags:
        problems.append("fuzzy")
    if not needs_translation(entry.msgid):
        # Display math stays as it is; a bare name ("num_buckets") may get a gloss beside it.
        keeps = entry.msgstr == entry.msgid or (
            not entry.msgid.startswith("\n") and entry.msgid in entry.msgstr
        )
        if not keeps:
            problems.append("has no prose: its translation must keep the text itself")
        return problems
    lost = markup(entry.msgid) - markup(entry.msgstr)
    added = markup(entry.msgstr) - markup(entry.msgid)
    if lost:
        problems.append(f"markup missing from the translation: {sorted(lost)}")
    if added:
        problems.append(f"markup not in the English: {sorted(added)}")
    if not _CJK.search(entry.msgstr) and len(prose_words(entry.msgid)) >= 3:
        problems.append("no Chinese in the translation")
    return problems


def check(paths: list[Path]) -> int:
    bad = 0
    for path in paths:
        for entry in polib.pofile(str(path)):
            if entry.obsolete:
                continue
            for problem in entry_problems(entry):
                bad += 1
                print(f"{path.resolve().relative_to(ROOT)}: {entry.msgid[:70]!r}: {problem}")
    print(f"{bad} problem(s) in {len(paths)} catalogue(s)")
    return 1 if bad else 0


def stats(language: str) -> int:
    for path in catalogues(language):
        result = subprocess.run(
            ["msgfmt", "--check", "--statistics", "-o", "/dev/null", str(path)],
            check=False,
            capture_output=True,
            text=True,
        )
        print(f"{path.relative_to(LOCALES)}: {result.stderr.strip()}")
    return 0


def extract() -> dict[str, list[str]]:
    """The English text as the catalogues must hold it: a fresh gettext extraction of every
    page (``_build/i18n/gettext``), and the three catalogues Sphinx does not extract."""
    if subprocess.call([sys.executable, "-m", "book", "build", "--gettext"], cwd=ROOT):
        raise SystemExit("the extraction of the English text failed")
    pages = {
        p.relative_to(POT_DIR).with_suffix("").as_posix(): [e.msgid for e in polib.pofile(str(p))]
        for p in POT_DIR.rglob("*.pot")
    }
    return pages | {
        UI_DOMAIN: list(UI_MESSAGES),
        EXPLORER_DOMAIN: explorer_messages_of_build(),
        SLIDES_DOMAIN: deck_only_messages(),
    }


def update(language: str) -> int:
    """Extract the English text again and merge it into the catalogues of ``language``."""
    expected = extract()
    for domain in (UI_DOMAIN, EXPLORER_DOMAIN, SLIDES_DOMAIN):
        write_catalogue(language, domain, expected[domain])
    status = subprocess.call(
        [
            sys.executable,
            "-m",
            "sphinx_intl",
            "update",
            "-p",
            str(POT_DIR),
            "-d",
            str(LOCALES),
            "-l",
            language,
            "-w",
            "0",
            "--no-obsolete",
        ]
    )
    for path in catalogues(language):
        normalise(path)
    # A page that left _toc.yml leaves its catalogue behind: remove it.
    for path in catalogues(language):
        if docname_of(path, language) not in expected:
            path.unlink()
    return status


def stale(language: str) -> int:
    """Fail when the catalogues of ``language`` differ from a fresh extraction of the English
    text (a page's text changed and ``make i18n-update`` was not run), or when ``book_ui.po``
    differs from ``editions.UI_MESSAGES``."""
    expected = extract()
    found = {
        docname_of(p, language): [e.msgid for e in polib.pofile(str(p)) if not e.obsolete]
        for p in catalogues(language)
    }
    problems = []
    for page in sorted(expected.keys() | found.keys()):
        if page not in found:
            problems.append(f"{page}: no catalogue")
            continue
        if page not in expected:
            problems.append(f"{page}: a catalogue of a page that is not in the book")
            continue
        new = set(expected[page]) - set(found[page])
        gone = set(found[page]) - set(expected[page])
        for msgid in sorted(new):
            problems.append(f"{page}: English text with no entry: {msgid[:80]!r}")
        for msgid in sorted(gone):
            problems.append(f"{page}: entry whose English text is gone: {msgid[:80]!r}")
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} difference(s): run `make i18n-update` and translate what it marks")
        return 1
    print(f"catalogues of {language} match the English text ({len(expected)} pages)")
    return 0


HEADER = {
    "Project-Id-Version": "posenc book",
    "Report-Msgid-Bugs-To": "",
    "Last-Translator": "posenc book translators",
    "Language-Team": "posenc book translators",
}


def normalise(path: Path) -> None:
    """Settle a catalogue's header (no creation time, so that an update without English changes
    leaves the file as it was) and drop Babel's ``python-format`` guesses: the entries are
    prose, where "95% of" is not a format string."""
    po = polib.pofile(str(path), wrapwidth=0)
    po.metadata.update(HEADER)
    po.metadata.pop("POT-Creation-Date", None)
    if po.metadata.get("PO-Revision-Date", "YEAR").startswith("YEAR"):
        po.metadata["PO-Revision-Date"] = "2026-11-27 00:00+0000"
    po.header = "Chinese (Simplified) translation of the posenc book; see CONTRIBUTING.md."
    for entry in po:
        if "python-format" in entry.flags:
            entry.flags.remove("python-format")
        if "no-python-format" in entry.flags:
            entry.flags.remove("no-python-format")
    po.save(str(path))


def write_catalogue(language: str, domain: str, messages: list[str]) -> None:
    """Write ``<domain>.po`` with one entry per message, keeping existing translations."""
    path = catalogue_path(language, domain)
    old = {e.msgid: e for e in polib.pofile(str(path))} if path.is_file() else {}
    po = polib.POFile(wrapwidth=0)
    po.metadata = {
        "Project-Id-Version": "posenc book",
        "Language": language,
        "MIME-Version": "1.0",
        "Content-Type": "text/plain; charset=utf-8",
        "Content-Transfer-Encoding": "8bit",
    }
    for message in messages:
        kept = old.get(message)
        po.append(
            polib.POEntry(
                msgid=message,
                msgstr=kept.msgstr if kept else "",
                flags=list(kept.flags) if kept else [],
            )
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    po.save(str(path))
    normalise(path)


def deck_only_messages() -> list[str]:
    """The speaker notes and slide-only cells of every notebook, whole, in reading order."""
    import nbformat

    from book.tools.build_handouts import toc_pages

    found: list[str] = []
    for docname in toc_pages():
        path = ROOT / f"{docname}.ipynb"
        if path.is_file():
            found.extend(
                c.source.strip() for c in nbformat.read(path, as_version=4).cells if deck_only(c)
            )
    return list(dict.fromkeys(found))


def explorer_messages_of_build() -> list[str]:
    """The explorers' titles and control names in the English build's executed notebooks."""
    import json

    executed = ROOT / "_build" / "jupyter_execute"
    if not executed.is_dir():
        raise SystemExit("no _build/jupyter_execute: build the English edition first (make book)")
    found: list[str] = []
    for path in sorted(executed.rglob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            for output in cell.get("outputs", []):
                text = output.get("data", {}).get("text/html", "")
                found += explorer_messages("".join(text) if isinstance(text, list) else text)
    return list(dict.fromkeys(found))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    up = sub.add_parser("update")
    up.add_argument("--language", default=TRANSLATIONS[0])
    ch = sub.add_parser("check")
    ch.add_argument("paths", nargs="*", type=Path)
    sl = sub.add_parser("stale")
    sl.add_argument("--language", default=TRANSLATIONS[0])
    st = sub.add_parser("stats")
    st.add_argument("--language", default=TRANSLATIONS[0])
    nbp = sub.add_parser("notebook")
    nbp.add_argument("language")
    nbp.add_argument("notebook", type=Path)
    nbp.add_argument("out", type=Path)
    args = parser.parse_args(argv)
    if args.command == "update":
        return update(args.language)
    if args.command == "check":
        return check(args.paths or [p for lang in TRANSLATIONS for p in catalogues(lang)])
    if args.command == "stale":
        return stale(args.language)
    if args.command == "stats":
        return stats(args.language)
    import nbformat

    nb = nbformat.read(args.notebook, as_version=4)
    docname = args.notebook.resolve().relative_to(ROOT).with_suffix("").as_posix()
    translate_notebook(nb, args.language, docname)
    nbformat.write(nb, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
