// Self-check quizzes (see book/ext/quiz.py): choices answer on click, number boxes on "Check".
// The page is static: everything needed is in the HTML, and nothing is sent anywhere.
(function () {
  "use strict";

  function labels(quiz) {
    var el = quiz.querySelector(".pe-quiz-labels");
    return {
      right: (el && el.dataset.right) || "Correct.",
      wrong: (el && el.dataset.wrong) || "Not quite.",
      number: (el && el.dataset.number) || "Please type a number.",
    };
  }

  function say(question, ok, text) {
    var feedback = question.querySelector(".pe-quiz-feedback");
    feedback.textContent = (ok ? "\u2713 " : "\u2717 ") + text;
    feedback.classList.toggle("pe-quiz-right", ok);
    feedback.classList.toggle("pe-quiz-wrong", !ok);
  }

  function setUpChoice(question, words) {
    var choices = question.querySelectorAll(".pe-quiz-choice");
    choices.forEach(function (choice) {
      choice.setAttribute("role", "button");
      choice.setAttribute("tabindex", "0");
      function pick() {
        choices.forEach(function (other) {
          other.classList.remove("pe-quiz-chosen");
        });
        choice.classList.add("pe-quiz-chosen", "pe-quiz-tried");
        var ok = choice.classList.contains("pe-quiz-correct");
        choice.classList.add(ok ? "pe-quiz-was-right" : "pe-quiz-was-wrong");
        say(question, ok, ok ? words.right : words.wrong);
      }
      choice.addEventListener("click", pick);
      choice.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          pick();
        }
      });
    });
  }

  function setUpNumber(question, words) {
    var input = question.querySelector(".pe-quiz-input input");
    var button = question.querySelector(".pe-quiz-input button");
    var why = question.querySelector(".pe-quiz-why");
    function check() {
      var text = input.value.trim().replace(",", ".").replace("\u2212", "-");
      var value = Number(text);
      if (text === "" || !isFinite(value)) {
        say(question, false, words.number);
        return;
      }
      var answer = Number(input.dataset.answer);
      var tolerance = Number(input.dataset.tolerance);
      var ok = Math.abs(value - answer) <= tolerance + 1e-12 * Math.max(1, Math.abs(answer));
      say(question, ok, ok ? words.right : words.wrong);
      if (ok) {
        why.classList.add("pe-quiz-shown");
      }
    }
    button.addEventListener("click", check);
    input.addEventListener("keydown", function (event) {
      if (event.key === "Enter") {
        event.preventDefault();
        check();
      }
    });
  }

  function setUp() {
    document.querySelectorAll(".pe-quiz").forEach(function (quiz) {
      var words = labels(quiz);
      quiz.querySelectorAll(".pe-quiz-question").forEach(function (question) {
        if (question.classList.contains("pe-quiz-type-choice")) {
          setUpChoice(question, words);
        } else if (question.classList.contains("pe-quiz-type-number")) {
          setUpNumber(question, words);
        }
      });
      quiz.classList.add("pe-quiz-ready");
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUp);
  } else {
    setUp();
  }
})();
