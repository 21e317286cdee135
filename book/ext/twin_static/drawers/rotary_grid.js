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
  var SUPERSCRIPT = { "-": "\u207b", 0: "\u2070", 1: "\u00b9", 2: "\u00b2", 3: "\u00b3",
    4: "\u2074", 5: "\u2075", 6: "\u2076", 7: "\u2077", 8: "\u2078", 9: "\u2079" };

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

  /** book.figures.rotary_nd._power_label: "10⁴" for exponent 4. */
  function powerLabel(exponent) {
    return "10" + String(exponent).split("").map(function (ch) {
      return SUPERSCRIPT[ch];
    }).join("");
  }

  // -- local plot helpers (plot.js has none of these yet) ---------------------------------------

  /** Python's divmod of floats (CPython's float_divmod), as matplotlib's tick code uses it:
   * [a // b, a % b]; 1.0 // 0.1 is 9, not Math.floor(1.0 / 0.1) = 10. */
  function pyDivmod(a, b) {
    var mod = a % b; // C's fmod, exact
    var div = (a - mod) / b;
    if (mod) {
      if ((b < 0) !== (mod < 0)) {
        mod += b;
        div -= 1;
      }
    } else {
      mod = b < 0 ? -0 : 0;
    }
    var floor;
    if (div) {
      floor = Math.floor(div);
      if (div - floor > 0.5) floor += 1;
    } else {
      floor = a / b < 0 ? -0 : 0;
    }
    return [floor, mod];
  }

  function floorDiv(a, b) {
    return pyDivmod(a, b)[0];
  }

  /** 10 ** e for an integer e, correctly rounded (as Python's float 10.0 ** e). */
  function pow10(e) {
    return Number("1e" + e);
  }

  /**
   * matplotlib's AutoLocator (MaxNLocator, nbins "auto", steps 1, 2, 2.5, 5, 10) over
   * [vmin, vmax] for an axis `lengthPx` long whose tick labels are `tickPx` high; `perLabel`:
   * 3 for an x axis, 2 for a y axis (Axis.get_tick_space). Returns every tick, the edge ones
   * beyond the view included (as the formatter sees them).
   */
  function autoTicks(vmin, vmax, lengthPx, tickPx, perLabel) {
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
      var best = floorDiv(lo, step) * step;
      var dm = pyDivmod(lo - best, step); // _Edge_integer.le
      var low = Math.abs(dm[1] / step - 1) < tol ? dm[0] + 1 : dm[0];
      dm = pyDivmod(hi - best, step); // _Edge_integer.ge
      var high = Math.abs(dm[1] / step) < tol ? dm[0] : dm[0] + 1;
      ticks = [];
      for (var n = low; n <= high; n++) ticks.push(n * step + best);
      var shown = ticks.filter(function (t) { return t <= hi && t >= lo; }).length;
      if (shown >= 2) break;
    }
    return ticks.map(function (t) { return t + offset; });
  }

  /**
   * matplotlib's ScalarFormatter (offset, no scientific notation) for the ticks `locs` of a
   * view [vmin, vmax]: {labels, offset} with a real minus sign.
   */
  function scalarLabels(locs, vmin, vmax) {
    var visible = locs.filter(function (t) { return t >= vmin && t <= vmax; });
    var offset = 0;
    if (visible.length) {
      var lmin = Math.min.apply(null, visible);
      var lmax = Math.max.apply(null, visible);
      if (!(lmin === lmax || (lmin <= 0 && lmax >= 0))) {
        var absMin = Math.min(Math.abs(lmin), Math.abs(lmax));
        var absMax = Math.max(Math.abs(lmin), Math.abs(lmax));
        var sign = lmin < 0 ? -1 : 1;
        var oomMax = Math.ceil(Math.log10(absMax));
        var oom = oomMax;
        while (floorDiv(absMin, pow10(oom)) === floorDiv(absMax, pow10(oom))) oom--;
        oom += 1;
        if ((absMax - absMin) / pow10(oom) <= 1e-2) {
          oom = oomMax;
          while (floorDiv(absMax, pow10(oom)) - floorDiv(absMin, pow10(oom)) <= 1) {
            oom--;
          }
          oom += 1;
        }
        var lead = floorDiv(absMax, pow10(oom));
        offset = lead >= 1000 ? sign * lead * pow10(oom) : 0;
      }
    }
    var shifted = locs.map(function (t) { return t - offset; });
    var range = Math.max.apply(null, shifted) - Math.min.apply(null, shifted);
    if (range === 0) range = Math.max.apply(null, shifted.map(Math.abs)) || 1;
    var rangeOom = Math.floor(Math.log10(range));
    var sigfigs = Math.max(0, 3 - rangeOom);
    var thresh = 1e-3 * pow10(rangeOom);
    while (sigfigs >= 0) {
      var f = pow10(sigfigs);
      var worst = shifted.reduce(function (w, t) {
        return Math.max(w, Math.abs(t - Math.round(t * f) / f));
      }, 0);
      if (worst < thresh) sigfigs -= 1;
      else break;
    }
    sigfigs += 1;
    var labels = shifted.map(function (t) {
      return (Math.abs(t) < 1e-8 ? 0 : t).toFixed(sigfigs).replace("-", "\u2212");
    });
    var offsetText = "";
    if (offset) {
      var e = Math.floor(Math.log10(Math.abs(offset)));
      var s = Math.round((offset / Math.pow(10, e)) * 1e10) / 1e10;
      offsetText = (offset > 0 ? "+" : "") + String(s) + (e === 0 ? "" : "e" + e);
      offsetText = offsetText.replace("-", "\u2212");
    }
    return { labels: labels, offset: offsetText };
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

  /** A matplotlib marker ("o", "s", "^") of `size` px across, filled, edged in its colour. */
  function marker(ctx, kind, x, y, size, color) {
    var h = size / 2;
    ctx.beginPath();
    if (kind === "o") {
      ctx.arc(x, y, h, 0, TWO_PI);
    } else if (kind === "s") {
      ctx.rect(x - h, y - h, size, size);
    } else {
      ctx.moveTo(x, y - h);
      ctx.lineTo(x - h, y + h);
      ctx.lineTo(x + h, y + h);
      ctx.closePath();
    }
    ctx.fillStyle = color;
    ctx.strokeStyle = color;
    ctx.lineWidth = PT; // markeredgewidth 1 pt
    ctx.fill();
    ctx.stroke();
  }

  /** Markers at (xs[i], ys[i]) in data coordinates, clipped to the axes. */
  function scatter(ax, xs, ys, kind, color) {
    var ctx = ax.clip();
    for (var i = 0; i < xs.length; i++) {
      marker(ctx, kind, ax.px(xs[i]), ax.py(ys[i]), 4 * PT, color); // ms = 4 pt
    }
    ctx.restore();
  }

  /** A dashed horizontal line across the axes at y (matplotlib's "--", lw in points). */
  function dashedHline(ax, y, color, lw) {
    var ctx = ax.clip();
    ctx.beginPath();
    ctx.setLineDash([3.7 * lw * PT, 1.6 * lw * PT]);
    ctx.moveTo(ax.left, ax.py(y));
    ctx.lineTo(ax.left + ax.width, ax.py(y));
    ctx.strokeStyle = color;
    ctx.lineWidth = lw * PT;
    ctx.stroke();
    ctx.restore();
  }

  /** An unfilled rectangle [x0, x1] × [y0, y1] in data coordinates, clipped to the axes. */
  function outline(ax, x0, y0, x1, y1, color, lw) {
    var ctx = ax.clip();
    var left = Math.min(ax.px(x0), ax.px(x1));
    var top = Math.min(ax.py(y0), ax.py(y1));
    ctx.strokeStyle = color;
    ctx.lineWidth = lw * PT;
    ctx.strokeRect(left, top, Math.abs(ax.px(x1) - ax.px(x0)), Math.abs(ax.py(y1) - ax.py(y0)));
    ctx.restore();
  }

  /** A legend in the upper left corner: entries [label, marker, colour] (legend's defaults,
   * with the figure's borderpad 0.3 and handletextpad 0.2). */
  function legend(fig, ax, entries, size) {
    var pad = 0.5 * size; // borderaxespad
    var inner = 0.3 * size; // borderpad
    var handle = 2 * size; // handlelength
    var gap = 0.2 * size; // handletextpad
    var line = 1.2 * size;
    var spacing = 0.5 * size; // labelspacing
    var widest = entries.reduce(function (w, e) {
      return Math.max(w, fig.measure(e[0], size));
    }, 0);
    var width = 2 * inner + handle + gap + widest;
    var height = 2 * inner + entries.length * line + (entries.length - 1) * spacing;
    var x = ax.left + pad;
    var y = ax.top + pad;
    var ctx = fig.ctx;
    ctx.save();
    ctx.beginPath();
    if (ctx.roundRect) ctx.roundRect(x, y, width, height, 0.2 * size);
    else ctx.rect(x, y, width, height);
    ctx.fillStyle = "rgba(255, 255, 255, 0.8)";
    ctx.fill();
    ctx.strokeStyle = "#cccccc";
    ctx.lineWidth = PT;
    ctx.stroke();
    entries.forEach(function (e, i) {
      var middle = y + inner + i * (line + spacing) + line / 2;
      marker(ctx, e[1], x + inner + handle / 2, middle, 4 * PT, e[2]);
    });
    ctx.restore();
    entries.forEach(function (e, i) {
      var middle = y + inner + i * (line + spacing) + line / 2;
      fig.text(x + inner + handle + gap, middle, e[0], { size: size, baseline: "middle" });
    });
  }

  /**
   * A vertical colour bar in `box` [left, top, width, height] (CSS px) of the colormap over
   * [lo, hi], ticked on its right as fig.colorbar ticks it (AutoLocator, ScalarFormatter).
   */
  function colorbar(fig, box, cmap, lo, hi, tickPx) {
    var W = fig.width;
    var H = fig.height;
    var ax = fig.axes([box[0] / W, (H - box[1] - box[3]) / H, box[2] / W, box[3] / H]);
    ax.xlim(0, 1).ylim(lo, hi);
    var bins = new Float64Array(256);
    for (var i = 0; i < 256; i++) bins[i] = lo + ((255 - i + 0.5) / 256) * (hi - lo);
    ax.image(bins, 256, 1, { cmap: cmap, vmin: lo, vmax: hi, extent: [0, 1, lo, hi] });
    ax.draw(); // the outline: no ticks on the left or below
    var ticks = autoTicks(lo, hi, box[3], tickPx, 2);
    var shown = scalarLabels(ticks, lo, hi);
    var ctx = fig.ctx;
    var right = ax.left + ax.width;
    var span = Math.abs(hi - lo);
    ctx.save();
    ctx.strokeStyle = "#000000";
    ctx.lineWidth = 0.8 * PT;
    ctx.beginPath();
    ticks.forEach(function (t) {
      if (t < lo - 1e-9 * span || t > hi + 1e-9 * span) return;
      ctx.moveTo(right, ax.py(t));
      ctx.lineTo(right + window.posencPlot.TICK_LENGTH, ax.py(t));
    });
    ctx.stroke();
    ctx.restore();
    var P = window.posencPlot;
    ticks.forEach(function (t, k) {
      if (t < lo - 1e-9 * span || t > hi + 1e-9 * span) return;
      fig.text(right + P.TICK_LENGTH + P.TICK_PAD, ax.py(t), shown.labels[k], {
        size: tickPx, baseline: "middle",
      });
    });
    if (shown.offset) {
      fig.text(right, ax.top - 4, shown.offset, { size: tickPx, baseline: "bottom" });
    }
    return { ticks: ticks, labels: shown.labels, offset: shown.offset };
  }

  /** The widest label a colour bar over [lo, hi] of `height` px would show, in CSS px. */
  function colorbarLabelWidth(lo, hi, height, tickPx) {
    var shown = scalarLabels(autoTicks(lo, hi, height, tickPx, 2), lo, hi);
    return shown.labels.reduce(function (w, t) {
      return Math.max(w, window.posencPlot.measure(t, tickPx));
    }, 0);
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
    var widest = function (labels) {
      return labels.reduce(function (w, t) { return Math.max(w, P.measure(t, TICK)); }, 0);
    };
    var aside = function (tickWidth) {
      return 4 + LABEL + P.LABEL_PAD + tickWidth + P.TICK_PAD + P.TICK_LENGTH;
    };
    var pairsAside = aside(widest(decades.map(powerLabel)));
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
    var W = fig.width;
    var axesAt = function (box) {
      var ax = fig.axes([box[0] / W, (height - box[1] - box[3]) / height, box[2] / W,
        box[3] / height]);
      ax.tickPx = TICK;
      ax.labelPx = LABEL;
      ax.titlePx = TITLE;
      return ax;
    };

    // left: the wavelength of every pair, by axis
    var pairsBox = boxes[0];
    var left = axesAt(pairsBox);
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
      scatter(left, xs, ys, STYLE[x][1], STYLE[x][0]);
    });
    dashedHline(left, logSide, GREY, 1);
    var pairTicks = autoTicks(pairX[0], pairX[1], pairsBox[2], TICK, 3);
    left.xticks(pairTicks, scalarLabels(pairTicks, pairX[0], pairX[1]).labels);
    left.yticks(decades, decades.map(powerLabel));
    left.xlabel("channel pair j").ylabel("wavelength 2\u03c0/\u03b8").title(titles[0]);
    left.draw();
    // "{side} tokens" just above the dashed line, at the right (below it where the top is near)
    var sideY = left.py(logSide + Math.log10(1.3));
    var above = sideY - TICK > left.top + 2;
    fig.text(left.left + 0.99 * left.width, above ? sideY : left.py(logSide) + 3,
      side + " tokens", { size: TICK, align: "right", baseline: above ? "bottom" : "top",
        color: GREY });
    legend(fig, left, present.map(function (x) {
      return [AXIS_NAMES[x], STYLE[x][1], STYLE[x][0]];
    }), TICK);

    // right: the query's scores over the grid, and the colour bar
    var gridBox = boxes[1];
    var grid = axesAt(gridBox);
    var ext = [-0.5, side - 0.5];
    grid.xlim(ext[0], ext[1]).ylim(ext[1], ext[0]);
    grid.image(scores, side, side, { cmap: "viridis", vmin: low, vmax: 1,
      extent: [ext[0], ext[1], ext[1], ext[0]] });
    outline(grid, col - 0.5, row - 0.5, col + 0.5, row + 0.5, "#000000", 2);
    var colTicks = autoTicks(ext[0], ext[1], gridBox[2], TICK, 3);
    var rowTicks = autoTicks(ext[0], ext[1], gridBox[3], TICK, 2);
    grid.xticks(colTicks, scalarLabels(colTicks, ext[0], ext[1]).labels);
    grid.yticks(rowTicks, scalarLabels(rowTicks, ext[0], ext[1]).labels);
    grid.xlabel("key column").ylabel("key row").title(titles[1]);
    grid.draw();
    var bar = colorbar(fig, boxes[2], "viridis", low, 1, TICK);

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
      barTicks: bar.ticks,
      barLabels: bar.labels,
      titles: [pairsTitle, gridTitle],
    };
  };
})();
