// SPDX-License-Identifier: MIT (see LICENSE at the root of the book's repository)
//
// drawers/permutation.js: chapter 1's live explorer (book/explorers/attention.py,
// permutation_explorer): the toy attention layer on a sentence and on a shuffle of it, with and
// without the sinusoidal encoding (window.posenc), drawn with plot.js (window.posencPlot) as
// book.figures.attention.shuffle_attention_figure draws it; set up by explorers.js.
//
// The layer's weights and the word vectors come from the page (data: explorer(live_data=...)),
// written there from book.demos.attention.toy_attention_layer and word_vectors: the twin has
// no random generator of torch's. The page computes in float64.
(function () {
  "use strict";

  var RED = "#d62728"; // matplotlib's tab:red, with positions
  var BLUE = "#1f77b4"; // tab:blue, without

  /** x W^T + b for x [n][din] (arrays), W [dout][din] row-major (flat), b [dout]. */
  function linear(x, weight, bias, dout) {
    var din = x[0].length;
    return x.map(function (row) {
      var out = new Float64Array(dout);
      for (var o = 0; o < dout; o++) {
        var s = bias[o];
        var w = o * din;
        for (var i = 0; i < din; i++) s += weight[w + i] * row[i];
        out[o] = s;
      }
      return out;
    });
  }

  /**
   * The toy layer (posenc.attention.SelfAttention, one head) on x [n][d]: outputs y [n][d]
   * and attention weights a [n][n] = softmax(q k^T / sqrt(d)).
   */
  function layer(x, data) {
    var d = data.dim;
    var n = x.length;
    var qkv = linear(x, data.qkvWeight, data.qkvBias, 3 * d); // [n][3d]: q, k, v
    var a = [];
    var z = [];
    var scale = 1 / Math.sqrt(d);
    for (var i = 0; i < n; i++) {
      var logits = new Float64Array(n);
      var top = -Infinity;
      for (var j = 0; j < n; j++) {
        var s = 0;
        for (var c = 0; c < d; c++) s += qkv[i][c] * qkv[j][d + c];
        logits[j] = s * scale;
        if (logits[j] > top) top = logits[j];
      }
      var total = 0;
      for (var j2 = 0; j2 < n; j2++) {
        logits[j2] = Math.exp(logits[j2] - top);
        total += logits[j2];
      }
      var zi = new Float64Array(d);
      for (var j3 = 0; j3 < n; j3++) {
        logits[j3] /= total;
        for (var c2 = 0; c2 < d; c2++) zi[c2] += logits[j3] * qkv[j3][2 * d + c2];
      }
      a.push(logits);
      z.push(zi);
    }
    return { y: linear(z, data.outWeight, data.outBias, d), a: a };
  }

  /** The sentence in the order `order` (slot i holds word order[i]), with positions or not. */
  function sentence(data, order, positions) {
    var d = data.dim;
    var pe = positions ? window.posenc.sinusoidalEncoding(order.length, d) : null;
    return order.map(function (w, slot) {
      var row = new Float64Array(d);
      for (var c = 0; c < d; c++) row[c] = data.wordVectors[w][c] + (pe ? pe[slot][c] : 0);
      return row;
    });
  }

  /** A(X), A(PX) and each word's output change (book.demos.attention.shuffled_attention). */
  function shuffled(data, perm, positions) {
    var n = perm.length;
    var identity = [];
    for (var i = 0; i < n; i++) identity.push(i);
    var plain = layer(sentence(data, identity, positions), data);
    var moved = layer(sentence(data, perm, positions), data);
    var delta = new Float64Array(n);
    perm.forEach(function (w, slot) {
      var s = 0;
      for (var c = 0; c < data.dim; c++) {
        var e = moved.y[slot][c] - plain.y[w][c];
        s += e * e;
      }
      delta[w] = Math.sqrt(s);
    });
    return { a: plain.a, aPerm: moved.a, delta: delta };
  }

  function flat(matrix) {
    var n = matrix.length;
    var out = new Float64Array(n * n);
    for (var i = 0; i < n; i++) for (var j = 0; j < n; j++) out[i * n + j] = matrix[i][j];
    return out;
  }

  /**
   * Chapter 1: attention of the sentence (left) and of its shuffle (middle), and how far each
   * word's output moved (right); stacked on a narrow screen. values: {shuffle, positions};
   * data: {words, dim, wordVectors, qkvWeight, qkvBias, outWeight, outBias}.
   */
  window.posencExplorers = window.posencExplorers || {};
  window.posencExplorers.permutation = function (canvas, values, data) {
    var P = window.posencPlot;
    var perm = values.shuffle;
    var positions = values.positions;
    var words = data.words;
    var n = words.length;
    var result = shuffled(data, perm, positions);
    var withPositions = positions ? result : shuffled(data, perm, true);
    var isIdentity = perm.every(function (w, i) { return w === i; });
    var top = isIdentity ? 1 : Math.max(Math.max.apply(null, withPositions.delta), 1e-3) * 1.15;
    var shuffledWords = perm.map(function (w) { return words[w]; });

    var TICK = 12;
    var LABEL = 13;
    var TITLE = 13;
    var width = P.layoutWidth(canvas);
    var wordWidth = P.widest(words, LABEL);
    var tag = positions ? "with positions" : "no positions";
    var titles = [
      ["attention, original order", tag],
      ["attention, shuffled order", tag],
      ["per-word output change", "max = " + P.format(Math.max.apply(null, result.delta), ".1e")],
    ];
    var titleH = P.TITLE_PAD + 2 * 1.2 * TITLE + 6;
    var keysH = 6 + 1.2 * LABEL + 6; // "keys: same order as rows" under a heatmap
    var barsBelow = 10 + wordWidth * Math.sin(Math.PI / 3) + 1.2 * LABEL;
    var barTickW = P.measure(P.tickLabel(Math.round((top / 2) * 100) / 100), TICK);
    var barsLeft = 4 + 1.2 * LABEL + P.LABEL_PAD + Math.max(barTickW, P.measure("0.00", TICK)) +
      P.TICK_PAD + P.TICK_LENGTH;
    // the colour bar right of the middle heatmap: its gap, bar, ticks, labels and label
    var cbarW = 24 + P.TICK_LENGTH + P.TICK_PAD + P.measure("0.5", TICK) + P.LABEL_PAD +
      1.2 * TICK + 18;
    var heatLeft = wordWidth + 10;
    var boxes = [];
    var height;
    if (width >= 560) {
      var room = width - 2 * heatLeft - cbarW - barsLeft - 18 - 16;
      var side = Math.min(230, room / 3.1);
      var barW = Math.min(260, room - 2 * side);
      var top0 = titleH;
      var x = heatLeft;
      boxes.push([x, top0, side, side]);
      x += side + 16 + heatLeft;
      boxes.push([x, top0, side, side]);
      x += side + cbarW + barsLeft;
      boxes.push([x, top0, barW, side]);
      height = Math.ceil(top0 + side + Math.max(keysH, barsBelow) + 6);
    } else {
      var sideN = Math.min(240, width - heatLeft - cbarW - 8);
      var y = titleH;
      boxes.push([heatLeft, y, sideN, sideN]);
      y += sideN + keysH + titleH;
      boxes.push([heatLeft, y, sideN, sideN]);
      y += sideN + keysH + titleH;
      var barWN = Math.min(300, width - barsLeft - 12);
      boxes.push([barsLeft, y, barWN, Math.round(0.6 * barWN)]);
      height = Math.ceil(y + boxes[2][3] + barsBelow + 6);
    }

    var fig = P.figure(canvas, height);
    var text = { tick: TICK, label: LABEL, title: TITLE };
    [[result.a, words], [result.aPerm, shuffledWords]].forEach(function (panel, k) {
      var ax = fig.axesAt(boxes[k], text);
      ax.xlim(-0.5, n - 0.5).ylim(n - 0.5, -0.5);
      ax.image(flat(panel[0]), n, n, { cmap: "viridis", vmin: 0, vmax: 1 });
      ax.xlabel("keys: same order as rows").title(titles[k]);
      ax.draw();
      panel[1].forEach(function (word, r) {
        fig.text(ax.left - 6, ax.py(r), word, { size: LABEL, align: "right", baseline: "middle" });
      });
      if (k === 1) {
        // book.figures._base.inset_colorbar: a gap of 5 % of the heatmap's width, 6 % wide
        fig.colorbar([ax.left + ax.width + 0.05 * ax.width, ax.top, Math.max(8, 0.06 * ax.width),
          ax.height], {
          cmap: "viridis", vmin: 0, vmax: 1, ticks: [0, 0.5, 1], labels: ["0.0", "0.5", "1.0"],
          size: TICK, outline: 1.1, tickWidth: 1.1, label: "attention weight",
        });
      }
    });
    var bars = fig.axesAt(boxes[2], text);
    bars.xlim(-0.5 - 0.1, n - 0.5 + 0.1).ylim(0, top);
    bars.bar(words.map(function (word, w) { return w; }),
      words.map(function (word, w) { return Math.min(result.delta[w], top); }),
      { width: 0.8, color: positions ? RED : BLUE });
    bars.yticks([0, Math.round((top / 2) * 100) / 100], ["0.00", (Math.round((top / 2) * 100) /
      100).toFixed(2)]);
    bars.ylabel("\u2016output change\u2016").title(titles[2]);
    bars.draw();
    words.forEach(function (word, k) {
      fig.text(bars.px(k) + 4, bars.top + bars.height + 8, word, {
        size: LABEL, align: "right", baseline: "top", rotate: -Math.PI / 3,
      });
    });
    fig.finish();
    canvas.posencData = {
      values: values, perm: perm, a: result.a, aPerm: result.aPerm, delta: result.delta,
    };
  };
})();
