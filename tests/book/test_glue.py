"""Tests for book.glue: the display it sends is myst-nb's glue, survives myst-nb's reader, and
myst-nb's role formats it."""

from __future__ import annotations

from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

from book.glue import GLUE_PREFIX, glue


def _sent(call: Any) -> list[tuple[dict, dict]]:
    shell = InteractiveShell.instance()
    sent: list[tuple[dict, dict]] = []
    publisher = shell.display_pub

    def publish(data: dict, metadata: dict | None = None, **_: Any) -> None:
        sent.append((data, metadata or {}))

    original = publisher.publish
    publisher.publish = publish  # type: ignore[method-assign]
    try:
        call()
    finally:
        publisher.publish = original  # type: ignore[method-assign]
    return sent


@pytest.mark.parametrize("value", [0.9375, 1061, "a str", [1, 2]])
def test_glue_sends_what_myst_nb_sends(value: object) -> None:
    myst_nb_glue = pytest.importorskip("myst_nb.ext.glue")
    ours = _sent(lambda: glue("x", value))
    theirs = _sent(lambda: myst_nb_glue.glue("x", value))
    assert ours == theirs and len(ours) == 1
    data, metadata = ours[0]
    assert "text/plain" in data and not any(k.startswith(GLUE_PREFIX) for k in data)
    assert metadata["scrapbook"] == {"name": "x", "mime_prefix": ""}


def test_glued_output_survives_myst_nb_reading_it():
    """myst-nb's reader keeps a shown glue output in the cell (so the cached notebook keeps
    it for the Chinese edition) and still finds its value."""
    from myst_nb.ext.glue import extract_glue_data_cell
    from nbformat.v4 import new_code_cell, new_output

    ((data, metadata),) = _sent(lambda: glue("acc", 0.5))
    output = new_output("display_data", data=data, metadata=metadata)
    cell = new_code_cell("glue('acc', 0.5)", outputs=[output])
    found = extract_glue_data_cell(cell)
    assert [key for key, _ in found] == ["acc"] and len(cell.outputs) == 1
    again = extract_glue_data_cell(cell)  # read from the cache a second time
    assert [key for key, _ in again] == ["acc"]


def test_myst_nb_formats_the_glued_text() -> None:
    from myst_nb.core.variables import format_plain_text

    ((data, _),) = _sent(lambda: glue("acc", 0.93754))
    assert format_plain_text(data["text/plain"], ".2f") == "0.94"


@pytest.mark.parametrize("name", ["", "a:b", 3])
def test_glue_names_are_checked(name: object) -> None:
    with pytest.raises(ValueError, match="name must be a non-empty str"):
        glue(name, 1)  # type: ignore[arg-type]
