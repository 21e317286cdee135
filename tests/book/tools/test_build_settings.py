"""An edition's Sphinx settings hash the same whether it is built alone or after another
edition in the same process (book/tools/build_book.py): the themes append their folders to
``templates_path``, whose default list every build of a process shares, and a Chinese edition
built after the English one rewrote every page when next built alone (side by side)."""

from __future__ import annotations

import io
from pathlib import Path

from jupyter_book.config import get_final_config
from sphinx.application import Sphinx
from sphinx.util.docutils import docutils_namespace, patch_docutils

from book.tools import build_book


def _settings_hash(language: str, tmp: Path) -> str:
    overrides = {**build_book._overrides(language), "nb_execution_mode": "off"}
    config, _ = get_final_config(
        user_yaml=build_book.ROOT / "_config.yml",
        cli_config=overrides,
        sourcedir=build_book.ROOT,
        use_external_toc=True,
    )
    with patch_docutils(None), docutils_namespace():
        app = Sphinx(
            str(build_book.ROOT),
            None,
            str(tmp / language / "html"),
            str(tmp / language / ".doctrees"),
            "html",
            confoverrides=config,
            status=None,
            warning=io.StringIO(),
        )
        return app.builder.build_info.config_hash


def test_an_edition_hashes_its_settings_alike_alone_or_after_another(tmp_path: Path) -> None:
    after_english = [_settings_hash(language, tmp_path) for language in ("en", "zh_CN")][1]
    assert _settings_hash("zh_CN", tmp_path) == after_english
    assert build_book._overrides("zh_CN")["templates_path"] == []
