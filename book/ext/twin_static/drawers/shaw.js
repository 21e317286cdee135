// SPDX-License-Identifier: MIT (see LICENSE at the root of the book's repository)
//
// drawers/shaw.js: chapter 6's live explorer (book/explorers/shaw.py), drawn with posenc's
// JavaScript twin (window.posenc) and plot.js (window.posencPlot); set up by explorers.js.
(function () {
  "use strict";

  // book._checks.NAMED_POSITIONS: named places as fractions of the sequence
  var NAMED = { first: 0, middle: 0.5, last: 1 };
  // book.figures.shaw._index_colormap at k = 0: the one colour of index 0
  var SINGLE = "#5b8fc9";
  var GREY = "#e6e6e6"; // matplotlib's "0.9" (the window |j − i| <= k − 1)
  var ZERO_LINE = "#666666"; // "0.4"
  var RED = "#ff0000";
  var CLIPPED = "#a40000"; // the note on a query past the end

  /**
   * The query index a control value stands for: book.figures._base.sequence_position for a
   * named place (round((n − 1)·fraction), half to even), and a position at or past the end
   * clipped to the last query, n − 1 (as book.explorers.shaw's render does).
   */
  function queryIndex(query, n) {
    if (typeof query === "string") {
      if (!Object.prototype.hasOwnProperty.call(NAMED, query)) {
        throw new RangeError("query must be one of first, middle, last or a position, got " +
          query);
      }
      return window.posencPlot.roundHalfEven(NAMED[query] * (n - 1));
    }
    if (!Number.isInteger(query) || query < 0) {
      throw new RangeError("query must be a position >= 0, got " + String(query));
    }
    return Math.min(query, n - 1);
  }

  /**
   * book.figures.shaw.shaw_key_bias_row: the key term q_i·w^K_{I_ij}/√d of query i against
   * every key j, from perDistance[r + D] = q·w^K_r/√d, r = −D..D (the page's live data, the
   * figure's seeded random query and table) and the index row I_i (0..2k): row I of the
   * k-table is the full table's row D − k + I.
   */
  function keyBiasRow(perDistance, distance, indexRow, k) {
    var out = new Float64Array(indexRow.length);
    for (var j = 0; j < indexRow.length; j++) out[j] = perDistance[distance - k + indexRow[j]];
    return out;
  }

  /**
   * The value that paints index m (0..2k) with book.figures.shaw._index_colormap's colour
   * through the viridis LUT (vmin 0, vmax 1): the colormap lists viridis(linspace(0, 1,
   * 2k + 1)), and viridis(x) is bin floor(256·x) (x = 1: bin 255), as plot.js's image bins.
   */
  function indexShade(m, k) {
    return m === 2 * k ? 1 : m * (1 / (2 * k));
  }

  /** The colour of bin `bin` of a colour table, as "#rrggbb". */
  function hex(lut, bin) {
    var s = "#";
    for (var c = 0; c < 3; c++) {
      var v = lut[3 * bin + c];
      s += (v < 16 ? "0" : "") + v.toString(16);
    }
    return s;
  }

  /**
   * Chapter 6: the index I_ij = clip(j − i, −k, k) + k, one colour per index, with query i's
   * row outlined (left), and that query's key term q_i·w^K_{I_ij}/√d against the key j (right),
   * as book.figures.shaw.shaw_index_figure draws them; stacked on a narrow screen.
   * values: {n, k, query}; data: {distance: D, bias: q·w^K_r/√d for r = −D..D}.
   */
  window.posencExplorers = window.posencExplorers || {};
  window.posencExplorers.shaw = function (canvas, values, data) {
    var P = window.posencPlot;
    var T = window.posenc;
    var n = values.n;
    var k = values.k;
    var query = values.query;
    var D = data.distance;
    if (!Number.isInteger(k) || k < 0 || k > D) {
      throw new RangeError("k must be an integer from 0 to " + D + ", got " + String(k));
    }
    var i = queryIndex(query, n);
    var clipped = typeof query === "number" && query > n - 1;
    var index = T.shawRelativeIndex(n, n, k); // [n][n], 0..2k
    var shades = new Float64Array(n * n);
    for (var r = 0; r < n; r++) {
      var row = index[r];
      for (var c = 0; c < n; c++) shades[r * n + c] = indexShade(row[c], k);
    }
    var indexRow = index[i];
    var bias = keyBiasRow(data.bias, D, indexRow, k);
    var lut = P.colormap("viridis");
    var colours = indexRow.map(function (m) {
      return k ? hex(lut, Math.min(255, Math.floor(indexShade(m, k) * 256))) : SINGLE;
    });

    var TICK = 12;
    var LABEL = 13;
    var TITLE = 13;
    var NOTE = 12;
    var MINUS = "\u2212";
    var leftTitle = k ? "index I = clip(j " + MINUS + " i, " + MINUS + k + ", " + k + ") + " + k
      : "k = 0: index I = 0 for every pair";
    var caption = "colour: offset j " + MINUS + " i, from " + MINUS + "k (dark) to +k (yellow)";
    var rightTitle = "key term of query i = " + i + ":  q\u00b7w[I]/\u221ad";
    var note = k ? "grey: |j " + MINUS + " i| < " + k + ", one bias per key; outside: flat"
      : "one bias for every key: q\u00b7w\u2080/\u221ad = " + bias[0].toFixed(2);
    var clipNote = clipped ? "query " + query + " \u2265 n = " + n + ": shown for the last, i = " +
      i : null;

    var width = window.posencPlot.layoutWidth(canvas);
    // left of the image: its row labels "0", "n − 1" and the rotated "query i", one column
    var leftAside = 6 + Math.max(P.widest(["0", String(n - 1)], TICK), 1.2 * LABEL) + 5;
    var yTicks = [-3, 0, 3];
    var rightAside = P.TICK_LENGTH + P.TICK_PAD + P.widest(yTicks.map(P.tickLabel), TICK) + 6;
    var right = 12; // half the widest x tick label overhangs the bars' axes
    var imageBelow = 5 + 1.2 * LABEL; // "0", "key j", "n − 1" under the image
    var barsBelow = P.TICK_LENGTH + P.TICK_PAD + 1.2 * TICK + P.LABEL_PAD + 1.2 * LABEL + 4;
    var header = function (titleLines, notes) {
      var count = notes.reduce(function (sum, lines) { return sum + lines.length; }, 0);
      return 1.2 * TITLE * titleLines.length + 1.2 * NOTE * count;
    };
    // the note under the bars' title, and the note on a clipped query (in dark red) under it
    var rightNotes = function (w) {
      return [P.wrap(note, NOTE, w), clipNote ? P.wrap(clipNote, NOTE, w) : []];
    };
    var wide = width >= 560;
    var L; // the image: [left, top, side, title lines, caption lines]
    var R; // the bars: [left, top, width, height, title lines, note lines]
    var height;
    if (wide) {
      var side = Math.max(170, Math.min(300, Math.round(0.31 * width)));
      var gap = 22;
      var barsLeft = leftAside + side + gap + rightAside;
      var barsW = width - barsLeft - right;
      // titles may overhang their axes into the margins, centred
      var leftRoom = side + 2 * Math.min(leftAside, gap / 2);
      var leftTitleLines = P.wrap(leftTitle, TITLE, leftRoom);
      var captionLines = P.wrap(caption, NOTE, leftRoom);
      var rightRoom = barsW + 2 * Math.min(right, gap / 2 + rightAside);
      var rightTitleLines = P.wrap(rightTitle, TITLE, rightRoom);
      var noteLines = rightNotes(rightRoom);
      var top = 6 + P.TITLE_PAD + Math.max(header(leftTitleLines, []),
        header(rightTitleLines, noteLines));
      var leftBelow = imageBelow + 6 + 1.2 * NOTE * captionLines.length + 4;
      L = [leftAside, top, side, leftTitleLines, captionLines];
      var barsH = side;
      R = [barsLeft, top, barsW, barsH, rightTitleLines, noteLines];
      height = Math.ceil(top + side + Math.max(leftBelow, barsBelow));
    } else {
      var room = width - 8;
      var lines1 = P.wrap(leftTitle, TITLE, room);
      var caps = P.wrap(caption, NOTE, room);
      var sideN = Math.max(60, Math.min(340, width - leftAside - right));
      var x0 = leftAside + Math.max(0, (width - leftAside - right - sideN) / 2);
      var top1 = 6 + P.TITLE_PAD + header(lines1, []);
      L = [x0, top1, sideN, lines1, caps];
      var y = top1 + sideN + imageBelow + 6 + 1.2 * NOTE * caps.length + 8;
      var w = Math.max(40, width - rightAside - right);
      var titles2 = P.wrap(rightTitle, TITLE, room);
      var notes2 = rightNotes(room);
      var top2 = y + 6 + P.TITLE_PAD + header(titles2, notes2);
      var h = Math.max(130, Math.min(240, Math.round(0.55 * w)));
      R = [rightAside, top2, w, h, titles2, notes2];
      height = Math.ceil(top2 + h + barsBelow);
    }

    var fig = P.figure(canvas, height);
    var text = { tick: TICK, label: LABEL, title: TITLE };

    // left: the index image, no spines and no ticks (as the figure: labels as plain text)
    var side2 = L[2];
    var img = fig.axesAt([L[0], L[1], side2, side2], text);
    img.xlim(-0.5, n - 0.5).ylim(n - 0.5, -0.5);
    if (k) {
      img.image(shades, n, n, { cmap: "viridis", vmin: 0, vmax: 1 });
    } else {
      img.rect(-0.5, -0.5, n - 0.5, n - 0.5, { fill: SINGLE });
    }
    img.rect(-0.5, i - 0.5, n - 0.5, i + 0.5, { edge: RED, width: 2.08 });
    var under = img.top + side2 + 5;
    var besideX = img.left - 6;
    var ends = n > 1 ? [0, n - 1] : [0];
    ends.forEach(function (pos) {
      fig.text(img.px(pos), under, String(pos), { size: TICK, align: "center", baseline: "top" });
      fig.text(besideX, img.py(pos), String(pos), { size: TICK, align: "right",
        baseline: "middle" });
    });
    fig.text(img.left + side2 / 2, under, "key j", { size: LABEL, align: "center",
      baseline: "top" });
    fig.text(besideX - 1.2 * LABEL, img.top + side2 / 2, "query i", { size: LABEL,
      align: "center", baseline: "top", rotate: -Math.PI / 2 });
    var centre = img.left + side2 / 2;
    fig.textLines(centre, img.top - P.TITLE_PAD, L[3], { size: TITLE, align: "center",
      above: true });
    fig.textLines(centre, under + 1.2 * LABEL + 6 + NOTE, L[4], { size: NOTE, align: "center" });

    // right: the key term of query i, one bar per key, in the colour of its index
    var ax = fig.axesAt([R[0], R[1], R[2], R[3]], text);
    ax.xlim(-0.6, n - 0.4).ylim(-3.2, 3.2);
    if (k) ax.axvspan(i - k + 0.5, i + k - 0.5, GREY);
    ax.bar(indexRow.map(function (m, j) { return j; }), bias, { width: 0.84, color: colours });
    ax.axhline(0, { color: ZERO_LINE, width: 0.83 });
    var xTicks = [0, i, n - 1].filter(function (t, j, all) { return all.indexOf(t) === j; })
      .sort(function (a, b) { return a - b; });
    // a label that would touch the query's is left out (its tick stays): the query's is kept
    var xLabels = xTicks.map(function (t) {
      if (t === i) return String(t);
      var room2 = (P.measure(String(t), TICK) + P.measure(String(i), TICK)) / 2 + 4;
      return Math.abs(ax.px(t) - ax.px(i)) < room2 ? "" : String(t);
    });
    ax.xticks(xTicks, xLabels).yticks(yTicks).xlabel("key j");
    ax.draw();
    var notes = R[5][0];
    var clipLines = R[5][1];
    var rightCentre = ax.left + ax.width / 2;
    var y2 = ax.top - P.TITLE_PAD - (clipLines.length + notes.length - 1) * 1.2 * NOTE;
    fig.textLines(rightCentre, y2, notes, { size: NOTE, align: "center" });
    fig.textLines(rightCentre, y2 + notes.length * 1.2 * NOTE, clipLines, { size: NOTE,
      align: "center", color: CLIPPED });
    fig.textLines(rightCentre, y2 - 1.2 * NOTE, R[4], { size: TITLE, align: "center",
      above: true });

    fig.finish();
    canvas.posencData = {
      values: values, i: i, clipped: clipped, index: index, bias: bias, colours: colours,
    };
  };
})();
