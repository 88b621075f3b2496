"""The slots of a pool: who may render now, which page a render gets, and where it goes after.

A render first takes a :class:`~renderkit.browser._fair.Lease` (fairly across tenants,
``_fair``), then a page: a *warm* one for templates, kept and reused while it stays healthy,
or a *fresh* one for the caller's own documents and URLs, used once and closed. Pages are
opened and closed by a :class:`SlotSource` (the browser, ``_lifecycle``); the pool only
decides which page serves which render, so it runs without a browser in its tests.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import AsyncIterator
from typing import Generic, Protocol, TypeVar

from playwright.async_api import Error as PlaywrightError

from renderkit.browser._fair import FairScheduler, Lease, Tenant
from renderkit.browser._tasks import TaskSet
from renderkit.core.errors import InvalidRequestError, RenderkitError

__all__ = ["PooledSlot", "SlotPool", "SlotSource"]


class PooledSlot(Protocol):
    """What the pool needs to know of a page."""

    #: The browser generation the page was opened on.
    generation: int

    def is_open(self) -> bool:
        """False once the page is gone."""
        ...


S = TypeVar("S", bound=PooledSlot)


class SlotSource(Protocol[S]):
    """Opens and closes pages on the current browser."""

    @property
    def generation(self) -> int:
        """The current browser's generation; pages of older ones are useless."""
        ...

    @property
    def closed(self) -> bool:
        """True once the pool is closing: no page goes back to the idle list."""
        ...

    async def open_slot(self) -> S:
        """A new page on the current browser (launching it if needed)."""
        ...

    async def close_slot(self, slot: S, *, hung: bool) -> None:
        """Close ``slot`` for good; ``hung``: its last render failed or timed out."""
        ...

    async def drop_slot(self, slot: S) -> None:
        """Close ``slot`` of a browser being torn down, quietly and promptly."""
        ...


class SlotPool(Generic[S]):
    """Leases, warm pages kept between renders, and fresh pages kept ready.

    Args:
        source: opens and closes the pages.
        tasks: where background closes run (the pool's :class:`TaskSet`).
        slots, max_queue, tenant_queue: see :class:`~renderkit.browser.BrowserConfig`.
        spare_contexts: fresh pages kept ready for documents and screenshots.
    """

    def __init__(
        self,
        source: SlotSource[S],
        tasks: TaskSet,
        *,
        slots: int,
        max_queue: int,
        tenant_queue: int,
        spare_contexts: int,
    ) -> None:
        self._source = source
        self._tasks = tasks
        self._spare_contexts = spare_contexts
        self.scheduler = FairScheduler(slots=slots, max_queue=max_queue, tenant_queue=tenant_queue)
        self._idle: list[S] = []
        self._spares: collections.deque[asyncio.Task[S]] = collections.deque()

    async def acquire(self, tenant: Tenant, *, timeout: float) -> Lease:
        """Wait (fairly, see :class:`FairScheduler`) for the right to render.

        Raises:
            TenantBusyError, BrowserBusyError: see :meth:`FairScheduler.acquire`.
        """
        return await self.scheduler.acquire(tenant, timeout=timeout)

    @contextlib.asynccontextmanager
    async def warm(self, lease: Lease) -> AsyncIterator[S]:
        """A page kept between renders: back to the idle list if the render went well.

        A render refused as the caller's mistake (InvalidRequestError) leaves the page
        healthy; any other failure costs the page, closed in the background while
        ``lease`` stays held.
        """
        slot = await self._take_idle()
        healthy = False
        try:
            yield slot
            healthy = True
        except InvalidRequestError:
            healthy = True
            raise
        finally:
            source = self._source
            if healthy and not source.closed and slot.generation == source.generation:
                self._idle.append(slot)
            else:
                self._retire(slot, lease, hung=not healthy)

    @contextlib.asynccontextmanager
    async def fresh(self, lease: Lease) -> AsyncIterator[S]:
        """A page nobody used before, closed after the render (in the background)."""
        slot = await self._take_spare()
        done = False
        try:
            yield slot
            done = True
        finally:
            self._retire(slot, lease, hung=not done)
            self._refill_spares()

    async def drop(self) -> None:
        """Close every idle and spare page: their browser is being torn down."""
        spares, self._spares = list(self._spares), collections.deque()
        idle, self._idle = self._idle, []
        for spare in spares:
            spare.cancel()
        for spare in spares:
            with contextlib.suppress(BaseException):
                idle.append(await spare)
        for slot in idle:
            await self._source.drop_slot(slot)

    def _retire(self, slot: S, lease: Lease, *, hung: bool) -> None:
        # Closing may block on a hung renderer, so it must not hold up the caller; the
        # tenant's slot stays held until the page is really gone.
        lease.retain()

        async def close() -> None:
            try:
                await self._source.close_slot(slot, hung=hung)
            finally:
                lease.release()

        self._tasks.spawn(close())

    def _refill_spares(self) -> None:
        # Creating a context spawns a renderer (~200 ms): keep a few ready for the next
        # screenshots and custom documents. Each is used once, so none is shared by users.
        while not self._source.closed and len(self._spares) < self._spare_contexts:
            self._spares.append(asyncio.get_running_loop().create_task(self._source.open_slot()))

    async def _take_spare(self) -> S:
        while self._spares:
            task = self._spares.popleft()
            try:
                slot = await task
            except (PlaywrightError, RenderkitError):
                continue
            if slot.generation == self._source.generation:
                return slot
            self._tasks.spawn(self._source.close_slot(slot, hung=False))
        return await self._source.open_slot()

    async def _take_idle(self) -> S:
        while self._idle:
            slot = self._idle.pop()
            if slot.generation == self._source.generation and slot.is_open():
                return slot
            self._tasks.spawn(self._source.close_slot(slot, hung=False))
        return await self._source.open_slot()
