"""Usage counters (monthly quotas, burst windows, abuse limits): one protocol, three backends.

* :mod:`.base`: :class:`UsageStore`, :class:`Reservation`, :class:`Lease` (billing
  leases) and the checks every backend shares;
* :mod:`.memory`: :class:`MemoryUsageStore`, one process (tests, a single server);
* :mod:`.sqlite`: :class:`SqliteUsageStore`, the processes of one host sharing a file;
* :mod:`.redis`: ``RedisUsageStore``, many hosts. Import it from its module: it needs the
  optional ``redis`` package (``renderkit[redis]``).
"""

from __future__ import annotations

from renderkit_server.state.usage.base import Lease, Reservation, UsageStore
from renderkit_server.state.usage.memory import MemoryUsageStore
from renderkit_server.state.usage.sqlite import SqliteUsageStore

__all__ = ["Lease", "MemoryUsageStore", "Reservation", "SqliteUsageStore", "UsageStore"]
