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
import collections
import contextlib
import json
import logging
import math
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterator
from typing import Any, TypeVar
from urllib.parse import urlsplit

import attrs
from playwright.async_api import (
    Browser as PlaywrightBrowser,
)
from playwright.async_api import (
    BrowserContext,
    CDPSession,
    Page,
    Playwright,
    Response,
    Route,
    WebSocketRoute,
    async_playwright,
)
from playwright.async_api import (
    Error as PlaywrightError,
)
from playwright.async_api import (
    TimeoutError as PlaywrightTimeoutError,
)
from websockets.exceptions import WebSocketException

from renderkit.browser import _controls as controls
from renderkit.browser._adblock import Blocklist, default_blocklist
from renderkit.browser._cdp import DirectCdp, page_ws_url
from renderkit.browser._egress import EgressProxy
from renderkit.browser._fair import ANONYMOUS, FairScheduler, Lease, Tenant
from renderkit.browser._lockdown import LOCKDOWN_SCRIPT
from renderkit.browser._process import ChromiumProcess, launch_chromium
from renderkit.browser._protocol import (
    Capture,
    PageCapture,
    PageShot,
    PdfOptions,
    SharedBrowser,
    Shell,
)
from renderkit.browser._stats import BrowserStats, MemberStats, redact_endpoint
from renderkit.core.errors import (
    BlockedUrlError,
    BrowserUnavailableError,
    InvalidRequestError,
    NavigationError,
    RenderError,
    RenderkitError,
    RenderTimeoutError,
)
from renderkit.core.media import MAX_PIXELS
from renderkit.core.netpolicy import UrlPolicy

__all__ = ["BrowserConfig", "ChromiumPool", "TenantBrowser"]

T = TypeVar("T")

logger = logging.getLogger("renderkit.browser")

_CLOSE_TIMEOUT = 5.0
_QUIET_TIMEOUT_MS = 2_000
_QUIET_WINDOW = 0.1
#: Seconds a hung page gets to be closed through DevTools before the context is closed.
_KILL_TIMEOUT = 1.0
#: After a DevTools failure, how long to wait for the browser's disconnect to tell whether
#: the browser died (its connection closes a moment after a renderer's).
_DEATH_GRACE = 0.5
#: How long a browser may take to answer a liveness probe before it counts as hung.
_PROBE_TIMEOUT = 2.0


@attrs.frozen(kw_only=True)
class BrowserConfig:
    """Settings of a :class:`ChromiumPool`.

    Attributes:
        executable_path: the Chromium binary for local mode.
        cdp_url: connect to this existing browser (``ws://`` or ``http://host:port``) instead
            of launching one: remote mode, for a browser fleet.
        slots: renders running at once (one browser context each). About one per core.
        max_queue: renders allowed to wait for a slot; beyond that, BrowserBusyError.
        tenant_queue: renders one tenant (see :meth:`ChromiumPool.for_tenant`) may have
            waiting; beyond that, TenantBusyError.
        queue_timeout: seconds a render may wait for a slot; beyond, BrowserBusyError.
        render_timeout: seconds a template render may take once it has its slot.
        document_timeout: seconds a custom document (the caller's HTML) may take.
        screenshot_timeout: seconds a screenshot of a URL may take, plus its requested delay.
        launch_timeout: seconds allowed for launching or connecting to the browser.
        image_timeout: seconds a template waits for its images (e.g. a logo) to load.
        allow_private_network: let pages reach private and loopback addresses.
        allow_networks: CIDR ranges pages may reach even though they are private.
        spare_contexts: fresh contexts kept ready for screenshots and custom documents.
        extra_args: more Chromium flags (local mode).
        user: the account a locally launched Chromium runs as when the process is root
            (name or uid), with Chromium's sandbox on. ``None`` keeps root, which forces
            ``--no-sandbox`` (logged as a warning). Ignored when not running as root.
    """

    executable_path: str = "/usr/bin/chromium"
    cdp_url: str | None = None
    slots: int = attrs.field(default=2, validator=attrs.validators.in_(range(1, 65)))
    max_queue: int = attrs.field(default=64, validator=attrs.validators.ge(0))
    tenant_queue: int = attrs.field(default=4, validator=attrs.validators.ge(0))
    queue_timeout: float = attrs.field(default=10.0, validator=attrs.validators.gt(0))
    render_timeout: float = attrs.field(default=20.0, validator=attrs.validators.gt(0))
    document_timeout: float = attrs.field(default=10.0, validator=attrs.validators.gt(0))
    screenshot_timeout: float = attrs.field(default=12.0, validator=attrs.validators.gt(0))
    launch_timeout: float = attrs.field(default=30.0, validator=attrs.validators.gt(0))
    image_timeout: float = attrs.field(default=5.0, validator=attrs.validators.gt(0))
    allow_private_network: bool = False
    allow_networks: tuple[str, ...] = ()
    spare_contexts: int = attrs.field(default=2, validator=attrs.validators.in_(range(0, 9)))
    extra_args: tuple[str, ...] = ()
    user: str | int | None = "nobody"


