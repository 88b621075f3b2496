"""A pool of warm Chromium pages: the real :class:`~renderkit.browser.Browser`.

A long-lived Chromium (launched locally, or reached over CDP for a browser fleet such as
Browserless or ``chromium --remote-debugging-port``) serves the renders. Each slot is its own
browser context, so slots never share a renderer process and two renders run on two cores.
Template renders reuse a slot's warm page: the shell (fonts, CSS, script) is loaded once and
each render only swaps the DOM, which is what makes a render take tens of milliseconds.
Custom documents get a fresh context each, so untrusted pages never share cookies, storage or
cache. A render that fails or times out costs its slot; a browser that dies or hangs is
relaunched (local mode) or reconnected (remote mode) on the next render.

A local pool runs two kinds of Chromium (``BrowserConfig.split_browsers``): *template
browsers* hold the warm template pages, one per slot drawing only the frames a capture asks for
(``begin_frame_capture``), or one drawing frames on demand; the *page browser* holds every
fresh context (screenshots of URLs, the caller's documents) on Chromium's 60 Hz clock, which
makes a fresh-context screenshot cheaper and slows templates (docs/architecture.md, "Two
browsers per local pool"). Each has its own lifecycle and watch; all take their leases from
the pool's one fair scheduler, so ``slots``, queues and tenants are the pool's.

:class:`ChromiumPool` only assembles the parts, as httpcore's connection pool does:

- ``_lifecycle``: the browser process or connection (launch, relaunch, close);
- ``_slots``: leases (fair across tenants, ``_fair``) and warm and fresh pages;
- ``_watch``: deadlines, hang detection and the one retry on a new browser;
- ``_capture``: what happens on one page (load, settle, scroll, shoot), on ``_page``;
- ``_guard``: the request guard on every page.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar
from urllib.parse import urlsplit

import attrs
from playwright.async_api import Browser as PlaywrightBrowser

from renderkit.browser import _capture as capture_steps
from renderkit.browser._capture import shell_document as _shell_document  # noqa: F401  # tests
from renderkit.browser._config import BrowserConfig
from renderkit.browser._driver import PlaywrightDriver
from renderkit.browser._fair import (
    ANONYMOUS,
    DEFAULT_CLASS,
    FairScheduler,
    Lease,
    Tenant,
    TenantClass,
)
from renderkit.browser._lifecycle import BrowserLifecycle
from renderkit.browser._page import DeviceProfile, Slot
from renderkit.browser._protocol import Capture, PageCapture, PageShot, PdfOptions, Shell
from renderkit.browser._slots import SlotPool
from renderkit.browser._stats import BrowserStats, MemberStats, redact_endpoint
from renderkit.browser._tasks import TaskSet
from renderkit.browser._tenant import TenantBrowser
from renderkit.browser._watch import Budget, RenderWatch
from renderkit.core.errors import BrowserUnavailableError
from renderkit.core.netpolicy import IPAddress, UrlPolicy

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
        self.config = config = config if config is not None else BrowserConfig(**options)
        self._policy = UrlPolicy(
            allow_private=config.allow_private_network,
            allow_networks=config.allow_networks,
        )
        # One lease per render, over both browsers: ``slots`` bounds all renders together
        # and the tenants' fairness and queue limits are the pool's, whichever browser.
        self._scheduler = FairScheduler(
            slots=config.slots, max_queue=config.max_queue, tenant_queue=config.tenant_queue
        )
        # One Playwright driver (a Node process, ~90 MiB) for all of the pool's browsers.
        self._driver = PlaywrightDriver()
        #: The browsers of the warm template pages (the first is :attr:`browser_pid`'s), and
        #: the browser of fresh contexts (strangers' pages): the same one unless split.
        self._template_browsers: tuple[_PoolBrowser, ...]
        self._pages: _PoolBrowser
        if config.split_browsers and config.cdp_url is None:
            # A browser under begin-frame control draws one frame at a time (Chromium gives
            # every page's frames the same begin-frame source, and the display compositor
            # kills its GPU process when two of them overlap; docs/architecture.md), so each
            # slot gets a template browser of its own and draws of two slots run at once.
            count = config.slots if config.begin_frame_capture else 1
            self._template_browsers = tuple(
                _PoolBrowser(
                    config,
                    self._policy,
                    self._scheduler,
                    role="template browser" if count == 1 else f"template browser {n + 1}",
                    driver=self._driver,
                    begin_frame=config.begin_frame_capture,
                    card_tiles=True,
                    # As many warm pages over the template browsers as slots, as with one.
                    pages=1 if count > 1 else config.slots,
                )
                for n in range(count)
            )
            self._pages = _PoolBrowser(
                config,
                self._policy,
                self._scheduler,
                role="page browser",
                driver=self._driver,
                frame_rate_limit=True,
            )
        else:
            self._pages = _PoolBrowser(
                config, self._policy, self._scheduler, role="browser", driver=self._driver
            )
            self._template_browsers = (self._pages,)
        self._templates = self._template_browsers[0]

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
        """Launch (or connect to) the browser now rather than on the first render (both
        browsers of a split pool, at once).

        Raises:
            BrowserUnavailableError: Chromium could not be started or reached.
        """
        await asyncio.gather(*(member.lifecycle.ensure() for member in self._members))

    async def version(self) -> str:
        """The browser's product version, e.g. ``156.0.8078.73`` (the template browser's;
        a split pool's two run the same binary)."""
        browser = await self._templates.lifecycle.ensure()
        return browser.version

    @property
    def connected(self) -> bool:
        """True while the pool holds a live connection to its browser (to both, split)."""
        return all(member.lifecycle.connected for member in self._members)

    @property
    def launches(self) -> int:
        """How many times a template browser (the only browser unless split; one per slot
        with ``begin_frame_capture``) was launched or connected, relaunches included, over
        all of them; :attr:`page_launches` counts the page browser's."""
        return sum(member.lifecycle.launches for member in self._template_browsers)

    @property
    def page_launches(self) -> int:
        """How many times the browser of fresh contexts was launched, relaunches included
        (the same count as :attr:`launches` unless the pool is split)."""
        return self._pages.lifecycle.launches

    async def aclose(self) -> None:
        """Close every page, the browser connections and locally launched Chromiums."""
        await asyncio.gather(*(member.lifecycle.aclose() for member in self._members))
        # Last: the browsers' closes above go through it.
        await self._driver.aclose()

    def stats(self) -> BrowserStats:
        """Slots, busy and queued renders, and whether the browser is connected.

        One member however many browsers run: the slots are shared, and a split pool is
        healthy only while both of its browsers are (each serves renders of its own kind).
        """
        cdp_url = self.config.cdp_url
        scheduler = self._scheduler
        member = MemberStats(
            endpoint=redact_endpoint(cdp_url) if cdp_url is not None else "local",
            # A local browser not launched yet is launched by the next render.
            healthy=all(
                each.lifecycle.connected or (cdp_url is None and not each.lifecycle.closed)
                for each in self._members
            ),
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
        """Process id of the locally launched Chromium templates render on (None in remote
        mode or before start); with ``begin_frame_capture``, the first slot's (all of them:
        :attr:`template_browser_pids`); :attr:`page_browser_pid` is the page browser's."""
        return self._templates.pid

    @property
    def template_browser_pids(self) -> tuple[int | None, ...]:
        """Process ids of the local Chromiums templates render on: one, or one per slot
        with ``begin_frame_capture`` (None for one not launched, or in remote mode)."""
        return tuple(member.pid for member in self._template_browsers)

    @property
    def page_browser_pid(self) -> int | None:
        """Process id of the local Chromium of fresh contexts (screenshots of URLs and the
        caller's documents): the page browser of a split pool, else :attr:`browser_pid`."""
        return self._pages.pid

    @property
    def sandboxed(self) -> bool | None:
        """Whether the local Chromium runs with its sandbox (None in remote mode or before
        the first launch); of a split pool, whether every browser launched so far does."""
        states = [member.lifecycle.sandboxed for member in self._members]
        known = [state for state in states if state is not None]
        return all(known) if known else None

    @property
    def browser_user(self) -> str | None:
        """The account the local Chromium runs as (None in remote mode or before launch);
        a split pool's two browsers run as the same one."""
        users = [member.lifecycle.browser_user for member in self._members]
        return next((user for user in users if user is not None), None)

    @property
    def _members(self) -> tuple[_PoolBrowser, ...]:
        templates = self._template_browsers
        return templates if self._pages is self._templates else (*templates, self._pages)

    @property
    def _lifecycle(self) -> BrowserLifecycle:
        # The browser of fresh contexts, for tests that look at its egress proxy.
        return self._pages.lifecycle

    @property
    def _slots(self) -> SlotPool[Slot]:
        # The pages of fresh contexts, for tests that count spares.
        return self._pages.slots

    @property
    def _browser(self) -> PlaywrightBrowser | None:
        # The Playwright browser of fresh contexts, for tests that open their own pages on it.
        return self._pages.lifecycle.browser

    # -- rendering -------------------------------------------------------------------------

    async def capture_fragment(
        self, shell: Shell, fragment: str, capture: Capture, *, tenant: Tenant = ANONYMOUS
    ) -> bytes:
        """Render ``fragment`` in a warm page of ``shell`` and capture it (see Browser)."""

        # Renders alternating between two scales (or shells) each find a page set up for
        # theirs, if one is idle (on whichever template browser holds it).
        def ready(slot: Slot) -> bool:
            return slot.shell == shell.name and slot.is_framed_for(capture)

        async def work(budget: Budget, lease: Lease, member: _PoolBrowser) -> bytes:
            async with member.slots.warm(lease, ready) as slot:
                await capture_steps.load_shell(slot, shell)
                await slot.frame(capture)
                await self._inject(slot, fragment, capture.width, capture.height)
                return await slot.capture_viewport(capture)

        return await self._run_on(
            self._template_browsers, tenant, self.config.render_timeout, work, prefer=ready
        )

    async def capture_document(
        self, html: str, capture: Capture, *, tenant: Tenant = ANONYMOUS
    ) -> bytes:
        """Load ``html`` in a fresh, isolated context and capture it (see Browser)."""

        async def work(budget: Budget, lease: Lease) -> bytes:
            async with self._pages.slots.fresh(lease) as slot:
                await slot.set_metrics(capture.width, capture.height, capture.scale)
                await capture_steps.load_document(slot, html, budget.remaining_ms)
                with capture_steps.stays_on_page(slot):
                    return await slot.capture(capture)

        return await self._run(
            self._pages, tenant, self.config.document_timeout, work, document=True
        )

    async def print_fragment(
        self, shell: Shell, fragment: str, options: PdfOptions, *, tenant: Tenant = ANONYMOUS
    ) -> bytes:
        """Render ``fragment`` in a warm page of ``shell`` and print it (see Browser)."""

        async def work(budget: Budget, lease: Lease, member: _PoolBrowser) -> bytes:
            async with member.slots.warm(lease) as slot:
                await capture_steps.load_shell(slot, shell)
                if shell.print_viewport is not None:
                    await slot.set_metrics(*shell.print_viewport, 1.0)
                await self._inject(slot, fragment, None, None, title=options.title)
                # The title came with the fragment: print_pdf has none left to set.
                return await slot.print_pdf(attrs.evolve(options, title=None))

        # A template browser whose page already holds this shell, if one is idle.
        def loaded(slot: Slot) -> bool:
            return slot.shell == shell.name

        return await self._run_on(
            self._template_browsers, tenant, self.config.render_timeout, work, prefer=loaded
        )

    async def print_document(
        self, html: str, options: PdfOptions, *, tenant: Tenant = ANONYMOUS
    ) -> bytes:
        """Load ``html`` in a fresh, isolated context and print it (see Browser)."""

        async def work(budget: Budget, lease: Lease) -> bytes:
            async with self._pages.slots.fresh(lease) as slot:
                await capture_steps.load_document(slot, html, budget.remaining_ms)
                with capture_steps.stays_on_page(slot):
                    return await slot.print_pdf(options)

        return await self._run(
            self._pages, tenant, self.config.document_timeout, work, document=True
        )

    async def capture_url(self, shot: PageShot, *, tenant: Tenant = ANONYMOUS) -> PageCapture:
        """Load ``shot.url`` in a fresh, isolated context and capture it (see Browser)."""
        vetted = await self._check_page_url(shot.url)  # fail fast with a clear error

        async def work(budget: Budget, lease: Lease) -> PageCapture:
            async with self._pages.slots.fresh(lease, DeviceProfile.of(shot)) as slot:
                if slot.door is not None and vetted:
                    # The page's host was just looked up and vetted: its context's door
                    # connects there rather than looking it up once more.
                    slot.door.remember(shot.url, vetted)
                return await capture_steps.shoot(slot, shot, budget.remaining_ms)

        # The requested delay is the caller's own wait, bounded by the request model.
        timeout = self.config.screenshot_timeout + shot.delay_ms / 1000
        return await self._run(self._pages, tenant, timeout, work)

    async def _check_page_url(self, url: str) -> tuple[IPAddress, ...]:
        """Refuse ``url`` as the egress proxy would, and give the addresses the check vetted
        (the same one lookup either way), for a context's door to connect to; a policy that
        allows private networks vets none (and no proxy runs then)."""
        if self._policy.allow_private or urlsplit(url).scheme not in ("http", "https"):
            await self._policy.check(url)
            return ()
        return await self._policy.resolve(url)

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
        member: _PoolBrowser,
        tenant: Tenant,
        timeout: float,
        work: Callable[[Budget, Lease], Awaitable[T]],
        *,
        document: bool = False,
    ) -> T:
        """Queue fairly for a slot, then run ``work`` on ``member`` under its watch."""
        return await self._run_on(
            (member,),
            tenant,
            timeout,
            lambda budget, lease, _: work(budget, lease),
            document=document,
        )

    async def _run_on(
        self,
        members: tuple[_PoolBrowser, ...],
        tenant: Tenant,
        timeout: float,
        work: Callable[[Budget, Lease, _PoolBrowser], Awaitable[T]],
        *,
        document: bool = False,
        prefer: Callable[[Slot], bool] | None = None,
    ) -> T:
        """Queue fairly for a slot, then run ``work`` under its watch on whichever of
        ``members`` has the fewest renders under way: of those, one with an idle warm page
        ``prefer`` accepts, else the one with the fewest warm pages (the first of equals)."""
        if members[0].lifecycle.closed:
            msg = "the browser pool is closed"
            raise BrowserUnavailableError(msg)
        # A cold (or relaunching) browser is started under its own launch timeout before
        # the render queues: its start-up is charged to neither the queue wait nor the
        # render budget, both of which start on a warm browser.
        if len(members) == 1:
            await members[0].lifecycle.ensure()
        else:  # launched side by side
            await asyncio.gather(*(member.lifecycle.ensure() for member in members))
        lease = await self._scheduler.acquire(tenant, timeout=self.config.queue_timeout)
        # Chosen once the render holds its slot: with a browser per slot, each render then
        # has one to itself.
        member = min(
            members,
            key=lambda each: (
                each.rendering,
                prefer is not None and not each.slots.has_idle(prefer),
                # Else one with no page yet opens one set up for the render, where another
                # would reframe (or reload) its page for it.
                each.slots.warm_pages,
            ),
        )
        member.rendering += 1
        try:
            return await member.watch.run(
                lambda budget: work(budget, lease, member),
                timeout,
                document=document,
                ready=member.lifecycle.ensure,
            )
        finally:
            member.rendering -= 1
            lease.release()


