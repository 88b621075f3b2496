"""A :class:`~renderkit_server.state.usage.base.UsageStore` in process memory."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from typing import TypeVar

import attrs

from renderkit_server.state.usage.base import (
    Lease,
    Reservation,
    check_amount,
    check_lease_seconds,
    check_limit,
    check_open,
    check_window,
)

__all__ = ["MemoryUsageStore"]

_K = TypeVar("_K", bound=Hashable)


class MemoryUsageStore:
    """Counters in dicts owned by the instance: for tests and single-process servers.

    Each instance starts empty and shares nothing. Counters are lost when the process ends,
    and every replica counts on its own, so use SQLite or Redis for more than one process.

    Args:
        clock: Unix seconds now, which lease expiries are measured by; injected by tests.
    """

    def __init__(self, *, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._leases: dict[str, Lease] = {}
        self._monthly: dict[tuple[str, str, str], int] = {}
        self._windows: dict[tuple[str, int, int], int] = {}
        #: (key_id, metric, period, once) of the idempotent charges made.
        self._charged: set[tuple[str, str, str, str]] = set()
        self._swept_before = 0
        # Never held across an await, so it costs nothing on the event loop, and it keeps
        # the store exact if it is also used from worker threads.
        self._lock = threading.Lock()
        self._closed = False

    def __repr__(self) -> str:
        return f"MemoryUsageStore(<{len(self._monthly)} counters>)"

    async def reserve(
        self, key_id: str, metric: str, period: str, amount: int, limit: int | None
    ) -> Reservation:
        """Add ``amount`` to a monthly counter unless that would exceed ``limit``."""
        check_amount(amount)
        check_limit(limit)
        check_open(self._closed, "memory")
        with self._lock:
            return _add(self._monthly, (key_id, metric, period), amount, limit)

    async def release(self, key_id: str, metric: str, period: str, amount: int) -> None:
        """Subtract ``amount`` from a monthly counter, stopping at zero."""
        check_amount(amount)
        check_open(self._closed, "memory")
        with self._lock:
            counter = (key_id, metric, period)
            if counter in self._monthly:
                self._monthly[counter] = max(self._monthly[counter] - amount, 0)

    async def usage(self, key_id: str, period: str) -> dict[str, int]:
        """Return ``{metric: used}`` for one key and period; zero counters are left out."""
        check_open(self._closed, "memory")
        with self._lock:
            return {
                metric: used
                for (k, metric, p), used in self._monthly.items()
                if k == key_id and p == period and used > 0
            }

    async def lease(
        self, key_id: str, metric: str, period: str, amount: int, limit: int | None, seconds: float
    ) -> Reservation:
        """Hold ``amount`` unless committed usage plus live leases would exceed ``limit``."""
        check_amount(amount)
        check_limit(limit)
        check_lease_seconds(seconds)
        check_open(self._closed, "memory")
        with self._lock:
            now = self._sweep()
            used = self._monthly.get((key_id, metric, period), 0) + sum(
                lease.amount
                for lease in self._leases.values()
                if (lease.key_id, lease.metric, lease.period) == (key_id, metric, period)
            )
            if limit is not None and used + amount > limit:
                return Reservation(allowed=False, used=used, limit=limit)
            lease = Lease(
                key_id=key_id,
                metric=metric,
                period=period,
                amount=amount,
                expires_at=now + seconds,
            )
            self._leases[lease.id] = lease
            return Reservation(allowed=True, used=used + amount, limit=limit, lease=lease)

    async def commit(self, lease: Lease, *, once: str | None = None) -> bool:
        """Charge ``lease.amount`` and forget the lease (nothing charged for a ``once``
        already charged)."""
        check_amount(lease.amount)
        check_open(self._closed, "memory")
        with self._lock:
            self._leases.pop(lease.id, None)
            counter = (lease.key_id, lease.metric, lease.period)
            if once is not None:
                if (*counter, once) in self._charged:
                    return False
                self._charged.add((*counter, once))
            self._monthly[counter] = self._monthly.get(counter, 0) + lease.amount
            return True

    async def drop(self, lease: Lease) -> None:
        """Forget a lease without charging it."""
        check_open(self._closed, "memory")
        with self._lock:
            self._leases.pop(lease.id, None)

    async def renew(self, lease: Lease, seconds: float) -> Lease | None:
        """Move a live lease's expiry to ``seconds`` from now; ``None`` if it is gone."""
        check_lease_seconds(seconds)
        check_open(self._closed, "memory")
        with self._lock:
            now = self._sweep()
            if lease.id not in self._leases:
                return None
            renewed = attrs.evolve(self._leases[lease.id], expires_at=now + seconds)
            self._leases[lease.id] = renewed
            return attrs.evolve(lease, expires_at=renewed.expires_at)

    async def in_flight(self, key_id: str, period: str) -> dict[str, int]:
        """Return ``{metric: held}`` over the live leases of one key and period."""
        check_open(self._closed, "memory")
        held: dict[str, int] = {}
        with self._lock:
            self._sweep()
            for lease in self._leases.values():
                if lease.key_id == key_id and lease.period == period and lease.amount:
                    held[lease.metric] = held.get(lease.metric, 0) + lease.amount
        return held

    async def export(self, period: str) -> dict[str, dict[str, int]]:
        """Return ``{key_id: {metric: used}}`` of every key with committed usage."""
        check_open(self._closed, "memory")
        result: dict[str, dict[str, int]] = {}
        with self._lock:
            for (key_id, metric, p), used in self._monthly.items():
                if p == period and used > 0:
                    result.setdefault(key_id, {})[metric] = used
        return result

    def _sweep(self) -> float:
        """Forget expired leases (the lock is held); return the time they were judged by."""
        now = self._clock()
        for lease_id in [i for i, lease in self._leases.items() if lease.expires_at <= now]:
            del self._leases[lease_id]
        return now

    async def hit(
        self, key_id: str, window_start: int, window_seconds: int, limit: int | None
    ) -> Reservation:
        """Count one request in a fixed window unless the window is full."""
        check_window(window_start, window_seconds)
        check_limit(limit)
        check_open(self._closed, "memory")
        with self._lock:
            if window_start > self._swept_before:
                # Sweep at most once per new window; windows that ended before this one
                # started can never be hit again by a caller with a sane clock.
                self._windows = {
                    w: n for w, n in self._windows.items() if w[1] + w[2] > window_start
                }
                self._swept_before = window_start
            return _add(self._windows, (key_id, window_start, window_seconds), 1, limit)

    async def ping(self) -> None:
        """Raise :class:`renderkit.StorageUnavailableError` once the store is closed."""
        check_open(self._closed, "memory")

    async def aclose(self) -> None:
        """Mark the store closed; later calls raise ``StorageUnavailableError``."""
        self._closed = True


def _add(counters: dict[_K, int], counter: _K, amount: int, limit: int | None) -> Reservation:
    used = counters.get(counter, 0)
    if limit is not None and used + amount > limit:
        return Reservation(allowed=False, used=used, limit=limit)
    counters[counter] = used + amount
    return Reservation(allowed=True, used=used + amount, limit=limit)
