"""Idempotency-Key entries: the first answer to a keyed POST, replayed to its retries.

* :mod:`.base`: :class:`IdempotencyStore`, the protocol, and what it keeps
  (:class:`StoredAnswer`, :class:`Claim`);
* :mod:`.memory`: :class:`MemoryIdempotencyStore`, one process (the test fake);
* :mod:`.sqlite`: :class:`SqliteIdempotencyStore`, the processes of one host;
* :mod:`.redis`: ``RedisIdempotencyStore`` (one hash per entry and one sorted set per key
  lineage, changed by scripts), every replica. Import it from its module: it needs the
  optional ``redis`` package.

The HTTP side (the header, the fingerprint, what is stored) is
:mod:`renderkit_server.idempotency`.
"""

from __future__ import annotations

from renderkit_server.state.idempotency.base import (
    Claim,
    IdempotencyStore,
    Outcome,
    StoredAnswer,
)
from renderkit_server.state.idempotency.memory import MemoryIdempotencyStore
from renderkit_server.state.idempotency.sqlite import SqliteIdempotencyStore

__all__ = [
    "Claim",
    "IdempotencyStore",
    "MemoryIdempotencyStore",
    "Outcome",
    "SqliteIdempotencyStore",
    "StoredAnswer",
]
