"""Fixtures for the browser tests: the built site served on 127.0.0.1 and Debian's chromium.

The suite checks the published book the way a reader meets it: a static site with no kernel and
no network. Run it after a build (``make browser``, part of ``make test``). ``BOOK_SITE`` points
it at another build (default ``_build/html``); ``BOOK_SCREENSHOTS`` at another screenshot
folder (default ``_build/screenshots``); ``BOOK_FULL_SCREENSHOTS=1`` photographs whole pages
instead of their first screen.
"""

from __future__ import annotations

import functools
import gzip
import http.server
import json
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SITE = Path(os.environ.get("BOOK_SITE", ROOT / "_build" / "html")).resolve()
SCREENSHOTS = Path(os.environ.get("BOOK_SCREENSHOTS", ROOT / "_build" / "screenshots")).resolve()
FULL_SCREENSHOTS = os.environ.get("BOOK_FULL_SCREENSHOTS", "") == "1"  # else the first screen

# Flags for Debian's chromium in a container with no display, no GPU and no network.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]


from book.ext.editions import EDITIONS, SOURCE_LANGUAGE, TRANSLATIONS  # built under the site's root
from book.tools.build_handouts import toc_pages  # the one reader of _toc.yml

LANGUAGES = tuple(EDITIONS)  # the source language first, then each translation


def edition_pages() -> list[str]:
    """Every page of every edition: the English ones, then each translation's, as site paths."""
    pages = toc_pages()
    return pages + [f"{language}/{page}" for language in TRANSLATIONS for page in pages]


def edition(name: str) -> tuple[str, str]:
    """(language, page) of a site path: ("zh_CN", "intro") for "zh_CN/intro", ("en", "intro")
    for "intro"."""
    first, _, rest = name.partition("/")
    return (first, rest) if first in TRANSLATIONS else (SOURCE_LANGUAGE, name)


def edition_folder(language: str) -> str:
    """Where an edition lies under the site's root: "" for English, "zh_CN/" for Chinese."""
    return "" if language == SOURCE_LANGUAGE else f"{language}/"


def is_chapter(page: str) -> bool:
    """True for a chapter page of any edition (``chapters/…`` or ``zh_CN/chapters/…``)."""
    return page.split("/")[-2:-1] == ["chapters"]


def pytest_configure(config: pytest.Config) -> None:
    if shutil.which("chromium") is None:
        pytest.exit(
            "The browser tests need Debian's chromium and it is not installed. Install it with "
            "`sudo apt-get install -y chromium` (`make setup` does this itself when run as root). "
            "Do not run `playwright install`: it cannot download browsers here.",
            returncode=1,
        )
    if not (SITE / "index.html").is_file():
        pytest.exit(f"No built book at {SITE}: run `make build-book` first.", returncode=1)


_COMPRESSIBLE = {".html", ".js", ".css", ".svg", ".json", ".txt", ".map", ".ipynb"}


class _StaticHost(http.server.SimpleHTTPRequestHandler):
    """Serve files the way a typical static host does: text assets gzip-compressed on request."""

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        path = Path(self.translate_path(self.path))
        if (
            path.suffix not in _COMPRESSIBLE
            or not path.is_file()
            or "gzip" not in self.headers.get("Accept-Encoding", "")
        ):
            super().do_GET()
            return
        body = gzip.compress(path.read_bytes(), compresslevel=6)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="session")
def site_url() -> Iterator[str]:
    """Serve the built site on a free port of 127.0.0.1 for the whole session (gzip, like a host)."""
    handler = functools.partial(_StaticHost, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's chromium driven by playwright (never a playwright-downloaded browser)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_FLAGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Keep the tests of one page (or deck) of a module on one worker (``make browser`` runs
    ``--dist loadgroup``).

    Each module loads a page, a deck or a handout once per worker and checks what it found in
    several tests (``_visit``, ``_open``, ``handout``); spread over both workers, every page was
    loaded, typeset and photographed twice. ``tryfirst``: the groups must be set before
    pytest-xdist's own hook of the same name reads them; ``test_grouping.py`` checks that they
    reach its scheduler.
    """
    for item in items:
        if item.get_closest_marker("xdist_group"):  # a module that groups its tests itself
            continue
        params = getattr(getattr(item, "callspec", None), "params", {})
        key = params.get("name", params.get("stem"))
        if key is not None:
            item.add_marker(pytest.mark.xdist_group(f"{item.path.stem}:{key}"))


# Tests run in several pytest-xdist workers: each appends what it records to its own file, and
# the summary, printed by the controller at the end, merges them.
_RECORDS = SCREENSHOTS / "records"


def pytest_sessionstart(session: pytest.Session) -> None:
    if not hasattr(session.config, "workerinput"):  # the controller, or a run without workers
        shutil.rmtree(_RECORDS, ignore_errors=True)


def record(page: str, **values: Any) -> None:
    """Remember figures about a page for the summary printed at the end of the session."""
    _RECORDS.mkdir(parents=True, exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with open(_RECORDS / f"{worker}.jsonl", "a", encoding="utf-8") as f:
        f.write(json.dumps({"page": page, **values}) + "\n")


def _recorded() -> dict[str, dict[str, Any]]:
    report: dict[str, dict[str, Any]] = {}
    for path in sorted(_RECORDS.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            values = json.loads(line)
            report.setdefault(values.pop("page"), {}).update(values)
    return report


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):
        return
    report = _recorded()
    if not report:
        return
    lines = [
        (
            "| page | transferred KB (gzip) | uncompressed KB | requests | load ms | math typeset ms "
            "| math elements | explorer controls changing the figure | quiz questions answered |"
        ),
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for page in edition_pages():
        r = report.get(page)
        if r is None:
            continue
        lines.append(
            f"| {page} | {r.get('kb', '–')} | {r.get('raw_kb', '–')} | {r.get('requests', '–')} | {r.get('load_ms', '–')} | "
            f"{r.get('math_ms', '–')} | {r.get('math', '–')} | {r.get('controls', '–')} | "
            f"{r.get('quiz', '–')} |"
        )
    text = "\n".join(lines)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    (SCREENSHOTS / "report.md").write_text(text + "\n")
    terminalreporter.write_sep("-", f"pages (also in {SCREENSHOTS / 'report.md'})")
    terminalreporter.write_line(text)
    _reader_summary(terminalreporter, report)


def _reader_summary(terminalreporter: Any, report: dict[str, dict[str, Any]]) -> None:
    """What reading.py read (test_site, test_reader, test_slides): equations wider than their box
    per screen, images without alt text, axe-core violations by rule."""
    lines = [
        "| page or deck | equations | cut at 1366 px | wider than 390 px (scroll) | images without alt | axe violations |",
        "|---|---|---|---|---|---|",
    ]
    for page, r in report.items():
        if "axe" not in r and "wide_on_phone" not in r:
            continue
        lines.append(
            f"| {page} | {r.get('equations', '–')} | {r.get('clipped_on_laptop', '–')} | "
            f"{r.get('wide_on_phone', '–')} | {r.get('no_alt', '–')} | "
            f"{', '.join(r.get('axe', [])) or '–'} |"
        )
    if len(lines) == 2:
        return
    text = "\n".join(lines)
    (SCREENSHOTS / "reader.md").write_text(text + "\n")
    terminalreporter.write_sep("-", f"reader (also in {SCREENSHOTS / 'reader.md'})")
    terminalreporter.write_line(text)
