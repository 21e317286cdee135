// SPDX-License-Identifier: MIT (see LICENSE at the root of the book's repository)
//
// drawers/window_bias.js: chapter 7's live explorer (book/explorers/window.py), drawn with
// posenc's JavaScript twin (window.posenc) and plot.js (window.posencPlot); set up by
// explorers.js.
(function () {
  "use strict";

  var HEAD_NAMES = ["nearby keys", "the key to the left", "the query's row", "the key above"];
  var HEADS = 4;
  var BLACK = "#000000";
  var READS = "#00a03c"; // green: the block of the table a query reads
  var READS_TEXT = "#006b28";
  var GREY_TEXT = "#595959"; // matplotlib's "0.35"
  var LABEL_GREY = "#666666"; // matplotlib's "0.4"
  var MINUS = "\u2212";

  /**
   * A hand-made relative bias table whose heads have patterns easy to see (float64), row
   * I = (Δr + Wh − 1)(2Ww − 1) + (Δc + Ww − 1) holding offset (Δr, Δc) = query − key.
   * Mirrors book.figures.window.example_bias_table(window_size, num_heads): with
   * g(x, y) = 1.5·exp(−(x² + y²)/1.5) − 0.5, T0 = 1.5·exp(−(Δr² + Δc²)/4) − 0.5,
   * T1 = g(Δr, Δc − 1), T2 = 1.5·exp(−Δr²) − 0.5, T3 = g(Δr − 1, Δc).
   * Returns [(2Wh − 1)(2Ww − 1)][heads].
   */
  function exampleBiasTable(wh, ww, heads) {
    var bump = function (x, y) { return 1.5 * Math.exp(-(x * x + y * y) / 1.5) - 0.5; };
    var rule = [
      function (dr, dc) { return 1.5 * Math.exp(-(dr * dr + dc * dc) / 4) - 0.5; },
      function (dr, dc) { return bump(dr, dc - 1); },
      function (dr) { return 1.5 * Math.exp(-(dr * dr)) - 0.5; },
      function (dr, dc) { return bump(dr - 1, dc); },
    ];
    var table = [];
    for (var dr = -(wh - 1); dr < wh; dr++) {
      for (var dc = -(ww - 1); dc < ww; dc++) {
        var row = [];
        for (var k = 0; k < heads; k++) row.push(rule[k](dr, dc));
        table.push(row);
      }
    }
    return table;
  }

  /** The cell (r, c) of a query named by place: book.figures.window.window_query_token. */
  function queryCell(query, wh, ww) {
    var places = {
      "top-left": [0, 0],
      "top-right": [0, ww - 1],
      centre: [Math.floor((wh - 1) / 2), Math.floor((ww - 1) / 2)],
      "bottom-left": [wh - 1, 0],
      "bottom-right": [wh - 1, ww - 1],
    };
    if (!places[query]) throw new RangeError("query must be one of " + Object.keys(places));
    return places[query];
  }

  /** Outlines over a white halo (book.figures._grid.Highlights): every halo, then every
   * outline. boxes: [x, y, w, h, colour, line width] in CSS px. */
  function drawOutlines(fig, boxes) {
    var ctx = fig.ctx;
    ctx.save();
    ctx.lineJoin = "miter";
    [true, false].forEach(function (halo) {
      boxes.forEach(function (b) {
        ctx.strokeStyle = halo ? "#ffffff" : b[4];
        ctx.lineWidth = halo ? b[5] + 3.3 : b[5];
        ctx.strokeRect(b[0], b[1], b[2], b[3]);
      });
    });
    ctx.restore();
  }

  /**
   * Chapter 7: one query's index row and its bias per head, drawn on the Wh × Ww window, and
   * the table by offset with the block the query reads, as book.figures.window.
   * window_bias_figure draws them; the heads two by two on a narrow screen. values: {Wh, Ww,
   * query, sign}; data: {index_colors} (the figure's greys, 256 × 6 hex digits).
   */
  window.posencExplorers = window.posencExplorers || {};
  window.posencExplorers.window_bias = function (canvas, values, data) {
    var P = window.posencPlot;
    var T = window.posenc;
    var wh = values.Wh;
    var ww = values.Ww;
    var sign = values.sign;
    if (sign !== "swin" && sign !== "shaw") throw new RangeError("sign must be swin or shaw");
    var cell0 = queryCell(values.query, wh, ww);
    var r = cell0[0];
    var c = cell0[1];
    var n = wh * ww;
    var i = r * ww + c;
    var rows = 2 * wh - 1;
    var cols = 2 * ww - 1;
    var size = rows * cols;
    var index = T.relativePositionIndex([wh, ww]); // [N][N], query − key
    var table = exampleBiasTable(wh, ww, HEADS); // [size][heads]
    var indexRow = new Float64Array(n);
    for (var j = 0; j < n; j++) indexRow[j] = sign === "swin" ? index[i][j] : index[j][i];
    var bias = [];
    var tables = [];
    for (var k = 0; k < HEADS; k++) {
      var b = new Float64Array(n);
      for (var j2 = 0; j2 < n; j2++) b[j2] = table[indexRow[j2]][k];
      bias.push(b);
      var t = new Float64Array(size);
      for (var e = 0; e < size; e++) t[e] = table[e][k];
      tables.push(t);
    }
    var block = sign === "swin" ? [r, c] : [wh - 1 - r, ww - 1 - c];
    var rowNumbers = new Float64Array(size);
    for (var s2 = 0; s2 < size; s2++) rowNumbers[s2] = s2;
    var greys = P.lutFromHex(data.index_colors);
    var rdbu = P.colormap("RdBu_r");

    // -- layout, in CSS px ------------------------------------------------------------------
    var TITLE = 13;
    var LABEL = 12;
    var MIN_NUMBER = 12;
    var MAX_NUMBER = 14; // the figure's 10 pt
    var FILL = 0.85; // of a cell's width, by its widest number
    var LINE = 1.2 * TITLE;
    var width = P.layoutWidth(canvas); // CSS px over a deck's zoom
    var W = width;
    var pad = 12;
    var inner = W - 2 * pad;
    var digits = String(size - 1).length;
    var digitWidth = P.measure("0", 10) / 10; // em of a digit
    var numberSize = function (cell) {
      // the size that fits; within rounding of 12 px, 12 px (cells sized for 12 px numbers)
      var px = Math.min(MAX_NUMBER, (FILL * cell) / (digitWidth * digits));
      return Math.abs(px - MIN_NUMBER) < 1e-6 ? MIN_NUMBER : px;
    };
    var signedLabel = P.signedLabel;
    var labelW = P.widest([signedLabel(-(wh - 1)), signedLabel(-(ww - 1))], LABEL);
    var rowLabels = labelW + 8; // left of the table: its row offsets
    var colLabels = 1.2 * LABEL + 6; // above the table: its column offsets
    var scale = W / 670; // the figure's 6.7 inches, at this width
    var rowName = sign === "swin" ? "I[" + i + ", :]" : "I\u1d40[" + i + ", :] = I[:, " + i +
      "]";
    var indexTitle = ["query (" + r + ", " + c + ") = token " + i + ":", "table row of each key,",
      rowName];
    var tableTitle = ["table row of each offset, query \u2212 key",
      "(\u0394r down, \u0394c across)"];

    // the top row: the index row beside the table of row numbers, or above it
    var cellT = Math.min(42, Math.max(MIN_NUMBER * digitWidth * digits / FILL, (330 * scale) / cols));
    var rightW = Math.max(cols * cellT + rowLabels, 0.45 * inner); // the table's part
    var leftW = inner - rightW - 16;
    var cellI = Math.min(42, (leftW - 24) / ww, 240 / wh);
    var side = W >= 560 && numberSize(cellI) >= MIN_NUMBER && leftW > 0;
    var indexLines;
    var tableLines;
    var ix; // left of the index row
    var iy; // its top
    var tx; // left of the table
    var ty; // its top
    var y;
    if (side) {
      indexLines = P.wrap(indexTitle, TITLE, leftW);
      tableLines = P.wrap(tableTitle, TITLE, rightW - rowLabels);
      var head = Math.max(6 + indexLines.length * LINE, 6 + tableLines.length * LINE + colLabels);
      tx = W - pad - rightW + rowLabels + (rightW - rowLabels - cols * cellT) / 2;
      ty = head;
      ix = pad + (leftW - ww * cellI) / 2;
      iy = head;
      y = head + Math.max(wh * cellI, rows * cellT);
    } else {
      cellI = Math.min(42, (inner - 24) / ww, 240 / wh);
      cellT = Math.min(42, (inner - rowLabels) / cols);
      indexLines = P.wrap(indexTitle, TITLE, inner);
      tableLines = P.wrap(tableTitle, TITLE, inner);
      iy = 6 + indexLines.length * LINE;
      ix = (W - ww * cellI) / 2;
      ty = iy + wh * cellI + 22 + tableLines.length * LINE + colLabels;
      tx = rowLabels / 2 + (W - cols * cellT) / 2;
      y = ty + rows * cellT;
    }
    var tableNumbers = numberSize(cellT) >= MIN_NUMBER; // else the greys alone (a phone, 13 × 13)

    // the heads: each a bias map above its table, four in a row, or two
    var headTitles = [];
    for (var k2 = 0; k2 < HEADS; k2++) {
      headTitles.push(["head " + k2 + ": B[" + k2 + ", " + i + ", :]", "(" + HEAD_NAMES[k2] +
        ")"]);
    }
    var widestHead = headTitles.reduce(function (m, lines) {
      return Math.max(m, P.measure(lines[0], TITLE), P.measure(lines[1], TITLE));
    }, 0);
    var perRow = inner / 4 >= widestHead + 6 ? 4 : 2;
    var headW = inner / perRow;
    var cellB = Math.min(cellI, (headW - 25) / ww);
    var cellH = Math.min(cellT, (headW - 25) / cols, 200 / rows);
    var heads = []; // per head: [centre x, bias top, table top, title lines]
    y += side ? 28 : 22;
    for (var g = 0; g < HEADS; g += perRow) {
      var lines = [];
      for (var k3 = g; k3 < g + perRow; k3++) lines.push(P.wrap(headTitles[k3], TITLE, headW - 4));
      var most = Math.max.apply(null, lines.map(function (l) { return l.length; }));
      var biasTop = y + most * LINE + 4;
      var tableTop = biasTop + wh * cellB + 14 + LINE;
      for (var k4 = g; k4 < g + perRow; k4++) {
        heads.push([pad + (k4 - g + 0.5) * headW, biasTop, tableTop, lines[k4 - g]]);
      }
      y = tableTop + rows * cellH + 20;
    }
    var turned = sign === "swin" ? "query \u2212 key: turned by 180\u00b0" :
      "key \u2212 query: not turned";
    var legend = [
      [P.wrap(["Black: the query (index row, bias maps) and offset (0, 0), its own cell " +
        "(tables)."], TITLE, inner), BLACK],
      [P.wrap(["Green: the " + wh + "\u00d7" + ww + " block of each table that query (" + r +
        ", " + c + ") reads", "(" + turned + ")."], TITLE, inner), READS_TEXT],
      [P.wrap(["Colours: bias from \u22121 (blue) through 0 (white) to +1 (red);",
        "grey: table row 0 (light) to " + (size - 1) + "."], TITLE, inner), GREY_TEXT],
    ];
    var legendTop = y - 2;
    var legendLines = legend.reduce(function (m, part) { return m + part[0].length; }, 0);
    var height = Math.ceil(legendTop + legendLines * LINE + 2 * 4 + 10);

    // -- drawing ----------------------------------------------------------------------------
    var fig = P.figure(canvas, height);
    var boxes = [];
    var grid = function (x, top, cell, nRows, nCols) {
      // an axes over a grid (for the tests and posencPlot), cells centred on integers
      var ax = fig.axesAt([x, top, nCols * cell, nRows * cell]);
      ax.xlim(-0.5, nCols - 0.5).ylim(nRows - 0.5, -0.5);
      return ax;
    };
    var axes = [grid(ix, iy, cellI, wh, ww), grid(tx, ty, cellT, rows, cols)];
    heads.forEach(function (h) {
      axes.push(grid(h[0] - (ww * cellB) / 2, h[1], cellB, wh, ww));
    });
    heads.forEach(function (h) {
      axes.push(grid(h[0] - (cols * cellH) / 2, h[2], cellH, rows, cols));
    });

    // the index row of the query, and the table's row numbers by offset
    var titled = { size: TITLE, align: "center", above: true };
    fig.numberGrid(ix, iy, cellI, indexRow, wh, ww, { lut: greys, vmin: 0, vmax: size - 1,
      label: String, size: numberSize(cellI) });
    boxes.push([ix + c * cellI, iy + r * cellI, cellI, cellI, BLACK, 3]);
    fig.textLines(ix + (ww * cellI) / 2, iy - 8, indexLines, titled);
    fig.numberGrid(tx, ty, cellT, rowNumbers, rows, cols, { lut: greys, vmin: 0, vmax: size - 1,
      label: tableNumbers ? String : null, size: numberSize(cellT) });
    var step = P.measure(MINUS + "6", LABEL) + 4 > cellT ? 2 : 1; // every other when crowded
    for (var v = 0; v < cols; v++) {
      if ((v - (ww - 1)) % step !== 0) continue;
      fig.text(tx + (v + 0.5) * cellT, ty - 6, signedLabel(v - (ww - 1)), {
        size: LABEL, align: "center", baseline: "alphabetic", color: LABEL_GREY,
      });
    }
    for (var u = 0; u < rows; u++) {
      fig.text(tx - 8, ty + (u + 0.5) * cellT, signedLabel(u - (wh - 1)), {
        size: LABEL, align: "right", baseline: "middle", color: LABEL_GREY,
      });
    }
    boxes.push([tx + block[1] * cellT, ty + block[0] * cellT, ww * cellT, wh * cellT, READS,
      3.3]);
    boxes.push([tx + (ww - 1) * cellT, ty + (wh - 1) * cellT, cellT, cellT, BLACK, 3]);
    fig.textLines(tx + (cols * cellT) / 2, ty - colLabels - 2, tableLines, titled);

    // the heads: the bias of the query on the window, and the table by offset
    heads.forEach(function (h, k) {
      var bx = h[0] - (ww * cellB) / 2;
      fig.numberGrid(bx, h[1], cellB, bias[k], wh, ww, { lut: rdbu, vmin: -1, vmax: 1 });
      boxes.push([bx + c * cellB, h[1] + r * cellB, cellB, cellB, BLACK, 3]);
      fig.textLines(h[0], h[1] - 8, h[3], titled);
      var hx = h[0] - (cols * cellH) / 2;
      fig.numberGrid(hx, h[2], cellH, tables[k], rows, cols, { lut: rdbu, vmin: -1, vmax: 1 });
      boxes.push([hx + block[1] * cellH, h[2] + block[0] * cellH, ww * cellH, wh * cellH, READS,
        3.3]);
      boxes.push([hx + (ww - 1) * cellH, h[2] + (wh - 1) * cellH, cellH, cellH, BLACK, 2.2]);
      fig.textLines(h[0], h[2] - 8, P.wrap("head " + k + ": table T[:, " + k + "]", TITLE,
        headW - 4), titled);
    });
    drawOutlines(fig, boxes);

    // what the marks and colours mean
    var at = legendTop;
    legend.forEach(function (part) {
      part[0].forEach(function (line) {
        at += LINE;
        fig.text(W / 2, at, line, { size: TITLE, align: "center", baseline: "alphabetic",
          color: part[1] });
      });
      at += 4;
    });

    fig.finish();
    canvas.posencData = {
      values: values,
      query: [r, c],
      token: i,
      index: index,
      indexRow: indexRow,
      table: table,
      bias: bias,
      block: block,
      tableNumbers: tableNumbers,
      perRow: perRow,
      side: side,
    };
  };
})();
