/* Handouts (see book/ext/handouts.py): rearrange a page for printing, and put it back afterwards.
   bookHandout.prepare() runs on "beforeprint" (a reader printing from the browser) and is called
   by book/tools/build_handouts.py before chromium prints the PDF; bookHandout.restore() undoes it.
   prepare():
   - sets every explorer back to its default state (the values written into the page);
   - moves the exercises' solutions into a "Solutions" section at the end of the chapter
     (before the references), each exercise keeping a link to its solution;
   - adds the answers of the self-check quiz to that section, and hides the quiz's
     "Pick an answer" line, which does not apply on paper. */
(function () {
  "use strict";

  // The page's language: handouts.py writes its words into window.bookHandoutWords.
  function word(english) {
    var words = window.bookHandoutWords || {};
    return words[english] || english;
  }
  var state = null;

  function resetExplorers() {
    document.querySelectorAll(".posenc-explorer [data-control]").forEach(function (el) {
      if (el.type === "checkbox") {
        el.checked = el.defaultChecked;
      } else if (el.tagName === "SELECT") {
        Array.prototype.forEach.call(el.options, function (o) {
          o.selected = o.defaultSelected;
        });
      } else {
        el.value = el.defaultValue;
      }
      el.dispatchEvent(new Event("change"));
    });
  }

  function element(tag, className, text) {
    var el = document.createElement(tag);
    if (className) { el.className = className; }
    if (text) { el.textContent = text; }
    return el;
  }

  function quizAnswers() {
    var questions = document.querySelectorAll(".pe-quiz .pe-quiz-question");
    if (!questions.length) { return null; }
    var list = element("dl", "handout-answers");
    questions.forEach(function (q, k) {
      var heading = q.querySelector(".pe-quiz-heading");
      var name = heading ? heading.textContent.trim() : word("Question {n}").replace("{n}", k + 1);
      var dd = element("dd");
      var answer = "";
      var choices = Array.prototype.slice.call(q.querySelectorAll(".pe-quiz-choice"));
      var why = null;
      choices.forEach(function (c, i) {
        if (c.classList.contains("pe-quiz-correct")) {
          answer = "(" + String.fromCharCode(97 + i) + ")";
          why = c.querySelector(".pe-quiz-why");
        }
      });
      var input = q.querySelector(".pe-quiz-input input[data-answer]");
      if (input) {
        answer = input.dataset.answer;
        why = q.querySelector(".pe-quiz-why");
      }
      if (why) {
        Array.prototype.forEach.call(why.childNodes, function (n) {
          dd.appendChild(n.cloneNode(true));
        });
      }
      list.appendChild(element("dt", null,
        word("{question}: {answer}").replace("{question}", name).replace("{answer}", answer)));
      list.appendChild(dd);
    });
    return list;
  }

  // The line before a quiz that tells readers to click: it does not apply on paper.
  function quizInstructions() {
    var found = [];
    document.querySelectorAll(".pe-quiz").forEach(function (quiz) {
      var p = quiz.previousElementSibling;
      var pick = (window.bookHandoutWords || {}).pick || "Pick an answer";
      if (p && p.tagName === "P" && p.textContent.trim().indexOf(pick.slice(0, 12)) === 0) {
        p.classList.add("handout-hidden");
        found.push(p);
      }
    });
    return found;
  }

  var LONG_LINES = 24;

  function prepare() {
    if (state) { return; }
    resetExplorers();
    var article = document.querySelector("article.bd-article");
    var solutions = article ? article.querySelectorAll("div.solution") : [];
    var answers = quizAnswers();
    state = { moved: [], added: [], hidden: quizInstructions(), long: [] };
    // A listing of more than LONG_LINES lines may break across pages (shorter ones stay whole):
    // kept whole, it would leave most of the page before it empty.
    document.querySelectorAll(".cell_input pre, .cell_output pre").forEach(function (pre) {
      if (pre.textContent.split("\n").length > LONG_LINES) {
        var block = pre.closest(".cell_input, .cell_output");
        block.classList.add("handout-long");
        state.long.push(block);
      }
    });
    if (!article || (!solutions.length && !answers)) { return; }
    var section = element("section", "handout-solutions");
    section.id = "handout-solutions";
    section.appendChild(element("h2", null, word(solutions.length ? "Solutions" : "Answers")));
    solutions.forEach(function (sol) {
      var marker = document.createComment("solution");
      sol.parentNode.insertBefore(marker, sol);
      state.moved.push({ node: sol, marker: marker, hidden: sol.classList.contains("toggle-hidden") });
      sol.classList.remove("toggle-hidden");
      var link = sol.querySelector(".admonition-title a[href^='#']");
      var exercise = link ? document.getElementById(link.getAttribute("href").slice(1)) : null;
      if (exercise && sol.id) {
        var note = element("p", "handout-solution-note");
        var a = element("a", null, word("Solution"));
        a.href = "#" + sol.id;
        var parts = word("{solution} at the end of the chapter.").split("{solution}");
        if (parts[0]) { note.appendChild(document.createTextNode(parts[0])); }
        note.appendChild(a);
        note.appendChild(document.createTextNode(parts.slice(1).join("")));
        exercise.parentNode.insertBefore(note, exercise.nextSibling);
        state.added.push(note);
      }
      section.appendChild(sol);
    });
    if (answers) {
      section.appendChild(element("h3", null, word("Check yourself: answers")));
      section.appendChild(answers);
    }
    var references = article.querySelector("section#references");
    if (references) {
      references.parentNode.insertBefore(section, references);
    } else {
      (article.querySelector("section") || article).appendChild(section);
    }
    state.added.push(section);
  }

  function restore() {
    if (!state) { return; }
    state.moved.forEach(function (m) {
      m.marker.parentNode.insertBefore(m.node, m.marker);
      m.marker.remove();
      if (m.hidden) { m.node.classList.add("toggle-hidden"); }
    });
    state.added.forEach(function (el) { el.remove(); });
    state.long.forEach(function (el) { el.classList.remove("handout-long"); });
    state.hidden.forEach(function (el) {
      el.classList.remove("handout-hidden");
      if (!el.className) { el.removeAttribute("class"); }
    });
    state = null;
  }

  // For the instructor's solutions PDF (build_handouts.py): after prepare(), hide all but the
  // page's title and its solutions section; false (nothing hidden) when it has no solutions.
  function solutionsOnly() {
    if (!state) { return false; }
    var section = document.getElementById("handout-solutions");
    if (!section || !section.querySelector("div.solution")) { return false; }
    var keep = [section];
    var h1 = document.querySelector("article.bd-article h1");
    if (h1) { keep.push(h1); }
    var hide = function (parent) {
      Array.prototype.forEach.call(parent.children, function (child) {
        if (keep.indexOf(child) >= 0) { return; }
        if (keep.some(function (k) { return child.contains(k); })) { hide(child); return; }
        child.classList.add("handout-hidden");
        state.hidden.push(child);
      });
    };
    hide(document.querySelector("article.bd-article"));
    return true;
  }

  window.bookHandout = { prepare: prepare, restore: restore, solutionsOnly: solutionsOnly };
  window.addEventListener("beforeprint", prepare);
  window.addEventListener("afterprint", restore);
})();
