// SPDX-License-Identifier: MIT (see LICENSE at the root of the book's repository)
//
// drawers/rotary_stretch.js: chapter 11's live explorer (book/explorers/rotary.py,
// rotary_stretch_explorer), drawn with posenc's JavaScript twin (window.posenc) and plot.js
// (window.posencPlot); set up by explorers.js.
(function () {
  "use strict";

  var PT = 100 / 72; // CSS px per point: the book's figures are shown at 100 CSS px per inch
  // book.figures.rotary._STRETCH_STYLES: label, colour (tab10), line style, marker
  var STYLES = {
    plain: { label: "plain RoPE", colour: "#000000", dash: "-", marker: "" },
    linear: { label: "linear (PI)", colour: "#1f77b4", dash: "--", marker: "o" },
    ntk: { label: "NTK-aware", colour: "#ff7f0e", dash: "-.", marker: "s" },
    dynamic: { label: "dynamic NTK", colour: "#2ca02c", dash: ":", marker: "^" },
    yarn: { label: "YaRN", colour: "#d62728", dash: "-", marker: "D" },
    llama3: { label: "Llama 3.1", colour: "#9467bd", dash: "--", marker: "v" },
  };
  var SHADE = "#ebebeb"; // "0.92": pairs that never made a full turn in training
  var GUIDE = "#595959"; // "0.35": the L₀, s·L₀ and s lines
  var NOTE = "#404040"; // "0.25": their labels
  var METHOD_WIDTH = 1.3 * PT;
  var PLAIN_WIDTH = 1.6 * PT;
  var MARKER = 4 * PT; // ms = 4
  // camelCase option of the twin -> the explorer's frame (book.figures.rotary._stretch_frequencies)
  var FULL = ["factor", "originalMaxPositions", "seqLen", "rotaryDim"];

  /**
   * One method's frequencies as the figure asks for them (book.figures.rotary.
   * _stretch_frequencies): the twin's scaledRotaryFrequencies with the base and, of factor,
   * originalMaxPositions, seqLen = round(s·L₀) (dynamic NTK at the target length) and
   * rotaryDim, those the method reads (rotaryScalingReads).
   */
  function stretchFrequencies(method, dim, base, factor, trained) {
    var T = window.posenc;
    var full = {
      factor: factor,
      originalMaxPositions: trained,
      seqLen: window.posencPlot.roundHalfEven(factor * trained), // Python's round
      rotaryDim: Math.max(2, Math.floor(Math.floor(dim / 4) / 2) * 2),
    };
    var reads = T.rotaryScalingReads(method);
    var options = { base: base };
    FULL.forEach(function (name) {
      if (reads.indexOf(name) >= 0) options[name] = full[name];
    });
    var out = T.scaledRotaryFrequencies(dim, method, options);
    return { invFreq: out.invFreq, attentionScale: out.attentionScale, options: options };
  }

  // -- drawing helpers plot.js lacks --------------------------------------------------------

  /** A legend entry's sample: a short line in its style with one marker in the middle. */
  function legendSample(fig, x, y, length, style, width) {
    var P = window.posencPlot;
    var ctx = fig.ctx;
    ctx.save();
    ctx.beginPath();
    ctx.moveTo(x, y);
    ctx.lineTo(x + length, y);
    ctx.setLineDash(P.dashes(style.dash, width));
    ctx.strokeStyle = style.colour;
    ctx.lineWidth = width;
    ctx.stroke();
    if (style.marker) P.marker(ctx, style.marker, x + length / 2, y, MARKER, style.colour);
    ctx.restore();
  }

  /**
   * Chapter 11: which channel pairs one way of stretching RoPE squeezes, and by how much, as
   * book.figures.rotary.rotary_stretch_explorer_figure draws it: left, the wavelength 2π/θ′ of
   * every pair (log scale) under plain RoPE and under the method, against the trained length
   * L₀ (dashed) and the target s·L₀ (dotted), the pairs that never made a full turn in training
   * shaded; right, the per-pair squeeze θ/θ′ (log scale), from 1 (kept) to s (interpolated).
   * Side by side on a wide canvas, stacked on a narrow one; the legend below. values: {method,
   * factor}; data: {dim, base, original_max_positions} (the explorer's fixed head).
   */
  window.posencExplorers = window.posencExplorers || {};
  window.posencExplorers.rotary_stretch = function (canvas, values, data) {
    var P = window.posencPlot;
    var T = window.posenc;
    var method = values.method;
    var factor = values.factor;
    var dim = data.dim;
    var base = data.base;
    var trained = data.original_max_positions;
    var half = dim / 2;
    var pairs = [];
    for (var i = 0; i < half; i++) pairs.push(i);
    var plain = T.sinusoidalFrequencies(dim, base); // [d/2]
    var wave = plain.map(function (t) { return (2 * Math.PI) / t; });
    var scaled = stretchFrequencies(method, dim, base, factor, trained);
    var theta = scaled.invFreq; // [d/2]
    var stretched = theta.map(function (t) { return (2 * Math.PI) / t; });
    var squeeze = plain.map(function (t, k) { return t / theta[k]; });
    var longest = Math.max(Math.max.apply(null, wave), Math.max.apply(null, stretched));
    var top = Math.max(longest * 4, factor * trained * 10);
    var highest = Math.max(factor, Math.max.apply(null, squeeze));
    var unseen = -1; // the first pair whose plain wavelength passes L₀
    for (var k = 0; k < half; k++) {
      if (wave[k] > trained) {
        unseen = k;
        break;
      }
    }
    var every = Math.max(1, Math.floor(half / 16));
    var style = STYLES[method];
    var log = function (v) { return Math.log10(v); };

    // ticks: decades two apart on the left, powers of 2 on the right (every other past 16)
    var leftTicks = [];
    for (var e = 0; e <= Math.floor(Math.log10(top) + 1e-12); e += 2) leftTicks.push(e);
    var step = highest <= 16 ? 1 : 2;
    var rightTicks = [];
    for (var f = 0; f <= Math.floor(Math.log2(highest * 1.8) + 1e-12); f += step) {
      rightTicks.push(Math.pow(2, f));
    }

    var TICK = 12;
    var LABEL = 13;
    var TITLE = 13;
    var NOTE_PX = 12;
    var width = window.posencPlot.layoutWidth(canvas);
    var leftLabels = leftTicks.map(P.powerOfTen);
    var rightLabels = rightTicks.map(P.formatG);
    var aside = function (tickLabels) {
      return 4 + LABEL + P.LABEL_PAD + P.widest(tickLabels, TICK) + P.TICK_PAD + P.TICK_LENGTH;
    };
    var leftAside = aside(leftLabels);
    var rightAside = aside(rightLabels);
    var ylabels = ["wavelength 2\u03c0/\u03b8\u2032\u1d62 (positions)",
      "squeeze \u03b8\u1d62 / \u03b8\u2032\u1d62"];
    var titles = ["d = " + dim + ", base = " + P.formatG(base),
      "s = " + P.formatG(factor) + ": 1 kept, s interpolated"];
    var xlabel = "channel pair i (fast \u2192 slow)";
    var below = P.TICK_LENGTH + P.TICK_PAD + 1.2 * TICK + P.LABEL_PAD + 1.2 * LABEL + 6;
    var right = 14; // half of the last x tick label overhangs the axes
    var labelRoom = P.widest(ylabels, LABEL) + 12; // each y label fits its axes' height
    var legend = [STYLES.plain, style];
    var handle = 2 * TICK * 1.5; // legend.handlelength = 2 (font sizes)
    var entryWidths = legend.map(function (s) {
      return handle + 0.8 * TICK + P.measure(s.label, TICK);
    });
    var legendWidth = entryWidths[0] + entryWidths[1] + 2 * TICK;
    var legendRows = legendWidth <= width - 16 ? 1 : 2;
    var legendHeight = legendRows * 1.5 * TICK + 8;
    var boxes = [];
    var height;
    if (width >= 560) {
      var gap = 18;
      var panelW = (width - leftAside - rightAside - gap - right) / 2;
      var panelH = Math.max(labelRoom, Math.min(300, Math.round(0.75 * panelW)));
      var spare = [Math.min(leftAside, (gap + rightAside) / 2), Math.min((gap + rightAside) / 2,
        right)];
      var lines = titles.map(function (t, j) { return P.wrap(t, TITLE, panelW + 2 * spare[j]); });
      var top0 = 6 + P.TITLE_PAD + 1.2 * TITLE * Math.max(lines[0].length, lines[1].length);
      boxes.push([leftAside, top0, panelW, panelH, lines[0]]);
      boxes.push([leftAside + panelW + gap + rightAside, top0, panelW, panelH, lines[1]]);
      height = Math.ceil(top0 + panelH + below + legendHeight);
    } else {
      var left = Math.max(leftAside, rightAside);
      var w = Math.max(40, width - left - right);
      var y = 0;
      [0, 1].forEach(function (j) {
        var titleLines = P.wrap(titles[j], TITLE, w + 2 * Math.min(left, right));
        var panelTop = y + 6 + P.TITLE_PAD + 1.2 * TITLE * titleLines.length;
        var h = Math.max(labelRoom, Math.min(280, Math.round(0.7 * w)));
        boxes.push([left, panelTop, w, h, titleLines]);
        y = panelTop + h + below;
      });
      height = Math.ceil(y + legendHeight);
    }

    var fig = P.figure(canvas, height);
    var W = fig.width;
    var text = { tick: TICK, label: LABEL, title: TITLE };
    var xticks = pairTicks(half);
    // the method's line and, at every `every`-th pair, its markers
    var method = function (ax, ys) {
      ax.plot(pairs, ys, { color: style.colour, width: METHOD_WIDTH, dash: style.dash });
      if (style.marker) {
        ax.markers(pairs, ys, { marker: style.marker, size: MARKER, color: style.colour,
          every: every });
      }
    };
    var across = [-0.5, half - 0.5];

    // left: wavelengths (log10 on a linear axis)
    var waveAx = fig.axesAt(boxes[0], text);
    waveAx.xlim(-0.5, half - 0.5).ylim(0, log(top));
    if (unseen >= 0) waveAx.axvspan(unseen - 0.5, half - 0.5, SHADE);
    var guides = [[trained, "--", "L\u2080 = " + P.formatG(trained)],
      [factor * trained, ":", "sL\u2080 = " + P.formatG(factor * trained)]];
    guides.forEach(function (line) {
      waveAx.plot(across, [log(line[0]), log(line[0])], { color: GUIDE, width: PT,
        dash: line[1] });
    });
    method(waveAx, stretched.map(log));
    waveAx.plot(pairs, wave.map(log), { color: "#000000", width: PLAIN_WIDTH });
    // each line's label under it at the right (above the s·L₀ line when the two are too close)
    var gapPx = waveAx.py(log(trained)) - waveAx.py(log(factor * trained));
    guides.forEach(function (line, j) {
      var above = j === 1 && gapPx < 1.4 * NOTE_PX;
      fig.text(waveAx.px(half - 1), waveAx.py(log(line[0])) + (above ? -3 : 3), line[2], {
        size: NOTE_PX, align: "right", baseline: above ? "bottom" : "top", color: NOTE,
      });
    });
    waveAx.xticks(xticks).yticks(leftTicks, leftLabels);
    waveAx.xlabel(xlabel).ylabel(ylabels[0]).title(boxes[0][4]);
    waveAx.draw();

    // right: the squeeze θ/θ′ (log10 on a linear axis)
    var squeezeAx = fig.axesAt(boxes[1], text);
    squeezeAx.xlim(-0.5, half - 0.5).ylim(log(0.8), log(highest * 1.8));
    if (unseen >= 0) squeezeAx.axvspan(unseen - 0.5, half - 0.5, SHADE);
    squeezeAx.plot(across, [0, 0], { color: "#000000", width: PLAIN_WIDTH });
    squeezeAx.plot(across, [log(factor), log(factor)], { color: GUIDE, width: PT, dash: ":" });
    method(squeezeAx, squeeze.map(log));
    fig.text(squeezeAx.px(0.5), squeezeAx.py(log(factor * 1.12)), "s = " + P.formatG(factor), {
      size: NOTE_PX, align: "left", baseline: "bottom", color: NOTE,
    });
    squeezeAx.xticks(xticks).yticks(rightTicks.map(log), rightLabels);
    squeezeAx.xlabel(xlabel).ylabel(ylabels[1]).title(boxes[1][4]);
    squeezeAx.draw();

    // the legend, centred below: plain RoPE and the method
    var rowY = height - legendHeight + 4 + 0.75 * TICK;
    var starts = [];
    if (legendRows === 1) {
      var x0 = (W - legendWidth) / 2;
      starts = [[x0, rowY], [x0 + entryWidths[0] + 2 * TICK, rowY]];
    } else {
      starts = entryWidths.map(function (ew, j) { return [(W - ew) / 2, rowY + j * 1.5 * TICK]; });
    }
    legend.forEach(function (s, j) {
      var at = starts[j];
      legendSample(fig, at[0], at[1], handle, s, s === STYLES.plain ? PLAIN_WIDTH : METHOD_WIDTH);
      fig.text(at[0] + handle + 0.8 * TICK, at[1], s.label, { size: TICK, baseline: "middle" });
    });

    fig.finish();
    canvas.posencData = {
      values: values, plain: plain, invFreq: theta, attentionScale: scaled.attentionScale,
      options: scaled.options, wave: wave, stretched: stretched, squeeze: squeeze, top: top,
      highest: highest, unseen: unseen,
    };
  };

  /** Ticks along the pairs 0 .. half − 1: the first of 1, 2, 5, 10, 20, 50, ... apart that
   * gives at most 7 (0, 10, ..., 60 for 64 pairs, as the figure's). */
  function pairTicks(half) {
    var steps = [1, 2, 5];
    for (var k = 0; ; k++) {
      var stepX = steps[k % 3] * Math.pow(10, Math.floor(k / 3));
      if (Math.floor((half - 1) / stepX) + 1 <= 7) {
        var ticks = [];
        for (var t = 0; t <= half - 1; t += stepX) ticks.push(t);
        return ticks;
      }
    }
  }
})();
