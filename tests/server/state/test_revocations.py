"""The RevocationStore contract over the memory, SQLite and Redis stores, and the Redis feed
that announces each revocation to every replica."""

from __future__ import annotations

import sqlite3
import subprocess
import time
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
import redis.asyncio

from renderkit import StorageUnavailableError
from renderkit_server.keys import InvalidKeyError, KeyService, KeySigner
from renderkit_server.state._redis import connect
from renderkit_server.state.revocations import (
    MemoryRevocationStore,
    RevocationFeed,
    RevocationStore,
    SqliteRevocationStore,
)
from renderkit_server.state.revocations.redis import RedisRevocationStore
from tests.server._redis import REDIS_SERVER, redis_server, require_redis_server
from tests.server.state.conftest import backend_of, replicas_of

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[RevocationStore]:
    """An empty store of each kind."""
    async with backend_of(
        request,
        memory=MemoryRevocationStore,
        sqlite=lambda: SqliteRevocationStore(tmp_path / "keys.sqlite3"),
        redis=RedisRevocationStore,
    ) as backend:
        yield backend


@pytest.fixture(params=["sqlite", "redis"])
async def replicas(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[RevocationStore, RevocationStore]]:
    """Two stores on one shared backend, as two processes or replicas have."""
    async with replicas_of(
        request,
        sqlite=lambda: SqliteRevocationStore(tmp_path / "keys.sqlite3"),
        redis=RedisRevocationStore,
    ) as pair:
        yield pair


async def test_every_store_satisfies_the_protocol(store: RevocationStore) -> None:
    assert isinstance(store, RevocationStore)


async def test_an_empty_store_loads_no_thresholds(store: RevocationStore) -> None:
    assert await store.load_all() == {}


async def test_thresholds_only_grow_and_each_raise_is_reported_once(
    store: RevocationStore,
) -> None:
    assert await store.revoke("k", before=2) is True
    assert await store.revoke("k", before=2) is False
    assert await store.revoke("k", before=1) is False
    assert await store.revoke("k", before=3) is True
    assert await store.revoke("other", before=1) is True
    assert await store.load_all() == {"k": 3, "other": 1}


async def test_closing_twice_is_a_no_op(store: RevocationStore) -> None:
    await store.aclose()
    await store.aclose()


async def test_of_two_replicas_revoking_one_generation_exactly_one_wins(
    replicas: tuple[RevocationStore, RevocationStore],
) -> None:
    first, second = replicas
    assert await first.revoke("k", before=1) is True
    assert await second.revoke("k", before=1) is False
    assert await second.load_all() == {"k": 1}


async def test_only_the_redis_store_is_a_feed(store: RevocationStore) -> None:
    assert isinstance(store, RevocationFeed) == isinstance(store, RedisRevocationStore)


async def test_the_sqlite_store_runs_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "keys.sqlite3"
    store = SqliteRevocationStore(path)
    await store.revoke("k", before=1)
    await store.aclose()
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    finally:
        conn.close()


async def test_an_unreachable_sqlite_store_raises_storage_unavailable_without_its_path(
    tmp_path: Path,
) -> None:
    store = SqliteRevocationStore(tmp_path / "missing-dir" / "r.db")
    with pytest.raises(StorageUnavailableError) as info:
        await store.load_all()
    assert str(tmp_path) not in str(info.value)


async def test_a_revocation_reaches_a_follower_at_once_and_only_once(
    redis_client: redis.asyncio.Redis,
) -> None:
    store = RedisRevocationStore(redis_client)
    with _Feed() as feed, anyio.fail_after(5):
        async with anyio.create_task_group() as group:
            group.start_soon(store.follow, feed.on_revoked, feed.on_connected)
            await feed.connections.receive()
            assert await store.revoke("lineage", before=3) is True
            assert await store.revoke("lineage", before=2) is False  # thresholds only grow
            assert await store.revoke("other", before=1) is True
            assert await feed.revoked.receive() == ("lineage", 3)
            assert await feed.revoked.receive() == ("other", 1)
            group.cancel_scope.cancel()
    assert await store.load_all() == {"lineage": 3, "other": 1}


async def test_the_revocation_feed_reconnects_and_reloads_after_redis_restarts() -> None:
    require_redis_server()
    with redis_server() as url:
        port = url.rsplit(":", 1)[1].split("/")[0]
    # The server above is stopped; start one on the same port and stop it under the feed.
    server = _start(port)
    client = connect(url, timeout=1)
    store = RedisRevocationStore(client)
    try:
        with _Feed() as feed, anyio.fail_after(20):
            async with anyio.create_task_group() as group:
                group.start_soon(store.follow, feed.on_revoked, feed.on_connected)
                await feed.connections.receive()
                server.kill()
                server.wait()
                server = _start(port)
                await feed.connections.receive()  # reconnected (and the caller reloaded)
                await store.revoke("after restart", before=1)
                assert await feed.revoked.receive() == ("after restart", 1)
                group.cancel_scope.cancel()
    finally:
        server.kill()
        server.wait()
        await client.aclose()


class _Feed:
    """The follower's callbacks, as streams a test can wait on."""

    def __init__(self) -> None:
        self._revoked_in, self.revoked = anyio.create_memory_object_stream[tuple[str, int]](10)
        self._connected_in, self.connections = anyio.create_memory_object_stream[None](10)

    def on_revoked(self, key_id: str, before: int) -> None:
        self._revoked_in.send_nowait((key_id, before))

    async def on_connected(self) -> None:
        await self._connected_in.send(None)

    def __enter__(self) -> _Feed:
        return self

    def __exit__(self, *exc_info: object) -> None:
        for stream in (self._revoked_in, self.revoked, self._connected_in, self.connections):
            stream.close()


def _start(port: str) -> subprocess.Popen[bytes]:
    command = [REDIS_SERVER, "--port", port, "--bind", "127.0.0.1", "--save", ""]
    proc = subprocess.Popen(
        [*command, "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    time.sleep(0.3)  # redis-server listens within milliseconds; the feed retries anyway
    return proc


async def test_revocations_a_redis_restart_lost_are_written_back_by_the_replicas(
    redis_client: redis.asyncio.Redis,
) -> None:
    signer = KeySigner.from_secret("test-secret-that-is-long-enough")
    async with KeyService(signer, RedisRevocationStore(redis_client)) as keys:
        issued = await keys.issue("a@example.com", "starter")
        await keys.regenerate(issued.key)
        await redis_client.flushall()  # what a restart without persistence leaves

        await keys.refresh()

        assert await RedisRevocationStore(redis_client).load_all() == {issued.key_id: 1}
    async with KeyService(signer, RedisRevocationStore(redis_client)) as later_replica:
        with pytest.raises(InvalidKeyError):
            later_replica.verify(issued.key)
