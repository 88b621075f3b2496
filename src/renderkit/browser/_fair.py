"""Fair sharing of the pool's slots across plan classes, then across tenants (API keys).

Waiting renders are served in two steps. First a *class* (a plan: ``starter``, ``pro``...) is
picked by weighted fair queuing: each grant advances the class's virtual time by
``1 / weight``, and the waiting class with the earliest virtual finish goes next, so a class
of weight 4 is served four times as often as one of weight 1 while both wait. Then a tenant
inside that class is picked round-robin, so a tenant that queues many renders delays only
itself. Minting more free keys therefore buys no more than the free class's share.

Every class holds at most its ``slot_share`` of the slots, even when the pool is otherwise
idle: a paying request then always finds a free slot or is next. Its waiting renders fill at
most its ``queue_share`` of ``max_queue``, so one class cannot make another's requests fail
at once with a full queue. Each tenant holds at most its ``max_inflight`` slots; a slot
stays held (and counted, for its tenant and its class) until it is really free again, i.e.
after a timed-out page was closed, not when the caller got its answer. That is what makes a
hung render cost its own tenant and nobody else.

The scheduler knows nothing about browsers: a :class:`Lease` is one slot, released when
every holder (the render, then possibly the background close of its page) let go.
"""

from __future__ import annotations

import asyncio
import collections
import math
from collections.abc import Callable

import attrs

from renderkit.core.errors import BrowserBusyError, TenantBusyError

__all__ = ["ANONYMOUS", "DEFAULT_CLASS", "FairScheduler", "Lease", "Tenant", "TenantClass"]


def _share(instance: object, attribute: attrs.Attribute[float], value: float) -> None:
    if not 0 < value <= 1:
        msg = f"{attribute.name} must be above 0 and at most 1, got {value!r}"
        raise ValueError(msg)


@attrs.frozen(kw_only=True)
class TenantClass:
    """A class of tenants sharing one weight and one share of the slots (a plan).

    Attributes:
        name: identifies the class, e.g. the plan name; tenants of one class name share its
            slots and queue places.
        weight: how often the class is served relative to other waiting classes.
        slot_share: the most of the slots the class holds at once (at least one slot).
        queue_share: the most of ``max_queue`` its waiting renders fill (at least one place).
    """

    name: str = ""
    weight: int = attrs.field(default=1, validator=attrs.validators.ge(1))
    slot_share: float = attrs.field(default=1.0, validator=_share)
    queue_share: float = attrs.field(default=1.0, validator=_share)

    def slot_cap(self, slots: int) -> int:
        """The slots this class may hold out of ``slots``: its share, rounded down, at least 1."""
        return max(1, math.floor(self.slot_share * slots + 1e-9))

    def queue_cap(self, max_queue: int) -> int:
        """The renders this class may have waiting out of ``max_queue``, at least 1."""
        return max(1, math.floor(self.queue_share * max_queue + 1e-9))


DEFAULT_CLASS = TenantClass()
"""The class of tenants given none: weight 1, the whole pool and queue."""


@attrs.frozen(kw_only=True)
class Tenant:
    """Who a render is queued for.

    Attributes:
        key: identifies the tenant, e.g. an API key id.
        max_inflight: slots the tenant may hold at once; None: as many as the pool has.
        group: the tenant's class (its plan): its weight and its shares of slots and queue.
    """

    key: str
    max_inflight: int | None = attrs.field(
        default=None, validator=attrs.validators.optional(attrs.validators.ge(1))
    )
    group: TenantClass = DEFAULT_CLASS


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


@attrs.define(eq=False)
class _Backlog:
    """The waiting renders of one class: per tenant, the dict's order is the rotation."""

    tenants: dict[str, collections.deque[_Waiter]] = attrs.field(factory=dict)
    waiting: int = 0


