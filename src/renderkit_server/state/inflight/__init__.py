"""Per-key in-flight render caps over every replica: one protocol, two backends.

:mod:`.base` (:class:`InflightLimiter`), :mod:`.memory` (one process: the pool's own
scheduler caps), ``RedisInflightLimiter`` in :mod:`.redis` (it needs ``redis``), and
:mod:`.limited`, the browser wrapper that holds a lease around each render.
"""

from __future__ import annotations

from renderkit_server.state.inflight.base import InflightLimiter
from renderkit_server.state.inflight.limited import LimitedBrowser
from renderkit_server.state.inflight.memory import LocalInflightLimiter

__all__ = ["InflightLimiter", "LimitedBrowser", "LocalInflightLimiter"]
