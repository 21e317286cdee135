"""Build the book's editions, or extract its text for translation (``make book`` runs this).

    python -m book build [--language en|zh_CN|all] [--all]
    python -m book build --gettext [--all]   # the English text, as _build/i18n/gettext/**.pot

The English edition is built into ``_build/html/`` and each translation into
``_build/<language>/html/``, then copied to ``_build/html/<language>/`` so that the published
site holds both (each edition keeps its own output folder, so an edit rebuilds only what it
changed). Every edition is the same Jupyter Book (``_config.yml``, ``_toc.yml``, the same
notebooks); a translation only sets Sphinx's ``language``, which makes Sphinx replace each
paragraph, heading, caption and list item by its translation from
``locales/<language>/LC_MESSAGES/<page>.po`` (CONTRIBUTING.md, "Translations").

Chapters are executed once: ``execute_notebooks: cache`` keeps their outputs in a jupyter-cache
that both editions share (``book/ext/book_site.py`` names it by a digest of what the chapters
import: posenc, the book's figures, explorers and toy model, the pins), so the Chinese
edition, and a rebuild after a prose edit, executes nothing.

Each edition is built only as far as its inputs changed (``book/tools/stamps.py``): a stamp per
edition, ``_build/.stamps/<language>.json``, holds a digest of every input of its last
successful build. Nothing changed: Sphinx is not even started. Only pages' own inputs changed
(a chapter, its quiz, its catalogue): Sphinx updates the edition, re-reading those pages
(``book_reread_docs``, ``book/ext/book_site.py``). A global input changed (``_config.yml``,
``_toc.yml``, the bibliography, ``book/ext``, this script, the execution digest, a shared
catalogue): every page is read and written again, as ``--all`` does. Warnings are errors
either way; an update shows those of the pages it reads, which is enough because every
other page passed a full build with the same global inputs. A failed build keeps the pages
it was rebuilding marked unbuilt, so the next build reads them again.

This calls Jupyter Book's own ``build_sphinx`` (what ``jupyter-book build`` calls) because its
command line can neither set ``language`` nor choose the output folder.
"""

from __future__ import annotations

import argparse
import functools
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

from book.ext.book_site import execution_digest
from book.ext.editions import SOURCE_LANGUAGE, TRANSLATIONS
from book.tools import stamps

BUILD = ROOT / "_build"
STAMPS = BUILD / ".stamps"  # one stamp per edition (and one for the gettext extraction)
GETTEXT = "gettext"
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
        # A list of this build's own: the themes append their folders to it, and Sphinx's
        # default list is shared by every build of a process; the second edition built in a
        # process would otherwise hash its settings differently from one built alone, and
        # rewrite every page.
        "templates_path": [],
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


def this_book() -> stamps.Book:
    """This repository's inputs besides its pages (``book/tools/stamps.py``)."""
    return stamps.Book(
        ROOT, ROOT / "book" / "ext", build_files=(Path(__file__), Path(stamps.__file__))
    )


def stamp_path(edition: str) -> Path:
    return STAMPS / f"{edition}.json"


def edition_inputs(language: str, settings: dict[str, object]) -> dict[str, object]:
    """The stamp of ``language``'s edition as its inputs are now."""
    search = LANGUAGE_SETTINGS.get(language, {}).get("html_search_language") == "zh"
    return stamps.edition_inputs(
        this_book(),
        language,
        execution=execution_digest(ROOT),
        settings=settings,
        search_glossary=search,
    )


def is_built(language: str) -> bool:
    """Whether the edition's pages and Sphinx's environment are there to be updated."""
    outdir = output_dir(language)
    root_doc = stamps.toc_pages(ROOT / "_toc.yml")[0]
    needed = [outdir / f"{root_doc}.html", outdir.parent / ".doctrees" / "environment.pickle"]
    if language != SOURCE_LANGUAGE:
        needed.append(site_dir(language) / f"{root_doc}.html")
    return all(path.is_file() for path in needed)


@dataclass(frozen=True)
class EditionPlan:
    """What the next build of one edition must do, and what it was decided from."""

    language: str
    todo: stamps.Plan
    previous: dict | None  # the stamp of the last build
    current: dict  # the inputs as they are now
    overrides: dict[str, object]
    executes: bool  # whether the build executes a notebook (``stamps.executes``)


def decide(previous: dict | None, current: dict, built: bool, force_all: bool) -> stamps.Plan:
    """``stamps.plan`` of the inputs, or every page with ``--all``."""
    if force_all:
        return stamps.Plan("full", changed=("--all",))
    return stamps.plan(previous, current, built)


def edition_plan(language: str, force_all: bool) -> EditionPlan:
    """What the next build of ``language``'s edition must do (``--all``: every page)."""
    overrides = _overrides(language)
    current = edition_inputs(language, overrides)
    previous = stamps.load(stamp_path(language))
    todo = decide(previous, current, is_built(language), force_all)
    executes = force_all or stamps.executes(previous, current, todo)
    return EditionPlan(language, todo, previous, current, overrides, executes)


def build_edition(plan: EditionPlan) -> int:
    """Build one edition as far as its inputs changed; a translation is then copied into the
    English site."""
    start = time.perf_counter()
    language = plan.language
    print(f"build_book: {language} edition: {plan.todo.describe()}")
    if plan.todo.action == "skip":
        return 0
    then = None
    if language != SOURCE_LANGUAGE:
        then = functools.partial(publish, output_dir(language), site_dir(language))
    status = _run(
        plan.todo,
        plan.previous,
        plan.current,
        stamp_path(language),
        language,
        plan.overrides,
        then=then,
    )
    print(
        f"build_book: {language} edition in {time.perf_counter() - start:.1f} s (status {status})"
    )
    return status


