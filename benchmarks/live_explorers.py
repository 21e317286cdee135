"""Time the live explorers' redraws in chromium, and weigh their HTML against pre-rendered frames.

    python -m benchmarks.live_explorers

For each live explorer of ``tests.browser.live.CASES``, its test page (the explorer's static
HTML with the twin's scripts) is opened in Debian's chromium at a laptop's width
(1366 px, device pixel ratio 1) and a phone's (390 px, ratio 3), and the drawer is run 20 times
(after one to warm the JIT) for the default values, for values no pre-rendered frame had, and
for the largest values of its ranges. Each time covers computing (posenc's twin), drawing, and
reading one pixel back (which waits for the canvas to be painted). Targets (issue 24): median
<= 16 ms at the default sizes, <= 50 ms at the largest. Then the bytes of the explorer's
``static_html()`` as a live explorer and with every combination pre-rendered (as before).
"""

from __future__ import annotations

import dataclasses
import shutil
import statistics
import tempfile
from pathlib import Path

from book.explorers.explorer import Explorer
from tests.browser.conftest import CHROMIUM_FLAGS
from tests.browser.live import CASES, REDRAWS, STATE, live_page

SCREENS = [("laptop 1366", 1366, 1), ("phone 390", 390, 3)]


def timings() -> list[tuple[str, str, str, float, float, float]]:
    from playwright.sync_api import sync_playwright

    rows = []
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_FLAGS)
        try:
            for name, case in CASES.items():
                url = live_page(Path(folder) / name, case.make().static_html()).as_uri()
                for screen, width, ratio in SCREENS:
                    page = browser.new_page(
                        viewport={"width": width, "height": 900}, device_scale_factor=ratio
                    )
                    page.goto(url)
                    first = dict(page.evaluate(STATE)["values"])
                    new = {k: v[0] for k, v in case.new_values.items()}
                    for label, values, target in (
                        ("defaults", first, case.default_ms),
                        ("new values", {**first, **new}, case.default_ms),
                        ("largest", {**first, **case.largest}, case.largest_ms),
                    ):
                        times = page.evaluate(REDRAWS, [name, values])
                        rows.append(
                            (name, screen, label, statistics.median(times), max(times), target)
                        )
                    page.close()
        finally:
            browser.close()
    return rows


def weights() -> list[tuple[str, int, int]]:
    """(drawer, bytes of the explorer's HTML with every combination pre-rendered, as live)."""
    rows = []
    for name, case in CASES.items():
        live = case.make()
        frames = Explorer(
            live.render,
            [dataclasses.replace(c, live=None) for c in live.controls],
            title=live.title,
            dpi=live.dpi,
            pixel_ratio=live.pixel_ratio,
            colors=live.colors,
            max_combinations=10**6,
        )
        rows.append((name, len(frames.static_html()), len(live.static_html())))
    return rows


def main() -> None:
    print(f"{'explorer':<16} {'screen':<12} {'values':<11} {'median ms':>9} {'max ms':>7}  target")
    for name, screen, label, median, worst, target in timings():
        verdict = "ok" if median <= target else "SLOW"
        print(
            f"{name:<16} {screen:<12} {label:<11} {median:9.1f} {worst:7.1f}  "
            f"<= {target:g} ms {verdict}"
        )
    print()
    print(f"{'explorer':<16} {'frames (before)':>16} {'live (after)':>13}")
    for name, before, after in weights():
        print(f"{name:<16} {before / 1024:13.1f} KB {after / 1024:10.1f} KB")


if __name__ == "__main__":
    main()