@attrs.define(kw_only=True, eq=False)
class _Slot:
    context: BrowserContext
    page: Page
    cdp: CDPSession
    #: A direct DevTools connection for bulky results (screenshots, PDFs); None falls back
    #: to Playwright's session.
    direct: DirectCdp | None = None
    generation: int
    shell: str | None = None
    metrics: tuple[int, int, float] | None = None
    blocked: list[str] = attrs.Factory(list)
    #: Set per screenshot: block ad/tracker hosts as seen from this page host.
    adblock: Blocklist | None = None
    page_host: str | None = None
    ads_blocked: int = 0
    #: Set while the slot shows a caller's document, which must stay on its page.
    document: bool = False
    #: Where the document tried to navigate its page to (the navigation was refused).
    navigated_to: str | None = None
    navigated_at: float = 0.0
    inflight: int = 0
    activity: asyncio.Event = attrs.Factory(asyncio.Event)

    def track_network(self) -> None:
        def started(_: object) -> None:
            self.inflight += 1
            self.activity.set()

        def ended(_: object) -> None:
            self.inflight = max(0, self.inflight - 1)
            self.activity.set()

        self.page.on("request", started)
        self.page.on("requestfinished", ended)
        self.page.on("requestfailed", ended)

    async def emulate(self, shot: PageShot) -> None:
        await self.set_metrics(shot.width, shot.height, shot.scale, mobile=shot.mobile)
        if shot.user_agent:
            await self.cdp.send("Emulation.setUserAgentOverride", {"userAgent": shot.user_agent})
        if shot.mobile:
            await self.cdp.send(
                "Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5}
            )
        scheme = "dark" if shot.dark_mode else "light"
        motion = "reduce" if shot.reduced_motion else "no-preference"
        await self.cdp.send(
            "Emulation.setEmulatedMedia",
            {
                "features": [
                    {"name": "prefers-color-scheme", "value": scheme},
                    {"name": "prefers-reduced-motion", "value": motion},
                ]
            },
        )
        if shot.omit_background:
            # On the capturing session, like the metrics: screenshots follow its emulation.
            await (self.direct or self.cdp).send(
                "Emulation.setDefaultBackgroundColorOverride",
                {"color": {"r": 0, "g": 0, "b": 0, "a": 0}},
            )

    async def set_metrics(
        self, width: int, height: int, scale: float, *, mobile: bool = False
    ) -> None:
        if self.metrics == (width, height, scale) and not mobile:
            return
        # Device metrics are per DevTools session and screenshots follow the capturing
        # session's, so they are set on the session that captures.
        await (self.direct or self.cdp).send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": mobile},
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
        if options.max_pages is not None:
            params["pageRanges"] = f"1-{options.max_pages + 1}"
        result = await (self.direct or self.cdp).send("Page.printToPDF", params)
        return base64.b64decode(result["data"])

    async def capture(
        self, capture: Capture, *, x: float = 0, y: float = 0, beyond_viewport: bool = False
    ) -> bytes:
        params: dict[str, Any] = {
            "format": capture.format,
            "clip": {"x": x, "y": y, "width": capture.width, "height": capture.height, "scale": 1},
            "captureBeyondViewport": beyond_viewport,
            # Chromium's default zlib level dominates PNG time at 2x; the faster setting costs a
            # few percent of file size.
            "optimizeForSpeed": True,
        }
        if capture.format != "png":
            params["quality"] = capture.quality
        result = await (self.direct or self.cdp).send("Page.captureScreenshot", params)
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
        self._policy = UrlPolicy(
            allow_private=self.config.allow_private_network,
            allow_networks=self.config.allow_networks,
        )
        self._lock = asyncio.Lock()
        self._scheduler = FairScheduler(
            slots=self.config.slots,
            max_queue=self.config.max_queue,
            tenant_queue=self.config.tenant_queue,
        )
        self._watches: set[_Watch] = set()
        #: A browser-level DevTools session, to ask a browser whether it still answers.
        self._probe: CDPSession | None = None
        self._idle: list[_Slot] = []
        self._playwright: Playwright | None = None
        self._browser: PlaywrightBrowser | None = None
        self._process: ChromiumProcess | None = None
        self._generation = 0
        self._closed = False
        self._tasks: set[asyncio.Task[None]] = set()
        self._spares: collections.deque[asyncio.Task[_Slot]] = collections.deque()
        self._egress: EgressProxy | None = None
        self._endpoint: str | None = None
        #: How many times a browser was launched or connected (relaunches included).
        self.launches = 0
        self._sandboxed: bool | None = None
        self._browser_user: str | None = None

    async def __aenter__(self) -> ChromiumPool:
        try:
            await self.start()
        except BaseException:
            await self.aclose()
            raise
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
            if self._egress is not None:
                await self._egress.aclose()
                self._egress = None

    def stats(self) -> BrowserStats:
        """Slots, busy and queued renders, and whether the browser is connected."""
        cdp_url = self.config.cdp_url
        member = MemberStats(
            endpoint=redact_endpoint(cdp_url) if cdp_url is not None else "local",
            # A local browser not launched yet is launched by the next render.
            healthy=self.connected or (cdp_url is None and not self._closed),
            slots=self.config.slots,
            busy=self._scheduler.busy,
            queued=self._scheduler.waiting,
        )
        return BrowserStats(members=(member,))

    def for_tenant(self, key: str, *, max_inflight: int | None = None) -> TenantBrowser:
        """A :class:`~renderkit.browser.Browser` whose renders queue as tenant ``key``.

        Waiting renders are served round-robin across tenants, and a tenant holds at most
        ``max_inflight`` slots (None: any free slot); renders made on the pool itself are
        one anonymous tenant.
        """
        return TenantBrowser(self, Tenant(key=key, max_inflight=max_inflight))

    # -- rendering -------------------------------------------------------------------------

    async def capture_fragment(
        self, shell: Shell, fragment: str, capture: Capture, *, tenant: Tenant = ANONYMOUS
    ) -> bytes:
        """Render ``fragment`` in a warm page of ``shell`` and capture it (see Browser)."""

        async def work(budget: _Budget) -> bytes:
            async with self._warm_slot(shell, budget) as slot:
                await slot.set_metrics(capture.width, capture.height, capture.scale)
                await self._inject(slot, fragment, capture.width, capture.height)
                return await slot.capture(capture)

        return await self._run(tenant, self.config.render_timeout, work)

    async def capture_document(
        self, html: str, capture: Capture, *, tenant: Tenant = ANONYMOUS
    ) -> bytes:
        """Load ``html`` in a fresh, isolated context and capture it (see Browser)."""

        async def work(budget: _Budget) -> bytes:
            async with self._fresh_slot(budget) as slot:
                await slot.set_metrics(capture.width, capture.height, capture.scale)
                await self._load(slot, html, budget)
                with _stays_on_page(slot):
                    return await slot.capture(capture)

        return await self._run(tenant, self.config.document_timeout, work, document=True)

    async def print_fragment(
        self, shell: Shell, fragment: str, options: PdfOptions, *, tenant: Tenant = ANONYMOUS
    ) -> bytes:
        """Render ``fragment`` in a warm page of ``shell`` and print it (see Browser)."""

        async def work(budget: _Budget) -> bytes:
            async with self._warm_slot(shell, budget) as slot:
                await self._inject(slot, fragment, None, None)
                return await slot.print_pdf(options)

        return await self._run(tenant, self.config.render_timeout, work)

    async def print_document(
        self, html: str, options: PdfOptions, *, tenant: Tenant = ANONYMOUS
    ) -> bytes:
        """Load ``html`` in a fresh, isolated context and print it (see Browser)."""

        async def work(budget: _Budget) -> bytes:
            async with self._fresh_slot(budget) as slot:
                await self._load(slot, html, budget)
                with _stays_on_page(slot):
                    return await slot.print_pdf(options)

        return await self._run(tenant, self.config.document_timeout, work, document=True)

    async def capture_url(self, shot: PageShot, *, tenant: Tenant = ANONYMOUS) -> PageCapture:
        """Load ``shot.url`` in a fresh, isolated context and capture it (see Browser)."""
        await self._policy.check(shot.url)  # fail fast with a clear error

        async def work(budget: _Budget) -> PageCapture:
            async with self._fresh_slot(budget) as slot:
                return await self._shoot(slot, shot, budget)

        # The requested delay is the caller's own wait, bounded by the request model.
        timeout = self.config.screenshot_timeout + shot.delay_ms / 1000
        return await self._run(tenant, timeout, work)

    async def _shoot(self, slot: _Slot, shot: PageShot, budget: _Budget) -> PageCapture:
        slot.page_host = urlsplit(shot.url).hostname
        slot.adblock = default_blocklist() if shot.block_ads else None
        await slot.emulate(shot)
        await controls.before_load(slot.page, slot.cdp, shot)
        response = await self._navigate(slot, shot.url, budget, wait_until=shot.wait_until)
        controls.failed_status(shot, response.status if response is not None else None)
        await _settle(slot, budget)
        await controls.after_load(slot.page, slot.cdp, shot, budget.remaining_ms)
        if shot.scroll_page and not shot.full_page:
            await _scroll_through(slot, budget)
        if shot.delay_ms:
            # The caller asked for this wait (animations, late scripts); it is bounded by
            # the request model and by the render budget around us.
            await asyncio.sleep(shot.delay_ms / 1000)
        truncated = False
        if shot.pdf is not None:
            await slot.page.emulate_media(media="print")
            content = await slot.print_pdf(shot.pdf)
        elif shot.selector is not None:
            content = await self._capture_element(slot, shot)
        elif shot.full_page:
            await _scroll_through(slot, budget)
            content, truncated = await self._capture_full_page(slot, shot)
        else:
            content = await slot.capture(_capture_of(shot, shot.width, shot.height))
        refused = self._egress.refused_since(slot.navigated_at) if self._egress else []
        return PageCapture(
            content=content,
            final_url=slot.page.url,
            status=response.status if response is not None else None,
            blocked=(*slot.blocked, *refused),
            truncated=truncated,
        )

    async def _navigate(
        self, slot: _Slot, url: str, budget: _Budget, *, wait_until: str = "load"
    ) -> Response | None:
        started = time.monotonic()
        msg = "url: the page (or a redirect) goes to an address that is not allowed"
        try:
            response = await slot.page.goto(
                url,
                wait_until=wait_until,  # type: ignore[arg-type]  # checked by the request model
                timeout=budget.remaining_ms(),
            )
        except PlaywrightError as exc:
            refused = self._egress.refused_since(started) if self._egress else []
            if slot.blocked or refused:
                raise BlockedUrlError(msg, url=(slot.blocked or refused)[0], field="url") from exc
            if isinstance(exc, PlaywrightTimeoutError):
                raise
            reason = (exc.message or "").split("\n")[0].split(" at ")[0]
            msg = f"url: the page could not be loaded ({reason[:120]})"
            raise NavigationError(msg, url=url) from exc
        if response is not None and response.headers.get("x-renderkit-blocked"):
            raise BlockedUrlError(msg, url=response.url, field="url")
        slot.navigated_at = started
        return response

    async def _capture_element(self, slot: _Slot, shot: PageShot) -> bytes:
        box = await slot.page.evaluate(
            """(selector) => {
              let el;
              try { el = document.querySelector(selector); } catch (e) { return {error: 'syntax'}; }
              if (!el) return {error: 'none'};
              el.scrollIntoView({block: 'center'});
              const r = el.getBoundingClientRect();
              return {x: r.left + window.scrollX, y: r.top + window.scrollY,
                      width: r.width, height: r.height};
            }""",
            shot.selector,
        )
        if box.get("error") == "syntax":
            raise InvalidRequestError.single("selector", "is not a valid CSS selector")
        if box.get("error") == "none":
            raise InvalidRequestError.single("selector", "matched no element on the page")
        if box["width"] < 1 or box["height"] < 1:
            raise InvalidRequestError.single("selector", "matched an element with no size")
        capture = _capture_of(shot, math.ceil(box["width"]), math.ceil(box["height"]))
        return await slot.capture(capture, x=box["x"], y=box["y"], beyond_viewport=True)

    async def _capture_full_page(self, slot: _Slot, shot: PageShot) -> tuple[bytes, bool]:
        metrics = await slot.cdp.send("Page.getLayoutMetrics")
        size = metrics.get("cssContentSize") or metrics["contentSize"]
        width = max(shot.width, math.ceil(size["width"]))
        height = max(shot.height, math.ceil(size["height"]))
        # Bound the bitmap: Chromium's surface limit and memory per capture.
        limit = int(min(16_384 / shot.scale, MAX_PIXELS / (width * shot.scale**2)))
        truncated = height > limit
        capture = _capture_of(shot, width, min(height, limit))
        return await slot.capture(capture, beyond_viewport=True), truncated

    async def _inject(
        self, slot: _Slot, fragment: str, width: int | None, height: int | None
    ) -> None:
        args = [fragment, width, height, self.config.image_timeout * 1000]
        if slot.direct is not None:
            # One round trip straight to the page, skipping Playwright's relay.
            reply = await slot.direct.send(
                "Runtime.evaluate",
                {
                    "expression": f"window.__rk.render(...{json.dumps(args)})",
                    "awaitPromise": True,
                    "returnByValue": True,
                },
            )
            if "exceptionDetails" in reply:
                msg = "the page's renderer script failed"
                raise RenderError(msg)
            outcome = reply["result"]["value"]
        else:
            outcome = await slot.page.evaluate(
                "([html, w, h, t]) => window.__rk.render(html, w, h, t)", args
            )
        if not outcome["ok"]:
            field = outcome.get("field") or "html"
            if slot.blocked:
                msg = f"{field}: the address is not allowed"
                raise BlockedUrlError(msg, url=slot.blocked[-1], field=field)
            raise InvalidRequestError.single(field, outcome.get("reason", "failed to load"))

    @staticmethod
    async def _load(slot: _Slot, html: str, budget: _Budget) -> None:
        slot.document = True
        await slot.page.set_content(html, wait_until="load", timeout=budget.remaining_ms())
        await slot.page.evaluate("document.fonts.ready.then(() => true)")
        if slot.navigated_to is not None:
            raise InvalidRequestError.single("html", _NAVIGATES_AWAY)

    # -- slots -----------------------------------------------------------------------------

    async def _run(
        self,
        tenant: Tenant,
        timeout: float,
        work: Callable[[_Budget], Awaitable[T]],
        *,
        document: bool = False,
    ) -> T:
        """Queue fairly for a slot, then run ``work`` within ``timeout`` seconds.

        A render whose browser died is retried once on the relaunched browser: every render
        is idempotent (templates, documents, and page loads, which are GETs).
        """
        if self._closed:
            msg = "the browser pool is closed"
            raise BrowserUnavailableError(msg)
        lease = await self._scheduler.acquire(tenant, timeout=self.config.queue_timeout)
        loop = asyncio.get_running_loop()
        try:
            for attempt in (1, 2):
                # The retry gets a whole budget: the first one went to the browser's death,
                # not to the caller's content. A render so waits at most twice its budget.
                budget = _Budget(loop.time() + timeout, lease)
                try:
                    return await self._attempt(work, budget, timeout, document=document)
                except _BrowserLostError as exc:
                    if attempt == 2:
                        msg = "the browser stopped during the render; retry shortly"
                        raise BrowserUnavailableError(msg, retry_after=1.0) from exc
                    logger.warning("the browser stopped mid-render; retrying once")
                    # Retry on a browser known to be new: the dead one may still look
                    # connected for a moment, and its idle pages and spares are useless.
                    await self._reset(exc.generation)
            raise AssertionError  # pragma: no cover - the loop returns or raises
        finally:
            lease.release()

    async def _attempt(
        self,
        work: Callable[[_Budget], Awaitable[T]],
        budget: _Budget,
        timeout: float,
        *,
        document: bool,
    ) -> T:
        """One try of ``work``, cut short at once if the browser disconnects."""
        watch = _Watch(generation=self._generation)
        try:
            async with asyncio.timeout_at(budget.deadline) as scope:
                watch.scope = scope
                self._watches.add(watch)
                try:
                    return await work(budget)
                finally:
                    self._watches.discard(watch)
        except (TimeoutError, PlaywrightTimeoutError) as exc:
            if watch.lost.is_set():
                raise _BrowserLostError(watch.generation) from exc
            if await self._hung(watch.generation):
                # Not the caller's content: the browser itself stopped answering (stopped,
                # swapping, deadlocked). Kill it so every render on it fails now and the
                # retry runs on a fresh one.
                self._abandon(watch.generation)
                raise _BrowserLostError(watch.generation) from exc
            msg = f"the render did not finish within {timeout:g} s"
            raise RenderTimeoutError(msg, timeout=timeout) from exc
        except (PlaywrightError, RuntimeError, WebSocketException) as exc:
            # A DevTools call failed: the browser may be dying (its connection closes a
            # moment after a renderer's), which is not the page's fault.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(watch.lost.wait(), _DEATH_GRACE)
            if watch.lost.is_set() or not self.connected:
                raise _BrowserLostError(watch.generation) from exc
            text = str(exc)
            if document and ("navigat" in text or "context was destroyed" in text):
                raise InvalidRequestError.single("html", _NAVIGATES_AWAY) from exc
            if not isinstance(exc, PlaywrightError):
                raise
            logger.warning("render failed: %s", text.splitlines()[0] if text else exc)
            msg = "the browser failed to render the page"
            raise RenderError(msg) from exc

    async def _hung(self, generation: int) -> bool:
        """True when the browser of ``generation`` does not answer a trivial DevTools call."""
        probe = self._probe
        if probe is None or generation != self._generation:
            return False
        try:
            await asyncio.wait_for(probe.send("Browser.getVersion"), _PROBE_TIMEOUT)
        except (TimeoutError, PlaywrightError):
            return True
        return False

    def _abandon(self, generation: int) -> None:
        """Give up on a hung browser: kill it (local) or drop it (remote), failing its renders."""
        logger.warning("the browser stopped answering; restarting it")
        if self._process is not None and generation == self._generation:
            self._process.kill_now()
        self._browser_lost(generation)
        self._background(self._reset(generation))

    def _browser_lost(self, generation: int) -> None:
        """Fail every render on the browser of ``generation`` now, not at its timeout."""
        now = asyncio.get_running_loop().time()
        for watch in list(self._watches):
            if watch.generation <= generation and watch.scope is not None:
                watch.lost.set()
                watch.scope.reschedule(now)

    @contextlib.asynccontextmanager
    async def _warm_slot(self, shell: Shell, budget: _Budget) -> AsyncIterator[_Slot]:
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
                self._retire(slot, budget.lease, hung=not healthy)

    @contextlib.asynccontextmanager
    async def _fresh_slot(self, budget: _Budget) -> AsyncIterator[_Slot]:
        slot = await self._take_spare()
        done = False
        try:
            yield slot
            done = True
        finally:
            self._retire(slot, budget.lease, hung=not done)
            self._refill_spares()

    def _retire(self, slot: _Slot, lease: Lease, *, hung: bool) -> None:
        # Closing may block on a hung renderer, so it must not hold up the caller; the
        # tenant's slot stays held until the page is really gone.
        lease.retain()

        async def close() -> None:
            try:
                await self._discard(slot, hung=hung)
            finally:
                lease.release()

        self._background(close())

    def _refill_spares(self) -> None:
        # Creating a context spawns a renderer (~200 ms): keep a few ready for the next
        # screenshots and custom documents. Each is used once, so none is shared by users.
        while not self._closed and len(self._spares) < self.config.spare_contexts:
            self._spares.append(asyncio.get_running_loop().create_task(self._new_slot()))

    async def _take_spare(self) -> _Slot:
        while self._spares:
            task = self._spares.popleft()
            try:
                slot = await task
            except (PlaywrightError, RenderkitError):
                continue
            if slot.generation == self._generation:
                return slot
            self._background(self._discard(slot))
        return await self._new_slot()

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
        # Before the first page exists, so no document ever sees WebRTC (remote mode too).
        await context.add_init_script(LOCKDOWN_SCRIPT)
        page = await context.new_page()
        cdp = await context.new_cdp_session(page)
        slot = _Slot(context=context, page=page, cdp=cdp, generation=generation)
        slot.direct = await self._open_direct(cdp)
        slot.track_network()
        await context.route("**/*", lambda route: self._guard(route, slot))
        await context.route_web_socket("**/*", lambda ws: self._guard_websocket(ws, slot))
        return slot

    async def _open_direct(self, cdp: CDPSession) -> DirectCdp | None:
        if self._endpoint is None:
            return None
        try:
            info = await cdp.send("Target.getTargetInfo")
            url = page_ws_url(self._endpoint, info["targetInfo"]["targetId"])
            async with asyncio.timeout(_CLOSE_TIMEOUT):
                return await DirectCdp.open(url)
        except (OSError, TimeoutError, PlaywrightError, WebSocketException, KeyError):
            logger.info("no direct DevTools connection; results go through Playwright")
            return None

    async def _guard(self, route: Route, slot: _Slot) -> None:
        url = route.request.url
        request = route.request
        if (
            slot.document
            and request.is_navigation_request()
            and request.frame == slot.page.main_frame
        ):
            # A document that navigates its own page (meta refresh, a script setting
            # location) would be rendered as some other page; refuse it, visibly. Noted
            # before any await, so the flag is set by the time the load event is seen.
            slot.navigated_to = url
            await route.abort("blockedbyclient")
            return
        if slot.adblock is not None and slot.adblock.blocks(url, page_host=slot.page_host):
            slot.ads_blocked += 1
            await route.abort("blockedbyclient")
            return
        try:
            await self._policy.check(url)
        except BlockedUrlError:
            slot.blocked.append(url)
            logger.info("blocked request to a disallowed address")
            await route.abort("blockedbyclient")
            return
        await route.continue_()

    async def _guard_websocket(self, ws: WebSocketRoute, slot: _Slot) -> None:
        # WebSockets bypass ordinary request interception; the same policy applies.
        try:
            await self._policy.check(ws.url.replace("ws", "http", 1))
        except BlockedUrlError:
            slot.blocked.append(ws.url)
            await ws.close()
            return
        ws.connect_to_server()

    async def _discard(self, slot: _Slot, *, hung: bool = False) -> None:
        if slot.direct is not None:
            await slot.direct.aclose()
        if hung and slot.generation == self._generation:
            await self._close_target(slot)
        try:
            async with asyncio.timeout(_CLOSE_TIMEOUT):
                await slot.context.close()
        except (TimeoutError, PlaywrightError):
            if slot.generation == self._generation and self._browser is not None:
                logger.warning("a browser context would not close; restarting the browser")
                await self._reset(slot.generation)

    async def _close_target(self, slot: _Slot) -> None:
        """Close a page from the browser side: prompt even while its script loops forever.

        A context close waits on the page's renderer; past ``_CLOSE_TIMEOUT`` that would
        restart the whole browser and fail every tenant's renders.
        """
        browser = self._browser
        if browser is None:
            return
        with contextlib.suppress(TimeoutError, PlaywrightError, KeyError):
            async with asyncio.timeout(_KILL_TIMEOUT):
                info = await slot.cdp.send("Target.getTargetInfo")
                target_id = info["targetInfo"]["targetId"]
                session = await browser.new_browser_cdp_session()
                try:
                    await session.send("Target.closeTarget", {"targetId": target_id})
                finally:
                    await session.detach()

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
            generation = self._generation
            # A dead browser fails its renders at once rather than at their timeouts.
            self._browser.on("disconnected", lambda _: self._browser_lost(generation))
            try:
                self._probe = await self._browser.new_browser_cdp_session()
            except PlaywrightError:  # a remote endpoint without the Browser domain
                self._probe = None
            return self._browser

    async def _connect(self) -> PlaywrightBrowser:
        if self._playwright is None:
            self._playwright = await async_playwright().start()
        config = self.config
        endpoint = config.cdp_url
        if endpoint is None:
            extra = list(config.extra_args)
            if not config.allow_private_network:
                # Every byte the browser fetches leaves through the policy-enforcing proxy
                # (redirects and DNS included); "<-loopback>" stops Chromium bypassing it
                # for localhost.
                if self._egress is None:
                    self._egress = EgressProxy(self._policy)
                    await self._egress.start()
                extra += [f"--proxy-server={self._egress.url}", "--proxy-bypass-list=<-loopback>"]
            try:
                self._process = await launch_chromium(
                    config.executable_path,
                    extra_args=extra,
                    timeout=config.launch_timeout,
                    user=config.user,
                    # Where the sandbox already failed, relaunches skip the doomed attempt.
                    sandbox=self._sandboxed is not False,
                )
            except BaseException:
                if self._egress is not None:
                    await self._egress.aclose()
                    self._egress = None
                raise
            endpoint = self._process.ws_url
            self._sandboxed = self._process.sandboxed
            self._browser_user = self._process.user
        self._endpoint = endpoint
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
        spares, self._spares = list(self._spares), collections.deque()
        for spare in spares:
            spare.cancel()
        for spare in spares:
            with contextlib.suppress(BaseException):
                slot = await spare
                await slot.context.close()
        idle, self._idle = self._idle, []
        browser, self._browser = self._browser, None
        process, self._process = self._process, None
        self._generation += 1
        for slot in idle:
            if slot.direct is not None:
                await slot.direct.aclose()
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

    @property
    def sandboxed(self) -> bool | None:
        """Whether the local Chromium runs with its sandbox (None in remote mode or before
        the first launch)."""
        return self._sandboxed

    @property
    def browser_user(self) -> str | None:
        """The account the local Chromium runs as (None in remote mode or before launch)."""
        return self._browser_user

    def _background(self, coro: Coroutine[Any, Any, None]) -> None:
        # Keep a reference so the task is not garbage-collected mid-flight; aclose awaits it.
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _capture_of(shot: PageShot, width: int, height: int) -> Capture:
    return Capture(
        width=width, height=height, scale=shot.scale, format=shot.format, quality=shot.quality
    )


