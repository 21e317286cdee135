"""The figure gallery: every figure of the book by its label, as PNG and SVG, with its caption.

A lecturer building slides of their own wants the book's figures as files with names that do
not change. Every figure of a chapter is a code cell with ``mystnb.figure`` metadata whose
``name`` (``fig-sin-heatmap``) is its label, the name a reference to it uses; the build
publishes each figure under that name:

* ``<site>/figures/<label>.png``: the page's 2× PNG (the cell's ``image/png`` output);
* ``<site>/figures/<label>.svg``: the same figure drawn as SVG, which
  :func:`book.figures._base.retina_palette_png` stores in the output's metadata (``"svg"``).

They are written when the build finishes, from the executed notebooks
(``_build/jupyter_execute/<doc>.ipynb``, written by ``book_site.py`` at priority 400), into each
edition's own site, so that the Chinese edition can carry its own figures. A label the book no
longer has loses its files.

A page holding the directive ``{figure-gallery}`` (``instructor/figures.md``) lists them, chapter
by chapter in the order of ``_toc.yml``: the figure's number (a link to it in its chapter),
its caption (in the page's language, from the chapter's catalogue), the label, a picture and
the two files. The captions are parsed as MyST, so their math and equation references work;
they are marked untranslatable, so the gallery's own catalogue does not repeat the chapters'.
``book/tools/stamps.py`` makes ``gallery_digest`` (every figure's label and caption, and the
chapters' catalogues) an input of that page: an edited caption updates the gallery.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import posixpath
import re
from pathlib import Path
from typing import Any

import yaml
from docutils import nodes
from docutils.statemachine import StringList
from sphinx import addnodes
from sphinx.util.docutils import SphinxDirective

from book.ext.editions import SOURCE_LANGUAGE, catalogue_path, language_of, translate_text, ui_text
from book.ext.reader import figure_alt, plain_text

FIGURES_FOLDER = "figures"  # under each edition's site root
GALLERY_DIRECTIVE = "figure-gallery"


def toc_docnames(toc_file: Path) -> list[str]:
    """The document names of ``_toc.yml``, root first, in reading order."""
    toc = yaml.safe_load(toc_file.read_text(encoding="utf-8"))
    names = [toc["root"]]

    def walk(entries: list[dict[str, Any]]) -> None:
        for entry in entries:
            if "file" in entry:
                names.append(entry["file"])
            for key in ("chapters", "sections", "parts"):
                walk(entry.get(key, []))

    walk(toc.get("parts", []) + toc.get("chapters", []))
    return names


def figure_cells(notebook: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """``(label, caption, cell)`` of every figure cell of ``notebook`` (its JSON), in order: the
    code cells whose ``mystnb.figure`` metadata names the figure."""
    out = []
    for cell in notebook.get("cells", []):
        figure = cell.get("metadata", {}).get("mystnb", {}).get("figure", {})
        if cell.get("cell_type") == "code" and figure.get("name"):
            out.append((str(figure["name"]), str(figure.get("caption", "")), cell))
    return out


def book_figures(root: Path, toc_file: Path) -> list[tuple[str, list[tuple[str, str]]]]:
    """``(docname, [(label, caption), …])`` for every notebook page of the book with figures,
    in reading order."""
    out = []
    for docname in toc_docnames(toc_file):
        source = root / f"{docname}.ipynb"
        if not source.is_file():
            continue
        cells = figure_cells(json.loads(source.read_text(encoding="utf-8")))
        if cells:
            out.append((docname, [(label, caption) for label, caption, _ in cells]))
    return out


def gallery_digest(root: Path, language: str, toc_file: Path | None = None) -> str:
    """A digest of what the gallery page shows in ``language``: every figure's label and
    caption, and, in a translation, the catalogues of the chapters that hold them."""
    figures = book_figures(root, toc_file or root / "_toc.yml")
    digest = hashlib.sha256(json.dumps(figures).encode())
    if language != SOURCE_LANGUAGE:
        for docname, _ in figures:
            path = catalogue_path(language, docname)
            digest.update(path.read_bytes() if path.is_file() else b"-")
    return digest.hexdigest()[:20]


def shows_gallery(text: str) -> bool:
    """Whether a page's source holds the gallery directive."""
    return "{" + GALLERY_DIRECTIVE + "}" in text


