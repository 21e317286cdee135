// SPDX-License-Identifier: MIT (see LICENSE at the root of the book's repository)
//
// drawers/sinusoidal.js: chapter 3's live explorer (book/explorers/sinusoidal.py), drawn with
// posenc's JavaScript twin (window.posenc) and plot.js (window.posencPlot); set up by
// explorers.js.
(function () {
  "use strict";

  /**
   * Chapter 3: the sinusoidal table (left) and PE(p)·PE(p+k) = Σ_i cos(k·ω_i) for k in [-n, n]
   * (right), as book.figures.sinusoidal.sinusoidal_explorer_figure draws them; stacked on a
   * narrow screen. values: {dim, base, positions}.
   */
  window.posencExplorers = window.posencExplorers || {};
  window.posencExplorers.sinusoidal = function (canvas, values) {
    var P = window.posencPlot;
    var T = window.posenc;
    var dim = values.dim;
    var base = values.base;
    var n = values.positions;
    var table = T.sinusoidalEncoding(n, dim, base); // [n][d]
    var omega = T.sinusoidalFrequencies(dim, base); // [d/2]
    var offsets = new Float64Array(2 * n + 1);
    var dot = new Float64Array(2 * n + 1);
    for (var k = -n; k <= n; k++) {
      var s = 0;
      for (var i = 0; i < omega.length; i++) s += Math.cos(k * omega[i]);
      offsets[k + n] = k;
      dot[k + n] = s;
    }
    var shown = P.blockRows(table, 160);

    var TICK = 12;
    var LABEL = 13;
    var TITLE = 13;
    var width = P.layoutWidth(canvas);
    var leftTicks = P.tableTicks(n);
    var dotYTicks = [Math.floor(-dim / 4), 0, Math.floor(dim / 4), Math.floor(dim / 2)];
    var aside = function (tickLabels) {
      // room left of an axes: its tick labels, the ticks, the label (rotated), margins
      return 4 + LABEL + P.LABEL_PAD + P.widest(tickLabels, TICK) + P.TICK_PAD + P.TICK_LENGTH;
    };
    var leftAside = aside(leftTicks.map(P.tickLabel));
    var rightAside = aside(dotYTicks.map(P.tickLabel));
    var titles = [
      "PE table: " + n + " positions \u00d7 " + dim + " channels",
      "PE(p)\u00b7PE(p+k), d = " + dim + ", base = " + P.formatG(base),
    ];
    var below = P.TICK_LENGTH + P.TICK_PAD + 1.2 * TICK + P.LABEL_PAD + 1.2 * LABEL + 4;
    var right = 16; // half the widest x tick label overhangs the last axes
    var wide = width >= 560;
    var boxes = []; // [left, top, width, height, titleLines] in CSS px
    var height;
    if (wide) {
      var panelW = (width - leftAside - rightAside - 14 - right) / 2;
      var panelH = Math.max(170, Math.min(300, Math.round(0.31 * width)));
      // a title may overhang its axes into the margins on both sides (centred)
      var spare = [Math.min(leftAside, (14 + rightAside) / 2), Math.min((14 + rightAside) / 2,
        right)];
      var lines = titles.map(function (t, j) { return P.wrap(t, TITLE, panelW + 2 * spare[j]); });
      var top = 6 + P.TITLE_PAD + 1.2 * TITLE * Math.max(lines[0].length, lines[1].length);
      boxes.push([leftAside, top, panelW, panelH, lines[0]]);
      boxes.push([leftAside + panelW + 14 + rightAside, top, panelW, panelH, lines[1]]);
      height = Math.ceil(top + panelH + below);
    } else {
      var left = Math.max(leftAside, rightAside);
      var w = Math.max(40, width - left - right);
      var y = 0;
      [0.62, 0.55].forEach(function (shape, j) {
        var titleLines = P.wrap(titles[j], TITLE, w + 2 * Math.min(left, right));
        var top = y + 6 + P.TITLE_PAD + 1.2 * TITLE * titleLines.length;
        var h = Math.max(130, Math.min(260, Math.round(shape * w)));
        boxes.push([left, top, w, h, titleLines]);
        y = top + h + below;
      });
      height = Math.ceil(y);
    }

    var fig = P.figure(canvas, height);
    var text = { tick: TICK, label: LABEL, title: TITLE };

    var left = fig.axesAt(boxes[0], text);
    left.xlim(-0.5, dim - 0.5).ylim(n - 0.5, -0.5);
    left.image(shown.values, shown.rows, shown.cols, {
      cmap: "RdBu_r", vmin: -1, vmax: 1, extent: [-0.5, dim - 0.5, n - 0.5, -0.5],
    });
    left.xticks(P.tableTicks(dim)).yticks(leftTicks);
    left.xlabel("channel").ylabel("position p").title(boxes[0][4]);
    left.draw();

    var half = dim / 2;
    var rightAx = fig.axesAt(boxes[1], text);
    rightAx.xlim(-n, n);
    rightAx.ylim(Math.min(-0.7 * half, dotYTicks[0]), Math.max(1.05 * half, dotYTicks[3]));
    rightAx.plot(offsets, dot, { color: "#000000", width: 1.67 });
    rightAx.axvline(0);
    rightAx.axhline(0);
    rightAx.xticks(P.linspace(-n, n, 5).map(P.roundHalfEven)).yticks(dotYTicks);
    rightAx.xlabel("offset k").ylabel("PE(p)\u00b7PE(p+k)").title(boxes[1][4]);
    rightAx.draw();

    fig.finish();
    canvas.posencData = { values: values, table: table, offsets: offsets, dot: dot };
  };
})();
