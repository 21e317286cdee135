"""The JavaScript twin of posenc (``book/ext/twin_static/posenc.js``) computes what posenc computes.

The explorers of the published book run in the reader's browser, with the twin's copies of
posenc's closed-form functions. Here the twin is loaded into a blank chromium page (no site
needed) and every case of ``tests/data/posenc_twin_golden.json`` (posenc's own results, written
by ``book.tools.twin_golden``) is run in one call:

- values agree with posenc to ``1e-9`` relative (``1e-12`` absolute near 0, or the case's own
  ``atol`` where float64 itself is ill-conditioned), shapes are equal, integers exact;
- bad inputs throw the JavaScript class of posenc's error (``ValueError``: ``RangeError``,
  ``TypeError``: ``TypeError``), NaN and infinity included, which JSON cannot carry;
- every function of ``window.posenc`` has golden cases and every golden name is a function of
  the twin, so a function added on either side without the other fails;
- properties that hold whatever the numbers: ``sin² + cos² = 1`` per pair, RoPE angles linear
  in the position, Shaw's index Toeplitz, Swin's index a bijection onto its table, T5's buckets
  non-decreasing in the distance, NTK scaling dividing the slowest pair by the factor.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

import pytest

from book.tools import twin_golden as tg

pytestmark = pytest.mark.xdist_group("test_twin")  # one page for the module, on one worker

TWIN_JS = tg.ROOT / "book" / "ext" / "twin_static" / "posenc.js"

# Every case of the golden file, run in the page in one call: a value or the error's class.
RUN_ALL = """
(golden) => {
  const out = {};
  for (const [name, cases] of Object.entries(golden)) {
    const fn = window.posenc[name];
    out[name] = cases.map((c) => {
      if (typeof fn !== "function") return { missing: true };
      try {
        return { value: fn.apply(null, c.args) };
      } catch (e) {
        return { error: e.constructor.name, message: String(e.message) };
      }
    });
  }
  return out;
}
"""

# Properties of the twin's results, checked in the page; returns what failed.
PROPERTIES = """
() => {
  const P = window.posenc;
  const failed = [];
  const close = (a, b, rel) => Math.abs(a - b) <= rel * Math.max(1, Math.abs(a), Math.abs(b));
  const positions = [0, 1, 2.5, 17, 1000, 123456.5, 999999, 1000000, -42];

  for (const interleaved of [true, false]) {
    const table = P.sinusoidalEncoding(positions, 64, 10000, interleaved);
    table.forEach((row, r) => {
      for (let i = 0; i < 32; i++) {
        const s = interleaved ? row[2 * i] : row[i];
        const c = interleaved ? row[2 * i + 1] : row[32 + i];
        if (!close(s * s + c * c, 1, 1e-12)) failed.push(`sin²+cos² row ${r} pair ${i}`);
      }
    });
  }

  const pairs = [[3, 4], [1000, 1], [999999, 1], [123456.5, 0.25], [-7, 7]];
  for (const [p, q] of pairs) {
    const sum = P.rotaryAngles([p + q], 32)[0];
    const a = P.rotaryAngles([p], 32)[0];
    const b = P.rotaryAngles([q], 32)[0];
    sum.forEach((v, i) => {
      if (!close(v, a[i] + b[i], 1e-12)) failed.push(`RoPE angle of ${p}+${q}, pair ${i}`);
    });
  }

  const shaw = P.shawRelativeIndex(7, 9, 3);
  shaw.forEach((row, i) => row.forEach((v, j) => {
    if (v < 0 || v > 6) failed.push(`Shaw index ${v} outside 0..2k`);
    if (i > 0 && j > 0 && v !== shaw[i - 1][j - 1]) failed.push(`Shaw not Toeplitz at ${i},${j}`);
  }));

  for (const shape of [[5], [3, 4], [2, 3, 2]]) {
    const seen = new Set(P.relativePositionIndex(shape).flat());
    const size = P.relativeTableSize(shape);
    const all = [...seen].every((v) => Number.isInteger(v) && v >= 0 && v < size);
    if (seen.size !== size || !all) failed.push(`Swin index of ${shape} not onto 0..${size - 1}`);
  }

  for (const [bidirectional, buckets, far] of [[true, 32, 128], [false, 32, 128], [true, 18, 128]]) {
    const back = [];
    for (let r = 0; r <= 2 * far; r++) back.push(-r);
    const got = P.t5RelativeBucket(back, bidirectional, buckets, far);
    const last = bidirectional ? buckets / 2 - 1 : buckets - 1;
    got.forEach((b, r) => {
      if (r > 0 && b < got[r - 1]) failed.push(`T5 bucket decreases at distance ${r}`);
      if (r >= far && b !== last) failed.push(`T5 distance ${r} not in the last bucket`);
    });
  }

  const slopes = P.alibiSlopes(16);
  slopes.forEach((m, h) => {
    if (h > 0 && !close(m / slopes[h - 1], Math.pow(2, -0.5), 1e-12)) failed.push("ALiBi ratio");
  });

  const plain = P.scaledRotaryFrequencies(64, "default").invFreq;
  const ntk = P.scaledRotaryFrequencies(64, "ntk", { factor: 8 }).invFreq;
  const linear = P.scaledRotaryFrequencies(64, "linear", { factor: 8 }).invFreq;
  if (!close(ntk[31], plain[31] / 8, 1e-12)) failed.push("NTK: slowest pair not divided by s");
  if (ntk[0] !== 1) failed.push("NTK: fastest pair changed");
  linear.forEach((v, i) => {
    if (!close(v, plain[i] / 8, 1e-15)) failed.push(`linear pair ${i}`);
  });

  const text = [[0, 0, 0], [5, 5, 5], [1e6, 1e6, 1e6]];
  const mrope = P.rotaryAnglesNd(text, 12, 10000, [1, 2, 3]);
  const rope = P.rotaryAngles([0, 5, 1e6], 12);
  mrope.forEach((row, t) => row.forEach((v, j) => {
    if (v !== rope[t][j]) failed.push(`M-RoPE of a text token ${t} differs from RoPE at ${j}`);
  }));
  return failed;
}
"""

# Bad inputs that JSON cannot hold (NaN, infinity), with their Python twins' refusals.
NON_FINITE: list[tuple[str, list[Any]]] = [
    ("sinusoidalEncoding", [[0.0, math.nan], 4]),
    ("sinusoidalEncoding", [[math.inf], 4]),
    ("sinusoidalEncoding", [4, 4, math.inf]),
    ("sinusoidalEncoding", [4, 4, math.nan]),
    ("sinusoidalFrequencies", [4, math.inf]),
    ("periodicEncoding", [3, math.inf]),
    ("periodicEncoding", [[-math.inf], 1.0]),
    ("rotaryAngles", [[0.0, -math.inf], 4]),
    ("rotaryAngles", [2, 4, 10000, [1.0, math.nan]]),
    ("rotaryAnglesNd", [[[0.0, math.nan]], 4]),
    ("rotaryAngles2d", [2, 2, 4, math.nan]),
    ("shawRelativeIndex", [math.nan, 3, 1]),
    ("alibiSlopes", [math.inf]),
    ("scaledRotaryFrequencies", [8, "linear", {"factor": math.nan}]),
    ("scaledRotaryFrequencies", [8, "linear", {"factor": math.inf}]),
    (
        "scaledRotaryFrequencies",
        [
            8,
            "longrope",
            {
                "originalMaxPositions": 8,
                "shortFactor": [1.0, 1.0, math.inf, 1.0],
                "longFactor": [1.0, 1.0, 1.0, 1.0],
            },
        ],
    ),
]


@pytest.fixture(scope="module")
def golden() -> dict[str, list[dict[str, Any]]]:
    return json.loads(tg.GOLDEN_PATH.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def page(browser: Any) -> Iterator[Any]:
    """A blank page (no site, no network) with the twin loaded."""
    page = browser.new_page()
    page.set_content("<html><head></head><body></body></html>")
    page.add_script_tag(path=str(TWIN_JS))
    try:
        yield page
    finally:
        page.close()


@pytest.fixture(scope="module")
def results(page: Any, golden: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict]]:
    return page.evaluate(RUN_ALL, golden)


def _differences(got: Any, want: Any, atol: float, path: str) -> list[str]:
    """Where the twin's ``got`` departs from posenc's ``want``: shapes, integers (exact), and
    numbers beyond ``1e-9`` relative or ``atol`` absolute, whichever is larger."""
    if isinstance(want, dict):
        if not isinstance(got, dict) or sorted(got) != sorted(want):
            return [f"{path}: {str(got)[:80]} is not like {str(want)[:80]}"]
        return [d for k in want for d in _differences(got[k], want[k], atol, f"{path}.{k}")]
    if isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            return [f"{path}: shape of {str(got)[:80]} is not that of {str(want)[:80]}"]
        return [
            d for i, w in enumerate(want) for d in _differences(got[i], w, atol, f"{path}[{i}]")
        ]
    number = isinstance(got, int | float) and not isinstance(got, bool)
    if isinstance(want, (bool, str)) or want is None:
        ok = got == want and type(got) is type(want)
    elif isinstance(want, int):
        ok = number and float(got).is_integer() and got == want
    else:
        ok = number and abs(got - want) <= max(1e-9 * abs(want), atol)
    return [] if ok else [f"{path}: the twin gives {got!r}, posenc {want!r}"]


def test_the_twin_defines_window_posenc_alone_frozen(browser) -> None:
    blank = browser.new_page()
    try:
        blank.set_content("<html><head></head><body></body></html>")
        before = set(blank.evaluate("Object.keys(window)"))
        blank.add_script_tag(path=str(TWIN_JS))
        assert set(blank.evaluate("Object.keys(window)")) - before == {"posenc"}
        assert blank.evaluate("Object.isFrozen(window.posenc)")
    finally:
        blank.close()


def test_every_function_has_golden_cases_and_every_case_a_function(page, golden) -> None:
    names = page.evaluate(
        "Object.keys(window.posenc).filter((k) => typeof window.posenc[k] === 'function')"
    )
    assert names == page.evaluate("Object.keys(window.posenc)"), "only functions are exported"
    assert sorted(set(names) - set(golden)) == [], "functions of the twin without golden cases"
    assert sorted(set(golden) - set(names)) == [], "golden cases for functions the twin lacks"
    for name in names:
        assert any("expected" in case for case in golden[name]), f"{name}: no golden value"
        assert any("throws" in case for case in golden[name]), f"{name}: no bad input"


def test_every_golden_value_is_what_the_twin_computes(golden, results) -> None:
    problems: list[str] = []
    for name, cases in golden.items():
        for i, (case, got) in enumerate(zip(cases, results[name], strict=True)):
            if "expected" not in case:
                continue
            where = f"{name}{json.dumps(case['args'])[:70]} (case {i})"
            if "value" not in got:
                problems.append(f"{where}: threw {got.get('error')}: {got.get('message')}")
                continue
            atol = case.get("atol", tg.ATOL)
            problems += _differences(got["value"], case["expected"], atol, where)[:3]
    assert not problems, f"{len(problems)} differences from posenc:\n" + "\n".join(problems[:30])


def test_bad_inputs_throw_the_class_of_posencs_error(golden, results) -> None:
    problems = []
    for name, cases in golden.items():
        for case, got in zip(cases, results[name], strict=True):
            if "throws" in case and got.get("error") != case["throws"]:
                seen = got.get("error") or f"no error ({str(got.get('value'))[:40]})"
                problems.append(f"{name}{json.dumps(case['args'])}: {seen}, not {case['throws']}")
            elif "throws" in case and not got.get("message"):
                problems.append(f"{name}{json.dumps(case['args'])}: an error without a message")
    assert not problems, "\n".join(problems)


def test_non_finite_inputs_are_refused_as_posenc_refuses_them(page) -> None:
    expected = [tg.evaluate(name, args, bad=True)["throws"] for name, args in NON_FINITE]
    got = page.evaluate(
        """(cases) => cases.map(([name, args]) => {
             try { window.posenc[name].apply(null, args); return "no error"; }
             catch (e) { return e.constructor.name; }
           })""",
        NON_FINITE,
    )
    assert got == expected, [
        f"{name}{args}: {g}, not {e}"
        for (name, args), g, e in zip(NON_FINITE, got, expected, strict=True)
        if g != e
    ]


def test_the_twins_results_have_the_properties_of_the_encodings(page) -> None:
    failed = page.evaluate(PROPERTIES)
    assert failed == [], "\n".join(failed[:30])
