"""Self-check quizzes that answer in the static page: no kernel, no network.

A chapter asks for its questions with a directive in a markdown cell::

    ```{quiz} 05_absolute_2d
    ```

The questions live in a data file per chapter and language, ``quizzes/<language>/<name>.yaml``
(``en`` when Sphinx's ``language`` is unset), so another edition of the book brings its own
file and the notebooks stay the same. Each question is either ``type: choice`` (one choice has
``correct: true``; every choice says ``why`` it is right or wrong) or ``type: number`` (an
``answer``, an absolute ``tolerance``, a ``hint`` that points to the method without giving the
number away, a ``why``, and optionally ``expressions: false`` for a box that takes a plain
number only). Text fields are MyST Markdown, parsed like the rest of the page, so ``$...$``
math is typeset by the site's own MathJax.

The choices are shown in an order of their own, ``choice_order(id, n)``: a shuffle seeded by
the question's id, so the correct one is not always first, every build gives the same order,
and every edition (the ids are the same in every language) shows the same order. The slide
decks (``slides.py``) use the same function, and the handouts print the pages.

The directive writes plain HTML; ``quiz_static/quiz.js`` makes the choices clickable and the
number boxes checkable, and shows "Correct" or "Not quite" (words and a mark, never colour
alone) with the explanation. A number box also takes a fraction or a small calculation
(``17/32``, ``2*6``, ``3!``), read by a small parser in quiz.js; a first wrong number shows
the hint, a second one a "Show answer" button. A data file that breaks the schema fails the
build with the file and the question named.
"""

from __future__ import annotations

import hashlib
import html
import math
from pathlib import Path
from typing import Any

import yaml
from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from book.ext.editions import SOURCE_LANGUAGE, ui_text
from book.ext.reader import plain_markdown

STATIC = Path(__file__).parent / "quiz_static"


class QuizError(ValueError):
    """A quiz data file that does not follow the schema."""


def quiz_path(srcdir: str | Path, language: str | None, name: str) -> Path:
    """The data file of quiz ``name`` for ``language`` (``en`` when unset)."""
    return Path(srcdir) / "quizzes" / (language or "en") / f"{name}.yaml"


