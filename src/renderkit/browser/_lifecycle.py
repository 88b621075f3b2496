"""The browser a pool renders on: launched (or connected to), replaced, and closed.

Each browser a pool launches or connects to is a new *generation*; pages remember theirs, so
pages of a browser that died or was torn down are never used again. In local mode the pool
owns the process (``_process``) and sends its traffic through the egress proxy
(``_egress``); in remote mode (``cdp_url``) it only holds a connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Hashable

from playwright.async_api import Browser as PlaywrightBrowser
from playwright.async_api import BrowserContext, CDPSession
from playwright.async_api import Error as PlaywrightError

from renderkit.browser._config import BrowserConfig
from renderkit.browser._driver import PlaywrightDriver
from renderkit.browser._egress import EgressDoor, EgressProxy
from renderkit.browser._page import CLOSE_TIMEOUT, DeviceProfile, Slot, close_target, open_slot
from renderkit.browser._process import (
    BEGIN_FRAME_CONTROL,
    CARD_TILES,
    UNLIMITED_FRAMES,
    ChromiumProcess,
    launch_chromium,
)
from renderkit.browser._tasks import TaskSet
from renderkit.core.errors import BrowserUnavailableError
from renderkit.core.netpolicy import UrlPolicy

__all__ = ["BrowserLifecycle", "launch_flags"]

logger = logging.getLogger("renderkit.browser")

#: How long a browser may take to answer a liveness probe before it counts as hung.
_PROBE_TIMEOUT = 2.0
#: Seconds an idle page of a browser being torn down gets to close.
_DROP_TIMEOUT = 1.0


def launch_flags(
    config: BrowserConfig,
    *,
    frame_rate_limit: bool | None = None,
    begin_frame: bool = False,
    card_tiles: bool = False,
) -> list[str]:
    """The Chromium flags ``config`` adds to the pool's own (local mode), its
    ``extra_args`` last so they can override. ``frame_rate_limit`` overrides the config's
    (a split pool's page browser keeps the 60 Hz clock whatever templates use);
    ``begin_frame``: frames only on demand; ``card_tiles``: large raster tiles (both for a
    split pool's template browser)."""
    limit = config.frame_rate_limit if frame_rate_limit is None else frame_rate_limit
    # Under begin-frame control no clock draws frames: there is no rate to lift.
    frames = list(BEGIN_FRAME_CONTROL) if begin_frame else [] if limit else [UNLIMITED_FRAMES]
    tiles = list(CARD_TILES) if card_tiles else []
    return [*frames, *tiles, *config.extra_args]


class BrowserLifecycle:
    """One browser at a time: launch or connect on demand, replace when lost, close.

    Args:
        config: the pool's settings.
        policy: the network policy (the egress proxy and every page's guard enforce it).
        tasks: where background restarts run.
        on_lost: called with a generation as soon as its browser is known to be gone.
        on_teardown: closes the pages of the browser being torn down.
        frame_rate_limit: overrides ``config.frame_rate_limit`` for this browser.
        begin_frame: launch with begin-frame control and make every page with it, captured
            by ``HeadlessExperimental.beginFrame`` (local mode; only for warm template
            pages, see ``BEGIN_FRAME_CONTROL``).
        card_tiles: launch with large raster tiles (only for warm template pages, see
            ``CARD_TILES``).
        role: what the browser is for, in its log lines ("template browser", say).
        driver: the Playwright driver shared with the pool's other browsers (closed by its
            owner); without one, the lifecycle starts and stops a driver of its own.
    """

    def __init__(
        self,
        config: BrowserConfig,
        policy: UrlPolicy,
        tasks: TaskSet,
        *,
        on_lost: Callable[[int], None],
        on_teardown: Callable[[], Awaitable[None]],
        frame_rate_limit: bool | None = None,
        begin_frame: bool = False,
        card_tiles: bool = False,
        role: str = "browser",
        driver: PlaywrightDriver | None = None,
    ) -> None:
        self._config = config
        self._frame_rate_limit = frame_rate_limit
        self._begin_frame = begin_frame and config.cdp_url is None
        self._card_tiles = card_tiles
        #: Orders the frames of the browser's begin-frame pages (see ``Slot._draw``).
        self._frame_lock = asyncio.Lock()
        self.role = role
        self._policy = policy
        self._tasks = tasks
        self._on_lost = on_lost
        self._on_teardown = on_teardown
        self._lock = asyncio.Lock()
        self._driver = driver if driver is not None else PlaywrightDriver()
        self._owns_driver = driver is None
        self.browser: PlaywrightBrowser | None = None
        self.process: ChromiumProcess | None = None
        #: The local egress proxy (None in remote mode or with private networks allowed).
        self.egress: EgressProxy | None = None
        #: A browser-level DevTools session, to ask a browser whether it still answers.
        self._probe: CDPSession | None = None
        self._endpoint: str | None = None
        self._generation = 0
        self._closed = False
        #: How many times a browser was launched or connected (relaunches included).
        self.launches = 0
        self.sandboxed: bool | None = None
        self.browser_user: str | None = None

    @property
    def generation(self) -> int:
        """The current browser's generation."""
        return self._generation

    @property
    def closed(self) -> bool:
        """True once :meth:`aclose` began."""
        return self._closed

    @property
    def connected(self) -> bool:
        """True while a live browser connection is held."""
        return self.browser is not None and self.browser.is_connected()

    async def ensure(self) -> PlaywrightBrowser:
        """The connected browser, launching or connecting to one first if needed.

        Raises:
            BrowserUnavailableError: the pool is closed, or no browser could be had.
        """
        browser = self.browser
        if browser is not None and browser.is_connected():
            return browser
        async with self._lock:
            if self._closed:
                msg = "the browser pool is closed"
                raise BrowserUnavailableError(msg)
            if self.browser is not None and self.browser.is_connected():
                return self.browser
            await self._teardown()
            browser = await self._launch()
            if self._begin_frame and not await self._has_begin_frame_control():
                # Begin-frame control (``HeadlessExperimental``) is the headless shell's
                # alone: new-headless Chromium (/usr/bin/chromium) takes the flag and then
                # fails every capture. Such a browser is relaunched once without the flags
                # and draws on demand as a template browser without begin-frame control
                # does; the pool keeps its shape.
                logger.info("the %s is not the headless shell: no begin-frame control", self.role)
                self._begin_frame = False
                await self._teardown()
                browser = await self._launch()
            return browser

    async def _launch(self) -> PlaywrightBrowser:
        """Launch or connect to a browser as the next generation (under ``_lock``)."""
        self.browser = browser = await self._connect()
        self._generation += 1
        self.launches += 1
        generation = self._generation
        # A dead browser fails its renders at once rather than at their timeouts.
        browser.on("disconnected", lambda _: self._on_lost(generation))
        try:
            self._probe = await browser.new_browser_cdp_session()
        except PlaywrightError:  # a remote endpoint without the Browser domain
            self._probe = None
        return browser

    async def _has_begin_frame_control(self) -> bool:
        """Whether the browser is the headless shell (Chromium's old headless mode), the
        one build with begin-frame control: it names itself "HeadlessChrome", where new
        headless names itself "Chrome"."""
        if self._probe is None:
            return False
        try:
            version = await self._probe.send("Browser.getVersion")
        except PlaywrightError:
            return False
        return str(version.get("product", "")).startswith("HeadlessChrome/")

    async def reset(self, generation: int) -> None:
        """Tear down the browser of ``generation``; the next :meth:`ensure` replaces it."""
        async with self._lock:
            if generation == self._generation:
                await self._teardown()

    async def responsive(self, generation: int) -> bool:
        """False when the browser of ``generation`` does not answer a trivial DevTools call.

        A browser that was already replaced, or cannot be probed, counts as answering.
        """
        probe = self._probe
        if probe is None or generation != self._generation:
            return True
        try:
            # Not asyncio.wait_for: on Python 3.11 it can swallow the cancellation of the
            # hang monitor that calls this (see renderkit.core.waits).
            async with asyncio.timeout(_PROBE_TIMEOUT):
                await probe.send("Browser.getVersion")
        except (TimeoutError, PlaywrightError):
            return False
        return True

    def abandon(self, generation: int) -> None:
        """Give up on a hung browser: kill it (local) or drop it (remote), failing its renders."""
        logger.warning("the %s stopped answering; restarting it", self.role)
        if self.process is not None and generation == self._generation:
            self.process.kill_now()
        self._on_lost(generation)
        self._tasks.spawn(self.reset(generation))

    async def open_slot(self, profile: Hashable | None = None) -> Slot:
        """A new guarded page on the browser (launching it if needed), ready for ``profile``
        (a :class:`DeviceProfile`) when one is given.

        Raises:
            BrowserUnavailableError: no browser could be had.
            PlaywrightError: the relaunched browser failed too.
        """
        browser = await self.ensure()
        generation, session = self._generation, self._probe
        try:
            context, door = await self._new_context(browser)
        except PlaywrightError:
            # The connection looked alive but the browser is gone: relaunch once.
            await self.reset(generation)
            browser = await self.ensure()
            generation, session = self._generation, self._probe
            context, door = await self._new_context(browser)
        device = profile if isinstance(profile, DeviceProfile) else None
        if self._begin_frame and session is None:
            # A page made without begin-frame control never answers a capture there.
            msg = "the template browser has no browser-level DevTools session"
            raise BrowserUnavailableError(msg)
        try:
            return await open_slot(
                context,
                generation=generation,
                endpoint=self._endpoint,
                policy=self._policy,
                profile=device,
                door=door,
                frames=session if self._begin_frame else None,
                frame_lock=self._frame_lock,
            )
        except BaseException:
            # Half made (or its opening cancelled): nobody else holds the context.
            if door is not None:
                door.close()
            self._tasks.spawn(_close_context(context))
            raise

    async def _new_context(
        self, browser: PlaywrightBrowser
    ) -> tuple[BrowserContext, EgressDoor | None]:
        # Downloads refused: Playwright's default saves every download a page starts (a
        # stranger's script can make gigabytes of blobs without the network) into its
        # artifacts directory on this machine's disk until the context closes.
        if self.egress is None:
            return await browser.new_context(no_viewport=True, accept_downloads=False), None
        # The browser already sends everything through the egress proxy. The context gets
        # a listener of its own (its door) so that what the proxy refuses is told to this
        # context's caller only, and the requests Playwright fetches for the page (those
        # carrying a screenshot's credentials, ``_credentials``) go through it as well.
        door = await self.egress.door()
        try:
            context = await browser.new_context(
                no_viewport=True,
                accept_downloads=False,
                proxy={"server": door.url, "bypass": "<-loopback>"},
            )
        except BaseException:
            door.close()
            raise
        return context, door

    async def close_slot(self, slot: Slot, *, hung: bool) -> None:
        """Close a used page; restart the browser if its context will not close."""
        # The direct connection first, as the pool always did: closing it returns once a
        # hung browser was killed, and the browser-side close below is then skipped. The
        # other way round, a hung browser's retry ran out of time (tests/faults).
        if slot.direct is not None:
            await slot.direct.aclose()
        browser = self.browser
        if hung and slot.generation == self._generation and browser is not None:
            await close_target(slot, browser)
        try:
            await slot.close(timeout=CLOSE_TIMEOUT)
        except (TimeoutError, PlaywrightError):
            if slot.generation == self._generation and self.browser is not None:
                logger.warning("a context would not close; restarting the %s", self.role)
                await self.reset(slot.generation)

    async def drop_slot(self, slot: Slot) -> None:
        """Close a page of a browser being torn down, giving up after a moment."""
        with contextlib.suppress(Exception):
            await slot.close(timeout=_DROP_TIMEOUT)

    async def aclose(self) -> None:
        """Close the browser (and a local one's process) and stop Playwright."""
        self._closed = True
        await self._tasks.drain()
        async with self._lock:
            await self._teardown()
            if self._owns_driver:
                await self._driver.aclose()
            if self.egress is not None:
                await self.egress.aclose()
                self.egress = None
        # Whatever the teardown handed to the background (a half-made spare's context).
        await self._tasks.drain()

    async def _connect(self) -> PlaywrightBrowser:
        playwright = await self._driver.get()
        config = self._config
        endpoint = config.cdp_url
        if endpoint is None:
            extra = launch_flags(
                config,
                frame_rate_limit=self._frame_rate_limit,
                begin_frame=self._begin_frame,
                card_tiles=self._card_tiles,
            )
            if not config.allow_private_network:
                # Every byte the browser fetches leaves through the policy-enforcing proxy
                # (redirects and DNS included); "<-loopback>" stops Chromium bypassing it
                # for localhost.
                if self.egress is None:
                    self.egress = EgressProxy(self._policy)
                    await self.egress.start()
                extra += [f"--proxy-server={self.egress.url}", "--proxy-bypass-list=<-loopback>"]
            try:
                self.process = await launch_chromium(
                    config.executable_path,
                    extra_args=extra,
                    local_network_checks=not config.allow_private_network,
                    timeout=config.launch_timeout,
                    user=config.user,
                    # Where the sandbox already failed, relaunches skip the doomed attempt.
                    sandbox=self.sandboxed is not False,
                )
            except BaseException:
                if self.egress is not None:
                    await self.egress.aclose()
                    self.egress = None
                raise
            endpoint = self.process.ws_url
            self.sandboxed = self.process.sandboxed
            self.browser_user = self.process.user
        self._endpoint = endpoint
        try:
            return await playwright.chromium.connect_over_cdp(
                endpoint, timeout=config.launch_timeout * 1000
            )
        except PlaywrightError as exc:
            if self.process is not None:
                await self.process.kill()
                self.process = None
            msg = "could not connect to the browser"
            raise BrowserUnavailableError(msg) from exc

    async def _teardown(self) -> None:
        # The browser is detached (and its generation ended) before any await, so no render
        # starting meanwhile gets a page of it.
        browser, self.browser = self.browser, None
        process, self.process = self.process, None
        self._generation += 1
        await self._on_teardown()
        if browser is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(CLOSE_TIMEOUT):
                    await browser.close()
        if process is not None:
            await process.kill()


async def _close_context(context: BrowserContext) -> None:
    with contextlib.suppress(TimeoutError, PlaywrightError):
        async with asyncio.timeout(CLOSE_TIMEOUT):
            await context.close()
