// SPDX-License-Identifier: MIT (see LICENSE at the root of the book's repository)
//
// drawers/alibi.js: chapter 9's live ALiBi explorer (book/explorers/alibi.py), drawn with
// posenc's JavaScript twin (window.posenc) and plot.js (window.posencPlot); set up by
// explorers.js.
(function () {
  "use strict";

  /** Python's round(x, 2) for the slopes' exponents: correctly rounded, ties to even. */
  function round2(x) {
    var y = x * 100;
    if (Math.abs(y % 1) === 0.5 && y / 100 === x) {
      var r = Math.round(y);
      return (r % 2 !== 0 ? r - 1 : r) / 100;
    }
    return Number(x.toFixed(2));
  }

  /** A slope as a power of two in plain text, as book.figures.alibi._slope_label: "2^-3". */
  function slopeLabel(slope) {
    return "2^" + window.posencPlot.formatG(round2(Math.log2(slope)));
  }

  /** One colour per head, as book.figures.alibi._head_colours: viridis at linspace(0, 0.9, h)
   * (matplotlib's Colormap.__call__: bin floor(256·x)). */
  function headColours(h) {
    var lut = window.posencPlot.colormap("viridis");
    var out = [];
    var step = h > 1 ? 0.9 / (h - 1) : 0;
    for (var k = 0; k < h; k++) {
      var bin = Math.min(255, Math.floor(k * step * 256));
      out.push("rgb(" + lut[3 * bin] + "," + lut[3 * bin + 1] + "," + lut[3 * bin + 2] + ")");
    }
    return out;
  }

  /** Lines through (xs[k][q], ys[k][q]), one per colour, drawn in order under one clip (a
   * LineCollection): far faster than a plot() per head. */
  function drawLines(ax, xs, ys, colours, width) {
    var ctx = ax.clip();
    ctx.lineWidth = width;
    ctx.lineJoin = "round";
    for (var k = 0; k < colours.length; k++) {
      ctx.beginPath();
      for (var q = 0; q < xs[k].length; q++) {
        if (q === 0) ctx.moveTo(ax.px(xs[k][q]), ax.py(ys[k][q]));
        else ctx.lineTo(ax.px(xs[k][q]), ax.py(ys[k][q]));
      }
      ctx.strokeStyle = colours[k];
      ctx.stroke();
    }
    ctx.restore();
  }

  /**
   * Chapter 9: one query in the middle of n tokens. Left: its ALiBi bias to every key, one line
   * per head (causal: the keys after it masked, shaded); right: its attention when every
   * content logit is equal; above, the heads' slopes. As
   * book.figures.alibi.alibi_explorer_figure draws them; stacked on a narrow screen.
   * values: {heads, causal, tokens}.
   */
  window.posencExplorers = window.posencExplorers || {};
  window.posencExplorers.alibi = function (canvas, values) {
    var P = window.posencPlot;
    var T = window.posenc;
    var h = values.heads;
    var causal = values.causal;
    var n = values.tokens;
    var i = Math.floor(n / 2); // the query, in the middle
    var slopes = T.alibiSlopes(h); // [h]
    var distances = T.alibiDistances(1, n, causal, i)[0]; // [n]: max(i − j, 0) or |i − j|
    var keys = new Float64Array(n); // offsets j − i
    for (var j = 0; j < n; j++) keys[j] = j - i;
    var last = causal ? i : n - 1; // the last key the query sees
    var bias = []; // [h][n]: −m·D, as posenc.alibi.alibi_bias
    var weights = []; // [h][n]: softmax of the bias over the keys it may see, 0 for the others
    for (var k = 0; k < h; k++) {
      var b = new Float64Array(n);
      var w = new Float64Array(n);
      var m = slopes[k];
      var top = -Infinity;
      for (j = 0; j < n; j++) {
        b[j] = m * (0 - distances[j]);
        if (j <= last && b[j] > top) top = b[j];
      }
      var sum = 0;
      for (j = 0; j <= last; j++) {
        w[j] = Math.exp(b[j] - top);
        sum += w[j];
      }
      for (j = 0; j <= last; j++) w[j] /= sum;
      bias.push(b);
      weights.push(w);
    }
    var steepest = Math.max.apply(null, slopes);
    var floor = -steepest * i;
    var colours = headColours(h);
    var labels = slopes.map(slopeLabel);

    var TICK = 12;
    var TITLE = 13;
    var NOTE = 12;
    var width = window.posencPlot.layoutWidth(canvas);
    var yTicksLeft = [P.roundHalfEven(floor), 0].filter(function (t, q, all) {
      return all.indexOf(t) === q;
    }).sort(function (a, c) { return a - c; });
    var aside = function (ticks) {
      // room left of an axes: its tick labels, the ticks, a margin
      return Math.max(26, 6 + P.widest(ticks.map(P.tickLabel), TICK) + P.TICK_PAD +
        P.TICK_LENGTH);
    };
    var leftAside = aside(yTicksLeft);
    var rightAside = aside([0, 1]);
    var right = 16; // half the widest x tick label overhangs the axes
    var below = P.TICK_LENGTH + P.TICK_PAD + 1.2 * TICK + P.LABEL_PAD + 1.2 * TITLE + 4;
    var kind = causal ? "causal" : "symmetric";
    var titles = [
      ["bias of the middle query,", h + " head" + (h > 1 ? "s" : "") + " (" + kind + ")"],
      ["its attention when", "only the bias speaks"],
    ];
    // the slopes, in two halves as the figure writes them, each wrapped to the width
    var half = Math.floor((labels.length + 1) / 2);
    var first = labels.slice(0, half).join(", ");
    var second = labels.slice(half).join(", ");
    var slopeLines = [
      "slopes m, head 1 (dark) to head " + h + " (light):",
    ].concat(P.wrap(second ? first + "," : first, NOTE, width - 12));
    if (second) slopeLines = slopeLines.concat(P.wrap(second, NOTE, width - 12));
    var slopesHeight = 6 + 1.2 * NOTE * slopeLines.length;

    var boxes = []; // [left, top, width, height, titleLines] in CSS px
    var height;
    if (width >= 560) {
      var gap = 24;
      var panelW = (width - leftAside - rightAside - gap - right) / 2;
      var panelH = Math.max(160, Math.min(260, Math.round(0.72 * panelW)));
      var lines = titles.map(function (t) { return P.wrap(t, TITLE, panelW + gap); });
      var top = slopesHeight + 10 + P.TITLE_PAD + 1.2 * TITLE *
        Math.max(lines[0].length, lines[1].length);
      boxes.push([leftAside, top, panelW, panelH, lines[0]]);
      boxes.push([leftAside + panelW + gap + rightAside, top, panelW, panelH, lines[1]]);
      height = Math.ceil(top + panelH + below);
    } else {
      var left = Math.max(leftAside, rightAside);
      var w = Math.max(40, width - left - right);
      var y = slopesHeight;
      titles.forEach(function (t) {
        var titleLines = P.wrap(t, TITLE, w + 2 * Math.min(left, right));
        var boxTop = y + 10 + P.TITLE_PAD + 1.2 * TITLE * titleLines.length;
        var boxH = Math.max(150, Math.min(240, Math.round(0.62 * w)));
        boxes.push([left, boxTop, w, boxH, titleLines]);
        y = boxTop + boxH + below;
      });
      height = Math.ceil(y);
    }

    var fig = P.figure(canvas, height);
    fig.textLines(fig.width / 2, 6, slopeLines, { size: NOTE, align: "center", baseline: "top" });
    var axesAt = function (box) {
      var ax = fig.axesAt(box, { tick: TICK, label: TITLE, title: TITLE });
      ax.xlim(-i - 0.5, i + 0.5);
      if (causal) ax.axvspan(0.5, i + 0.5, "#e6e6e6");
      ax.axvline(0);
      ax.xticks([-i, 0, i]).xlabel("key offset j \u2212 i").title(box[4]);
      return ax;
    };

    // the bias of the keys the query sees: straight from the first key to the query and on to
    // the last, so those three points draw every key's; the attention: every key it sees, the
    // next (0, masked) and the last (0 too, on the same straight line)
    var corners = [0, i, last].filter(function (j, q, all) { return all.indexOf(j) === q; });
    var drawn = [];
    for (j = 0; j <= Math.min(last + 1, n - 1); j++) drawn.push(j);
    if (drawn[drawn.length - 1] !== n - 1) drawn.push(n - 1);
    var pick = function (rows, at) {
      return rows.map(function (row) { return at.map(function (j) { return row[j]; }); });
    };
    var keysAt = function (at) {
      var row = at.map(function (j) { return keys[j]; });
      return bias.map(function () { return row; });
    };
    var cornerKeys = keysAt(corners);
    var drawnKeys = keysAt(drawn);

    var biasAx = axesAt(boxes[0]);
    biasAx.ylim(1.05 * floor, -0.05 * floor);
    drawLines(biasAx, cornerKeys, pick(bias, corners), colours, 1.67);
    biasAx.yticks(yTicksLeft);
    biasAx.draw();

    var attentionAx = axesAt(boxes[1]);
    attentionAx.ylim(0, 1);
    drawLines(attentionAx, drawnKeys, pick(weights, drawn), colours, 1.67);
    attentionAx.yticks([0, 1]);
    attentionAx.draw();
    if (causal) {
      // text over the lines, as matplotlib draws it (zorder 3)
      // centred at x = i / 2 and half the axes' height (va="center")
      [biasAx, attentionAx].forEach(function (ax) {
        fig.textLines(ax.px(i / 2), ax.top + ax.height / 2 - (1.2 * NOTE) / 2,
          ["masked", "(future)"], { size: NOTE, align: "center", baseline: "middle",
            color: "#737373" });
      });
    }

    fig.finish();
    canvas.posencData = {
      values: values, query: i, slopes: slopes, labels: labels, keys: keys, bias: bias,
      weights: weights, floor: floor, yTicks: yTicksLeft, colours: colours,
    };
  };
})();
