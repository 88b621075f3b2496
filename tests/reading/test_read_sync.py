"""Reading a page without async: the blocking twin of read_page, and ``renderkit read``."""

from __future__ import annotations

from pathlib import Path

import pytest

from renderkit import cli
from renderkit.browser import BrowserConfig
from renderkit.sync import read_page
from tests._server import LocalServer
from tests.reading._pages import page_html

pytestmark = pytest.mark.browser


def test_the_blocking_twin_reads_a_page_with_a_browser_of_its_own(
    http_server: LocalServer,
) -> None:
    http_server.routes["/essay"] = (200, "text/html", page_html("essay"))
    config = BrowserConfig(slots=1, allow_private_network=True)
    result = read_page({"url": http_server.url("/essay")}, browser=config)
    assert result.content.startswith("# The quiet economics of public libraries")
    assert result.metadata.og == {"site_name": "Long Reads"}


def test_renderkit_read_writes_the_markdown_and_reports_the_title(
    http_server: LocalServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    http_server.routes["/recipe"] = (200, "text/html", page_html("recipe"))
    out = tmp_path / "soup.md"
    argv = ["read", http_server.url("/recipe"), "-o", str(out), "--allow-private-network"]
    assert cli.main(argv) == 0
    assert out.read_text("utf-8").startswith("# Lentil soup with lemon and cumin\n")
    assert "markdown" in capsys.readouterr().err
    assert cli.main([*argv[:2], "--format", "text", "--allow-private-network"]) == 0
    printed = capsys.readouterr()
    assert printed.out.startswith("Lentil soup with lemon and cumin\n")
    assert "Lentil soup with lemon and cumin" in printed.err  # the title, reported


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["-o", "page.pdf"], "page.pdf names no format this command writes"),
        (["-o", "page.html", "--format", "text"], "page.html, which names html"),
    ],
)
def test_renderkit_read_refuses_an_output_name_of_another_format_before_any_browser_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], named: str
) -> None:
    argv = [a if not a.startswith("page.") else str(tmp_path / a) for a in argv]
    status = cli.main(["read", "https://example.com/", *argv, "--chromium", "/nonexistent"])
    assert status == 2
    assert named in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
