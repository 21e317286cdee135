"""Build the book's editions, or extract its text for translation (``make book`` runs this).

    python -m book build [--language en|zh_CN|all] [--all]
    python -m book build --gettext        # the English text, as _build/i18n/gettext/**.pot

The English edition is built into ``_build/html/`` and each translation into
``_build/<language>/html/``, then copied to ``_build/html/<language>/`` so that the published
site holds both (each edition keeps its own output folder, so an edit rebuilds only what it
changed). Every edition is the same Jupyter Book (``_config.yml``, ``_toc.yml``, the same
notebooks); a translation only sets Sphinx's ``language``, which makes Sphinx replace each
paragraph, heading, caption and list item by its translation from
``locales/<language>/LC_MESSAGES/<page>.po`` (CONTRIBUTING.md, "Translations").

Chapters are executed once: ``execute_notebooks: cache`` keeps their outputs in a jupyter-cache
that both editions share (``book/ext/book_site.py`` names it by a digest of posenc), so the
Chinese edition, and a rebuild after a prose edit, executes nothing.

This calls Jupyter Book's own ``build_sphinx`` (what ``jupyter-book build`` calls) because its
command line can neither set ``language`` nor choose the output folder.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

from book.ext.book_site import execution_digest
from book.ext.editions import SOURCE_LANGUAGE, TRANSLATIONS

BUILD = ROOT / "_build"
KEEP_IN_SITE = "pdf"  # the handouts, printed from the published pages
# Sphinx settings that only a translation needs (its search splits words with jieba).
LANGUAGE_SETTINGS: dict[str, dict[str, object]] = {
    "zh_CN": {"html_search_language": "zh"},
}


def site_dir(language: str) -> Path:
    """Where the published site holds an edition (the English one at the root)."""
    html = BUILD / "html"
    return html if language == SOURCE_LANGUAGE else html / language


def output_dir(language: str) -> Path:
    """Where Sphinx writes an edition (a translation is copied to ``site_dir`` afterwards)."""
    return BUILD / "html" if language == SOURCE_LANGUAGE else BUILD / language / "html"


def _overrides(language: str) -> dict[str, object]:
    overrides: dict[str, object] = {
        "external_toc_path": str(ROOT / "_toc.yml"),
        "latex_individualpages": False,  # expected by jupyter_book.config
        "nitpicky": True,
    }
    if language != SOURCE_LANGUAGE:
        overrides["language"] = language
        overrides.update(LANGUAGE_SETTINGS.get(language, {}))
    return overrides


def _sphinx(builder: str, outdir: Path, doctrees: Path, overrides: dict, force_all: bool) -> int:
    from jupyter_book.sphinx import build_sphinx

    result = build_sphinx(
        ROOT,
        outdir,
        noconfig=True,
        path_config=str(ROOT / "_config.yml"),
        confoverrides=overrides,
        builder=builder,
        doctreedir=doctrees,
        force_all=force_all,
        warningiserror=True,
        keep_going=True,
    )
    return result if isinstance(result, int) else 1


def build_edition(language: str, force_all: bool) -> int:
    """Build one edition; a translation is then copied into the English site."""
    outdir = output_dir(language)
    doctrees = outdir.parent / ".doctrees"
    start = time.perf_counter()
    status = _sphinx("html", outdir, doctrees, _overrides(language), force_all)
    if status == 0 and language != SOURCE_LANGUAGE:
        publish(outdir, site_dir(language))
    print(
        f"build_book: {language} edition in {time.perf_counter() - start:.1f} s (status {status})"
    )
    return status


def publish(outdir: Path, target: Path) -> None:
    """Copy a translated edition into the English site, keeping its printed handouts (pdf/,
    written there by book/tools/build_handouts.py after the build)."""
    if target.is_dir():
        for entry in target.iterdir():
            if entry.name == KEEP_IN_SITE:
                continue
            if entry.is_dir():
                shutil.rmtree(entry)
            else:
                entry.unlink()
    shutil.copytree(outdir, target, dirs_exist_ok=True)


POT_DIR = BUILD / "i18n" / "gettext"


def extract_messages() -> int:
    """Write the English text of every page to ``_build/i18n/gettext/<page>.pot``.

    Its own folder: myst-nb writes executed notebooks beside the output folder, and the gettext
    builder's copies lack images and HTML, which the decks of ``_build/jupyter_execute`` need.
    """
    shutil.rmtree(POT_DIR, ignore_errors=True)
    return _sphinx("gettext", POT_DIR, POT_DIR.parent / ".doctrees", _overrides("en"), True)


def prune_caches() -> None:
    """Delete execution caches of other posenc versions (book_site names the current one)."""
    keep = execution_digest(ROOT)
    caches = BUILD / ".jupyter_cache"
    if caches.is_dir():
        for folder in caches.iterdir():
            if folder.is_dir() and folder.name != keep:
                shutil.rmtree(folder)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--language", default="all", choices=["all", SOURCE_LANGUAGE, *TRANSLATIONS]
    )
    parser.add_argument("--all", action="store_true", help="rewrite every page (sphinx -a)")
    parser.add_argument("--gettext", action="store_true", help="extract the English text only")
    args = parser.parse_args(argv)
    prune_caches()
    if args.gettext:
        return extract_messages()
    languages = [SOURCE_LANGUAGE, *TRANSLATIONS] if args.language == "all" else [args.language]
    status = 0
    for language in languages:
        status = build_edition(language, args.all) or status
    return status


if __name__ == "__main__":
    sys.exit(main())
