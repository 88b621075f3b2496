"""Per-key in-flight caps that hold across replicas.

The pool's fair scheduler caps a key's renders within one process. With several replicas a
key could hold its plan's ``browser_inflight`` on each of them, so with Redis configured every
browser render first takes a lease from a cross-replica limiter
(:mod:`.redis`) and then queues in the local pool as before. Without Redis,
:class:`~.memory.LocalInflightLimiter` grants everything: the local scheduler already caps
the only process there is. :mod:`.limited` wraps a browser so each render holds a lease.
"""

from __future__ import annotations

import contextlib
from typing import Protocol, runtime_checkable

__all__ = ["InflightLimiter"]


@runtime_checkable
class InflightLimiter(Protocol):
    """Grants leases so that a key holds at most ``cap`` at once over every replica."""

    def hold(self, key_id: str, cap: int | None) -> contextlib.AbstractAsyncContextManager[None]:
        """Hold one of ``key_id``'s ``cap`` leases for the body of the ``async with``.

        Waits for a lease to come free up to the limiter's queue timeout. ``cap`` None is
        uncapped (granted at once).

        Raises:
            TenantBusyError: no lease came free in time (429 TOO_MANY_IN_FLIGHT).
            StorageUnavailableError: the shared store could not be reached.
        """
        ...

    async def aclose(self) -> None:
        """Release resources; leases still held are released by their ``async with``."""
        ...
