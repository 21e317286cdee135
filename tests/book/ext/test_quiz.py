"""The self-check quizzes: every data file follows the schema, and every chapter asks its own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

from book.ext.quiz import QuizError, load_quiz, quiz_path

CHAPTERS = sorted((ROOT / "chapters").glob("*.ipynb"))
QUIZ_FILES = sorted((ROOT / "quizzes").glob("*/*.yaml"))


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
        ("questions:\n  - {id: n, type: number, question: How many, answer: 3}", "'why' must be"),
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
    sources = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    quiz = [i for i, s in enumerate(sources) if "```{quiz}" in s]
    assert len(quiz) == 1, "one quiz cell per chapter"
    assert f"```{{quiz}} {chapter.stem}\n" in sources[quiz[0]], "the quiz names its own chapter"
    summary = [i for i, s in enumerate(sources) if s.lstrip().startswith("## Summary")]
    assert summary and quiz[0] < summary[0], "the quiz comes before the summary"
    assert quiz_path(ROOT, "en", chapter.stem).is_file()
