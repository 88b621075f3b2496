"""Slow clients are cut off: headers and bodies must arrive within their deadlines.

Finding 9: uvicorn bounds no request's arrival, so 300 slowloris connections (headers sent a
byte at a time) were held open. Served here by a real uvicorn on 127.0.0.1, as
``renderkit serve`` runs it (``SERVER_OPTIONS``), with short deadlines.
"""

from __future__ import annotations

import contextlib
import select
import socket
import time
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.main import SERVER_OPTIONS
from renderkit_server.settings import Settings
from tests._uvicorn import served_in_thread

HEADER_TIMEOUT = 1.0
BODY_TIMEOUT = 1.5
SLOW_CLIENTS = 50


@pytest.fixture
def serve_app(make_settings: Callable[..., Settings]) -> Callable[..., Any]:
    def serve(**options: Any) -> contextlib.AbstractContextManager[str]:
        settings = make_settings(header_timeout=HEADER_TIMEOUT, body_timeout=BODY_TIMEOUT)
        app = create_app(settings, browser=FakeBrowser(), mailer=MemoryMailer())
        return served_in_thread(app, **options)

    return serve


def _production_options() -> dict[str, Any]:
    options = {k: v for k, v in SERVER_OPTIONS.items() if k != "log_config"}
    return {**options, "timeout_keep_alive": 5}


@contextlib.contextmanager
def _connections(url: str, count: int) -> Iterator[list[socket.socket]]:
    parts = urlsplit(url)
    sockets = [
        socket.create_connection((parts.hostname or "", parts.port or 0), timeout=5)
        for _ in range(count)
    ]
    try:
        yield sockets
    finally:
        for sock in sockets:
            sock.close()


def _closed_by_server(sock: socket.socket, *, within: float) -> bool:
    """Whether the server closes ``sock`` within ``within`` seconds (reading what it sent)."""
    deadline = time.monotonic() + within
    while (left := deadline - time.monotonic()) > 0:
        readable, _, _ = select.select([sock], [], [], left)
        if not readable:
            return False
        try:
            if sock.recv(65536) == b"":
                return True
        except ConnectionResetError:
            return True
    return False


def _trickle(sockets: list[socket.socket], data: bytes) -> None:
    """Send one more byte of ``data`` on each socket still open."""
    for sock in sockets:
        with contextlib.suppress(OSError):
            sock.send(data)


def test_slowloris_clients_are_disconnected_and_health_answers_meanwhile(
    serve_app: Callable[..., Any],
) -> None:
    with (
        serve_app(**_production_options()) as url,
        _connections(url, SLOW_CLIENTS) as slow,
        httpx.Client(base_url=url, timeout=5) as client,
    ):
        for sock in slow:
            sock.send(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        started = time.monotonic()
        for _ in range(int(HEADER_TIMEOUT / 0.1)):  # a header byte every 100 ms
            _trickle(slow, b"X")
            assert client.get("/api/health").status_code == 200
            time.sleep(0.1)
        closed = [_closed_by_server(sock, within=HEADER_TIMEOUT + 2) for sock in slow]
        assert all(closed), f"{closed.count(False)} of {SLOW_CLIENTS} slow clients still open"
        assert time.monotonic() - started < HEADER_TIMEOUT + 3
        assert client.get("/api/health").status_code == 200


def test_a_client_that_connects_and_sends_nothing_is_disconnected(
    serve_app: Callable[..., Any],
) -> None:
    with serve_app(**_production_options()) as url, _connections(url, 1) as (sock,):
        assert _closed_by_server(sock, within=HEADER_TIMEOUT + 2)


def test_a_body_that_stops_halfway_is_disconnected_after_the_body_timeout(
    serve_app: Callable[..., Any],
) -> None:
    with serve_app(**_production_options()) as url, _connections(url, 1) as (sock,):
        sock.send(
            b"POST /api/keys/generate HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
        )
        started = time.monotonic()
        assert _closed_by_server(sock, within=BODY_TIMEOUT + 2)
        assert time.monotonic() - started >= BODY_TIMEOUT - 0.2


def test_a_keep_alive_client_makes_requests_apart_and_gets_its_answers(
    serve_app: Callable[..., Any],
) -> None:
    with serve_app(**_production_options()) as url, httpx.Client(base_url=url) as client:
        first = client.get("/api/health")
        time.sleep(HEADER_TIMEOUT + 0.3)  # idle past the header deadline: keep-alive governs
        second = client.get("/api/health")
        key = client.post("/api/keys/generate", json={"email": "slow@example.com"})
    assert (first.status_code, second.status_code, key.status_code) == (200, 200, 200)


def test_plain_uvicorn_keeps_a_slow_header_client_connected(
    serve_app: Callable[..., Any],
) -> None:
    # The hole DeadlineProtocol closes, shown on the same app without it.
    options = {k: v for k, v in _production_options().items() if k != "http"}
    with serve_app(**options) as url, _connections(url, 1) as (sock,):
        sock.send(b"GET /api/health HTTP/1.1\r\n")
        assert not _closed_by_server(sock, within=HEADER_TIMEOUT + 1)
