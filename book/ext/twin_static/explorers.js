// SPDX-License-Identifier: MIT (see LICENSE at the root of the book's repository)
//
// explorers.js: the book's live explorers, drawn in the reader's browser with posenc's
// JavaScript twin (window.posenc, posenc.js) and the canvas helper window.posencPlot (plot.js).
//
// A live explorer's HTML (book/explorers/explorer.py, Explorer.live_html) holds its controls,
// a hidden <canvas> and one pre-rendered PNG of its default values. On DOMContentLoaded each
// `.posenc-explorer[data-live]` is set up: the drawer named by data-live in
// window.posencExplorers draws the canvas, which then replaces the PNG; where it cannot (the
// twin or the drawer missing, a drawer that throws), the PNG stays, with a message. A control
// with a range is a slider and a number box kept in step (data-range: min, max, step, log,
// above, integer); a value the box refuses is named in a message and, once committed (Enter or
// leaving the box), replaced by the nearest allowed value. Redraws are coalesced to one per
// animation frame, and the canvas redraws when its shown width changes. The words shown come
// from the page (data-words, data-rule, the controls' aria-labels, the title), never from here.
//
// A drawer is window.posencExplorers[name] = function (canvas, values, data), one per file in
// drawers/ (drawers/<name>.js, loaded by this script when a page shows its explorer, or before
// it): it draws the canvas at its shown
// width and leaves what it computed in canvas.posencData (for the tests); data is the
// explorer's fixed data (data-live-data: explorer(live_data=...)), or null.
(function () {
  "use strict";

  var registry = window.posencExplorers || {};
  window.posencExplorers = registry;

  // -- controls --------------------------------------------------------------------------------

  function format(value, integer) {
    return integer ? String(value) : window.posencPlot.formatG(value);
  }

  /** The nearest value a range allows to `v` (a finite number). */
  function nearest(range, v) {
    if (range.above !== null && range.step === null && v > range.above) return v;
    var x = Math.min(Math.max(v, range.min), range.max);
    if (range.step !== null) {
      x = range.min + Math.round((x - range.min) / range.step) * range.step;
      if (x > range.max) x -= range.step;
    }
    return range.integer ? Math.round(x) : x;
  }

  function allowed(range, v) {
    return isFinite(v) && Math.abs(nearest(range, v) - v) <= 1e-9 * Math.max(1, Math.abs(v));
  }

  /** A control with a range: a slider and a number box in step. */
  function RangeControl(root, k, onChange, say) {
    var slider = root.querySelector('[data-control="' + k + '"][data-role="slider"]');
    var entry = root.querySelector('[data-control="' + k + '"][data-role="entry"]');
    var range = JSON.parse(entry.dataset.range);
    var name = entry.getAttribute("aria-label");
    var self = this;
    this.name = name;
    this.integer = range.integer;
    this.value = Number(entry.value);
    this.elements = [slider, entry];

    function fromSlider() {
      var x = Number(slider.value);
      if (range.log) return Number(Math.pow(10, x).toPrecision(3));
      return range.integer ? Math.round(x) : x;
    }
    function placeSlider() {
      var v = Math.min(Math.max(self.value, range.min), range.max);
      slider.value = String(range.log ? Math.log10(v) : v);
      if (range.log) slider.setAttribute("aria-valuetext", format(self.value, range.integer));
    }
    function words(template, entered, value) {
      return template.replace("{name}", name).replace("{entered}", entered)
        .replace("{rule}", entry.dataset.rule).replace("{value}", format(value, range.integer));
    }
    function set(v) {
      if (v === self.value) return;
      self.value = v;
      onChange();
    }
    function read(commit) {
      var text = entry.value.trim();
      var v = text === "" ? NaN : Number(text);
      var entered = text || (entry.validity && entry.validity.badInput ? "?" : "");
      if (allowed(range, v)) {
        say(k, "");
        set(nearest(range, v));
        placeSlider();
        entry.removeAttribute("aria-invalid");
        return;
      }
      if (!commit) {
        // while typing: nothing drawn; named at once unless more digits may make it right
        var growing = isFinite(v) && v >= 0 && v < range.min && range.above === null;
        say(k, entered && !growing ? words(say.words.invalid, entered, self.value) : "");
        entry.setAttribute("aria-invalid", "true");
        return;
      }
      var replacement = isFinite(v) && !(range.above !== null && v <= range.above)
        ? nearest(range, v) : self.value;
      entry.value = String(replacement);
      entry.removeAttribute("aria-invalid");
      say(k, entered ? words(say.words.replaced, entered, replacement) : "");
      set(replacement);
      placeSlider();
    }
    slider.addEventListener("input", function () {
      var v = fromSlider();
      entry.value = String(v);
      entry.removeAttribute("aria-invalid");
      if (range.log) slider.setAttribute("aria-valuetext", format(v, range.integer));
      say(k, "");
      set(v);
    });
    entry.addEventListener("input", function () { read(false); });
    entry.addEventListener("change", function () { read(true); });
  }

  /** A control over listed values (checkbox, drop-down, slider over indices); their values
   * are numbers, strings, booleans or arrays (a permutation). */
  function IndexControl(root, k, onChange) {
    var el = root.querySelector('[data-control="' + k + '"]');
    var values = JSON.parse(el.dataset.values);
    var labels = JSON.parse(el.dataset.labels);
    var fresh = {}; // options whose value a "New random order" button has replaced
    var self = this;
    this.name = el.getAttribute("aria-label");
    this.elements = [el];
    this.values = values;
    function index() {
      return el.type === "checkbox" ? (el.checked ? 1 : 0) : parseInt(el.value, 10);
    }
    function update() {
      var i = index();
      self.value = values[i];
      self.label = labels[i] + (fresh[i] ? " (" + values[i].join(" ") + ")" : "");
      if (el.type === "range") {
        var out = root.querySelector('output[for="' + el.id + '"]');
        if (out) out.textContent = labels[i];
      }
    }
    update();
    this.text = function () { return self.label; };
    /** Put `value` in option i and select it (a reshuffle). */
    this.replace = function (i, value) {
      values[i] = value;
      fresh[i] = true;
      el.value = String(i);
      update();
      onChange();
    };
    el.addEventListener("input", function () { update(); onChange(); });
    el.addEventListener("change", function () { update(); onChange(); });
  }

  /** A random permutation of 0..n-1 other than `old` (Fisher-Yates; n > 1). */
  function reshuffled(old) {
    var n = old.length;
    var perm;
    do {
      perm = [];
      for (var i = 0; i < n; i++) perm.push(i);
      for (var j = n - 1; j > 0; j--) {
        var r = Math.floor(Math.random() * (j + 1));
        var t = perm[j];
        perm[j] = perm[r];
        perm[r] = t;
      }
    } while (n > 1 && perm.join() === old.join());
    return perm;
  }

  // -- one explorer ----------------------------------------------------------------------------

  function setUp(root) {
    if (root.posencLive) return;
    var words = JSON.parse(root.dataset.words || "{}");
    var liveData = root.dataset.liveData ? JSON.parse(root.dataset.liveData) : null;
    var canvas = root.querySelector("canvas.posenc-explorer-canvas");
    var img = root.querySelector("img.posenc-explorer-figure");
    var message = root.querySelector(".posenc-explorer-message");
    var titleEl = root.querySelector(".posenc-explorer-title");
    var title = titleEl ? titleEl.textContent.trim() : (img && img.dataset.title) || "Explorer";
    var draw = registry[root.dataset.live];
    var messages = {};
    var controls = [];
    var pending = false;
    var drawnWidth = -1;
    var state = { ready: false, draws: 0, lastMs: 0, failed: false };
    root.posencLive = state;

    function say(k, text) {
      if (text) messages[k] = text;
      else delete messages[k];
      if (message) {
        message.textContent = Object.keys(messages).map(function (key) {
          return messages[key];
        }).join(" ");
      }
    }
    say.words = words;

    function fallBack() {
      state.failed = true;
      state.ready = false;
      if (canvas) canvas.hidden = true;
      if (img) img.hidden = false;
      controls.forEach(function (c) {
        c.elements.forEach(function (el) { el.disabled = true; });
      });
      Array.prototype.forEach.call(root.querySelectorAll("button[data-reshuffle]"),
        function (b) { b.disabled = true; });
      messages = {};
      say("all", words.unavailable || "");
    }

    function values() {
      var out = {};
      controls.forEach(function (c) { out[c.key] = c.value; });
      return out;
    }

    function label() {
      return title + " (" + controls.map(function (c) {
        return c.name + " " + (c.text ? c.text() : format(c.value, c.integer));
      }).join(", ") + ")";
    }

    function redraw() {
      pending = false;
      if (state.failed) return;
      var width = canvas.clientWidth;
      if (width < 1) return; // not shown (a closed box): drawn when it opens (resize)
      var t0 = performance.now();
      try {
        draw(canvas, values(), liveData);
      } catch (error) {
        if (window.console) window.console.warn("live explorer " + root.id + ":", error);
        fallBack();
        return;
      }
      state.lastMs = performance.now() - t0;
      state.draws += 1;
      drawnWidth = width;
      canvas.setAttribute("aria-label", label());
      // a deck fits the slide again (book/ext/slides_template), after a control moved too
      if (state.ready) root.dispatchEvent(new CustomEvent("posenc:drawn", { bubbles: true }));
    }

    function schedule() {
      if (pending) return;
      pending = true;
      window.requestAnimationFrame(redraw);
    }
    state.redraw = redraw;
    state.schedule = schedule;
    state.values = values;

    var seen = {};
    Array.prototype.forEach.call(root.querySelectorAll("[data-control]"), function (el) {
      var k = el.dataset.control;
      if (seen[k]) return;
      seen[k] = true;
      var hasRange = root.querySelector('[data-control="' + k + '"][data-role="entry"]');
      var c = hasRange ? new RangeControl(root, k, schedule, say) : new IndexControl(root, k,
        schedule);
      // the drawer's argument: the control's own name (its aria-label may be translated)
      c.key = el.dataset.name || c.name;
      c.index = k;
      controls.push(c);
    });

    // "New random order": a fresh permutation in one option of a drop-down, selected
    Array.prototype.forEach.call(root.querySelectorAll("button[data-reshuffle]"), function (b) {
      b.addEventListener("click", function () {
        var c = controls.filter(function (x) { return x.index === b.dataset.reshuffle; })[0];
        var i = parseInt(b.dataset.option, 10);
        if (c && c.replace) c.replace(i, reshuffled(c.values[i]));
      });
    });

    if (!canvas || !canvas.getContext || typeof draw !== "function" || !window.posenc ||
      !window.posencPlot) {
      fallBack();
      return;
    }
    canvas.hidden = false;
    if (img) img.hidden = true;
    state.ready = true;
    Array.prototype.forEach.call(root.querySelectorAll("button[data-reshuffle]"), function (b) {
      b.hidden = false; // a button that needs the drawing shows with it
    });
    redraw();
    if (state.failed) return;
    if (window.ResizeObserver) {
      new window.ResizeObserver(function () {
        if (Math.abs(canvas.clientWidth - drawnWidth) >= 0.5) schedule();
      }).observe(canvas);
    } else {
      window.addEventListener("resize", schedule);
    }
  }

  // The drawers live next to this script, one file each (drawers/<name>.js), loaded only by
  // the pages that show their explorer.
  var here = document.currentScript && document.currentScript.src;
  var folder = here ? here.replace(/[^/]*$/, "") + "drawers/" : "";
  var loading = {};

  /** Run done() once the drawer `name` is registered (loaded now if need be), or has failed
   * to load (the explorer then keeps its PNG). */
  function withDrawer(name, done) {
    if (typeof registry[name] === "function" || !folder || !/^\w+$/.test(name)) {
      done();
      return;
    }
    if (!loading[name]) {
      loading[name] = [];
      var script = document.createElement("script");
      script.src = folder + name + ".js";
      var finish = function () {
        var waiting = loading[name];
        loading[name] = [];
        waiting.forEach(function (f) { f(); });
      };
      script.onload = finish;
      script.onerror = finish;
      document.head.appendChild(script);
    }
    loading[name].push(done);
  }

  function setUpAll() {
    Array.prototype.forEach.call(document.querySelectorAll(".posenc-explorer[data-live]"),
      function (root) {
        withDrawer(root.dataset.live, function () { setUp(root); });
      });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUpAll);
  } else {
    setUpAll();
  }
})();
