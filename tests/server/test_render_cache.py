"""The render cache: its key, and end to end, identical requests answered from the stored file,
free (the index stores' contract is tests/server/state/test_render_cache.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar.testing import AsyncTestClient

from renderkit import ImageRequest, ScreenshotRequest, structure
from renderkit.storage import MemoryStorage
from renderkit.testing import FakeBrowser, FakeSpeechProvider
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.metrics import Metrics
from renderkit_server.settings import Settings
from renderkit_server.state.render_cache import (
    SHARED_SCOPE,
    MemoryRenderCache,
    SqliteRenderCache,
    cache_key,
    lookup,
    scope,
)

from ._redis import redis_server, require_redis_server
from .conftest import issue_key

pytestmark = pytest.mark.anyio

IMAGE = {"template": "og-card", "data": {"title": "Cached"}, "width": 64, "height": 32}


def _image(**fields: object) -> ImageRequest:
    return structure({"template": "og-card", **fields}, ImageRequest)


def test_defaults_key_order_and_cache_options_do_not_change_the_key() -> None:
    plain = cache_key("image", _image(data={"title": "T"}), renderer="chromium 140", scope="k")
    assert plain == cache_key(
        "image",
        _image(data={"title": "T"}, quality=90, cache=False),
        renderer="chromium 140",
        scope="k",
    )
    shot = structure({"url": "https://example.com/", "fullPage": True}, ScreenshotRequest)
    same = structure(
        {"full_page": True, "url": "https://example.com/", "cache_ttl": 5}, ScreenshotRequest
    )
    assert cache_key("screenshot", shot, renderer="r", scope="k") == cache_key(
        "screenshot", same, renderer="r", scope="k"
    )


def test_data_operation_renderer_and_scope_each_change_the_key() -> None:
    request = _image(data={"title": "T"})
    base = cache_key("image", request, renderer="chromium 140", scope="key:a")
    assert base != cache_key(
        "image", _image(data={"title": "U"}), renderer="chromium 140", scope="key:a"
    )
    assert base != cache_key("image", request, renderer="chromium 141", scope="key:a")
    assert base != cache_key("other", request, renderer="chromium 140", scope="key:a")
    assert base != cache_key("image", request, renderer="chromium 140", scope="key:b")
    assert base != cache_key("image", request, renderer="chromium 140", scope=SHARED_SCOPE)


def test_a_key_lineage_is_its_own_scope_unless_shared() -> None:
    assert scope("a" * 32, shared=False) != scope("b" * 32, shared=False)
    assert scope("a" * 32, shared=True) == scope("b" * 32, shared=True) == SHARED_SCOPE


class Clock:
    """Unix seconds that only move when a test moves them."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


async def _lookup(
    index: MemoryRenderCache, storage: MemoryStorage, clock: Clock, *, ttl: int, cache: bool = True
) -> lookup.CacheLookup:
    return await lookup.lookup(
        operation="image",
        kind="images",
        request=_image(data={"title": "T"}, cache=cache),
        ttl=ttl,
        renderer="r",
        scope="key:a",
        index=index,
        storage=storage,
        counter=Metrics().cache_requests,
        clock=clock,
    )


async def _remember(
    found: lookup.CacheLookup, index: MemoryRenderCache, storage: MemoryStorage, clock: Clock
) -> str:
    name = f"images/{clock.now:.0f}.png"
    await storage.put(name, b"png", content_type="image/png")
    await lookup.remember(
        found,
        storage_key=name,
        content_type="image/png",
        size=3,
        facts={},
        index=index,
        clock=clock,
    )
    return name


async def test_an_entry_older_than_the_requests_ttl_is_a_miss_though_still_stored() -> None:
    clock, storage = Clock(), MemoryStorage()
    index = MemoryRenderCache(clock=clock)
    await _remember(await _lookup(index, storage, clock, ttl=30 * 86_400), index, storage, clock)
    clock.now += 10
    long = await _lookup(index, storage, clock, ttl=30 * 86_400)
    assert long.result == "hit"
    short = await _lookup(index, storage, clock, ttl=10)
    assert (short.result, short.hit) == ("miss", None)
    assert (await _lookup(index, storage, clock, ttl=11)).result == "hit"


