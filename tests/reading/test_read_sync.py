"""The blocking twin of read_page, as a script would call it."""

from __future__ import annotations

import pytest

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
