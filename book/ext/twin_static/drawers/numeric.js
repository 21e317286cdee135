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

  var lut = null;

  /** MAGMA as 256 RGB triples (a Uint8Array of 768 bytes), decoded once. */
  function magma() {
    if (!lut) {
      lut = new Uint8Array(768);
      for (var i = 0; i < 768; i++) lut[i] = parseInt(MAGMA.substr(2 * i, 2), 16);
    }
    return lut;
  }

  // matplotlib's colour cycle, "C0".."C9" (tab10)
  var CYCLE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
    "#7f7f7f", "#bcbd22", "#17becf"];
  var RED = "#d62728"; // "tab:red"
  var PT = 100 / 72; // CSS px per point: the book's figures are shown at 100 px per inch
  var MINUS = "\u2212";

  // -- numbers written as Python and matplotlib write them -----------------------------------

  /**
   * Whether `tail`, the digits of a number's exact decimal expansion beyond those kept (as
   * toFixed or toExponential writes them with 25 more digits), is 5 then zeros: an exact tie,
   * which JavaScript rounds away from zero and Python to even. A double that is no tie differs
   * from one far sooner than 25 digits on.
   */
  function tieAfter(tail) {
    return /^50*$/.test(tail);
  }

  /** Python's f"{x:.{digits}f}" (and "%1.{digits}f" % x): half to even on an exact tie. */
  function pyFixed(x, digits) {
    var s = x.toFixed(digits);
    var exact = Math.abs(x).toFixed(Math.min(100, digits + 25));
    var point = exact.indexOf(".");
    if (!tieAfter(exact.slice(point + 1 + digits))) return s;
    var down = exact.slice(0, digits ? point + 1 + digits : point); // |x| rounded toward 0
    if (Number(down.charAt(down.length - 1)) % 2 !== 0) return s; // up is the even one
    return (x < 0 ? "-" : "") + down;
  }

  /** float(f"{x:.2g}"): x rounded to 2 significant digits, half to even on an exact tie. */
  function round2g(x) {
    var s = x.toExponential(1);
    var exact = Math.abs(x).toExponential(26);
    var mantissa = exact.split("e")[0]; // "d.ddd…"
    if (tieAfter(mantissa.slice(3)) && Number(mantissa.charAt(2)) % 2 === 0) {
      s = (x < 0 ? "-" : "") + mantissa.slice(0, 3) + "e" + exact.split("e")[1];
    }
    return parseFloat(s);
  }

  /** 10^k as Python's 10.0 ** k: the double nearest it. */
  function tenTo(k) {
    return Number("1e" + k);
  }

  /** numpy.round(x, decimals) for decimals >= 0: rint(x·10^d) / 10^d. */
  function npRound(x, decimals) {
    var scale = tenTo(decimals);
    return window.posencPlot.roundHalfEven(x * scale) / scale;
  }

  /**
   * The labels matplotlib's ScalarFormatter writes for ticks at `locs` on an axis showing
   * `view` = [a, b]: {labels, offset}. One number of decimals for all, enough to tell them
   * apart, a real minus sign; when the largest visible tick is below 1e-4 or from 1e6 up, the
   * labels count in units of 10^k and offset is the "1e−k" matplotlib writes at the axis's
   * end ("" otherwise). No additive offset: every axis here runs from 0 or below to 0 or
   * above.
   */
  function scalarLabels(locs, view) {
    var lo = Math.min(view[0], view[1]);
    var hi = Math.max(view[0], view[1]);
    var largest = 0;
    var visible = 0;
    locs.forEach(function (x) {
      if (lo <= x && x <= hi) {
        visible += 1;
        largest = Math.max(largest, Math.abs(x));
      }
    });
    var power = visible && largest > 0 ? Math.floor(Math.log10(largest)) : 0;
    if (power > -5 && power < 6) power = 0;
    var unit = tenTo(power);
    var scaled = locs.map(function (x) { return x / unit; });
    var all = locs.length < 2 ? scaled.concat(view.map(function (x) { return x / unit; }))
      : scaled;
    var range = Math.max.apply(null, all) - Math.min.apply(null, all);
    if (range === 0) range = Math.max.apply(null, all.map(Math.abs));
    if (range === 0) range = 1;
    var oom = Math.floor(Math.log10(range));
    var sigfigs = Math.max(0, 3 - oom);
    var thresh = 1e-3 * tenTo(oom);
    while (sigfigs >= 0) {
      var worst = 0;
      for (var i = 0; i < scaled.length; i++) {
        worst = Math.max(worst, Math.abs(scaled[i] - npRound(scaled[i], sigfigs)));
      }
      if (worst < thresh) sigfigs -= 1;
      else break;
    }
    sigfigs += 1;
    return {
      labels: scaled.map(function (x) {
        return pyFixed(Math.abs(x) < 1e-8 ? 0 : x, sigfigs).replace("-", MINUS);
      }),
      offset: power ? ("1e" + power).replace("-", MINUS) : "",
    };
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

  /**
   * A heatmap of `values` (row-major, rows × cols) through `colors` (256 RGB triples), each
   * cell flat, filling `rect` = [left, top, width, height] (CSS px); a value maps as
   * matplotlib maps it: bin floor(256·(v − vmin)/(vmax − vmin)), clipped to the ends.
   */
  function imageLut(fig, rect, values, rows, cols, colors, vmin, vmax) {
    var scratch = fig.canvas.posencNumericScratch;
    if (!scratch) {
      scratch = document.createElement("canvas");
      fig.canvas.posencNumericScratch = scratch;
    }
    scratch.width = cols;
    scratch.height = rows;
    var sctx = scratch.getContext("2d");
    var pixels = sctx.createImageData(cols, rows);
    var data = pixels.data;
    var span = vmax - vmin || 1;
    for (var k = 0; k < rows * cols; k++) {
      var bin = Math.floor(((values[k] - vmin) / span) * 256);
      bin = bin < 0 ? 0 : bin > 255 ? 255 : bin;
      data[4 * k] = colors[3 * bin];
      data[4 * k + 1] = colors[3 * bin + 1];
      data[4 * k + 2] = colors[3 * bin + 2];
      data[4 * k + 3] = 255;
    }
    sctx.putImageData(pixels, 0, 0);
    var ctx = fig.ctx;
    ctx.save();
    ctx.beginPath();
    ctx.rect(rect[0], rect[1], rect[2], rect[3]);
    ctx.clip();
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(scratch, rect[0], rect[1], rect[2], rect[3]);
    ctx.restore();
  }

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
   * matplotlib's legend at "upper right" of `ax` for marker entries [{label, color, size}],
   * `ncols` columns: a white, 80 % opaque box with a light grey rounded frame; each entry a
   * marker centred in a handle 2 font sizes long, then its label (fig.text). Spacings in
   * font sizes: borderpad 0.4, handletextpad `textPad`, columnspacing 2, borderaxespad
   * `axesPad`.
   */
  function legend(fig, ax, entries, size, ncols, textPad, axesPad) {
    var ctx = fig.ctx;
    var rows = Math.ceil(entries.length / ncols);
    var columns = [];
    for (var c = 0; c * rows < entries.length; c++) {
      columns.push(entries.slice(c * rows, (c + 1) * rows));
    }
    var widths = columns.map(function (column) {
      return column.reduce(function (w, e) {
        return Math.max(w, 2 * size + textPad * size + fig.measure(e.label, size));
      }, 0);
    });
    var pad = 0.4 * size;
    var rowHeight = 1.2 * size;
    var width = 2 * pad + widths.reduce(function (s, w) { return s + w; }, 0) +
      2 * size * (columns.length - 1);
    var height = 2 * pad + rows * rowHeight + 0.5 * size * (rows - 1);
    var right = ax.left + ax.width - axesPad * size;
    var top = ax.top + axesPad * size;
    var left = right - width;
    var radius = 0.2 * size;
    ctx.save();
    ctx.beginPath();
    ctx.moveTo(left + radius, top);
    ctx.arcTo(right, top, right, top + height, radius);
    ctx.arcTo(right, top + height, left, top + height, radius);
    ctx.arcTo(left, top + height, left, top, radius);
    ctx.arcTo(left, top, right, top, radius);
    ctx.closePath();
    ctx.fillStyle = "rgba(255, 255, 255, 0.8)";
    ctx.fill();
    ctx.strokeStyle = "#cccccc";
    ctx.lineWidth = PT;
    ctx.stroke();
    ctx.restore();
    var x = left + pad;
    columns.forEach(function (column, k) {
      column.forEach(function (e, r) {
        var y = top + pad + r * (rowHeight + 0.5 * size) + rowHeight / 2;
        ctx.save();
        ctx.beginPath();
        ctx.arc(x + size, y, e.size / 2, 0, 2 * Math.PI);
        ctx.fillStyle = e.color;
        ctx.fill();
        ctx.restore();
        fig.text(x + 2 * size + textPad * size, y, e.label, { size: size, baseline: "middle" });
      });
      x += widths[k] + 2 * size;
    });
  }

  /**
   * book.figures._base.inset_colorbar: a colour bar just right of `ax` (a gap of 4 % of its
   * width, 5 % wide, its full height) over [0, vmax], its axis widened to show a tick beyond
   * vmax (as matplotlib widens it: the bar then stops short of the top), ticks and labels on
   * its right. Returns the bar's axes.
   */
  function colorbar(fig, ax, colors, vmax, ticks, labels, tickPx) {
    var P = window.posencPlot;
    var W = fig.width;
    var H = fig.height;
    var gap = 0.04 * ax.width;
    var barW = Math.max(8, 0.05 * ax.width);
    var bar = fig.axes([(ax.left + ax.width + gap) / W, (H - ax.top - ax.height) / H, barW / W,
      ax.height / H]);
    var top = Math.max(vmax, Math.max.apply(null, ticks));
    bar.xlim(0, 1).ylim(0, top);
    var ramp = new Float64Array(256);
    for (var k = 0; k < 256; k++) ramp[k] = ((255 - k + 0.5) / 256) * vmax;
    imageLut(fig, [bar.left, bar.py(vmax), bar.width, bar.py(0) - bar.py(vmax)], ramp, 256, 1,
      colors, 0, vmax);
    var ctx = fig.ctx;
    ctx.save();
    ctx.strokeStyle = "#000000";
    ctx.lineWidth = 0.8 * PT;
    ctx.strokeRect(bar.left, bar.top, bar.width, bar.height);
    ctx.beginPath();
    var right = bar.left + bar.width;
    ticks.forEach(function (t) {
      ctx.moveTo(right, bar.py(t));
      ctx.lineTo(right + P.TICK_LENGTH, bar.py(t));
    });
    ctx.stroke();
    ctx.restore();
    ticks.forEach(function (t, k2) {
      fig.text(right + P.TICK_LENGTH + P.TICK_PAD, bar.py(t), labels[k2], {
        size: tickPx, baseline: "middle",
      });
    });
    return bar;
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
    var dist = pyFixed(m.dist, 3);
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
    var stepLine = "smallest neighbour step: " + pyFixed(m.step, 3);
    var heatTitle = "distance \u2016PE(i) \u2212 PE(j)\u2016";

    var span = high - low || 1;
    var ylim = [low - 0.08 * span, high + 0.35 * span];
    var xlim = [-0.05 * (n - 1), 1.05 * (n - 1)];
    var yTicks = fewTicksBetween(low, high);
    var yFormat = scalarLabels(yTicks, ylim);
    var yLabels = yFormat.labels;
    var cells = indexTicks(n);
    var cellLabels = scalarLabels(cells, [-0.5, n - 0.5]).labels;
    var barTicks = fewTicksBetween(0, m.top);
    var barFormat = scalarLabels(barTicks, [0, Math.max(m.top, Math.max.apply(null, barTicks))]);
    var barLabels = barFormat.labels;

    // -- layout, in CSS px, for the width the canvas is shown at
    var TICK = 12;
    var LABEL = 13;
    var TITLE = 13;
    var LEGEND = 12;
    var width = window.posencPlot.layoutWidth(canvas);
    var widest = function (labels) {
      return labels.reduce(function (w, t) { return Math.max(w, P.measure(t, TICK)); }, 0);
    };
    var aside = function (labels) {
      return 4 + LABEL + P.LABEL_PAD + widest(labels) + P.TICK_PAD + P.TICK_LENGTH;
    };
    var codeAside = aside(yLabels);
    var heatAside = aside(cellLabels);
    var barRight = P.TICK_LENGTH + P.TICK_PAD + widest(barLabels) + 6; // right of the bar
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
    var W = fig.width;
    var axesAt = function (box) {
      var ax = fig.axes([box[0] / W, (height - box[1] - box[3]) / height, box[2] / W,
        box[3] / height]);
      ax.tickPx = TICK;
      ax.labelPx = LABEL;
      ax.titlePx = TITLE;
      return ax;
    };

    // -- left: the code of each position, the closest pair circled
    var codes = axesAt(boxes[0]);
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
      entries.push({ label: names[k], color: color, size: dot });
      if (mark) {
        cycle++;
        markers(codes, [i, j], [channel[i], channel[j]], 10 * PT, RED, 2 * PT);
      }
    });
    legend(fig, codes, entries, LEGEND, 2, 0.2, 0.3);
    codes.xticks(cells, cellLabels).yticks(yTicks, yLabels);
    codes.xlabel("position p").ylabel("code value").title(lines.code);
    codes.draw();
    if (yFormat.offset) {
      fig.text(codes.left, codes.top - P.TITLE_PAD, yFormat.offset, { size: TICK });
    }

    // -- right: the distance between every pair of codes, sampled at the device's pixels
    var heat = axesAt(boxes[1]);
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
    imageLut(fig, [heat.left, heat.top, heat.width, heat.height], shown, rows, cols, magma(), 0,
      m.top);
    heat.xticks(cells, cellLabels).yticks(cells, cellLabels);
    heat.xlabel("j").ylabel("i").title(lines.heat);
    heat.draw();
    var bar = colorbar(fig, heat, magma(), m.top, barTicks, barLabels, TICK);
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
