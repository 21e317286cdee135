"""The self-check quizzes: every data file follows the schema, every chapter asks its own, the
choices are shown in a fair order that every edition shares, the correct choice is not told by its
length, and every number question has a hint that does not give its answer away."""

from __future__ import annotations

import collections
import fractions
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

from book.ext import editions
from book.ext.quiz import QUIZ_LABELS, QuizError, choice_order, load_quiz, number_box, quiz_path
from book.tools.i18n import markup

CHAPTERS = sorted((ROOT / "chapters").glob("*.ipynb"))
QUIZ_FILES = sorted((ROOT / "quizzes").glob("*/*.yaml"))
LANGUAGES = sorted(p.name for p in (ROOT / "quizzes").iterdir() if p.is_dir())
MAX_SHARE = 0.4  # no position may hold more than this share of the book's correct choices
CJK = re.compile(r"[\u4e00-\u9fff]")


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "q.yaml"
    path.write_text(text)
    return path


GOOD_CHOICE = """
questions:
  - id: a
    type: choice
    question: Which?
    choices:
      - {text: This, correct: true, why: Because.}
      - {text: That, why: No.}
"""


def test_a_well_formed_file_loads(tmp_path):
    questions = load_quiz(_write(tmp_path, GOOD_CHOICE))
    assert [q["id"] for q in questions] == ["a"]


@pytest.mark.parametrize(
    "text,match",
    [
        ("questions: {}", "a list 'questions'"),
        (GOOD_CHOICE.replace("correct: true", "correct: false"), "exactly one choice"),
        (
            GOOD_CHOICE.replace("{text: That, why: No.}", "{text: That, correct: true, why: No.}"),
            "exactly one choice",
        ),
        (GOOD_CHOICE.replace("correct: true", "correct: 'yes'"), "'correct' must be a bool"),
        (GOOD_CHOICE.replace(", why: No.", ""), "needs 'text' and 'why'"),
        (GOOD_CHOICE.replace("type: choice", "type: essay"), "'type' must be 'choice' or 'number'"),
        (GOOD_CHOICE.replace("id: a", "id: ''"), "'id' must be a new non-empty string"),
        (
            "questions:\n  - {id: n, type: number, question: How many, answer: .nan, why: x}",
            "'answer' must be finite",
        ),
        (
            (
                "questions:\n  - {id: n, type: number, question: How many, answer: 3, tolerance: -1,"
                " why: x}"
            ),
            "'tolerance' must be >= 0",
        ),
        (
            "questions:\n  - {id: n, type: number, question: How many, answer: true, why: x}",
            "'answer' must be a number",
        ),
        (
            "questions:\n  - {id: n, type: number, question: How many, answer: 3, hint: h}",
            "'why' must be",
        ),
        (
            "questions:\n  - {id: n, type: number, question: How many, answer: 3, why: x}",
            "'hint' must be text",
        ),
        (
            "questions:\n  - {id: n, type: number, question: How many, answer: 3, hint: ' ', why: x}",
            "'hint' must be text",
        ),
        (
            (
                "questions:\n  - {id: n, type: number, question: How many, answer: 3, hint: h,"
                " why: x, expressions: 'no'}"
            ),
            "'expressions' must be a bool",
        ),
    ],
)
def test_a_broken_file_is_refused_with_the_question_named(tmp_path, text, match):
    with pytest.raises(QuizError, match=match):
        load_quiz(_write(tmp_path, text))


