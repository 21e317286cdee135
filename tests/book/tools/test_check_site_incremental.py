"""book/tools/check_site.py reads again only the pages written since its last check, and
checks every link each time, against the files there are now."""

from __future__ import annotations

from pathlib import Path

import pytest

from book.tools import check_site

GOOD = (
    '<html><body><article class="bd-article"><h2 id="part">Part</h2><img src="x.png">'
    '<p>Fine, <a href="data.csv">data</a>.</p></article></body></html>'
)


@pytest.fixture
def site(tmp_path: Path) -> Path:
    site = tmp_path / "html"
    (site / "chapters").mkdir(parents=True)
    (site / "index.html").write_text('<a href="chapters/one.html#part">one</a>')
    (site / "chapters" / "one.html").write_text(GOOD)
    (site / "chapters" / "data.csv").write_text("1,2")
    return site


def _check(site: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> tuple[int, str]:
    status = check_site.main([str(site), *flags])
    return status, capsys.readouterr().out


def test_an_unchanged_page_is_not_read_again(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _check(site, capsys) == (
        0,
        "checked 2 pages (2 read again, the others unchanged): 0 problem(s)\n",
    )
    assert check_site.cache_path(site) == site.parent / ".stamps" / "check_site_html.json"
    assert _check(site, capsys) == (
        0,
        "checked 2 pages (0 read again, the others unchanged): 0 problem(s)\n",
    )
    assert "(2 read again" in _check(site, capsys, "--force")[1]


def test_a_page_written_again_is_read_again_and_fails_until_mended(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _check(site, capsys)[0] == 0
    page = site / "chapters" / "one.html"
    page.write_text(GOOD.replace("<img", "<span"))  # no image any more
    status, out = _check(site, capsys)
    assert status == 1 and "chapters/one.html: has no image" in out and "(1 read again" in out
    status, out = _check(site, capsys)
    assert status == 1 and "has no image" in out and "(0 read again" in out
    page.write_text(GOOD)
    assert _check(site, capsys)[0] == 0


def test_links_are_checked_against_the_site_as_it_is_now(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _check(site, capsys)[0] == 0
    (site / "chapters" / "data.csv").unlink()  # no page changed
    status, out = _check(site, capsys)
    assert status == 1 and "chapters/one.html: broken link data.csv" in out
    (site / "chapters" / "data.csv").write_text("1,2")
    (site / "chapters" / "one.html").write_text(GOOD.replace('id="part"', 'id="whole"'))
    status, out = _check(site, capsys)
    assert status == 1 and "index.html: missing anchor chapters/one.html#part" in out


def test_a_translated_page_with_english_prose_fails(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = site / "zh_CN" / "chapters" / "one.html"
    page.parent.mkdir(parents=True)
    page.write_text(GOOD.replace("Fine", "这一段 The last line tests the corner case"))
    (site / "zh_CN" / "chapters" / "data.csv").write_text("1,2")
    status, out = _check(site, capsys)
    assert status == 1
    assert (
        "zh_CN/chapters/one.html: English prose left: 'The last line tests the corner case" in out
    )
    page.write_text(GOOD.replace("Fine", "这一段很好"))
    assert _check(site, capsys)[0] == 0
