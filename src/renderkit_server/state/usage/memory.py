"""A :class:`~renderkit_server.state.usage.base.UsageStore` in process memory."""

from __future__ import annotations

import threading
from collections.abc import Hashable
from typing import TypeVar

from renderkit_server.state.usage.base import (
    Reservation,
    check_amount,
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
    """

    def __init__(self) -> None:
        self._monthly: dict[tuple[str, str, str], int] = {}
        self._windows: dict[tuple[str, int, int], int] = {}
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
