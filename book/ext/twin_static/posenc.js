// SPDX-License-Identifier: MIT (see LICENSE at the root of the book's repository)
//
// posenc.js: a JavaScript twin of the closed-form functions of the Python package posenc,
// for the book's explorers, which run in the reader's browser with no kernel. Each function
// computes what its Python twin computes (named in its doc comment), from the same formula in
// the same order of operations, in float64; where the Python function returns float32 (or,
// in T5's buckets, computes in float32) the twin rounds the same way with Math.fround. Tensors
// become plain (nested) arrays of numbers, keyword arguments positional ones in the Python
// order (an options object for scaledRotaryFrequencies), snake_case names camelCase.
//
// Arguments are checked as posenc checks them: a value of the wrong kind throws a TypeError,
// a value of the right kind that breaks a rule (posenc's ValueError) a RangeError, and the
// message names the argument and the rule. `undefined` takes the default; `null` stands for
// Python's None where posenc's default is None.
//
// The golden tests in tests/browser/test_twin.py hold this file to posenc: they run every case
// of tests/data/posenc_twin_golden.json (written by `python -m book.tools.twin_golden` from the
// Python functions) here and compare, and every function below must have cases there.
//
// Plain ES2017, no dependencies, no build step: load it with a <script> tag and use
// `window.posenc`.
(function () {
  "use strict";

  // -- argument checks (twins of posenc/_checks.py) ------------------------------------------

  function describe(value) {
    if (value === null) return "null";
    if (value === undefined) return "undefined";
    if (Array.isArray(value)) return "array " + JSON.stringify(value).slice(0, 60);
    if (typeof value === "string") return "string " + JSON.stringify(value);
    if (typeof value === "object") return "object";
    return typeof value + " " + String(value);
  }

  // posenc._checks.check_int: an integer >= minimum (null: any integer).
  function checkInt(name, value, minimum) {
    if (minimum === undefined) minimum = 1;
    if (typeof value !== "number" || !Number.isInteger(value)) {
      throw new TypeError(name + " must be an integer, got " + describe(value));
    }
    if (minimum !== null && value < minimum) {
      const rule = minimum === 1 ? "positive" : ">= " + minimum;
      throw new RangeError(name + " must be " + rule + ", got " + value);
    }
    return value;
  }

  // posenc._checks.check_even: an even integer >= minimum (2 by default).
  function checkEven(name, value, minimum) {
    checkInt(name, value, minimum === undefined ? 2 : minimum);
    if (value % 2) {
      throw new RangeError(name + " must be even (sin/cos come in pairs), got " + value);
    }
    return value;
  }

  // posenc._checks.check_multiple: a positive multiple of factor.
  function checkMultiple(name, value, factor, why) {
    checkInt(name, value);
    if (value % factor) {
      throw new RangeError(
        name + " must be a multiple of " + factor + " (" + why + "), got " + value,
      );
    }
    return value;
  }

  // posenc._checks.check_bool: true or false (not 0, 1 or "false").
  function checkBool(name, value) {
    if (typeof value !== "boolean") {
      throw new TypeError(name + " must be a boolean (true or false), got " + describe(value));
    }
    return value;
  }

  // posenc._checks.check_real: a finite number, above `minimum` (exclusive) when given.
  function checkReal(name, value, minimum) {
    if (typeof value !== "number") {
      throw new TypeError(name + " must be a real number, got " + describe(value));
    }
    const words =
      minimum === undefined ? "a finite number" : "a finite number > " + String(minimum);
    if (!Number.isFinite(value) || (minimum !== undefined && value <= minimum)) {
      throw new RangeError(name + " must be " + words + ", got " + value);
    }
    return value;
  }

  // posenc._checks.check_positive_float: a finite number > 0.
  function checkPositive(name, value) {
    return checkReal(name, value, 0);
  }

  // posenc._checks.check_base: a finite number > 1 (a base of 1 makes every frequency 1).
  function checkBase(name, value) {
    return checkReal(name, value, 1);
  }

  // posenc._checks.check_shape: an array of at least one integer >= minimum (rank entries).
  function checkShape(name, shape, rank, minimum) {
    if (!Array.isArray(shape)) {
      throw new TypeError(name + " must be an array of integers such as [7, 7], got " +
        describe(shape));
    }
    if (shape.length === 0) {
      throw new RangeError(name + " must have at least one axis, got []");
    }
    if (rank !== undefined && rank !== null && shape.length !== rank) {
      throw new RangeError(name + " must have " + rank + " entries, got " + describe(shape));
    }
    return shape.map(function (s, a) {
      return checkInt(name + "[" + a + "]", s, minimum === undefined ? 1 : minimum);
    });
  }

  // posenc._checks.check_pair: two integers >= minimum, e.g. a window [Wh, Ww].
  function checkPair(name, value, minimum) {
    if (!Array.isArray(value)) {
      throw new TypeError(name + " must be a pair of integers, got " + describe(value));
    }
    if (value.length !== 2) {
      throw new RangeError(name + " must have two entries, got " + describe(value));
    }
    const low = minimum === undefined ? 1 : minimum;
    return [checkInt(name + "[0]", value[0], low), checkInt(name + "[1]", value[1], low)];
  }

  // One finite real number of an array (a tensor entry): TypeError if not a number,
  // RangeError if NaN or infinite (posenc's check_finite).
  function checkEntry(name, value) {
    if (typeof value !== "number") {
      throw new TypeError(name + " must hold real numbers, got " + describe(value));
    }
    if (!Number.isFinite(value)) {
      throw new RangeError(name + " must be finite, got " + value);
    }
    return value;
  }

  // posenc._checks.as_positions: an integer n (positions 0..n-1) or a 1-D array of finite
  // numbers (a 1-D tensor).
  function asPositions(name, positions) {
    if (Array.isArray(positions)) {
      return positions.map(function (p) {
        if (Array.isArray(p)) {
          throw new RangeError(name + " must be a 1-D array of positions, got a nested array");
        }
        return checkEntry(name, p);
      });
    }
    return range(checkInt(name, positions));
  }

  function range(n) {
    const out = new Array(n);
    for (let i = 0; i < n; i++) out[i] = i;
    return out;
  }

  function isGiven(value) {
    return value !== undefined && value !== null;
  }

  // -- sinusoidal and numeric encodings --------------------------------------------------------

  /**
   * The angular frequency of each sin/cos pair.
   * Twin of `posenc.sinusoidal.sinusoidal_frequencies(dim, base=base)`.
   *
   *   omega_i = base^(-2i/d),  i = 0 .. d/2 - 1
   *
   * @param {number} dim d, the number of channels (even, >= 2).
   * @param {number} [base=10000] finite, > 1.
   * @returns {number[]} [d/2] frequencies.
   */
  function sinusoidalFrequencies(dim, base) {
    if (base === undefined) base = 10000;
    checkEven("dim", dim);
    checkBase("base", base);
    const out = new Array(dim / 2);
    for (let i = 0; i < dim / 2; i++) out[i] = Math.pow(base, (-2 * i) / dim);
    return out;
  }

  /**
   * The fixed sinusoidal encoding of Vaswani et al. (2017), in float64.
   * Twin of `posenc.sinusoidal.sinusoidal_encoding(positions, dim, base=base,
   * interleaved=interleaved, dtype=torch.float64)` (posenc's default dtype is float32; the
   * angles are float64 on both sides).
   *
   *   PE(p, 2i) = sin(p·omega_i),  PE(p, 2i+1) = cos(p·omega_i),  omega_i = base^(-2i/d)
   *
   * interleaved=true (posenc's default) alternates sin and cos channel by channel;
   * interleaved=false puts all sines, then all cosines.
   *
   * @param {number|number[]} positions an integer n (positions 0..n-1) or an array of finite
   *   positions (fractional and negative allowed).
   * @param {number} dim d (even).
   * @param {number} [base=10000] finite, > 1.
   * @param {boolean} [interleaved=true]
   * @returns {number[][]} [n][d].
   */
  function sinusoidalEncoding(positions, dim, base, interleaved) {
    if (base === undefined) base = 10000;
    if (interleaved === undefined) interleaved = true;
    const pos = asPositions("positions", positions);
    const omega = sinusoidalFrequencies(dim, base);
    checkBool("interleaved", interleaved);
    const half = dim / 2;
    return pos.map(function (p) {
      const row = new Array(dim);
      for (let i = 0; i < half; i++) {
        const angle = p * omega[i];
        if (interleaved) {
          row[2 * i] = Math.sin(angle);
          row[2 * i + 1] = Math.cos(angle);
        } else {
          row[i] = Math.sin(angle);
          row[half + i] = Math.cos(angle);
        }
      }
      return row;
    });
  }

  /**
   * A fixed 2-D sin/cos encoding: half the channels for the row, half for the column.
   * Twin of `posenc.absolute_2d.sinusoidal_encoding_2d(height, width, dim, base=base,
   * interleaved=interleaved, row_first=rowFirst)`, which returns float32: the values are
   * computed in float64 and rounded to float32 (Math.fround), as there.
   *
   *   PE(r, c) = [PE_1D(r) | PE_1D(c)] (rowFirst), [PE_1D(c) | PE_1D(r)] (otherwise)
   *
   * with PE_1D the 1-D encoding of d/2 channels; grid position (r, c) is row r·width + c.
   *
   * @param {number} height rows of the grid (positive).
   * @param {number} width columns of the grid (positive).
   * @param {number} dim d, a multiple of 4.
   * @param {number} [base=10000] finite, > 1.
   * @param {boolean} [interleaved=true] layout within each half.
   * @param {boolean} [rowFirst=true] whether the first half encodes the row.
   * @returns {number[][]} [height·width][d], float32 values.
   */
  function sinusoidalEncoding2d(height, width, dim, base, interleaved, rowFirst) {
    if (base === undefined) base = 10000;
    if (interleaved === undefined) interleaved = true;
    if (rowFirst === undefined) rowFirst = true;
    checkInt("height", height);
    checkInt("width", width);
    checkMultiple("dim", dim, 4, "half the channels per axis, each half in sin/cos pairs");
    checkBase("base", base);
    checkBool("interleaved", interleaved);
    checkBool("rowFirst", rowFirst);
    const rows = sinusoidalEncoding(height, dim / 2, base, interleaved);
    const cols = sinusoidalEncoding(width, dim / 2, base, interleaved);
    const out = [];
    for (let r = 0; r < height; r++) {
      for (let c = 0; c < width; c++) {
        const halves = rowFirst ? rows[r].concat(cols[c]) : cols[c].concat(rows[r]);
        out.push(halves.map(Math.fround));
      }
    }
    return out;
  }

  /**
   * Each position encoded by its own index, optionally scaled into [0, 1].
   * Twin of `posenc.numeric.numeric_encoding(n_positions, normalize=normalize)`, which returns
   * float32: p/(T-1) is computed in float64 and rounded with Math.fround, as there.
   *
   *   PE(p) = p,  or with normalize  PE(p) = p/(T-1)  (0 for T = 1)
   *
   * @param {number} nPositions T (positive integer).
   * @param {boolean} [normalize=false]
   * @returns {number[][]} [T][1], float32 values.
   */
  function numericEncoding(nPositions, normalize) {
    if (normalize === undefined) normalize = false;
    checkInt("nPositions", nPositions);
    checkBool("normalize", normalize);
    return range(nPositions).map(function (p) {
      const value = normalize && nPositions > 1 ? p / (nPositions - 1) : p;
      return [Math.fround(value)];
    });
  }

  /**
   * One sine of period 2π·alpha per position (and its cosine).
   * Twin of `posenc.numeric.periodic_encoding(positions, alpha=alpha, cosine=cosine)`, which
   * returns float32: sin(p/alpha) is computed in float64 and rounded with Math.fround.
   *
   *   PE(p) = sin(p/alpha),  or with cosine  PE(p) = (sin(p/alpha), cos(p/alpha))
   *
   * @param {number|number[]} positions an integer n (0..n-1) or an array of finite positions.
   * @param {number} alpha the wavelength over 2π (finite, > 0).
   * @param {boolean} [cosine=false]
   * @returns {number[][]} [n][1] or [n][2], float32 values.
   */
  function periodicEncoding(positions, alpha, cosine) {
    if (cosine === undefined) cosine = false;
    const pos = asPositions("positions", positions);
    checkPositive("alpha", alpha);
    checkBool("cosine", cosine);
    return pos.map(function (p) {
      const angle = p / alpha;
      const sin = Math.fround(Math.sin(angle));
      return cosine ? [sin, Math.fround(Math.cos(angle))] : [sin];
    });
  }

  // -- relative indices: Swin windows, Swin V2, Shaw, T5, ALiBi -------------------------------

  /**
   * The number of rows of a window's relative position bias table.
   * Twin of `posenc.window.relative_table_size(query_shape)`.
   *
   *   |T| = prod_a (2·Q_a − 1)
   *
   * @param {number[]} queryShape the window's size per axis.
   * @returns {number}
   */
  function relativeTableSize(queryShape) {
    return checkShape("queryShape", queryShape).reduce(function (n, s) {
      return n * (2 * s - 1);
    }, 1);
  }

  // Row-major coordinates of the points of a grid, each axis times its step: [prod(shape)][rank].
  function gridCoordinates(shape, step) {
    let coords = [[]];
    shape.forEach(function (size, a) {
      const next = [];
      coords.forEach(function (prefix) {
        for (let x = 0; x < size; x++) next.push(prefix.concat([x * step[a]]));
      });
      coords = next;
    });
    return coords;
  }

  /**
   * The index of each query-key pair's coordinate difference in a relative table (Swin's
   * relative_position_index; Video Swin in 3-D; RSTT with keyShape and keyStep).
   * Twin of `posenc.window.relative_position_index(query_shape, key_shape, key_step=key_step)`.
   *
   *   I_ij = sum_a (q_a − s_a·k_a + Q_a − 1) · prod_{b>a} (2·Q_b − 1)
   *
   * Query i and key j have row-major coordinates q and k on their grids; the difference is
   * query minus key (as in Swin), shifted to 0..2Q_a−2 and combined as mixed-radix digits.
   *
   * @param {number[]} queryShape the query window's size per axis, e.g. [Wh, Ww].
   * @param {number[]|null} [keyShape=queryShape] the key window's size per axis.
   * @param {number[]|null} [keyStep=all 1] spacing of key coordinates per axis.
   * @returns {number[][]} [prod(queryShape)][prod(keyShape)] integers.
   */
  function relativePositionIndex(queryShape, keyShape, keyStep) {
    const qShape = checkShape("queryShape", queryShape);
    const kShape = isGiven(keyShape) ? checkShape("keyShape", keyShape) : qShape;
    if (kShape.length !== qShape.length) {
      throw new RangeError("keyShape must have as many axes as queryShape (" + qShape.length +
        "), got " + describe(keyShape));
    }
    const step = isGiven(keyStep) ? checkShape("keyStep", keyStep) : qShape.map(function () {
      return 1;
    });
    if (step.length !== qShape.length) {
      throw new RangeError("keyStep must have as many axes as queryShape (" + qShape.length +
        "), got " + describe(keyStep));
    }
    qShape.forEach(function (q, a) {
      if ((kShape[a] - 1) * step[a] > q - 1) {
        throw new RangeError("key coordinates on axis " + a + " reach " +
          (kShape[a] - 1) * step[a] + " (keyShape[" + a + "]=" + kShape[a] +
          " times keyStep[" + a + "]=" + step[a] + "), outside the query extent 0.." +
          (q - 1) + ": their offsets have no entry in the table");
      }
    });
    const qCoords = gridCoordinates(qShape, qShape.map(function () {
      return 1;
    }));
    const kCoords = gridCoordinates(kShape, step);
    return qCoords.map(function (qc) {
      return kCoords.map(function (kc) {
        let index = 0;
        for (let a = 0; a < qShape.length; a++) {
          index = index * (2 * qShape[a] - 1) + (qc[a] - kc[a] + qShape[a] - 1);
        }
        return index;
      });
    });
  }

  /**
   * Swin V2's log-spaced coordinates of every offset of a window.
   * Twin of `posenc.window_v2.log_spaced_relative_coords(window_size, pretrained_window_size)`.
   *
   *   D~_a = 8·D_a/(P_a − 1),  D^_a = sign(D~_a)·log2(|D~_a| + 1)/log2(8)
   *
   * for the offsets D_a = −(W_a−1) .. W_a−1, P = pretrainedWindowSize or else windowSize
   * (an axis of size 1 is not divided). Entry [Dr + Wh − 1][Dc + Ww − 1] is offset (Dr, Dc).
   *
   * @param {number[]} windowSize [Wh, Ww].
   * @param {number[]|null} [pretrainedWindowSize=null] [Ph, Pw], each >= 2.
   * @returns {number[][][]} [2Wh−1][2Ww−1][2].
   */
  function logSpacedRelativeCoords(windowSize, pretrainedWindowSize) {
    const size = checkPair("windowSize", windowSize);
    let scale = size;
    if (isGiven(pretrainedWindowSize)) {
      scale = checkPair("pretrainedWindowSize", pretrainedWindowSize);
      if (Math.min(scale[0], scale[1]) < 2) {
        throw new RangeError("pretrainedWindowSize entries must be >= 2 (offsets are divided " +
          "by size − 1), got " + describe(pretrainedWindowSize));
      }
    }
    function squash(delta, axis) {
      let x = delta;
      if (scale[axis] > 1) x = x / (scale[axis] - 1);
      x = x * 8;
      return (Math.sign(x) * Math.log2(Math.abs(x) + 1)) / 3; // log2(8) = 3
    }
    const out = [];
    for (let dr = -(size[0] - 1); dr < size[0]; dr++) {
      const row = [];
      for (let dc = -(size[1] - 1); dc < size[1]; dc++) row.push([squash(dr, 0), squash(dc, 1)]);
      out.push(row);
    }
    return out;
  }

  /**
   * Shaw et al.'s clipped relative index of each query-key pair into a 2k+1 table.
   * Twin of `posenc.shaw.shaw_relative_index(n_q, n_k, max_relative_position)`.
   *
   *   I_ij = clip(j − i, −k, k) + k  in  0 .. 2k
   *
   * Key minus query; query and key positions both start at 0. k = 0 gives all zeros.
   *
   * @param {number} nQ query positions (positive).
   * @param {number} nK key positions (positive).
   * @param {number} maxRelativePosition k (>= 0).
   * @returns {number[][]} [nQ][nK] integers.
   */
  function shawRelativeIndex(nQ, nK, maxRelativePosition) {
    checkInt("nQ", nQ);
    checkInt("nK", nK);
    const k = checkInt("maxRelativePosition", maxRelativePosition, 0);
    return range(nQ).map(function (i) {
      return range(nK).map(function (j) {
        return Math.min(Math.max(j - i, -k), k) + k;
      });
    });
  }

  // posenc.attention.query_key_positions: keys at 0..nK−1, queries from queryOffset
  // (default nK − nQ, the last nQ positions).
  function queryKeyPositions(nQ, nK, queryOffset) {
    checkInt("nQ", nQ);
    checkInt("nK", nK);
    let offset = queryOffset;
    if (!isGiven(offset)) {
      if (nQ > nK) {
        throw new RangeError("nQ must be <= nK when queryOffset is not given (queries are the " +
          "last nQ of the nK key positions), got nQ=" + nQ + ", nK=" + nK);
      }
      offset = nK - nQ;
    }
    checkInt("queryOffset", offset, 0);
    return [range(nQ).map(function (i) {
      return offset + i;
    }), range(nK)];
  }

  // posenc.t5._check_bucket_args.
  function checkBucketArgs(bidirectional, numBuckets, maxDistance) {
    checkBool("bidirectional", bidirectional);
    if (bidirectional) {
      checkInt("numBuckets", numBuckets, 4);
      if (numBuckets % 2) {
        throw new RangeError("numBuckets must be even when bidirectional (half the buckets " +
          "for each direction), got " + numBuckets);
      }
    } else {
      checkInt("numBuckets", numBuckets, 2);
    }
    checkInt("maxDistance", maxDistance);
    const maxExact = Math.floor((bidirectional ? numBuckets / 2 : numBuckets) / 2);
    if (maxDistance <= maxExact) {
      throw new RangeError("maxDistance must be greater than the " + maxExact + " exact " +
        "buckets per direction (numBuckets/" + (bidirectional ? 4 : 2) + "): the logarithmic " +
        "buckets cover distances " + maxExact + "..maxDistance, got maxDistance=" + maxDistance);
    }
  }

  // T5's bucket of one relative position (arguments already checked).
  function bucketOf(rel, bidirectional, numBuckets, maxDistance) {
    const f = Math.fround;
    const r = Math.min(Math.max(rel, -maxDistance), maxDistance);
    let perSide, offset, dist;
    if (bidirectional) {
      perSide = numBuckets / 2;
      offset = r > 0 ? perSide : 0;
      dist = Math.abs(r);
    } else {
      perSide = numBuckets;
      offset = 0;
      dist = Math.max(-r, 0);
    }
    const exact = Math.floor(perSide / 2);
    if (dist < exact) return offset + dist;
    // float32, operation by operation, as posenc (and T5): log(dist/E) / log(maxDistance/E),
    // the divisor a float64 rounded to float32, times (B − E), truncated
    const ratio = f(f(dist) / f(exact));
    const scaled = f(f(Math.log(ratio)) / f(Math.log(maxDistance / exact)));
    const logBucket = exact + Math.trunc(f(scaled * f(perSide - exact)));
    return offset + Math.min(logBucket, perSide - 1);
  }

  function mapNested(name, value, fn) {
    if (Array.isArray(value)) {
      return value.map(function (v) {
        return mapNested(name, v, fn);
      });
    }
    if (typeof value !== "number" || !Number.isInteger(value)) {
      throw new TypeError(name + " must hold integers (key position minus query position), " +
        "got " + describe(value));
    }
    return fn(value);
  }

  /**
   * T5's bucket of each relative position (key minus query).
   * Twin of `posenc.t5.t5_relative_bucket(relative_position, bidirectional=...,
   * num_buckets=..., max_distance=...)` (= transformers' T5Attention._relative_position_bucket).
   *
   * With B buckets per direction (numBuckets/2 if bidirectional, else numBuckets), E = B/2
   * exact buckets and r the distance (|rel|, or max(−rel, 0) when not bidirectional):
   *
   *   bucket(r) = r                                                          (r < E)
   *             = min(B − 1, E + floor(ln(r/E) / ln(maxDistance/E) · (B − E)))  (r >= E)
   *
   * plus B for keys after the query when bidirectional. The logarithm is computed in FLOAT32,
   * as posenc and T5 compute it (r/E, its log, the divisor ln(maxDistance/E) and the product
   * each rounded to float32 with Math.fround), so that boundaries fall where they do there.
   * Offsets are clamped to ±maxDistance first (no bucket changes).
   *
   * @param {number|Array} relativePosition an integer or a (nested) array of integers.
   * @param {boolean} [bidirectional=true]
   * @param {number} [numBuckets=32] even and >= 4 if bidirectional, >= 2 otherwise.
   * @param {number} [maxDistance=128] > E.
   * @returns {number|Array} buckets in 0..numBuckets−1, of relativePosition's shape.
   */
  function t5RelativeBucket(relativePosition, bidirectional, numBuckets, maxDistance) {
    if (bidirectional === undefined) bidirectional = true;
    if (numBuckets === undefined) numBuckets = 32;
    if (maxDistance === undefined) maxDistance = 128;
    if (typeof relativePosition !== "number" && !Array.isArray(relativePosition)) {
      throw new TypeError("relativePosition must be an integer or an array of integers, got " +
        describe(relativePosition));
    }
    const rel = mapNested("relativePosition", relativePosition, function (v) {
      return v;
    });
    checkBucketArgs(bidirectional, numBuckets, maxDistance);
    return mapNested("relativePosition", rel, function (v) {
      return bucketOf(v, bidirectional, numBuckets, maxDistance);
    });
  }

  /**
   * T5's bucket of every query-key pair: the index into its bias table.
   * Twin of `posenc.t5.t5_bucket_index(n_q, n_k, bidirectional=..., num_buckets=...,
   * max_distance=..., query_offset=...)`.
   *
   *   I_ij = bucket(p_j − p_i),  keys at 0..nK−1, queries at queryOffset.. (default nK − nQ)
   *
   * @param {number} nQ queries.
   * @param {number} nK keys.
   * @param {boolean} [bidirectional=true]
   * @param {number} [numBuckets=32]
   * @param {number} [maxDistance=128]
   * @param {number|null} [queryOffset=null] position of the first query (>= 0).
   * @returns {number[][]} [nQ][nK] buckets.
   */
  function t5BucketIndex(nQ, nK, bidirectional, numBuckets, maxDistance, queryOffset) {
    if (bidirectional === undefined) bidirectional = true;
    if (numBuckets === undefined) numBuckets = 32;
    if (maxDistance === undefined) maxDistance = 128;
    const qk = queryKeyPositions(nQ, nK, queryOffset);
    const rel = qk[0].map(function (q) {
      return qk[1].map(function (k) {
        return k - q;
      });
    });
    return t5RelativeBucket(rel, bidirectional, numBuckets, maxDistance);
  }

  /**
   * The smallest distance that falls into each bucket of one direction (−1: never reached).
   * Twin of `posenc.t5.t5_bucket_starts(bidirectional=..., num_buckets=...,
   * max_distance=...)`.
   *
   *   start(b) = min { r >= 0 : bucket(−r) = b }
   *
   * @param {boolean} [bidirectional=true]
   * @param {number} [numBuckets=32]
   * @param {number} [maxDistance=128]
   * @returns {number[]} [B] starts (B buckets per direction).
   */
  function t5BucketStarts(bidirectional, numBuckets, maxDistance) {
    if (bidirectional === undefined) bidirectional = true;
    if (numBuckets === undefined) numBuckets = 32;
    if (maxDistance === undefined) maxDistance = 128;
    checkBucketArgs(bidirectional, numBuckets, maxDistance);
    const perSide = bidirectional ? numBuckets / 2 : numBuckets;
    const starts = new Array(perSide).fill(-1);
    for (let r = maxDistance; r >= 0; r--) {
      starts[bucketOf(-r, bidirectional, numBuckets, maxDistance)] = r;
    }
    return starts;
  }

  /**
   * ALiBi's fixed slope of each head.
   * Twin of `posenc.alibi.alibi_slopes(num_heads)`.
   *
   *   m_h = 2^(−8h/n),  h = 1..n   (n a power of two)
   *
   * Otherwise, with n' the largest power of two <= n: the n' slopes of n' heads, then the
   * slopes 1, 3, 5, … of 2n' heads, 2^(−8(2k+1)/(2n')), until there are n (not sorted).
   *
   * @param {number} numHeads n (positive).
   * @returns {number[]} [n] slopes, in head order.
   */
  function alibiSlopes(numHeads) {
    const n = checkInt("numHeads", numHeads);
    let low = 1;
    while (low * 2 <= n) low *= 2;
    const out = [];
    for (let h = 1; h <= low; h++) out.push(Math.pow(2, (-8 * h) / low));
    for (let k = 0; k < n - low; k++) out.push(Math.pow(2, (-8 * (2 * k + 1)) / (2 * low)));
    return out;
  }

  /**
   * The distance ALiBi penalises for each query-key pair.
   * Twin of `posenc.alibi.alibi_distances(n_q, n_k, causal=causal, query_offset=...)`.
   *
   *   D_ij = max(p_i − p_j, 0)  (causal),   |p_i − p_j|  (not causal)
   *
   * @param {number} nQ queries.
   * @param {number} nK keys.
   * @param {boolean} [causal=true]
   * @param {number|null} [queryOffset=null] position of the first query (default nK − nQ).
   * @returns {number[][]} [nQ][nK] integers.
   */
  function alibiDistances(nQ, nK, causal, queryOffset) {
    if (causal === undefined) causal = true;
    checkBool("causal", causal);
    const qk = queryKeyPositions(nQ, nK, queryOffset);
    return qk[0].map(function (q) {
      return qk[1].map(function (k) {
        return causal ? Math.max(q - k, 0) : Math.abs(q - k);
      });
    });
  }

  // -- rotary ----------------------------------------------------------------------------------

  function checkFactors(name, value, dim) {
    if (!isGiven(value)) return null;
    if (!Array.isArray(value)) {
      throw new TypeError(name + " must be an array of dim/2 = " + dim / 2 + " factors, got " +
        describe(value));
    }
    if (value.length !== dim / 2) {
      throw new RangeError(name + " must hold dim/2 = " + dim / 2 + " factors, got " +
        value.length);
    }
    return value.map(function (v, i) {
      return checkPositive(name + "[" + i + "]", v);
    });
  }

  /**
   * The rotation angle of every channel pair at every position.
   * Twin of `posenc.rotary.rotary_angles(positions, dim, base=base, inv_freq=inv_freq)`.
   *
   *   phi_{m,i} = m·theta_i,  theta_i = base^(−2i/d),  i = 0 .. d/2 − 1
   *
   * (the frequencies of the sinusoidal encoding; a layout-free [n][d/2] table).
   *
   * @param {number|number[]} positions an integer n (0..n−1) or an array of finite positions.
   * @param {number} dim d (even).
   * @param {number} [base=10000] finite, > 1 (not read when invFreq is given).
   * @param {number[]|null} [invFreq=null] d/2 finite frequencies to use in place of theta
   *   (e.g. scaledRotaryFrequencies(...).invFreq).
   * @returns {number[][]} [n][d/2].
   */
  function rotaryAngles(positions, dim, base, invFreq) {
    if (base === undefined) base = 10000;
    let theta;
    if (isGiven(invFreq)) {
      checkEven("dim", dim);
      if (!Array.isArray(invFreq)) {
        throw new TypeError("invFreq must be an array of dim/2 frequencies, got " +
          describe(invFreq));
      }
      if (invFreq.length !== dim / 2) {
        throw new RangeError("invFreq must hold dim / 2 = " + dim / 2 + " frequencies (one " +
          "per channel pair), got " + invFreq.length);
      }
      theta = invFreq.map(function (v) {
        return checkEntry("invFreq", v);
      });
    }
    const pos = asPositions("positions", positions);
    if (!theta) theta = sinusoidalFrequencies(dim, base);
    return pos.map(function (p) {
      return theta.map(function (t) {
        return p * t;
      });
    });
  }

  /**
   * The axial 2-D RoPE angles of the tokens of a height × width grid (row-major).
   * Twin of `posenc.rotary_nd.rotary_angles_2d(height, width, dim, base=base)`.
   *
   *   phi_{(r,c), j} = r·omega_j,  phi_{(r,c), d/4+j} = c·omega_j,  omega_j = base^(−4j/d)
   *
   * (omega = sinusoidalFrequencies(d/2, base)).
   *
   * @param {number} height H.
   * @param {number} width W.
   * @param {number} dim d, a multiple of 4.
   * @param {number} [base=10000] finite, > 1.
   * @returns {number[][]} [H·W][d/2].
   */
  function rotaryAngles2d(height, width, dim, base) {
    if (base === undefined) base = 10000;
    checkInt("height", height);
    checkInt("width", width);
    checkMultiple("dim", dim, 4, "two axes of channel pairs");
    const omega = sinusoidalFrequencies(dim / 2, base);
    const out = [];
    for (let r = 0; r < height; r++) {
      for (let c = 0; c < width; c++) {
        out.push(omega.map(function (w) {
          return r * w;
        }).concat(omega.map(function (w) {
          return c * w;
        })));
      }
    }
    return out;
  }

  // posenc.rotary_nd._sections: the pairs per axis, checked.
  function sectionsOf(dim, numAxes, sections) {
    checkEven("dim", dim);
    checkInt("numAxes", numAxes);
    const half = dim / 2;
    if (!isGiven(sections)) {
      if (half % numAxes) {
        throw new RangeError("dim/2 (" + half + " pairs) must be a multiple of the " + numAxes +
          " axes for equal sections; pass sections (pairs per axis) otherwise");
      }
      return new Array(numAxes).fill(half / numAxes);
    }
    if (!Array.isArray(sections)) {
      throw new TypeError("sections must be an array of integers (pairs per axis), got " +
        describe(sections));
    }
    if (sections.length !== numAxes) {
      throw new RangeError("sections must have one entry per axis (" + numAxes + "), got " +
        sections.length + ": " + describe(sections));
    }
    const counts = sections.map(function (s, i) {
      return checkInt("sections[" + i + "]", s, 0);
    });
    const total = counts.reduce(function (a, b) {
      return a + b;
    }, 0);
    if (total !== half) {
      throw new RangeError("sections must sum to dim/2 = " + half + " pairs, got " +
        describe(counts) + " (sum " + total + ")");
    }
    return counts;
  }

  /**
   * The axis each channel pair of M-RoPE turns with: consecutive sections of pairs, one per axis.
   * Twin of `posenc.rotary_nd.rotary_pair_axes(dim, num_axes, sections=sections)`.
   *
   *   axis(j) = min { a : j < sum_{b<=a} s_b },  j = 0 .. d/2 − 1
   *
   * @param {number} dim d (even).
   * @param {number} numAxes a.
   * @param {number[]|null} [sections=null] pairs per axis summing to d/2 (null: equal).
   * @returns {number[]} [d/2] axes.
   */
  function rotaryPairAxes(dim, numAxes, sections) {
    const counts = sectionsOf(dim, numAxes, sections);
    const axes = [];
    counts.forEach(function (count, a) {
      for (let k = 0; k < count; k++) axes.push(a);
    });
    return axes;
  }

  /**
   * The M-RoPE angle of every channel pair of every token on a grid (Qwen2-VL).
   * Twin of `posenc.rotary_nd.rotary_angles_nd(positions, dim, base=base, sections=sections)`.
   *
   *   phi_{t,j} = p_{t, axis(j)} · theta_j,  theta_j = base^(−2j/d)
   *
   * @param {number[][]} positions [n][a]: one coordinate per axis for each token (n >= 1).
   * @param {number} dim d (even).
   * @param {number} [base=10000] finite, > 1.
   * @param {number[]|null} [sections=null] pairs per axis (rotaryPairAxes).
   * @returns {number[][]} [n][d/2].
   */
  function rotaryAnglesNd(positions, dim, base, sections) {
    if (base === undefined) base = 10000;
    if (!Array.isArray(positions)) {
      throw new TypeError("positions must be an array [n][a] of coordinates, got " +
        describe(positions));
    }
    if (positions.length === 0) {
      throw new RangeError("positions must hold at least one token [n][a], got []");
    }
    const numAxes = Array.isArray(positions[0]) ? positions[0].length : -1;
    positions.forEach(function (row) {
      if (!Array.isArray(row)) {
        throw new RangeError("positions must have 2 dimensions [n][a] (one coordinate per " +
          "axis in the last), got an entry " + describe(row));
      }
      if (row.length !== numAxes) {
        throw new RangeError("positions must have the same number of axes in every row, got " +
          numAxes + " and " + row.length);
      }
      row.forEach(function (v) {
        checkEntry("positions", v);
      });
    });
    if (numAxes === 0) {
      throw new RangeError("positions must have at least one axis (last dimension), got 0");
    }
    const axes = rotaryPairAxes(dim, numAxes, sections);
    const theta = sinusoidalFrequencies(dim, base);
    return positions.map(function (row) {
      return theta.map(function (t, j) {
        return row[axes[j]] * t;
      });
    });
  }

  // -- scaled rotary frequencies (posenc.rotary.ROTARY_SCALINGS) ------------------------------

  // the optional arguments a method may leave unread, in posenc's order, with their unset value
  const UNSET = [
    ["factor", 1],
    ["originalMaxPositions", null],
    ["seqLen", null],
    ["rotaryDim", null],
    ["shortFactor", null],
    ["longFactor", null],
    ["attentionFactor", null],
  ];

  const MEANINGS = {
    originalMaxPositions: "the trained length",
    rotaryDim: "the channels that rotate",
    shortFactor: "the rescale factor of each pair up to the trained length",
    longFactor: "the rescale factor of each pair beyond the trained length",
  };

  function required(args, name) {
    const value = args[name];
    if (value === null) {
      throw new RangeError(name + " (" + MEANINGS[name] + ") is required for method=" +
        JSON.stringify(args.method));
    }
    return value;
  }

  // Each method: what it reads (of UNSET's names) and (dim, args) -> [invFreq, attentionScale].
  const SCALINGS = {};

  SCALINGS.default = {
    reads: [],
    run: function (dim, args) {
      return [sinusoidalFrequencies(dim, args.base), 1];
    },
  };
  SCALINGS.plain = SCALINGS.default;

  SCALINGS.linear = {
    reads: ["factor"],
    run: function (dim, args) {
      return [sinusoidalFrequencies(dim, args.base).map(function (t) {
        return t / args.factor;
      }), 1];
    },
  };

  SCALINGS.ntk = {
    reads: ["factor"],
    run: function (dim, args) {
      const base = dim > 2 ? args.base * Math.pow(args.factor, dim / (dim - 2)) : args.base;
      return [sinusoidalFrequencies(dim, base), 1];
    },
  };

  SCALINGS.dynamic = {
    reads: ["factor", "originalMaxPositions", "seqLen"],
    run: function (dim, args) {
      const trained = required(args, "originalMaxPositions");
      const factor = args.factor;
      let base = args.base;
      const length = Math.max(args.seqLen || trained, trained);
      const stretch = (factor * length) / trained - (factor - 1);
      if (dim > 2 && stretch !== 1) base = base * Math.pow(stretch, dim / (dim - 2));
      return [sinusoidalFrequencies(dim, base), 1];
    },
  };

  SCALINGS.yarn = {
    reads: ["factor", "originalMaxPositions"],
    run: function (dim, args) {
      const trained = required(args, "originalMaxPositions");
      const factor = args.factor;
      const base = args.base;
      function pairTurning(rotations) {
        return (dim * Math.log(trained / (rotations * 2 * Math.PI))) / (2 * Math.log(base));
      }
      const low = Math.max(Math.floor(pairTurning(args.betaFast)), 0);
      let high = Math.min(Math.ceil(pairTurning(args.betaSlow)), dim - 1);
      if (low === high) high += 0.001; // as transformers: avoids 0/0
      const theta = sinusoidalFrequencies(dim, base);
      const scale = factor > 1 ? 0.1 * Math.log(factor) + 1 : 1;
      return [theta.map(function (t, i) {
        const ramp = Math.min(Math.max((i - low) / (high - low), 0), 1);
        return t * (1 - ramp) + (t / factor) * ramp;
      }), scale];
    },
  };

  SCALINGS.llama3 = {
    reads: ["factor", "originalMaxPositions"],
    run: function (dim, args) {
      const trained = required(args, "originalMaxPositions");
      const factor = args.factor;
      const low = args.lowFreqFactor;
      const high = args.highFreqFactor;
      return [sinusoidalFrequencies(dim, args.base).map(function (t) {
        const wavelength = (2 * Math.PI) / t;
        if (wavelength < trained / high) return t;
        if (wavelength > trained / low) return t / factor;
        const smooth = (trained / wavelength - low) / (high - low);
        return ((1 - smooth) * t) / factor + smooth * t;
      }), 1];
    },
  };

  SCALINGS.longrope = {
    reads: ["factor", "originalMaxPositions", "seqLen", "shortFactor", "longFactor",
      "attentionFactor"],
    run: function (dim, args) {
      const trained = required(args, "originalMaxPositions");
      const short = required(args, "shortFactor");
      const long = required(args, "longFactor");
      const beyond = args.seqLen !== null && args.seqLen > trained;
      const rescale = beyond ? long : short;
      let scale = 1;
      if (args.attentionFactor !== null) {
        scale = args.attentionFactor;
      } else if (args.factor > 1) {
        if (trained < 2) {
          throw new RangeError("originalMaxPositions must be >= 2 for method 'longrope' with "
            + "factor > 1 (its logit scale divides by log(originalMaxPositions)), got " + trained);
        }
        scale = Math.sqrt(1 + Math.log(args.factor) / Math.log(trained));
      }
      return [sinusoidalFrequencies(dim, args.base).map(function (t, i) {
        return t / rescale[i];
      }), scale];
    },
  };

  SCALINGS.partial = {
    reads: ["rotaryDim"],
    run: function (dim, args) {
      const rotated = sinusoidalFrequencies(required(args, "rotaryDim"), args.base);
      return [rotated.concat(new Array((dim - args.rotaryDim) / 2).fill(0)), 1];
    },
  };

  Object.keys(SCALINGS).forEach(function (name) {
    Object.freeze(SCALINGS[name].reads);
    Object.freeze(SCALINGS[name]);
  });
  Object.freeze(SCALINGS);

  const METHODS = Object.keys(SCALINGS);

  function checkMethod(method) {
    if (typeof method !== "string" || METHODS.indexOf(method) < 0) {
      throw new RangeError("method must be one of " + METHODS.join(", ") + ", got " +
        describe(method));
    }
    return method;
  }

  // the built-in method that alone reads an optional argument, for the refusal's hint
  function soleReader(name) {
    const readers = METHODS.filter(function (m) {
      return m !== "plain" && SCALINGS[m].reads.indexOf(name) >= 0; // "plain" is "default"
    });
    return readers.length === 1 ? readers[0] : null;
  }

  const OPTIONS = ["base", "factor", "originalMaxPositions", "seqLen", "rotaryDim", "betaFast",
    "betaSlow", "lowFreqFactor", "highFreqFactor", "shortFactor", "longFactor",
    "attentionFactor"];

  /**
   * The optional arguments of scaledRotaryFrequencies that a method reads (and does not
   * refuse), in posenc's order, camelCase.
   * Twin of `posenc.rotary.rotary_scaling_reads(method)` for the built-in methods.
   *
   *   reads(method) ⊆ {factor, originalMaxPositions, seqLen, rotaryDim, shortFactor,
   *                    longFactor, attentionFactor}
   *
   * @param {string} method a key of posenc's ROTARY_SCALINGS ("default", "plain", "linear",
   *   "ntk", "dynamic", "yarn", "llama3", "longrope", "partial").
   * @returns {string[]}
   */
  function rotaryScalingReads(method) {
    checkMethod(method);
    return UNSET.map(function (entry) {
      return entry[0];
    }).filter(function (name) {
      return SCALINGS[method].reads.indexOf(name) >= 0;
    });
  }

  /**
   * RoPE's frequencies, plain or scaled beyond the trained length, and the logit scale.
   * Twin of `posenc.rotary.scaled_rotary_frequencies(dim, method, **options)` for the built-in
   * methods of posenc's ROTARY_SCALINGS, with the keyword arguments in camelCase in `options`:
   * base (10000), factor (1), originalMaxPositions, seqLen, rotaryDim (null), betaFast (32),
   * betaSlow (1), lowFreqFactor (1), highFreqFactor (4), shortFactor, longFactor,
   * attentionFactor (null).
   *
   *   theta_i = base^(−2i/d)
   *   default, plain: theta_i          linear: theta_i / s
   *   ntk:      (base·s^(d/(d−2)))^(−2i/d)
   *   dynamic:  base'^(−2i/d),  base' = base·(s·L/L0 − (s − 1))^(d/(d−2)),  L = max(seqLen, L0)
   *   yarn:     (1 − g_i)·theta_i + g_i·theta_i/s,  g_i = clip((i − lo)/(hi − lo), 0, 1),
   *             lo = floor(i(betaFast)) >= 0, hi = ceil(i(betaSlow)) <= d − 1,
   *             i(b) = d·ln(L0/(2πb)) / (2 ln base); scale 0.1·ln s + 1 (s > 1)
   *   llama3:   theta_i (λ_i < L0/high), theta_i/s (λ_i > L0/low), else
   *             (1 − σ_i)·theta_i/s + σ_i·theta_i,  σ_i = (L0/λ_i − low)/(high − low), λ = 2π/θ
   *   longrope: theta_i / λ_i, λ = longFactor if seqLen > L0 else shortFactor;
   *             scale attentionFactor, or sqrt(1 + ln s / ln L0) (s > 1), or 1
   *   partial:  base^(−2i/r) for i < r/2, then 0
   *
   * A method refuses (RangeError) the optional arguments it does not read when they are set
   * (rotaryScalingReads says which it reads), as posenc does.
   *
   * @param {number} dim d, channels per head (even).
   * @param {string} method as in rotaryScalingReads.
   * @param {Object} [options]
   * @returns {{invFreq: number[], attentionScale: number}} [d/2] frequencies and a scale > 0.
   */
  function scaledRotaryFrequencies(dim, method, options) {
    if (options === undefined || options === null) options = {};
    if (typeof options !== "object" || Array.isArray(options)) {
      throw new TypeError("options must be an object of keyword arguments, got " +
        describe(options));
    }
    Object.keys(options).forEach(function (key) {
      if (OPTIONS.indexOf(key) < 0) {
        throw new TypeError("scaledRotaryFrequencies got an unknown option " +
          JSON.stringify(key) + " (options: " + OPTIONS.join(", ") + ")");
      }
    });
    function option(name, fallback) {
      return options[name] === undefined ? fallback : options[name];
    }
    checkMethod(method);
    checkEven("dim", dim);
    const args = {
      method: method,
      base: checkBase("base", option("base", 10000)),
      factor: checkPositive("factor", option("factor", 1)),
      originalMaxPositions: option("originalMaxPositions", null),
      seqLen: option("seqLen", null),
      rotaryDim: option("rotaryDim", null),
    };
    if (args.originalMaxPositions !== null) {
      checkInt("originalMaxPositions", args.originalMaxPositions);
    }
    if (args.seqLen !== null) checkInt("seqLen", args.seqLen);
    if (args.rotaryDim !== null) {
      checkEven("rotaryDim", args.rotaryDim);
      if (args.rotaryDim > dim) {
        throw new RangeError("rotaryDim must be <= dim=" + dim + ", got " + args.rotaryDim);
      }
    }
    args.betaFast = checkPositive("betaFast", option("betaFast", 32));
    args.betaSlow = checkPositive("betaSlow", option("betaSlow", 1));
    if (args.betaFast <= args.betaSlow) {
      throw new RangeError("betaFast must be > betaSlow, got " + args.betaFast + " and " +
        args.betaSlow);
    }
    args.lowFreqFactor = checkPositive("lowFreqFactor", option("lowFreqFactor", 1));
    args.highFreqFactor = checkPositive("highFreqFactor", option("highFreqFactor", 4));
    if (args.highFreqFactor <= args.lowFreqFactor) {
      throw new RangeError("highFreqFactor must be > lowFreqFactor, got " +
        args.highFreqFactor + " and " + args.lowFreqFactor);
    }
    args.shortFactor = checkFactors("shortFactor", option("shortFactor", null), dim);
    args.longFactor = checkFactors("longFactor", option("longFactor", null), dim);
    args.attentionFactor = option("attentionFactor", null);
    if (args.attentionFactor !== null) checkPositive("attentionFactor", args.attentionFactor);
    const scaling = SCALINGS[method];
    UNSET.forEach(function (entry) {
      const name = entry[0];
      if (scaling.reads.indexOf(name) < 0 && args[name] !== entry[1]) {
        const only = soleReader(name);
        const hint = only ? " (" + name + " is used by method=" + JSON.stringify(only) +
          " only)" : "";
        throw new RangeError(name + " is not used by method=" + JSON.stringify(method) + hint +
          "; leave it " + (entry[1] === null ? "null" : String(entry[1])));
      }
    });
    const result = scaling.run(dim, args);
    result[0].forEach(function (v) {
      checkEntry("the invFreq of method " + JSON.stringify(method), v);
    });
    return { invFreq: result[0], attentionScale: result[1] };
  }

  window.posenc = Object.freeze({
    sinusoidalFrequencies: sinusoidalFrequencies,
    sinusoidalEncoding: sinusoidalEncoding,
    sinusoidalEncoding2d: sinusoidalEncoding2d,
    numericEncoding: numericEncoding,
    periodicEncoding: periodicEncoding,
    relativeTableSize: relativeTableSize,
    relativePositionIndex: relativePositionIndex,
    logSpacedRelativeCoords: logSpacedRelativeCoords,
    shawRelativeIndex: shawRelativeIndex,
    t5RelativeBucket: t5RelativeBucket,
    t5BucketIndex: t5BucketIndex,
    t5BucketStarts: t5BucketStarts,
    alibiSlopes: alibiSlopes,
    alibiDistances: alibiDistances,
    rotaryAngles: rotaryAngles,
    rotaryAngles2d: rotaryAngles2d,
    rotaryPairAxes: rotaryPairAxes,
    rotaryAnglesNd: rotaryAnglesNd,
    rotaryScalingReads: rotaryScalingReads,
    scaledRotaryFrequencies: scaledRotaryFrequencies,
  });
})();
