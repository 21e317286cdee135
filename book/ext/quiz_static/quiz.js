// Self-check quizzes (see book/ext/quiz.py): choices answer on click, number boxes on "Check".
// The page is static: everything needed is in the HTML, and nothing is sent anywhere.
(function () {
  "use strict";

  function labels(quiz) {
    var el = quiz.querySelector(".pe-quiz-labels");
    var data = el ? el.dataset : {};
    return {
      right: data.right || "Correct.",
      wrong: data.wrong || "Not quite.",
      number: data.number || "Please type a number, or a calculation such as 17/32 or 2*6.",
      plainNumber: data.plainNumber || "Please type a number.",
      answerIs: data.answerIs || "The answer is {answer}.",
    };
  }

  // ok: true (right), false (wrong) or null (neither: the answer shown on request).
  function say(question, ok, text) {
    var feedback = question.querySelector(".pe-quiz-feedback");
    var mark = ok === true ? "\u2713 " : ok === false ? "\u2717 " : "";
    feedback.textContent = mark + text;
    feedback.classList.toggle("pe-quiz-right", ok === true);
    feedback.classList.toggle("pe-quiz-wrong", ok === false);
    feedback.classList.toggle("pe-quiz-revealed", ok === null);
  }

  function setUpChoice(question, words) {
    var choices = question.querySelectorAll(".pe-quiz-choice");
    choices.forEach(function (choice) {
      choice.setAttribute("role", "button");
      choice.setAttribute("tabindex", "0");
      var label = choice.querySelector(".pe-quiz-choice-label");
      if (label && label.textContent.trim()) {
        choice.setAttribute("aria-label", label.textContent.trim());
      }
      choice.setAttribute("aria-pressed", "false");
      function pick() {
        choices.forEach(function (other) {
          other.classList.remove("pe-quiz-chosen");
          other.setAttribute("aria-pressed", "false");
        });
        choice.classList.add("pe-quiz-chosen", "pe-quiz-tried");
        choice.setAttribute("aria-pressed", "true");
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

  // ---------------------------------------------------------------------------------------
  // What a reader may type in a number box: a number, or a small calculation. Read by a
  // parser of its own (never eval or Function):
  //   sum     = product (("+" | "-") product)*
  //   product = signed (("*" | "/") signed)*
  //   signed  = ("+" | "-") signed | power
  //   power   = postfix ("^" signed)?         right to left: 2^3^2 = 2^9; -2^2 = -4
  //   postfix = atom ("!" | "%")*             3! = 6 (whole numbers up to 170); 5% = 0.05
  //   atom    = number | pi | "(" sum ")"     1.5, 0,25 (decimal comma), .5, 2e-3; pi or π
  // A number right before pi multiplies it: 2π = 2*π.
  // Full-width characters (an input method's １７／３２) count as their ASCII forms; −, ×,
  // ·, ÷ and ** count as -, *, *, / and ^, and a superscript as a power (3² = 3^2).

  var MAX_LENGTH = 200;
  var NUMBER = /^(?:\d+(?:[.,]\d*)?|[.,]\d+)(?:[eE][+-]?\d+)?/;
  var SUPERSCRIPTS = "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079";

  function normalise(text) {
    // Before NFKC, which would turn 3² into 32.
    text = text.replace(/[\u207b\u2070\u00b9\u00b2\u00b3\u2074-\u2079]+/g, function (run) {
      var exponent = run.replace(/[^\u207b]/g, function (c) {
        return String(SUPERSCRIPTS.indexOf(c));
      });
      return "^(" + exponent.replace(/\u207b/g, "-") + ")";
    });
    if (text.normalize) {
      text = text.normalize("NFKC");
    }
    return text
      .replace(/[\u2212\u2012\u2013\u2010\u2011]/g, "-")
      .replace(/[\u00d7\u00b7\u22c5\u2219\u2715\u2716]/g, "*")
      .replace(/[\u00f7\u2215\u2044]/g, "/")
      .replace(/\*\*/g, "^")
      .trim();
  }

  function tokens(text) {
    var out = [];
    var i = 0;
    while (i < text.length) {
      var c = text.charAt(i);
      if (/\s/.test(c)) {
        i += 1;
        continue;
      }
      var m = NUMBER.exec(text.slice(i));
      var pi = /^(?:pi|\u03c0)/i.exec(text.slice(i));
      if (pi) {
        var last = out[out.length - 1];
        if (last && last.number !== undefined) {
          out.push({ op: "*" });
        }
        out.push({ number: Math.PI });
        i += pi[0].length;
      } else if (m) {
        out.push({ number: Number(m[0].replace(",", ".")) });
        i += m[0].length;
      } else if ("+-*/^!%()".indexOf(c) >= 0) {
        out.push({ op: c });
        i += 1;
      } else {
        return null;
      }
    }
    return out;
  }

  function factorial(x) {
    if (!(x >= 0 && x <= 170 && Math.floor(x) === x)) {
      return NaN;
    }
    var product = 1;
    for (var k = 2; k <= x; k += 1) {
      product *= k;
    }
    return product;
  }

  // The value of the calculation in `text`, or NaN when it is not one.
  function evaluate(text) {
    var list = tokens(text);
    if (!list || !list.length) {
      return NaN;
    }
    var at = 0;
    function peek(op) {
      return at < list.length && list[at].op === op;
    }
    function sum() {
      var value = product();
      while (peek("+") || peek("-")) {
        var op = list[at].op;
        at += 1;
        var right = product();
        value = op === "+" ? value + right : value - right;
      }
      return value;
    }
    function product() {
      var value = signed();
      while (peek("*") || peek("/")) {
        var op = list[at].op;
        at += 1;
        var right = signed();
        value = op === "*" ? value * right : value / right;
      }
      return value;
    }
    function signed() {
      if (peek("+")) {
        at += 1;
        return signed();
      }
      if (peek("-")) {
        at += 1;
        return -signed();
      }
      return power();
    }
    function power() {
      var base = postfix();
      if (peek("^")) {
        at += 1;
        return Math.pow(base, signed());
      }
      return base;
    }
    function postfix() {
      var value = atom();
      while (peek("!") || peek("%")) {
        value = list[at].op === "!" ? factorial(value) : value / 100;
        at += 1;
      }
      return value;
    }
    function atom() {
      if (at >= list.length) {
        throw new SyntaxError("unexpected end");
      }
      var token = list[at];
      at += 1;
      if (token.number !== undefined) {
        return token.number;
      }
      if (token.op === "(") {
        var value = sum();
        if (!peek(")")) {
          throw new SyntaxError("missing )");
        }
        at += 1;
        return value;
      }
      throw new SyntaxError("unexpected " + token.op);
    }
    try {
      var value = sum();
      return at === list.length ? value : NaN;
    } catch (error) {
      return NaN;
    }
  }

  // A plain number, with its sign: what a box with data-expressions="false" takes.
  function plainNumber(text) {
    var list = tokens(text);
    var sign = 1;
    if (list && list.length === 2 && (list[0].op === "-" || list[0].op === "+")) {
      sign = list[0].op === "-" ? -1 : 1;
      list = list.slice(1);
    }
    return list && list.length === 1 && list[0].number !== undefined ? sign * list[0].number : NaN;
  }

  // The values `text` may mean: a comma is a decimal comma ("0,25"), but in "38,400" it may
  // also separate thousands, so a comma before exactly three digits gives a second reading.
  // An empty list: not a number (nor a calculation, unless `plain` asks for a number only).
  function readings(text, plain) {
    text = normalise(text);
    if (!text || text.length > MAX_LENGTH) {
      return [];
    }
    var texts = [text];
    var grouped = text.replace(/(\d),(?=\d{3}(?!\d))/g, "$1");
    if (grouped !== text) {
      texts.push(grouped);
    }
    var values = [];
    texts.forEach(function (t) {
      var value = plain ? plainNumber(t) : evaluate(t);
      if (isFinite(value)) {
        values.push(value);
      }
    });
    return values;
  }

  // ---------------------------------------------------------------------------------------

  function setUpNumber(question, words) {
    var input = question.querySelector(".pe-quiz-input input");
    var button = question.querySelector(".pe-quiz-input button");
    var why = question.querySelector(".pe-quiz-why");
    var hint = question.querySelector(".pe-quiz-hint");
    var reveal = question.querySelector(".pe-quiz-reveal");
    var answer = Number(input.dataset.answer);
    var tolerance = Number(input.dataset.tolerance);
    var plain = input.dataset.expressions === "false";
    var wrong = 0;
    function close(value) {
      return Math.abs(value - answer) <= tolerance + 1e-12 * Math.max(1, Math.abs(answer));
    }
    function check() {
      var values = readings(input.value, plain);
      if (!values.length) {
        say(question, false, plain ? words.plainNumber : words.number);
        return;
      }
      var ok = values.some(close);
      say(question, ok, ok ? words.right : words.wrong);
      if (ok) {
        why.classList.add("pe-quiz-shown");
        if (reveal) {
          reveal.hidden = true;
        }
        return;
      }
      wrong += 1;
      if (hint) {
        hint.classList.add("pe-quiz-shown");
      }
      if (reveal && wrong >= 2 && !why.classList.contains("pe-quiz-shown")) {
        reveal.hidden = false;
      }
    }
    button.addEventListener("click", check);
    input.addEventListener("keydown", function (event) {
      if (event.key === "Enter") {
        event.preventDefault();
        check();
      }
    });
    if (reveal) {
      reveal.addEventListener("click", function () {
        say(question, null, words.answerIs.replace("{answer}", input.dataset.answer));
        why.classList.add("pe-quiz-shown");
        reveal.hidden = true;
        input.focus();
      });
    }
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
