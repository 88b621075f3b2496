"""Ended MCP sessions of this process only."""

from __future__ import annotations

from collections import OrderedDict

__all__ = ["MemoryEndedSessions"]


class MemoryEndedSessions:
    """Ended sessions of this process only, the ``remember`` latest (oldest forgotten first)."""

    def __init__(self, *, remember: int = 10_000) -> None:
        self._ended: OrderedDict[str, None] = OrderedDict()
        self._remember = remember

    async def is_ended(self, session_id: str) -> bool:
        """See :meth:`EndedSessions.is_ended`."""
        return session_id in self._ended

    async def end(self, session_id: str) -> bool:
        """See :meth:`EndedSessions.end`."""
        if session_id in self._ended:
            return False
        self._ended[session_id] = None
        while len(self._ended) > self._remember:
            self._ended.popitem(last=False)
        return True
