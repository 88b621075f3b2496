"""A pool of warm Chromium pages: the real :class:`~renderkit.browser.Browser`.

One long-lived Chromium (launched locally, or reached over CDP for a browser fleet such as
Browserless or ``chromium --remote-debugging-port``) serves every render. Each slot is its own
browser context, so slots never share a renderer process and two renders run on two cores.
Template renders reuse a slot's warm page: the shell (fonts, CSS, script) is loaded once and
each render only swaps the DOM, which is what makes a render take tens of milliseconds.
Custom documents get a fresh context each, so untrusted pages never share cookies, storage or
cache. A render that fails or times out costs its slot; a browser that dies or hangs is
relaunched (local mode) or reconnected (remote mode) on the next render.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
from collections.abc import AsyncIterator, Coroutine
from typing import Any

import attrs
from playwright.async_api import (
    Browser as PlaywrightBrowser,
)
from playwright.async_api import (
    BrowserContext,
    CDPSession,
    Page,
    Playwright,
    Route,
    async_playwright,
)
from playwright.async_api import (
    Error as PlaywrightError,
)

from .._errors import (
    BlockedUrlError,
    BrowserBusyError,
    BrowserUnavailableError,
    InvalidRequestError,
    RenderError,
    RenderTimeoutError,
)
from .._netpolicy import UrlPolicy
from ._process import ChromiumProcess, launch_chromium
from ._protocol import Capture, PdfOptions, Shell

__all__ = ["BrowserConfig", "ChromiumPool"]

logger = logging.getLogger("renderkit.browser")

_CLOSE_TIMEOUT = 5.0


@attrs.frozen(kw_only=True)
class BrowserConfig:
    """Settings of a :class:`ChromiumPool`.

    Attributes:
        executable_path: the Chromium binary for local mode.
        cdp_url: connect to this existing browser (``ws://`` or ``http://host:port``) instead
            of launching one: remote mode, for a browser fleet.
        slots: renders running at once (one browser context each). About one per core.
        max_queue: renders allowed to wait for a slot; beyond that, BrowserBusyError.
        render_timeout: seconds one render may take, waiting for its slot included.
        launch_timeout: seconds allowed for launching or connecting to the browser.
        image_timeout: seconds a template waits for its images (e.g. a logo) to load.
        allow_private_network: let pages reach private and loopback addresses.
        extra_args: more Chromium flags (local mode).
    """

    executable_path: str = "/usr/bin/chromium"
    cdp_url: str | None = None
    slots: int = attrs.field(default=2, validator=attrs.validators.in_(range(1, 65)))
    max_queue: int = attrs.field(default=64, validator=attrs.validators.ge(0))
    render_timeout: float = attrs.field(default=20.0, validator=attrs.validators.gt(0))
    launch_timeout: float = attrs.field(default=30.0, validator=attrs.validators.gt(0))
    image_timeout: float = attrs.field(default=5.0, validator=attrs.validators.gt(0))
    allow_private_network: bool = False
    extra_args: tuple[str, ...] = ()


@attrs.define(kw_only=True, eq=False)
class _Slot:
    context: BrowserContext
    page: Page
    cdp: CDPSession
    generation: int
    shell: str | None = None
    metrics: tuple[int, int, float] | None = None
    blocked: list[str] = attrs.Factory(list)

    async def set_metrics(self, width: int, height: int, scale: float) -> None:
        if self.metrics == (width, height, scale):
            return
        await self.cdp.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": False},
        )
        self.metrics = (width, height, scale)

    async def print_pdf(self, options: PdfOptions) -> bytes:
        if options.title is not None:
            await self.page.evaluate("(t) => { document.title = t; }", options.title)
        # Chromium draws header/footer templates inside the margins: make room for them.
        margin = options.margin
        bottom = max(margin, 0.5) if options.footer_template else margin
        top = max(margin, 0.5) if options.header_template else margin
        params: dict[str, Any] = {
            "landscape": options.landscape,
            "printBackground": True,
            "paperWidth": options.paper_width,
            "paperHeight": options.paper_height,
            "marginTop": top,
            "marginBottom": bottom,
            "marginLeft": margin,
            "marginRight": margin,
            "preferCSSPageSize": False,
            "displayHeaderFooter": bool(options.header_template or options.footer_template),
            "headerTemplate": options.header_template or "<span></span>",
            "footerTemplate": options.footer_template or "<span></span>",
        }
        result = await self.cdp.send("Page.printToPDF", params)
        return base64.b64decode(result["data"])

    async def capture(self, capture: Capture) -> bytes:
        params: dict[str, Any] = {
            "format": capture.format,
            "clip": {"x": 0, "y": 0, "width": capture.width, "height": capture.height, "scale": 1},
            "captureBeyondViewport": False,
            # Chromium's default zlib level dominates PNG time at 2x; the faster setting costs a
            # few percent of file size.
            "optimizeForSpeed": True,
        }
        if capture.format != "png":
            params["quality"] = capture.quality
        result = await self.cdp.send("Page.captureScreenshot", params)
        return base64.b64decode(result["data"])


class ChromiumPool:
    """Renders through a pool of warm Chromium pages.

    Use as an async context manager, or call :meth:`start` and :meth:`aclose`::

        async with ChromiumPool() as browser:
            result = await render_image({"template": "og-card", ...}, browser=browser)
    """

    def __init__(self, config: BrowserConfig | None = None, **options: Any) -> None:
        """Create a pool from ``config`` or from :class:`BrowserConfig` keyword options."""
        self.config = config if config is not None else BrowserConfig(**options)
        self._policy = UrlPolicy(allow_private=self.config.allow_private_network)
        self._lock = asyncio.Lock()
        self._capacity = asyncio.Semaphore(self.config.slots)
        self._waiting = 0
        self._idle: list[_Slot] = []
        self._playwright: Playwright | None = None
        self._browser: PlaywrightBrowser | None = None
        self._process: ChromiumProcess | None = None
        self._generation = 0
        self._closed = False
        self._tasks: set[asyncio.Task[None]] = set()
        #: How many times a browser was launched or connected (relaunches included).
        self.launches = 0

    async def __aenter__(self) -> ChromiumPool:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def start(self) -> None:
        """Launch (or connect to) the browser now rather than on the first render.

        Raises:
            BrowserUnavailableError: Chromium could not be started or reached.
        """
        await self._ensure_browser()

    async def version(self) -> str:
        """The browser's product version, e.g. ``156.0.8078.73``."""
        browser = await self._ensure_browser()
        return browser.version

    @property
    def connected(self) -> bool:
        """True while the pool holds a live browser connection."""
        return self._browser is not None and self._browser.is_connected()

    async def aclose(self) -> None:
        """Close every page, the browser connection and a locally launched Chromium."""
        self._closed = True
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        async with self._lock:
            await self._teardown()
            if self._playwright is not None:
                with contextlib.suppress(Exception):
                    await self._playwright.stop()
                self._playwright = None

    # -- rendering -------------------------------------------------------------------------

    async def capture_fragment(self, shell: Shell, fragment: str, capture: Capture) -> bytes:
        """Render ``fragment`` in a warm page of ``shell`` and capture it (see Browser)."""
        async with self._render_budget(), self._warm_slot(shell) as slot:
            await slot.set_metrics(capture.width, capture.height, capture.scale)
            await self._inject(slot, fragment, capture.width, capture.height)
            return await slot.capture(capture)

    async def capture_document(self, html: str, capture: Capture) -> bytes:
        """Load ``html`` in a fresh, isolated context and capture it (see Browser)."""
        async with self._render_budget() as budget, self._fresh_slot() as slot:
            await slot.set_metrics(capture.width, capture.height, capture.scale)
            await self._load(slot, html, budget)
            return await slot.capture(capture)

    async def print_fragment(self, shell: Shell, fragment: str, options: PdfOptions) -> bytes:
        """Render ``fragment`` in a warm page of ``shell`` and print it (see Browser)."""
        async with self._render_budget(), self._warm_slot(shell) as slot:
            await self._inject(slot, fragment, None, None)
            return await slot.print_pdf(options)

    async def print_document(self, html: str, options: PdfOptions) -> bytes:
        """Load ``html`` in a fresh, isolated context and print it (see Browser)."""
        async with self._render_budget() as budget, self._fresh_slot() as slot:
            await self._load(slot, html, budget)
            return await slot.print_pdf(options)

    async def _inject(
        self, slot: _Slot, fragment: str, width: int | None, height: int | None
    ) -> None:
        outcome = await slot.page.evaluate(
            "([html, w, h, t]) => window.__rk.render(html, w, h, t)",
            [fragment, width, height, self.config.image_timeout * 1000],
        )
        if not outcome["ok"]:
            field = outcome.get("field") or "html"
            if slot.blocked:
                msg = f"{field}: the address is not allowed"
                raise BlockedUrlError(msg, url=slot.blocked[-1], field=field)
            raise InvalidRequestError.single(field, outcome.get("reason", "failed to load"))

    @staticmethod
    async def _load(slot: _Slot, html: str, budget: _Budget) -> None:
        await slot.page.set_content(html, wait_until="load", timeout=budget.remaining_ms())
        await slot.page.evaluate("document.fonts.ready.then(() => true)")

    # -- slots -----------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _render_budget(self) -> AsyncIterator[_Budget]:
        """Bound one render in time and concurrency, and translate browser errors."""
        if self._closed:
            msg = "the browser pool is closed"
            raise BrowserUnavailableError(msg)
        timeout = self.config.render_timeout
        budget = _Budget(asyncio.get_running_loop().time() + timeout)
        try:
            async with asyncio.timeout(timeout):
                if self._waiting >= self.config.max_queue and self._capacity.locked():
                    msg = "all browser slots are busy; retry shortly"
                    raise BrowserBusyError(msg, retry_after=1.0)
                self._waiting += 1
                try:
                    await self._capacity.acquire()
                finally:
                    self._waiting -= 1
                try:
                    yield budget
                finally:
                    self._capacity.release()
        except TimeoutError as exc:
            msg = f"the render did not finish within {timeout:g} s"
            raise RenderTimeoutError(msg, timeout=timeout) from exc
        except PlaywrightError as exc:
            logger.warning("render failed: %s", exc.message.splitlines()[0] if exc.message else exc)
            msg = "the browser failed to render the page"
            raise RenderError(msg) from exc

    @contextlib.asynccontextmanager
    async def _warm_slot(self, shell: Shell) -> AsyncIterator[_Slot]:
        slot = await self._take_idle(shell)
        healthy = False
        try:
            if slot.shell != shell.name:
                await slot.page.set_content(_shell_document(shell))
                await slot.page.evaluate(
                    "Promise.all([...document.fonts].map(f => f.load())).then(() => true)"
                )
                slot.shell = shell.name
            slot.blocked.clear()
            yield slot
            healthy = True
        except InvalidRequestError:
            healthy = True
            raise
        finally:
            if healthy and not self._closed and slot.generation == self._generation:
                self._idle.append(slot)
            else:
                # Closing may block on a hung renderer, so it must not hold up the caller.
                self._background(self._discard(slot))

    @contextlib.asynccontextmanager
    async def _fresh_slot(self) -> AsyncIterator[_Slot]:
        slot = await self._new_slot()
        try:
            yield slot
        finally:
            self._background(self._discard(slot))

    async def _take_idle(self, shell: Shell) -> _Slot:
        while self._idle:
            slot = self._idle.pop()
            if slot.generation == self._generation and not slot.page.is_closed():
                return slot
            self._background(self._discard(slot))
        return await self._new_slot()

    async def _new_slot(self) -> _Slot:
        browser = await self._ensure_browser()
        generation = self._generation
        try:
            context = await browser.new_context(no_viewport=True)
        except PlaywrightError:
            # The connection looked alive but the browser is gone: relaunch once.
            await self._reset(generation)
            browser = await self._ensure_browser()
            generation = self._generation
            context = await browser.new_context(no_viewport=True)
        slot_blocked: list[str] = []
        if not self.config.allow_private_network:
            await context.route("**/*", lambda route: self._guard(route, slot_blocked))
        page = await context.new_page()
        cdp = await context.new_cdp_session(page)
        return _Slot(
            context=context, page=page, cdp=cdp, generation=generation, blocked=slot_blocked
        )

    async def _guard(self, route: Route, blocked: list[str]) -> None:
        url = route.request.url
        try:
            await self._policy.check(url)
        except BlockedUrlError:
            blocked.append(url)
            logger.info("blocked request to a disallowed address")
            await route.abort("blockedbyclient")
            return
        await route.continue_()

    async def _discard(self, slot: _Slot) -> None:
        try:
            async with asyncio.timeout(_CLOSE_TIMEOUT):
                await slot.context.close()
        except (TimeoutError, PlaywrightError):
            if slot.generation == self._generation and self._browser is not None:
                logger.warning("a browser context would not close; restarting the browser")
                await self._reset(slot.generation)

    # -- browser lifecycle -----------------------------------------------------------------

    async def _ensure_browser(self) -> PlaywrightBrowser:
        browser = self._browser
        if browser is not None and browser.is_connected():
            return browser
        async with self._lock:
            if self._closed:
                msg = "the browser pool is closed"
                raise BrowserUnavailableError(msg)
            if self._browser is not None and self._browser.is_connected():
                return self._browser
            await self._teardown()
            self._browser = await self._connect()
            self._generation += 1
            self.launches += 1
            return self._browser

    async def _connect(self) -> PlaywrightBrowser:
        if self._playwright is None:
            self._playwright = await async_playwright().start()
        config = self.config
        endpoint = config.cdp_url
        if endpoint is None:
            self._process = await launch_chromium(
                config.executable_path,
                extra_args=config.extra_args,
                timeout=config.launch_timeout,
            )
            endpoint = self._process.ws_url
        try:
            return await self._playwright.chromium.connect_over_cdp(
                endpoint, timeout=config.launch_timeout * 1000
            )
        except PlaywrightError as exc:
            if self._process is not None:
                await self._process.kill()
                self._process = None
            msg = "could not connect to the browser"
            raise BrowserUnavailableError(msg) from exc

    async def _reset(self, generation: int) -> None:
        async with self._lock:
            if generation == self._generation:
                await self._teardown()

    async def _teardown(self) -> None:
        idle, self._idle = self._idle, []
        browser, self._browser = self._browser, None
        process, self._process = self._process, None
        self._generation += 1
        for slot in idle:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(1):
                    await slot.context.close()
        if browser is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(_CLOSE_TIMEOUT):
                    await browser.close()
        if process is not None:
            await process.kill()

    @property
    def browser_pid(self) -> int | None:
        """Process id of the locally launched Chromium (None in remote mode or before start)."""
        return self._process.process.pid if self._process is not None else None

    def _background(self, coro: Coroutine[Any, Any, None]) -> None:
        # Keep a reference so the task is not garbage-collected mid-flight; aclose awaits it.
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


@attrs.define
class _Budget:
    deadline: float

    def remaining_ms(self) -> float:
        return max(1.0, (self.deadline - asyncio.get_running_loop().time()) * 1000)


def _shell_document(shell: Shell) -> str:
    return (
        f'<!doctype html><html><head><meta charset="utf-8">{shell.head}</head>'
        '<body><div id="rk-root"></div></body></html>'
    )
