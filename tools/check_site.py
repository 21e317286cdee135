"""Check the built HTML book for defects a reader would see (run after the build).

    python tools/check_site.py [_build/html]

Fails (exit 1) when a chapter page shows a figure as text (``<Figure size …>``, which means
the inline backend was off), shows a Python traceback or error output, has no image, has an
explorer without its pre-rendered static version, weighs more than 3 MB, or links to a page
or anchor of the book that does not exist.
"""

from __future__ import annotations

import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

MAX_PAGE_BYTES = 3_000_000


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        d = dict(attrs)
        if d.get("id"):
            self.ids.add(d["id"])
        if tag == "a" and d.get("href"):
            self.hrefs.append(d["href"])


def main(argv: list[str]) -> int:
    site = Path(argv[1] if len(argv) > 1 else "_build/html")
    pages = sorted(site.rglob("*.html"))
    parsed = {}
    for page in pages:
        p = Links()
        p.feed(page.read_text(encoding="utf-8"))
        parsed[page.resolve()] = p
    problems = []
    for page in sorted((site / "chapters").glob("*.html")):
        html = page.read_text(encoding="utf-8")
        name = page.relative_to(site)
        if "&lt;Figure size" in html:
            problems.append(f"{name}: a figure is shown as text (is %matplotlib inline missing?)")
        if re.search(
            r"Traceback \(most recent call last\)|output stderr|class=\"output error", html
        ):
            problems.append(f"{name}: shows an error or stderr output")
        if "<img" not in html:
            problems.append(f"{name}: has no image")
        if "application/vnd.jupyter.widget-view" in html:
            problems.append(f"{name}: shows a widget view instead of the static explorer")
        if page.stat().st_size > MAX_PAGE_BYTES:
            problems.append(f"{name}: {page.stat().st_size / 1e6:.2f} MB, over the 3 MB budget")
    for page, p in parsed.items():
        for href in p.hrefs:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or href.startswith(("mailto:", "javascript:")):
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                problems.append(f"{page.relative_to(site.resolve())}: broken link {href}")
            elif parts.fragment and target in parsed and parts.fragment not in parsed[target].ids:
                problems.append(f"{page.relative_to(site.resolve())}: missing anchor {href}")
    for line in problems:
        print(line)
    print(f"checked {len(pages)} pages: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
