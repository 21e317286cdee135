"""The two distributions ship what they should: posenc alone, and the book's every subpackage."""

from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[2]


def _project(path: Path) -> dict:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def test_the_book_distribution_lists_every_subpackage_and_its_data():
    config = _project(ROOT / "book" / "pyproject.toml")["tool"]["setuptools"]
    assert config["package-dir"] == {"book": "."}
    folders = sorted(
        ".".join(("book", *init.parent.relative_to(ROOT / "book").parts))
        for init in (ROOT / "book").rglob("__init__.py")
        if "__pycache__" not in init.parts
    )
    assert sorted(config["packages"]) == folders
    data = config["package-data"]["book.ext"]
    static = sorted(
        p.relative_to(ROOT / "book" / "ext").as_posix()
        for p in (ROOT / "book" / "ext").rglob("*")
        if p.is_file() and p.suffix != ".py" and "__pycache__" not in p.parts
    )
    unshipped = [f for f in static if not any(Path(f).match(pattern) for pattern in data)]
    assert unshipped == [], "book/ext's static files that a normal install would leave out"


def test_the_posenc_distribution_is_the_library_alone():
    project = _project(ROOT / "pyproject.toml")
    assert project["project"]["name"] == "posenc"
    assert project["tool"]["setuptools"]["packages"]["find"]["include"] == ["posenc*"]
    assert project["project"]["dependencies"] == ["torch>=2.1"]
