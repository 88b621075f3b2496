"""URL-signing secrets by public key id: one protocol, three backends.

:mod:`.base` (:class:`UrlSecretStore`, :class:`UrlSecret`), :mod:`.memory`, :mod:`.sqlite`;
``RedisUrlSecretStore`` is imported from :mod:`.redis` (it needs ``redis``).
"""

from __future__ import annotations

from renderkit_server.state.url_secrets.base import UrlSecret, UrlSecretStore
from renderkit_server.state.url_secrets.memory import MemoryUrlSecretStore
from renderkit_server.state.url_secrets.sqlite import SqliteUrlSecretStore

__all__ = ["MemoryUrlSecretStore", "SqliteUrlSecretStore", "UrlSecret", "UrlSecretStore"]
