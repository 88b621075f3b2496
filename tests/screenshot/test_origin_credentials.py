"""A screenshot's headers and cookies reach the requested origin and no other.

Two HTTP servers on 127.0.0.1 on different ports are two origins on the same host (so the
browser's host-scoped cookie jar would not tell them apart); B records what it received.
"""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from renderkit import BlockedUrlError, screenshot
from renderkit.browser import BrowserConfig, ChromiumPool
from tests._server import LocalServer, serve

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

SECRET_HEADER = ("X-Api-Key", "k-123")
AUTH = ("Authorization", "Bearer secret-token")
COOKIE = ("session", "abc123")


def _recorder(seen: list[tuple[str, dict[str, str]]], body: tuple[int, str, bytes]) -> Any:
    def record(handler: BaseHTTPRequestHandler) -> tuple[int, str, bytes]:
        seen.append((handler.path, {k.lower(): v for k, v in handler.headers.items()}))
        return body

    return record


def _redirect_to(url: str) -> Any:
    def redirect(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(302)
        handler.send_header("Location", url)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    return redirect


def _page(html: str) -> tuple[int, str, bytes]:
    return (200, "text/html", f"<!doctype html><html><body>{html}</body></html>".encode())


def _carries_credentials(headers: dict[str, str]) -> bool:
    return (
        "x-api-key" in headers
        or "authorization" in headers
        or COOKIE[1] in headers.get("cookie", "")
    )


async def _shoot(pool: ChromiumPool, url: str, **extra: Any) -> None:
    await screenshot(
        {
            "url": url,
            "headers": dict([SECRET_HEADER, AUTH]),
            "cookies": dict([COOKIE]),
            **extra,
        },
        browser=pool,
    )


async def test_credentials_reach_the_requested_origin_but_not_a_redirect_subresource_or_navigation(
    pool: ChromiumPool,
) -> None:
    a_seen: list[tuple[str, dict[str, str]]] = []
    b_seen: list[tuple[str, dict[str, str]]] = []
    with serve() as a, serve(LocalServer()) as b:
        assert a.port != b.port
        b.routes["/landing"] = _recorder(b_seen, _page("B landing"))
        b.routes["/pixel.png"] = _recorder(b_seen, (200, "image/png", b""))
        b.routes["/navigated"] = _recorder(b_seen, _page("B navigated"))
        a.routes["/redir"] = _redirect_to(b.url("/landing"))
        a.routes["/page"] = _recorder(
            a_seen,
            _page(
                f"<img src='{b.url('/pixel.png')}'>"
                f"<script>fetch('{a.url('/same')}');"
                f"onload = () => setTimeout(() => {{ location = '{b.url('/navigated')}'; }}, 50)"
                "</script>"
            ),
        )
        a.routes["/same"] = _recorder(a_seen, (200, "text/plain", b"ok"))

        await _shoot(pool, a.url("/redir"))
        await _shoot(pool, a.url("/page"), delay=1000)

    b_paths = [path for path, _ in b_seen]
    assert "/landing" in b_paths
    assert "/pixel.png" in b_paths
    assert "/navigated" in b_paths
    leaked = [path for path, headers in b_seen if _carries_credentials(headers)]
    assert leaked == []
    # Origin A got all three, on the page and on the page's own requests to A.
    a_by_path = dict(a_seen)
    for path in ("/page", "/same"):
        headers = a_by_path[path]
        assert headers["x-api-key"] == SECRET_HEADER[1]
        assert headers["authorization"] == AUTH[1]
        assert f"{COOKIE[0]}={COOKIE[1]}" in headers["cookie"]


async def test_a_redirect_is_followed_without_the_credentials_even_to_the_same_origin(
    pool: ChromiumPool,
) -> None:
    # The browser follows a redirect itself, out of the guard's sight; carrying nothing
    # on any redirect is what keeps them off other origins. The page's own later
    # requests to the origin carry them again.
    seen: list[tuple[str, dict[str, str]]] = []
    with serve() as a:
        a.routes["/start"] = _redirect_to(a.url("/final"))
        a.routes["/final"] = _recorder(seen, _page(f"<img src='{a.url('/img')}'>"))
        a.routes["/img"] = _recorder(seen, (200, "image/png", b""))
        await _shoot(pool, a.url("/start"))
    headers = dict(seen)
    assert set(headers) == {"/final", "/img"}
    assert not _carries_credentials(headers["/final"])
    assert headers["/img"]["authorization"] == AUTH[1]


async def test_behind_the_egress_proxy_credentials_work_and_a_private_redirect_is_refused() -> None:
    # 127.0.0.2 plays a public site; 127.0.0.1 stays private. The credentialed request is
    # fetched for the page through the same policy-enforcing proxy the browser uses.
    config = BrowserConfig(slots=1, allow_networks=("127.0.0.2/32",))
    seen: list[tuple[str, dict[str, str]]] = []
    with serve() as private, serve(LocalServer(host="127.0.0.2")) as public:
        private.routes["/secret"] = (200, "text/plain", b"secret")
        public.routes["/page"] = _recorder(seen, _page("public"))
        public.routes["/go"] = _redirect_to(private.url("/secret"))
        async with ChromiumPool(config) as pool:
            await _shoot(pool, public.url("/page"))
            with pytest.raises(BlockedUrlError):
                await _shoot(pool, public.url("/go"))
    assert private.hits == []
    assert seen[0][1]["authorization"] == AUTH[1]