def side_by_side(plans: list[EditionPlan]) -> bool:
    """Whether the editions may be built at the same time (one process each, on two cores):
    when each updates a few pages and none executes a notebook (``plans``: language -> (plan,
    executes)). A notebook is executed once, by the English build, which the translations
    then read from the cache; the pages of a full build are read in parallel processes
    already."""
    updates = [plan.executes for plan in plans if plan.todo.action == "update"]
    if len(updates) < 2 or any(plan.todo.action == "full" for plan in plans):
        return False
    return not any(updates)


def build_side_by_side(plans: list[EditionPlan]) -> int:
    """Build the translations in processes of their own while this one builds the English
    edition; print each one's log after it, whole."""
    with ExitStack() as stack:
        runs = {}
        for plan in plans[1:]:
            language = plan.language
            log = stack.enter_context(tempfile.TemporaryFile(mode="w+", encoding="utf-8"))
            command = [sys.executable, "-m", "book", "build", "--language", language]
            run = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
            runs[language] = (run, log)
        status = build_edition(plans[0])
        for run, log in runs.values():
            status = run.wait() or status
            sys.stdout.flush()
            log.seek(0)
            print(log.read(), end="", flush=True)
    return status


def _run(
    todo: stamps.Plan,
    previous: dict | None,
    current: dict,
    stamp: Path,
    language: str,
    overrides: dict[str, object],
    builder: str = "html",
    outdir: Path | None = None,
    then: Callable[[], None] | None = None,
) -> int:
    """Run Sphinx for ``todo`` (then ``then`` after a successful build), keeping the stamp
    right whatever happens: the pages being rebuilt are marked unbuilt until all of it
    succeeded, and then the stamp is ``current``."""
    kept = stamps.unbuilt(previous, todo)
    if kept is None:
        stamp.unlink(missing_ok=True)
    else:
        stamps.save(stamp, kept)
    if todo.action == "update":
        # a changed catalogue is compiled again whatever the times of its files say
        for name in stamps.changed_catalogues(todo):
            (ROOT / name).with_suffix(".mo").unlink(missing_ok=True)
    outdir = output_dir(language) if outdir is None else outdir
    # Sphinx's -a writes every page but reads only those whose files changed: a full build
    # reads every page again too (an extension's code or the execution digest changed)
    reread = list(current["pages"]) if todo.action == "full" else list(todo.pages)
    overrides = {**overrides, "book_reread_docs": reread}
    status = _sphinx(builder, outdir, outdir.parent / ".doctrees", overrides, todo.action == "full")
    if status == 0:
        if then is not None:
            then()
        stamps.save(stamp, current)
    return status


def publish(outdir: Path, target: Path) -> None:
    """Copy a translated edition into the English site: the files that differ (in size or
    time: copies keep their times), and remove those the edition no longer has, keeping its
    printed handouts (pdf/, written there by book/tools/build_handouts.py after the build)."""
    target.mkdir(parents=True, exist_ok=True)
    wanted = set()
    for source in outdir.rglob("*"):
        if source.is_dir():
            continue
        relative = source.relative_to(outdir)
        wanted.add(relative)
        copy = target / relative
        there = copy.stat() if copy.is_file() else None
        here = source.stat()
        if there is None or (there.st_size, there.st_mtime_ns) != (here.st_size, here.st_mtime_ns):
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy)
    for path in sorted(target.rglob("*"), reverse=True):  # a folder after its files
        relative = path.relative_to(target)
        if relative.parts[0] == KEEP_IN_SITE:
            continue
        if path.is_dir():
            if not any(path.iterdir()):
                path.rmdir()
        elif relative not in wanted:
            path.unlink()


POT_DIR = BUILD / "i18n" / "gettext"


def extract_messages(force_all: bool = False) -> int:
    """Write the English text of every page to ``_build/i18n/gettext/<page>.pot``.

    Its own folder: myst-nb writes executed notebooks beside the output folder, and the gettext
    builder's copies lack images and HTML, which the decks of ``_build/jupyter_execute`` need.
    Kept up to date like an edition, with its own stamp: nothing changed, nothing is done.
    """
    overrides = _overrides(SOURCE_LANGUAGE)
    current = edition_inputs(SOURCE_LANGUAGE, {**overrides, "builder": GETTEXT})
    previous = stamps.load(stamp_path(GETTEXT))
    built = (
        any(POT_DIR.rglob("*.pot")) and (POT_DIR.parent / ".doctrees/environment.pickle").is_file()
    )
    todo = decide(previous, current, built, force_all)
    print(f"build_book: English text: {todo.describe()}")
    if todo.action == "skip":
        return 0
    if todo.action == "full":
        shutil.rmtree(POT_DIR, ignore_errors=True)
    return _run(
        todo,
        previous,
        current,
        stamp_path(GETTEXT),
        SOURCE_LANGUAGE,
        overrides,
        builder=GETTEXT,
        outdir=POT_DIR,
    )


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
    parser.add_argument(
        "--all", action="store_true", help="read and write every page (sphinx -a), changed or not"
    )
    parser.add_argument("--gettext", action="store_true", help="extract the English text only")
    args = parser.parse_args(argv)
    prune_caches()
    if args.gettext:
        return extract_messages(args.all)
    languages = [SOURCE_LANGUAGE, *TRANSLATIONS] if args.language == "all" else [args.language]
    plans = [edition_plan(language, args.all) for language in languages]
    if side_by_side(plans):
        print("build_book: the editions are built side by side (nothing to execute)", flush=True)
        return build_side_by_side(plans)
    status = 0
    for plan in plans:
        status = build_edition(plan) or status
    return status


if __name__ == "__main__":
    sys.exit(main())