@pytest.mark.parametrize("path", QUIZ_FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_quiz_file_follows_the_schema(path):
    questions = load_quiz(path)
    assert 3 <= len(questions) <= 6, "a chapter asks 3 to 6 questions"


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_every_chapter_asks_its_own_quiz_before_its_summary(chapter):
    cells = json.loads(chapter.read_text())["cells"]
    markdown = [c for c in cells if c["cell_type"] == "markdown"]
    # the page's cells; a deck's slide-only cells (tag remove-cell) never reach the page
    page = [c for c in markdown if "remove-cell" not in c["metadata"].get("tags", [])]
    deck = [c for c in markdown if c not in page]
    sources = ["".join(c["source"]) for c in page]
    quiz = [i for i, s in enumerate(sources) if "```{quiz}" in s]
    assert len(quiz) == 1, "one quiz cell per chapter"
    in_deck = ["".join(c["source"]) for c in deck if "```{quiz}" in "".join(c["source"])]
    assert len(in_deck) <= 1, "at most one quiz slide"
    assert all(f"```{{quiz}} {chapter.stem}\n" in s for s in in_deck), "the deck's quiz is its own"
    assert f"```{{quiz}} {chapter.stem}\n" in sources[quiz[0]], "the quiz names its own chapter"
    summary = [i for i, s in enumerate(sources) if s.lstrip().startswith("## Summary")]
    assert summary and quiz[0] < summary[0], "the quiz comes before the summary"
    assert quiz_path(ROOT, "en", chapter.stem).is_file()


# ---------------------------------------------------------------------------------------------
# the order of the choices


@pytest.mark.parametrize("n", range(7))
def test_choice_order_is_a_permutation(n):
    for qid in ("a", "dot-product-direction", "问题", ""):
        assert sorted(choice_order(qid, n)) == list(range(n))


def test_choice_order_depends_on_the_id_alone():
    assert choice_order("dot-product-direction", 3) == choice_order("dot-product-direction", 3)
    orders = {tuple(choice_order(f"q{i}", 4)) for i in range(200)}
    assert len(orders) == 24, "every order of four choices occurs"
    # Pinned: a change to the shuffle reorders every question of every built page and deck.
    assert choice_order("dot-product-direction", 3) == [1, 0, 2]
    assert choice_order("attend-behind", 4) == [2, 3, 0, 1]


def test_choice_order_is_the_same_in_another_process():
    """A stable digest, not Python's hash(), which changes with PYTHONHASHSEED."""
    code = (
        "from book.ext.quiz import choice_order; "
        "print([choice_order(f'q{i}', 4) for i in range(20)])"
    )
    runs = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2")
    }
    assert runs == {str([choice_order(f"q{i}", 4) for i in range(20)]) + "\n"}


@pytest.mark.parametrize("n", [-1, 2.0, True, "3"])
def test_choice_order_refuses_a_count_that_is_not_one(n):
    with pytest.raises(ValueError, match="count of choices"):
        choice_order("a", n)


def correct_positions(language: str) -> dict[str, int]:
    """Where each choice question of the book shows its correct choice (0 = first)."""
    positions = {}
    for path in sorted((ROOT / "quizzes" / language).glob("*.yaml")):
        for q in load_quiz(path):
            if q["type"] == "choice":
                right = next(i for i, c in enumerate(q["choices"]) if c.get("correct"))
                positions[f"{path.stem}/{q['id']}"] = choice_order(
                    q["id"], len(q["choices"])
                ).index(right)
    return positions


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_correct_choice_is_spread_over_the_positions(language):
    positions = correct_positions(language)
    counts = collections.Counter(positions.values())
    assert len(positions) >= 20
    assert len(counts) >= 3, f"the correct choice only ever sits at {sorted(counts)}"
    for position, count in sorted(counts.items()):
        assert count <= MAX_SHARE * len(positions), (
            f"the correct choice is shown at position {position + 1} in {count} of "
            f"{len(positions)} questions ({dict(sorted(counts.items()))})"
        )


