"""The book's Sphinx settings (``book/ext/book_site.py``): the shared execution cache."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path
from types import SimpleNamespace

import nbformat

ROOT = Path(__file__).resolve().parents[3]

from book.ext import book_site
from book.ext.book_site import execution_digest, prepare_execution_cache


def test_execution_digest_follows_the_pins(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("torch==2.13.0\n")
    first = execution_digest(tmp_path)
    assert execution_digest(tmp_path) == first
    (tmp_path / "requirements.txt").write_text("torch==2.13.1\n")
    assert execution_digest(tmp_path) != first
    assert execution_digest(ROOT) != first


def test_configuring_a_cached_build_makes_the_cache_before_reading(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("torch==2.13.0\n")
    config = SimpleNamespace(
        nb_execution_mode="cache", nb_execution_cache_path="", html_context={}, mathjax_path=""
    )
    book_site._configure(SimpleNamespace(srcdir=str(tmp_path)), config)
    cache = Path(config.nb_execution_cache_path)
    assert cache == tmp_path / "_build" / ".jupyter_cache" / execution_digest(tmp_path)
    assert (cache / "global.db").is_file()


def _look_up(path: str, start: multiprocessing.synchronize.Barrier, results) -> None:
    from jupyter_cache import get_cache

    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")])
    start.wait()
    try:
        get_cache(path).match_cache_notebook(notebook)
        results.put("matched")
    except KeyError:  # not cached yet: what a first build's reader sees
        results.put("not cached")
    except Exception as error:  # noqa: BLE001 (reported to the test)
        results.put(f"{type(error).__name__}: {error}")


def test_readers_started_together_share_a_prepared_cache(tmp_path: Path) -> None:
    """What failed CI: reading processes that all made the cache at once (FileExistsError)."""
    path = tmp_path / "cache"
    prepare_execution_cache(path)
    prepare_execution_cache(path)  # idempotent: a rebuild finds it made
    readers = 8
    context = multiprocessing.get_context("fork")
    start, results = context.Barrier(readers), context.Queue()
    workers = [
        context.Process(target=_look_up, args=(str(path), start, results)) for _ in range(readers)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert [results.get(timeout=5) for _ in workers] == ["not cached"] * readers


def test_the_build_reads_in_as_many_processes_as_it_may_use_cpus(monkeypatch) -> None:
    assert 1 <= book_site.usable_cpus() <= (os.cpu_count() or 1)
    monkeypatch.delattr(os, "sched_getaffinity")  # as on macOS
    assert book_site.usable_cpus() == (os.cpu_count() or 1)
