// What a reader meets on every page (see book/ext/reader.py): the chapter-list and contents
// buttons open their panels (and a panel closes once an entry is chosen), figures keep their
// shape and a readable text size on a phone, and a box whose content is wider than the column
// says so.
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
        if (dialog.open && event.target.closest && event.target.closest("a[href]")) {
          dialog.close();
        }
      });
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
  var FRAMED = ".posenc-explorer-scroll, .pe-figure-scroll, .pst-scrollable-table-container";

  function frame(box) {
    var outer = box.parentNode;
    if (!outer.classList.contains("pe-scroll-frame")) {
      outer = document.createElement("div");
      outer.className = "pe-scroll-frame";
      box.parentNode.insertBefore(outer, box);
      outer.appendChild(box);
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

  function markScrollers() {
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

  function setUp() {
    wireToggles();
    closeMenusOnChoice();
    fitFigures();
    markScrollers();
    whenTypeset(markScrollers);
    window.addEventListener("resize", markScrollers);
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
  window.addEventListener("load", function () {
    whenTypeset(markScrollers);
  });
})();
