"""What every contract suite shares: one redis-server for the session, flushed per test.

Each ``test_<kind>.py`` has a ``store`` fixture parametrised over every backend of its kind
(Litestar's ``store`` fixture is the model), so each behaviour is written once and a new
backend is one more parameter.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Protocol, TypeVar

import pytest
import redis.asyncio

from renderkit_server.state._redis import connect
from tests.server._redis import redis_server, require_redis_server


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A redis-server on 127.0.0.1 for the whole session (skipped without one)."""
    require_redis_server()
    with redis_server() as url:
        yield url


async def fresh_redis(url: str) -> redis.asyncio.Redis:
    """The one client a server would build, on an emptied database; the caller closes it.

    Parametrised fixtures call this with ``request.getfixturevalue("redis_url")``: an async
    fixture cannot be requested that way.
    """
    client = connect(url)
    await client.flushdb()
    return client


@pytest.fixture
async def redis_client(redis_url: str) -> AsyncIterator[redis.asyncio.Redis]:
    """A client on an empty database, for tests of one Redis backend."""
    client = await fresh_redis(redis_url)
    yield client
    await client.aclose()


class _Closeable(Protocol):
    async def aclose(self) -> None: ...


B = TypeVar("B", bound=_Closeable)


@contextlib.asynccontextmanager
async def backend_of(
    request: pytest.FixtureRequest,
    *,
    memory: Callable[[], B] | None = None,
    sqlite: Callable[[], B] | None = None,
    redis: Callable[[redis.asyncio.Redis], B] | None = None,
) -> AsyncIterator[B]:
    """The backend named by ``request.param`` (``memory``, ``sqlite`` or ``redis``, the last
    on a flushed database of the session's redis-server), closed after the test with its
    client: what every kind's ``store`` fixture does, written once."""
    client: redis.asyncio.Redis | None = None
    if request.param == "redis":
        assert redis is not None
        client = await fresh_redis(request.getfixturevalue("redis_url"))
        backend = redis(client)
    else:
        factory = memory if request.param == "memory" else sqlite
        assert factory is not None
        backend = factory()
    try:
        yield backend
    finally:
        await backend.aclose()
        if client is not None:
            await client.aclose()


@contextlib.asynccontextmanager
async def replicas_of(
    request: pytest.FixtureRequest,
    *,
    sqlite: Callable[[], B],
    redis: Callable[[redis.asyncio.Redis], B],
) -> AsyncIterator[tuple[B, B]]:
    """Two instances on one shared backend (``request.param``: ``sqlite`` or ``redis``), as
    two server replicas have them."""
    async with contextlib.AsyncExitStack() as stack:
        pair = []
        for _ in range(2):
            pair.append(
                await stack.enter_async_context(backend_of(request, sqlite=sqlite, redis=redis))
            )
        yield pair[0], pair[1]
