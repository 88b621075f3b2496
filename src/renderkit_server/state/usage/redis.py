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
"""

from __future__ import annotations

import contextlib
import datetime
from collections.abc import Iterator
from typing import Any

import redis.asyncio
import redis.exceptions

from renderkit import ConfigurationError
from renderkit_server.state._redis import connect
from renderkit_server.state.usage.base import (
    Reservation,
    check_amount,
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
        self._closed = False

    def __repr__(self) -> str:
        return f"RedisUsageStore(prefix={self._prefix!r})"

    def _monthly_key(self, key_id: str, period: str) -> str:
        return f"{self._prefix}:monthly:{period}:{key_id}"

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


def _limit_arg(limit: int | None) -> str | int:
    # The scripts read an empty string as "unlimited" (tonumber('') is nil in Lua).
    return "" if limit is None else limit


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value
