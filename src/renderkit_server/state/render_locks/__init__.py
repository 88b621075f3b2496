"""Short exclusive locks by name, so one replica does a piece of work while the others wait.

Used by signed image URLs: the first of many simultaneous first views renders (and is
charged), the rest wait for the stored image.

* :mod:`.base`: :class:`RenderLocks`, the protocol;
* :mod:`.memory`: :class:`MemoryRenderLocks`, one process (an asyncio event per lock);
* :mod:`.sqlite`: :class:`SqliteRenderLocks`, the processes of one host;
* :mod:`.redis`: ``RedisRenderLocks`` (``SET NX PX``), every replica. Import it from its
  module: it needs the optional ``redis`` package.
"""

from __future__ import annotations

from renderkit_server.state.render_locks.base import RenderLocks
from renderkit_server.state.render_locks.memory import MemoryRenderLocks
from renderkit_server.state.render_locks.sqlite import SqliteRenderLocks

__all__ = ["MemoryRenderLocks", "RenderLocks", "SqliteRenderLocks"]
