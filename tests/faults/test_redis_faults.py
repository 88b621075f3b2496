"""Redis down: quotas fail closed with 503, nothing renders or is charged, recovery is at once."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from litestar.testing import AsyncTestClient

from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.settings import Settings

from ..server._redis import REDIS_SERVER, require_redis_server

pytestmark = pytest.mark.anyio

ADMIN = "admin-token-for-redis-faults-0123"
IMAGE = {"template": "og-card", "data": {"title": "Redis faults"}}


class _RestartableRedis:
    """redis-server on one fixed port of 127.0.0.1 that a test can kill and start again."""

    def __init__(self) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port: int = sock.getsockname()[1]
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        command = [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1"]
        command += ["--save", "", "--appendonly", "no"]
        self.proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            if time.monotonic() > deadline or self.proc.poll() is not None:
                msg = "redis-server did not start"
                raise RuntimeError(msg)
            time.sleep(0.05)

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(timeout=10)
            self.proc = None


@pytest.fixture
def restartable_redis() -> Iterator[_RestartableRedis]:
    require_redis_server()
    server = _RestartableRedis()
    server.start()
    try:
        yield server
    finally:
        server.kill()


async def test_redis_down_refuses_calls_with_503_and_the_first_call_after_it_returns_succeeds(
    tmp_path: Path, restartable_redis: _RestartableRedis
) -> None:
    settings = Settings(
        data_dir=tmp_path / "data",
        secret="test-secret-that-is-long-enough",
        admin_token=ADMIN,
        redis_url=restartable_redis.url,
    )
    browser, mailer = FakeBrowser(), MemoryMailer()
    app = create_app(settings, browser=browser, mailer=mailer)
    async with AsyncTestClient(app) as client:
        issued = await client.post(
            "/api/keys/generate",
            json={"email": "pro@example.com", "plan": "pro"},
            headers={"Authorization": f"Bearer {ADMIN}"},
        )
        key = issued.json()["key"]
        first = await client.post("/api/image", json=IMAGE, headers={"X-SVC-Key": key})
        assert first.status_code == 200, first.text
        remaining = int(first.headers["x-ratelimit-remaining"])
        renders, mails = len(browser.renders), len(mailer.messages)

        restartable_redis.kill()
        started = time.monotonic()
        for path in ("/api/image", "/v1/image"):
            down = await client.post(path, json=IMAGE, headers={"X-SVC-Key": key})
            assert down.status_code == 503, down.text
            body = down.json()
            assert (body["code"], body["status"]) == ("QUOTA_UNAVAILABLE", 503)
            assert int(down.headers["retry-after"]) >= 1
            assert "redis://" not in down.text and str(restartable_redis.port) not in down.text
        generate = await client.post("/api/keys/generate", json={"email": "new@example.com"})
        regenerate = await client.post("/api/keys/regenerate", json={"key": key})
        assert (generate.status_code, regenerate.status_code) == (503, 503)
        assert time.monotonic() - started < 5  # refused connections fail fast, no timeouts
        assert len(browser.renders) == renders  # nothing rendered
        assert len(mailer.messages) == mails  # no key issued or rotated, nothing mailed

        restartable_redis.start()  # empty: the new server has no persistence
        back = await client.post("/api/image", json=IMAGE, headers={"X-SVC-Key": key})
        assert back.status_code == 200, back.text
        assert int(back.headers["x-ratelimit-remaining"]) == remaining  # one charge, fresh store
        still = await client.post("/api/keys/regenerate", json={"key": key})
        assert still.status_code == 200, still.text  # the old key was not rotated while down
