"""The app wired to real backends from its settings: SMTP, Redis, CORS."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from litestar.testing import AsyncTestClient

from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.settings import Settings
from tests.server.test_mail import SmtpServer, smtp_server  # noqa: F401 - fixture

from ._redis import redis_server, require_redis_server

pytestmark = pytest.mark.anyio


async def test_generated_key_is_mailed_through_the_configured_smtp_server(
    make_settings: Callable[..., Settings],
    smtp_server: SmtpServer,  # noqa: F811
) -> None:
    settings = make_settings(
        smtp_host=smtp_server.host,
        smtp_port=smtp_server.port,
        smtp_tls=False,
        smtp_sender="keys@renderkit.test",
    )
    async with AsyncTestClient(create_app(settings, browser=FakeBrowser())) as client:
        response = await client.post("/api/keys/generate", json={"email": "dev@example.com"})
    key = response.json()["key"]
    (message,) = smtp_server.handler.messages()
    assert message["To"] == "dev@example.com"
    assert message["From"] == "keys@renderkit.test"
    assert key in message.get_body(preferencelist=("plain",)).get_content()


async def test_without_smtp_the_key_mail_lands_in_the_outbox(
    make_settings: Callable[..., Settings],
) -> None:
    settings = make_settings()
    async with AsyncTestClient(create_app(settings, browser=FakeBrowser())) as client:
        await client.post("/api/keys/generate", json={"email": "dev@example.com"})
    (eml,) = (settings.data_dir / "outbox").glob("*.eml")
    assert b"dev@example.com" in eml.read_bytes()


async def test_cors_allows_only_the_configured_origins(
    make_settings: Callable[..., Settings],
) -> None:
    settings = make_settings(cors_origins=("https://app.example.com",))
    async with AsyncTestClient(create_app(settings, browser=FakeBrowser())) as client:
        ok = await client.get("/api/health", headers={"Origin": "https://app.example.com"})
        other = await client.get("/api/health", headers={"Origin": "https://evil.example"})
    assert ok.headers["access-control-allow-origin"] == "https://app.example.com"
    assert "access-control-allow-origin" not in other.headers


async def test_quota_is_shared_by_two_replicas_through_redis(
    make_settings: Callable[..., Settings],
) -> None:
    require_redis_server()
    with redis_server() as url:
        settings = make_settings(
            redis_url=url, plans={"starter": {"images": 3, "burst_per_minute": None}}
        )
        one = create_app(settings, browser=FakeBrowser())
        two = create_app(settings, browser=FakeBrowser())
        async with AsyncTestClient(one) as a, AsyncTestClient(two) as b:
            key = (await a.post("/api/keys/generate", json={"email": "r@x.io"})).json()["key"]
            body = {"template": "og-card", "width": 16, "height": 16, "scale": 1, "cache": False}
            codes = []
            for client in (a, b, a, b):
                response = await client.post("/api/image", json=body, headers={"X-SVC-Key": key})
                codes.append(response.status_code)
    assert codes == [200, 200, 200, 429]


def test_every_parse_ceiling_setting_reaches_the_parse_limits(tmp_path: Path) -> None:
    from renderkit.parsing import ParseLimits
    from renderkit_server.services import parse_limits

    settings = Settings(
        data_dir=tmp_path,
        parse_max_bytes=1_000,
        parse_max_pages=2,
        parse_max_pixels=3_000,
        parse_max_ocr_pixels=4_000,
        parse_max_embedded_bytes=5_000,
        parse_max_inflated_bytes=6_000,
    )
    assert parse_limits(settings) == ParseLimits(
        max_bytes=1_000,
        max_pages=2,
        max_pixels=3_000,
        max_ocr_pixels=4_000,
        max_embedded_bytes=5_000,
        max_inflated_bytes=6_000,
    )
