"""``python -m book COMMAND [ARGS]``: the book's command-line tools, one entry point.

Each command is a module of :mod:`book.tools` (or :mod:`book.ext`) with ``main(argv)``;
``python -m book COMMAND --help`` prints its own options.
"""

from __future__ import annotations

import importlib
import sys

COMMANDS: dict[str, tuple[str, str]] = {
    "build": ("book.tools.build_book", "build both editions (what `make book` runs)"),
    "handouts": ("book.tools.build_handouts", "print the PDF handouts of a built site"),
    "check-site": ("book.tools.check_site", "check a built site: links, anchors, page sizes"),
    "slides": ("book.ext.slides", "rebuild the decks from the last build's notebooks"),
    "i18n": ("book.tools.i18n", "translation catalogues: update, check, stale, stats"),
    "nb": ("book.tools.nbtool", "notebooks: strip, execute, check"),
    "figure-sizes": ("book.tools.figure_text_sizes", "smallest text of every figure"),
    "sweep": ("book.tools.hostile_sweep", "throw bad inputs at the whole public API"),
}


def usage() -> str:
    """The list of commands, as ``python -m book`` prints it."""
    width = max(map(len, COMMANDS))
    rows = "\n".join(f"  {name:<{width}}  {text}" for name, (_, text) in COMMANDS.items())
    return f"usage: python -m book COMMAND [ARGS]\n\ncommands:\n{rows}\n"


def main(argv: list[str] | None = None) -> int:
    """Run one command with the rest of ``argv``; print the commands when none is named."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(usage(), end="")
        return 0 if argv else 2
    if argv[0] not in COMMANDS:
        print(f"python -m book: unknown command {argv[0]!r}\n\n{usage()}", file=sys.stderr, end="")
        return 2
    module = importlib.import_module(COMMANDS[argv[0]][0])
    return int(module.main(argv[1:]) or 0)


if __name__ == "__main__":
    sys.exit(main())
