"""The server on a fleet of remote browsers: settings, construction, per-key caps, health."""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Callable

import pytest
from litestar.testing import AsyncTestClient

from renderkit.browser import BrowserFleet, ChromiumPool, TenantBrowser
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.operations import _as_tenant
from renderkit_server.services import make_browser
from renderkit_server.settings import Settings
from renderkit_server.state.inflight import LimitedBrowser

from ..browser._remote import remote_browsers
from .conftest import ADMIN, issue_key

pytestmark = pytest.mark.anyio

OG_CARD = {"template": "og-card", "data": {"title": "Fleet", "subtitle": "two browsers"}}


def _unused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_cdp_urls_are_a_comma_separated_list_never_shown() -> None:
    environ = {"RENDERKIT_BROWSER_CDP_URLS": "ws://a:3000?token=t0ken, http://b:9222 ,"}
    settings = Settings.from_env(environ)
    assert settings.browser_cdp_urls == ("ws://a:3000?token=t0ken", "http://b:9222")
    assert "t0ken" not in repr(settings)
    report = settings.environment_report(environ)["RENDERKIT_BROWSER_CDP_URLS"]
    assert report == {"set": True, "length": len(environ["RENDERKIT_BROWSER_CDP_URLS"])}


async def test_cdp_urls_make_a_fleet_and_one_cdp_url_stays_a_remote_pool() -> None:
    fleet = make_browser(Settings(browser_cdp_urls=("http://a:1", "http://b:2")))
    assert isinstance(fleet, BrowserFleet)
    assert len(fleet.stats().members) == 2
    both = make_browser(Settings(browser_cdp_url="http://a:1", browser_cdp_urls=("http://b:2",)))
    assert [m.endpoint for m in both.stats().members] == ["http://a:1", "http://b:2"]  # type: ignore[attr-defined]
    pool = make_browser(Settings(browser_cdp_url="http://a:1"))
    assert isinstance(pool, ChromiumPool) and pool.config.cdp_url == "http://a:1"
    assert isinstance(make_browser(Settings()), ChromiumPool)


async def test_renders_on_a_fleet_run_as_the_key_under_its_plans_cap(
    make_settings: Callable[..., Settings],
) -> None:
    app = create_app(
        make_settings(browser_cdp_urls=(f"http://127.0.0.1:{_unused_port()}",)),
        mailer=MemoryMailer(),
    )
    async with AsyncTestClient(app):
        services = app.state.services
        limited = _as_tenant(services.production, "key-1", "starter").browser
        assert isinstance(limited, LimitedBrowser)  # the cap over every replica, first
        seen = limited.browser
        assert isinstance(seen, TenantBrowser)
        assert seen.pool is services.engines.browser
        assert seen.tenant.key == "key-1" and seen.tenant.max_inflight == 1


async def test_an_unreachable_fleet_is_reported_down_without_its_tokens(
    make_settings: Callable[..., Settings], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    dead = f"ws://user:pa55-secret@127.0.0.1:{_unused_port()}/?token=tok-secret"
    app = create_app(make_settings(browser_cdp_urls=(dead,)), mailer=MemoryMailer())
    async with AsyncTestClient(app) as client:
        health = (await client.get("/api/health")).json()
        assert health["components"]["browser"] == "down"
        key = await issue_key(client)
        response = await client.post("/api/image", json=OG_CARD, headers={"X-SVC-Key": key})
        assert response.status_code == 503
        assert response.json()["code"] == "RENDERER_UNAVAILABLE"
        assert int(response.headers["Retry-After"]) >= 1
        admin = {"Authorization": f"Bearer {ADMIN}"}
        browser = (await client.get("/api/health/diagnostic", headers=admin)).json()["checks"][
            "browser"
        ]
        assert browser["ok"] is False
        assert browser["endpoints"] == [
            {
                "endpoint": f"ws://***@127.0.0.1:{dead.split(':')[3].split('/')[0]}/?token=***",
                "healthy": False,
                "slots": 2,
                "busy": 0,
                "queued": 0,
            }
        ]
        texts = (response.text, str(browser), caplog.text)
    for text in texts:
        assert "secret" not in text


async def test_a_single_remote_browser_that_cannot_start_is_logged_without_its_token(
    make_settings: Callable[..., Settings], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    dead = f"http://127.0.0.1:{_unused_port()}/?token=tok-secret"
    app = create_app(make_settings(browser_cdp_url=dead), mailer=MemoryMailer())
    async with AsyncTestClient(app):
        pass
    assert "could not be started" in caplog.text
    assert "tok-secret" not in caplog.text


@pytest.mark.browser
async def test_health_shows_each_endpoint_and_renders_continue_when_one_dies(
    make_settings: Callable[..., Settings], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    # Direct ports: the test client runs the app on another loop while it blocks this one.
    async with remote_browsers(2, relay=False) as (a, b):
        endpoints = (f"{a.url}/?token=tok-secret-a", f"{b.url}/?token=tok-secret-b")
        settings = make_settings(browser_cdp_urls=endpoints, browser_slots=1)
        app = create_app(settings, mailer=MemoryMailer())
        async with AsyncTestClient(app, timeout=60) as client:
            key = await issue_key(client, plan="pro")
            headers = {"X-SVC-Key": key}
            admin = {"Authorization": f"Bearer {ADMIN}"}
            for _ in range(2):
                response = await client.post("/api/image", json=OG_CARD, headers=headers)
                assert response.status_code == 200, response.text
            assert (await client.get("/api/health")).json()["components"]["browser"] == "ok"
            a.kill()
            async with asyncio.timeout(10):
                # Polled: what the load balancer would see, within the watcher's interval.
                while (await client.get("/api/health")).json()["components"][  # noqa: ASYNC110
                    "browser"
                ] == "ok":
                    await asyncio.sleep(0.2)
            assert (await client.get("/api/health")).json()["components"]["browser"] == "degraded"
            for _ in range(2):
                response = await client.post("/api/image", json=OG_CARD, headers=headers)
                assert response.status_code == 200, response.text
            diagnostic = await client.get("/api/health/diagnostic", headers=admin)
            browser = diagnostic.json()["checks"]["browser"]
            assert browser["ok"] is True and browser["backend"] == "BrowserFleet"
            assert [(e["endpoint"], e["healthy"], e["slots"]) for e in browser["endpoints"]] == [
                (f"{a.url}/?token=***", False, 1),
                (f"{b.url}/?token=***", True, 1),
            ]
            assert browser["slots"] == 1
            texts = (diagnostic.text, caplog.text)
    for text in texts:
        assert "tok-secret" not in text