async def test_cache_false_is_remembered_and_replaces_the_entry() -> None:
    clock, index, storage = Clock(), MemoryRenderCache(), MemoryStorage()
    first = await _remember(await _lookup(index, storage, clock, ttl=60), index, storage, clock)
    clock.now += 1
    bypass = await _lookup(index, storage, clock, ttl=60, cache=False)
    assert (bypass.result, bypass.hit) == ("bypass", None)
    second = await _remember(bypass, index, storage, clock)
    found = await _lookup(index, storage, clock, ttl=60)
    assert found.hit is not None
    assert found.hit.entry.storage_key == second != first


async def _file(client: AsyncTestClient, url: str) -> bytes:
    response = await client.get(httpx.URL(url).raw_path.decode())
    assert response.status_code == 200
    return response.content


async def _post(
    client: AsyncTestClient, key: str, body: dict[str, Any], path: str = "image"
) -> Any:
    return await client.post(f"/api/{path}", json=body, headers={"X-SVC-Key": key})


async def test_a_repeated_identical_image_is_a_free_hit_with_the_same_file(
    make_settings: Callable[..., Settings],
) -> None:
    browser = FakeBrowser()
    settings = make_settings(plans={"starter": {"images": 5}})
    app = create_app(settings, browser=browser, mailer=MemoryMailer())
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        first = await _post(client, key, IMAGE)
        # Same request, other spelling and key order: the normalised request is the key.
        second = await _post(client, key, {"height": 32, "width": 64, **IMAGE})
        assert first.status_code == second.status_code == 200
        assert first.headers["x-cache"] == "MISS"
        assert second.headers["x-cache"] == "HIT"
        one, two = first.json(), second.json()
        assert one["cached"] is False and one["credits_used"] == 1
        assert two["cached"] is True and two["credits_used"] == 0
        assert first.headers["x-ratelimit-remaining"] == "4"
        assert len(browser.renders) == 1
        assert {k: v for k, v in two.items() if k not in {"url", "cached", "credits_used"}} == {
            k: v for k, v in one.items() if k not in {"url", "cached", "credits_used"}
        }
        assert await _file(client, two["url"]) == await _file(client, one["url"])
        # The quota did not move: the next render leaves what the miss left, less one.
        third = await _post(client, key, {**IMAGE, "data": {"title": "Other"}})
        assert third.headers["x-ratelimit-remaining"] == "3"


async def test_different_data_is_a_miss_and_renders(
    make_settings: Callable[..., Settings],
) -> None:
    browser = FakeBrowser()
    app = create_app(make_settings(), browser=browser, mailer=MemoryMailer())
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        await _post(client, key, IMAGE)
        other = await _post(client, key, {**IMAGE, "data": {"title": "Different"}})
        assert other.headers["x-cache"] == "MISS"
        assert other.json()["cached"] is False
        assert len(browser.renders) == 2


async def test_cache_false_renders_and_charges(make_settings: Callable[..., Settings]) -> None:
    browser = FakeBrowser()
    settings = make_settings(plans={"starter": {"images": 5}})
    app = create_app(settings, browser=browser, mailer=MemoryMailer())
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        await _post(client, key, IMAGE)
        bypass = await _post(client, key, {**IMAGE, "cache": False})
        assert bypass.headers["x-cache"] == "BYPASS"
        assert bypass.json()["cached"] is False and bypass.json()["credits_used"] == 1
        assert bypass.headers["x-ratelimit-remaining"] == "3"
        assert len(browser.renders) == 2


async def test_an_expired_entry_is_a_miss(
    make_settings: Callable[..., Settings], tmp_path: Path
) -> None:
    browser = FakeBrowser()
    now = [1000.0]
    index = SqliteRenderCache(tmp_path / "cache.sqlite3", clock=lambda: now[0])
    app = create_app(
        make_settings(cache_ttl_seconds=1),
        browser=browser,
        mailer=MemoryMailer(),
        render_cache=index,
    )
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        await _post(client, key, IMAGE)
        assert (await _post(client, key, IMAGE)).headers["x-cache"] == "HIT"
        now[0] += 1.0
        late = await _post(client, key, IMAGE)
        assert late.headers["x-cache"] == "MISS"
        assert late.json()["credits_used"] == 1
        assert len(browser.renders) == 2


