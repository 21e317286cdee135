"""Numbers for the prose: :func:`glue` hands a value computed by a chapter's code to its text.

A chapter's Markdown writes ``{glue:text}`name:.2f``` where a number from the run belongs;
the build (myst-nb) replaces it with the value that a code cell glued under ``name``. This
is myst-nb's own ``glue`` (``myst_nb.ext.glue.glue``, myst-nb 1.4.0), written out here so that
running a chapter needs only the reader's packages (IPython), not the whole book build:
the display it sends is the same, and ``tests/book/test_glue.py`` compares the two.
"""

from __future__ import annotations

__all__ = ["GLUE_PREFIX", "glue"]

GLUE_PREFIX = "application/papermill.record/"
"""The MIME prefix of a value stored without being shown (myst-nb's ``GLUE_PREFIX``), which
:func:`glue` does not use."""


def glue(name: str, value: object) -> None:
    """Store ``value`` under ``name`` for the chapter's text (and show it in the notebook).

    .. math::

        \\text{\\{glue:text\\}`name:spec`} \\;\\mapsto\\; \\operatorname{format}(v, \\text{spec})

    Sends IPython's display of ``value`` with the metadata ``scrapbook: {name, mime_prefix}``:
    the output of ``myst_nb.glue(name, value)``. The value is displayed, not hidden
    (``display=False`` would prefix its MIME types with :data:`GLUE_PREFIX`): myst-nb takes a
    hidden value out of the cell's outputs when it reads them, and the notebook it caches then
    has no glue left for the Chinese edition, which reads the English run from the cache. A
    glue cell is tagged ``remove-cell``, so the shown value never reaches a page. Outside a
    kernel nothing is shown.

    Args:
        name: the key the text refers to (a non-empty str, unique within the chapter).
        value: any object; the text gets its ``text/plain`` form, formatted by the role's spec.

    Shapes:
        none (one value).
    """
    if not isinstance(name, str) or not name or ":" in name:
        raise ValueError(f"name must be a non-empty str without ':', got {name!r}")
    from IPython.core.formatters import format_display_data
    from IPython.display import display

    bundle, metadata = format_display_data(value)
    metadata["scrapbook"] = {"name": name, "mime_prefix": ""}
    display(bundle, raw=True, metadata=metadata)
