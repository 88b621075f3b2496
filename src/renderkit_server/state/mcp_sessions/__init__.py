"""Ended MCP sessions: one protocol, two backends.

:mod:`.base` (:class:`EndedSessions`), :mod:`.memory`; ``RedisEndedSessions`` is imported
from :mod:`.redis` (it needs ``redis``).
"""

from __future__ import annotations

from renderkit_server.state.mcp_sessions.base import REMEMBER_ENDED_FOR, EndedSessions
from renderkit_server.state.mcp_sessions.memory import MemoryEndedSessions

__all__ = ["REMEMBER_ENDED_FOR", "EndedSessions", "MemoryEndedSessions"]
