"""The Redis client the shared server state (revocations, MCP sessions, in-flight leases)
is kept on, and how its errors are reported.

The usage store keeps its own client (it can be injected on its own); everything else shares
the one :func:`connect` makes, owned and closed by the server's services.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from renderkit import ConfigurationError, MissingDependencyError, StorageUnavailableError

try:
    import redis.asyncio
    import redis.exceptions
except ImportError as exc:  # pragma: no cover - only without the redis package
    msg = "shared state on Redis needs the redis package: pip install 'redis>=5'"
    raise MissingDependencyError(msg) from exc

__all__ = ["connect", "redis_errors"]


def connect(url: str, *, timeout: float = 5.0) -> redis.asyncio.Redis:
    """A client for ``url``; no connection is made until the first command.

    Args:
        url: a ``redis://``, ``rediss://`` or ``unix://`` URL.
        timeout: socket connect and read timeout in seconds.

    Raises:
        ConfigurationError: the URL is malformed (not repeated: it may hold a password).
    """
    try:
        return redis.asyncio.Redis.from_url(
            url, socket_timeout=timeout, socket_connect_timeout=timeout
        )
    except ValueError as exc:
        msg = "RENDERKIT_REDIS_URL is malformed"
        raise ConfigurationError(msg) from exc


@contextlib.contextmanager
def redis_errors(what: str) -> Iterator[None]:
    """Turn a Redis failure into :class:`StorageUnavailableError` naming ``what`` failed.

    Only the exception's class is reported: redis-py messages can name the host and port.
    """
    try:
        yield
    except redis.exceptions.RedisError as exc:
        msg = f"the {what} is unavailable ({type(exc).__name__})"
        raise StorageUnavailableError(msg) from exc