async def _settle(slot: _Slot, budget: _Budget) -> None:
    """Wait until no request has been in flight for a short quiet window, within bounds.

    Playwright's "networkidle" waits a fixed 500 ms even on a finished page; tracking the
    requests ourselves ends the wait after 100 ms of quiet, or after 2 s whatever happens.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + min(_QUIET_TIMEOUT_MS, budget.remaining_ms()) / 1000
    while (left := deadline - loop.time()) > 0:
        slot.activity.clear()
        window = _QUIET_WINDOW if slot.inflight == 0 else left
        try:
            await asyncio.wait_for(slot.activity.wait(), min(window, left))
        except TimeoutError:
            if slot.inflight == 0:
                return


async def _scroll_through(slot: _Slot, budget: _Budget) -> None:
    """Scroll to the bottom in viewport steps so lazy-loaded content loads, then back up."""
    with contextlib.suppress(PlaywrightError):
        await slot.page.evaluate(
            """async (maxSteps) => {
              const step = Math.max(200, window.innerHeight * 0.9);
              for (let i = 0; i < maxSteps; i++) {
                const before = window.scrollY;
                window.scrollBy(0, step);
                await new Promise(r => requestAnimationFrame(() => setTimeout(r, 60)));
                if (window.scrollY === before) break;
              }
              window.scrollTo(0, 0);
              await new Promise(r => requestAnimationFrame(r));
            }""",
            40,
        )
        await _settle(slot, budget)


@contextlib.contextmanager
def _stays_on_page(slot: _Slot) -> Iterator[None]:
    """Report a capture that failed because the document began navigating away (a meta
    refresh firing just after load makes Chromium refuse to print) as the caller's mistake."""
    try:
        yield
    except (PlaywrightError, RuntimeError) as exc:
        if slot.navigated_to is None:
            raise
        raise InvalidRequestError.single("html", _NAVIGATES_AWAY) from exc


