"""``Idempotency-Key`` on the production endpoints, against a real server on loopback.

Every test turns the render cache off, so a repeated request without the header renders
(and is charged) again: only the idempotency entry can spare the work.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from renderkit import BrowserUnavailableError
from renderkit.browser import Capture, Shell
from renderkit.testing import FakeBrowser
from renderkit.testing._fake_browser import RecordedRender
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.settings import Settings
from tests._uvicorn import served_app
from tests.server._redis import redis_server, require_redis_server

pytestmark = pytest.mark.anyio

IMAGE = {"template": "og-card", "data": {"title": "Once"}, "scale": 1}


class GatedBrowser(FakeBrowser):
    """A FakeBrowser whose captures wait for :attr:`gate` while :attr:`gated` is set."""

    def __init__(self, handler: Callable[[RecordedRender], None] | None = None) -> None:
        super().__init__(handler)
        self.gated = False
        self.gate = asyncio.Event()
        self.waiting = asyncio.Event()

    async def capture_fragment(self, shell: Shell, fragment: str, capture: Capture) -> bytes:
        if self.gated:
            self.waiting.set()
            await self.gate.wait()
        return await super().capture_fragment(shell, fragment, capture)


class FailOnce:
    """A handler failing the first render with 503 RENDERER_UNAVAILABLE."""

    def __init__(self) -> None:
        self.failed = False

    def __call__(self, render: RecordedRender) -> None:
        if not self.failed:
            self.failed = True
            raise BrowserUnavailableError("the browser died", retry_after=1)


@pytest.fixture
def browser() -> GatedBrowser:
    return GatedBrowser()


@pytest.fixture
def settings(make_settings: Callable[..., Settings]) -> Settings:
    return make_settings(cache_ttl_seconds=0)


@pytest.fixture
async def server(settings: Settings, browser: GatedBrowser) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(settings, browser=browser, mailer=MemoryMailer())
    async with served_app(app, timeout=30) as client:
        yield client


async def _key(server: httpx.AsyncClient, email: str = "a@example.com") -> str:
    response = await server.post("/api/keys/generate", json={"email": email})
    assert response.status_code == 200, response.text
    key: str = response.json()["key"]
    return key


def _headers(key: str, idempotency_key: str | None = None) -> dict[str, str]:
    headers = {"Authorization": f"Bearer {key}"}
    if idempotency_key is not None:
        headers["Idempotency-Key"] = idempotency_key
    return headers


async def _images_used(server: httpx.AsyncClient, key: str) -> Any:
    usage = await server.get("/api/usage", headers=_headers(key))
    return usage.json()["metrics"]["images"]["used"]


async def test_a_repeat_with_the_same_key_and_body_gets_the_first_answer_without_new_work(
    server: httpx.AsyncClient, browser: GatedBrowser
) -> None:
    key = await _key(server)
    first = await server.post("/api/image", json=IMAGE, headers=_headers(key, "order-1"))
    # The same JSON, written with other whitespace and key order.
    again = await server.post(
        "/api/image",
        content=b'{ "scale": 1,\n "data": {"title": "Once"}, "template": "og-card" }',
        headers={**_headers(key, "order-1"), "Content-Type": "application/json"},
    )

    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    assert again.headers["idempotent-replayed"] == "true"
    assert "idempotent-replayed" not in first.headers
    assert len(browser.renders) == 1
    assert await _images_used(server, key) == 1


async def test_without_the_header_every_repeat_renders_and_is_charged(
    server: httpx.AsyncClient, browser: GatedBrowser
) -> None:
    key = await _key(server)
    for _ in range(2):
        response = await server.post("/api/image", json=IMAGE, headers=_headers(key))
        assert response.status_code == 200

    assert len(browser.renders) == 2
    assert await _images_used(server, key) == 2


async def test_the_same_key_with_another_body_is_a_409_naming_the_header(
    server: httpx.AsyncClient, browser: GatedBrowser
) -> None:
    key = await _key(server)
    await server.post("/api/image", json=IMAGE, headers=_headers(key, "k"))
    other = {**IMAGE, "data": {"title": "Twice"}}

    conflict = await server.post("/api/image", json=other, headers=_headers(key, "k"))

    assert conflict.status_code == 409
    assert conflict.json()["code"] == "IDEMPOTENCY_KEY_REUSED"
    assert conflict.json()["field"] == "Idempotency-Key"
    assert len(browser.renders) == 1
    assert await _images_used(server, key) == 1


async def test_a_key_is_scoped_to_its_path(
    server: httpx.AsyncClient, browser: GatedBrowser
) -> None:
    key = await _key(server)
    for path in ("/api/image", "/v1/image"):
        response = await server.post(path, json=IMAGE, headers=_headers(key, "k"))
        assert response.status_code == 200
        assert "idempotent-replayed" not in response.headers

    assert len(browser.renders) == 2


async def test_a_retry_while_the_first_runs_is_409_in_progress_then_the_first_answer(
    server: httpx.AsyncClient, browser: GatedBrowser
) -> None:
    key = await _key(server)
    browser.gated = True
    first = asyncio.create_task(
        server.post("/api/image", json=IMAGE, headers=_headers(key, "slow"))
    )
    await asyncio.wait_for(browser.waiting.wait(), 10)

    during = await server.post("/api/image", json=IMAGE, headers=_headers(key, "slow"))
    other_body = await server.post(
        "/api/image", json={**IMAGE, "scale": 2}, headers=_headers(key, "slow")
    )
    browser.gate.set()
    done = await asyncio.wait_for(first, 10)
    after = await server.post("/api/image", json=IMAGE, headers=_headers(key, "slow"))

    assert during.status_code == 409
    assert during.json()["code"] == "IDEMPOTENCY_KEY_IN_PROGRESS"
    assert during.headers["retry-after"] == "1"
    assert other_body.status_code == 409
    assert other_body.json()["code"] == "IDEMPOTENCY_KEY_REUSED"
    assert done.status_code == 200
    assert after.status_code == 200
    assert after.json() == done.json()
    assert after.headers["idempotent-replayed"] == "true"
    assert len(browser.renders) == 1
    assert await _images_used(server, key) == 1


async def test_simultaneous_requests_with_one_key_render_once(
    server: httpx.AsyncClient, browser: GatedBrowser
) -> None:
    key = await _key(server)
    answers = await asyncio.gather(
        *(server.post("/api/image", json=IMAGE, headers=_headers(key, "race")) for _ in range(6))
    )

    statuses = sorted(a.status_code for a in answers)
    assert statuses[0] == 200
    assert set(statuses) <= {200, 409}
    bodies = {a.text for a in answers if a.status_code == 200}
    assert len(bodies) == 1
    assert len(browser.renders) == 1
    assert await _images_used(server, key) == 1


async def test_another_api_key_with_the_same_idempotency_key_gets_its_own_result(
    server: httpx.AsyncClient, browser: GatedBrowser
) -> None:
    alice = await _key(server, "alice@example.com")
    bob = await _key(server, "bob@example.com")
    first = await server.post("/api/image", json=IMAGE, headers=_headers(alice, "shared"))

    second = await server.post("/api/image", json=IMAGE, headers=_headers(bob, "shared"))

    assert second.status_code == 200
    assert "idempotent-replayed" not in second.headers
    assert second.json()["url"] != first.json()["url"]
    assert len(browser.renders) == 2
    assert await _images_used(server, bob) == 1


async def test_a_regenerated_key_sees_its_lineages_entries(
    server: httpx.AsyncClient, browser: GatedBrowser
) -> None:
    key = await _key(server)
    first = await server.post("/api/image", json=IMAGE, headers=_headers(key, "rotate"))
    rotated = await server.post("/api/keys/regenerate", headers=_headers(key))
    new_key = rotated.json()["key"]

    again = await server.post("/api/image", json=IMAGE, headers=_headers(new_key, "rotate"))

    assert again.json() == first.json()
    assert again.headers["idempotent-replayed"] == "true"
    assert len(browser.renders) == 1


async def test_a_server_failure_is_not_stored_and_its_retry_runs_again(
    make_settings: Callable[..., Settings],
) -> None:
    browser = GatedBrowser(FailOnce())
    app = create_app(make_settings(cache_ttl_seconds=0), browser=browser, mailer=MemoryMailer())
    async with served_app(app, timeout=30) as server:
        key = await _key(server)
        failed = await server.post("/api/image", json=IMAGE, headers=_headers(key, "flaky"))
        retried = await server.post("/api/image", json=IMAGE, headers=_headers(key, "flaky"))
        used = await _images_used(server, key)

    assert failed.status_code == 503
    assert retried.status_code == 200
    assert "idempotent-replayed" not in retried.headers
    assert len(browser.renders) == 2
    assert used == 1


async def test_a_client_error_is_stored_and_replayed(
    server: httpx.AsyncClient, browser: GatedBrowser
) -> None:
    key = await _key(server)
    bad = {"template": "no-such-template", "data": {}}
    first = await server.post("/api/image", json=bad, headers=_headers(key, "bad"))
    again = await server.post("/api/image", json=bad, headers=_headers(key, "bad"))
    not_json = await server.post(
        "/api/image",
        content=b"{oops",
        headers={**_headers(key, "raw"), "Content-Type": "application/json"},
    )
    not_json_again = await server.post(
        "/api/image",
        content=b"{oops",
        headers={**_headers(key, "raw"), "Content-Type": "application/json"},
    )

    assert first.status_code == again.status_code == 400
    assert again.json() == first.json()
    assert again.headers["idempotent-replayed"] == "true"
    assert not_json_again.status_code == not_json.status_code == 400
    assert not_json_again.json()["code"] == "INVALID_JSON"
    assert not_json_again.headers["idempotent-replayed"] == "true"
    assert browser.renders == []


async def test_entries_expire(make_settings: Callable[..., Settings]) -> None:
    browser = GatedBrowser()
    settings = make_settings(cache_ttl_seconds=0, idempotency_ttl_seconds=1)
    app = create_app(settings, browser=browser, mailer=MemoryMailer())
    async with served_app(app, timeout=30) as server:
        key = await _key(server)
        await server.post("/api/image", json=IMAGE, headers=_headers(key, "short"))
        await asyncio.sleep(1.2)
        later = await server.post("/api/image", json=IMAGE, headers=_headers(key, "short"))

    assert later.status_code == 200
    assert "idempotent-replayed" not in later.headers
    assert len(browser.renders) == 2


async def test_an_answer_too_large_to_keep_runs_again_on_retry(
    make_settings: Callable[..., Settings],
) -> None:
    browser = GatedBrowser()
    settings = make_settings(cache_ttl_seconds=0, idempotency_max_answer_bytes=64)
    app = create_app(settings, browser=browser, mailer=MemoryMailer())
    async with served_app(app, timeout=30) as server:
        key = await _key(server)
        for _ in range(2):
            response = await server.post("/api/image", json=IMAGE, headers=_headers(key, "big"))
            assert response.status_code == 200
            assert "idempotent-replayed" not in response.headers

    assert len(browser.renders) == 2


@pytest.mark.parametrize("value", ["", "x" * 256, "caf\u00e9", "tab\there"])
async def test_a_malformed_key_is_a_400_naming_the_header(
    server: httpx.AsyncClient, browser: GatedBrowser, value: str
) -> None:
    key = await _key(server)
    headers = {"Authorization": f"Bearer {key}"}
    response = await server.post(
        "/api/image",
        json=IMAGE,
        headers=[*headers.items(), ("Idempotency-Key", value.encode("utf-8"))],  # type: ignore[list-item]
    )

    assert response.status_code == 400
    assert response.json()["code"] == "INVALID_HEADER"
    assert response.json()["field"] == "Idempotency-Key"
    assert browser.renders == []


async def test_nothing_is_stored_for_an_unauthenticated_request(
    server: httpx.AsyncClient, browser: GatedBrowser
) -> None:
    refused = await server.post(
        "/api/image", json=IMAGE, headers={"Idempotency-Key": "k", "X-SVC-Key": "nope"}
    )
    key = await _key(server)
    accepted = await server.post("/api/image", json=IMAGE, headers=_headers(key, "k"))

    assert refused.status_code == 401
    assert accepted.status_code == 200
    assert "idempotent-replayed" not in accepted.headers


async def test_the_openapi_document_describes_the_header_and_the_409_on_every_operation(
    server: httpx.AsyncClient,
) -> None:
    document = (await server.get("/openapi.json")).json()

    for name in ("image", "pdf-gen", "screenshot", "audio", "parse"):
        operation = document["paths"][f"/api/{name}"]["post"]
        [header] = [p for p in operation["parameters"] if p["name"] == "Idempotency-Key"]
        assert header["in"] == "header"
        assert "Idempotent-Replayed" in header["description"]
        assert "409" in operation["responses"]
    for path in ("/api/keys/generate", "/api/keys/regenerate"):
        assert "parameters" not in document["paths"][path]["post"]


@pytest.fixture
def redis_url() -> Iterator[str]:
    """A redis-server on 127.0.0.1 for this test (skipped without one)."""
    require_redis_server()
    with redis_server() as url:
        yield url


async def test_two_replicas_on_redis_run_one_key_once_and_replay_each_others_answer(
    tmp_path: Path, redis_url: str
) -> None:
    browsers = [GatedBrowser(), GatedBrowser()]
    apps = [
        create_app(
            Settings(
                data_dir=tmp_path / f"replica-{n}",
                secret="replicas-share-this-secret-0123",
                redis_url=redis_url,
                cache_ttl_seconds=0,
            ),
            browser=browser,
            mailer=MemoryMailer(),
        )
        for n, browser in enumerate(browsers)
    ]
    async with served_app(apps[0]) as a, served_app(apps[1]) as b:
        key = await _key(a)
        browsers[0].gated = True
        first = asyncio.create_task(a.post("/api/image", json=IMAGE, headers=_headers(key, "r")))
        await asyncio.wait_for(browsers[0].waiting.wait(), 10)
        during = await b.post("/api/image", json=IMAGE, headers=_headers(key, "r"))
        browsers[0].gate.set()
        done = await asyncio.wait_for(first, 10)
        replayed = await b.post("/api/image", json=IMAGE, headers=_headers(key, "r"))
        used = await _images_used(b, key)

    assert during.status_code == 409
    assert during.json()["code"] == "IDEMPOTENCY_KEY_IN_PROGRESS"
    assert done.status_code == 200
    assert replayed.json() == done.json()
    assert replayed.headers["idempotent-replayed"] == "true"
    assert (len(browsers[0].renders), len(browsers[1].renders)) == (1, 0)
    assert used == 1


async def test_a_body_over_the_size_limit_is_refused_before_any_entry_is_made(
    make_settings: Callable[..., Settings],
) -> None:
    browser = GatedBrowser()
    settings = make_settings(cache_ttl_seconds=0, max_body_bytes=2000)
    app = create_app(settings, browser=browser, mailer=MemoryMailer())
    huge = {**IMAGE, "data": {"title": "x" * 5000}}
    async with served_app(app) as server:
        key = await _key(server)
        answers = [
            await server.post("/api/image", json=huge, headers=_headers(key, "huge"))
            for _ in range(2)
        ]
        # The key was never claimed: a fitting body with it runs.
        fitting = await server.post("/api/image", json=IMAGE, headers=_headers(key, "huge"))

    assert [a.status_code for a in answers] == [413, 413]
    assert not any("idempotent-replayed" in a.headers for a in answers)
    assert fitting.status_code == 200
    assert "idempotent-replayed" not in fitting.headers
