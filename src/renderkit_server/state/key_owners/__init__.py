"""Key owners' e-mail addresses by key lineage: one protocol, three backends.

:mod:`.base` (:class:`KeyOwnerStore`), :mod:`.memory`, :mod:`.sqlite`;
``RedisKeyOwnerStore`` is imported from :mod:`.redis` (it needs ``redis``).
"""

from __future__ import annotations

from renderkit_server.state.key_owners.base import KeyOwnerStore
from renderkit_server.state.key_owners.memory import MemoryKeyOwnerStore
from renderkit_server.state.key_owners.sqlite import SqliteKeyOwnerStore

__all__ = ["KeyOwnerStore", "MemoryKeyOwnerStore", "SqliteKeyOwnerStore"]
