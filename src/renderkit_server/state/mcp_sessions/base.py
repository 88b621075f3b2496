"""Ended MCP sessions: which signed session ids were ended (DELETE), so they answer 404.

Session ids carry no expiry, so an ended id is remembered for a bounded time or number:
:mod:`.memory` keeps the latest 10,000 of one process, :mod:`.redis` each one for
:data:`REMEMBER_ENDED_FOR` seconds, on every replica. Minting and checking ids is
:class:`renderkit_server.mcp.sessions.McpSessions`'s job.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

__all__ = ["REMEMBER_ENDED_FOR", "EndedSessions"]

#: Seconds a shared store remembers an ended session (30 days).
REMEMBER_ENDED_FOR = 30 * 24 * 3600


@runtime_checkable
class EndedSessions(Protocol):
    """Remembers which session ids were ended."""

    async def is_ended(self, session_id: str) -> bool:
        """Whether ``session_id`` was ended.

        Raises:
            StorageUnavailableError: the store could not be reached.
        """
        ...

    async def end(self, session_id: str) -> bool:
        """Mark ``session_id`` ended; False if it already was (atomic across replicas).

        Raises:
            StorageUnavailableError: the store could not be reached.
        """
        ...
