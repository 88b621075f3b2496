"""The slots of a pool: who may render now, which page a render gets, and where it goes after.

A render first takes a :class:`~renderkit.browser._fair.Lease` (fairly across tenants,
``_fair``), then a page: a *warm* one for templates, kept and reused while it stays healthy,
or a *fresh* one for the caller's own documents and URLs, used once and closed. Fresh pages
come from *spares*: pages opened in the background, ready for one device profile (a
screenshot's viewport, scale, user agent and touch), kept per profile for the few profiles
used last and never handed to more than one render. Pages are opened and closed by a
:class:`SlotSource` (the browser, ``_lifecycle``); the pool only decides which page serves
which render, so it runs without a browser in its tests.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import AsyncIterator, Callable, Coroutine, Hashable
from typing import Any, Generic, Protocol, TypeVar

from playwright.async_api import Error as PlaywrightError

from renderkit.browser._fair import FairScheduler, Lease, Tenant
from renderkit.browser._tasks import TaskSet
from renderkit.core.errors import InvalidRequestError, RenderkitError
from renderkit.core.waits import cancel_and_wait

__all__ = ["SPARE_PROFILES", "PooledSlot", "SlotPool", "SlotSource"]

#: Device profiles whose spares are kept at once (the least recently used one's go first):
#: documents (no profile), the desktop and a phone, say.
SPARE_PROFILES = 3
#: Seconds a spare still opening is waited for when it is no longer wanted.
_SPARE_WAIT = 10.0


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

    async def open_slot(self, profile: Hashable | None = None) -> S:
        """A new page on the current browser (launching it if needed), made ready for
        ``profile`` (a device) when one is given."""
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
        scheduler: the leases, when shared with another pool of pages (a pool's two
            browsers, one ``slots`` bound for all their renders); else one of its own.
        spare_contexts: fresh pages kept ready per device profile (for documents, and for
            screenshots of each of the last :data:`SPARE_PROFILES` profiles used).
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
        scheduler: FairScheduler | None = None,
    ) -> None:
        self._source = source
        self._tasks = tasks
        self._spare_contexts = spare_contexts
        self.scheduler = scheduler or FairScheduler(
            slots=slots, max_queue=max_queue, tenant_queue=tenant_queue
        )
        self._idle: list[S] = []
        # Per device profile (None: documents), the least recently used first.
        self._spares: dict[Hashable | None, collections.deque[asyncio.Task[S]]] = {}
        # Closes of healthy pages that hold no lease: at most one per slot, so used pages
        # cannot pile up faster than they close.
        self._free_closes = 0
        self._close_limit = slots
        self._slots = slots
        # Warm pages in use by a render: with the idle ones, never more than the slots.
        self._warm_busy = 0

    @property
    def spare_count(self) -> int:
        """Spare pages kept ready or being opened, over every profile."""
        return sum(len(spares) for spares in self._spares.values())

    @property
    def warm_pages(self) -> int:
        """Warm pages kept, idle or in use."""
        return len(self._idle) + self._warm_busy

    def has_idle(self, prefer: Callable[[S], bool]) -> bool:
        """True when an idle warm page of the current browser is one ``prefer`` accepts."""
        generation = self._source.generation
        return any(slot.generation == generation and prefer(slot) for slot in self._idle)

    async def acquire(self, tenant: Tenant, *, timeout: float) -> Lease:
        """Wait (fairly, see :class:`FairScheduler`) for the right to render.

        Raises:
            TenantBusyError, BrowserBusyError: see :meth:`FairScheduler.acquire`.
        """
        return await self.scheduler.acquire(tenant, timeout=timeout)

    @contextlib.asynccontextmanager
    async def warm(
        self, lease: Lease, prefer: Callable[[S], bool] | None = None
    ) -> AsyncIterator[S]:
        """A page kept between renders: back to the idle list if the render went well.

        ``prefer``: of the idle pages, the most recently used one it accepts is taken
        (one already set up as the render needs); if none does, a new page while the warm
        pages are fewer than the slots, else the most recently used one.
        A render refused as the caller's mistake (InvalidRequestError) leaves the page
        healthy; any other failure costs the page, closed in the background while
        ``lease`` stays held.
        """
        slot = await self._take_idle(prefer)
        self._warm_busy += 1
        healthy = False
        try:
            yield slot
            healthy = True
        except InvalidRequestError:
            healthy = True
            raise
        finally:
            self._warm_busy -= 1
            source = self._source
            if healthy and not source.closed and slot.generation == source.generation:
                self._idle.append(slot)
            else:
                self._retire(slot, lease, hung=not healthy)

    @contextlib.asynccontextmanager
    async def fresh(self, lease: Lease, profile: Hashable | None = None) -> AsyncIterator[S]:
        """A page nobody used before, ready for ``profile``, closed after the render (in
        the background)."""
        slot = await self._take_spare(profile)
        # Its replacement starts now, while this render runs, not after it: back-to-back
        # renders then find it ready a render sooner.
        self._refill_spares(profile)
        done = False
        try:
            yield slot
            done = True
        finally:
            self._retire(slot, lease, hung=not done)

    async def drop(self) -> None:
        """Close every idle and spare page: their browser is being torn down."""
        spares = [task for queue in self._spares.values() for task in queue]
        self._spares = {}
        idle, self._idle = self._idle, []
        await cancel_and_wait(*spares)
        # A spare that was ready before its cancellation still holds a page to close.
        idle += [s.result() for s in spares if not s.cancelled() and s.exception() is None]
        for slot in idle:
            await self._source.drop_slot(slot)

    def _retire(self, slot: S, lease: Lease, *, hung: bool) -> None:
        # Closing may block on a hung renderer, so it must not hold up the caller. A page
        # that failed keeps the tenant's slot held until it is really gone; a healthy one
        # frees it at once unless as many healthy closes as slots are already under way.
        held = hung or self._free_closes >= self._close_limit
        if held:
            lease.retain()
        else:
            self._free_closes += 1

        async def close() -> None:
            try:
                await self._source.close_slot(slot, hung=hung)
            finally:
                if held:
                    lease.release()
                else:
                    self._free_closes -= 1

        self._tasks.spawn(close())

    def _refill_spares(self, profile: Hashable | None) -> None:
        # Creating a context spawns a renderer (~200 ms) and its first DevTools commands
        # wait for it: keep a few ready, per device, for the next screenshots and custom
        # documents. Each is used once, so none is shared by users.
        if self._source.closed or self._spare_contexts == 0:
            return
        spares = self._spares.pop(profile, None) or collections.deque()
        self._spares[profile] = spares  # now the most recently used
        while len(spares) < self._spare_contexts:
            spares.append(asyncio.get_running_loop().create_task(self._open(profile)))
        while len(self._spares) > SPARE_PROFILES:
            oldest = next(iter(self._spares))
            for task in self._spares.pop(oldest):
                self._tasks.spawn(self._discard_spare(task))

    async def _discard_spare(self, task: asyncio.Task[S]) -> None:
        # asyncio.wait, unlike awaiting the task, tells the spare's failure or cancellation
        # from this close's own.
        done, _ = await asyncio.wait({task}, timeout=_SPARE_WAIT)
        if not done:
            task.cancel()
            await asyncio.wait({task}, timeout=_SPARE_WAIT)
            return
        if task.cancelled() or task.exception() is not None:
            return
        await self._source.close_slot(task.result(), hung=False)

    def _open(self, profile: Hashable | None) -> Coroutine[Any, Any, S]:
        # Without a profile the source is asked as before, for a page with no device.
        return self._source.open_slot() if profile is None else self._source.open_slot(profile)

    async def _take_spare(self, profile: Hashable | None) -> S:
        spares = self._spares.get(profile)
        while spares:
            task = spares.popleft()
            try:
                slot = await task
            except (PlaywrightError, RenderkitError):
                continue
            if slot.generation == self._source.generation:
                return slot
            self._tasks.spawn(self._source.close_slot(slot, hung=False))
        return await self._open(profile)

    async def _take_idle(self, prefer: Callable[[S], bool] | None = None) -> S:
        if prefer is not None:
            for index in range(len(self._idle) - 1, -1, -1):
                slot = self._idle[index]
                if slot.generation == self._source.generation and prefer(slot):
                    del self._idle[index]
                    if slot.is_open():
                        return slot
                    self._tasks.spawn(self._source.close_slot(slot, hung=False))
                    break
            if self.warm_pages < self._slots:
                return await self._source.open_slot()
        while self._idle:
            slot = self._idle.pop()
            if slot.generation == self._source.generation and slot.is_open():
                return slot
            self._tasks.spawn(self._source.close_slot(slot, hung=False))
        return await self._source.open_slot()
