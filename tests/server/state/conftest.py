"""What every contract suite shares: one redis-server for the session, flushed per test.

Each ``test_<kind>.py`` has a ``store`` fixture parametrised over every backend of its kind
(Litestar's ``store`` fixture is the model), so each behaviour is written once and a new
backend is one more parameter.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

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
