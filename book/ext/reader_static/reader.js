// What a reader meets on every page (see book/ext/reader.py): the chapter-list and contents
// buttons open their panels, and a box whose content is wider than the column says so.
(function () {
  "use strict";

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

  // Display equations and explorer figures scroll inside their own box when wider than it;
  // "pe-scrolls" draws the cue (reader.css).
  var SCROLLERS = 'div.math > mjx-container[display="true"], .posenc-explorer-scroll';

  function markScrollers() {
    document.querySelectorAll(SCROLLERS).forEach(function (box) {
      box.classList.toggle("pe-scrolls", box.scrollWidth > box.clientWidth + 1);
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
    whenTypeset(markScrollers);
    window.addEventListener("resize", markScrollers);
    // an explorer swaps its frame (a new width) when a control moves
    document.querySelectorAll(".posenc-explorer-figure").forEach(function (img) {
      img.addEventListener("load", markScrollers);
    });
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
