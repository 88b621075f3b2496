"""A :class:`~renderkit_server.state.render_locks.base.RenderLocks` in one process."""

from __future__ import annotations

import asyncio
import time
import uuid

import attrs

from renderkit.core.waits import wait_set

__all__ = ["MemoryRenderLocks"]


@attrs.define
class _Held:
    token: str
    expires_at: float
    freed: asyncio.Event = attrs.Factory(asyncio.Event)


class MemoryRenderLocks:
    """Locks in a dict of the instance; waiters wake on an event as soon as a lock is freed.

    For one process (one event loop) only: other replicas or workers do not see them.
    """

    def __init__(self) -> None:
        self._held: dict[str, _Held] = {}

    async def acquire(self, name: str, seconds: float) -> str | None:
        """See :meth:`RenderLocks.acquire`."""
        now = time.monotonic()
        held = self._held.get(name)
        if held is not None and held.expires_at > now:
            return None
        if held is not None:
            held.freed.set()
        token = uuid.uuid4().hex
        self._held[name] = _Held(token=token, expires_at=now + seconds)
        return token

    async def release(self, name: str, token: str) -> None:
        """See :meth:`RenderLocks.release`."""
        held = self._held.get(name)
        if held is not None and held.token == token:
            del self._held[name]
            held.freed.set()

    async def wait(self, name: str, timeout: float) -> None:
        """See :meth:`RenderLocks.wait`."""
        held = self._held.get(name)
        if held is None:
            return
        # Never past the lock's own expiry: a holder that vanished frees it then.
        limit = min(timeout, held.expires_at - time.monotonic())
        if limit > 0:
            await wait_set(held.freed, limit)

    async def aclose(self) -> None:
        """Nothing to release."""
