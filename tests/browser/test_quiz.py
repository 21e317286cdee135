"""The self-check quizzes in a real browser: a fair order of the choices, and number boxes that help.

Every page with a quiz is opened once per worker, in every edition. The first choice shown in each
choice question is clicked: over the book it is the correct one in at most 40% of the questions,
and no position holds more than 40% of the correct choices (``quiz.choice_order`` shuffles them by
the question's id, so every edition shows the same order). Each number question is answered as a
stuck reader would: text that is not a number is refused without counting as a try, a first wrong
number shows the hint, a second one a "Show answer" button that shows the answer and its reason,
and then the answer as shown, an equivalent fraction or calculation (``24/2``, ``2×6``, full-width
digits) and a decimal comma are all accepted. Enter checks a number and picks a focused choice;
the feedback sits in a live region and starts with a mark and a word. The slide decks list the
choices in the page's order.
"""

from __future__ import annotations

import collections
import fractions
import math
import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError

from book.ext.quiz import choice_order, load_quiz
from book.ext.slides import QUIZ_QUESTIONS, _inline

from .conftest import (
    LANGUAGES,
    ROOT,
    SITE,
    SOURCE_LANGUAGE,
    TRANSLATIONS,
    edition,
    edition_folder,
    edition_pages,
)
from .test_site import _open

# One worker visits every quiz page once: the book-wide tests read the visits of every page.
pytestmark = pytest.mark.xdist_group("quiz")

MAX_SHARE = 0.4  # of the book's choice questions, per edition
RIGHT, WRONG = "\u2713", "\u2717"
QUIZ_PAGES = [
    p
    for p in edition_pages()
    if (SITE / f"{p}.html").is_file() and 'class="pe-quiz' in (SITE / f"{p}.html").read_text()
]

# What a reader sees of a number question.
_NUMBER_STATE = """(q) => {
  const visible = e => !!e && !e.hidden && getComputedStyle(e).display !== 'none'
    && e.getClientRects().length > 0;
  const feedback = q.querySelector('.pe-quiz-feedback');
  const hint = q.querySelector('.pe-quiz-hint');
  const label = hint && hint.querySelector('.pe-quiz-hint-label');
  const reveal = q.querySelector('.pe-quiz-reveal');
  return {
    feedback: feedback.textContent.trim(),
    live: !!feedback.closest('[aria-live]'),
    hint: visible(hint) ? hint.textContent.trim() : null,
    hint_label: label ? label.textContent.trim() : null,
    hint_live: !!(hint && hint.closest('[aria-live]')),
    reveal: visible(reveal),
    why: visible(q.querySelector('.pe-quiz-why')),
    focused: document.activeElement === q.querySelector('.pe-quiz-input input'),
  };
}"""
_CHOICE_STATE = """(q) => {
  const choices = Array.from(q.querySelectorAll('.pe-quiz-choice'));
  const feedback = q.querySelector('.pe-quiz-feedback');
  return {
    correct: choices.findIndex(c => c.classList.contains('pe-quiz-correct')),
    pressed: choices.findIndex(c => c.getAttribute('aria-pressed') === 'true'),
    feedback: feedback.textContent.trim(),
    live: !!feedback.closest('[aria-live]'),
    why: Array.from(q.querySelectorAll('.pe-quiz-why'))
      .filter(w => getComputedStyle(w).display !== 'none').map(w => w.textContent.trim()),
  };
}"""


@dataclass
class QuizVisit:
    """What answering every question of one page showed."""

    page: str
    positions: list[int] = field(default_factory=list)  # the correct choice's place, 0 = first
    first_right: list[bool] = field(default_factory=list)  # the first choice shown was right
    numbers: int = 0  # number questions worked through
    problems: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # console errors and uncaught exceptions


def equivalents(answer: str, tolerance: float = 0.0) -> list[str]:
    """Other ways to type ``answer`` (as the page shows it) that must count as right; with
    ``tolerance``, a multiple of π that is close enough too ("pi", "2π", "π/2")."""
    value = fractions.Fraction(answer)  # exact: "0.53125" is 17/32, "3.14" is 157/50
    turns = fractions.Fraction(float(value) / math.pi).limit_denominator(4)
    pis = []
    if turns and abs(float(turns) * math.pi - float(value)) <= tolerance:
        n, d = turns.numerator, turns.denominator
        pis = ["pi" if n == 1 else f"{n}\u03c0", "PI" if n == 1 else f"{n}*pi"]
        if d > 1:
            pis = [f"{p}/{d}" for p in pis]
    if value.denominator == 1:
        n = value.numerator
        forms = [f"{2 * n}/2", f"{n + 1} \u2212 1"]  # 24/2; a typographic minus
        factor = next((p for p in range(2, abs(n)) if n % p == 0), None)
        if factor:
            forms.append(f"{factor}\u00d7{n // factor}")  # 2×6
    else:
        forms = [f"{value.numerator}/{value.denominator}"]  # 17/32, -1/4
        if "." in answer and "e" not in answer.lower():
            forms.append(answer.replace(".", ","))  # a decimal comma
    # An input method's full-width characters: １７／３２
    forms.append(forms[0].translate({ord(c): ord(c) + 0xFEE0 for c in "0123456789/-"}))
    return forms + pis


