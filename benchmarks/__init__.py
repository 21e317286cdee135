"""Benchmarks: scripts that print tables, run as ``python -m benchmarks.NAME`` from the root."""
