// SPDX-License-Identifier: MIT (see LICENSE at the root of the book's repository)
//
// drawers/rotary_grid.js: chapter 12's live explorer (book/explorers/rotary_nd.py), drawn with
// posenc's JavaScript twin (window.posenc) and plot.js (window.posencPlot); set up by
// explorers.js.
(function () {
  "use strict";

  var TWO_PI = 2 * Math.PI;
  var AXIS_NAMES = ["time", "row", "column"];
  // book.figures.rotary_nd._STYLE: axis -> (colour, marker)
  var STYLE = [["#7b3294", "o"], ["#e66101", "s"], ["#0571b0", "^"]];
  var GREY = "#4d4d4d"; // matplotlib's "0.3"
  var PT = 100 / 72; // CSS px per point: the book shows figures at 100 px per inch

  // -- what the twin lacks: mirrors of book.figures.rotary_nd's private helpers -----------------

  /** book.figures.rotary_nd._axial_axes: the axis (1: row, 2: column) of each pair. */
  function axialAxes(dim) {
    var out = [];
    for (var j = 0; j < dim / 2; j++) out.push(j < dim / 4 ? 1 : 2);
    return out;
  }

  /** book.figures.rotary_nd._axial_wavelengths: 2π/ω for the row half, then the column half. */
  function axialWavelengths(dim, base) {
    var omega = window.posenc.sinusoidalFrequencies(dim / 2, base);
    return omega.concat(omega).map(function (w) { return TWO_PI / w; });
  }

  /** book.figures.rotary_nd._power_label: "10⁴" for exponent 4 ("10⁰" for 0). */
  function powerLabel(exponent) {
    return "10" + window.posencPlot.superscript(exponent);
  }

  // -- matplotlib's tick locators, which plot.js lacks ---------------------------------------

  /**
   * matplotlib's AutoLocator (MaxNLocator, nbins "auto", steps 1, 2, 2.5, 5, 10) over
   * [vmin, vmax] for an axis `lengthPx` long whose tick labels are `tickPx` high; `perLabel`:
   * 3 for an x axis, 2 for a y axis (Axis.get_tick_space). Returns every tick, the edge ones
   * beyond the view included (as the formatter sees them).
   */
  function autoTicks(vmin, vmax, lengthPx, tickPx, perLabel) {
    var P = window.posencPlot;
    var pow10 = P.pow10;
    var nbins = Math.max(1, Math.min(9, Math.floor(lengthPx / (tickPx * perLabel))));
    var dv = Math.abs(vmax - vmin);
    var meanv = (vmax + vmin) / 2;
    var offset = Math.abs(meanv) / dv < 100 ? 0
      : (meanv < 0 ? -1 : 1) * pow10(Math.floor(Math.log10(Math.abs(meanv))));
    var scale = pow10(Math.floor(Math.log10(dv / nbins)));
    var lo = vmin - offset;
    var hi = vmax - offset;
    var steps = [0.1, 0.2, 0.25, 0.5, 1, 2, 2.5, 5, 10, 20].map(function (s) { return s * scale; });
    var raw = (hi - lo) / nbins;
    var istep = steps.length - 1;
    for (var i = 0; i < steps.length; i++) {
      if (steps[i] >= raw) { istep = i; break; }
    }
    var ticks = [];
    for (var k = istep; k >= 0; k--) {
      var step = steps[k];
      var tol = offset !== 0
        ? Math.min(0.4999, Math.max(1e-10, Math.pow(10, Math.log10(Math.abs(offset) / step) - 12)))
        : 1e-10;
      var best = P.divmod(lo, step)[0] * step;
      var dm = P.divmod(lo - best, step); // _Edge_integer.le
      var low = Math.abs(dm[1] / step - 1) < tol ? dm[0] + 1 : dm[0];
      dm = P.divmod(hi - best, step); // _Edge_integer.ge
      var high = Math.abs(dm[1] / step) < tol ? dm[0] : dm[0] + 1;
      ticks = [];
      for (var n = low; n <= high; n++) ticks.push(n * step + best);
      var shown = ticks.filter(function (t) { return t <= hi && t >= lo; }).length;
      if (shown >= 2) break;
    }
    return ticks.map(function (t) { return t + offset; });
  }

  /** matplotlib's LogLocator(base=10, numticks=n): the exponents of the major ticks over the
   * view [10^efmin, 10^efmax]. */
  function logTicks(efmin, efmax, numticks) {
    var emin = Math.ceil(efmin);
    var emax = Math.floor(efmax);
    var avail = emax - emin + 1;
    var request = numticks;
    var stride = Math.floor(avail / (request + 1)) + 1;
    var nr = Math.ceil(avail / stride);
    if (nr <= request) request = nr;
    var out = [];
    if (request === 0) return [emin - 1, emax + 1];
    if (request === 1) {
      var mid = Math.round((efmin + efmax) / 2);
      stride = Math.max(mid - (emin - 1), emax + 1 - mid);
      return [mid - stride, mid, mid + stride];
    }
    stride = Math.floor((avail - 1) / (request - 1));
    if (stride < avail / request) stride = Math.floor(avail / request);
    var olo = Math.max(avail - stride * request, 0);
    var ohi = Math.min(avail - stride * (request - 1), stride);
    var off = (((-emin) % stride) + stride) % stride;
    if (!(olo <= off && off < ohi)) off = olo;
    for (var e = emin + off - stride; e < emax + stride + 1; e += stride) out.push(e);
    return out;
  }

  /** The widest label a colour bar over [lo, hi] of `height` px would show, in CSS px. */
  function colorbarLabelWidth(lo, hi, height, tickPx) {
    var P = window.posencPlot;
    return P.widest(P.scalarFormat(autoTicks(lo, hi, height, tickPx, 2), lo, hi).labels, tickPx);
  }

  // -- the explorer -----------------------------------------------------------------------------

  /**
   * Chapter 12: the wavelength of every channel pair by the axis it turns with (left) and the
   * score of one all-ones query against all-ones keys at every place of a side × side grid
   * (right, with its colour bar), as book.figures.rotary_nd.rotary_grid_figure draws them;
   * stacked on a narrow screen. values: {pairs, row, column, side, base}; data: {dim, pairs:
   * {label: {layout, sections}}} (book/explorers/rotary_nd.py). A query beyond the grid is
   * drawn at the nearest place inside it.
   */
  window.posencExplorers = window.posencExplorers || {};
  window.posencExplorers.rotary_grid = function (canvas, values, data) {
    var P = window.posencPlot;
    var T = window.posenc;
    var dim = data.dim;
    var spec = data.pairs[values.pairs];
    if (!spec) throw new RangeError("pairs must be one of " + Object.keys(data.pairs).join(", "));
    var side = values.side;
    var base = values.base;
    var row = Math.min(values.row, side - 1);
    var col = Math.min(values.column, side - 1);
    var half = dim / 2;

    // what the figure computes: the pairs' axes and wavelengths, every key's angles
    var axes;
    var wavelengths;
    var angles; // [side²][d/2], row-major
    if (spec.layout === "axial") {
      axes = axialAxes(dim);
      wavelengths = axialWavelengths(dim, base);
      angles = T.rotaryAngles2d(side, side, dim, base);
    } else {
      axes = T.rotaryPairAxes(dim, 3, spec.sections);
      wavelengths = T.sinusoidalFrequencies(dim, base).map(function (t) { return TWO_PI / t; });
      var positions = [];
      for (var r = 0; r < side; r++) for (var c = 0; c < side; c++) positions.push([0, r, c]);
      angles = T.rotaryAnglesNd(positions, dim, base, spec.sections);
    }
    // rotary_grid_scores: (1/d)·(R_q 1)·(R_k 1) = (2/d)·Σ_j cos(φ_j(q) − φ_j(k))
    var cells = side * side;
    var scores = new Float64Array(cells);
    var q = Float64Array.from(angles[row * side + col]);
    var low = Infinity;
    for (var k = 0; k < cells; k++) {
      var a = angles[k];
      var s = 0;
      for (var j = 0; j < half; j++) s += Math.cos(q[j] - a[j]);
      s = (2 * s) / dim;
      scores[k] = s;
      if (s < low) low = s;
    }
    var lowest = low;
    low = Math.min(low, 1 - 1e-3); // a flat map still gets a colour range
    var counts = [0, 0, 0];
    axes.forEach(function (x) { counts[x] += 1; });
    var present = [0, 1, 2].filter(function (x) { return counts[x] > 0; });

    // the pairs' y view, in log10: autoscaled to the wavelengths (5 % margins), widened to the
    // dashed side when it lies outside (as axhline asks matplotlib to)
    var logs = wavelengths.map(Math.log10);
    var lo = Math.min.apply(null, logs);
    var hi = Math.max.apply(null, logs);
    var view = [lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo)];
    var logSide = Math.log10(side);
    if (logSide < view[0] || logSide > view[1]) {
      lo = Math.min(lo, logSide);
      hi = Math.max(hi, logSide);
      view = [lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo)];
    }
    var decades = logTicks(view[0], view[1], 8);
    var pairX = [-0.05 * (half - 1), half - 1 + 0.05 * (half - 1)];

    var pairsTitle = spec.layout === "axial"
      ? "axial: " + dim / 4 + " + " + dim / 4 + " pairs"
      : "M-RoPE: " + counts.join("/") + " pairs (t/h/w)";
    var gridTitle = "query (" + row + ", " + col + "): scores " + low.toFixed(2) + " \u2026 1";

    // -- layout, in CSS px --
    var TICK = 12;
    var LABEL = 13;
    var TITLE = 13;
    var width = window.posencPlot.layoutWidth(canvas);
    var aside = function (tickWidth) {
      return 4 + LABEL + P.LABEL_PAD + tickWidth + P.TICK_PAD + P.TICK_LENGTH;
    };
    var pairsAside = aside(P.widest(decades.map(powerLabel), TICK));
    var gridAside = aside(Math.max(P.measure(String(side - 1), TICK), side <= 4 ? P.measure(
      "\u22120.50", TICK) : 0));
    var below = P.TICK_LENGTH + P.TICK_PAD + 1.2 * TICK + P.LABEL_PAD + 1.2 * LABEL + 4;
    var BAR_GAP = 14;
    var BAR = 12;
    var barRight = function (labelWidth) {
      return BAR_GAP + BAR + P.TICK_LENGTH + P.TICK_PAD + labelWidth + 8;
    };
    var titleTop = function (lines) { return 6 + P.TITLE_PAD + 1.2 * TITLE * lines; };
    var wide = width >= 560;
    var boxes; // pairs, grid, bar: [left, top, width, height]; titles: lines of each
    var titles;
    var height;
    var layOut = function (labelWidth) {
      var right = barRight(labelWidth);
      if (wide) {
        var gap = 18;
        var room = width - pairsAside - gap - gridAside - right;
        var size = Math.max(120, Math.min(300, Math.round(0.47 * room)));
        var pairsW = room - size;
        var lines = [P.wrap(pairsTitle, TITLE, pairsW + Math.min(pairsAside, gap)),
          P.wrap(gridTitle, TITLE, size + 2 * Math.min(gap, BAR_GAP + BAR))];
        var top = titleTop(Math.max(lines[0].length, lines[1].length));
        var gridLeft = pairsAside + pairsW + gap + gridAside;
        boxes = [[pairsAside, top, pairsW, size], [gridLeft, top, size, size],
          [gridLeft + size + BAR_GAP, top, BAR, size]];
        titles = lines;
        height = Math.ceil(top + size + below);
      } else {
        var left = Math.max(pairsAside, gridAside);
        var w = Math.max(60, width - left - 14);
        var pairsLines = P.wrap(pairsTitle, TITLE, w + 2 * Math.min(left, 14));
        var top1 = titleTop(pairsLines.length);
        var pairsH = Math.max(150, Math.min(260, Math.round(0.62 * w)));
        var y = top1 + pairsH + below;
        var gridSize = Math.max(60, Math.min(320, width - left - right));
        var gridLines = P.wrap(gridTitle, TITLE, gridSize + 2 * Math.min(left, BAR_GAP));
        var top2 = y + titleTop(gridLines.length);
        boxes = [[left, top1, w, pairsH], [left, top2, gridSize, gridSize],
          [left + gridSize + BAR_GAP, top2, BAR, gridSize]];
        titles = [pairsLines, gridLines];
        height = Math.ceil(top2 + gridSize + below);
      }
    };
    var reserve = P.measure("0.0000", TICK);
    layOut(reserve);
    var need = colorbarLabelWidth(low, 1, boxes[2][3], TICK);
    if (need > reserve) layOut(need);

    // -- drawing --
    var fig = P.figure(canvas, height);
    var text = { tick: TICK, label: LABEL, title: TITLE };
    var labelled = function (ticks, lo, hi) { return P.scalarFormat(ticks, lo, hi).labels; };

    // left: the wavelength of every pair, by axis
    var pairsBox = boxes[0];
    var left = fig.axesAt(pairsBox, text);
    left.xlim(pairX[0], pairX[1]).ylim(view[0], view[1]);
    present.forEach(function (x) {
      var xs = [];
      var ys = [];
      axes.forEach(function (axis, j) {
        if (axis === x) {
          xs.push(j);
          ys.push(logs[j]);
        }
      });
      left.markers(xs, ys, { marker: STYLE[x][1], size: 4 * PT, color: STYLE[x][0] }); // 4 pt
    });
    left.axhline(logSide, { color: GREY, width: PT, dash: "--" });
    var pairTicks = autoTicks(pairX[0], pairX[1], pairsBox[2], TICK, 3);
    left.xticks(pairTicks, labelled(pairTicks, pairX[0], pairX[1]));
    left.yticks(decades, decades.map(powerLabel));
    left.xlabel("channel pair j").ylabel("wavelength 2\u03c0/\u03b8").title(titles[0]);
    left.draw();
    // "{side} tokens" just above the dashed line, at the right (below it where the top is near)
    var sideY = left.py(logSide + Math.log10(1.3));
    var above = sideY - TICK > left.top + 2;
    fig.text(left.left + 0.99 * left.width, above ? sideY : left.py(logSide) + 3,
      side + " tokens", { size: TICK, align: "right", baseline: above ? "bottom" : "top",
        color: GREY });
    // the legend in the upper left, with the figure's borderpad 0.3 and handletextpad 0.2
    left.legend(present.map(function (x) {
      return { label: AXIS_NAMES[x], marker: STYLE[x][1], color: STYLE[x][0], size: 4 * PT };
    }), { size: TICK, loc: "upper left", borderpad: 0.3, handletextpad: 0.2 });

    // right: the query's scores over the grid, and the colour bar
    var gridBox = boxes[1];
    var grid = fig.axesAt(gridBox, text);
    var ext = [-0.5, side - 0.5];
    grid.xlim(ext[0], ext[1]).ylim(ext[1], ext[0]);
    grid.image(scores, side, side, { cmap: "viridis", vmin: low, vmax: 1,
      extent: [ext[0], ext[1], ext[1], ext[0]] });
    grid.rect(col - 0.5, row - 0.5, col + 0.5, row + 0.5, { edge: "#000000", width: 2 * PT });
    var colTicks = autoTicks(ext[0], ext[1], gridBox[2], TICK, 3);
    var rowTicks = autoTicks(ext[0], ext[1], gridBox[3], TICK, 2);
    grid.xticks(colTicks, labelled(colTicks, ext[0], ext[1]));
    grid.yticks(rowTicks, labelled(rowTicks, ext[0], ext[1]));
    grid.xlabel("key column").ylabel("key row").title(titles[1]);
    grid.draw();
    // fig.colorbar's ticks (AutoLocator, ScalarFormatter), its offset above it
    var barTicks = autoTicks(low, 1, boxes[2][3], TICK, 2);
    var barFormat = P.scalarFormat(barTicks, low, 1);
    var bar = fig.colorbar(boxes[2], {
      cmap: "viridis", vmin: low, vmax: 1, ticks: barTicks, labels: barFormat.labels, size: TICK,
      outline: 1.1,
    });
    if (barFormat.offset) {
      fig.text(bar.left + bar.width, bar.top - 4, barFormat.offset, { size: TICK,
        baseline: "bottom" });
    }

    fig.finish();
    canvas.posencData = {
      values: values,
      query: [row, col],
      layout: spec.layout,
      sections: spec.sections,
      axes: axes,
      wavelengths: wavelengths,
      scores: scores,
      lowest: lowest,
      low: low,
      yview: [Math.pow(10, view[0]), Math.pow(10, view[1])],
      yticks: decades.map(function (e) { return Math.pow(10, e); }),
      barTicks: barTicks,
      barLabels: barFormat.labels,
      titles: [pairsTitle, gridTitle],
    };
  };
})();