def _choose(q: Any, i: int, result: QuizVisit) -> None:
    """Click the first choice shown (and a wrong one, if that was right), then pick the correct
    one with the keyboard; each answer shows its feedback and one explanation."""
    state = q.evaluate(_CHOICE_STATE)
    result.positions.append(state["correct"])
    q.locator(".pe-quiz-choice").first.click()
    first = q.evaluate(_CHOICE_STATE)
    result.first_right.append(first["feedback"].startswith(RIGHT))
    if first["feedback"][:1] != (RIGHT if state["correct"] == 0 else WRONG):
        result.problems.append(f"question {i + 1}: first choice gave {first['feedback']!r}")
    wrong = first
    if state["correct"] == 0:
        q.locator(".pe-quiz-choice:not(.pe-quiz-correct)").first.click()
        wrong = q.evaluate(_CHOICE_STATE)
        if not wrong["feedback"].startswith(WRONG):
            result.problems.append(f"question {i + 1}: a wrong choice gave {wrong['feedback']!r}")
    if len(wrong["why"]) != 1 or not wrong["why"][0]:
        result.problems.append(f"question {i + 1}: no explanation after a wrong choice")
    q.locator(".pe-quiz-choice.pe-quiz-correct").press("Enter")
    right = q.evaluate(_CHOICE_STATE)
    if not right["feedback"].startswith(RIGHT) or right["pressed"] != state["correct"]:
        result.problems.append(f"question {i + 1}: Enter on the correct choice gave {right}")
    if len(right["why"]) != 1 or not right["why"][0]:
        result.problems.append(f"question {i + 1}: no explanation after the right choice")
    if not right["live"]:
        result.problems.append(f"question {i + 1}: the feedback is not in a live region")


def _work_out(q: Any, i: int, words: dict[str, str], result: QuizVisit) -> None:
    """Not a number, wrong, wrong again, show the answer, then type it in several forms."""
    box = q.locator(".pe-quiz-input input")
    check = q.locator(".pe-quiz-input button")
    answer = box.get_attribute("data-answer") or ""
    tolerance = float(box.get_attribute("data-tolerance") or 0)
    wrong = repr(float(answer) + 1 + 10 * tolerance)
    where = f"question {i + 1}"

    def state() -> dict[str, Any]:
        return q.evaluate(_NUMBER_STATE)

    box.fill("abc")
    check.click()
    s = state()
    if not (s["feedback"].startswith(WRONG) and s["feedback"].endswith(words["number"])):
        result.problems.append(f"{where}: 'abc' gave {s['feedback']!r}")
    if s["hint"] is not None or s["reveal"]:
        result.problems.append(f"{where}: text that is not a number counted as a wrong answer")

    box.fill(wrong)
    check.click()
    s = state()
    if not (s["feedback"].startswith(WRONG) and words["wrong"] in s["feedback"]):
        result.problems.append(f"{where}: a wrong number gave {s['feedback']!r}")
    if not s["hint"] or not s["hint_label"] or not s["hint"].startswith(s["hint_label"]):
        result.problems.append(f"{where}: no hint after a wrong number ({s['hint']!r})")
    if s["reveal"] or s["why"]:
        result.problems.append(f"{where}: the answer is offered after one wrong number")
    if not (s["live"] and s["hint_live"]):
        result.problems.append(f"{where}: the feedback or the hint is not in a live region")

    box.fill(wrong)
    box.press("Enter")
    s = state()
    if not s["feedback"].startswith(WRONG) or not s["reveal"]:
        result.problems.append(f"{where}: no 'Show answer' after a second wrong number ({s})")
        return
    q.locator(".pe-quiz-reveal").click()
    s = state()
    if s["feedback"] != words["answerIs"].replace("{answer}", answer):
        result.problems.append(f"{where}: 'Show answer' showed {s['feedback']!r}")
    if not s["why"] or s["reveal"] or not s["focused"]:
        result.problems.append(f"{where}: after 'Show answer' {s}")

    for typed in [answer, *equivalents(answer, tolerance)]:
        box.fill(typed)
        box.press("Enter")
        s = state()
        if not (s["feedback"].startswith(RIGHT) and s["feedback"].endswith(words["right"])):
            result.problems.append(f"{where}: {typed!r} for {answer} gave {s['feedback']!r}")
    result.numbers += 1


_VISITS: dict[str, QuizVisit] = {}


