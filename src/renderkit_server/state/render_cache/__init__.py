"""The render cache: identical requests are answered with the file already stored.

* :mod:`.keys`: :func:`cache_key`, whose entry it is and what decides a render's output,
  hashed; :func:`scope`, whose it is;
* :mod:`.base`: the index protocol :class:`RenderCache` and its :class:`CachedEntry`;
* :mod:`.memory`, :mod:`.sqlite`; ``RedisRenderCache`` is imported from :mod:`.redis`
  (it needs ``redis``);
* :mod:`.lookup`: how an operation looks a request up and remembers what it rendered.
"""

from __future__ import annotations

from renderkit_server.state.render_cache.base import CachedEntry, RenderCache
from renderkit_server.state.render_cache.keys import (
    SHARED_SCOPE,
    cache_key,
    scope,
    template_version,
)
from renderkit_server.state.render_cache.memory import MemoryRenderCache
from renderkit_server.state.render_cache.sqlite import SqliteRenderCache

__all__ = [
    "SHARED_SCOPE",
    "CachedEntry",
    "MemoryRenderCache",
    "RenderCache",
    "SqliteRenderCache",
    "cache_key",
    "scope",
    "template_version",
]
