// SPDX-License-Identifier: MIT (see LICENSE at the root of the book's repository)
//
// drawers/numeric.js: chapter 2's live explorer (book/explorers/numeric.py), drawn with
// posenc's JavaScript twin (window.posenc) and plot.js (window.posencPlot); set up by
// explorers.js.
(function () {
  "use strict";

  // matplotlib's magma, the distance matrix's colormap: 256 colours as
  // book.explorers.explorer.colormap_hex("magma") writes them (plot.js carries RdBu_r and
  // viridis only)
  var MAGMA =
      "00000300000400000601000701010901010b02020d02020f03031104031304041505041706051907051b" +
      "08061d09071f0a07220b08240c09260d0a280e0a2a0f0b2c100c2f110c31120d33140d35150e38160e3a" +
      "170f3c180f3f1a10411b10441c10461e10491f114b20114d2211502311522511552611572811592a115c" +
      "2b115e2d10602f1062301065321067341068350f6a370f6c390f6e3b0f6f3c0f713e0f72400f73420f74" +
      "430f75450f76470f774810784a10794b10794d117a4f117b50127b52127c53137c55137d57147d58157e" +
      "5a157e5b167e5d177e5e177f60187f61187f63197f651a80661a80681b80691c806b1c806c1d806e1e81" +
      "6f1e81711f81731f817420817621817721817922817a22817c23817e24817f2481812581822581842681" +
      "8526818727818928818a28818c29808d29808f2a80912a80922b80942b80952c80972c7f992d7f9a2d7f" +
      "9c2e7f9e2e7e9f2f7ea12f7ea3307ea4307da6317da7317da9327cab337cac337bae347bb0347bb1357a" +
      "b3357ab53679b63679b83778b93778bb3877bd3977be3976c03a75c23a75c33b74c53c74c63c73c83d72" +
      "ca3e72cb3e71cd3f70ce4070d0416fd1426ed3426dd4436dd6446cd7456bd9466ada4769dc4869dd4968" +
      "de4a67e04b66e14c66e24d65e44e64e55063e65162e75262e85461ea5560eb5660ec585fed595fee5b5e" +
      "ee5d5def5e5df0605df1615cf2635cf3655cf3675bf4685bf56a5bf56c5bf66e5bf6705bf7715bf7735c" +
      "f8755cf8775cf9795cf97b5df97d5dfa7f5efa805efa825ffb8460fb8660fb8861fb8a62fc8c63fc8e63" +
      "fc9064fc9265fc9366fd9567fd9768fd9969fd9b6afd9d6bfd9f6cfda16efda26ffda470fea671fea873" +
      "feaa74feac75feae76feaf78feb179feb37bfeb57cfeb77dfeb97ffebb80febc82febe83fec085fec286" +
      "fec488fec689fec78bfec98dfecb8efdcd90fdcf92fdd193fdd295fdd497fdd698fdd89afdda9cfddc9d" +
      "fddd9ffddfa1fde1a3fce3a5fce5a6fce6a8fce8aafceaacfcecaefceeb0fcf0b1fcf1b3fcf3b5fcf5b7" +
      "fbf7b9fbf9bbfbfabdfbfcbf";

  // matplotlib's colour cycle, "C0".."C9" (tab10)
  var CYCLE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
    "#7f7f7f", "#bcbd22", "#17becf"];
  var RED = "#d62728"; // "tab:red"
  var PT = 100 / 72; // CSS px per point: the book's figures are shown at 100 px per inch

  // -- numbers written as Python writes them --------------------------------------------------

  /** float(f"{x:.2g}"): x rounded to 2 significant digits, half to even on an exact tie (an
   * exact tie: the digits of x's exact decimal expansion after the second are 5 then zeros). */
  function round2g(x) {
    var s = x.toExponential(1);
    var exact = Math.abs(x).toExponential(26);
    var mantissa = exact.split("e")[0]; // "d.ddd…"
    if (/^50*$/.test(mantissa.slice(3)) && Number(mantissa.charAt(2)) % 2 === 0) {
      s = (x < 0 ? "-" : "") + mantissa.slice(0, 3) + "e" + exact.split("e")[1];
    }
    return parseFloat(s);
  }

  // -- what book.figures.numeric and book.figures._base compute --------------------------------

  var ROUND_STEPS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000];

  /** book.figures._base.index_ticks(n, round_steps=True): 0 and the multiples of the largest
   * round step at most (n − 1) / 2. */
  function indexTicks(n) {
    var half = Math.max(1, (n - 1) / 2);
    var step = 1;
    ROUND_STEPS.forEach(function (s) { if (s <= half) step = s; });
    var ticks = [];
    for (var t = 0; t < n; t += step) ticks.push(t);
    return ticks;
  }

  /** book.figures.numeric._few_ticks_between: the ends and the middle, to 2 digits. */
  function fewTicksBetween(low, high) {
    if (high <= low) return [low];
    return [low, (low + high) / 2, high].map(round2g);
  }

  /** book.figures.numeric.encoding_table(kind, n, alpha=alpha) with the twin: [n][1 or 2]. */
  function encodingTable(kind, n, alpha) {
    var T = window.posenc;
    if (kind === "index") return T.numericEncoding(n);
    if (kind === "normalized") return T.numericEncoding(n, true);
    if (kind === "sine") return T.periodicEncoding(n, alpha);
    if (kind === "circle") return T.periodicEncoding(n, alpha, true);
    throw new RangeError("encoding must be index, normalized, sine or circle, got " +
      String(kind));
  }

  /**
   * What numeric_codes_figure measures on the codes (channel a, and b for the circle, float32
   * values), in float64 as book.demos.numeric computes it: torch.cdist's distance, the square
   * root of the summed squared differences. The closest distinct pair (i, j, dist) is the
   * first pair in row-major order at the smallest distance, as torch.argmin picks it
   * (closest_distinct_pair); top is the largest distance (the colour scale's top); step the
   * smallest neighbour step (adjacent_distances(...).min()); ties how many pairs lie within a
   * relative 1e-4 of the closest, and whether they are all neighbours or all the same
   * distance apart.
   *
   * Not all n² pairs: with the positions sorted by their first channel, a pair whose first
   * channels differ by more than a distance is farther apart than it (the rounded root of
   * the rounded sum is at least the rounded difference), so a sweep compares each position
   * with the few before it in that order: once for the closest distance, once for the pairs
   * that tie with it. The largest distance is max − min for one channel, and for two
   * circleTop's.
   */
  function measureCodes(a, b, n) {
    var order = new Int32Array(n);
    for (var k = 0; k < n; k++) order[k] = k;
    var sorted = Array.prototype.slice.call(order).sort(function (p, q) { return a[p] - a[q]; });
    var distance = function (p, q) {
      var dx = a[p] - a[q];
      var dy = b ? b[p] - b[q] : 0;
      return Math.sqrt(dx * dx + dy * dy);
    };
    var best = Infinity;
    var m, p, q, d;
    for (k = 1; k < n; k++) {
      p = sorted[k];
      for (m = k - 1; m >= 0; m--) {
        q = sorted[m];
        if (a[p] - a[q] > best) break;
        d = p < q ? distance(p, q) : distance(q, p);
        if (d < best) best = d;
      }
    }
    var limit = best * (1 + 1e-4) + 1e-12; // numeric_codes_figure's test for a tie
    var ties = 0;
    var offset = -1;
    var several = false;
    var i = n;
    var j = n;
    for (k = 1; k < n; k++) {
      p = sorted[k];
      for (m = k - 1; m >= 0; m--) {
        q = sorted[m];
        if (a[p] - a[q] > limit) break;
        var lo = Math.min(p, q);
        var hi = Math.max(p, q);
        d = distance(lo, hi);
        if (d > limit) continue;
        ties += 1;
        if (offset < 0) offset = hi - lo;
        else if (hi - lo !== offset) several = true;
        if (d === best && (lo < i || (lo === i && hi < j))) {
          i = lo;
          j = hi;
        }
      }
    }
    var top = b ? circleTop(a, b, n) : a[sorted[n - 1]] - a[sorted[0]];
    var step = Infinity;
    for (p = 0; p < n - 1; p++) step = Math.min(step, distance(p, p + 1));
    return { i: i, j: j, dist: best, top: top, step: step, ties: ties,
      neighbours: !several && offset === 1, oneOffset: !several };
  }

  /**
   * The largest distance between two points of the circle code (a = sin, b = cos, so near the
   * unit circle), computed as measureCodes computes distances, without comparing all n²
   * pairs. Two points at radii r, s whose directions are e short of opposite are
   * d² = (r + s)² − 2rs(1 − cos e) ≤ 4R² − 2ρ²(1 − cos e) apart (R, ρ: the largest and the
   * smallest radius), so once some pair is known to be √M² apart only pairs with
   * 1 − cos e ≤ (4R² − M²)/(2ρ²) can be farther: with the points sorted by direction, each is
   * compared with those in that arc around its opposite direction (with a margin for
   * rounding; every pair when the arc is the whole circle).
   */
  function circleTop(a, b, n) {
    var angle = new Float64Array(n);
    var radius2 = new Float64Array(n);
    var order = [];
    for (var k = 0; k < n; k++) {
      angle[k] = Math.atan2(a[k], b[k]);
      radius2[k] = a[k] * a[k] + b[k] * b[k];
      order.push(k);
    }
    order.sort(function (p, q) { return angle[p] - angle[q]; });
    var theta = new Float64Array(n);
    for (k = 0; k < n; k++) theta[k] = angle[order[k]];
    var square = function (p, q) {
      var dx = a[p] - a[q];
      var dy = b[p] - b[q];
      return dx * dx + dy * dy;
    };
    var atLeast = function (x) { // the first k with theta[k] >= x, or n
      var lo = 0;
      var hi = n;
      while (lo < hi) {
        var mid = (lo + hi) >> 1;
        if (theta[mid] < x) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    };
    var opposite = function (t) {
      return t > 0 ? t - Math.PI : t + Math.PI;
    };
    // a lower bound: each point against the two nearest its opposite direction
    var most = 0;
    for (k = 0; k < n; k++) {
      var at = atLeast(opposite(theta[k]));
      most = Math.max(most, square(order[k], order[at % n]), square(order[k],
        order[(at + n - 1) % n]));
    }
    var big = 0;
    var small = Infinity;
    for (k = 0; k < n; k++) {
      big = Math.max(big, radius2[k]);
      small = Math.min(small, radius2[k]);
    }
    var room = (4 * big * (1 + 1e-12) - most * (1 - 1e-12)) / (2 * small * (1 - 1e-12));
    var arc = room >= 2 ? Infinity : 2 * Math.asin(Math.sqrt(room / 2)) * (1 + 1e-9) + 1e-9;
    var compare = function (k2, from, to) { // order[k2] against theta in [from, to]
      for (var m = atLeast(from); m < n && theta[m] <= to; m++) {
        most = Math.max(most, square(order[k2], order[m]));
      }
    };
    for (k = 0; k < n; k++) {
      if (arc >= Math.PI) {
        compare(k, -Infinity, Infinity);
        continue;
      }
      var lo = theta[k] + Math.PI - arc; // within (−π, 3π)
      var hi = theta[k] + Math.PI + arc;
      if (lo > Math.PI) {
        compare(k, lo - 2 * Math.PI, hi - 2 * Math.PI);
      } else if (hi > Math.PI) {
        compare(k, lo, Math.PI);
        compare(k, -Math.PI, hi - 2 * Math.PI);
      } else {
        compare(k, lo, hi);
      }
    }
    return Math.sqrt(most);
  }

  // -- drawing that plot.js lacks ---------------------------------------------------------------

  /** Markers "o" at (xs[k], ys[k]): filled discs of diameter `size` CSS px, or rings (`ring`:
   * the line width) with no fill; clipped to the axes, as matplotlib clips them. */
  function markers(ax, xs, ys, size, color, ring) {
    var ctx = ax.clip();
    var r = size / 2;
    ctx.beginPath();
    for (var k = 0; k < xs.length; k++) {
      var x = ax.px(xs[k]);
      var y = ax.py(ys[k]);
      ctx.moveTo(x + r, y);
      ctx.arc(x, y, r, 0, 2 * Math.PI);
    }
    if (ring) {
      ctx.strokeStyle = color;
      ctx.lineWidth = ring;
      ctx.stroke();
    } else {
      ctx.fillStyle = color;
      ctx.fill();
    }
    ctx.restore();
  }

  /**
   * Chapter 2: one naive code (the raw index, the normalised index, sin(p/α) or the circle
   * sin & cos of p/α) by position, the closest distinct pair circled (left), and the distance
   * ‖PE(i) − PE(j)‖ of every pair on magma with its colour bar (right), as
   * book.figures.numeric.numeric_codes_figure draws them; stacked on a narrow screen.
   * values: {encoding, alpha, T}.
   */
  window.posencExplorers = window.posencExplorers || {};
  window.posencExplorers.numeric = function (canvas, values) {
    var P = window.posencPlot;
    var kind = values.encoding;
    var n = values.T;
    var table = encodingTable(kind, n, values.alpha); // [n][c], float32 values
    var c = table[0].length;
    var a = new Float64Array(n);
    var b = c > 1 ? new Float64Array(n) : null;
    var low = Infinity;
    var high = -Infinity;
    for (var p = 0; p < n; p++) {
      a[p] = table[p][0];
      if (b) b[p] = table[p][1];
      for (var ch = 0; ch < c; ch++) {
        low = Math.min(low, table[p][ch]);
        high = Math.max(high, table[p][ch]);
      }
    }
    var m = measureCodes(a, b, n);
    var i = m.i;
    var j = m.j;
    var mark = m.ties === 1 || (m.oneOffset && !m.neighbours);
    var distance = function (r, s) {
      var dx = a[r] - a[s];
      var dy = b ? b[r] - b[s] : 0;
      return Math.sqrt(dx * dx + dy * dy);
    };

    var head;
    var dist = P.format(m.dist, ".3f");
    if (m.ties === 1) {
      head = "closest pair: positions " + i + " and " + j + " (distance " + dist + ")";
    } else if (m.neighbours) {
      head = "all " + m.ties + " neighbour pairs tie for closest (distance " + dist + ")";
    } else if (m.oneOffset) {
      head = "all " + m.ties + " pairs " + (j - i) + " apart tie, e.g. " + i + " and " + j +
        " (distance " + dist + ")";
    } else {
      head = m.ties + " pairs tie for closest (distance " + dist + ")";
    }
    var stepLine = "smallest neighbour step: " + P.format(m.step, ".3f");
    var heatTitle = "distance \u2016PE(i) \u2212 PE(j)\u2016";

    var span = high - low || 1;
    var ylim = [low - 0.08 * span, high + 0.35 * span];
    var xlim = [-0.05 * (n - 1), 1.05 * (n - 1)];
    var yTicks = fewTicksBetween(low, high);
    var yFormat = P.scalarFormat(yTicks, ylim[0], ylim[1]);
    var yLabels = yFormat.labels;
    var cells = indexTicks(n);
    var cellLabels = P.scalarFormat(cells, -0.5, n - 0.5).labels;
    var barTicks = fewTicksBetween(0, m.top);
    var barTop = Math.max(m.top, Math.max.apply(null, barTicks)); // the bar's axis reaches it
    var barFormat = P.scalarFormat(barTicks, 0, barTop);
    var barLabels = barFormat.labels;

    // -- layout, in CSS px, for the width the canvas is shown at
    var TICK = 12;
    var LABEL = 13;
    var TITLE = 13;
    var LEGEND = 12;
    var width = window.posencPlot.layoutWidth(canvas);
    var aside = function (labels) {
      return 4 + LABEL + P.LABEL_PAD + P.widest(labels, TICK) + P.TICK_PAD + P.TICK_LENGTH;
    };
    var codeAside = aside(yLabels);
    var heatAside = aside(cellLabels);
    var barRight = P.TICK_LENGTH + P.TICK_PAD + P.widest(barLabels, TICK) + 6; // right of the bar
    var below = P.TICK_LENGTH + P.TICK_PAD + 1.2 * TICK + P.LABEL_PAD + 1.2 * LABEL + 4;
    var titleLines = function (allowed) {
      // "(distance …)" kept whole when the first line breaks; an empty last line leaves room
      // for an axis's power of ten ("1e−13"), which matplotlib writes over the title
      return {
        code: P.wrap(head.replace(" (distance ", " (distance\u00a0"), TITLE, allowed[0])
          .concat(P.wrap(stepLine, TITLE, allowed[0]), yFormat.offset ? [""] : []),
        heat: P.wrap(heatTitle, TITLE, allowed[1]).concat(barFormat.offset ? [""] : []),
      };
    };
    var boxes; // [left, top, width, height] of the code axes and the heatmap, CSS px
    var lines;
    var height;
    if (width >= 560) {
      var between = 16;
      var unit = (width - codeAside - between - heatAside - barRight) / (1.6 + 1 + 0.09);
      var codeW = 1.6 * unit;
      var panelH = Math.max(170, Math.min(300, Math.round(0.31 * width)));
      // a title may overhang its axes into the margins on both sides (centred)
      lines = titleLines([
        codeW + 2 * Math.min(codeAside, (between + heatAside) / 2),
        unit + 2 * Math.min((between + heatAside) / 2, 0.09 * unit + barRight),
      ]);
      var top = 6 + P.TITLE_PAD + 1.2 * TITLE * Math.max(lines.code.length, lines.heat.length);
      boxes = [
        [codeAside, top, codeW, panelH],
        [codeAside + codeW + between + heatAside, top, unit, panelH],
      ];
      height = Math.ceil(top + panelH + below);
    } else {
      var left = Math.max(codeAside, heatAside);
      var w = Math.max(60, width - left - 14);
      var heatW = Math.max(50, (width - left - barRight) / 1.09);
      lines = titleLines([w + 2 * Math.min(left, 14),
        heatW + 2 * Math.min(left, 0.09 * heatW + barRight)]);
      var top1 = 6 + P.TITLE_PAD + 1.2 * TITLE * lines.code.length;
      var codeH = Math.max(150, Math.min(260, Math.round(0.62 * w)));
      var top2 = top1 + codeH + below + 6 + P.TITLE_PAD + 1.2 * TITLE * lines.heat.length;
      var heatH = Math.max(140, Math.min(320, Math.round(0.85 * heatW)));
      boxes = [[left, top1, w, codeH], [left, top2, heatW, heatH]];
      height = Math.ceil(top2 + heatH + below);
    }

    var fig = P.figure(canvas, height);
    var text = { tick: TICK, label: LABEL, title: TITLE };
    var magma = P.lutFromHex(MAGMA);

    // -- left: the code of each position, the closest pair circled
    var codes = fig.axesAt(boxes[0], text);
    codes.xlim(xlim[0], xlim[1]).ylim(ylim[0], ylim[1]);
    var names = kind === "circle" ? ["sin(p/\u03b1)", "cos(p/\u03b1)"] : ["PE(p)"];
    var positions = new Float64Array(n);
    for (var q = 0; q < n; q++) positions[q] = q;
    var dot = (n > 30 ? 3 : 4) * PT + PT; // the marker and its edge (1 pt), in CSS px
    var entries = [];
    var cycle = 0; // each plot() takes the next colour, the rings' too (their line's colour)
    [a, b].slice(0, c).forEach(function (channel, k) {
      var color = CYCLE[cycle++ % CYCLE.length];
      markers(codes, positions, channel, dot, color, 0);
      entries.push({ label: names[k], color: color, size: dot, edgeWidth: 0 });
      if (mark) {
        cycle++;
        markers(codes, [i, j], [channel[i], channel[j]], 10 * PT, RED, 2 * PT);
      }
    });
    codes.legend(entries, { size: LEGEND, ncols: 2, handletextpad: 0.2, borderaxespad: 0.3 });
    codes.xticks(cells, cellLabels).yticks(yTicks, yLabels);
    codes.xlabel("position p").ylabel("code value").title(lines.code);
    codes.draw();
    if (yFormat.offset) {
      fig.text(codes.left, codes.top - P.TITLE_PAD, yFormat.offset, { size: TICK });
    }

    // -- right: the distance between every pair of codes, sampled at the device's pixels
    var heat = fig.axesAt(boxes[1], text);
    heat.xlim(-0.5, n - 0.5).ylim(n - 0.5, -0.5);
    var dpr = fig.dpr;
    var cols = Math.min(n, Math.ceil(heat.width * dpr));
    var rows = Math.min(n, Math.ceil(heat.height * dpr));
    var pick = function (count) {
      var at = new Int32Array(count);
      for (var k = 0; k < count; k++) at[k] = count === n ? k : Math.floor(((k + 0.5) * n) / count);
      return at;
    };
    var rowAt = pick(rows);
    var colAt = pick(cols);
    var shown = new Float64Array(rows * cols);
    for (var r = 0; r < rows; r++) {
      var ra = a[rowAt[r]];
      var rb = b ? b[rowAt[r]] : 0;
      for (var s = 0; s < cols; s++) {
        var dx = ra - a[colAt[s]];
        var dy = b ? rb - b[colAt[s]] : 0;
        shown[r * cols + s] = Math.sqrt(dx * dx + dy * dy);
      }
    }
    fig.cells([heat.left, heat.top, heat.width, heat.height], shown, rows, cols, magma, 0, m.top,
      { clip: true });
    heat.xticks(cells, cellLabels).yticks(cells, cellLabels);
    heat.xlabel("j").ylabel("i").title(lines.heat);
    heat.draw();
    // book.figures._base.inset_colorbar: a gap of 4 % of the heatmap's width, 5 % wide
    var bar = fig.colorbar([heat.left + heat.width + 0.04 * heat.width, heat.top,
      Math.max(8, 0.05 * heat.width), heat.height], {
      lut: magma, vmin: 0, vmax: m.top, top: barTop, ticks: barTicks, labels: barLabels,
      size: TICK, outline: 0.8 * PT,
    });
    if (barFormat.offset) {
      fig.text(bar.left + bar.width, bar.top - P.TITLE_PAD, barFormat.offset, {
        size: TICK, align: "right",
      });
    }

    fig.finish();
    canvas.posencData = {
      values: values, table: table, i: i, j: j, dist: m.dist, step: m.step, ties: m.ties,
      marked: mark, vmax: m.top, distance: distance,
      titles: [head + "\n" + stepLine, heatTitle],
      xlim: xlim, ylim: ylim, yTicks: yTicks, yLabels: yLabels, cells: cells,
      cellLabels: cellLabels, barTicks: barTicks, barLabels: barLabels,
      offsets: [yFormat.offset, barFormat.offset],
      colors: entries.map(function (e) { return e.color; }),
    };
  };
})();