class FairScheduler:
    """Grants ``slots`` leases by weighted fair queuing over classes, round-robin across the
    tenants of a class, within per-class shares and per-tenant caps.

    Args:
        slots: leases out at once.
        max_queue: renders waiting over all tenants; beyond, BrowserBusyError. A class's
            waiting renders fill at most its ``queue_share`` of it.
        tenant_queue: renders one capped tenant may have waiting; beyond, TenantBusyError.
            An uncapped tenant (the anonymous one) is bounded by ``max_queue`` alone.
    """

    def __init__(self, *, slots: int, max_queue: int, tenant_queue: int) -> None:
        self._slots = slots
        self._max_queue = max_queue
        self._tenant_queue = tenant_queue
        self._busy = 0
        self._held: collections.Counter[str] = collections.Counter()
        self._class_held: collections.Counter[str] = collections.Counter()
        # Class name -> its backlog; only classes with waiting renders are here.
        self._backlogs: dict[str, _Backlog] = {}
        # Weighted fair queuing: each class's virtual finish time of its last grant, and the
        # virtual time (that of the last grant). A class that starts waiting restarts from
        # the virtual time if it is behind, so idling earns no credit to starve others later.
        self._finish: dict[str, float] = {}
        self._clock = 0.0

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
        backlogs, self._backlogs = self._backlogs, {}
        for backlog in backlogs.values():
            for queue in backlog.tenants.values():
                for waiter in queue:
                    if not waiter.future.done():
                        waiter.future.set_exception(error())

    @property
    def waiting(self) -> int:
        """Renders waiting for a lease."""
        return sum(backlog.waiting for backlog in self._backlogs.values())

    def held(self, tenant: Tenant) -> int:
        """Leases ``tenant`` holds now."""
        return self._held[tenant.key]

    def class_held(self, group: TenantClass) -> int:
        """Leases the tenants of ``group`` hold now."""
        return self._class_held[group.name]

    def class_waiting(self, group: TenantClass) -> int:
        """Renders of ``group``'s tenants waiting for a lease."""
        backlog = self._backlogs.get(group.name)
        return 0 if backlog is None else backlog.waiting

    async def acquire(self, tenant: Tenant, *, timeout: float) -> Lease:
        """Wait at most ``timeout`` seconds for a slot for ``tenant``.

        Raises:
            TenantBusyError: the tenant already has its whole allowance running and waiting.
            BrowserBusyError: the wait queue, or the class's share of it, is full, or no
                slot came within ``timeout``.
            BaseException: what :meth:`fail_waiting` gave waiting renders.
        """
        if not self._backlogs and self._grantable(tenant):
            return self._grant(tenant)
        group = tenant.group
        backlog = self._backlogs.get(group.name)
        queue = None if backlog is None else backlog.tenants.get(tenant.key)
        capped = tenant.max_inflight is not None
        if capped and queue is not None and len(queue) >= self._tenant_queue:
            msg = (
                f"this key already has {self.held(tenant)} renders running and {len(queue)} "
                "waiting; wait for one to finish"
            )
            raise TenantBusyError(msg, retry_after=1.0)
        if self.waiting >= self._max_queue or (
            backlog is not None and backlog.waiting >= group.queue_cap(self._max_queue)
        ):
            msg = "all browser slots are busy and the queue is full; retry shortly"
            raise BrowserBusyError(msg, retry_after=1.0)
        waiter = _Waiter(tenant, asyncio.get_running_loop().create_future())
        if backlog is None:
            backlog = self._backlogs[group.name] = _Backlog()
            self._finish[group.name] = max(self._finish.get(group.name, 0.0), self._clock)
        backlog.tenants.setdefault(tenant.key, collections.deque()).append(waiter)
        backlog.waiting += 1
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
        if self._class_held[tenant.group.name] >= tenant.group.slot_cap(self._slots):
            return False
        cap = tenant.max_inflight
        return cap is None or self._held[tenant.key] < cap

    def _grant(self, tenant: Tenant) -> Lease:
        self._busy += 1
        self._held[tenant.key] += 1
        self._class_held[tenant.group.name] += 1
        return Lease(self, tenant)

    def _unqueue(self, waiter: _Waiter) -> None:
        name = waiter.tenant.group.name
        backlog = self._backlogs.get(name)
        if backlog is None:
            return
        queue = backlog.tenants.get(waiter.tenant.key)
        if queue is None:
            return
        if waiter in queue:
            queue.remove(waiter)
            backlog.waiting -= 1
        if not queue:
            del backlog.tenants[waiter.tenant.key]
        if not backlog.tenants:
            del self._backlogs[name]

    def _free(self, tenant: Tenant) -> None:
        self._busy -= 1
        for counter, name in ((self._held, tenant.key), (self._class_held, tenant.group.name)):
            counter[name] -= 1
            if counter[name] == 0:
                del counter[name]
        self._dispatch()

    def _dispatch(self) -> None:
        """Hand free slots to waiting classes by virtual finish time, then to their tenants
        in rotation, skipping classes at their share and tenants at their cap."""
        while self._busy < self._slots and self._backlogs:
            chosen = self._choose()
            if chosen is None:
                return
            name, key = chosen
            backlog = self._backlogs[name]
            queue = backlog.tenants.pop(key)
            waiter = queue.popleft()
            backlog.waiting -= 1
            if queue:  # served: this tenant goes to the back of its class's rotation
                backlog.tenants[key] = queue
            if not backlog.tenants:
                del self._backlogs[name]
            # Self-clocked: the virtual time is the finish time of the last grant.
            self._clock = self._finish[name] = self._finish[name] + 1 / waiter.tenant.group.weight
            waiter.future.set_result(self._grant(waiter.tenant))

    def _choose(self) -> tuple[str, str] | None:
        """The class and tenant served next, or None when every waiter must keep waiting."""
        best: tuple[float, str, str] | None = None
        for name in list(self._backlogs):
            backlog = self._backlogs[name]
            key = self._first_grantable(name, backlog)
            if key is None:
                continue
            finish = self._finish[name] + 1 / backlog.tenants[key][0].tenant.group.weight
            if best is None or finish < best[0]:
                best = (finish, name, key)
        return None if best is None else (best[1], best[2])

    def _first_grantable(self, name: str, backlog: _Backlog) -> str | None:
        for key in list(backlog.tenants):
            queue = backlog.tenants[key]
            while queue and queue[0].future.done():
                queue.popleft()  # its caller gave up (cancelled) and is unqueueing
                backlog.waiting -= 1
            if not queue:
                del backlog.tenants[key]
                continue
            if self._grantable(queue[0].tenant):
                return key
        if not backlog.tenants:
            del self._backlogs[name]
        return None