class _PoolBrowser:
    """One browser of a pool and what serves renders on it: its lifecycle (launch, crash
    and hang relaunch, generations, egress proxy), its pages, and the watch over its
    renders. A split pool has several (its template browsers and its page browser), whose
    pages all take leases from the pool's one scheduler."""

    def __init__(
        self,
        config: BrowserConfig,
        policy: UrlPolicy,
        scheduler: FairScheduler,
        *,
        role: str,
        frame_rate_limit: bool | None = None,
        driver: PlaywrightDriver,
        begin_frame: bool = False,
        card_tiles: bool = False,
        pages: int | None = None,
    ) -> None:
        tasks = TaskSet()
        self.lifecycle = BrowserLifecycle(
            config,
            policy,
            tasks,
            on_lost=lambda generation: self.watch.lost(generation),
            on_teardown=lambda: self.slots.drop(),
            frame_rate_limit=frame_rate_limit,
            begin_frame=begin_frame,
            card_tiles=card_tiles,
            role=role,
            driver=driver,
        )
        self.slots: SlotPool[Slot] = SlotPool(
            self.lifecycle,
            tasks,
            slots=config.slots if pages is None else pages,
            max_queue=config.max_queue,
            tenant_queue=config.tenant_queue,
            spare_contexts=config.spare_contexts,
            scheduler=scheduler,
        )
        self.watch = RenderWatch(self.lifecycle)
        #: Renders under way on this browser (a pool with a template browser per slot
        #: gives a render the least busy one).
        self.rendering = 0

    @property
    def pid(self) -> int | None:
        """The local Chromium's process id (None in remote mode or before launch)."""
        process = self.lifecycle.process
        return process.pid or None if process is not None else None
