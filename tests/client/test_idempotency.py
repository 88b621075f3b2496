"""The client sends an ``Idempotency-Key`` on every call and the same one on its retries."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from renderkit import ApiError, AsyncClient, Client
from renderkit.core.retry import RetryPolicy
from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.settings import Settings
from tests._uvicorn import served_app

pytestmark = pytest.mark.anyio

IMAGE = {"template": "og-card", "data": {"title": "Hi"}, "scale": 1}
ANSWER = {"format": "png", "width": 1, "height": 1, "template": "og-card", "url": None}
RETRY = RetryPolicy(max_retries=3, backoff=0.0)


async def _no_sleep(seconds: float) -> None:
    return None


def _recording(
    answers: list[Callable[[httpx.Request], httpx.Response]],
) -> tuple[httpx.MockTransport, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return answers.pop(0)(request)

    return httpx.MockTransport(handle), seen


def _timeout(request: httpx.Request) -> httpx.Response:
    raise httpx.ReadTimeout("no answer in time", request=request)


def _ok(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, json=ANSWER)


def _running(request: httpx.Request) -> httpx.Response:
    body = {"error": "still running", "code": "IDEMPOTENCY_KEY_IN_PROGRESS", "status": 409}
    return httpx.Response(409, json=body, headers={"Retry-After": "1"})


async def test_a_retry_after_a_timeout_sends_the_same_key_as_the_first_attempt() -> None:
    transport, seen = _recording([_timeout, _ok])
    async with AsyncClient(
        "http://render.test", "sk", transport=transport, retry=RETRY, sleep=_no_sleep
    ) as client:
        await client.render_image(IMAGE)

    keys = [request.headers["idempotency-key"] for request in seen]
    assert len(keys) == 2
    assert keys[0] == keys[1]
    assert uuid.UUID(keys[0]).version == 4


async def test_each_call_has_its_own_key_and_a_callers_key_is_sent_as_given() -> None:
    transport, seen = _recording([_ok, _ok, _ok])
    async with AsyncClient("http://render.test", "sk", transport=transport) as client:
        await client.render_image(IMAGE)
        await client.render_image(IMAGE)
        await client.render_image(IMAGE, idempotency_key="invoice-2026-11-0042")

    keys = [request.headers["idempotency-key"] for request in seen]
    assert keys[0] != keys[1]
    assert keys[2] == "invoice-2026-11-0042"


async def test_a_retry_finding_the_first_attempt_still_running_tries_again_with_its_key() -> None:
    transport, seen = _recording([_timeout, _running, _ok])
    async with AsyncClient(
        "http://render.test", "sk", transport=transport, retry=RETRY, sleep=_no_sleep
    ) as client:
        result = await client.render_image(IMAGE)

    assert result.width == 1
    assert len({request.headers["idempotency-key"] for request in seen}) == 1
    assert len(seen) == 3


async def test_a_first_attempt_running_past_the_retries_raises_the_409() -> None:
    transport, _ = _recording([_running] * 4)
    async with AsyncClient(
        "http://render.test", "sk", transport=transport, retry=RETRY, sleep=_no_sleep
    ) as client:
        with pytest.raises(ApiError) as raised:
            await client.render_image(IMAGE)

    assert raised.value.status == 409


def test_the_blocking_client_passes_a_callers_key() -> None:
    transport, seen = _recording([_ok])
    with Client("http://render.test", "sk", transport=transport) as client:
        client.render_image(IMAGE, idempotency_key="image-1")

    assert seen[0].headers["idempotency-key"] == "image-1"


class _LoseFirstAnswer(httpx.AsyncBaseTransport):
    """The network for real, except that the first answer is lost after the server sent it
    (the server did the work; the client saw a timeout)."""

    def __init__(self) -> None:
        self._inner = httpx.AsyncHTTPTransport()
        self.sent: list[httpx.Request] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(request)
        response = await self._inner.handle_async_request(request)
        if len(self.sent) == 1:
            await response.aread()
            raise httpx.ReadTimeout("the answer was lost", request=request)
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


async def test_a_real_server_renders_and_charges_once_when_the_first_answer_is_lost(
    tmp_path: Path,
) -> None:
    browser = FakeBrowser()
    settings = Settings(
        data_dir=tmp_path / "data", secret="client-idempotency-secret-0123", cache_ttl_seconds=0
    )
    app = create_app(settings, browser=browser, mailer=MemoryMailer())
    async with served_app(app) as http:
        key = (await http.post("/api/keys/generate", json={"email": "a@example.com"})).json()
        transport = _LoseFirstAnswer()
        async with AsyncClient(
            str(http.base_url), key["key"], transport=transport, retry=RETRY, sleep=_no_sleep
        ) as client:
            result = await client.render_image(IMAGE)
        usage = await http.get("/api/usage", headers={"X-SVC-Key": key["key"]})

    assert result.width == 1200
    assert len(transport.sent) == 2
    assert (
        transport.sent[0].headers["idempotency-key"] == transport.sent[1].headers["idempotency-key"]
    )
    assert len(browser.renders) == 1
    assert usage.json()["metrics"]["images"]["used"] == 1
