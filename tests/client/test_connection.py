"""How the client finds its server and key, and what it raises when it cannot use them."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from renderkit import (
    AsyncClient,
    AuthenticationError,
    Client,
    ConfigurationError,
    ProviderUnavailableError,
    RenderkitError,
    ServerUnreachableError,
)
from renderkit.core.filenames import content_disposition
from renderkit.core.retry import RetryPolicy

NO_RETRY = RetryPolicy(max_retries=0)
IMAGE = {"template": "og-card", "data": {"title": "Hi"}}


@pytest.fixture
def refused_port() -> Iterator[int]:
    """A loopback port nothing listens on: bound (so no one else takes it), never listening."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


def test_a_server_that_refuses_the_connection_raises_server_unreachable_error(
    refused_port: int,
) -> None:
    with (
        Client(f"http://127.0.0.1:{refused_port}", "sk_live_x", retry=NO_RETRY) as client,
        pytest.raises(ServerUnreachableError) as raised,
    ):
        client.render_image(IMAGE)

    assert isinstance(raised.value, ProviderUnavailableError)
    assert isinstance(raised.value, RenderkitError)
    assert isinstance(raised.value, ConnectionError)
    assert f"127.0.0.1:{refused_port}/api/image" in str(raised.value)
    assert isinstance(raised.value.__cause__, httpx.ConnectError)


@pytest.mark.anyio
async def test_a_refused_file_download_raises_server_unreachable_error(refused_port: int) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.port == refused_port:
            raise httpx.ConnectError("refused", request=request)
        body = {"format": "png", "width": 1, "height": 1, "template": "og-card"}
        return httpx.Response(200, json={**body, "url": f"http://127.0.0.1:{refused_port}/f"})

    transport = httpx.MockTransport(answer)
    async with AsyncClient("http://server", "k", retry=NO_RETRY, transport=transport) as client:
        result = await client.render_image(IMAGE)
        with pytest.raises(ServerUnreachableError, match="/f"):
            await client.download(result)


def test_a_401_raises_authentication_error() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        body = {"error": "unknown API key", "code": "UNAUTHORIZED", "status": 401}
        return httpx.Response(401, json=body)

    transport = httpx.MockTransport(refuse)
    with (
        Client("http://server", "sk_live_bad", transport=transport) as client,
        pytest.raises(AuthenticationError, match="unknown API key") as raised,
    ):
        client.render_image(IMAGE)

    assert (raised.value.status, raised.value.code) == (401, "UNAUTHORIZED")


@pytest.mark.anyio
async def test_the_base_url_and_key_default_to_their_environment_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(401, json={"error": "no", "code": "UNAUTHORIZED", "status": 401})

    monkeypatch.setenv("RENDERKIT_BASE_URL", "http://from-env.example")
    monkeypatch.setenv("RENDERKIT_API_KEY", "sk_live_from_env")
    async with AsyncClient(transport=httpx.MockTransport(answer)) as client:
        with pytest.raises(AuthenticationError):
            await client.render_image(IMAGE)

    assert str(seen[0].url) == "http://from-env.example/api/image"
    assert seen[0].headers["authorization"] == "Bearer sk_live_from_env"


def test_arguments_win_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RENDERKIT_BASE_URL", "http://from-env.example")
    monkeypatch.setenv("RENDERKIT_API_KEY", "sk_live_from_env")
    with Client("http://given.example", "sk_live_given") as client:
        assert repr(client) == "Client('http://given.example')"


@pytest.mark.parametrize("missing", ["RENDERKIT_BASE_URL", "RENDERKIT_API_KEY"])
def test_a_client_without_base_url_or_key_anywhere_is_a_configuration_error(
    missing: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RENDERKIT_BASE_URL", "http://from-env.example")
    monkeypatch.setenv("RENDERKIT_API_KEY", "sk_live_from_env")
    monkeypatch.delenv(missing)
    with pytest.raises(ConfigurationError, match=missing):
        Client()


@pytest.mark.anyio
async def test_a_downloaded_file_keeps_the_name_the_server_gave_it(tmp_path: Path) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/f/abc":
            disposition = content_disposition("og-card-hello-world.png")
            return httpx.Response(200, content=b"PNG", headers={"Content-Disposition": disposition})
        body = {"format": "png", "width": 1, "height": 1, "template": "og-card"}
        return httpx.Response(200, json={**body, "url": "http://server/f/abc"})

    transport = httpx.MockTransport(answer)
    async with AsyncClient("http://server", "k", transport=transport) as client:
        result = await client.download(await client.render_image(IMAGE))

    assert result.filename == "og-card-hello-world.png"
    saved = result.save(tmp_path)
    assert saved == tmp_path / "og-card-hello-world.png"
    assert saved.read_bytes() == b"PNG"
    assert result.save(tmp_path / "mine.png").read_bytes() == b"PNG"  # a file path is kept


@pytest.mark.anyio
async def test_a_server_file_name_cannot_write_outside_the_directory(tmp_path: Path) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/f/abc":
            headers = {"Content-Disposition": 'attachment; filename="../../evil.png"'}
            return httpx.Response(200, content=b"PNG", headers=headers)
        body = {"format": "png", "width": 1, "height": 1, "template": "og-card"}
        return httpx.Response(200, json={**body, "url": "http://server/f/abc"})

    inside = tmp_path / "inside"
    inside.mkdir()
    async with AsyncClient("http://server", "k", transport=httpx.MockTransport(answer)) as c:
        result = await c.download(await c.render_image(IMAGE))

    assert result.save(inside) == inside / "evil.png"