async def test_a_ttl_of_zero_disables_the_cache(make_settings: Callable[..., Settings]) -> None:
    browser = FakeBrowser()
    app = create_app(make_settings(cache_ttl_seconds=0), browser=browser, mailer=MemoryMailer())
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        await _post(client, key, IMAGE)
        again = await _post(client, key, IMAGE)
        assert "x-cache" not in again.headers
        assert again.json()["cached"] is False
        assert len(browser.renders) == 2


async def test_a_hit_whose_file_is_gone_renders_again(
    make_settings: Callable[..., Settings],
) -> None:
    browser = FakeBrowser()
    settings = make_settings()
    app = create_app(settings, browser=browser, mailer=MemoryMailer())
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        first = (await _post(client, key, IMAGE)).json()
        stored = httpx.URL(first["url"]).path.removeprefix("/files/")
        (settings.data_dir / "files" / stored).unlink()
        again = await _post(client, key, IMAGE)
        assert again.headers["x-cache"] == "MISS"
        assert len(browser.renders) == 2
        assert await _file(client, again.json()["url"])


async def test_pdf_and_audio_are_cached(make_settings: Callable[..., Settings]) -> None:
    speech = FakeSpeechProvider()
    app = create_app(make_settings(), browser=FakeBrowser(), mailer=MemoryMailer(), speech=speech)
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        pdf = {"template": "letter", "data": {"body": "Hello"}}
        audio = {"script": "Hello there", "format": "wav"}
        for path, body in (("pdf-gen", pdf), ("audio", audio)):
            first = await _post(client, key, body, path)
            assert first.status_code == 200, first.text
            second = await _post(client, key, body, path)
            assert (first.headers["x-cache"], second.headers["x-cache"]) == ("MISS", "HIT")
            assert second.json()["credits_used"] == 0
            assert await _file(client, second.json()["url"]) == await _file(
                client, first.json()["url"]
            )


async def test_screenshots_are_cached_only_with_cache_ttl(
    make_settings: Callable[..., Settings],
) -> None:
    browser = FakeBrowser()
    app = create_app(make_settings(), browser=browser, mailer=MemoryMailer())
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        page = {"url": "https://example.com/"}
        plain = [await _post(client, key, page, "screenshot") for _ in range(2)]
        assert [r.status_code for r in plain] == [200, 200], plain[0].text
        assert all("x-cache" not in r.headers for r in plain)
        asked = {**page, "cacheTtl": 60}
        first = await _post(client, key, asked, "screenshot")
        second = await _post(client, key, {**page, "cache_ttl": 60}, "screenshot")
        assert (first.headers["x-cache"], second.headers["x-cache"]) == ("MISS", "HIT")
        assert second.json()["captured_at"] == first.json()["captured_at"]
        assert len(browser.renders) == 3


async def test_two_replicas_on_one_redis_share_hits(
    make_settings: Callable[..., Settings],
) -> None:
    require_redis_server()
    with redis_server() as url:
        settings = make_settings(redis_url=url)
        one, two = FakeBrowser(), FakeBrowser()
        app_one = create_app(settings, browser=one, mailer=MemoryMailer())
        app_two = create_app(settings, browser=two, mailer=MemoryMailer())
        async with AsyncTestClient(app_one) as a, AsyncTestClient(app_two) as b:
            key = await issue_key(a)
            first = await _post(a, key, IMAGE)
            second = await _post(b, key, IMAGE)
    assert (first.headers["x-cache"], second.headers["x-cache"]) == ("MISS", "HIT")
    assert second.json()["cached"] is True
    assert (len(one.renders), len(two.renders)) == (1, 0)


async def test_hits_and_misses_are_counted_in_metrics(
    make_settings: Callable[..., Settings],
) -> None:
    app = create_app(make_settings(), browser=FakeBrowser(), mailer=MemoryMailer())
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        for _ in range(3):
            await _post(client, key, IMAGE)
        text = (await client.get("/metrics")).text
    assert 'renderkit_cache_requests_total{kind="images",result="miss"} 1.0' in text
    assert 'renderkit_cache_requests_total{kind="images",result="hit"} 2.0' in text
