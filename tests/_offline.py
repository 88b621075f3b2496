"""A real Chromium tab that can reach only this machine, for the "works offline" tests.

Every request whose host is not loopback is aborted before it leaves and recorded in
``blocked``; console errors (a Content-Security-Policy refusal among them) land in ``errors``.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import AsyncIterator, Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import attrs
from playwright.async_api import ConsoleMessage, Page, Route, async_playwright

from renderkit.browser._process import launch_chromium

from .conftest import CHROMIUM

LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


@attrs.define
class OfflineTab:
    page: Page
    #: The URLs the page tried to fetch from another host (each one aborted).
    blocked: list[str] = attrs.Factory(list)
    #: Console errors, CSP refusals included.
    errors: list[str] = attrs.Factory(list)


@contextlib.asynccontextmanager
async def offline_tab() -> AsyncIterator[OfflineTab]:
    """A new page in a fresh Chromium whose only network is loopback."""
    process = await launch_chromium(CHROMIUM)
    try:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.connect_over_cdp(process.ws_url)
            context = await browser.new_context()
            tab = OfflineTab(await context.new_page())

            async def guard(route: Route) -> None:
                url = route.request.url
                if urlsplit(url).hostname in LOOPBACK:
                    await route.continue_()
                else:
                    tab.blocked.append(url)
                    await route.abort("internetdisconnected")

            def console(message: ConsoleMessage) -> None:
                if message.type == "error":
                    tab.errors.append(message.text)

            await context.route("**/*", guard)
            tab.page.on("console", console)
            yield tab
            await browser.close()
    finally:
        await process.kill()


@contextlib.contextmanager
def serve_directory(root: Path) -> Iterator[str]:
    """Serve ``root``'s files on 127.0.0.1 for the block; yields the base URL."""
    handler = functools.partial(_QuietFiles, directory=str(root))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


class _QuietFiles(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass
