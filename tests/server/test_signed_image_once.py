"""Simultaneous first views of one signed image URL render it once and charge it once,
over real HTTP, in one server and across two replicas sharing Redis."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from urllib.parse import urlsplit

import httpx
import pytest

from renderkit import sign_image_url
from renderkit.browser import Capture, Shell
from renderkit.image.signed_url import public_key_id
from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.settings import Settings
from tests._uvicorn import served_app
from tests.server._redis import redis_server, require_redis_server

from .conftest import ADMIN

pytestmark = pytest.mark.anyio

VIEWS = 8


class SlowBrowser(FakeBrowser):
    """A fake whose captures take a moment, so simultaneous views overlap the render."""

    async def capture_fragment(self, shell: Shell, fragment: str, capture: Capture) -> bytes:
        await asyncio.sleep(0.3)
        return await super().capture_fragment(shell, fragment, capture)

    async def capture_document(self, html: str, capture: Capture) -> bytes:
        await asyncio.sleep(0.3)
        return await super().capture_document(html, capture)


async def _pro_key(client: httpx.AsyncClient) -> str:
    # Pro: its burst limit (60 a minute) cannot be what stops duplicate renders.
    response = await client.post(
        "/api/keys/generate",
        json={"email": "once@example.com", "plan": "pro"},
        headers={"Authorization": f"Bearer {ADMIN}"},
    )
    assert response.status_code == 200, response.text
    key: str = response.json()["key"]
    # One authenticated call teaches the server the key's URL-signing secret.
    warm = await client.post(
        "/api/pdf-gen",
        json={"template": "letter", "data": {"body": "Hi"}},
        headers={"X-SVC-Key": key},
    )
    assert warm.status_code == 200, warm.text
    return key


def _target(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"


@pytest.mark.parametrize("replicas", [1, 2], ids=["one-server", "two-replicas-on-redis"])
async def test_simultaneous_first_views_of_a_signed_url_render_and_charge_once(
    make_settings: Callable[..., Settings], replicas: int
) -> None:
    with contextlib.ExitStack() as stack:
        overrides = {}
        if replicas > 1:
            require_redis_server()
            overrides["redis_url"] = stack.enter_context(redis_server())
        browsers = [SlowBrowser() for _ in range(replicas)]
        # Same data directory: the replicas share the file storage, as workers of one host.
        apps = [
            create_app(make_settings(**overrides), browser=b, mailer=MemoryMailer())
            for b in browsers
        ]
        async with contextlib.AsyncExitStack() as servers:
            clients = [await servers.enter_async_context(served_app(app)) for app in apps]
            key = await _pro_key(clients[0])
            lineage = public_key_id(key).partition(".")[0]
            quotas = apps[0].state.services.quotas
            before = (await quotas.usage(lineage)).get("images", 0)
            url = _target(sign_image_url("http://x", key, "og-card", {"title": "Once"}, scale=1))

            views = await asyncio.gather(*(clients[n % replicas].get(url) for n in range(VIEWS)))

            assert [v.status_code for v in views] == [200] * VIEWS, [v.text for v in views]
            assert len({v.content for v in views}) == 1
            assert views[0].content.startswith(b"\x89PNG")
            images = [r for b in browsers for r in b.renders if r.capture is not None]
            assert len(images) == 1
            assert (await quotas.usage(lineage)).get("images", 0) - before == 1
