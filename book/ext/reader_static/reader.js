// What a reader meets on every page (see book/ext/reader.py): the chapter-list and contents
// buttons open their panels (and a panel closes once an entry is chosen), figures keep their
// shape and a readable text size on a phone, a box whose content is wider than the column
// says so, and punctuation stays on the line of the inline math it follows.
(function () {
  "use strict";

  // Sizes the build passes in (reader.py): the smallest text a book figure has at the width
  // it is drawn for, the column that width is capped at, and the smallest text a phone shows.
  var SIZES = window.peReader || { figureTextPx: 11, columnPx: 680, phoneTextPx: 9 };

  // pydata-sphinx-theme and sphinx-book-theme attach their handlers to the FIRST button of
  // each kind (a hidden one in the site header); the visible ones pass their click on to it.
  function wireToggles() {
    ["primary-toggle", "secondary-toggle"].forEach(function (kind) {
      var buttons = document.querySelectorAll("button." + kind);
      var first = buttons[0];
      Array.prototype.slice.call(buttons, 1).forEach(function (button) {
        button.addEventListener("click", function (event) {
          event.preventDefault();
          event.stopPropagation();
          first.click();
        });
      });
    });
  }

  // On a phone the chapter list and the page's contents open as dialogs that cover the page;
  // choosing an entry closes its dialog, so the reader sees where the link went (the theme
  // leaves it open over an in-page target). The theme's "close" handler puts the sidebar back.
  function closeMenusOnChoice() {
    ["primary", "secondary"].forEach(function (kind) {
      var dialog = document.getElementById("pst-" + kind + "-sidebar-modal");
      if (!dialog) {
        return;
      }
      dialog.addEventListener("click", function (event) {
        var link = event.target.closest && event.target.closest("a[href]");
        if (!dialog.open || !link) {
          return;
        }
        var target = inPageTarget(link);
        if (!target) {
          dialog.close(); // another page: the browser goes there
          return;
        }
        // A heading of this page: close the dialog first (the theme then puts the sidebar
        // back, which moves the page), and only then go to the heading, so it lands at the
        // top of the screen rather than where the page was while the dialog was open.
        event.preventDefault();
        dialog.close();
        requestAnimationFrame(function () {
          if (window.location.hash !== link.hash) {
            history.pushState(null, "", link.hash);
          }
          target.scrollIntoView();
        });
      });
    });
  }

  // The element a link points to on this page, or null for a link elsewhere.
  function inPageTarget(link) {
    if (!link.hash || link.pathname !== window.location.pathname) {
      return null;
    }
    return document.getElementById(decodeURIComponent(link.hash.slice(1)));
  }

  // Inline math is a box of its own, so a line may break between it and the punctuation that
  // follows it (", whatever its column" starting a line) or the bracket before it: keep them
  // together.
  var AFTER = /^[,.;:!?)\]\u2019\u201d\u2026\uff0c\u3002\uff1b\uff1a\uff01\uff1f\u3001\uff09\u300d\u300f]+/;
  var BEFORE = /[(\[\u2018\u201c\uff08\u300c\u300e]+$/;

  function keepPunctuationWithMath() {
    document.querySelectorAll('mjx-container:not([display="true"])').forEach(function (math) {
      // the math's own span (MyST's <span class="math">) is the unit that sits in the text
      while (math.parentNode.childNodes.length === 1 && math.parentNode.matches("span")) {
        math = math.parentNode;
      }
      if (math.parentNode.classList.contains("pe-nobreak")) {
        return;
      }
      var next = math.nextSibling;
      var prev = math.previousSibling;
      var after = next && next.nodeType === 3 ? AFTER.exec(next.nodeValue) : null;
      var before = prev && prev.nodeType === 3 ? BEFORE.exec(prev.nodeValue) : null;
      if (!after && !before) {
        return;
      }
      var keep = document.createElement("span");
      keep.className = "pe-nobreak";
      math.parentNode.insertBefore(keep, math);
      if (before) {
        prev.nodeValue = prev.nodeValue.slice(0, before.index);
        keep.appendChild(document.createTextNode(before[0]));
      }
      keep.appendChild(math);
      if (after) {
        next.nodeValue = next.nodeValue.slice(after[0].length);
        keep.appendChild(document.createTextNode(after[0]));
      }
    });
  }

  // A figure of a cell's output is drawn at a width in CSS px (its inline style). On a narrow
  // screen it shrinks with the column but keeps its shape, and no further than keeps its
  // smallest text at phoneTextPx; wider than that, it scrolls in its own box (a frame, below).
  function fitFigures() {
    document.querySelectorAll(".cell_output img, figure img").forEach(function (img) {
      if (img.closest(".posenc-explorer") || img.closest(".pe-figure-scroll")) {
        return;
      }
      var drawn = parseFloat(img.style.width) || Number(img.getAttribute("width"));
      if (!drawn) {
        return;
      }
      var shown = Math.min(drawn, SIZES.columnPx);
      var least = Math.ceil((shown * SIZES.phoneTextPx) / SIZES.figureTextPx);
      img.style.height = "auto";
      img.style.maxWidth = "100%";
      img.style.minWidth = Math.min(least, drawn) + "px";
      img.dataset.drawnWidth = String(drawn);
      var box = document.createElement("div");
      box.className = "pe-figure-scroll";
      img.parentNode.insertBefore(box, img);
      box.appendChild(img);
    });
  }

  // Boxes that scroll sideways when their content is wider than the column. Display equations
  // (transparent) get a shadow in their own background ("pe-scrolls", reader.css); figures,
  // explorers and tables are opaque, so they sit in a frame whose shadows are drawn over them
  // ("pe-more-left" / "pe-more-right" on the frame).
  var EQUATIONS = 'div.math > mjx-container[display="true"]';
  var FRAMED =
    ".posenc-explorer-scroll, .pe-figure-scroll, .pst-scrollable-table-container, " +
    "div.output.text_html:has(> table.posenc-results), div.highlight > pre";

  function frame(box) {
    var outer = box.parentNode;
    if (outer.matches("div.highlight")) {
      outer.classList.add("pe-scroll-frame"); // a listing's own box, beside its copy button
    }
    if (!outer.classList.contains("pe-scroll-frame")) {
      outer = document.createElement("div");
      outer.className = "pe-scroll-frame";
      box.parentNode.insertBefore(outer, box);
      outer.appendChild(box);
    }
    if (!box.dataset.peFramed) {
      box.dataset.peFramed = "1";
      box.addEventListener("scroll", function () {
        markFrame(box);
      }, { passive: true });
    }
    return outer;
  }

  function markFrame(box) {
    var outer = box.parentNode;
    var more = box.scrollWidth - box.clientWidth;
    box.classList.toggle("pe-scrolls", more > 1);
    outer.classList.toggle("pe-more-left", more > 1 && box.scrollLeft > 1);
    outer.classList.toggle("pe-more-right", more > 1 && box.scrollLeft < more - 1);
  }

  // An inline formula wider than its line (MathJax does not break inline math, and the theme's
  // span.math hides what is past its line): its box scrolls instead, with the equations' cue.
  function markInlineMath() {
    document.querySelectorAll("span.math").forEach(function (box) {
      var math = box.querySelector("mjx-container");
      var wide = !!math && math.getBoundingClientRect().width > box.clientWidth + 1;
      box.classList.toggle("pe-inline-wide", wide);
      box.classList.toggle("pe-scrolls", wide && box.scrollWidth > box.clientWidth);
    });
  }

  function markScrollers() {
    markInlineMath();
    document.querySelectorAll(EQUATIONS).forEach(function (box) {
      box.classList.toggle("pe-scrolls", box.scrollWidth > box.clientWidth + 1);
    });
    document.querySelectorAll(FRAMED).forEach(function (box) {
      frame(box);
      markFrame(box);
    });
  }

  function whenTypeset(callback) {
    var mj = window.MathJax;
    if (mj && mj.startup && mj.startup.promise) {
      mj.startup.promise.then(callback);
    } else {
      callback();
    }
  }

  // Once MathJax has typeset the page (again: each call does only what is left)
  function typeset() {
    keepPunctuationWithMath();
    markScrollers();
  }

  function setUp() {
    wireToggles();
    closeMenusOnChoice();
    fitFigures();
    markScrollers();
    whenTypeset(typeset);
    window.addEventListener("resize", markScrollers);
    // What a closed box (a solution, an optional box) holds is laid out only once it opens.
    document.addEventListener("click", function (event) {
      if (event.target.closest && event.target.closest(".toggle-button, .admonition-title")) {
        window.setTimeout(markScrollers, 50);
      }
    });
    // an explorer swaps its frame (a new width) when a control moves, and a figure may load
    // after the page
    document.querySelectorAll(".posenc-explorer-figure, .pe-figure-scroll img").forEach(
      function (img) {
        img.addEventListener("load", markScrollers);
      }
    );
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUp);
  } else {
    setUp();
  }
  // MathJax may load after this script: its promise is certain only once the page has loaded
  window.addEventListener("load", function () {
    whenTypeset(typeset);
  });
})();