MAX_KEY_LONGEST = 0.3  # share of choice questions whose correct choice is the longest at most
MAX_KEY_SHORTEST = 0.4  # ... and the shortest at most


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_key_is_seldom_the_longest_choice(language):
    """A student must not find the answer by its length: the correct choice is the strictly
    longest (in characters, so a Chinese one counts its characters) in at most 30% of the
    choice questions of an edition, and the strictly shortest in at most 40%."""
    longest, shortest, total = [], [], 0
    for path in sorted((ROOT / "quizzes" / language).glob("*.yaml")):
        for q in load_quiz(path):
            if q["type"] != "choice":
                continue
            total += 1
            right = next(i for i, c in enumerate(q["choices"]) if c.get("correct"))
            key = len(q["choices"][right]["text"])
            others = [len(c["text"]) for i, c in enumerate(q["choices"]) if i != right]
            if key > max(others):
                longest.append(f"{path.stem}/{q['id']}")
            elif key < min(others):
                shortest.append(f"{path.stem}/{q['id']}")
    assert total >= 20
    shares = (
        f"the correct choice is the longest in {len(longest)}/{total} "
        f"({len(longest) / total:.0%}) and the shortest in {len(shortest)}/{total} "
        f"({len(shortest) / total:.0%}) of the choice questions"
    )
    assert len(longest) <= MAX_KEY_LONGEST * total, f"{shares}; longest: {longest}"
    assert len(shortest) <= MAX_KEY_SHORTEST * total, f"{shares}; shortest: {shortest}"


def test_every_edition_shows_the_choices_in_the_same_order():
    english = correct_positions("en")
    for language in LANGUAGES:
        assert correct_positions(language) == english, language
    for path in sorted((ROOT / "quizzes" / "en").glob("*.yaml")):
        for language in LANGUAGES:
            other = load_quiz(ROOT / "quizzes" / language / path.name)
            assert [q["id"] for q in other] == [q["id"] for q in load_quiz(path)]


def test_question_ids_are_unique_across_the_book():
    """The order is seeded by the id alone: two questions sharing one would share an order."""
    ids = collections.Counter(
        q["id"] for path in (ROOT / "quizzes" / "en").glob("*.yaml") for q in load_quiz(path)
    )
    assert [qid for qid, n in ids.items() if n > 1] == []


# ---------------------------------------------------------------------------------------------
# number questions: hints, and the words quiz.js shows


def _answer_forms(answer: float) -> set[str]:
    """How a hint could give the answer away: the number, whole or rounded, without its sign."""
    a = abs(answer)
    if float(a).is_integer():
        return {str(int(a))}
    forms = {repr(a)} | {f"{a:.{k}f}".rstrip("0") for k in (2, 3, 4)}
    fraction = fractions.Fraction(a).limit_denominator(1000)
    if fraction == a:
        forms.add(f"{fraction.numerator}/{fraction.denominator}")  # 17/32
    return forms


NUMBER_QUESTIONS = [
    (path, q) for path in QUIZ_FILES for q in load_quiz(path) if q["type"] == "number"
]


@pytest.mark.parametrize(
    "path,q", NUMBER_QUESTIONS, ids=[f"{p.parent.name}/{q['id']}" for p, q in NUMBER_QUESTIONS]
)
def test_a_hint_points_to_the_method_without_the_answer(path, q):
    hint = q["hint"]
    for form in _answer_forms(q["answer"]):
        assert not re.search(rf"(?<![\d.]){re.escape(form)}(?![\d])", hint), (
            f"the hint shows the answer {form}"
        )
    assert len(hint) >= 40, "a hint says how to get there"


@pytest.mark.parametrize("english", sorted((ROOT / "quizzes" / "en").glob("*.yaml")), ids=str)
def test_every_hint_is_translated_with_the_same_math(english):
    en = {q["id"]: q for q in load_quiz(english) if q["type"] == "number"}
    for language in LANGUAGES:
        if language == "en":
            continue
        other = {q["id"]: q for q in load_quiz(ROOT / "quizzes" / language / english.name)}
        for qid, q in en.items():
            hint = other[qid]["hint"]
            assert hint != q["hint"] and CJK.search(hint), f"{language} {qid}: not translated"
            assert markup(hint) == markup(q["hint"]), f"{language} {qid}: math or code differs"


