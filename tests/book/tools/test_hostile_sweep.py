"""book/tools/hostile_sweep.py finds no bad input that posenc accepts or answers unclearly."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_the_sweep_finds_nothing_silent_or_unclear():
    run = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "hostile_sweep.py"), "--list"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    counts = {
        k: int(v)
        for k, v in re.findall(r"^\s+(clear|unclear|silent)\s+(\d+)", run.stdout, re.MULTILINE)
    }
    assert counts.get("clear", 0) > 2000, run.stdout[-2000:]
    assert counts["unclear"] == 0 and counts["silent"] == 0, run.stdout[-4000:]
