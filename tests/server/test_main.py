"""The served process: uvicorn must hand the app the TCP peer, not a forwarded address."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import socket
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.main import SERVER_OPTIONS
from renderkit_server.settings import Settings

pytestmark = pytest.mark.anyio


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def _issuance_codes(tmp_path: Path, options: dict[str, Any]) -> list[int]:
    settings = Settings(
        data_dir=tmp_path / "data", secret="test-secret-that-is-long-enough", key_issue_per_hour=2
    )
    app = create_app(settings, browser=FakeBrowser(), mailer=MemoryMailer())
    port = _port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, **options))
    task = asyncio.get_running_loop().create_task(server.serve())
    try:
        async with asyncio.timeout(20):
            for _ in itertools.count():  # polled: uvicorn offers no started event
                if server.started:
                    break
                await asyncio.sleep(0.02)
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as client:
                codes = []
                for i in range(3):
                    response = await client.post(
                        "/api/keys/generate",
                        json={"email": f"u{i}@x.io"},
                        headers={"X-Forwarded-For": f"198.51.100.{i}"},
                    )
                    codes.append(response.status_code)
                return codes
    finally:
        server.should_exit = True
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, 20)


async def test_served_app_ignores_forwarded_for_from_a_loopback_client(tmp_path: Path) -> None:
    assert await _issuance_codes(tmp_path / "served", dict(SERVER_OPTIONS)) == [200, 200, 429]


async def test_uvicorns_default_proxy_headers_would_let_a_loopback_client_rotate_addresses(
    tmp_path: Path,
) -> None:
    # The hole SERVER_OPTIONS closes, shown on the same app: uvicorn's default trusts 127.0.0.1.
    defaults = {"log_config": None, "access_log": False}
    assert await _issuance_codes(tmp_path / "default", defaults) == [200, 200, 200]
