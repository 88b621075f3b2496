"""A pool of warm Chromium pages: the real :class:`~renderkit.browser.Browser`.

One long-lived Chromium (launched locally, or reached over CDP for a browser fleet such as
Browserless or ``chromium --remote-debugging-port``) serves every render. Each slot is its own
browser context, so slots never share a renderer process and two renders run on two cores.
Template renders reuse a slot's warm page: the shell (fonts, CSS, script) is loaded once and
each render only swaps the DOM, which is what makes a render take tens of milliseconds.
Custom documents get a fresh context each, so untrusted pages never share cookies, storage or
cache. A render that fails or times out costs its slot; a browser that dies or hangs is
relaunched (local mode) or reconnected (remote mode) on the next render.

:class:`ChromiumPool` only assembles the parts, as httpcore's connection pool does:

- ``_lifecycle``: the browser process or connection (launch, relaunch, close);
- ``_slots``: leases (fair across tenants, ``_fair``) and warm and fresh pages;
- ``_watch``: deadlines, hang detection and the one retry on a new browser;
- ``_capture``: what happens on one page (load, settle, scroll, shoot), on ``_page``;
- ``_guard``: the request guard on every page.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import attrs
from playwright.async_api import Browser as PlaywrightBrowser

from renderkit.browser import _capture as capture_steps
from renderkit.browser._capture import shell_document as _shell_document  # noqa: F401  # tests
from renderkit.browser._config import BrowserConfig
from renderkit.browser._fair import ANONYMOUS, DEFAULT_CLASS, Lease, Tenant, TenantClass
from renderkit.browser._lifecycle import BrowserLifecycle
from renderkit.browser._page import DeviceProfile, Slot
from renderkit.browser._protocol import Capture, PageCapture, PageShot, PdfOptions, Shell
from renderkit.browser._slots import SlotPool
from renderkit.browser._stats import BrowserStats, MemberStats, redact_endpoint
from renderkit.browser._tasks import TaskSet
from renderkit.browser._tenant import TenantBrowser
from renderkit.browser._watch import Budget, RenderWatch
from renderkit.core.errors import BrowserUnavailableError
from renderkit.core.netpolicy import UrlPolicy

__all__ = ["BrowserConfig", "ChromiumPool", "TenantBrowser"]

T = TypeVar("T")


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
        tasks = TaskSet()
        self._lifecycle = BrowserLifecycle(
            self.config,
            self._policy,
            tasks,
            on_lost=lambda generation: self._watch.lost(generation),
            on_teardown=lambda: self._slots.drop(),
        )
        self._slots: SlotPool[Slot] = SlotPool(
            self._lifecycle,
            tasks,
            slots=self.config.slots,
            max_queue=self.config.max_queue,
            tenant_queue=self.config.tenant_queue,
            spare_contexts=self.config.spare_contexts,
        )
        self._watch = RenderWatch(self._lifecycle)

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
        await self._lifecycle.ensure()

    async def version(self) -> str:
        """The browser's product version, e.g. ``156.0.8078.73``."""
        browser = await self._lifecycle.ensure()
        return browser.version

    @property
    def connected(self) -> bool:
        """True while the pool holds a live browser connection."""
        return self._lifecycle.connected

    @property
    def launches(self) -> int:
        """How many times a browser was launched or connected (relaunches included)."""
        return self._lifecycle.launches

    async def aclose(self) -> None:
        """Close every page, the browser connection and a locally launched Chromium."""
        await self._lifecycle.aclose()

    def stats(self) -> BrowserStats:
        """Slots, busy and queued renders, and whether the browser is connected."""
        cdp_url = self.config.cdp_url
        scheduler = self._slots.scheduler
        member = MemberStats(
            endpoint=redact_endpoint(cdp_url) if cdp_url is not None else "local",
            # A local browser not launched yet is launched by the next render.
            healthy=self.connected or (cdp_url is None and not self._lifecycle.closed),
            slots=self.config.slots,
            busy=scheduler.busy,
            queued=scheduler.waiting,
        )
        return BrowserStats(members=(member,))

    def for_tenant(
        self, key: str, *, max_inflight: int | None = None, group: TenantClass = DEFAULT_CLASS
    ) -> TenantBrowser:
        """A :class:`~renderkit.browser.Browser` whose renders queue as tenant ``key``.

        Waiting renders are served by weighted fair queuing across classes (``group``, e.g.
        the key's plan) and round-robin across the tenants of a class; a class holds at most
        its share of the slots and a tenant at most ``max_inflight`` (None: any free slot).
        Renders made on the pool itself are one anonymous tenant.
        """
        return TenantBrowser(self, Tenant(key=key, max_inflight=max_inflight, group=group))

    @property
    def browser_pid(self) -> int | None:
        """Process id of the locally launched Chromium (None in remote mode or before start)."""
        process = self._lifecycle.process
        return process.pid or None if process is not None else None

    @property
    def sandboxed(self) -> bool | None:
        """Whether the local Chromium runs with its sandbox (None in remote mode or before
        the first launch)."""
        return self._lifecycle.sandboxed

    @property
    def browser_user(self) -> str | None:
        """The account the local Chromium runs as (None in remote mode or before launch)."""
        return self._lifecycle.browser_user

    @property
    def _browser(self) -> PlaywrightBrowser | None:
        # The Playwright browser, for tests that open their own pages on it.
        return self._lifecycle.browser

    # -- rendering -------------------------------------------------------------------------

    async def capture_fragment(
        self, shell: Shell, fragment: str, capture: Capture, *, tenant: Tenant = ANONYMOUS
    ) -> bytes:
        """Render ``fragment`` in a warm page of ``shell`` and capture it (see Browser)."""

        async def work(budget: Budget, lease: Lease) -> bytes:
            # Renders alternating between two scales (or shells) each find a page set up
            # for theirs, if one is idle.
            def ready(slot: Slot) -> bool:
                return slot.shell == shell.name and slot.is_framed_for(capture)

            async with self._slots.warm(lease, ready) as slot:
                await capture_steps.load_shell(slot, shell)
                await slot.frame(capture)
                await self._inject(slot, fragment, capture.width, capture.height)
                return await slot.capture_viewport(capture)

        return await self._run(tenant, self.config.render_timeout, work)

    async def capture_document(
        self, html: str, capture: Capture, *, tenant: Tenant = ANONYMOUS
    ) -> bytes:
        """Load ``html`` in a fresh, isolated context and capture it (see Browser)."""

        async def work(budget: Budget, lease: Lease) -> bytes:
            async with self._slots.fresh(lease) as slot:
                await slot.set_metrics(capture.width, capture.height, capture.scale)
                await capture_steps.load_document(slot, html, budget.remaining_ms)
                with capture_steps.stays_on_page(slot):
                    return await slot.capture(capture)

        return await self._run(tenant, self.config.document_timeout, work, document=True)

    async def print_fragment(
        self, shell: Shell, fragment: str, options: PdfOptions, *, tenant: Tenant = ANONYMOUS
    ) -> bytes:
        """Render ``fragment`` in a warm page of ``shell`` and print it (see Browser)."""

        async def work(budget: Budget, lease: Lease) -> bytes:
            async with self._slots.warm(lease) as slot:
                await capture_steps.load_shell(slot, shell)
                if shell.print_viewport is not None:
                    await slot.set_metrics(*shell.print_viewport, 1.0)
                await self._inject(slot, fragment, None, None, title=options.title)
                # The title came with the fragment: print_pdf has none left to set.
                return await slot.print_pdf(attrs.evolve(options, title=None))

        return await self._run(tenant, self.config.render_timeout, work)

    async def print_document(
        self, html: str, options: PdfOptions, *, tenant: Tenant = ANONYMOUS
    ) -> bytes:
        """Load ``html`` in a fresh, isolated context and print it (see Browser)."""

        async def work(budget: Budget, lease: Lease) -> bytes:
            async with self._slots.fresh(lease) as slot:
                await capture_steps.load_document(slot, html, budget.remaining_ms)
                with capture_steps.stays_on_page(slot):
                    return await slot.print_pdf(options)

        return await self._run(tenant, self.config.document_timeout, work, document=True)

    async def capture_url(self, shot: PageShot, *, tenant: Tenant = ANONYMOUS) -> PageCapture:
        """Load ``shot.url`` in a fresh, isolated context and capture it (see Browser)."""
        await self._policy.check(shot.url)  # fail fast with a clear error

        async def work(budget: Budget, lease: Lease) -> PageCapture:
            async with self._slots.fresh(lease, DeviceProfile.of(shot)) as slot:
                return await capture_steps.shoot(slot, shot, budget.remaining_ms)

        # The requested delay is the caller's own wait, bounded by the request model.
        timeout = self.config.screenshot_timeout + shot.delay_ms / 1000
        return await self._run(tenant, timeout, work)

    async def _inject(
        self,
        slot: Slot,
        fragment: str,
        width: int | None,
        height: int | None,
        *,
        title: str | None = None,
    ) -> None:
        await capture_steps.inject(
            slot, fragment, width, height, image_timeout=self.config.image_timeout, title=title
        )

    async def _run(
        self,
        tenant: Tenant,
        timeout: float,
        work: Callable[[Budget, Lease], Awaitable[T]],
        *,
        document: bool = False,
    ) -> T:
        """Queue fairly for a slot, then run ``work`` under the watch (see ``_watch``)."""
        if self._lifecycle.closed:
            msg = "the browser pool is closed"
            raise BrowserUnavailableError(msg)
        # A cold (or relaunching) browser is started under its own launch timeout before
        # the render queues: its start-up is charged to neither the queue wait nor the
        # render budget, both of which start on a warm browser.
        await self._lifecycle.ensure()
        lease = await self._slots.acquire(tenant, timeout=self.config.queue_timeout)
        try:
            return await self._watch.run(
                lambda budget: work(budget, lease),
                timeout,
                document=document,
                ready=self._lifecycle.ensure,
            )
        finally:
            lease.release()