def choice_order(question_id: str, n: int) -> list[int]:
    """The order in which question ``question_id`` shows its ``n`` choices, as indices into
    the list of its data file: ``[2, 0, 1]`` shows the third choice first.

    The choices are sorted by the SHA-256 digest of ``"<id>/<index>"``: a shuffle that depends
    on the id alone (not on Python's per-process ``hash``, the language or the build), so it is
    the same in every build and every edition. ``tests/book/ext/test_quiz.py`` checks that,
    over the whole book, no position holds more than 40% of the correct choices; should a new
    question break that, reword its id or list its choices in another order.
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"n must be a count of choices, got {n!r}")
    return sorted(range(n), key=lambda i: hashlib.sha256(f"{question_id}/{i}".encode()).digest())


def load_quiz(path: Path) -> list[dict[str, Any]]:
    """Read and check a quiz data file; return its questions."""
    if not path.is_file():
        raise QuizError(f"no quiz file {path}")
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("questions"), list):
        raise QuizError(f"{path}: expected a mapping with a list 'questions'")
    questions = data["questions"]
    if not 1 <= len(questions) <= 8:
        raise QuizError(f"{path}: expected 1 to 8 questions, got {len(questions)}")
    seen: set[str] = set()
    for i, q in enumerate(questions):
        where = f"{path}: question {i + 1}"
        if not isinstance(q, dict):
            raise QuizError(f"{where}: expected a mapping")
        qid = q.get("id")
        if not isinstance(qid, str) or not qid or qid in seen:
            raise QuizError(f"{where}: 'id' must be a new non-empty string, got {qid!r}")
        seen.add(qid)
        if not isinstance(q.get("question"), str) or not q["question"].strip():
            raise QuizError(f"{where} ({qid}): 'question' must be text")
        kind = q.get("type")
        if kind == "choice":
            choices = q.get("choices")
            if not isinstance(choices, list) or not 2 <= len(choices) <= 6:
                raise QuizError(f"{where} ({qid}): 'choices' must list 2 to 6 choices")
            right = 0
            for j, c in enumerate(choices):
                if not isinstance(c, dict) or not all(
                    isinstance(c.get(k), str) and c[k].strip() for k in ("text", "why")
                ):
                    raise QuizError(f"{where} ({qid}), choice {j + 1}: needs 'text' and 'why'")
                correct = c.get("correct", False)
                if not isinstance(correct, bool):
                    raise QuizError(f"{where} ({qid}), choice {j + 1}: 'correct' must be a bool")
                right += correct
            if right != 1:
                raise QuizError(f"{where} ({qid}): exactly one choice must be correct, got {right}")
        elif kind == "number":
            answer, tolerance = q.get("answer"), q.get("tolerance", 0)
            for key, value in (("answer", answer), ("tolerance", tolerance)):
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    raise QuizError(f"{where} ({qid}): '{key}' must be a number")
                if not math.isfinite(value):
                    raise QuizError(f"{where} ({qid}): '{key}' must be finite")
            if tolerance < 0:
                raise QuizError(f"{where} ({qid}): 'tolerance' must be >= 0")
            for key in ("hint", "why"):
                if not isinstance(q.get(key), str) or not q[key].strip():
                    raise QuizError(f"{where} ({qid}): '{key}' must be text")
            if not isinstance(q.get("expressions", True), bool):
                raise QuizError(f"{where} ({qid}): 'expressions' must be a bool")
        else:
            raise QuizError(f"{where} ({qid}): 'type' must be 'choice' or 'number', got {kind!r}")
    return questions


class QuizDirective(SphinxDirective):
    """``{quiz} name``: the self-check questions of ``quizzes/<language>/<name>.yaml``."""

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        name = self.arguments[0]
        path = quiz_path(self.env.srcdir, self.config.language, name)
        self.env.note_dependency(str(path))
        try:
            questions = load_quiz(path)
        except (QuizError, yaml.YAMLError) as error:
            raise self.error(str(error)) from error
        language = self.config.language or SOURCE_LANGUAGE
        labels = {key: ui_text(language, text) for key, text in QUIZ_LABELS.items()}
        root = nodes.container(classes=["pe-quiz"])
        root["ids"].append(f"quiz-{name}")
        # The words quiz.js writes into the feedback, in the page's language.
        data = " ".join(
            f'data-{key.replace("_", "-")}="{html.escape(labels[key])}"'
            for key in ("right", "wrong", "number", "plain_number", "answer_is")
        )
        root += nodes.raw("", f'<span class="pe-quiz-labels" hidden {data}></span>', format="html")
        for number, q in enumerate(questions, start=1):
            box = nodes.container(classes=["pe-quiz-question", f"pe-quiz-type-{q['type']}"])
            box["ids"].append(f"quiz-{name}-{q['id']}")
            heading = labels["question"].format(n=number)
            box += nodes.paragraph("", heading, classes=["pe-quiz-heading"])
            box += self._parse(q["question"], "pe-quiz-text")
            if q["type"] == "choice":
                for index in choice_order(q["id"], len(q["choices"])):
                    choice = q["choices"][index]
                    classes = ["pe-quiz-choice"] + (
                        ["pe-quiz-correct"] if choice.get("correct") else []
                    )
                    option = nodes.container(classes=classes)
                    # the choice's name for a screen reader, in words (a choice that is only
                    # math would otherwise have none: quiz.js makes it the button's label)
                    option += _html(
                        '<span class="pe-quiz-choice-label" hidden>'
                        f"{html.escape(plain_markdown(choice['text']))}</span>"
                    )
                    option += self._parse(choice["text"], "pe-quiz-choice-text")
                    option += self._parse(choice["why"], "pe-quiz-why")
                    box += option
                box += _html(_FEEDBACK)
            else:
                box += _html(number_box(q, labels))
                # The feedback, the hint, the "Show answer" button and the explanation form
                # one live region, so that a screen reader reads each of them as it appears.
                box += _html('<div class="pe-quiz-status" aria-live="polite">')
                box += _html('<p class="pe-quiz-feedback"></p>')
                box += self._hint(q["hint"], labels["hint"])
                box += _html(
                    '<p class="pe-quiz-reveal-line"><button type="button" class="pe-quiz-reveal" '
                    f"hidden>{html.escape(labels['show_answer'])}</button></p>"
                )
                box += self._parse(q["why"], "pe-quiz-why")
                box += _html("</div>")
            root += box
        return [root]

    def _hint(self, text: str, label: str) -> nodes.container:
        """The hint, its first paragraph led by the word "Hint:" in the page's language."""
        hint = self._parse(text, "pe-quiz-hint")
        first = next(iter(hint.findall(nodes.paragraph)), None)
        if first is None:
            first = nodes.paragraph()
            hint.insert(0, first)
        # A full-width colon (提示：) needs no space after it.
        first.insert(0, nodes.Text("" if label.endswith("\uff1a") else " "))
        first.insert(0, nodes.strong(label, label, classes=["pe-quiz-hint-label"]))
        return hint

    def _parse(self, text: str, css_class: str) -> nodes.container:
        holder = nodes.container(classes=[css_class])
        lines = StringList(text.strip().splitlines(), source=self.get_source_info()[0])
        self.state.nested_parse(lines, self.content_offset, holder)
        # A quiz is translated as a whole data file (quizzes/<language>/), so Sphinx's gettext
        # must neither extract its text nor look it up in the page's catalogue.
        for node in holder.findall(nodes.TextElement):
            node["translatable"] = False
        return holder


def number_box(q: dict[str, Any], labels: dict[str, str]) -> str:
    """The answer box of a ``type: number`` question and its "Check" button, as HTML.

    The box keeps the answer and the tolerance for quiz.js (and handout.js, which prints the
    answer); ``data-expressions="false"`` asks quiz.js to take a plain number only.
    """
    expressions = q.get("expressions", True)
    attributes = f'data-answer="{q["answer"]!r}" data-tolerance="{q.get("tolerance", 0)!r}"' + (
        "" if expressions else ' data-expressions="false" inputmode="decimal"'
    )
    return (
        '<div class="pe-quiz-input">'
        '<input type="text" autocomplete="off" autocapitalize="off" spellcheck="false" '
        f'aria-label="{html.escape(labels["your_answer"])}" {attributes}>'
        f'<button type="button">{html.escape(labels["check"])}</button></div>'
    )


_FEEDBACK = '<p class="pe-quiz-feedback" aria-live="polite"></p>'


def _html(text: str) -> nodes.raw:
    return nodes.raw("", text, format="html")


# The quiz's own words, in English; a translated edition's are in its book_ui.po (editions.py).
QUIZ_LABELS = {
    "question": "Question {n}",
    "check": "Check",
    "your_answer": "Your answer",
    "right": "Correct.",
    "wrong": "Not quite.",
    "number": "Please type a number, or a calculation such as 17/32 or 2*6.",
    "plain_number": "Please type a number.",
    "hint": "Hint:",
    "show_answer": "Show answer",
    "answer_is": "The answer is {answer}.",
}


def _add_static(app: Sphinx, config: Any) -> None:
    config.html_static_path.append(str(STATIC))


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("quiz", QuizDirective)
    app.connect("config-inited", _add_static)
    app.add_css_file("quiz.css")
    app.add_js_file("quiz.js", defer="defer")
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
