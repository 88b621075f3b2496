"""POST /api/audio with "stream": true, on a real uvicorn: chunked audio, charged once."""

from __future__ import annotations

import io
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import av
import httpx
import pytest
from litestar import Litestar

from renderkit.core.errors import ProviderError
from renderkit.speech import SpeechProvider
from renderkit.testing import FakeBrowser, FakeSpeechProvider
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.settings import Settings
from tests._uvicorn import served_app

from ..speech._gated import GatedSpeaker
from .conftest import issue_key

pytestmark = pytest.mark.anyio

SCRIPT = "A streamed answer, played while it is spoken."


def _seconds(content: bytes) -> float:
    with av.open(io.BytesIO(content)) as container:
        stream = container.streams.audio[0]
        samples = sum(frame.samples for frame in container.decode(stream))
        return samples / stream.codec_context.sample_rate


def _app(make_settings: Callable[..., Settings], speech: SpeechProvider) -> Litestar:
    return create_app(make_settings(), browser=FakeBrowser(), mailer=MemoryMailer(), speech=speech)


async def _used(app: Litestar, key: str) -> dict[str, int]:
    services = app.state.services
    usage: dict[str, int] = await services.quotas.usage(services.keys.verify(key).key_id)
    return usage


@pytest.fixture
async def served(
    make_settings: Callable[..., Settings],
) -> AsyncIterator[tuple[Litestar, httpx.AsyncClient]]:
    app = _app(make_settings, FakeSpeechProvider())
    async with served_app(app, timeout=30) as client:
        yield app, client


async def test_a_streamed_call_answers_chunked_audio_and_is_charged_once(
    served: tuple[Litestar, httpx.AsyncClient],
) -> None:
    app, client = served
    key = await issue_key(client)  # type: ignore[arg-type]
    body: dict[str, Any] = {"script": SCRIPT, "format": "mp3", "stream": True}
    async with client.stream("POST", "/api/audio", json=body, headers={"X-SVC-Key": key}) as r:
        content = await r.aread()
    whole = await client.post(
        "/api/audio", json={"script": SCRIPT, "format": "mp3"}, headers={"X-SVC-Key": key}
    )

    assert r.status_code == 200
    assert r.headers["content-type"] == "audio/mpeg"
    assert r.headers["transfer-encoding"] == "chunked"
    assert "content-length" not in r.headers
    assert r.headers["x-ratelimit-remaining"] == str(10_000 - len(SCRIPT))
    assert _seconds(content) == pytest.approx(whole.json()["duration_seconds"], rel=0.05)
    # Two calls of the same script: each charged exactly once.
    assert (await _used(app, key))["audio_characters"] == 2 * len(SCRIPT)


async def test_the_first_chunk_reaches_the_client_before_the_engine_has_finished(
    make_settings: Callable[..., Settings],
) -> None:
    speaker = GatedSpeaker()
    app = _app(make_settings, speaker)
    async with served_app(app, timeout=30) as client:
        key = await issue_key(client)  # type: ignore[arg-type]
        body = {"script": SCRIPT, "format": "opus", "stream": True}
        arrivals: list[float] = []
        async with client.stream("POST", "/api/audio", json=body, headers={"X-SVC-Key": key}) as r:
            async for _chunk in r.aiter_raw():
                arrivals.append(time.monotonic())
                speaker.go.set()  # the engine speaks its second second only now
        assert r.status_code == 200
        assert speaker.finished is not None
        assert arrivals[0] < speaker.finished
        assert (await _used(app, key))["audio_characters"] == len(SCRIPT)


async def test_a_stream_failing_part_way_is_truncated_and_charged_nothing(
    make_settings: Callable[..., Settings],
) -> None:
    app = _app(make_settings, GatedSpeaker(gated=False, fail_part_way=True))
    async with served_app(app, timeout=30) as client:
        key = await issue_key(client)  # type: ignore[arg-type]
        body = {"script": SCRIPT, "format": "mp3", "stream": True}
        received: list[bytes] = []
        statuses: list[int] = []

        async def listen() -> None:
            headers = {"X-SVC-Key": key}
            async with client.stream("POST", "/api/audio", json=body, headers=headers) as r:
                statuses.append(r.status_code)
                async for chunk in r.aiter_raw():
                    received.append(chunk)

        with pytest.raises(httpx.RemoteProtocolError):
            await listen()
        assert statuses == [200]
        assert received, "the first second was sent before the failure"
        used = await _used(app, key)
        assert used.get("audio_characters", 0) == 0
        assert used.get("audio_minutes", 0) == 0


async def test_a_stream_failing_before_its_first_byte_answers_the_error_and_charges_nothing(
    make_settings: Callable[..., Settings],
) -> None:
    def refuse(request: object) -> None:
        msg = "refused"
        raise ProviderError(msg, provider="fake")

    app = _app(make_settings, FakeSpeechProvider(refuse))
    async with served_app(app, timeout=30) as client:
        key = await issue_key(client)  # type: ignore[arg-type]
        body = {"script": SCRIPT, "format": "mp3", "stream": True}
        response = await client.post("/api/audio", json=body, headers={"X-SVC-Key": key})
        assert response.status_code == 502, response.text
        assert response.json()["code"] == "UPSTREAM_ERROR"
        assert (await _used(app, key)).get("audio_characters", 0) == 0


@pytest.mark.parametrize(
    ("body", "headers", "field"),
    [
        ({"script": SCRIPT, "format": "wav", "stream": True}, {}, "format"),
        ({"script": SCRIPT, "stream": "yes"}, {}, "stream"),
        ({"script": SCRIPT, "stream": True}, {"Idempotency-Key": "k-1"}, "stream"),
    ],
)
async def test_a_stream_that_cannot_be_served_is_400_naming_the_field_and_charges_nothing(
    served: tuple[Litestar, httpx.AsyncClient],
    body: dict[str, Any],
    headers: dict[str, str],
    field: str,
) -> None:
    app, client = served
    key = await issue_key(client)  # type: ignore[arg-type]
    response = await client.post("/api/audio", json=body, headers={"X-SVC-Key": key, **headers})
    assert response.status_code == 400, response.text
    assert [f["field"] for f in response.json()["fields"]] == [field]
    assert (await _used(app, key)).get("audio_characters", 0) == 0


async def test_stream_false_answers_as_before_with_a_url(
    served: tuple[Litestar, httpx.AsyncClient],
) -> None:
    _, client = served
    key = await issue_key(client)  # type: ignore[arg-type]
    body = {"script": SCRIPT, "format": "mp3", "stream": False}
    response = await client.post("/api/audio", json=body, headers={"X-SVC-Key": key})
    assert response.status_code == 200, response.text
    assert response.json()["url"].startswith("http")


async def test_the_openapi_document_describes_the_stream_field_and_the_audio_answers(
    served: tuple[Litestar, httpx.AsyncClient],
) -> None:
    _, client = served
    document = (await client.get("/openapi.json")).json()
    post = document["paths"]["/api/audio"]["post"]
    body = post["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    schemas = document["components"]["schemas"]
    assert schemas[body.rsplit("/", 1)[1]]["properties"]["stream"]["type"] == "boolean"
    assert "stream" not in schemas["AudioRequest"]["properties"]  # jobs and MCP: unchanged
    assert {"audio/mpeg", "audio/ogg", "audio/aac"} <= set(post["responses"]["200"]["content"])