def _visit(browser: Any, site_url: str, name: str) -> QuizVisit:
    """Open a page once (cached for the worker) and answer every question of its quiz."""
    if name in _VISITS:
        return _VISITS[name]
    # The quiz works the same with its math typeset or not, and test_site.py checks the math:
    # here MathJax is served empty, which halves the time a chapter takes to answer (typesetting
    # a chapter is most of loading it).
    context, page, visit = _open(browser, site_url, name, without_math=True)
    result = QuizVisit(name)
    try:
        page.wait_for_selector(".pe-quiz.pe-quiz-ready")
        words = page.eval_on_selector(".pe-quiz-labels", "e => Object.assign({}, e.dataset)")
        questions = page.locator(".pe-quiz-question")
        for i in range(questions.count()):
            q = questions.nth(i)
            q.scroll_into_view_if_needed()
            try:
                if "pe-quiz-type-choice" in (q.get_attribute("class") or ""):
                    _choose(q, i, result)
                else:
                    _work_out(q, i, words, result)
            except PlaywrightError as error:
                result.problems.append(f"question {i + 1}: {type(error).__name__}: {error}")
    finally:
        context.close()
    result.errors = visit.console_errors + visit.page_errors
    _VISITS[name] = result
    return result


def _edition_visits(browser: Any, site_url: str, language: str) -> list[QuizVisit]:
    return [_visit(browser, site_url, p) for p in QUIZ_PAGES if edition(p)[0] == language]


@pytest.mark.parametrize("name", QUIZ_PAGES)
def test_every_question_answers_fairly_and_helps(browser: Any, site_url: str, name: str) -> None:
    result = _visit(browser, site_url, name)
    assert result.problems == []
    assert result.errors == [], "errors while answering"
    asked = len(result.positions) + result.numbers
    assert 3 <= asked <= 6, f"{asked} questions (a chapter asks 3 to 6)"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_first_choice_shown_is_seldom_the_correct_one(
    browser: Any, site_url: str, language: str
) -> None:
    visits = _edition_visits(browser, site_url, language)
    first = [right for v in visits for right in v.first_right]
    counts = collections.Counter(position for v in visits for position in v.positions)
    assert len(first) >= 20, f"only {len(first)} choice questions found"
    assert sum(first) <= MAX_SHARE * len(first), f"first choice right in {sum(first)}/{len(first)}"
    for position, count in sorted(counts.items()):
        assert count <= MAX_SHARE * len(first), (
            f"the correct choice is shown at place {position + 1} in {count} of {len(first)} "
            f"questions ({dict(sorted(counts.items()))})"
        )


@pytest.mark.parametrize("language", TRANSLATIONS)
def test_every_edition_shows_the_choices_in_the_same_order(
    browser: Any, site_url: str, language: str
) -> None:
    source = {
        edition(v.page)[1]: v.positions for v in _edition_visits(browser, site_url, SOURCE_LANGUAGE)
    }
    other = {edition(v.page)[1]: v.positions for v in _edition_visits(browser, site_url, language)}
    assert other == source


_DECK_QUESTION = re.compile(r'<div class="deck-quiz"[^>]*>(.*?)</details></div>', re.DOTALL)
_DECK_CHOICE = re.compile(
    r'<button ([^>]*class="deck-choice"[^>]*)><span class="deck-letter">([A-F])\.</span> '
    r"(.*?)</button>",
    re.DOTALL,
)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_decks_show_the_choices_in_the_page_order(language: str) -> None:
    decks = sorted((SITE / f"{edition_folder(language)}slides").glob("*.slides.html"))
    checked = 0
    for deck in decks:
        stem = deck.name.removesuffix(".slides.html")
        path = ROOT / "quizzes" / language / f"{stem}.yaml"
        shown = _DECK_QUESTION.findall(deck.read_text(encoding="utf-8"))
        if not path.is_file() or not shown:
            continue
        questions = load_quiz(path)[:QUIZ_QUESTIONS]
        assert len(shown) == len(questions), deck.name
        for q, html in zip(questions, shown, strict=True):
            if q["type"] != "choice":
                continue
            order = choice_order(q["id"], len(q["choices"]))
            choices = _DECK_CHOICE.findall(html)
            items = [text for _, _, text in choices]
            assert items == [_inline(q["choices"][j]["text"]) for j in order], (deck.name, q["id"])
            assert [letter for _, letter, _ in choices] == list("ABCDEF"[: len(order)])
            right = next(k for k, j in enumerate(order) if q["choices"][j].get("correct"))
            marked = [
                k for k, (attrs, _, _) in enumerate(choices) if 'data-correct="true"' in attrs
            ]
            assert marked == [right], f"{q['id']}: the button marked right is not the key"
            assert re.search(rf"<summary>[^<]*</summary><p>{'ABCDEF'[right]}\. ", html), q["id"]
            checked += 1
    if decks:
        assert checked, "no deck shows a choice question"
