"""Tests for book.glue: the display it sends is myst-nb's glue(display=False), and myst-nb's
role formats it."""

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
    theirs = _sent(lambda: myst_nb_glue.glue("x", value, display=False))
    assert ours == theirs and len(ours) == 1
    data, metadata = ours[0]
    assert set(data) == {GLUE_PREFIX + "text/plain"}
    assert metadata["scrapbook"] == {"name": "x", "mime_prefix": GLUE_PREFIX}


def test_myst_nb_formats_the_glued_text() -> None:
    from myst_nb.core.variables import format_plain_text

    ((data, _),) = _sent(lambda: glue("acc", 0.93754))
    assert format_plain_text(data[GLUE_PREFIX + "text/plain"], ".2f") == "0.94"


@pytest.mark.parametrize("name", ["", "a:b", 3])
def test_glue_names_are_checked(name: object) -> None:
    with pytest.raises(ValueError, match="name must be a non-empty str"):
        glue(name, 1)  # type: ignore[arg-type]
