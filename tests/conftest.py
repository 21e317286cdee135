"""Test-wide settings: deterministic property tests and a headless matplotlib."""

import os

import matplotlib
from hypothesis import settings

os.environ.setdefault("MPLBACKEND", "Agg")
matplotlib.use("Agg")

# CI runs on a shared 2-core machine: no per-example deadline (timing is for benchmarks/),
# and the same examples every run, so a red run always reproduces.
settings.register_profile("book", deadline=None, derandomize=True, print_blob=True)
settings.load_profile("book")