def figure_files(executed: dict[str, Any]) -> dict[str, tuple[bytes, str | None]]:
    """label -> (PNG bytes, SVG text or None) of every figure of an executed notebook (JSON)."""
    out: dict[str, tuple[bytes, str | None]] = {}
    for label, _, cell in figure_cells(executed):
        for output in cell.get("outputs", []):
            png = output.get("data", {}).get("image/png")
            if png:
                svg = output.get("metadata", {}).get("image/png", {}).get("svg")
                text = "".join(png) if isinstance(png, list) else png
                out[label] = (base64.b64decode(text), svg if isinstance(svg, str) else None)
                break
    return out


def _write_if_changed(path: Path, data: bytes) -> bool:
    if path.is_file() and path.read_bytes() == data:
        return False
    path.write_bytes(data)
    return True


def publish_figures(executed_dir: Path, docnames: list[str], outdir: Path) -> int:
    """Write the figures of ``docnames`` (read from ``executed_dir``) to ``outdir/figures``; drop
    the files of labels the book no longer has. Return how many files were written."""
    folder = outdir / FIGURES_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    keep: set[str] = set()
    written = 0
    for docname in docnames:
        path = executed_dir / f"{docname}.ipynb"
        if not path.is_file():
            continue
        for label, (png, svg) in figure_files(json.loads(path.read_text("utf-8"))).items():
            keep |= {f"{label}.png", f"{label}.svg"}
            written += _write_if_changed(folder / f"{label}.png", png)
            if svg is not None:
                written += _write_if_changed(folder / f"{label}.svg", svg.encode("utf-8"))
    for path in folder.iterdir():
        if path.name not in keep:
            path.unlink()
    return written


_DOC_ROLE = re.compile(r"\{doc\}`([^`<]*?<)?([^`>]+)(>?)`")


def absolute_doc_links(text: str, docname: str) -> str:
    """``text`` (MyST from page ``docname``) with its ``{doc}`` targets made absolute, so that
    they resolve from the gallery's page too: in ``chapters/11_x``, ``{doc}`10_y``` becomes
    ``{doc}`/chapters/10_y```."""

    def absolute(match: re.Match[str]) -> str:
        label, target, close = match.group(1) or "", match.group(2), match.group(3)
        if not target.startswith("/"):
            target = "/" + posixpath.normpath(posixpath.join(posixpath.dirname(docname), target))
        return "{doc}`" + label + target + close + "`"

    return _DOC_ROLE.sub(absolute, text)


def _untranslatable(node: nodes.Node) -> None:
    """Mark every text element under ``node`` untranslatable: the chapters' catalogues
    translate the captions, not the gallery's."""
    for element in node.findall(nodes.TextElement):
        element["translatable"] = False


