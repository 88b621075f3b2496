"""Signed render-by-URL images: a page's og:image fetched as a crawler does, and refusals."""

from __future__ import annotations

import io
import time
from collections.abc import AsyncIterator, Callable
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient
from PIL import Image

from renderkit import sign_image_url
from renderkit.browser import BrowserConfig, ChromiumPool
from renderkit.image.signed_url import public_key_id
from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.settings import Settings

from .conftest import issue_key

pytestmark = pytest.mark.anyio

BASE = "http://testserver.local"


class _OgImage(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.url: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "meta" and found.get("property") == "og:image":
            self.url = found.get("content")


def og_image(html: str) -> str:
    parser = _OgImage()
    parser.feed(html)
    assert parser.url is not None
    return parser.url


def target(url: str) -> str:
    """What a crawler requests of a URL: its path and query."""
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"


def with_param(url: str, name: str, value: str) -> str:
    parts = urlsplit(url)
    params = dict(parse_qsl(parts.query))
    params[name] = value
    return f"{parts.path}?{urlencode(params)}"


async def usage(app: Litestar, key: str) -> int:
    lineage = public_key_id(key).partition(".")[0]
    used = await app.state.services.quotas.usage(lineage)
    return int(used.get("images", 0))


@pytest.fixture
async def chromium_app(
    make_settings: Callable[..., Settings],
) -> AsyncIterator[tuple[AsyncTestClient, Litestar]]:
    pool = ChromiumPool(BrowserConfig(slots=1, allow_private_network=True, document_timeout=20))
    app = create_app(make_settings(), browser=pool, mailer=MemoryMailer())
    async with AsyncTestClient(app, timeout=60) as client:
        yield client, app


@pytest.mark.browser
async def test_a_crawler_fetching_a_pages_og_image_gets_the_png_then_304_and_is_charged_once(
    chromium_app: tuple[AsyncTestClient, Litestar],
) -> None:
    client, app = chromium_app
    key = await issue_key(client)
    url = sign_image_url(BASE, key, "og-card", {"title": "Signed", "subtitle": "by URL"}, scale=1)
    page = f'<html><head><meta property="og:image" content="{url}"></head></html>'

    first = await client.get(target(og_image(page)))
    assert first.status_code == 200, first.text
    assert first.headers["content-type"] == "image/png"
    assert first.headers["cache-control"] == "public, max-age=31536000, immutable"
    etag = first.headers["etag"]
    assert etag.startswith('"') and etag.endswith('"')
    assert Image.open(io.BytesIO(first.content)).size == (1200, 630)

    again = await client.get(target(url), headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert again.headers["etag"] == etag
    assert again.content == b""

    uncached = await client.get(target(url).replace("/api/", "/v1/"))
    assert uncached.status_code == 200
    assert uncached.content == first.content
    assert uncached.headers["etag"] == etag
    assert await usage(app, key) == 1


async def test_a_tampered_field_or_signature_is_403_signature_invalid(
    client: AsyncTestClient,
) -> None:
    key = await issue_key(client)
    url = sign_image_url(BASE, key, "og-card", {"title": "Original"})
    for tampered in (
        with_param(url, "title", "Changed"),
        with_param(url, "sig", "A" * 43),
        target(url).replace("og-card.png", "og-card.webp"),
        target(url).replace("og-card.png", "social-square.png"),
    ):
        response = await client.get(tampered)
        assert response.status_code == 403, tampered
        assert response.json()["code"] == "SIGNATURE_INVALID"


async def test_an_expired_url_is_403_url_expired(client: AsyncTestClient) -> None:
    key = await issue_key(client)
    url = sign_image_url(BASE, key, "og-card", {"title": "Old"}, expires=int(time.time()) - 1)
    response = await client.get(target(url))
    assert response.status_code == 403
    assert response.json()["code"] == "URL_EXPIRED"


async def test_a_url_signed_by_a_regenerated_key_is_403_and_the_new_keys_urls_verify(
    client: AsyncTestClient,
) -> None:
    key = await issue_key(client)
    old = sign_image_url(BASE, key, "og-card", {"title": "Rotate"})
    regenerated = await client.post("/api/keys/regenerate", json={"key": key})
    assert regenerated.status_code == 200
    response = await client.get(target(old))
    assert response.status_code == 403
    assert response.json()["code"] == "KEY_REVOKED"
    # An unknown field is only reported once the signature holds: the new key's URL gets there.
    new = sign_image_url(BASE, regenerated.json()["key"], "og-card", {"colour": "red"})
    assert (await client.get(target(new))).status_code == 400


async def test_unknown_query_parameters_are_400_naming_them(client: AsyncTestClient) -> None:
    key = await issue_key(client)
    url = sign_image_url(BASE, key, "og-card", {"title": "T", "colour": "red", "zz": "1"})
    response = await client.get(target(url))
    assert response.status_code == 400
    assert "colour" in response.text and "zz" in response.text


async def test_a_kid_the_server_never_saw_or_a_missing_sig_is_403(
    client: AsyncTestClient,
) -> None:
    key = await issue_key(client)
    url = sign_image_url(BASE, key, "og-card", {"title": "T"})
    lineage, _, generation = public_key_id(key).partition(".")
    unseen = with_param(url, "kid", f"{lineage}.{int(generation) + 7}")
    response = await client.get(unseen)
    assert response.status_code == 403
    assert response.json()["code"] == "SIGNATURE_INVALID"
    missing = target(url).split("&sig=")[0]
    assert (await client.get(missing)).status_code == 403


async def test_a_replica_learns_a_keys_url_secret_when_the_key_authenticates_there(
    client: AsyncTestClient, make_settings: Callable[..., Settings], tmp_path: Path
) -> None:
    key = await issue_key(client)
    url = sign_image_url(BASE, key, "og-card", {"title": "T", "bogus": "1"})
    other = create_app(
        make_settings(data_dir=tmp_path / "other"),
        browser=FakeBrowser(),
        mailer=MemoryMailer(),
    )
    async with AsyncTestClient(other) as replica:
        assert (await replica.get(target(url))).status_code == 403
        rendered = await replica.post(
            "/api/image",
            json={"template": "og-card", "data": {"title": "hello"}},
            headers={"Authorization": f"Bearer {key}"},
        )
        assert rendered.status_code == 200, rendered.text
        # Past the signature check: the unknown field is what is refused now.
        assert (await replica.get(target(url))).status_code == 400


async def test_a_signed_url_with_a_field_the_template_does_not_display_still_serves_the_image(
    client: AsyncTestClient,
) -> None:
    key = await issue_key(client)
    # One authenticated call teaches the server the key's URL-signing secret.
    warm = await client.post(
        "/api/image",
        json={"template": "og-card", "data": {"title": "Warm"}},
        headers={"X-SVC-Key": key},
    )
    assert warm.status_code == 200, warm.text
    url = sign_image_url(BASE, key, "og-card", {"title": "Hi", "cta": "Read"}, scale=1)

    response = await client.get(target(url))

    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "image/png"
    assert Image.open(io.BytesIO(response.content)).size == (1200, 630)
