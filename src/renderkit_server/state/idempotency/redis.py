"""An :class:`~renderkit_server.state.idempotency.base.IdempotencyStore` on Redis, shared by
every replica.

Each entry is one hash, ``<prefix>:e:<lineage>:<key>`` (fingerprint, token, lease end,
then the answer), expiring by itself after the entry's ``ttl``; each lineage has a sorted
set ``<prefix>:l:<lineage>`` of its entry keys by claim time, which bounds the lineage.
Every step is one script, so two replicas claiming one key at once cannot both start, and
times are Redis's own clock, which every replica shares.
"""

from __future__ import annotations

import math
import uuid

import redis.asyncio

from renderkit_server.state._redis import redis_errors
from renderkit_server.state.idempotency.base import (
    DEFAULT_MAX_PER_LINEAGE,
    Claim,
    StoredAnswer,
    decode_headers,
    encode_headers,
)

__all__ = ["RedisIdempotencyStore"]

_WHAT = "idempotency store"

# KEYS[1] entry, KEYS[2] the lineage's set; ARGV fingerprint, token, lease ms, ttl ms,
# max entries, the entry key (the set's member), the prefix of the lineage's entries.
_CLAIM = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local cur = redis.call('HMGET', KEYS[1], 'fp', 'lease', 'status', 'headers', 'body')
if cur[1] then
    if cur[3] or tonumber(cur[2]) > now then
        if cur[1] ~= ARGV[1] then return {'conflict'} end
        if not cur[3] then return {'in_progress'} end
        return {'replay', cur[3], cur[4], cur[5]}
    end
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'fp', ARGV[1], 'token', ARGV[2], 'lease', now + tonumber(ARGV[3]))
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('ZADD', KEYS[2], now, ARGV[6])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[4]))
local extra = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[5])
if extra > 0 then
    for _, member in ipairs(redis.call('ZRANGE', KEYS[2], 0, extra - 1)) do
        redis.call('DEL', ARGV[7] .. member)
        redis.call('ZREM', KEYS[2], member)
    end
end
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return {'started'}
"""

# Every step on a running entry starts here: stop unless ARGV[1], the token, holds it.
_HELD = """
local held = redis.call('HGET', KEYS[1], 'token') == ARGV[1]
if not held or redis.call('HEXISTS', KEYS[1], 'status') == 1 then
    return 0
end
"""

# KEYS[1] entry; ARGV token, lease ms. Extend a running entry the token holds.
_RENEW = (
    _HELD
    + """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[1], 'lease', now + tonumber(ARGV[2]))
return 1
"""
)

# KEYS[1] entry; ARGV token, status, headers, body. The entry keeps its expiry.
_COMPLETE = (
    _HELD
    + """
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'headers', ARGV[3], 'body', ARGV[4])
return 1
"""
)

# KEYS[1] entry, KEYS[2] the lineage's set; ARGV token, member.
_RELEASE = (
    _HELD
    + """
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[2])
return 1
"""
)


def _millis(seconds: float) -> int:
    return max(math.ceil(seconds * 1000), 1)


class RedisIdempotencyStore:
    """Entries as expiring Redis hashes.

    Args:
        client: the Redis client; left open by :meth:`aclose` (its owner closes it).
        prefix: namespace of the keys.
        max_per_lineage: entries one lineage keeps; claiming more forgets the oldest.
    """

    def __init__(
        self,
        client: redis.asyncio.Redis,
        *,
        prefix: str = "renderkit:idem",
        max_per_lineage: int = DEFAULT_MAX_PER_LINEAGE,
    ) -> None:
        self._prefix = prefix
        self._max = max_per_lineage
        self._claim = client.register_script(_CLAIM)
        self._renew = client.register_script(_RENEW)
        self._complete = client.register_script(_COMPLETE)
        self._release = client.register_script(_RELEASE)

    def __repr__(self) -> str:
        return f"RedisIdempotencyStore(prefix={self._prefix!r})"

    async def claim(
        self, lineage: str, key: str, fingerprint: str, *, lease: float, ttl: float
    ) -> Claim:
        """See :meth:`IdempotencyStore.claim`."""
        token = uuid.uuid4().hex
        with redis_errors(_WHAT):
            found = await self._claim(
                keys=[self._entry(lineage, key), self._lineage(lineage)],
                args=[
                    fingerprint,
                    token,
                    _millis(lease),
                    _millis(ttl),
                    self._max,
                    key,
                    f"{self._prefix}:e:{lineage}:",
                ],
            )
        outcome = found[0].decode() if isinstance(found[0], bytes) else str(found[0])
        if outcome == "started":
            return Claim(outcome="started", token=token)
        if outcome == "replay":
            status, headers, body = found[1], found[2], found[3]
            answer = StoredAnswer(
                status=int(status), headers=decode_headers(headers), body=bytes(body)
            )
            return Claim(outcome="replay", answer=answer)
        return Claim(outcome="conflict" if outcome == "conflict" else "in_progress")

    async def renew(self, lineage: str, key: str, token: str, lease: float) -> bool:
        """See :meth:`IdempotencyStore.renew`."""
        with redis_errors(_WHAT):
            done = await self._renew(keys=[self._entry(lineage, key)], args=[token, _millis(lease)])
        return bool(done)

    async def complete(self, lineage: str, key: str, token: str, answer: StoredAnswer) -> bool:
        """See :meth:`IdempotencyStore.complete`."""
        with redis_errors(_WHAT):
            done = await self._complete(
                keys=[self._entry(lineage, key)],
                args=[token, answer.status, encode_headers(answer.headers), answer.body],
            )
        return bool(done)

    async def release(self, lineage: str, key: str, token: str) -> None:
        """See :meth:`IdempotencyStore.release`."""
        with redis_errors(_WHAT):
            await self._release(
                keys=[self._entry(lineage, key), self._lineage(lineage)], args=[token, key]
            )

    async def aclose(self) -> None:
        """Nothing of its own to close: the client belongs to the caller."""

    def _entry(self, lineage: str, key: str) -> str:
        return f"{self._prefix}:e:{lineage}:{key}"

    def _lineage(self, lineage: str) -> str:
        return f"{self._prefix}:l:{lineage}"
