"""A fleet of remote browsers behind one :class:`~renderkit.browser.Browser`.

Each endpoint (``chromium --remote-debugging-port``, Browserless...) is a remote
:class:`~renderkit.browser.ChromiumPool`, a *member*. Fairness is decided once, for the
whole fleet: one :class:`~renderkit.browser._fair.FairScheduler` over the slots of every
healthy member grants a render its slot (round-robin across tenants, within each tenant's
cap), and only then is a member chosen for it: the least busy healthy one. A member that
dies is taken out at once (its in-flight renders fail fast inside its pool and are retried
once on another member; renders are idempotent), and a background probe reconnects it when
its endpoint answers again.

Endpoints may carry tokens (``?token=...``): logs, errors and stats show them redacted.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar
from urllib.parse import urlsplit

import attrs
from playwright.async_api import Error as PlaywrightError

from renderkit.browser._config import BrowserConfig
from renderkit.browser._fair import ANONYMOUS, DEFAULT_CLASS, FairScheduler, Tenant, TenantClass
from renderkit.browser._pool import ChromiumPool
from renderkit.browser._protocol import Capture, PageCapture, PageShot, PdfOptions, Shell
from renderkit.browser._stats import BrowserStats, MemberStats, redact_endpoint
from renderkit.browser._tenant import TenantBrowser
from renderkit.core.errors import BrowserUnavailableError, ConfigurationError

__all__ = ["BrowserFleet"]

T = TypeVar("T")

logger = logging.getLogger("renderkit.browser")

#: Seconds a down endpoint gets to accept a TCP connection before the (costlier) DevTools
#: connection is attempted.
_REACH_TIMEOUT = 1.0
#: Seconds after which a caller told "no browser is reachable" may try again: about when
#: the next probe has run.
_RETRY_AFTER = 2.0
_DEFAULT_PORTS = {"ws": 80, "http": 80, "wss": 443, "https": 443}


@attrs.define(eq=False)
class _Member:
    pool: ChromiumPool
    #: Redacted: safe for logs and stats.
    endpoint: str
    #: (host, port) to test for reachability before reconnecting; None if not derivable.
    address: tuple[str, int] | None
    healthy: bool = False
    #: Renders the fleet sent here that have not returned yet.
    assigned: int = 0
    #: When this member was last picked, to rotate among equally busy ones.
    picked: int = 0
    probe: asyncio.Task[None] | None = None

    @property
    def slots(self) -> int:
        return self.pool.config.slots

    def load(self) -> float:
        """Busy share of its slots: running plus queued on it (closing pages included)."""
        stats = self.pool.stats().members[0]
        return max(self.assigned, stats.busy + stats.queued) / self.slots


def _address(url: str) -> tuple[str, int] | None:
    try:
        parts = urlsplit(url)
        port = parts.port or _DEFAULT_PORTS.get(parts.scheme)
    except ValueError:
        return None
    if parts.hostname is None or port is None:
        return None
    return parts.hostname, port


class BrowserFleet:
    """Renders on the least busy of several remote browsers, fairly across tenants.

    Use as an async context manager, or call :meth:`start` and :meth:`aclose`::

        async with BrowserFleet(["http://10.0.0.5:9222", "ws://10.0.0.6:3000?token=..."]) as b:
            result = await render_image({"template": "og-card", ...}, browser=b)

    Args:
        endpoints: the browsers' DevTools endpoints (``ws://``, ``wss://`` or
            ``http://host:port``); duplicates are dropped.
        config: settings of every member (``slots`` is per endpoint; ``cdp_url`` is
            ignored); ``max_queue``, ``tenant_queue`` and ``queue_timeout`` apply to the
            fleet's one fair queue.
        probe_interval: seconds between checks of the members; a member that died is
            reconnected by the first check after its endpoint answers again.

    Raises:
        ConfigurationError: no endpoint was given.
    """

    def __init__(
        self,
        endpoints: Sequence[str],
        config: BrowserConfig | None = None,
        *,
        probe_interval: float = 1.5,
    ) -> None:
        unique = list(dict.fromkeys(endpoint.strip() for endpoint in endpoints if endpoint))
        if not unique:
            msg = "a browser fleet needs at least one endpoint"
            raise ConfigurationError(msg)
        self.config = config if config is not None else BrowserConfig()
        self._members = [
            _Member(
                pool=ChromiumPool(attrs.evolve(self.config, cdp_url=endpoint)),
                endpoint=redact_endpoint(endpoint),
                address=_address(endpoint),
            )
            for endpoint in unique
        ]
        self._probe_interval = probe_interval
        # No slots until members answer: renders queue (or fail fast) until then.
        self._scheduler = FairScheduler(
            slots=0, max_queue=self.config.max_queue, tenant_queue=self.config.tenant_queue
        )
        self._picks = itertools.count(1)
        self._start_lock = asyncio.Lock()
        self._monitor: asyncio.Task[None] | None = None
        self._closed = False

    async def __aenter__(self) -> BrowserFleet:
        try:
            await self.start()
        except BaseException:
            await self.aclose()
            raise
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def start(self) -> None:
        """Connect to every endpoint now and start watching them.

        Members that cannot be reached are probed again in the background, so a fleet
        that started with some (or all) of its browsers down recovers on its own.

        Raises:
            BrowserUnavailableError: no endpoint could be reached.
        """
        async with self._start_lock:
            if self._closed:
                msg = "the browser fleet is closed"
                raise BrowserUnavailableError(msg)
            if self._monitor is None:
                await asyncio.gather(*(self._probe(member) for member in self._members))
                self._monitor = asyncio.get_running_loop().create_task(self._watch())
        if not self.connected:
            raise BrowserUnavailableError(_NONE_HEALTHY, retry_after=_RETRY_AFTER)

    @property
    def connected(self) -> bool:
        """True while at least one member is healthy."""
        return any(member.healthy for member in self._members)

    async def version(self) -> str:
        """The product version of a healthy member's browser.

        Raises:
            BrowserUnavailableError: no member is healthy.
        """
        for member in self._members:
            if member.healthy:
                return await member.pool.version()
        raise BrowserUnavailableError(_NONE_HEALTHY, retry_after=_RETRY_AFTER)

    def stats(self) -> BrowserStats:
        """Per endpoint (redacted): health, slots, busy and queued renders."""
        members = []
        for member in self._members:
            own = member.pool.stats().members[0]
            members.append(
                MemberStats(
                    endpoint=member.endpoint,
                    healthy=member.healthy,
                    slots=member.slots,
                    busy=own.busy,
                    queued=own.queued,
                )
            )
        return BrowserStats(members=tuple(members), waiting=self._scheduler.waiting)

    def for_tenant(
        self, key: str, *, max_inflight: int | None = None, group: TenantClass = DEFAULT_CLASS
    ) -> TenantBrowser:
        """A :class:`~renderkit.browser.Browser` whose renders queue as tenant ``key``.

        Fairness and the cap hold over the whole fleet, whichever member renders.
        """
        return TenantBrowser(self, Tenant(key=key, max_inflight=max_inflight, group=group))

    async def aclose(self) -> None:
        """Stop watching, fail waiting renders and close every member's connection.

        The remote browsers themselves keep running.
        """
        self._closed = True
        self._scheduler.fail_waiting(_closed_error)
        tasks = [self._monitor] + [member.probe for member in self._members]
        for task in tasks:
            if task is not None:
                task.cancel()
        for task in tasks:
            if task is not None:
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        await asyncio.gather(*(member.pool.aclose() for member in self._members))

    # -- rendering -------------------------------------------------------------------------

    async def capture_fragment(
        self, shell: Shell, fragment: str, capture: Capture, *, tenant: Tenant = ANONYMOUS
    ) -> bytes:
        """See :meth:`renderkit.browser.Browser.capture_fragment`."""
        return await self._run(tenant, lambda pool: pool.capture_fragment(shell, fragment, capture))

    async def capture_document(
        self, html: str, capture: Capture, *, tenant: Tenant = ANONYMOUS
    ) -> bytes:
        """See :meth:`renderkit.browser.Browser.capture_document`."""
        return await self._run(tenant, lambda pool: pool.capture_document(html, capture))

    async def print_fragment(
        self, shell: Shell, fragment: str, options: PdfOptions, *, tenant: Tenant = ANONYMOUS
    ) -> bytes:
        """See :meth:`renderkit.browser.Browser.print_fragment`."""
        return await self._run(tenant, lambda pool: pool.print_fragment(shell, fragment, options))

    async def print_document(
        self, html: str, options: PdfOptions, *, tenant: Tenant = ANONYMOUS
    ) -> bytes:
        """See :meth:`renderkit.browser.Browser.print_document`."""
        return await self._run(tenant, lambda pool: pool.print_document(html, options))

    async def capture_url(self, shot: PageShot, *, tenant: Tenant = ANONYMOUS) -> PageCapture:
        """See :meth:`renderkit.browser.Browser.capture_url`."""
        return await self._run(tenant, lambda pool: pool.capture_url(shot))

    async def _run(self, tenant: Tenant, render: Callable[[ChromiumPool], Awaitable[T]]) -> T:
        """Queue fairly for a fleet slot, then render on the least busy healthy member.

        A member whose browser is lost fails the render with BrowserUnavailableError (its
        pool already tried a reconnect); the member is taken out and the render, which is
        idempotent, is retried once on another healthy member.
        """
        if self._monitor is None:
            await self.start()
        if self._closed:
            raise _closed_error()
        if not self.connected:
            raise BrowserUnavailableError(_NONE_HEALTHY, retry_after=_RETRY_AFTER)
        lease = await self._scheduler.acquire(tenant, timeout=self.config.queue_timeout)
        tried: list[_Member] = []
        try:
            for attempt in (1, 2):
                member = self._pick(exclude=tried)
                if member is None:
                    raise BrowserUnavailableError(_NONE_HEALTHY, retry_after=_RETRY_AFTER)
                tried.append(member)
                member.assigned += 1
                try:
                    return await render(member.pool)
                except BrowserUnavailableError:
                    self._mark_down(member, "its browser was lost during a render")
                    if attempt == 2 or self._closed or not self.connected:
                        raise
                    logger.warning("retrying the render on another browser endpoint")
                finally:
                    member.assigned -= 1
            raise AssertionError  # pragma: no cover - the loop returns or raises
        finally:
            lease.release()

    def _pick(self, *, exclude: Sequence[_Member]) -> _Member | None:
        """The healthy member with the smallest busy share; the least recently picked wins
        a tie, so an idle fleet spreads renders over every member."""
        best: _Member | None = None
        best_key: tuple[float, int] = (0.0, 0)
        for member in self._members:
            if not member.healthy or member in exclude:
                continue
            if not member.pool.connected:
                # Its browser went away since the last check: do not wait for the watcher.
                self._mark_down(member, "its connection closed")
                continue
            key = (member.load(), member.picked)
            if best is None or key < best_key:
                best, best_key = member, key
        if best is not None:
            best.picked = next(self._picks)
        return best

    # -- health ----------------------------------------------------------------------------

    def _mark_down(self, member: _Member, why: str) -> None:
        if not member.healthy:
            return
        member.healthy = False
        logger.warning("browser endpoint %s is down (%s)", member.endpoint, why)
        self._resize()
        if not self.connected:
            # Nothing left to serve the queue: answer now rather than at the queue timeout.
            self._scheduler.fail_waiting(_none_healthy_error)

    def _mark_up(self, member: _Member) -> None:
        if member.healthy or self._closed:
            return
        member.healthy = True
        logger.info("browser endpoint %s is up", member.endpoint)
        self._resize()

    def _resize(self) -> None:
        self._scheduler.resize(sum(m.slots for m in self._members if m.healthy))

    async def _watch(self) -> None:
        """Every ``probe_interval``: take out members whose connection closed, probe the
        down ones (each probe bounded, at most one at a time per member)."""
        while not self._closed:
            for member in self._members:
                if member.healthy and not member.pool.connected:
                    self._mark_down(member, "its connection closed")
                if not member.healthy and member.probe is None:
                    member.probe = asyncio.get_running_loop().create_task(self._probe(member))
                    member.probe.add_done_callback(functools.partial(_forget_probe, member))
            await asyncio.sleep(self._probe_interval)

    async def _probe(self, member: _Member) -> None:
        """Bring ``member`` back if its endpoint answers: TCP first, then DevTools."""
        try:
            if member.address is not None:
                host, port = member.address
                async with asyncio.timeout(_REACH_TIMEOUT):
                    _, writer = await asyncio.open_connection(host, port)
                writer.close()
                with contextlib.suppress(OSError):
                    await writer.wait_closed()
            async with asyncio.timeout(self.config.launch_timeout + _REACH_TIMEOUT):
                await member.pool.start()
        except (OSError, TimeoutError, BrowserUnavailableError, PlaywrightError) as exc:
            # The class only: a connection error's text can hold the endpoint's token.
            logger.debug("browser endpoint %s does not answer (%s)", member.endpoint, type(exc))
            return
        self._mark_up(member)


def _forget_probe(member: _Member, _: object) -> None:
    member.probe = None


_NONE_HEALTHY = "no browser is reachable right now; retry shortly"


def _none_healthy_error() -> BrowserUnavailableError:
    return BrowserUnavailableError(_NONE_HEALTHY, retry_after=_RETRY_AFTER)


def _closed_error() -> BrowserUnavailableError:
    return BrowserUnavailableError("the browser fleet is closed")
