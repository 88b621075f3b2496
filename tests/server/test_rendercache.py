"""The render cache's key and its index stores (memory, SQLite, Redis)."""

from __future__ import annotations

from pathlib import Path

import pytest

from renderkit import ImageRequest, ScreenshotRequest, structure
from renderkit_server._redis import connect
from renderkit_server.rendercache import (
    CachedEntry,
    MemoryRenderCache,
    SqliteRenderCache,
    cache_key,
)
from renderkit_server.rendercache_redis import RedisRenderCache

from ._redis import redis_server, require_redis_server

pytestmark = pytest.mark.anyio

ENTRY = CachedEntry(
    storage_key="images/2026/11/24/a.png",
    content_type="image/png",
    size=3,
    facts={"width": 2, "height": 1, "warnings": ["w"]},
    created=1.5,
)


def _image(**fields: object) -> ImageRequest:
    return structure({"template": "og-card", **fields}, ImageRequest)


def test_defaults_key_order_and_cache_options_do_not_change_the_key() -> None:
    plain = cache_key("image", _image(data={"title": "T"}), renderer="chromium 140")
    assert plain == cache_key(
        "image", _image(data={"title": "T"}, quality=90, cache=False), renderer="chromium 140"
    )
    shot = structure({"url": "https://example.com/", "fullPage": True}, ScreenshotRequest)
    same = structure(
        {"full_page": True, "url": "https://example.com/", "cache_ttl": 5}, ScreenshotRequest
    )
    assert cache_key("screenshot", shot, renderer="r") == cache_key(
        "screenshot", same, renderer="r"
    )


def test_data_operation_and_renderer_each_change_the_key() -> None:
    base = cache_key("image", _image(data={"title": "T"}), renderer="chromium 140")
    assert base != cache_key("image", _image(data={"title": "U"}), renderer="chromium 140")
    assert base != cache_key("image", _image(data={"title": "T"}), renderer="chromium 141")
    assert base != cache_key("other", _image(data={"title": "T"}), renderer="chromium 140")


async def test_memory_entries_expire_after_their_ttl() -> None:
    now = [100.0]
    cache = MemoryRenderCache(clock=lambda: now[0])
    await cache.put("k", ENTRY, 10)
    assert await cache.get("k") == ENTRY
    now[0] = 110.0
    assert await cache.get("k") is None
    assert await cache.get("missing") is None


async def test_sqlite_entries_persist_across_instances_and_expire(tmp_path: Path) -> None:
    now = [100.0]
    path = tmp_path / "cache.sqlite3"
    writer = SqliteRenderCache(path, clock=lambda: now[0])
    await writer.put("k", ENTRY, 10)
    reader = SqliteRenderCache(path, clock=lambda: now[0])
    try:
        assert await reader.get("k") == ENTRY
        now[0] = 110.0
        assert await reader.get("k") is None
    finally:
        await writer.aclose()
        await reader.aclose()


async def test_redis_entries_round_trip_and_expire() -> None:
    require_redis_server()
    with redis_server() as url:
        client = connect(url)
        cache = RedisRenderCache(client)
        try:
            await cache.put("k", ENTRY, 10)
            assert await cache.get("k") == ENTRY
            assert 0 < await client.ttl("renderkit:cache:k") <= 10
            assert await cache.get("missing") is None
        finally:
            await client.aclose()
