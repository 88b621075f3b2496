"""What the Redis store adds to the contract: key layout, expiry, client ownership, and
errors that never show the URL's password."""

from __future__ import annotations

import pytest
import redis.asyncio

from renderkit import ConfigurationError, StorageUnavailableError
from renderkit_server.state.usage.redis import RedisUsageStore
from tests.server._redis import _free_port
from tests.server.state._usage import PERIOD, WINDOW, flush

pytestmark = pytest.mark.anyio


async def test_redis_keys_are_namespaced_and_expire(redis_url: str) -> None:
    await flush(redis_url)
    store = RedisUsageStore(redis_url)
    await store.reserve("key-1", "images", PERIOD, 1, 10)
    await store.hit("key-1", WINDOW, 60, 10)
    await store.aclose()

    client = redis.asyncio.Redis.from_url(redis_url, decode_responses=True)
    try:
        keys = sorted(await client.keys("*"))
        ttls = [await client.ttl(key) for key in keys]
    finally:
        await client.aclose()
    assert keys == [
        f"renderkit:usage:burst:60:{WINDOW}:key-1",
        f"renderkit:usage:monthly:{PERIOD}:key-1",
    ]
    assert 60 < ttls[0] <= 120
    assert 32 * 86_400 < ttls[1] <= 64 * 86_400


async def test_redis_store_leaves_a_client_it_was_given_open(redis_url: str) -> None:
    client = redis.asyncio.Redis.from_url(redis_url)
    store = RedisUsageStore(client)
    await store.ping()
    await store.aclose()

    assert await client.ping()
    await client.aclose()


async def test_unreachable_redis_raises_storage_unavailable_without_the_password() -> None:
    store = RedisUsageStore(f"redis://:hunter2-secret@127.0.0.1:{_free_port()}/0", timeout=1)

    with pytest.raises(StorageUnavailableError) as info:
        await store.ping()
    assert "hunter2-secret" not in str(info.value)
    with pytest.raises(StorageUnavailableError):
        await store.reserve("key-1", "images", PERIOD, 1, 10)
    await store.aclose()


def test_a_malformed_redis_url_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError) as info:
        RedisUsageStore("http://user:hunter2-secret@example.invalid")
    assert "hunter2-secret" not in str(info.value)
