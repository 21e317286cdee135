"""book/tools/check_site.py checks a site again only when it changed since it passed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from book.tools import check_site

GOOD = (
    '<html><body><article class="bd-article"><img src="x.png"><p>Fine.</p></article></body></html>'
)


@pytest.fixture
def site(tmp_path: Path) -> Path:
    site = tmp_path / "html"
    (site / "chapters").mkdir(parents=True)
    (site / "index.html").write_text('<a href="chapters/one.html">one</a>')
    (site / "chapters" / "one.html").write_text(GOOD)
    (site / "chapters" / "x.png").write_bytes(b"PNG")
    return site


def test_a_site_that_passed_is_not_checked_again_until_it_changes(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert check_site.main([str(site)]) == 0
    assert "0 problem(s)" in capsys.readouterr().out
    assert check_site.stamp_path(site) == site.parent / ".stamps" / "check_site_html.json"
    assert check_site.main([str(site)]) == 0
    assert "unchanged since they passed" in capsys.readouterr().out
    assert check_site.main([str(site), "--force"]) == 0
    assert "0 problem(s)" in capsys.readouterr().out


def test_a_page_written_again_is_checked_again(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert check_site.main([str(site)]) == 0
    page = site / "chapters" / "one.html"
    page.write_text(GOOD.replace("<img", "<span"))  # no image any more
    assert check_site.main([str(site)]) == 1
    assert "has no image" in capsys.readouterr().out
    assert check_site.main([str(site)]) == 1  # a failed check leaves no stamp


def test_a_removed_link_target_is_checked_again(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert check_site.main([str(site)]) == 0
    stamp = check_site.site_stamp(site)
    (site / "chapters" / "x.png").unlink()
    assert check_site.site_stamp(site) != stamp
    os.utime(site / "index.html")  # only the times of a page: checked again, and passes
    assert check_site.site_stamp(site) != stamp
