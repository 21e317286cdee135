// SPDX-License-Identifier: MIT (see LICENSE at the root of the book's repository)
//
// drawers/t5.js: chapter 9's live T5 explorer (book/explorers/t5.py), drawn with posenc's
// JavaScript twin (window.posenc) and plot.js (window.posencPlot); set up by explorers.js.
(function () {
  "use strict";

  // matplotlib's "turbo" as plot.js stores its colormaps (book.explorers.explorer.colormap_hex
  // ("turbo"); tests/book/explorers/test_t5.py compares them): not one of plot.js's own
  var TURBO =
    "30123b31154232184a341b51351e5836215f37236538266c3929723a2c793b2f7f3c32853c358b3d3791" +
    "3e3a963f3d9c4040a14043a64145ab4148b0424bb5434eba4350be4353c24456c74458cb455bce455ed2" +
    "4560d64563d94666dd4668e0466be3466de64670e84673eb4675ed4678f0467af2467df4467ff64682f8" +
    "4584f94587fb4589fc448cfd438efd4291fe4193fe4096fe3f98fe3e9bfe3c9dfd3ba0fc39a2fc38a5fb" +
    "36a8f934aaf833acf631aff52fb1f32db4f12bb6ef2ab9ed28bbeb26bde925c0e623c2e421c4e120c6df" +
    "1ec9dc1dcbda1ccdd71bcfd41ad1d219d3cf18d5cc18d7ca17d9c717dac417dcc217debf18e0bd18e1ba" +
    "19e3b81ae4b61be5b41de7b11ee8af20e9ac22eba924eca627eda329eea02cef9d2ff09a32f19735f394" +
    "38f4913bf48d3ff58a42f68746f7834af8804df97c51f97955fa7659fb725dfb6f61fc6c65fc6869fd65" +
    "6dfd6271fd5f74fe5c78fe597cfe5680fe5384fe5087fe4d8bfe4b8efe4892fe4695fe4498fe429bfd40" +
    "9efd3ea1fc3da4fc3ba6fb3aa9fb39acfa37aef937b1f836b3f835b6f735b9f534bbf434bef334c0f233" +
    "c3f133c5ef33c8ee33caed33cdeb34cfea34d1e834d4e735d6e535d8e335dae236dde036dfde36e1dc37" +
    "e3da37e5d838e7d738e8d538ead339ecd139edcf39efcd39f0cb3af2c83af3c63af4c43af6c23af7c039" +
    "f8be39f9bc39f9ba38fab737fbb537fbb336fcb035fcae34fdab33fda932fda631fda330fea12ffe9e2e" +
    "fe9b2dfe982cfd952bfd9229fd8f28fd8c27fc8926fc8624fb8323fb8022fa7d20fa7a1ff9771ef8741c" +
    "f7711bf76e1af66b18f56817f46516f36315f26014f15d13ef5a11ee5810ed550fec520eea500de94d0d" +
    "e84b0ce6490be5460ae3440ae24209e04008de3e08dd3c07db3a07d93806d73606d63405d43205d23005" +
    "d02f04ce2d04cb2b03c92903c72803c52602c32402c02302be2102bb1f01b91e01b61c01b41b01b11901" +
    "ae1801ac1601a91501a61401a31201a011019d10019a0e01970d01940c01910b018e0a018b0901870801" +
    "8407018106027d05027a0402";

  /** Vertical lines at xs (data) over the axes' full height (ax.vlines in axes fraction 0..1,
   * or axvline with `dash` = [on, off] in CSS px, matplotlib's ls="--"). */
  function vlines(ax, xs, color, width, dash) {
    var ctx = ax.clip();
    ctx.beginPath();
    xs.forEach(function (x) {
      ctx.moveTo(ax.px(x), ax.top);
      ctx.lineTo(ax.px(x), ax.top + ax.height);
    });
    ctx.strokeStyle = color;
    ctx.lineWidth = width;
    if (dash) ctx.setLineDash(dash);
    ctx.stroke();
    ctx.restore();
  }

  /** matplotlib's step(xs, ys, where="mid"): the vertices of its path. */
  function stepMid(xs, ys) {
    var n = xs.length;
    var px = new Float64Array(2 * n);
    var py = new Float64Array(2 * n);
    px[0] = xs[0];
    py[0] = ys[0];
    for (var k = 0; k < n - 1; k++) {
      var mid = (xs[k] + xs[k + 1]) / 2;
      px[2 * k + 1] = mid;
      py[2 * k + 1] = ys[k];
      px[2 * k + 2] = mid;
      py[2 * k + 2] = ys[k + 1];
    }
    px[2 * n - 1] = xs[n - 1];
    py[2 * n - 1] = ys[n - 1];
    return [px, py];
  }

  /** How many different values `values` (small non-negative integers) holds (np.unique). */
  function distinct(values) {
    var seen = {};
    var count = 0;
    for (var i = 0; i < values.length; i++) {
      if (!seen[values[i]]) {
        seen[values[i]] = true;
        count++;
      }
    }
    return count;
  }

  /**
   * Chapter 9: T5's bucket of every offset in −M..M (left: step plot, exact range shaded,
   * bucket edges grey, ±max_distance dashed red) and of every query-key pair of n tokens (right:
   * one turbo colour per bucket), as book.figures.t5.t5_explorer_figure draws them; stacked on
   * a narrow screen. values: {num_buckets, max_distance, bidirectional, tokens}; data:
   * {max_offset}.
   */
  window.posencExplorers = window.posencExplorers || {};
  window.posencExplorers.t5 = function (canvas, values, data) {
    var P = window.posencPlot;
    var T = window.posenc;
    var B = values.num_buckets;
    var D = values.max_distance;
    var bidirectional = values.bidirectional;
    var n = values.tokens;
    var M = data.max_offset;

    // left: the bucket of each offset
    var offsets = [];
    for (var r = -M; r <= M; r++) offsets.push(r);
    var buckets = T.t5RelativeBucket(offsets, bidirectional, B, D); // [2M + 1]
    var perSide = bidirectional ? B / 2 : B;
    var exact = Math.floor(perSide / 2);
    var starts = T.t5BucketStarts(bidirectional, B, D).filter(function (s) {
      return s >= exact; // the logarithmic buckets' first distances
    });
    var edges = starts.map(function (s) { return -s - 0.5; });
    if (bidirectional) edges = edges.concat(starts.map(function (s) { return s - 0.5; }));
    edges = edges.filter(function (e) { return e > -M && e < M; });
    var dashed = (bidirectional ? [-D, D] : [-D]).filter(function () { return D <= M; });
    var xTicks = [0];
    if (D <= M) xTicks = xTicks.concat(bidirectional ? [-D, D] : [-D]);
    if (M - D > 0.15 * M) xTicks = xTicks.concat([-M, M]);
    xTicks = xTicks.filter(function (t, q) { return xTicks.indexOf(t) === q; })
      .sort(function (a, b) { return a - b; });
    var used = distinct(buckets);

    // right: the bucket of every query-key pair, bucket(j − i)
    var near = [];
    for (r = -(n - 1); r <= n - 1; r++) near.push(r);
    var nearBuckets = T.t5RelativeBucket(near, bidirectional, B, D); // [2n − 1]
    var index = new Int32Array(n * n);
    for (var i = 0; i < n; i++) {
      for (var j = 0; j < n; j++) index[i * n + j] = nearBuckets[j - i + n - 1];
    }
    var usedNear = distinct(nearBuckets);

    var TICK = 12;
    var LABEL = 13;
    var TITLE = 13;
    var width = window.posencPlot.layoutWidth(canvas);
    var widest = P.measure(P.tickLabel(B - 1), TICK);
    var leftAside = Math.max(26, 4 + LABEL + P.LABEL_PAD + widest + P.TICK_PAD + P.TICK_LENGTH);
    var right = 20; // half the widest x tick label overhangs the axes
    var below = P.TICK_LENGTH + P.TICK_PAD + 1.2 * TICK + P.LABEL_PAD + 1.2 * LABEL + 4;
    var kind = bidirectional ? "bidirectional (encoder)" : "unidirectional (decoder)";
    var minus = "\u2212";
    var headings = [
      [B + " buckets, max_distance " + D + ",", kind,
        "offsets " + minus + M + " \u2026 " + M + " use " + used + " buckets"],
      ["bucket of each pair, " + n + " tokens",
        "offsets " + minus + (n - 1) + " \u2026 " + (n - 1) + " use " + usedNear],
    ];
    var boxes = []; // [left, top, width, height, headingLines] in CSS px
    var height;
    if (width >= 560) {
      var gap = 36;
      var room = width - leftAside - right;
      var side = Math.round(Math.min(300, 0.36 * room));
      var plotW = room - gap - side;
      var lines = [P.wrap(headings[0], TITLE, plotW + gap / 2),
        P.wrap(headings[1], TITLE, side + gap)];
      var top = 8 + P.TITLE_PAD + 1.2 * TITLE * Math.max(lines[0].length, lines[1].length);
      boxes.push([leftAside, top, plotW, side, lines[0]]);
      boxes.push([leftAside + plotW + gap, top, side, side, lines[1]]);
      height = Math.ceil(top + side + below);
    } else {
      var w = Math.max(40, width - leftAside - right);
      var h = Math.max(150, Math.min(240, Math.round(0.62 * w)));
      var first = P.wrap(headings[0], TITLE, w + 2 * Math.min(leftAside, right));
      var top1 = 8 + P.TITLE_PAD + 1.2 * TITLE * first.length;
      boxes.push([leftAside, top1, w, h, first]);
      var s = Math.min(w, 320);
      var second = P.wrap(headings[1], TITLE, width - 12);
      var top2 = top1 + h + below + 8 + P.TITLE_PAD + 1.2 * TITLE * second.length;
      boxes.push([leftAside + (w - s) / 2, top2, s, s, second]);
      height = Math.ceil(top2 + s + 26);
    }

    var fig = P.figure(canvas, height);
    var text = { tick: TICK, label: LABEL, title: TITLE };

    var left = fig.axesAt(boxes[0], text);
    left.xlim(offsets[0] - 0.5, offsets[offsets.length - 1] + 0.5).ylim(-1, B);
    left.axvspan(-exact + 0.5, bidirectional ? exact - 0.5 : 0.5, "rgba(44,160,44,0.15)");
    vlines(left, edges, "#cccccc", 0.83);
    if (dashed.length) vlines(left, dashed, "#d62728", 1.25, [4.63, 2.0]);
    var step = stepMid(offsets, buckets);
    left.plot(step[0], step[1], { color: "#000000", width: 1.67 });
    left.xticks(xTicks).yticks([0, B - 1]);
    left.xlabel("offset j \u2212 i").ylabel("bucket").title(boxes[0][4]);
    left.draw();

    // the bucket image has no axis (set_axis_off): no spines, no ticks, its heading above
    var image = fig.axesAt(boxes[1], text);
    image.xlim(-0.5, n - 0.5).ylim(n - 0.5, -0.5);
    image.image(index, n, n, { lut: P.lutFromHex(TURBO), vmin: 0, vmax: B - 1 });
    fig.textLines(image.left + image.width / 2, image.top - P.TITLE_PAD, boxes[1][4], {
      size: TITLE, align: "center", above: true,
    });

    fig.finish();
    canvas.posencData = {
      values: values, maxOffset: M, offsets: offsets, buckets: buckets, used: used,
      exact: exact, edges: edges, xTicks: xTicks, index: index, usedNear: usedNear,
    };
  };
})();
