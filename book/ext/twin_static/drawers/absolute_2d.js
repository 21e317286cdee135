// SPDX-License-Identifier: MIT (see LICENSE at the root of the book's repository)
//
// drawers/absolute_2d.js: chapter 5's live explorer (book/explorers/absolute_2d.py), drawn with
// posenc's JavaScript twin (window.posenc) and plot.js (window.posencPlot); set up by
// explorers.js.
(function () {
  "use strict";

  var UNDEFINED = "#d9d9d9"; // book.figures._base.UNDEFINED: the grey of padding
  var MINUS = "\u2212";

  /**
   * DETR's position of each valid pixel along one axis of an image that fills the first
   * `size` pixels of that axis (the padding after it): the count of valid pixels up to it,
   * from 1, or with normalize that count / (size + 1e-6) · 2π. Mirrors the positions of
   * posenc.absolute_2d.detr_sine_encoding (its cumsum of the valid mask, and its normalize).
   */
  function detrPositions(size, normalize) {
    var out = new Array(size);
    for (var p = 0; p < size; p++) {
      out[p] = normalize ? ((p + 1) / (size + 1e-6)) * (2 * Math.PI) : p + 1;
    }
    return out;
  }

  /** The pair book.figures.absolute_2d.absolute_2d_explorer_figure shows for `pair`, with F
   * channels per axis: fastest 0, middle F // 4, slowest F // 2 − 1. */
  function pairIndex(pair, feats) {
    if (pair === "fastest") return 0;
    if (pair === "middle") return Math.floor(feats / 4);
    if (pair === "slowest") return feats / 2 - 1;
    throw new RangeError("channel must be fastest, middle or slowest, got " + String(pair));
  }

  /**
   * `units` (strings) joined by `joiner` into the fewest lines no wider than `maxWidth` at
   * `size` px, breaking only between units (a line that ends early keeps the joiner's mark,
   * such as the comma of ", "); a unit wider than maxWidth alone is broken at its spaces.
   */
  function wrapUnits(units, joiner, size, maxWidth) {
    var P = window.posencPlot;
    var mark = joiner.replace(/\s+$/, "");
    var lines = [];
    var line = "";
    units.forEach(function (unit, k) {
      var end = k < units.length - 1 ? mark : "";
      var trial = line ? line + joiner + unit : unit;
      if (line && P.measure(trial + end, size) > maxWidth) {
        lines.push(line + mark);
        line = unit;
      } else {
        line = trial;
      }
    });
    lines.push(line);
    return lines.reduce(function (out, l) {
      return out.concat(P.measure(l, size) > maxWidth ? P.wrap(l, size, maxWidth) : [l]);
    }, []);
  }

  /** Each row of `enc` ([n][F]) dotted with row `ref`, and its squared norm: one half of
   * the 2-D code's dot products and norms (the similarity adds the y and the x halves). */
  function halfDots(enc, ref) {
    var n = enc.length;
    var dot = new Float64Array(n);
    var norm = new Float64Array(n);
    var b = enc[ref];
    for (var k = 0; k < n; k++) {
      var a = enc[k];
      var d = 0;
      var q = 0;
      for (var j = 0; j < a.length; j++) {
        d += a[j] * b[j];
        q += a[j] * a[j];
      }
      dot[k] = d;
      norm[k] = q;
    }
    return { dot: dot, norm: norm };
  }

  /** A "+" marker centred at (x, y) CSS px, `arm` px each way (matplotlib's marker="+"). */
  function plusMarker(fig, x, y, arm, color, width) {
    var ctx = fig.ctx;
    ctx.save();
    ctx.strokeStyle = color;
    ctx.lineWidth = width;
    ctx.beginPath();
    ctx.moveTo(x - arm, y);
    ctx.lineTo(x + arm, y);
    ctx.moveTo(x, y - arm);
    ctx.lineTo(x, y + arm);
    ctx.stroke();
    ctx.restore();
  }

  /**
   * Chapter 5: DETR's sine encoding of a height × width image in the top-left corner of a
   * canvas × canvas batch, as book.figures.absolute_2d.absolute_2d_explorer_figure draws it:
   * sin y and sin x of the chosen pair (RdBu_r, −1 … +1) and the cosine similarity of the
   * image centre (+) to every valid pixel (viridis, −0.5 … 1), padding grey; the three maps
   * side by side, or on a narrow screen the two channels above the similarity.
   * values: {height, width, dim, base, normalize, channel}; data: {canvas}.
   */
  window.posencExplorers = window.posencExplorers || {};
  window.posencExplorers.absolute_2d = function (canvas, values, data) {
    var P = window.posencPlot;
    var T = window.posenc;
    var S = data && data.canvas ? data.canvas : 24;
    var h = values.height;
    var w = values.width;
    var dim = values.dim;
    var base = values.base;
    var normalize = values.normalize;
    if (!(h >= 1 && h <= S && w >= 1 && w <= S)) {
      throw new RangeError("height and width must be in 1.." + S + ", got " + h + ", " + w);
    }
    var feats = dim / 2; // F, channels per axis
    var i = pairIndex(values.channel, feats);

    // DETR: [PE(y) | PE(x)], each the 1-D sin/cos encoding of F channels at DETR's positions
    var yPositions = detrPositions(h, normalize);
    var xPositions = detrPositions(w, normalize);
    var rows = T.sinusoidalEncoding(yPositions, feats, base); // [h][F]
    var cols = T.sinusoidalEncoding(xPositions, feats, base); // [w][F]
    var r0 = Math.floor(h / 2);
    var c0 = Math.floor(w / 2);
    var rowHalf = halfDots(rows, r0); // y half: dot with the centre's, squared norm
    var colHalf = halfDots(cols, c0); // x half
    var rowDot = rowHalf.dot;
    var rowNorm = rowHalf.norm;
    var colDot = colHalf.dot;
    var colNorm = colHalf.norm;
    var yMap = new Float64Array(h * w); // sin y of pair i: channel 2i
    var xMap = new Float64Array(h * w); // sin x of pair i: channel F + 2i
    var sim = new Float64Array(h * w); // cosine similarity to (r0, c0)
    var centreNorm = Math.sqrt(rowNorm[r0] + colNorm[c0]);
    for (var r = 0; r < h; r++) {
      for (var c = 0; c < w; c++) {
        var k = r * w + c;
        yMap[k] = rows[r][2 * i];
        xMap[k] = cols[c][2 * i];
        var s = (rowDot[r] + colDot[c]) / (Math.sqrt(rowNorm[r] + colNorm[c]) * centreNorm);
        sim[k] = s > 1 ? 1 : s < -1 ? -1 : s;
      }
    }
    var divisor = Math.pow(base, (2 * i) / feats);

    // -- layout, in CSS px ---------------------------------------------------------------------
    var SUPTITLE = 14;
    var TITLE = 13;
    var TICK = 12;
    var BAR = 12; // a colour scale's width
    var BAR_PAD = 6; // between a map and its colour scale
    var BAR_TICK = 3; // a colour scale's ticks, and the gap to their labels
    var BAR_TICK_PAD = 3;
    var signed = [1, 0, -1];
    var signedLabels = ["+1", "0", MINUS + "1"];
    var simTicks = [1, 0.5, 0, -0.5];
    var simLabels = ["1", "0.5", "0", MINUS + "0.5"];
    var scaleW = function (labels) {
      return BAR_PAD + BAR + BAR_TICK + BAR_TICK_PAD + P.widest(labels, TICK);
    };
    var signedAside = scaleW(signedLabels);
    var simAside = scaleW(simLabels);
    // each title in the units it may break between (the figure's words, on one line there)
    var titleUnits = [
      ["channel " + 2 * i + ":", "sin(y / " + P.format(divisor, ".3g") + ")"],
      ["channel " + (feats + 2 * i) + ":", "sin(x / " + P.format(divisor, ".3g") + ")"],
      ["cosine", "similarity", "to", "the", "centre"],
    ];
    var titles = titleUnits.map(function (u) { return u.join(" "); });
    var supUnits = [
      h + "\u00d7" + w + " image in a " + S + "\u00d7" + S + " batch",
      "d = " + dim,
      "T = " + P.formatG(base),
      "normalize = " + (normalize ? "True" : "False"),
    ];
    var suptitle = supUnits.join(", ");
    var wrapTitle = function (k, maxWidth) {
      return wrapUnits(titleUnits[k], " ", TITLE, maxWidth);
    };
    var width = window.posencPlot.layoutWidth(canvas);
    var margin = 24; // left of everything: the tests want 20 px round every axes
    var rightMargin = 6; // right of the last scale's labels
    var gap = 18; // between two maps (or a scale's labels and the next map)
    var supLines = wrapUnits(supUnits, ", ", SUPTITLE, width - 8);
    var top = 4 + 1.2 * SUPTITLE * supLines.length + 6;
    var maps = []; // [left, top, side, titleLines] in CSS px
    var scales = []; // [left, top, side] of each scale's map
    var side;
    var height;
    var titleRows = function (count) { // room above a map for `count` lines of title
      return P.TITLE_PAD + 1.2 * TITLE * count - 0.2 * TITLE;
    };
    if (width >= 560) {
      side = (width - margin - rightMargin - 2 * gap - signedAside - simAside) / 3;
      side = Math.max(60, Math.min(260, side));
      var used = 3 * side + 2 * gap + signedAside + simAside;
      var x0 = Math.max(margin, (width - used) / 2);
      // a title is centred over its map and may overhang it: into half the gap beside it, and
      // for the similarity over the scales on either side (they start below the titles)
      var lines = [
        wrapTitle(0, side + gap),
        wrapTitle(1, side + gap),
        wrapTitle(2, side + 2 * Math.min(signedAside + gap / 2, simAside + rightMargin - 2)),
      ];
      var most = Math.max(lines[0].length, lines[1].length, lines[2].length);
      var mapTop = top + titleRows(most);
      var xs = [x0, x0 + side + gap, x0 + 2 * side + 2 * gap + signedAside];
      xs.forEach(function (x, k) { maps.push([x, mapTop, side, lines[k]]); });
      scales = [[xs[1] + side, mapTop, side], [xs[2] + side, mapTop, side]];
      height = Math.ceil(mapTop + side + 24);
    } else {
      var room = width - margin - rightMargin; // rows centred in it, the maps at most 200 px
      side = Math.max(40, Math.min(200, (room - gap - signedAside) / 2));
      var x1 = margin + Math.max(0, (room - 2 * side - gap - signedAside) / 2);
      var wrapped = [wrapTitle(0, side + gap), wrapTitle(1, side + gap)];
      var first = Math.max(wrapped[0].length, wrapped[1].length);
      var row1 = top + titleRows(first);
      maps.push([x1, row1, side, wrapped[0]]);
      maps.push([x1 + side + gap, row1, side, wrapped[1]]);
      scales.push([x1 + 2 * side + gap, row1, side]);
      var simLines = wrapTitle(2, width - margin - rightMargin);
      var row2 = row1 + side + 24 + titleRows(simLines.length);
      var x2 = margin + Math.max(0, (room - side - simAside) / 2);
      maps.push([x2, row2, side, simLines]);
      scales.push([x2 + side, row2, side]);
      height = Math.ceil(row2 + side + 24);
    }

    // -- drawing ---------------------------------------------------------------------------------
    var fig = P.figure(canvas, height);
    var W = fig.width;
    fig.textLines(W / 2, 4, supLines, { size: SUPTITLE, align: "center", baseline: "top" });
    var padded = h < S || w < S;
    var panels = [
      [yMap, "RdBu_r", -1, 1],
      [xMap, "RdBu_r", -1, 1],
      [sim, "viridis", -0.5, 1],
    ];
    var mapAxes = panels.map(function (panel, k) {
      var box = maps[k];
      var x = box[0];
      var y = box[1];
      var s = box[2];
      var ax = fig.axesAt([x, y, s, s]);
      ax.xlim(-0.5, S - 0.5).ylim(S - 0.5, -0.5);
      if (padded) ax.rect(-0.5, -0.5, S - 0.5, S - 0.5, { fill: UNDEFINED, clip: false });
      ax.image(panel[0], h, w, { cmap: panel[1], vmin: panel[2], vmax: panel[3],
        extent: [-0.5, w - 0.5, h - 0.5, -0.5] });
      if (padded) {
        ax.rect(-0.5, -0.5, w - 0.5, h - 0.5, { edge: "#000000", width: 1.67, clip: false });
      }
      fig.textLines(x + s / 2, y - P.TITLE_PAD, box[3], {
        size: TITLE, align: "center", above: true,
      });
      return ax;
    });
    var simAx = mapAxes[2];
    plusMarker(fig, simAx.px(c0), simAx.py(r0), Math.max(5, Math.min(8, side / 24)),
      "#000000", 2.08);
    // each scale as the figure composes it: S flat bands, linspace(1, 0, S) through the
    // colormap, its ticks on the right (no frame)
    var scale = function (sc, cmap, vmin, ticks, labels) {
      fig.colorbar([sc[0] + BAR_PAD, sc[1], BAR, sc[2]], {
        cmap: cmap, vmin: vmin, vmax: 1, steps: S, ticks: ticks, labels: labels, size: TICK,
        tickWidth: 0.8, tickLength: BAR_TICK, tickPad: BAR_TICK_PAD,
      });
    };
    scale(scales[0], "RdBu_r", -1, signed, signedLabels);
    scale(scales[1], "viridis", -0.5, simTicks, simLabels);

    fig.finish();
    canvas.posencData = {
      values: values,
      canvas: S,
      pair: i,
      channels: [2 * i, feats + 2 * i],
      divisor: divisor,
      titles: titles,
      suptitle: suptitle,
      centre: [r0, c0],
      yPositions: yPositions,
      xPositions: xPositions,
      rows: rows,
      cols: cols,
      yMap: yMap,
      xMap: xMap,
      sim: sim,
    };
  };
})();
