"""The licences: CC BY 4.0 for the text, figures and slides, MIT for the code, stated where a
reader or a lecturer looks (``LICENSE``, the README, the packages' metadata)."""

from __future__ import annotations

import re
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[2]


def test_license_names_both_licences_and_what_each_covers() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Creative Commons Attribution 4.0 International (CC BY 4.0)" in text
    for covered in ("chapters/*.ipynb", "intro.md", "locales/", "quizzes/", "slide decks"):
        assert covered in text, f"LICENSE does not say that CC BY 4.0 covers {covered}"
    assert "MIT License" in text
    for covered in ("posenc/", "book/", "tests/", "code cells"):
        assert covered in text, f"LICENSE does not say that MIT covers {covered}"
    # the MIT licence's own words, whole
    assert "Permission is hereby granted, free of charge, to any person obtaining a copy" in text
    assert 'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND' in text
    assert re.search(r"^Copyright \(c\) 20\d\d ", text, re.MULTILINE)


def test_the_cc_by_legal_code_is_whole() -> None:
    text = (ROOT / "LICENSE-CC-BY-4.0.txt").read_text(encoding="utf-8")
    assert text.startswith("Attribution 4.0 International\n")
    headings = re.findall(r"^Section (\d) -- ", text, re.MULTILINE)
    assert headings == [str(n) for n in range(1, 9)], headings
    assert text.rstrip().endswith("Creative Commons may be contacted at creativecommons.org.")


def test_the_readme_states_the_licences() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Licence\n", 1)[1].split("\n## ", 1)[0]
    assert "[CC BY 4.0](LICENSE-CC-BY-4.0.txt)" in section
    assert "[MIT licence](LICENSE)" in section


def test_the_packages_declare_mit() -> None:
    for path in (ROOT / "pyproject.toml", ROOT / "book" / "pyproject.toml"):
        project = tomllib.loads(path.read_text(encoding="utf-8"))["project"]
        assert project["license"] == {"text": "MIT"}, path
