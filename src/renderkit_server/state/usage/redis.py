"""A :class:`~renderkit_server.state.usage.base.UsageStore` on Redis, shared by every
replica.

Each check-and-increment is one Lua script, which Redis runs atomically; scripts are
registered once per store and called by SHA (redis-py reloads them after a server restart).

Key layout, all under ``renderkit:usage:`` (the prefix is configurable):

* ``renderkit:usage:monthly:<period>:<key_id>``: a hash of ``metric -> used``. Every write
  sets the key to expire ``retention`` later (64 days by default), so a period's counters
  outlive the period by at least a month and then disappear on their own.
* ``renderkit:usage:burst:<window_seconds>:<window_start>:<key_id>``: a counter that expires
  two window lengths after its first hit. The TTL is relative, so it is correct even when
  the caller's clock (or an injected test clock) disagrees with the Redis server's.
* ``renderkit:usage:leases:<period>:<key_id>``: a sorted set of the key's lease ids by
  expiry (milliseconds, by the Redis server's clock, read with ``TIME`` inside the scripts
  so replicas with skewed clocks agree), and ``...:lease-amounts:<period>:<key_id>``, a hash
  of ``lease id -> "<amount> <metric>"``. Every script touching them first deletes the
  leases whose expiry has passed, so a lease of a process that died stops counting without
  any sweeper; both keys expire with the retention too.
* ``renderkit:usage:charged:<period>:<key_id>``: a set of ``"<metric> <once>"``, the
  idempotent charges made (a job's id), written by the commit script with the charge.
"""

from __future__ import annotations

import contextlib
import datetime
import math
import uuid
from collections.abc import Iterator
from typing import Any

import attrs
import redis.asyncio
import redis.exceptions

from renderkit import ConfigurationError
from renderkit_server.state._redis import connect, raise_pending_cancellation
from renderkit_server.state.usage.base import (
    Lease,
    Reservation,
    check_amount,
    check_lease_seconds,
    check_limit,
    check_open,
    check_window,
    store_failure,
)

__all__ = ["RedisUsageStore"]

# KEYS[1] hash; ARGV: field, amount, limit ('' = unlimited), ttl seconds.
_RESERVE = """
local used = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
local amount = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
if limit ~= nil and used + amount > limit then
    return {0, used}
end
used = redis.call('HINCRBY', KEYS[1], ARGV[1], amount)
redis.call('EXPIRE', KEYS[1], ARGV[4])
return {1, used}
"""

# KEYS[1] hash; ARGV: field, amount. Never creates a counter, never goes below zero.
_RELEASE = """
local used = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if used <= 0 then
    return 0
end
local left = used - tonumber(ARGV[2])
if left < 0 then
    left = 0
end
redis.call('HSET', KEYS[1], ARGV[1], left)
return left
"""

# Shared head of the lease scripts: the server's time in ms, and a sweep of the expired
# leases of KEYS[2] (expiries) / KEYS[3] (amounts).
_LEASES_HEAD = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local dead = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)
for _, id in ipairs(dead) do
    redis.call('HDEL', KEYS[3], id)
end
if #dead > 0 then
    redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
end
"""

# KEYS monthly hash, expiries, amounts; ARGV: metric, amount, limit ('' = unlimited),
# ttl seconds, lease ms, lease id. Returns {allowed, used, expires_at ms}.
_LEASE = (
    _LEASES_HEAD
    + """
local used = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
for _, held in ipairs(redis.call('HVALS', KEYS[3])) do
    local sep = string.find(held, ' ', 1, true)
    if string.sub(held, sep + 1) == ARGV[1] then
        used = used + tonumber(string.sub(held, 1, sep - 1))
    end
end
local amount = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
if limit ~= nil and used + amount > limit then
    return {0, used, 0}
