"""The render cache's index in this instance only (tests, development)."""

from __future__ import annotations

import time
from collections.abc import Callable

from renderkit_server.state.render_cache.base import CachedEntry

__all__ = ["MemoryRenderCache"]


class MemoryRenderCache:
    """Keeps entries in this instance only (tests, development).

    Args:
        clock: Unix seconds; injectable so tests can expire entries.
    """

    def __init__(self, *, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._entries: dict[str, tuple[float, CachedEntry]] = {}

    async def get(self, key: str) -> CachedEntry | None:
        """See :meth:`RenderCache.get`."""
        found = self._entries.get(key)
        if found is None or found[0] <= self._clock():
            return None
        return found[1]

    async def put(self, key: str, entry: CachedEntry, ttl: int) -> None:
        """See :meth:`RenderCache.put`."""
        now = self._clock()
        # Drop expired entries as new ones come, so the dictionary does not grow for ever.
        for stale in [k for k, (expires, _) in self._entries.items() if expires <= now]:
            del self._entries[stale]
        self._entries[key] = (now + ttl, entry)

    async def aclose(self) -> None:
        """Nothing to release."""
