"""Cheap, bounded, cached liveness probes for the public health check.

``GET /api/health`` is unauthenticated, so it must not become a way to load a backend: each
probe runs at most once per ``ttl`` however many health requests arrive (concurrent ones
share the run in flight), and a probe that hangs counts as failed after ``timeout``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

import attrs

from renderkit.storage import Storage

__all__ = ["CachedProbe", "storage_probe"]

logger = logging.getLogger("renderkit_server")

#: The object the storage probe rewrites; one fixed key, so probing never accumulates files.
PROBE_KEY = "health/probe.txt"


@attrs.define(kw_only=True)
class CachedProbe:
    """Runs ``check`` at most once per ``ttl`` seconds and remembers whether it passed.

    Attributes:
        check: raises on failure.
        ttl: seconds a result is reused.
        timeout: seconds after which a running check counts as failed.
        clock: monotonic seconds; injectable for tests.
    """

    check: Callable[[], Awaitable[None]]
    ttl: float = 5.0
    timeout: float = 2.0
    clock: Callable[[], float] = time.monotonic
    _checked_at: float | None = attrs.field(default=None, init=False)
    _ok: bool = attrs.field(default=True, init=False)
    _running: asyncio.Task[bool] | None = attrs.field(default=None, init=False)

    async def ok(self) -> bool:
        """Whether the last check (run now if the cached one is older than ``ttl``) passed."""
        if self._checked_at is not None and self.clock() - self._checked_at < self.ttl:
            return self._ok
        if self._running is None:
            self._running = asyncio.get_running_loop().create_task(self._run())
        running = self._running
        # shield: a health request that goes away must not cancel the run others await.
        return await asyncio.shield(running)

    async def _run(self) -> bool:
        try:
            async with asyncio.timeout(self.timeout):
                await self.check()
            ok = True
        except Exception as exc:  # any failure (or the timeout) is "down", reported not raised
            logger.warning("health probe failed: %s", type(exc).__name__)
            ok = False
        self._ok, self._checked_at, self._running = ok, self.clock(), None
        return ok

    async def aclose(self) -> None:
        """Cancel a check still running (at shutdown)."""
        if self._running is not None:
            self._running.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._running


def storage_probe(storage: Storage, *, ttl: float = 5.0, timeout: float = 2.0) -> CachedProbe:
    """A probe writing a two-byte object: it fails when storage is unreachable, read-only or full.

    Args:
        storage: the backend produced files go to.
        ttl: seconds a result is reused.
        timeout: seconds after which the write counts as failed.

    Returns:
        The probe.
    """

    async def check() -> None:
        await storage.put(PROBE_KEY, b"ok", content_type="text/plain")

    return CachedProbe(check=check, ttl=ttl, timeout=timeout)