end
local expires = now + tonumber(ARGV[5])
redis.call('ZADD', KEYS[2], expires, ARGV[6])
redis.call('HSET', KEYS[3], ARGV[6], ARGV[2] .. ' ' .. ARGV[1])
redis.call('EXPIRE', KEYS[2], ARGV[4])
redis.call('EXPIRE', KEYS[3], ARGV[4])
return {1, used + amount, expires}
"""
)

# KEYS monthly hash, expiries, amounts, charged set; ARGV: metric, amount, ttl seconds,
# lease id, once ('' = not idempotent). Returns 1 when charged, 0 for a repeated once.
_COMMIT = """
redis.call('ZREM', KEYS[2], ARGV[4])
redis.call('HDEL', KEYS[3], ARGV[4])
if ARGV[5] ~= '' then
    if redis.call('SADD', KEYS[4], ARGV[1] .. ' ' .. ARGV[5]) == 0 then
        return 0
    end
    redis.call('EXPIRE', KEYS[4], ARGV[3])
end
redis.call('HINCRBY', KEYS[1], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1
"""

# KEYS monthly hash (unused), expiries, amounts; ARGV: lease id, lease ms.
_RENEW = (
    _LEASES_HEAD
    + """
if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then
    return 0
end
local expires = now + tonumber(ARGV[2])
redis.call('ZADD', KEYS[2], 'XX', expires, ARGV[1])
return expires
"""
)

# KEYS monthly hash (unused), expiries, amounts. Returns the live "<amount> <metric>" values.
_IN_FLIGHT = _LEASES_HEAD + "return redis.call('HVALS', KEYS[3])"

# KEYS[1] counter; ARGV: limit ('' = unlimited), ttl seconds.
_HIT = """
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local limit = tonumber(ARGV[1])
if limit ~= nil and used + 1 > limit then
    return {0, used}
end
used = redis.call('INCR', KEYS[1])
if used == 1 then
    redis.call('EXPIRE', KEYS[1], ARGV[2])
end
return {1, used}
"""


class RedisUsageStore:
    """Counters in Redis (or a compatible server such as Valkey), exact across replicas.

    Args:
        client: a ``redis://``/``rediss://``/``unix://`` URL, or an existing
            ``redis.asyncio.Redis`` client. A client made from a URL is owned and closed by
            :meth:`aclose`; a client passed in is left open.
        prefix: namespace of every key the store writes.
        retention: how long a monthly hash lives after its last write; keep it longer
            than the longest period (31 days).
        timeout: socket connect and read timeout, in seconds, for a client made from a URL.

    Raises:
        ConfigurationError: the URL is malformed or ``retention`` is too short.
    """

    def __init__(
        self,
        client: str | redis.asyncio.Redis,
        *,
        prefix: str = "renderkit:usage",
        retention: datetime.timedelta = datetime.timedelta(days=64),
        timeout: float = 5.0,
    ) -> None:
        if retention < datetime.timedelta(days=32):
            msg = "retention must be at least 32 days, longer than any monthly period"
            raise ConfigurationError(msg)
        if isinstance(client, str):
            client = connect(client, timeout=timeout)
            self._owns_client = True
        else:
            self._owns_client = False
        self._client = client
        self._prefix = prefix
        self._retention = int(retention.total_seconds())
        self._reserve = client.register_script(_RESERVE)
        self._release = client.register_script(_RELEASE)
        self._hit = client.register_script(_HIT)
        self._lease = client.register_script(_LEASE)
        self._commit = client.register_script(_COMMIT)
        self._renew = client.register_script(_RENEW)
        self._in_flight = client.register_script(_IN_FLIGHT)
        self._closed = False

    def __repr__(self) -> str:
        return f"RedisUsageStore(prefix={self._prefix!r})"

    def _monthly_key(self, key_id: str, period: str) -> str:
        return f"{self._prefix}:monthly:{period}:{key_id}"

    def _lease_keys(self, key_id: str, period: str) -> list[str]:
        return [
            self._monthly_key(key_id, period),
            f"{self._prefix}:leases:{period}:{key_id}",
            f"{self._prefix}:lease-amounts:{period}:{key_id}",
        ]

    async def reserve(
        self, key_id: str, metric: str, period: str, amount: int, limit: int | None
    ) -> Reservation:
        """Add ``amount`` to a monthly counter unless that would exceed ``limit``.

        Raises:
            StorageUnavailableError: Redis cannot be reached or failed, or the store is
                closed.
        """
        check_amount(amount)
        check_limit(limit)
        args: list[str | int] = [metric, amount, _limit_arg(limit), self._retention]
        with self._errors():
            allowed, used = await self._reserve(keys=[self._monthly_key(key_id, period)], args=args)
        return Reservation(allowed=bool(allowed), used=int(used), limit=limit)

    async def release(self, key_id: str, metric: str, period: str, amount: int) -> None:
        """Subtract ``amount`` from a monthly counter, stopping at zero.

        Raises:
            StorageUnavailableError: Redis cannot be reached or failed, or the store is
                closed.
        """
        check_amount(amount)
        with self._errors():
            await self._release(keys=[self._monthly_key(key_id, period)], args=[metric, amount])

    async def usage(self, key_id: str, period: str) -> dict[str, int]:
        """Return ``{metric: used}`` for one key and period; zero counters are left out.

        Raises:
            StorageUnavailableError: Redis cannot be reached or failed, or the store is
                closed.
        """
        with self._errors():
            raw: dict[Any, Any] = await self._client.hgetall(self._monthly_key(key_id, period))
        result = {_text(metric): int(used) for metric, used in raw.items()}
        return {metric: used for metric, used in result.items() if used > 0}

    async def lease(
        self, key_id: str, metric: str, period: str, amount: int, limit: int | None, seconds: float
    ) -> Reservation:
        """Hold ``amount`` unless committed usage plus live leases would exceed ``limit``.

        Raises:
            StorageUnavailableError: Redis cannot be reached or failed, or the store is
                closed.
        """
        check_amount(amount)
        check_limit(limit)
        check_lease_seconds(seconds)
        lease_id = uuid.uuid4().hex
        args: list[str | int] = [
            metric,
            amount,
            _limit_arg(limit),
            self._retention,
            _millis(seconds),
            lease_id,
        ]
        with self._errors():
            allowed, used, expires = await self._lease(
                keys=self._lease_keys(key_id, period), args=args
            )
        if not allowed:
            return Reservation(allowed=False, used=int(used), limit=limit)
        lease = Lease(
            id=lease_id,
            key_id=key_id,
            metric=metric,
            period=period,
            amount=amount,
            expires_at=int(expires) / 1000,
        )
        return Reservation(allowed=True, used=int(used), limit=limit, lease=lease)

    async def commit(self, lease: Lease, *, once: str | None = None) -> bool:
        """Charge ``lease.amount`` and delete the lease, in one script; with ``once``, the
        charge is recorded (``...:charged:<period>:<key_id>``, a set expiring with the
        counters) in the same script and made only the first time.

        Raises:
            StorageUnavailableError: Redis cannot be reached or failed, or the store is
                closed.
        """
        check_amount(lease.amount)
        args: list[str | int] = [
            lease.metric,
            lease.amount,
            self._retention,
            lease.id,
            once or "",
        ]
        keys = [
            *self._lease_keys(lease.key_id, lease.period),
            f"{self._prefix}:charged:{lease.period}:{lease.key_id}",
        ]
        with self._errors():
            charged = await self._commit(keys=keys, args=args)
        return bool(int(charged))

    async def drop(self, lease: Lease) -> None:
        """Delete a lease without charging it.

        Raises:
            StorageUnavailableError: Redis cannot be reached or failed, or the store is
                closed.
        """
        _, expiries, amounts = self._lease_keys(lease.key_id, lease.period)
        with self._errors():
            async with self._client.pipeline(transaction=True) as pipe:
                pipe.zrem(expiries, lease.id)
                pipe.hdel(amounts, lease.id)
                await pipe.execute()

    async def renew(self, lease: Lease, seconds: float) -> Lease | None:
        """Move a live lease's expiry to ``seconds`` from now; ``None`` if it is gone.

        Raises:
            StorageUnavailableError: Redis cannot be reached or failed, or the store is
                closed.
        """
        check_lease_seconds(seconds)
        keys = self._lease_keys(lease.key_id, lease.period)
        with self._errors():
            expires = await self._renew(keys=keys, args=[lease.id, _millis(seconds)])
        if not expires:
            return None
        return attrs.evolve(lease, expires_at=int(expires) / 1000)

    async def in_flight(self, key_id: str, period: str) -> dict[str, int]:
        """Return ``{metric: held}`` over the live leases of one key and period.

        Raises:
            StorageUnavailableError: Redis cannot be reached or failed, or the store is
                closed.
        """
        with self._errors():
            values = await self._in_flight(keys=self._lease_keys(key_id, period), args=[])
        held: dict[str, int] = {}
        for value in values:
            amount, _, metric = _text(value).partition(" ")
            held[metric] = held.get(metric, 0) + int(amount)
        return {metric: amount for metric, amount in held.items() if amount > 0}

    async def export(self, period: str) -> dict[str, dict[str, int]]:
        """Return ``{key_id: {metric: used}}`` of every key with committed usage.

        Walks the period's hashes with ``SCAN``, so it does not block Redis.

        Raises:
            StorageUnavailableError: Redis cannot be reached or failed, or the store is
                closed.
        """
        head = self._monthly_key("", period)
        result: dict[str, dict[str, int]] = {}
        with self._errors():
            async for name in self._client.scan_iter(match=_glob_escape(head) + "*", count=500):
                raw: dict[Any, Any] = await self._client.hgetall(name)
                used = {_text(m): int(n) for m, n in raw.items() if int(n) > 0}
                if used:
                    result[_text(name).removeprefix(head)] = used
        return result

    async def hit(
        self, key_id: str, window_start: int, window_seconds: int, limit: int | None
    ) -> Reservation:
        """Count one request in a fixed window unless the window is full.

        Raises:
            StorageUnavailableError: Redis cannot be reached or failed, or the store is
                closed.
        """
        check_window(window_start, window_seconds)
        check_limit(limit)
        key = f"{self._prefix}:burst:{window_seconds}:{window_start}:{key_id}"
        args: list[str | int] = [_limit_arg(limit), 2 * window_seconds]
        with self._errors():
            allowed, used = await self._hit(keys=[key], args=args)
        return Reservation(allowed=bool(allowed), used=int(used), limit=limit)

    async def ping(self) -> None:
        """Send ``PING``.

        Raises:
            StorageUnavailableError: Redis cannot be reached or the store is closed.
        """
        with self._errors():
            await self._client.ping()

    async def aclose(self) -> None:
        """Close the client if the store made it; later calls raise an error."""
        if self._closed:
            return
        self._closed = True
        if self._owns_client:
            await self._client.aclose()

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        check_open(self._closed, "redis")
        try:
            yield
        except redis.exceptions.RedisError as exc:
            # redis-py messages can name the host and port; the class name is enough here
            # and can never leak the URL's password.
            raise store_failure("redis", type(exc).__name__) from exc
        # A request waiting for an in-flight slot polls this store; a cancellation redis-py
        # swallowed would keep it polling after its client left or the server stopped.
        raise_pending_cancellation()


def _limit_arg(limit: int | None) -> str | int:
    # The scripts read an empty string as "unlimited" (tonumber('') is nil in Lua).
    return "" if limit is None else limit


def _millis(seconds: float) -> int:
    return max(math.ceil(seconds * 1000), 1)


def _glob_escape(text: str) -> str:
    # SCAN MATCH is a glob: a period or prefix holding * ? [ ] or \ must match literally.
    return "".join(f"\\{c}" if c in "*?[]\\" else c for c in text)


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value
