// SPDX-License-Identifier: MIT (see LICENSE at the root of the book's repository)
//
// drawers/rotary.js: chapter 9's live explorer (book/explorers/rotary.py), drawn with posenc's
// JavaScript twin (window.posenc) and plot.js (window.posencPlot); set up by explorers.js.
(function () {
  "use strict";

  var PT = 100 / 72; // CSS px per point: the book's figures are shown at 100 CSS px per inch
  // the three pairs shown, fastest first (book.figures.rotary._SHOWN_PAIRS): colour (tab10's C3,
  // C1, C0), radius of its circle, and the line style of its cosine on the score panel (not
  // told apart by colour alone)
  var SHOWN = [
    { colour: "#d62728", rgb: "214, 39, 40", radius: 1.0, dash: "-" },
    { colour: "#ff7f0e", rgb: "255, 127, 14", radius: 0.68, dash: "--" },
    { colour: "#1f77b4", rgb: "31, 119, 180", radius: 0.36, dash: ":" },
  ];
  var GREY_BAR = "#a6a6a6"; // matplotlib's "0.65"
  var RING = "#e0e0e0"; // "0.88"
  var ZERO = "#999999"; // "0.6"
  var BINS = 100; // log bins of the score panel (rotary_explorer_figure's _log_bins(x, y, 100))
  var BLOCK = 128; // offsets between exact restarts of the rotation recurrence

  /**
   * The normalised score of a key equal to the query, Σ_i cos(r·θ_i) / (d/2), at every offset
   * r = 1 .. context − 1 (book.figures.rotary.rotary_decay_curves(r, d, base)["matched"]).
   * Each pair's (cos rθ, sin rθ) is turned by θ one offset at a time, and restarted from
   * Math.cos(r·θ), Math.sin(r·θ) every BLOCK offsets, so that the error stays within a few
   * units of float64's rounding of r·θ, at a fraction of the cost of a cosine per offset and
   * pair; four pairs at a time, whose turns do not wait for each other.
   */
  function matchedScore(theta, context) {
    var n = context - 1;
    var half = theta.length;
    var sum = new Float64Array(n);
    for (var i = 0; i < half; i += 4) {
      // pairs i .. i+3; a missing one (past d/2) has weight 0
      var t0 = theta[i];
      var t1 = i + 1 < half ? theta[i + 1] : 0;
      var t2 = i + 2 < half ? theta[i + 2] : 0;
      var t3 = i + 3 < half ? theta[i + 3] : 0;
      var w1 = i + 1 < half ? 1 : 0;
      var w2 = i + 2 < half ? 1 : 0;
      var w3 = i + 3 < half ? 1 : 0;
      var a0 = Math.cos(t0), b0 = Math.sin(t0), a1 = Math.cos(t1), b1 = Math.sin(t1);
      var a2 = Math.cos(t2), b2 = Math.sin(t2), a3 = Math.cos(t3), b3 = Math.sin(t3);
      for (var r0 = 1; r0 <= n; r0 += BLOCK) {
        var c0 = Math.cos(r0 * t0), s0 = Math.sin(r0 * t0);
        var c1 = w1 * Math.cos(r0 * t1), s1 = w1 * Math.sin(r0 * t1);
        var c2 = w2 * Math.cos(r0 * t2), s2 = w2 * Math.sin(r0 * t2);
        var c3 = w3 * Math.cos(r0 * t3), s3 = w3 * Math.sin(r0 * t3);
        var end = Math.min(r0 + BLOCK, n + 1);
        for (var r = r0; r < end; r++) {
          sum[r - 1] += (c0 + c1) + (c2 + c3);
          var n0 = c0 * a0 - s0 * b0;
          s0 = s0 * a0 + c0 * b0;
          c0 = n0;
          var n1 = c1 * a1 - s1 * b1;
          s1 = s1 * a1 + c1 * b1;
          c1 = n1;
          var n2 = c2 * a2 - s2 * b2;
          s2 = s2 * a2 + c2 * b2;
          c2 = n2;
          var n3 = c3 * a3 - s3 * b3;
          s3 = s3 * a3 + c3 * b3;
          c3 = n3;
        }
      }
    }
    for (var k = 0; k < n; k++) sum[k] /= half;
    return sum;
  }

  /** cos(r·θ) at r = 1 .. context − 1: one pair's own term. */
  function pairCosine(t, context) {
    var out = new Float64Array(context - 1);
    for (var r = 1; r < context; r++) out[r - 1] = Math.cos(r * t);
    return out;
  }

  /**
   * book.figures.rotary._log_bins(x, y, bins) for x = 1 .. n and several curves y: the bins'
   * edges are numpy's logspace(0, log10(n + 1), bins + 1); each non-empty bin gives the mean
   * of its offsets (centre) and the min, mean and max of each curve over them.
   */
  function logBins(n, curves, bins) {
    var stop = Math.log10(n + 1);
    var step = stop / bins; // numpy's linspace: j·step, the last exactly stop
    var edges = new Float64Array(bins + 1);
    for (var j = 0; j < bins; j++) edges[j] = Math.pow(10, j * step);
    edges[bins] = Math.pow(10, stop);
    var starts = [];
    var which = 0; // numpy's digitize: the number of edges <= x
    var previous = -1;
    for (var x = 1; x <= n; x++) {
      while (which <= bins && edges[which] <= x) which++;
      if (which !== previous) {
        starts.push(x - 1);
        previous = which;
      }
    }
    var count = starts.length;
    var centre = new Float64Array(count);
    var lo = curves.map(function () { return new Float64Array(count); });
    var mean = curves.map(function () { return new Float64Array(count); });
    var hi = curves.map(function () { return new Float64Array(count); });
    for (var b = 0; b < count; b++) {
      var first = starts[b];
      var last = b + 1 < count ? starts[b + 1] : n; // exclusive
      var size = last - first;
      var xs = 0;
      for (var k = first; k < last; k++) xs += k + 1;
      centre[b] = xs / size;
      for (var c = 0; c < curves.length; c++) {
        var y = curves[c];
        var least = y[first];
        var most = y[first];
        var total = 0;
        for (var m = first; m < last; m++) {
          var v = y[m];
          total += v;
          if (v < least) least = v;
          if (v > most) most = v;
        }
        lo[c][b] = least;
        mean[c][b] = total / size;
        hi[c][b] = most;
      }
    }
    return { centre: centre, lo: lo, mean: mean, hi: hi };
  }

  // -- drawing helpers plot.js lacks --------------------------------------------------------

  /** fill_between(xs, lo, hi): the band between two curves, in `fill` (a CSS colour). */
  function fillBetween(ax, xs, lo, hi, fill) {
    var ctx = ax.clip();
    ctx.beginPath();
    for (var i = 0; i < xs.length; i++) {
      if (i === 0) ctx.moveTo(ax.px(xs[i]), ax.py(lo[i]));
      else ctx.lineTo(ax.px(xs[i]), ax.py(lo[i]));
    }
    for (var j = xs.length - 1; j >= 0; j--) ctx.lineTo(ax.px(xs[j]), ax.py(hi[j]));
    ctx.closePath();
    ctx.fillStyle = fill;
    ctx.fill();
    ctx.restore();
  }

  /** vlines(xs, bottom, tops) as adjacent bars one x unit wide, each in its colour. */
  function bars(ax, xs, bottom, tops, colours) {
    var ctx = ax.clip();
    var dpr = ax.fig.dpr;
    var snap = function (x) { return Math.round(x * dpr) / dpr; }; // no seams between bars
    var y0 = ax.py(bottom);
    for (var i = 0; i < xs.length; i++) {
      if (!(tops[i] > bottom)) continue;
      var left = snap(ax.px(xs[i] - 0.5));
      var right = Math.max(snap(ax.px(xs[i] + 0.5)), left + 1 / dpr);
      var y1 = ax.py(tops[i]);
      ctx.fillStyle = colours[i];
      ctx.fillRect(left, Math.min(y0, y1), right - left, Math.abs(y1 - y0));
    }
    ctx.restore();
  }

  /**
   * Chapter 9: RoPE's rotation speeds and the score of a matching key, as
   * book.figures.rotary.rotary_explorer_figure draws them. Left: the fastest, a middle and the
   * slowest pair (outer to inner circle): the point (cos mθ_i, sin mθ_i) at m = 0..15 (dots) and
   * the arc it sweeps over the context; middle: the full turns of every pair over the context
   * (log scale); right: the normalised score of a key equal to the query against log10 of the
   * offset, and the three pairs' own cos rθ_i, summarised per log bin (mean line, swept range
   * shaded). Side by side on a wide canvas, stacked on a narrow one. values: {dim, base,
   * context}.
   */
  window.posencExplorers = window.posencExplorers || {};
  window.posencExplorers.rotary = function (canvas, values) {
    var P = window.posencPlot;
    var T = window.posenc;
    var dim = values.dim;
    var base = values.base;
    var context = values.context;
    var half = dim / 2;
    var pairs = [0, Math.floor(half / 2), half - 1];
    var theta = T.sinusoidalFrequencies(dim, base); // [d/2]
    var turns = theta.map(function (t) { return (context * t) / (2 * Math.PI); }); // [d/2]
    var dots = T.rotaryAngles(16, dim, base); // [16][d/2]: m·θ_i
    var matched = matchedScore(theta, context); // [context − 1]
    var own = pairs.map(function (i) { return pairCosine(theta[i], context); });
    var bins = logBins(context - 1, own.concat([matched]), BINS);
    var logCentre = bins.centre.map(Math.log10);

    var TICK = 12;
    var LABEL = 13;
    var TITLE = 12;
    var width = window.posencPlot.layoutWidth(canvas);
    var turnTicks = [-4, 0, 4];
    var turnLabels = turnTicks.map(P.powerOfTen);
    var top10 = Math.floor(Math.log10(context) + 1e-12);
    var decades = [];
    for (var e = 0; e <= top10; e++) decades.push(e);
    var aside = function (tickLabels) {
      return 4 + P.widest(tickLabels, TICK) + P.TICK_PAD + P.TICK_LENGTH;
    };
    var turnsAside = aside(turnLabels);
    var scoreAside = aside(["\u22121", "0", "1"]);
    var circleTitle = ["pairs " + pairs.join(", ") + " (out to in)", "dots: m = 0\u201315",
      "arcs: m < " + context];
    var turnsTitle = ["turns over " + context + " positions,", "d = " + dim + ", base = " +
      P.formatG(base)];
    var scoreTitle = ["normalised score, key =", "query (black), and 3 pairs"];
    var turnsLabel = ["pair i = 0 \u2026 " + (half - 1) + ",", "fastest to slowest"];
    var belowTurns = P.TICK_LENGTH + P.LABEL_PAD + 2 * 1.2 * LABEL;
    var belowScore = P.TICK_LENGTH + P.TICK_PAD + 1.2 * TICK + P.LABEL_PAD + 1.2 * LABEL;
    var right = 6 + P.widest([P.powerOfTen(top10)], TICK) / 2;
    var boxes = {}; // name -> [left, top, width, height, title lines] in CSS px
    var height;
    if (width >= 560) {
      var gap = 14;
      var margin = 22; // left of the circle (the axes keep clear of the canvas's edges)
      var avail = width - margin - gap - turnsAside - gap - scoreAside - right;
      var w = avail / 2.9; // the circle 0.9 of a panel's width
      var side = Math.min(0.9 * w, 260);
      var h = Math.max(130, Math.min(260, Math.round(0.92 * w)));
      var lines = [
        P.wrap(circleTitle, TITLE, side + 2 * Math.min(margin, gap / 2)),
        P.wrap(turnsTitle, TITLE, w + gap),
        P.wrap(scoreTitle, TITLE, w + gap / 2 + right),
      ];
      var most = Math.max(lines[0].length, lines[1].length, lines[2].length);
      var top = 6 + P.TITLE_PAD + 1.2 * TITLE * most;
      var circleLeft = margin + (0.9 * w - side) / 2;
      boxes.circle = [circleLeft, top + Math.max(0, h - side), side, side, lines[0]];
      var turnsLeft = margin + 0.9 * w + gap + turnsAside;
      boxes.turns = [turnsLeft, top, w, h, lines[1]];
      boxes.score = [turnsLeft + w + gap + scoreAside, top, w, h, lines[2]];
      height = Math.ceil(top + h + Math.max(belowTurns, belowScore) + 6);
    } else {
      var left = Math.max(turnsAside, scoreAside);
      var wide = Math.max(40, width - left - right);
      var circleSide = Math.max(100, Math.min(240, width - 16, Math.round(0.62 * wide)));
      var circleLines = P.wrap(circleTitle, TITLE, width - 16);
      var y = 6 + P.TITLE_PAD + 1.2 * TITLE * circleLines.length;
      boxes.circle = [(width - circleSide) / 2, y, circleSide, circleSide, circleLines];
      y += circleSide + 10;
      var hh = Math.max(130, Math.min(240, Math.round(0.6 * wide)));
      [["turns", turnsTitle, belowTurns], ["score", scoreTitle, belowScore]].forEach(
        function (panel) {
          var titleLines = P.wrap(panel[1], TITLE, wide + 2 * Math.min(left, right));
          var panelTop = y + 6 + P.TITLE_PAD + 1.2 * TITLE * titleLines.length;
          boxes[panel[0]] = [left, panelTop, wide, hh, titleLines];
          y = panelTop + hh + panel[2] + 6;
        });
      height = Math.ceil(y);
    }

    var fig = P.figure(canvas, height);
    var text = { tick: TICK, label: LABEL, title: TITLE };

    // left: the three pairs on their circles (no frame, equal aspect)
    var circ = fig.axesAt(boxes.circle, text);
    circ.xlim(-1.15, 1.15).ylim(-1.15, 1.15);
    var ring = P.linspace(0, 2 * Math.PI, 120);
    SHOWN.forEach(function (shown) {
      circ.plot(ring.map(function (a) { return shown.radius * Math.cos(a); }),
        ring.map(function (a) { return shown.radius * Math.sin(a); }),
        { color: RING, width: 0.8 * PT });
    });
    SHOWN.forEach(function (shown, j) {
      var sweep = Math.min(theta[pairs[j]] * (context - 1), 2 * Math.PI);
      var arc = P.linspace(0, 1, 120).map(function (f) { return f * sweep; });
      circ.plot(arc.map(function (a) { return shown.radius * Math.cos(a); }),
        arc.map(function (a) { return shown.radius * Math.sin(a); }),
        { color: "rgba(" + shown.rgb + ", 0.45)", width: 2.5 * PT });
    });
    SHOWN.forEach(function (shown, j) {
      var at = dots.map(function (row) { return row[pairs[j]]; });
      circ.markers(at.map(function (a) { return shown.radius * Math.cos(a); }),
        at.map(function (a) { return shown.radius * Math.sin(a); }), {
          size: Math.sqrt(14) * PT, color: shown.colour, edge: "#ffffff", edgeWidth: 0.4 * PT,
          clip: false,
        }); // scatter's s = 14 pt², a white 0.4 pt edge
    });
    fig.textLines(boxes.circle[0] + boxes.circle[2] / 2, boxes.circle[1] - P.TITLE_PAD,
      boxes.circle[4], { size: TITLE, align: "center", above: true });

    // middle: full turns of every pair over the context, log10 on a linear axis
    var turnsAx = fig.axesAt(boxes.turns, text);
    turnsAx.xlim(-1, half).ylim(-4, 4);
    turnsAx.axhline(0, { color: "#000000", width: 0.8 * PT, dash: "--" }); // one full turn
    var xs = [];
    var colours = [];
    for (var i = 0; i < half; i++) {
      xs.push(i);
      colours.push(GREY_BAR);
    }
    pairs.forEach(function (p, j) { colours[p] = SHOWN[j].colour; });
    bars(turnsAx, xs, -4, turns.map(Math.log10), colours);
    turnsAx.yticks(turnTicks, turnLabels).title(boxes.turns[4]);
    turnsAx.draw();
    var labelTop = boxes.turns[1] + boxes.turns[3] + P.TICK_LENGTH + P.LABEL_PAD;
    fig.textLines(boxes.turns[0] + boxes.turns[2] / 2, labelTop, turnsLabel, {
      size: LABEL, align: "center", baseline: "top",
    });

    // right: the score against log10(r); the swept ranges, then the mean lines
    var scoreAx = fig.axesAt(boxes.score, text);
    scoreAx.xlim(0, Math.log10(context)).ylim(-1.05, 1.05);
    SHOWN.forEach(function (shown, j) {
      fillBetween(scoreAx, logCentre, bins.lo[j], bins.hi[j], "rgba(" + shown.rgb + ", 0.12)");
    });
    fillBetween(scoreAx, logCentre, bins.lo[3], bins.hi[3], "rgba(0, 0, 0, 0.3)");
    scoreAx.axhline(0, { color: ZERO, width: 0.6 * PT });
    SHOWN.forEach(function (shown, j) {
      scoreAx.plot(logCentre, bins.mean[j], { color: shown.colour, width: 0.7 * PT,
        dash: shown.dash });
    });
    scoreAx.plot(logCentre, bins.mean[3], { color: "#000000", width: 1.2 * PT });
    scoreAx.xticks(decades, decades.map(P.powerOfTen)).yticks([-1, 0, 1]);
    scoreAx.xlabel("offset r (log scale)").title(boxes.score[4]);
    scoreAx.draw();

    fig.finish();
    canvas.posencData = {
      values: values, pairs: pairs, theta: theta, turns: turns, dots: dots, matched: matched,
      own: own, bins: bins,
    };
  };
})();
