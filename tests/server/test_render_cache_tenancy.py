"""The render cache between keys, over HTTP: a key lineage reads only what it rendered itself
(unless the operator shares template renders), a hit honours the requester's own maximum
age, and ``cache: false`` replaces the entry it bypassed.

The core cases run over every index (memory, SQLite, a real redis-server); the behaviour
lives in the cache key and the lookup, so the other cases run on the default SQLite index.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import anyio
import httpx
import pytest
import redis
from litestar.testing import AsyncTestClient

from renderkit.testing import FakeBrowser, FakeSpeechProvider
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.settings import Settings
from renderkit_server.state.render_cache import MemoryRenderCache

from ._redis import redis_server, require_redis_server
from .conftest import issue_key

pytestmark = pytest.mark.anyio

IMAGE = {"template": "og-card", "data": {"title": "Invoice 1,250.00"}, "width": 64, "height": 32}
PDF = {"template": "letter", "data": {"body": "Amount due: 1,250.00"}}
CUSTOM_IMAGE = {"template": "custom", "html": "<p>Amount due: 1,250.00</p>", "width": 64}
CUSTOM_PDF = {"template": "custom", "data": {"html": "<p>Amount due: 1,250.00</p>"}}
AUDIO = {"script": "Amount due: one thousand two hundred and fifty", "format": "wav"}
#: The longest TTL a screenshot may ask (30 days).
SHOT = {"url": "https://example.com/invoice", "cacheTtl": 30 * 86_400}

#: (endpoint, body) of every cached operation.
CACHED = {
    "image": ("image", IMAGE),
    "pdf": ("pdf-gen", PDF),
    "custom-image": ("image", CUSTOM_IMAGE),
    "custom-pdf": ("pdf-gen", CUSTOM_PDF),
    "audio": ("audio", AUDIO),
    "screenshot": ("screenshot", SHOT),
}


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    require_redis_server()
    with redis_server() as url:
        yield url


@pytest.fixture(params=["memory", "sqlite", "redis"])
def backend(request: pytest.FixtureRequest) -> dict[str, Any]:
    """The settings and app arguments giving the app an empty index of each kind.

    Redis comes by its URL: the test client runs the app on a loop of its own, where the app
    builds its Redis client.
    """
    if request.param == "memory":
        return {"render_cache": MemoryRenderCache()}
    if request.param == "sqlite":
        return {}
    url = request.getfixturevalue("redis_url")
    with redis.Redis.from_url(url) as client:
        client.flushdb()
    return {"redis_url": url}


async def _post(client: AsyncTestClient, key: str, body: dict[str, Any], path: str) -> Any:
    response = await client.post(f"/api/{path}", json=body, headers={"X-SVC-Key": key})
    assert response.status_code == 200, response.text
    return response


def _stored(response: Any) -> str:
    """The stored file a response names (its URL without the signature)."""
    return httpx.URL(response.json()["url"]).path


def _app(
    make_settings: Callable[..., Settings],
    browser: FakeBrowser,
    backend: dict[str, Any] | None = None,
    **settings: Any,
) -> Any:
    backend = dict(backend or {})
    index = backend.pop("render_cache", None)
    return create_app(
        make_settings(**settings, **backend),
        browser=browser,
        speech=FakeSpeechProvider(),
        mailer=MemoryMailer(),
        render_cache=index,
    )


async def test_two_keys_sending_the_same_image_each_render_pay_and_keep_their_own_file(
    make_settings: Callable[..., Settings], backend: dict[str, Any]
) -> None:
    browser = FakeBrowser()
    app = _app(make_settings, browser, backend, plans={"starter": {"images": 5}})
    async with AsyncTestClient(app) as client:
        a = await issue_key(client, email="a@example.com")
        b = await issue_key(client, email="b@example.com")
        first = await _post(client, a, IMAGE, "image")
        second = await _post(client, b, IMAGE, "image")
        assert (first.headers["x-cache"], second.headers["x-cache"]) == ("MISS", "MISS")
        assert [r.json()["credits_used"] for r in (first, second)] == [1, 1]
        assert second.headers["x-ratelimit-remaining"] == "4"
        assert _stored(first) != _stored(second)
        assert len(browser.renders) == 2
        # Each key still gets its own entry back.
        again_a = await _post(client, a, IMAGE, "image")
        again_b = await _post(client, b, IMAGE, "image")
        assert (again_a.headers["x-cache"], again_b.headers["x-cache"]) == ("HIT", "HIT")
        assert (_stored(again_a), _stored(again_b)) == (_stored(first), _stored(second))
        assert len(browser.renders) == 2


@pytest.mark.parametrize("operation", sorted(CACHED))
async def test_no_cached_operation_answers_one_key_with_another_keys_file(
    make_settings: Callable[..., Settings], operation: str
) -> None:
    path, body = CACHED[operation]
    app = _app(make_settings, FakeBrowser())
    async with AsyncTestClient(app) as client:
        a = await issue_key(client, email="a@example.com")
        b = await issue_key(client, email="b@example.com")
        first = await _post(client, a, body, path)
        probe = await _post(client, b, body, path)
        assert (first.headers["x-cache"], probe.headers["x-cache"]) == ("MISS", "MISS")
        assert probe.json()["cached"] is False
        assert probe.json()["credits_used"] == first.json()["credits_used"] > 0
        assert _stored(probe) != _stored(first)


async def test_a_regenerated_key_keeps_its_lineages_cache(
    make_settings: Callable[..., Settings],
) -> None:
    browser = FakeBrowser()
    app = _app(make_settings, browser)
    async with AsyncTestClient(app) as client:
        old = await issue_key(client, email="a@example.com")
        first = await _post(client, old, IMAGE, "image")
        rotated = await client.post("/api/keys/regenerate", json={"key": old})
        assert rotated.status_code == 200, rotated.text
        new = rotated.json()["key"]
        again = await _post(client, new, IMAGE, "image")
        assert again.headers["x-cache"] == "HIT"
        assert _stored(again) == _stored(first)
        assert len(browser.renders) == 1


async def test_shared_template_renders_answer_every_key_free_with_one_file(
    make_settings: Callable[..., Settings],
) -> None:
    browser = FakeBrowser()
    app = _app(make_settings, cache_share_templates=True, browser=browser)
    async with AsyncTestClient(app) as client:
        a = await issue_key(client, email="a@example.com")
        b = await issue_key(client, email="b@example.com")
        for path, body in (CACHED["image"], CACHED["pdf"]):
            first = await _post(client, a, body, path)
            shared = await _post(client, b, body, path)
            assert (first.headers["x-cache"], shared.headers["x-cache"]) == ("MISS", "HIT")
            assert shared.json()["cached"] is True
            assert shared.json()["credits_used"] == 0
            assert _stored(shared) == _stored(first)
        assert len(browser.renders) == 2


@pytest.mark.parametrize("operation", ["custom-image", "custom-pdf", "audio", "screenshot"])
async def test_sharing_templates_never_shares_custom_html_audio_or_screenshots(
    make_settings: Callable[..., Settings], operation: str
) -> None:
    path, body = CACHED[operation]
    app = _app(make_settings, cache_share_templates=True, browser=FakeBrowser())
    async with AsyncTestClient(app) as client:
        a = await issue_key(client, email="a@example.com")
        b = await issue_key(client, email="b@example.com")
        first = await _post(client, a, body, path)
        probe = await _post(client, b, body, path)
        assert (first.headers["x-cache"], probe.headers["x-cache"]) == ("MISS", "MISS")
        assert _stored(probe) != _stored(first)


async def test_a_screenshot_cached_for_30_days_is_a_miss_for_a_request_accepting_one_second(
    make_settings: Callable[..., Settings],
) -> None:
    browser = FakeBrowser()
    app = _app(make_settings, browser)
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        first = await _post(client, key, SHOT, "screenshot")
        await anyio.sleep(1.1)
        fresh = await _post(client, key, {**SHOT, "cacheTtl": 1}, "screenshot")
        assert (first.headers["x-cache"], fresh.headers["x-cache"]) == ("MISS", "MISS")
        assert fresh.json()["credits_used"] == 1
        assert fresh.json()["captured_at"] != first.json()["captured_at"]
        assert len(browser.renders) == 2


async def test_entries_older_than_a_lowered_operator_ttl_are_misses(
    make_settings: Callable[..., Settings],
) -> None:
    browser = FakeBrowser()
    async with AsyncTestClient(_app(make_settings, browser)) as client:
        key = await issue_key(client)
        first = await _post(client, key, IMAGE, "image")
    await anyio.sleep(1.1)
    # The same data directory (index and files) under a one-second cache lifetime.
    async with AsyncTestClient(_app(make_settings, browser, cache_ttl_seconds=1)) as client:
        again = await _post(client, key, IMAGE, "image")
    assert (first.headers["x-cache"], again.headers["x-cache"]) == ("MISS", "MISS")
    assert len(browser.renders) == 2


async def test_cache_false_renders_again_and_its_file_replaces_the_entry(
    make_settings: Callable[..., Settings], backend: dict[str, Any]
) -> None:
    browser = FakeBrowser()
    app = _app(make_settings, browser, backend)
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        first = await _post(client, key, IMAGE, "image")
        bypass = await _post(client, key, {**IMAGE, "cache": False}, "image")
        assert bypass.headers["x-cache"] == "BYPASS"
        assert bypass.json()["credits_used"] == 1
        assert _stored(bypass) != _stored(first)
        after = await _post(client, key, IMAGE, "image")
        assert after.headers["x-cache"] == "HIT"
        assert _stored(after) == _stored(bypass)
        assert len(browser.renders) == 2


async def test_a_screenshot_sent_with_cache_false_replaces_the_cached_capture(
    make_settings: Callable[..., Settings],
) -> None:
    app = _app(make_settings, FakeBrowser())
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        await _post(client, key, SHOT, "screenshot")
        bypass = await _post(client, key, {**SHOT, "cache": False}, "screenshot")
        after = await _post(client, key, SHOT, "screenshot")
        assert (bypass.headers["x-cache"], after.headers["x-cache"]) == ("BYPASS", "HIT")
        assert after.json()["captured_at"] == bypass.json()["captured_at"]
        assert _stored(after) == _stored(bypass)
