"""POST /api/screenshot through the test client (in-memory browser)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from litestar.testing import AsyncTestClient

from renderkit import BlockedUrlError, NavigationError
from renderkit.testing import FakeBrowser, RecordedRender
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.settings import Settings

from .conftest import issue_key

pytestmark = pytest.mark.anyio

VARIANT_A = {
    "url": "https://example.com/",
    "device": "desktop",
    "format": "png",
    "fullPage": False,
    "darkMode": True,
    "blockAds": False,
    "delay": 0,
}
VARIANT_B = {
    "url": "https://example.com/pricing",
    "viewport": {"width": 1024, "height": 768},
    "format": "jpeg",
    "quality": 80,
    "fullPage": True,
    "blockAds": True,
    "selector": "main",
}


@pytest.mark.parametrize(
    ("path", "body", "size"),
    [("/api/screenshot", VARIANT_A, (1280, 800)), ("/v1/screenshot", VARIANT_B, (1024, 768))],
)
async def test_screenshot_accepts_both_variants_and_answers_the_superset(
    client: AsyncTestClient,
    fake_browser: FakeBrowser,
    path: str,
    body: dict,
    size: tuple[int, int],
) -> None:
    key = await issue_key(client)
    response = await client.post(path, json=body, headers={"X-SVC-Key": key})
    assert response.status_code == 200, response.text
    result = response.json()
    assert (result["width"], result["height"]) == size
    assert result["format"] == body["format"]
    assert result["device"] == body.get("device", "desktop")
    assert result["full_page"] is body["fullPage"]
    assert result["source_url"] == body["url"]
    assert result["captured_at"].endswith("Z")
    assert result["credits_used"] == 1
    assert result["success"] is True
    shot = fake_browser.renders[-1]
    assert shot.kind == "url"


async def test_screenshot_options_reach_the_browser(make_settings: Callable[..., Settings]) -> None:
    seen: list[RecordedRender] = []
    app = create_app(make_settings(), browser=FakeBrowser(seen.append), mailer=MemoryMailer())
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        await client.post(
            "/api/screenshot",
            json={"url": "https://example.com", "device": "mobile", "format": "webp"},
            headers={"X-SVC-Key": key},
        )
    capture = seen[-1].capture
    assert capture is not None
    assert (capture.width, capture.height, capture.scale) == (390, 844, 3)


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({}, "url"),
        ({"url": "ftp://example.com"}, "url"),
        ({"url": "https://x.io", "delay": 60000}, "delay"),
        ({"url": "https://x.io", "device": "watch"}, "device"),
        ({"url": "https://x.io", "viewport": {"width": 10, "height": 800}}, "viewport.width"),
    ],
)
async def test_screenshot_validation_names_the_field(
    client: AsyncTestClient, payload: dict, field: str
) -> None:
    key = await issue_key(client)
    response = await client.post("/api/screenshot", json=payload, headers={"X-SVC-Key": key})
    assert response.status_code == 400
    assert response.json()["fields"][0]["field"] == field


@pytest.mark.parametrize(
    ("error", "status", "code"),
    [
        (
            BlockedUrlError("url: not allowed", url="http://10.0.0.1", field="url"),
            400,
            "BLOCKED_URL",
        ),
        (
            NavigationError("url: could not be loaded", url="https://x.invalid"),
            502,
            "NAVIGATION_FAILED",
        ),
    ],
)
async def test_blocked_and_unreachable_pages_map_to_statuses_and_cost_nothing(
    make_settings: Callable[..., Settings], error: Exception, status: int, code: str
) -> None:
    def fail(render: RecordedRender) -> None:
        raise error

    app = create_app(
        make_settings(plans={"starter": {"screenshots": 1}}),
        browser=FakeBrowser(fail),
        mailer=MemoryMailer(),
    )
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        for _ in range(2):
            response = await client.post(
                "/api/screenshot", json={"url": "https://x.io"}, headers={"X-SVC-Key": key}
            )
            assert response.status_code == status
            assert response.json()["code"] == code


async def test_a_private_address_refusal_does_not_name_the_library_switch_to_api_clients(
    make_settings: Callable[..., Settings],
) -> None:
    def fail(render: RecordedRender) -> None:
        message = "private addresses are not allowed (BrowserConfig.allow_private_network ...)"
        raise BlockedUrlError(message, url="http://127.0.0.1/", private=True)

    app = create_app(
        make_settings(plans={"starter": {"screenshots": 1}}),
        browser=FakeBrowser(fail),
        mailer=MemoryMailer(),
    )
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        response = await client.post(
            "/api/screenshot", json={"url": "https://x.io"}, headers={"X-SVC-Key": key}
        )
    assert response.status_code == 400
    assert response.json()["code"] == "BLOCKED_URL"
    assert response.json()["error"] == "private addresses are not allowed"
