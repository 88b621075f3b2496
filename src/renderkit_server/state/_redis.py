"""The Redis client all shared state is kept on, and how its errors are reported.

:func:`~renderkit_server.state.build.build_shared_state` makes the one client (one
connection pool) every Redis backend shares, and closes it last. Importing this module
without the ``redis`` package raises :class:`~renderkit.MissingDependencyError` with the
install hint; only the ``redis.py`` backends and the builder import it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

from renderkit import ConfigurationError, MissingDependencyError, StorageUnavailableError

try:
    import redis.asyncio
    import redis.backoff
    import redis.exceptions
except ImportError as exc:  # pragma: no cover - only without the redis package
    msg = "shared state on Redis needs the redis package: pip install 'redis>=5'"
    raise MissingDependencyError(msg) from exc

__all__ = ["RedisTextMap", "connect", "raise_pending_cancellation", "redis_errors"]


def connect(url: str, *, timeout: float = 5.0) -> redis.asyncio.Redis:
    """A client for ``url``; no connection is made until the first command.

    A command whose connection breaks is sent once more on a new connection, at once:
    after a restart or failover the pool still holds connections the server closed, and it
    cannot tell a reset one from a live one, so without the retry each of them would fail
    one caller's request after the server is back. A second attempt is safe because the
    scripts that must not run twice guard themselves: a charge is recorded once per charge
    id, and a job claim whose answer was lost runs out its lease and is queued again.
    Timeouts are not retried: a slow server would only be asked twice, and a refused
    connection is refused again at once.

    Args:
        url: a ``redis://``, ``rediss://`` or ``unix://`` URL.
        timeout: socket connect and read timeout in seconds.

    Raises:
        ConfigurationError: the URL is malformed (not repeated: it may hold a password).
    """
    try:
        return redis.asyncio.Redis.from_url(
            url,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            retry=redis.asyncio.retry.Retry(redis.backoff.NoBackoff(), 1),
            retry_on_error=[redis.exceptions.ConnectionError],
        )
    except ValueError as exc:
        msg = "RENDERKIT_REDIS_URL is malformed"
        raise ConfigurationError(msg) from exc


@contextlib.contextmanager
def redis_errors(what: str) -> Iterator[None]:
    """Turn a Redis failure into :class:`StorageUnavailableError` naming ``what`` failed, and
    never let a cancellation be lost.

    Only the exception's class is reported: redis-py messages can name the host and port.

    redis-py's asyncio client can swallow a task's cancellation when it lands at the wrong
    moment of a command (redis/redis-py#2028, #2551): the command then returns normally and
    the task runs on. The job workers and the webhook delivery loop call their stores in a
    loop, so a lost cancellation would keep them (and the app's shutdown, which waits for
    them) running for ever; a cancellation still pending once the call returns is raised.
    """
    try:
        yield
    except redis.exceptions.RedisError as exc:
        msg = f"the {what} is unavailable ({type(exc).__name__})"
        raise StorageUnavailableError(msg) from exc
    raise_pending_cancellation()


def raise_pending_cancellation() -> None:
    """Raise the current task's cancellation if a Redis call returned over it (see
    :func:`redis_errors`); call it after every Redis call outside ``redis_errors``."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


class RedisTextMap:
    """One Redis hash of text keys to text values: the stores that only put, get and delete
    one string by another (key owners, URL-signing secrets) differ in nothing but names.

    Args:
        client: the Redis client; left open by :meth:`aclose` (its owner closes it).
        key: the hash.
        what: the store's name in errors.
    """

    def __init__(self, client: redis.asyncio.Redis, key: str, *, what: str) -> None:
        self._client = client
        self.key = key
        self._what = what

    async def put(self, field: str, value: str) -> None:
        """Set ``field`` to ``value``, replacing what it held."""
        with redis_errors(self._what):
            await self._client.hset(self.key, field, value)

    async def get(self, field: str) -> str | None:
        """The value of ``field``, None when it has none."""
        with redis_errors(self._what):
            value = await self._client.hget(self.key, field)
        if value is None:
            return None
        return value.decode() if isinstance(value, bytes) else str(value)

    async def delete(self, field: str) -> None:
        """Forget ``field`` (nothing happens when it is unknown)."""
        with redis_errors(self._what):
            await self._client.hdel(self.key, field)

    async def aclose(self) -> None:
        """The client belongs to its owner."""
