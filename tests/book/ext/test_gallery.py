"""The figure gallery (``book/ext/gallery.py``): which figures it finds, the files it publishes,
and what makes the gallery page rebuild."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt

from book.ext.gallery import (
    absolute_doc_links,
    book_figures,
    figure_cells,
    figure_files,
    gallery_digest,
    publish_figures,
    shows_gallery,
    toc_docnames,
)
from book.figures._base import retina_palette_png
from book.tools import stamps

ROOT = Path(__file__).resolve().parents[3]


def _cell(name: str | None, caption: str = "", outputs: list | None = None) -> dict:
    metadata = {"mystnb": {"figure": {"name": name, "caption": caption}}} if name else {}
    return {
        "cell_type": "code",
        "metadata": metadata,
        "source": "draw()",
        "outputs": outputs or [],
    }


def _book(tmp_path: Path, captions: dict[str, str]) -> Path:
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: intro\nchapters:\n  - file: chapters/b\n  - file: chapters/a\n"
    )
    (tmp_path / "intro.md").write_text("# Intro\n")
    (tmp_path / "chapters").mkdir()
    for stem, caption in captions.items():
        nb = {"cells": [_cell(f"fig-{stem}", caption), _cell(None)], "metadata": {}}
        (tmp_path / "chapters" / f"{stem}.ipynb").write_text(json.dumps(nb))
    return tmp_path


def test_figures_are_found_in_reading_order_with_their_captions(tmp_path: Path) -> None:
    root = _book(tmp_path, {"a": "Caption A.", "b": "Caption $x$ B."})
    assert toc_docnames(root / "_toc.yml") == ["intro", "chapters/b", "chapters/a"]
    assert book_figures(root, root / "_toc.yml") == [
        ("chapters/b", [("fig-b", "Caption $x$ B.")]),
        ("chapters/a", [("fig-a", "Caption A.")]),
    ]


def test_the_book_has_a_gallery_entry_for_every_labelled_figure() -> None:
    figures = book_figures(ROOT, ROOT / "_toc.yml")
    labels = [label for _, entries in figures for label, _ in entries]
    assert len(labels) == len(set(labels)), "two figures share a label"
    assert len(labels) >= 40
    assert all(label.startswith("fig-") for label in labels)
    assert all(caption for _, entries in figures for _, caption in entries)


def test_only_code_cells_with_a_figure_name_count() -> None:
    notebook = {
        "cells": [
            _cell("fig-one", "One."),
            _cell(None),
            {"cell_type": "markdown", "metadata": {"mystnb": {"figure": {"name": "x"}}}},
        ]
    }
    assert [label for label, _, _ in figure_cells(notebook)] == ["fig-one"]


def test_published_files_are_the_figures_png_and_svg(tmp_path: Path) -> None:
    fig, ax = plt.subplots(figsize=(2, 1.5))
    ax.plot([0, 1], [1, 0])
    ax.set_title("a title")
    png, metadata = retina_palette_png(fig)
    plt.close(fig)
    outputs = [
        {
            "output_type": "display_data",
            "data": {"image/png": png},
            "metadata": {"image/png": metadata},
        }
    ]
    executed = tmp_path / "jupyter_execute"
    (executed / "chapters").mkdir(parents=True)
    notebook = {"cells": [_cell("fig-line", "A line.", outputs)]}
    (executed / "chapters" / "a.ipynb").write_text(json.dumps(notebook))
    files = figure_files(notebook)
    assert files["fig-line"][0] == base64.b64decode(png)
    site = tmp_path / "html"
    stale = site / "figures" / "fig-gone.svg"
    stale.parent.mkdir(parents=True)
    stale.write_text("<svg/>")
    assert publish_figures(executed, ["chapters/a"], site) == 2
    assert sorted(p.name for p in (site / "figures").iterdir()) == ["fig-line.png", "fig-line.svg"]
    assert (site / "figures" / "fig-line.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = (site / "figures" / "fig-line.svg").read_text()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    # nothing changed: nothing written again
    assert publish_figures(executed, ["chapters/a"], site) == 0


def test_a_caption_edit_changes_the_gallery_digest_and_the_page_inputs(tmp_path: Path) -> None:
    root = _book(tmp_path, {"a": "Caption A.", "b": "Caption B."})
    (root / "instructor").mkdir()
    (root / "instructor" / "figures.md").write_text("# Figures\n\n```{figure-gallery}\n```\n")
    assert shows_gallery((root / "instructor" / "figures.md").read_text())
    assert not shows_gallery((root / "intro.md").read_text())
    before = gallery_digest(root, "en")
    inputs = stamps.page_inputs(root, "instructor/figures", "en")
    assert inputs[stamps.GALLERY] == before
    assert stamps.GALLERY not in stamps.page_inputs(root, "intro", "en")
    _book_path = root / "chapters" / "a.ipynb"
    nb = json.loads(_book_path.read_text())
    nb["cells"][0]["metadata"]["mystnb"]["figure"]["caption"] = "Caption A, edited."
    _book_path.write_text(json.dumps(nb))
    assert gallery_digest(root, "en") != before


def test_doc_links_of_a_caption_resolve_from_the_gallery() -> None:
    text = "see {doc}`10_x` and {doc}`the appendix <../appendix/a>`, {doc}`/intro`"
    assert absolute_doc_links(text, "chapters/11_y") == (
        "see {doc}`/chapters/10_x` and {doc}`the appendix </appendix/a>`, {doc}`/intro`"
    )
