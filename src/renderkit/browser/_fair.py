"""Fair sharing of the pool's slots across tenants (API keys).

Waiting renders are served round-robin across tenants rather than first come first served,
so a tenant that queues many renders delays only itself. Each tenant may hold at most its
``max_inflight`` slots; a slot stays held (and counted) until it is really free again, i.e.
after a timed-out page was closed, not when the caller got its answer. That is what makes a
hung render cost its own tenant and nobody else.

The scheduler knows nothing about browsers: a :class:`Lease` is one slot, released when
every holder (the render, then possibly the background close of its page) let go.
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Callable

import attrs

from renderkit.core.errors import BrowserBusyError, TenantBusyError

__all__ = ["ANONYMOUS", "FairScheduler", "Lease", "Tenant"]


@attrs.frozen(kw_only=True)
class Tenant:
    """Who a render is queued for.

    Attributes:
        key: identifies the tenant, e.g. an API key id.
        max_inflight: slots the tenant may hold at once; None: as many as the pool has.
    """

    key: str
    max_inflight: int | None = attrs.field(
        default=None, validator=attrs.validators.optional(attrs.validators.ge(1))
    )


ANONYMOUS = Tenant(key="")
"""The tenant of renders made through the pool itself (the library without a server)."""


class Lease:
    """One slot held by a tenant, freed when its last holder releases it."""

    def __init__(self, scheduler: FairScheduler, tenant: Tenant) -> None:
        self.tenant = tenant
        self._scheduler = scheduler
        self._holders = 1

    def retain(self) -> None:
        """Add a holder: e.g. the background task that closes a used page."""
        self._holders += 1

    def release(self) -> None:
        """Drop a holder; the slot goes back to the scheduler with the last one."""
        self._holders -= 1
        if self._holders == 0:
            self._scheduler._free(self.tenant)


@attrs.define(eq=False)
class _Waiter:
    tenant: Tenant
    future: asyncio.Future[Lease]


class FairScheduler:
    """Grants ``slots`` leases, round-robin across tenants, within per-tenant caps.

    Args:
        slots: leases out at once.
        max_queue: renders waiting over all tenants; beyond, BrowserBusyError.
        tenant_queue: renders one capped tenant may have waiting; beyond, TenantBusyError.
            An uncapped tenant (the anonymous one) is bounded by ``max_queue`` alone.
    """

    def __init__(self, *, slots: int, max_queue: int, tenant_queue: int) -> None:
        self._slots = slots
        self._max_queue = max_queue
        self._tenant_queue = tenant_queue
        self._busy = 0
        self._held: collections.Counter[str] = collections.Counter()
        # Tenant key -> its waiters in arrival order; the dict's order is the rotation.
        self._queues: dict[str, collections.deque[_Waiter]] = {}

    @property
    def slots(self) -> int:
        """Leases that may be out at once."""
        return self._slots

    @property
    def busy(self) -> int:
        """Leases currently out."""
        return self._busy

    def resize(self, slots: int) -> None:
        """Change the number of slots, e.g. as a fleet's browsers come and go.

        Shrinking below the leases out revokes none: new grants wait until enough are back.
        """
        self._slots = slots
        self._dispatch()

    def fail_waiting(self, error: Callable[[], BaseException]) -> None:
        """Fail every waiting render at once with ``error()`` (nothing left to serve them)."""
        queues, self._queues = self._queues, {}
        for queue in queues.values():
            for waiter in queue:
                if not waiter.future.done():
                    waiter.future.set_exception(error())

    @property
    def waiting(self) -> int:
        """Renders waiting for a lease."""
        return sum(len(queue) for queue in self._queues.values())

    def held(self, tenant: Tenant) -> int:
        """Leases ``tenant`` holds now."""
        return self._held[tenant.key]

    async def acquire(self, tenant: Tenant, *, timeout: float) -> Lease:
        """Wait at most ``timeout`` seconds for a slot for ``tenant``.

        Raises:
            TenantBusyError: the tenant already has its whole allowance running and waiting.
            BrowserBusyError: the wait queue is full, or no slot came within ``timeout``.
            BaseException: what :meth:`fail_waiting` gave waiting renders.
        """
        if not self._queues and self._grantable(tenant):
            return self._grant(tenant)
        queue = self._queues.get(tenant.key)
        capped = tenant.max_inflight is not None
        if capped and queue is not None and len(queue) >= self._tenant_queue:
            msg = (
                f"this key already has {self.held(tenant)} renders running and {len(queue)} "
                "waiting; wait for one to finish"
            )
            raise TenantBusyError(msg, retry_after=1.0)
        if self.waiting >= self._max_queue:
            msg = "all browser slots are busy and the queue is full; retry shortly"
            raise BrowserBusyError(msg, retry_after=1.0)
        waiter = _Waiter(tenant, asyncio.get_running_loop().create_future())
        self._queues.setdefault(tenant.key, collections.deque()).append(waiter)
        # Slots may be free for this tenant even with others waiting (theirs at their cap).
        self._dispatch()
        try:
            async with asyncio.timeout(timeout):
                return await waiter.future
        except BaseException as exc:
            if (
                waiter.future.done()
                and not waiter.future.cancelled()
                and waiter.future.exception() is None
            ):
                # Granted just as the caller gave up: give the slot back.
                waiter.future.result().release()
            else:
                waiter.future.cancel()
                self._unqueue(waiter)
            if isinstance(exc, TimeoutError):
                msg = f"no browser slot became free within {timeout:g} s; retry shortly"
                raise BrowserBusyError(msg, retry_after=max(1.0, timeout / 2)) from None
            raise

    def _grantable(self, tenant: Tenant) -> bool:
        if self._busy >= self._slots:
            return False
        cap = tenant.max_inflight
        return cap is None or self._held[tenant.key] < cap

    def _grant(self, tenant: Tenant) -> Lease:
        self._busy += 1
        self._held[tenant.key] += 1
        return Lease(self, tenant)

    def _unqueue(self, waiter: _Waiter) -> None:
        queue = self._queues.get(waiter.tenant.key)
        if queue is None:
            return
        if waiter in queue:
            queue.remove(waiter)
        if not queue:
            del self._queues[waiter.tenant.key]

    def _free(self, tenant: Tenant) -> None:
        self._busy -= 1
        self._held[tenant.key] -= 1
        if self._held[tenant.key] == 0:
            del self._held[tenant.key]
        self._dispatch()

    def _dispatch(self) -> None:
        """Hand free slots to waiting tenants in rotation, skipping those at their cap."""
        progressed = True
        while progressed and self._busy < self._slots and self._queues:
            progressed = False
            for key in list(self._queues):
                queue = self._queues[key]
                while queue and queue[0].future.done():
                    queue.popleft()  # its caller gave up (cancelled) and is unqueueing
                if not queue:
                    del self._queues[key]
                    progressed = True
                    break
                if not self._grantable(queue[0].tenant):
                    continue
                waiter = queue.popleft()
                # Served: this tenant goes to the back of the rotation.
                del self._queues[key]
                if queue:
                    self._queues[key] = queue
                waiter.future.set_result(self._grant(waiter.tenant))
                progressed = True
                break
