"""What an incremental build redoes (book/tools/stamps.py, book/tools/build_book.py).

A small synthetic book (two chapters, an intro, quizzes, catalogues, a bibliography, a
package its chapters import, extensions with a stylesheet and a script) is stamped once; then
one input of each kind changes, and the plan of each edition must rebuild exactly what
depends on it: nothing, the pages whose own inputs changed, or every page.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from book.ext.book_site import execution_digest
from book.tools import build_book, stamps
from book.tools.stamps import Plan

EDITIONS = ("en", "zh_CN")


def _notebook(*markdown: str) -> str:
    cells = [{"cell_type": "markdown", "metadata": {}, "source": text} for text in markdown]
    cells.append(
        {
            "cell_type": "code",
            "metadata": {},
            "source": "from pkg import mod\nmod.value()",
            "outputs": [],
            "execution_count": None,
        }
    )
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(notebook, ensure_ascii=False)


def make_book(root: Path) -> stamps.Book:
    files = {
        "_config.yml": "title: T\nbibtex_bibfiles:\n  - references.bib\n",
        "_toc.yml": (
            "format: jb-book\nroot: intro\nchapters:\n"
            "  - file: chapters/01_first\n  - file: chapters/02_second\n"
        ),
        "references.bib": "@article{a, title={A}, author={B}, year={2017}}\n",
        "requirements.txt": "torch==2.13.0\n",
        "intro.md": "# Intro\n\nWelcome.\n",
        "chapters/01_first.ipynb": _notebook("# First\n\nSome prose.", "```{quiz} 01_first\n```"),
        "chapters/02_second.md": "# Second\n\nMore prose.\n\n```{quiz} 02_second\n```\n",
        "quizzes/en/01_first.yaml": "questions: [one]\n",
        "quizzes/en/02_second.yaml": "questions: [two]\n",
        "quizzes/zh_CN/01_first.yaml": "questions: [一]\n",
        "quizzes/zh_CN/02_second.yaml": "questions: [二]\n",
        "locales/zh_CN/LC_MESSAGES/intro.po": 'msgid "Welcome."\nmsgstr "欢迎。"\n',
        "locales/zh_CN/LC_MESSAGES/chapters/01_first.po": 'msgid "Some prose."\nmsgstr "一些"\n',
        "locales/zh_CN/LC_MESSAGES/chapters/02_second.po": 'msgid "More prose."\nmsgstr "更多"\n',
        "locales/zh_CN/LC_MESSAGES/book_ui.po": 'msgid "Print"\nmsgstr "打印"\n',
        "locales/zh_CN/LC_MESSAGES/explorers.po": 'msgid "Base"\nmsgstr "底数"\n',
        "locales/zh_CN/LC_MESSAGES/slides.po": 'msgid "Note"\nmsgstr "注"\n',
        "images/favicon.svg": "<svg/>",
        "pkg/__init__.py": "",
        "pkg/mod.py": "def value():\n    return 1\n",
        "ext/site.py": "def setup(app):\n    pass\n",
        "ext/site_static/site.css": "body { color: black; }\n",
        "ext/site_static/site.js": "console.log('hello');\n",
        "ext/templates/deck.html.j2": "{{ body }}\n",
        "tools/build.py": "# the build script\n",
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return stamps.Book(root, root / "ext", build_files=(root / "tools" / "build.py",))


def inputs(book: stamps.Book, language: str) -> dict:
    return stamps.edition_inputs(
        book,
        language,
        execution=execution_digest(book.root, packages=[book.root / "pkg"]),
        settings={"language": language},
    )


@pytest.fixture
def book(tmp_path: Path) -> stamps.Book:
    return make_book(tmp_path)


def _edit(name: str, old: str, new: str) -> Callable[[Path], None]:
    def edit(root: Path) -> None:
        path = root / name
        text = path.read_text(encoding="utf-8")
        assert old in text, f"{old!r} is not in {name}"
        path.write_text(text.replace(old, new), encoding="utf-8")

    return edit


FIRST, SECOND = "chapters/01_first", "chapters/02_second"
ALL = ("full", ())
NONE = ("skip", ())

# (what changes, the plan of the English edition, the plan of the Chinese edition)
CASES = [
    ("a chapter (notebook)", _edit(f"{FIRST}.ipynb", "Some", "Other"), ("update", (FIRST,)))
    + (("update", (FIRST,)),),
    ("a chapter (Markdown)", _edit(f"{SECOND}.md", "More", "Most"), ("update", (SECOND,)))
    + (("update", (SECOND,)),),
    ("a chapter's code", _edit(f"{FIRST}.ipynb", "value()", "value() + 1"), ("update", (FIRST,)))
    + (("update", (FIRST,)),),
    ("the intro", _edit("intro.md", "Welcome", "Hello"), ("update", ("intro",)))
    + (("update", ("intro",)),),
    ("an English quiz", _edit("quizzes/en/01_first.yaml", "one", "uno"), ("update", (FIRST,)))
    + (NONE,),
    ("a Chinese quiz", _edit("quizzes/zh_CN/02_second.yaml", "二", "两"), NONE)
    + (("update", (SECOND,)),),
    (
        "a page's catalogue",
        _edit("locales/zh_CN/LC_MESSAGES/chapters/02_second.po", "更多", "更多的"),
        NONE,
        ("update", (SECOND,)),
    ),
    ("the extensions' words", _edit("locales/zh_CN/LC_MESSAGES/book_ui.po", "打印", "印"), NONE)
    + (ALL,),
    ("the explorers' words", _edit("locales/zh_CN/LC_MESSAGES/explorers.po", "底", "基"), NONE)
    + (ALL,),
    ("the decks' notes", _edit("locales/zh_CN/LC_MESSAGES/slides.po", "注", "注释"), NONE) + (ALL,),
    ("a package source", _edit("pkg/mod.py", "return 1", "return 2"), ALL, ALL),
    ("a pinned package", _edit("requirements.txt", "2.13.0", "2.13.1"), ALL, ALL),
    ("an extension's code", _edit("ext/site.py", "pass", "return {}"), ALL, ALL),
    ("a stylesheet", _edit("ext/site_static/site.css", "black", "navy"), ALL, ALL),
    ("a script", _edit("ext/site_static/site.js", "hello", "hi"), ALL, ALL),
    ("a template", _edit("ext/templates/deck.html.j2", "body", "body|safe"), ALL, ALL),
    ("_config.yml", _edit("_config.yml", "title: T", "title: U"), ALL, ALL),
    ("_toc.yml", _edit("_toc.yml", "  - file: chapters/02_second\n", ""), ALL, ALL),
    ("the bibliography", _edit("references.bib", "2017", "2018"), ALL, ALL),
    ("the favicon", _edit("images/favicon.svg", "<svg/>", "<svg></svg>"), ALL, ALL),
    ("the build script", _edit("tools/build.py", "build", "build book"), ALL, ALL),
    ("nothing", lambda root: None, NONE, NONE),
]


@pytest.mark.parametrize(
    ("change", "en", "zh_CN"),
    [(edit, en, zh) for _, edit, en, zh in CASES],
    ids=[case[0] for case in CASES],
)
def test_a_change_rebuilds_exactly_what_depends_on_it(
    book: stamps.Book, change: Callable[[Path], None], en: tuple, zh_CN: tuple
) -> None:
    built = {language: inputs(book, language) for language in EDITIONS}
    change(book.root)
    for language, (action, pages) in zip(EDITIONS, (en, zh_CN)):
        todo = stamps.plan(built[language], inputs(book, language), built=True)
        assert (todo.action, todo.pages) == (action, pages), language


def test_touching_a_file_rebuilds_nothing(book: stamps.Book) -> None:
    built = inputs(book, "zh_CN")
    for path in book.root.rglob("*"):
        if path.is_file():
            path.write_bytes(path.read_bytes())  # new times, same content
    assert stamps.plan(built, inputs(book, "zh_CN"), built=True).action == "skip"


def test_a_page_lists_its_own_inputs(book: stamps.Book) -> None:
    assert set(inputs(book, "en")["pages"][FIRST]) == {
        f"{FIRST}.ipynb",
        stamps.CODE,
        "quizzes/en/01_first.yaml",
    }
    assert set(inputs(book, "zh_CN")["pages"][SECOND]) == {
        f"{SECOND}.md",
        "quizzes/zh_CN/02_second.yaml",
        "locales/zh_CN/LC_MESSAGES/chapters/02_second.po",
    }


def test_a_page_that_shows_a_second_quiz_depends_on_it(book: stamps.Book) -> None:
    built = inputs(book, "en")
    _edit(f"{SECOND}.md", "More prose.", "More prose.\n\n```{quiz} 01_first\n```")(book.root)
    assert "quizzes/en/01_first.yaml" in inputs(book, "en")["pages"][SECOND]
    assert stamps.plan(built, inputs(book, "en"), built=True).pages == (SECOND,)
    built = inputs(book, "en")
    _edit("quizzes/en/01_first.yaml", "one", "uno")(book.root)
    assert stamps.plan(built, inputs(book, "en"), built=True).pages == (FIRST, SECOND)


def test_the_glossary_is_global_where_the_search_uses_it(book: stamps.Book) -> None:
    glossary = book.root / "appendix" / "which_encoding.ipynb"
    glossary.parent.mkdir()
    glossary.write_text(_notebook("## Glossary\n\nattention · 注意力", "Other text."))

    def stamp() -> dict:
        return stamps.edition_inputs(book, "zh_CN", execution="x", search_glossary=True)

    built = stamp()
    _edit("appendix/which_encoding.ipynb", "Other text.", "More text.")(book.root)
    assert stamps.plan(built, stamp(), built=True).action == "skip"  # not in the toc: no page
    _edit("appendix/which_encoding.ipynb", "注意力", "关注")(book.root)
    assert stamps.plan(built, stamp(), built=True).action == "full"


def test_a_missing_stamp_or_edition_rebuilds_every_page(book: stamps.Book) -> None:
    current = inputs(book, "en")
    assert stamps.plan(None, current, built=True).action == "full"
    assert stamps.plan(current, current, built=False).action == "full"
    old = {**current, "version": stamps.STAMP_VERSION - 1}
    assert stamps.plan(old, current, built=True).action == "full"
    assert stamps.plan(current, current, built=True) == Plan("skip")


def test_a_failed_build_is_redone_even_after_its_change_is_undone(
    book: stamps.Book, tmp_path: Path
) -> None:
    built = inputs(book, "en")
    edit = _edit(f"{FIRST}.ipynb", "Some prose.", "Some prose with a {broken}`role`.")
    edit(book.root)
    todo = stamps.plan(built, inputs(book, "en"), built=True)
    assert todo.pages == (FIRST,)
    kept = stamps.unbuilt(built, todo)  # saved while the build runs; the build then fails
    stamp = tmp_path / "stamp.json"
    stamps.save(stamp, kept)
    _edit(f"{FIRST}.ipynb", "Some prose with a {broken}`role`.", "Some prose.")(book.root)
    assert inputs(book, "en") == built
    again = stamps.plan(stamps.load(stamp), inputs(book, "en"), built=True)
    assert (again.action, again.pages) == ("update", (FIRST,))
    assert stamps.unbuilt(built, Plan("full", changed=("_config.yml",))) is None


def test_a_stamp_is_saved_whole(tmp_path: Path) -> None:
    stamp = tmp_path / ".stamps" / "en.json"
    assert stamps.load(stamp) is None
    stamps.save(stamp, {"version": 1, "pages": {"a": {"a.md": "x"}}})
    assert stamps.load(stamp) == {"version": 1, "pages": {"a": {"a.md": "x"}}}
    assert not list(stamp.parent.glob("*.part"))
    stamp.write_text("{not json")
    assert stamps.load(stamp) is None


def test_the_plan_names_the_catalogues_to_compile_again(book: stamps.Book) -> None:
    built = inputs(book, "zh_CN")
    _edit("locales/zh_CN/LC_MESSAGES/chapters/02_second.po", "更多", "更多的")(book.root)
    todo = stamps.plan(built, inputs(book, "zh_CN"), built=True)
    assert list(stamps.changed_catalogues(todo)) == [
        "locales/zh_CN/LC_MESSAGES/chapters/02_second.po"
    ]


def test_this_books_stamp_knows_every_kind_of_input() -> None:
    """The real book: each kind of input the issue names is in the stamp of each edition."""
    for language in EDITIONS:
        stamp = build_book.edition_inputs(language, build_book._overrides(language))
        shared = stamp["global"]
        for name in ("_config.yml", "_toc.yml", "references.bib", "book/ext/", "execution"):
            assert shared[name], name
        assert shared["book/tools/build_book.py"] and shared["book/tools/stamps.py"]
        chapter = stamp["pages"]["chapters/03_sinusoidal"]
        assert chapter["chapters/03_sinusoidal.ipynb"]
        assert chapter[f"quizzes/{language}/03_sinusoidal.yaml"]
        if language != "en":
            assert chapter[f"locales/{language}/LC_MESSAGES/chapters/03_sinusoidal.po"]
            assert shared[f"locales/{language}/LC_MESSAGES/book_ui.po"]
            assert shared["glossary"]
        assert list(stamp["pages"]) == build_book.stamps.toc_pages(build_book.ROOT / "_toc.yml")


@pytest.mark.parametrize(
    ("en", "zh_CN", "executes", "together"),
    [
        ("update", "update", False, True),
        ("update", "update", True, False),  # the English build executes, the Chinese one reads
        ("update", "skip", False, False),
        ("full", "update", False, False),  # every page: read in parallel processes already
        ("skip", "skip", False, False),
    ],
)
def test_the_editions_are_built_side_by_side_only_when_nothing_executes(
    en: str, zh_CN: str, executes: bool, together: bool
) -> None:
    def plan(language: str, action: str, runs: bool) -> build_book.EditionPlan:
        todo = Plan(action, (FIRST,) if action == "update" else ())
        return build_book.EditionPlan(language, todo, None, {}, {}, runs)

    plans = [plan("en", en, executes), plan("zh_CN", zh_CN, False)]
    assert build_book.side_by_side(plans) is together


@pytest.mark.parametrize(
    ("change", "executes"),
    [
        (_edit(f"{FIRST}.ipynb", "Some prose.", "Some other prose."), False),
        (_edit(f"{FIRST}.ipynb", "value()", "value() + 1"), True),
        (_edit(f"{SECOND}.md", "More", "Most"), False),
        (_edit("quizzes/en/01_first.yaml", "one", "uno"), False),
    ],
    ids=["prose", "code", "markdown page", "quiz"],
)
def test_a_plan_knows_whether_it_executes_a_notebook(
    book: stamps.Book, change: Callable[[Path], None], executes: bool
) -> None:
    built = inputs(book, "en")
    change(book.root)
    current = inputs(book, "en")
    todo = stamps.plan(built, current, built=True)
    assert todo.action == "update"
    assert stamps.executes(built, current, todo) is executes
    assert stamps.executes(None, current, todo)  # no stamp: the cache may not hold it
    assert stamps.executes(built, current, Plan("full"))


@pytest.mark.parametrize("action", ["full", "update"])
def test_a_build_reads_the_pages_of_its_plan_and_then_saves_its_stamp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, action: str
) -> None:
    """Sphinx's -a alone writes every page but reads only the changed files: a full build
    names every page to read again. The stamp is saved once the build succeeded."""
    calls = []

    def sphinx(builder, outdir, doctrees, overrides, force_all):
        calls.append((overrides["book_reread_docs"], force_all))
        return status

    monkeypatch.setattr(build_book, "_sphinx", sphinx)
    current = {"version": 1, "global": {}, "pages": {"intro": {}, FIRST: {}, SECOND: {}}}
    todo = Plan(action, (FIRST,) if action == "update" else ())
    stamp = tmp_path / "en.json"
    status = 1  # a failed build leaves no stamp of its inputs
    assert build_book._run(todo, None, current, stamp, "en", {}, outdir=tmp_path) == 1
    assert stamps.load(stamp) is None
    status = 0
    assert build_book._run(todo, None, current, stamp, "en", {}, outdir=tmp_path) == 0
    assert stamps.load(stamp) == current
    expected = (["intro", FIRST, SECOND], True) if action == "full" else ([FIRST], False)
    assert calls == [expected, expected]