def test_every_quiz_word_is_a_translated_ui_message():
    for english in QUIZ_LABELS.values():
        assert english in editions.UI_MESSAGES, f"add {english!r} to editions.UI_MESSAGES"
        for language in editions.TRANSLATIONS:
            translated = editions.ui_text(language, english)
            assert translated != english, f"{english!r} has no {language} translation"
            assert re.findall(r"\{\w+\}", translated) == re.findall(r"\{\w+\}", english)


def test_a_number_box_keeps_the_answer_and_may_refuse_calculations():
    labels = {"your_answer": 'Your "answer"', "check": "Check"}
    box = number_box({"answer": 0.53125, "tolerance": 0.005}, labels)
    assert 'data-answer="0.53125" data-tolerance="0.005"' in box
    assert 'aria-label="Your &quot;answer&quot;"' in box
    assert "data-expressions" not in box and "inputmode" not in box
    plain = number_box({"answer": 12, "expressions": False}, labels)
    assert 'data-answer="12" data-tolerance="0"' in plain
    assert 'data-expressions="false"' in plain and 'inputmode="decimal"' in plain


# ---------------------------------------------------------------------------------------------
# the directive's HTML, from a one-page Sphinx build

QUIZ_YAML = """
questions:
  - id: dot-product-direction
    type: choice
    question: Which one?
    choices:
      - {text: First listed, correct: true, why: Right because.}
      - {text: Second listed, why: Wrong because two.}
      - {text: Third listed, why: Wrong because three.}
  - id: count
    type: number
    question: How many?
    answer: 12
    tolerance: 0
    hint: Count the groups first.
    why: Two times six.
"""


def _build(tmp_path: Path, language: str) -> str:
    src = tmp_path / language
    (src / "quizzes" / language).mkdir(parents=True)
    (src / "quizzes" / language / "t.yaml").write_text(QUIZ_YAML)
    (src / "conf.py").write_text(
        'extensions = ["myst_parser", "book.ext.quiz"]\nhtml_theme = "basic"\n'
        f"language = {language!r}\n"
    )
    (src / "index.md").write_text("# Quiz\n\n```{quiz} t\n```\n")
    # In its own process: Sphinx apps built one after another in one process share docutils'
    # and the parsers' registrations, and a later build elsewhere in the suite fails.
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-W", "-b", "html", str(src), str(src / "_out")],
        check=False,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr  # -W: any warning fails the build
    return (src / "_out" / "index.html").read_text(encoding="utf-8")


def test_the_page_shows_the_shuffled_choices_and_the_hint(tmp_path):
    page = _build(tmp_path, "en")
    shown = re.findall(r"<p>(\w+) listed", page)
    listed = ["First", "Second", "Third"]
    assert shown == [listed[i] for i in choice_order("dot-product-direction", 3)]
    # each choice carries its text in words, which quiz.js makes the button's accessible name
    assert re.search(
        r'class="[^"]*pe-quiz-correct[^"]*">\s*<span class="pe-quiz-choice-label" hidden>'
        r"First listed[^<]*</span>\s*<div[^>]*>\s*<p>First listed",
        page,
    )
    assert '<p class="pe-quiz-feedback" aria-live="polite"></p>' in page
    status = page.index('<div class="pe-quiz-status" aria-live="polite">')
    hint = page.index("pe-quiz-hint")
    reveal = page.index('<button type="button" class="pe-quiz-reveal" hidden>Show answer</button>')
    assert status < hint < reveal < page.index("Two times six.")
    assert re.search(r'<strong class="pe-quiz-hint-label">Hint:</strong> Count the groups', page)
    assert 'data-answer-is="The answer is {answer}."' in page
    assert 'data-answer="12" data-tolerance="0"' in page


def test_the_chinese_page_has_chinese_quiz_words(tmp_path):
    page = _build(tmp_path, "zh_CN")
    assert "显示答案</button>" in page
    assert re.search(r'<strong class="pe-quiz-hint-label">提示：</strong>Count the groups', page)
    assert 'data-answer-is="答案是 {answer}。"' in page
