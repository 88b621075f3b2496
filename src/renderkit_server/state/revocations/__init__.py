"""Key revocations: one protocol (and a feed of them), three backends.

:mod:`.base` (:class:`RevocationStore`, :class:`RevocationFeed`), :mod:`.memory`,
:mod:`.sqlite`; ``RedisRevocationStore`` is imported from :mod:`.redis` (it needs ``redis``).
"""

from __future__ import annotations

from renderkit_server.state.revocations.base import RevocationFeed, RevocationStore
from renderkit_server.state.revocations.memory import MemoryRevocationStore
from renderkit_server.state.revocations.sqlite import SqliteRevocationStore

__all__ = ["MemoryRevocationStore", "RevocationFeed", "RevocationStore", "SqliteRevocationStore"]
