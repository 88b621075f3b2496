"""The API reference of a real ``renderkit serve`` renders in Chromium with every host but
this machine unreachable: its viewer comes from the installed package, not a CDN."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.async_api import expect

from tests._offline import offline_tab
from tests.server._serve_process import Server

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

# A loaded machine (shared with CI and other runs) can take a while to draw the first page.
_DRAWN_WITHIN_MS = 30_000


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Server]:
    server = Server(tmp_path / "data", None)
    server.start()
    yield server
    server.stop()


async def test_the_reference_at_the_root_and_both_docs_paths_renders_with_no_other_host(
    served: Server,
) -> None:
    async with offline_tab() as tab:
        for path in ("/", "/docs", "/v1/docs"):
            await tab.page.goto(served.base + path)

            assert tab.page.url == served.base + ("/docs" if path == "/" else path)
            title = tab.page.locator(".information-container h2.title")
            await expect(title).to_contain_text("renderkit", timeout=_DRAWN_WITHIN_MS)
            image = tab.page.locator(".opblock-summary-path[data-path='/api/image']")
            await expect(image).to_be_visible(timeout=_DRAWN_WITHIN_MS)
            schema = tab.page.get_by_role("link", name="/docs/openapi.json").first
            await expect(schema).to_be_visible()
        assert tab.blocked == []
        assert [e for e in tab.errors if re.search("Content.Security.Policy", e)] == []
