"""Produced files are served like a CDN would: real HTTP through the Litestar test client."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from email.utils import parsedate_to_datetime

import pytest
from litestar.testing import AsyncTestClient

from renderkit.storage import LocalStorage
from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.byteranges import RangeNotSatisfiableError, parse_range
from renderkit_server.mail import MemoryMailer
from renderkit_server.settings import Settings

from .conftest import issue_key

AUDIO = bytes(range(256)) * 40  # 10,240 bytes
KEY = "audio/2026/11/24/0123456789abcdef.mp3"


@pytest.mark.parametrize(
    ("header", "span"),
    [
        (None, None),
        ("bytes=0-99", (0, 99)),
        ("bytes=1000-", (1000, 10_239)),
        ("bytes=-100", (10_140, 10_239)),
        ("bytes=-99999", (0, 10_239)),
        ("bytes=10000-99999", (10_000, 10_239)),
        ("bytes=5-1", None),  # invalid: ignored
        ("bytes=0-1,5-9", None),  # several ranges: the whole file
        ("items=0-1", None),
    ],
)
def test_parse_range_reads_single_byte_ranges(
    header: str | None, span: tuple[int, int] | None
) -> None:
    assert parse_range(header, len(AUDIO)) == span


@pytest.mark.parametrize("header", ["bytes=10240-", "bytes=-0", "bytes=99999-100000"])
def test_parse_range_refuses_ranges_past_the_end(header: str) -> None:
    with pytest.raises(RangeNotSatisfiableError):
        parse_range(header, len(AUDIO))


@pytest.fixture
async def files_client(
    make_settings: Callable[..., Settings],
) -> AsyncIterator[tuple[AsyncTestClient, str]]:
    settings = make_settings()
    app = create_app(settings, browser=FakeBrowser(), mailer=MemoryMailer())
    async with AsyncTestClient(app) as client:
        urls = app.state.services.urls
        assert isinstance(urls.storage, LocalStorage)
        await urls.storage.put(KEY, AUDIO, content_type="audio/mpeg")
        url = await urls.url_for(KEY, "http://testserver.local")
        yield client, url.removeprefix("http://testserver.local")


pytestmark = pytest.mark.anyio


async def test_a_file_carries_nosniff_a_real_filename_a_strong_etag_and_its_dates(
    files_client: tuple[AsyncTestClient, str],
) -> None:
    client, path = files_client
    response = await client.get(path)
    assert response.status_code == 200
    assert response.content == AUDIO
    assert response.headers["content-type"] == "audio/mpeg"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["content-disposition"] == (
        'inline; filename="renderkit-0123456789abcdef.mp3"'
    )
    assert re.fullmatch(r'"[0-9a-f]{32}"', response.headers["etag"])
    assert response.headers["accept-ranges"] == "bytes"
    assert parsedate_to_datetime(response.headers["last-modified"]).tzinfo is not None
    cache = response.headers["cache-control"]
    assert cache.startswith("private, max-age=") and cache.endswith(", immutable")
    assert 0 < int(cache.split("max-age=")[1].split(",")[0]) <= 86_400


async def test_head_answers_the_same_headers_without_a_body(
    files_client: tuple[AsyncTestClient, str],
) -> None:
    client, path = files_client
    get = await client.get(path)
    head = await client.head(path)
    assert head.status_code == 200
    assert head.content == b""
    assert head.headers["content-length"] == str(len(AUDIO))
    for name in ("etag", "content-type", "content-disposition", "x-content-type-options"):
        assert head.headers[name] == get.headers[name]


async def test_a_browser_audio_seek_gets_206_with_the_rest_of_the_file(
    files_client: tuple[AsyncTestClient, str],
) -> None:
    client, path = files_client
    response = await client.get(path, headers={"Range": "bytes=1000-"})
    assert response.status_code == 206
    assert response.content == AUDIO[1000:]
    assert response.headers["content-range"] == f"bytes 1000-{len(AUDIO) - 1}/{len(AUDIO)}"
    assert response.headers["content-length"] == str(len(AUDIO) - 1000)


async def test_a_closed_range_and_a_suffix_range_return_exactly_those_bytes(
    files_client: tuple[AsyncTestClient, str],
) -> None:
    client, path = files_client
    middle = await client.get(path, headers={"Range": "bytes=10-19"})
    assert (middle.status_code, middle.content) == (206, AUDIO[10:20])
    tail = await client.get(path, headers={"Range": "bytes=-5"})
    assert (tail.status_code, tail.content) == (206, AUDIO[-5:])


async def test_a_range_past_the_end_is_416_with_the_size(
    files_client: tuple[AsyncTestClient, str],
) -> None:
    client, path = files_client
    response = await client.get(path, headers={"Range": "bytes=99999-"})
    assert response.status_code == 416
    assert response.headers["content-range"] == f"bytes */{len(AUDIO)}"
    assert response.json()["code"] == "RANGE_NOT_SATISFIABLE"


async def test_if_none_match_with_the_etag_is_304_without_a_body(
    files_client: tuple[AsyncTestClient, str],
) -> None:
    client, path = files_client
    etag = (await client.get(path)).headers["etag"]
    response = await client.get(path, headers={"If-None-Match": f'"other", W/{etag}'})
    assert response.status_code == 304
    assert response.content == b""
    assert response.headers["etag"] == etag
    changed = await client.get(path, headers={"If-None-Match": '"other"'})
    assert changed.status_code == 200


async def test_if_range_with_an_old_etag_sends_the_whole_file(
    files_client: tuple[AsyncTestClient, str],
) -> None:
    client, path = files_client
    response = await client.get(path, headers={"Range": "bytes=0-9", "If-Range": '"old"'})
    assert response.status_code == 200
    assert response.content == AUDIO


async def test_files_behind_a_permanent_public_url_are_cached_publicly_for_a_year(
    make_settings: Callable[..., Settings],
) -> None:
    settings = make_settings(files_public_url="http://testserver.local/files")
    app = create_app(settings, browser=FakeBrowser(), mailer=MemoryMailer())
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        result = await client.post(
            "/api/image",
            json={"template": "og-card", "data": {"title": "t"}, "format": "png"},
            headers={"X-SVC-Key": key},
        )
        assert result.status_code == 200, result.text
        file = await client.get(result.json()["url"].removeprefix("http://testserver.local"))
    assert file.status_code == 200
    assert file.headers["cache-control"] == "public, max-age=31536000, immutable"


async def test_a_rendered_pdf_is_served_under_its_readable_name(
    files_client: tuple[AsyncTestClient, str],
) -> None:
    client, _ = files_client
    key = await issue_key(client, email="names@example.com")
    response = await client.post(
        "/api/pdf-gen",
        json={"template": "invoice", "data": {"invoice_number": "INV-0042"}, "cache": False},
        headers={"Authorization": f"Bearer {key}"},
    )
    assert response.status_code == 200, response.text
    file = await client.get(response.json()["url"].removeprefix("http://testserver.local"))
    assert file.headers["content-disposition"] == 'inline; filename="invoice-INV-0042.pdf"'


async def test_a_non_ascii_name_is_served_with_an_ascii_fallback_and_utf8(
    files_client: tuple[AsyncTestClient, str],
) -> None:
    client, _ = files_client
    key = await issue_key(client, email="utf8@example.com")
    response = await client.post(
        "/api/image",
        json={"template": "og-card", "data": {"title": "日本語"}, "cache": False},
        headers={"Authorization": f"Bearer {key}"},
    )
    assert response.status_code == 200, response.text
    file = await client.get(response.json()["url"].removeprefix("http://testserver.local"))
    assert file.headers["content-disposition"] == (
        "inline; filename=\"og-card.png\"; filename*=UTF-8''og-card-%E6%97%A5%E6%9C%AC%E8%AA%9E.png"
    )