class FigureGallery(SphinxDirective):
    """``{figure-gallery}``: every figure of the book, chapter by chapter."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        root = Path(self.env.srcdir)
        language = language_of(self.env.app)
        toc = Path(self.env.config.external_toc_path or root / "_toc.yml")
        if not toc.is_absolute():
            toc = root / toc
        prefix = "../" * self.env.docname.count("/")
        chapters = book_figures(root, toc)  # every notebook read once
        for docname, _ in chapters:
            self.env.note_dependency(str(root / f"{docname}.ipynb"))
        out: list[nodes.Node] = []
        for docname, figures in chapters:
            heading = nodes.paragraph(classes=["gallery-chapter"])
            ref = addnodes.pending_xref(
                "",
                refdomain="std",
                reftype="doc",
                reftarget="/" + docname,
                refexplicit=False,
                refdoc=self.env.docname,
            )
            ref += nodes.inline("", "")
            heading += nodes.strong("", "", ref)
            out.append(heading)
            for label, caption in figures:
                out.append(self._entry(docname, label, caption, language, prefix))
        return out

    def _entry(
        self, docname: str, label: str, caption: str, language: str, prefix: str
    ) -> nodes.Node:
        text = (
            translate_text(caption, language, docname) if language != SOURCE_LANGUAGE else caption
        )
        text = absolute_doc_links(text, docname)
        box = nodes.container(classes=["gallery-figure"], ids=[f"gallery-{label}"])
        files = f"{prefix}{FIGURES_FOLDER}/{label}"
        box += nodes.raw(  # its alt text is the figure's, once the page is read (_alt_texts)
            "",
            f'<a class="gallery-picture" href="{files}.png">'
            f'<img src="{files}.png" alt="{_ALT}" loading="eager"></a>',
            format="html",
        )
        body = nodes.container(classes=["gallery-text"])
        number = addnodes.pending_xref(
            "",
            refdomain="std",
            reftype="numref",
            reftarget=label,
            refexplicit=False,
            refwarn=True,
            refdoc=self.env.docname,
        )
        number += nodes.literal(label, label)
        number["classes"].append(_NUMBER)
        parsed = nodes.container()
        self.state.nested_parse(StringList(text.splitlines() or [""], self.env.docname), 0, parsed)
        paragraphs = list(parsed.findall(nodes.paragraph))
        if paragraphs:
            paragraphs[0].insert(0, nodes.Text(" "))
            paragraphs[0].insert(0, nodes.strong("", "", number))
        else:
            parsed += nodes.paragraph("", "", nodes.strong("", "", number))
        body += parsed.children
        files_line = nodes.paragraph(classes=["gallery-files"])
        files_line += nodes.Text(ui_text(language, "Files:") + " ")
        files_line += nodes.raw(
            "",
            f'<a href="{files}.svg" download><code>{label}.svg</code></a> · '
            f'<a href="{files}.png" download><code>{label}.png</code></a>',
            format="html",
        )
        body += files_line
        box += body
        _untranslatable(box)
        return box


_ALT = "__gallery-alt__"  # the picture's alt text, until the page is read
_NUMBER = "gallery-number"


def _alt_texts(app: Any, doctree: nodes.document) -> None:
    """Give each gallery picture the alt text its figure has in its chapter: the caption's
    first sentence as the page reads it (``book/ext/reader.py``, after the quotes are made
    typographic), without the figure's number."""
    for box in doctree.findall(nodes.container):
        if "gallery-figure" not in box["classes"]:
            continue
        caption = next(
            (p for p in box.findall(nodes.paragraph) if "gallery-files" not in p["classes"]), None
        )
        if caption is None:
            continue
        words = caption.deepcopy()
        for number in list(words.findall(addnodes.pending_xref)):
            if _NUMBER in number["classes"]:
                number.parent.parent.remove(number.parent)  # the <strong> holding it
        alt = html.escape(figure_alt(plain_text(words)), quote=True)
        for raw in box.findall(nodes.raw):
            if _ALT in raw.astext():
                raw.children = [nodes.Text(raw.astext().replace(_ALT, alt))]


def _publish(app: Any, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    from sphinx.util import logging

    outdir = Path(app.outdir)
    executed = outdir.parent / "jupyter_execute"
    docnames = sorted(d for d in app.env.found_docs if (executed / f"{d}.ipynb").is_file())
    written = publish_figures(executed, docnames, outdir)
    logging.getLogger(__name__).info(f"gallery: {written} figure file(s) written")


def setup(app: Any) -> dict[str, Any]:
    app.add_directive(GALLERY_DIRECTIVE, FigureGallery)
    app.connect("doctree-read", _alt_texts)
    # after book_site.py has written the executed notebooks (priority 400)
    app.connect("build-finished", _publish, priority=450)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
