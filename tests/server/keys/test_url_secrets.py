"""The directory of URL-signing secrets: every backend round-trips entries, and a process
writes each key once."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from renderkit.image.signed_url import public_key_id, url_secret
from renderkit_server._redis import connect
from renderkit_server.keys import KeySigner
from renderkit_server.keys.tokens import ApiKey
from renderkit_server.keys.url_secrets import (
    MemoryUrlSecretStore,
    RedisUrlSecretStore,
    SqliteUrlSecretStore,
    UrlSecret,
    UrlSecrets,
    UrlSecretStore,
)

from .._redis import redis_server, require_redis_server

pytestmark = pytest.mark.anyio

ENTRY = UrlSecret(secret=bytes(range(32)), plan="pro")


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[UrlSecretStore]:
    if request.param == "memory":
        yield MemoryUrlSecretStore()
    elif request.param == "sqlite":
        sqlite = SqliteUrlSecretStore(tmp_path / "url.sqlite3")
        yield sqlite
        await sqlite.aclose()
    else:
        require_redis_server()
        with redis_server() as url:
            client = connect(url)
            yield RedisUrlSecretStore(client)
            await client.aclose()


async def test_an_entry_round_trips_and_an_unknown_id_is_none(store: UrlSecretStore) -> None:
    assert await store.get("ab.0") is None
    await store.put("ab.0", ENTRY)
    assert await store.get("ab.0") == ENTRY
    await store.put("ab.0", UrlSecret(secret=b"x" * 32, plan="starter"))
    assert (await store.get("ab.0")) == UrlSecret(secret=b"x" * 32, plan="starter")


async def test_the_sqlite_directory_is_shared_by_two_instances_on_one_file(tmp_path: Path) -> None:
    first, second = (SqliteUrlSecretStore(tmp_path / "url.sqlite3") for _ in range(2))
    await first.put("cd.1", ENTRY)
    assert await second.get("cd.1") == ENTRY
    await first.aclose()
    await second.aclose()


class _CountingStore(MemoryUrlSecretStore):
    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    async def put(self, public_id: str, entry: UrlSecret) -> None:
        self.writes += 1
        await super().put(public_id, entry)


async def test_a_key_is_written_once_per_process_under_its_public_id_never_the_key() -> None:
    signer = KeySigner({"k1": b"s" * 32}, "k1")
    claims = ApiKey(
        key_id="00" * 16, plan="pro", email="a@example.com", generation=2, issued_at=1, kid="k1"
    )
    key = signer.sign(claims)
    counting = _CountingStore()
    secrets = UrlSecrets(counting)
    for _ in range(3):
        await secrets.remember(key, claims)
    assert counting.writes == 1
    entry = await secrets.lookup(public_key_id(key))
    assert public_key_id(key) == f"{'00' * 16}.2"
    assert entry == UrlSecret(secret=url_secret(key), plan="pro")
    assert key.encode() not in entry.secret and "a@example.com" not in repr(entry)
