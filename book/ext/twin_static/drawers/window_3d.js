// SPDX-License-Identifier: MIT (see LICENSE at the root of the book's repository)
//
// drawers/window_3d.js: chapter 8's live explorer (book/explorers/window_3d.py), drawn with
// posenc's JavaScript twin (window.posenc) and plot.js (window.posencPlot); set up by
// explorers.js.
(function () {
  "use strict";

  var QUERY = "#4c72b0"; // query frames (book.figures.window_3d)
  var KEY = "#dd8452"; // key frames
  var WARNING = "#d62728"; // red only for warnings: a wrong frame count, offsets never used
  var GREY = "#595959"; // matplotlib's "0.35"
  var BLACK = "#000000";
  var NAMED = { first: 0, middle: 0.5, last: 1 }; // book._checks.NAMED_POSITIONS

  /** The largest whole step keeping d2 key frames inside d1 query frames:
   * book.demos.window.spread_key_step(d1, d2), floor((D1 − 1)/(D2 − 1)), 1 for D2 = 1. */
  function spreadKeyStep(d1, d2) {
    return d2 > 1 ? Math.floor((d1 - 1) / (d2 - 1)) : 1;
  }

  /** RSTT's key frame times, arange(0, D1, (D1 + 1) // D2):
   * book.demos.window.rstt_key_frames(d1, d2) (d2 <= d1 + 1). */
  function rsttKeyFrames(d1, d2) {
    var step = Math.floor((d1 + 1) / d2);
    var out = [];
    for (var t = 0; t < d1; t += step) out.push(t);
    return out;
  }

  /** The explorer's line on RSTT's stride and its colour: book.figures.window_3d.
   * _rstt_verdict (red only for a wrong count). */
  function rsttVerdict(d1, d2, step) {
    var rstt = rsttKeyFrames(d1, d2);
    var text = "RSTT's arange(0, " + d1 + ", " + Math.floor((d1 + 1) / d2) + "): ";
    var same = rstt.length === d2 && rstt.every(function (t, m) { return t === step * m; });
    if (same) return [text + "the same frames", GREY];
    if (rstt.length !== d2) {
      return [text + rstt.length + " key frames, not " + d2 + ": the forward pass fails",
        WARNING];
    }
    return [text + "t = " + rstt.join(", ") + ": right count, but short of t = " + (d1 - 1),
      GREY];
  }

  /** Lines of text from `top` down, 1.2 × size apart, aligned at x (fig.textLines). */
  function textLines(fig, x, top, lines, size, color, align) {
    fig.textLines(x, top + 1.2 * size - 0.25 * size, lines, { size: size, align: align,
      color: color });
  }

  /**
   * Chapter 8: the frame offset Δt = t − s·m of every query frame t against every key frame m
   * (left) and the table rows read by the centre token of the highlighted query frame, one
   * W_h × W_w block per key frame (right), as book.figures.window_3d.frame_offset_figure draws
   * them; stacked on a narrow screen, the blocks in rows when they do not fit in one.
   * values: {D1_query_frames, D2_key_frames, Wh, Ww, highlighted_query_frame}; data:
   * {offset_colors} (the figure's PuOr, 256 × 6 hex digits). More key frames than query frames
   * are drawn as many as the query frames (spread_key_step refuses them), and said so.
   */
  window.posencExplorers = window.posencExplorers || {};
  window.posencExplorers.window_3d = function (canvas, values, data) {
    var P = window.posencPlot;
    var T = window.posenc;
    var d1 = values.D1_query_frames;
    var asked = values.D2_key_frames;
    var d2 = Math.min(asked, d1);
    var wh = values.Wh;
    var ww = values.Ww;
    if (!(values.highlighted_query_frame in NAMED)) {
      throw new RangeError("highlighted_query_frame must be first, middle or last");
    }
    var chosen = P.roundHalfEven(NAMED[values.highlighted_query_frame] * (d1 - 1));
    var step = spreadKeyStep(d1, d2);
    // Δt = t − s·m: the twin's 1-D index over frames, less D1 − 1
    var frames = T.relativePositionIndex([d1], [d2], [step]); // [D1][D2]
    var offsets = new Float64Array(d1 * d2);
    var counts = new Int32Array(2 * d1 - 1); // pairs per offset −(D1 − 1) .. D1 − 1
    for (var t = 0; t < d1; t++) {
      for (var m = 0; m < d2; m++) {
        offsets[t * d2 + m] = frames[t][m] - (d1 - 1);
        counts[frames[t][m]] += 1;
      }
    }
    var unused = [];
    for (var u = 0; u < 2 * d1 - 1; u++) if (counts[u] === 0) unused.push(u - (d1 - 1));
    // the index row of the centre token (r0, c0) of the highlighted frame, key frame by key
    // frame: I = (Δt + D1 − 1)·(2Wh − 1)(2Ww − 1) + I_2-D, the twin's 2-D index of the window
    var r0 = Math.floor((wh - 1) / 2);
    var c0 = Math.floor((ww - 1) / 2);
    var spatial = T.relativePositionIndex([wh, ww])[r0 * ww + c0]; // [Wh·Ww]
    var rowsPer = T.relativeTableSize([wh, ww]);
    var size = T.relativeTableSize([d1, wh, ww]);
    var n = wh * ww;
    var row = new Float64Array(d2 * n); // [D2][Wh][Ww]
    for (var m2 = 0; m2 < d2; m2++) {
      for (var j = 0; j < n; j++) row[m2 * n + j] = frames[chosen][m2] * rowsPer + spatial[j];
    }
    var puor = P.lutFromHex(data.offset_colors);
    var viridis = P.colormap("viridis");

    // -- layout, in CSS px ------------------------------------------------------------------
    var BIG = 13;
    var SMALL = 12;
    var FILL = 0.8; // of a cell's width, by its widest number
    var width = P.layoutWidth(canvas); // CSS px over a deck's zoom
    var W = width;
    var pad = 14;
    var inner = W - 2 * pad;
    var times = [];
    for (var m3 = 0; m3 < d2; m3++) times.push(step * m3);
    var head = [BIG, P.wrap(d1 + " query frames, " + d2 + " key frames at t = " +
      times.join(", "), BIG, inner), BLACK];
    var verdict = rsttVerdict(d1, d2, step);
    var notes = [head, [SMALL, P.wrap(verdict[0], SMALL, inner), verdict[1]]];
    if (asked > d1) {
      notes.push([SMALL, P.wrap("D2 = " + asked + " key frames cannot fit inside " + d1 +
        " query frames: drawn with " + d2 + ".", SMALL, inner), GREY]);
    }
    var top = 6;
    notes.forEach(function (note) { top += note[1].length * 1.2 * note[0] + 4; });

    // the frame grid: its cells hold Δt, rows headed t=…, columns by their key frame times
    var widest = P.widest;
    var signedLabel = P.signedLabel;
    var cellLabels = [signedLabel(-(d1 - 1)), signedLabel(d1 - 1), String(step * (d2 - 1))];
    var cellG = Math.min(30, Math.max(widest(cellLabels, SMALL) / FILL, 200 / d1));
    var rowLabelW = P.measure("t=" + (d1 - 1), SMALL) + 10;
    var deltaLines = ["\u0394t =", "t \u2212 key", "time"];
    var deltaW = widest(deltaLines, SMALL);
    var gridW = rowLabelW + d2 * cellG;
    var aboveGrid = 2 * 1.2 * SMALL + 8; // "key frame times", then the times
    var gridH = aboveGrid + d1 * cellG;

    // the blocks: one per key frame, numbers at 12 px or more
    var digits = String(size - 1).length;
    var digitWidth = P.measure("0", 10) / 10;
    var needB = (SMALL * digitWidth * digits) / FILL;
    var headers = [];
    for (var m4 = 0; m4 < d2; m4++) {
      headers.push(["t=" + step * m4, "\u0394t=" + signedLabel(offsets[chosen * d2 + m4])]);
    }
    var headerW = headers.reduce(function (w, h) { return Math.max(w, widest(h, SMALL)); }, 0);
    var blockTitle = "table rows read by token (" + r0 + ", " + c0 + ") of query frame " + chosen;
    var formula = "I = (\u0394t + " + (d1 - 1) + ")\u00b7" + rowsPer + " + 2-D index   (table: " +
      size + " rows)";
    var GAP = 14;
    var blocks = function (room) {
      // the blocks in `room` px: their cell, slot width, blocks per row, and height
      var cell = Math.max(needB, Math.min(38, (room - (d2 - 1) * GAP) / (d2 * ww)));
      var slot = Math.max(ww * cell, headerW + 4);
      var perRow = Math.max(1, Math.min(d2, Math.floor((room + GAP) / (slot + GAP))));
      var rows = Math.ceil(d2 / perRow);
      perRow = Math.ceil(d2 / rows); // rows as even as they go: 2 + 2, not 3 + 1
      var titleLines = P.wrap(blockTitle, BIG, room);
      var formulaLines = P.wrap(formula, SMALL, room);
      var blockH = 2 * 1.2 * SMALL + 6 + wh * cell;
      var height = titleLines.length * 1.2 * BIG + 8 + rows * blockH + (rows - 1) * 12 + 10 +
        formulaLines.length * 1.2 * SMALL;
      return { cell: cell, slot: slot, perRow: perRow, rows: rows, blockH: blockH,
        titleLines: titleLines, formulaLines: formulaLines, height: height, room: room };
    };
    var sideRoom = inner - gridW - deltaW - 12 - 28;
    var side = W >= 560 && sideRoom >= Math.max(needB * ww, headerW + 4) ? blocks(sideRoom) : null;
    var stacked = blocks(inner - 16);
    var stackedDelta = gridW + 12 + deltaW > inner; // Δt's legend below the grid
    var stackH = gridH + (stackedDelta ? 1.2 * SMALL + 8 : 0) + 24 + stacked.height;
    var useSide = side !== null && Math.max(gridH, side.height) <= stackH;
    var B = useSide ? side : stacked;
    var unusedLines = unused.length ? P.wrap("never used: \u0394t = " +
      unused.map(signedLabel).join(", ") + " (" + unused.length * rowsPer + " of " + size +
      " rows)", SMALL, inner) : [];

    var gx; // the grid's left
    var gy = top + 10 + aboveGrid; // its top
    var bx; // the blocks' area, its left
    var by; // its top (the title's)
    var bottom;
    if (useSide) {
      gx = pad + rowLabelW;
      bx = W - pad - B.room;
      by = top + 10;
      bottom = top + 10 + Math.max(gridH, B.height);
    } else {
      var total = gridW + (stackedDelta ? 0 : 12 + deltaW);
      gx = pad + (inner - total) / 2 + rowLabelW;
      bx = pad + 8;
      by = gy + d1 * cellG + (stackedDelta ? 1.2 * SMALL + 8 : 0) + 24;
      bottom = by + B.height;
    }
    var height = Math.ceil(bottom + 12 + (unusedLines.length ?
      unusedLines.length * 1.2 * SMALL + 10 : 0) + 8);

    // -- drawing ----------------------------------------------------------------------------
    var fig = P.figure(canvas, height);
    var y = 6;
    notes.forEach(function (note) {
      textLines(fig, pad, y, note[1], note[0], note[2]);
      y += note[1].length * 1.2 * note[0] + 4;
    });
    var axesAt = function (x, top2, cell, rows, cols) {
      // an axes over a grid (for the tests and posencPlot), cells centred on integers
      var ax = fig.axesAt([x, top2, cols * cell, rows * cell]);
      ax.xlim(-0.5, cols - 0.5).ylim(rows - 0.5, -0.5);
      return ax;
    };

    axesAt(gx, gy, cellG, d1, d2);
    fig.numberGrid(gx, gy, cellG, offsets, d1, d2, { lut: puor, vmin: -d1 - 1, vmax: d1 + 1,
      label: signedLabel, size: SMALL });
    var ctx = fig.ctx;
    ctx.save();
    ctx.strokeStyle = BLACK;
    ctx.lineWidth = 2.5;
    ctx.strokeRect(gx, gy + chosen * cellG, d2 * cellG, cellG);
    ctx.restore();
    for (var t2 = 0; t2 < d1; t2++) {
      fig.text(gx - 8, gy + (t2 + 0.5) * cellG, "t=" + t2, { size: SMALL, align: "right",
        baseline: "middle", color: QUERY });
    }
    for (var m5 = 0; m5 < d2; m5++) {
      fig.text(gx + (m5 + 0.5) * cellG, gy - 6, String(step * m5), { size: SMALL,
        align: "center", baseline: "alphabetic", color: KEY });
    }
    fig.text(gx, gy - 6 - 1.2 * SMALL - 2, "key frame times", { size: SMALL, align: "left",
      baseline: "alphabetic", color: KEY });
    if (!useSide && stackedDelta) {
      textLines(fig, gx + (d2 * cellG) / 2, gy + d1 * cellG + 4,
        [deltaLines.join(" ")], SMALL, GREY, "center");
    } else {
      var dx = gx + d2 * cellG + 12 + deltaW / 2;
      textLines(fig, dx, gy + (d1 * cellG) / 2 - 1.8 * SMALL, deltaLines, SMALL, GREY,
        "center");
    }

    // the blocks of the index row, key frame by key frame
    textLines(fig, bx, by, B.titleLines, BIG, BLACK);
    var rowTop = by + B.titleLines.length * 1.2 * BIG + 8;
    var placed = [];
    for (var m6 = 0; m6 < d2; m6++) {
      var line = Math.floor(m6 / B.perRow);
      var k = m6 % B.perRow;
      var inRow = Math.min(B.perRow, d2 - line * B.perRow);
      var used = inRow * B.slot + (inRow - 1) * GAP;
      var x0 = bx + (useSide ? 0 : (B.room - used) / 2) + k * (B.slot + GAP);
      var top3 = rowTop + line * (B.blockH + 12);
      var cx = x0 + B.slot / 2;
      textLines(fig, cx, top3, headers[m6], SMALL, KEY, "center");
      var left = cx - (ww * B.cell) / 2;
      var cellsTop = top3 + 2 * 1.2 * SMALL + 6;
      placed.push([left, cellsTop]);
      axesAt(left, cellsTop, B.cell, wh, ww);
      fig.numberGrid(left, cellsTop, B.cell, row.subarray(m6 * n, (m6 + 1) * n), wh, ww, {
        lut: viridis, vmin: 0, vmax: size - 1, label: String,
        size: Math.min(14, Math.max(SMALL, (FILL * B.cell) / (digitWidth * digits))), // >= needB
      });
    }
    var formulaTop = rowTop + B.rows * B.blockH + (B.rows - 1) * 12 + 8;
    var used1 = Math.min(B.perRow, d2) * B.slot + (Math.min(B.perRow, d2) - 1) * GAP;
    var mid = bx + (useSide ? used1 / 2 : B.room / 2);
    textLines(fig, mid, formulaTop, B.formulaLines, SMALL, BLACK, "center");
    if (unusedLines.length) textLines(fig, pad, bottom + 12, unusedLines, SMALL, WARNING);

    fig.finish();
    canvas.posencData = {
      values: values,
      keyFrames: d2,
      step: step,
      chosen: chosen,
      token: [r0, c0],
      offsets: Array.from(offsets),
      counts: Array.from(counts),
      unused: unused,
      row: Array.from(row),
      size: size,
      verdict: verdict,
      side: useSide,
      perRow: B.perRow,
    };
  };
})();