_NAVIGATES_AWAY = (
    "the document navigates away from itself (a meta refresh or a script setting "
    "location); send content that stays on its page"
)


class _BrowserLostError(Exception):
    """The browser disconnected during a render attempt (internal: retried or translated)."""

    def __init__(self, generation: int) -> None:
        super().__init__(generation)
        #: The generation of the browser that was lost.
        self.generation = generation


@attrs.define(eq=False)
class _Watch:
    """One render attempt, which a browser disconnect cuts short through its scope."""

    generation: int
    scope: asyncio.Timeout | None = None
    lost: asyncio.Event = attrs.Factory(asyncio.Event)


@attrs.define
class _Budget:
    deadline: float
    lease: Lease

    def remaining_ms(self) -> float:
        return max(1.0, (self.deadline - asyncio.get_running_loop().time()) * 1000)


def _shell_document(shell: Shell) -> str:
    return (
        f'<!doctype html><html><head><meta charset="utf-8">{shell.head}</head>'
        '<body><div id="rk-root"></div></body></html>'
    )


class TenantBrowser:
    """A shared browser as seen by one tenant: its renders queue fairly under its cap.

    Made by :meth:`ChromiumPool.for_tenant` and :meth:`BrowserFleet.for_tenant`; closing
    it leaves the shared browser open.
    """

    def __init__(self, pool: SharedBrowser, tenant: Tenant) -> None:
        self.pool = pool
        self.tenant = tenant

    async def capture_fragment(self, shell: Shell, fragment: str, capture: Capture) -> bytes:
        """See :meth:`renderkit.browser.Browser.capture_fragment`."""
        return await self.pool.capture_fragment(shell, fragment, capture, tenant=self.tenant)

    async def capture_document(self, html: str, capture: Capture) -> bytes:
        """See :meth:`renderkit.browser.Browser.capture_document`."""
        return await self.pool.capture_document(html, capture, tenant=self.tenant)

    async def print_fragment(self, shell: Shell, fragment: str, options: PdfOptions) -> bytes:
        """See :meth:`renderkit.browser.Browser.print_fragment`."""
        return await self.pool.print_fragment(shell, fragment, options, tenant=self.tenant)

    async def print_document(self, html: str, options: PdfOptions) -> bytes:
        """See :meth:`renderkit.browser.Browser.print_document`."""
        return await self.pool.print_document(html, options, tenant=self.tenant)

    async def capture_url(self, shot: PageShot) -> PageCapture:
        """See :meth:`renderkit.browser.Browser.capture_url`."""
        return await self.pool.capture_url(shot, tenant=self.tenant)

    async def aclose(self) -> None:
        """Nothing to release: the pool belongs to whoever made it."""
