"""The tests of one page run on one worker: a check of the grouping that ``conftest.py`` sets.

Each module of the suite loads a page (or a deck, or a handout) once per worker and checks it
in several tests. pytest-xdist keeps a group's tests on one worker only if the group reaches its
scheduler, as a suffix of each test's id; with pytest 9.2 it did not (pytest-xdist 3.8 writes a
field that pytest 9.2 no longer reads), and both workers loaded, typeset and checked every page.
A small suite grouped by the same hook runs here in two workers.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from .conftest import ROOT

_SAMPLE = """
import os

import pytest


@pytest.mark.parametrize("name", [f"page{i}" for i in range(6)])
@pytest.mark.parametrize("check", ["a", "b", "c", "d"])
def test_page(name, check):
    with open(os.path.join(os.environ["GROUPING_RECORD"], f"{name}-{check}"), "w") as f:
        f.write(os.environ["PYTEST_XDIST_WORKER"])
"""


def test_the_tests_of_one_page_run_on_one_worker(tmp_path: Path) -> None:
    (tmp_path / "test_sample.py").write_text(_SAMPLE, encoding="utf-8")
    (tmp_path / "conftest.py").write_text(
        "from tests.browser.conftest import pytest_collection_modifyitems  # noqa: F401\n",
        encoding="utf-8",
    )
    record = tmp_path / "record"
    record.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GROUPING_RECORD": str(record)}
    command = [sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", "loadgroup"]
    command += ["-p", "no:cacheprovider", "-p", "no:randomly", str(tmp_path)]
    done = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    workers: dict[str, set[str]] = {}
    for path in record.iterdir():
        name = path.name.split("-")[0]
        workers.setdefault(name, set()).add(path.read_text(encoding="utf-8"))
    assert sorted(workers) == [f"page{i}" for i in range(6)]
    assert {name: w for name, w in workers.items() if len(w) > 1} == {}, "pages split"
    used = set().union(*workers.values())
    assert used == {"gw0", "gw1"}, "the pages were not spread over both workers"
