"""The execution cache's name (book/ext/book_site.py) follows every module the chapters import.

The chapters import posenc and the book's figures, explorers, toy model, catalogue, demos and
experiments: a change to any of them re-executes the chapters. The build's own code
(book/ext, book/tools) is imported by no chapter and leaves the cache alone.
"""

from __future__ import annotations

from pathlib import Path

from book.ext.book_site import executed_sources, execution_digest

ROOT = Path(__file__).resolve().parents[3]


def test_the_digest_covers_what_the_chapters_import() -> None:
    names = [name for name, _ in executed_sources(ROOT)]
    assert "requirements.txt" in names
    for name in ("posenc/__init__.py", "book/catalogue.py", "book/figures/__init__.py"):
        assert name in names
    for folder in ("book/toy/", "book/explorers/", "book/demos/", "book/experiments/"):
        assert any(name.startswith(folder) for name in names), folder
    assert not [n for n in names if n.startswith(("book/ext/", "book/tools/"))]


def test_a_figure_changes_the_digest_and_the_build_code_does_not(tmp_path: Path) -> None:
    files = {
        "requirements.txt": "torch==2.13.0\n",
        "posenc/__init__.py": "",
        "book/__init__.py": "",
        "book/figures/sinusoidal.py": "WIDTH = 6.7\n",
        "book/ext/quiz.py": "LABEL = 'Check'\n",
        "book/tools/build_book.py": "JOBS = 2\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    packages = [tmp_path / "posenc", tmp_path / "book"]
    first = execution_digest(tmp_path, packages)
    (tmp_path / "book/ext/quiz.py").write_text("LABEL = 'Check it'\n")
    (tmp_path / "book/tools/build_book.py").write_text("JOBS = 3\n")
    assert execution_digest(tmp_path, packages) == first
    (tmp_path / "book/figures/sinusoidal.py").write_text("WIDTH = 6.5\n")
    second = execution_digest(tmp_path, packages)
    assert second != first
    (tmp_path / "posenc/__init__.py").write_text("__all__ = []\n")
    assert execution_digest(tmp_path, packages) not in (first, second)
