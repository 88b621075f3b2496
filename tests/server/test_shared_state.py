"""Two replicas (two apps, separate data dirs) sharing one real redis-server on 127.0.0.1
share every piece of state: revocations, ended MCP sessions, abuse limits, in-flight caps."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
import redis.asyncio
from litestar import Litestar
from litestar.testing import AsyncTestClient

from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.settings import Settings

from ._redis import redis_server, require_redis_server
from .conftest import ADMIN

pytestmark = pytest.mark.anyio

HOST = "testserver.local"
ACCEPT = {"Accept": "application/json, text/event-stream"}
OG_CARD = {"template": "og-card", "data": {"title": "Shared"}}


@pytest.fixture
def redis_url() -> Iterator[str]:
    require_redis_server()
    with redis_server() as url:
        yield url


def _settings(tmp_path: Path, name: str, redis_url: str, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "data_dir": tmp_path / name,
        "admin_token": ADMIN,
        "allow_private_urls": True,
        "secret": "test-secret-that-is-long-enough",
        "redis_url": redis_url,
        "mcp_allowed_hosts": (HOST,),
    }
    values.update(overrides)
    return Settings(**values)


@contextlib.asynccontextmanager
async def _replicas(
    tmp_path: Path, redis_url: str, **overrides: Any
) -> AsyncIterator[tuple[AsyncTestClient[Litestar], AsyncTestClient[Litestar]]]:
    """Replicas A and B: their own data dirs and browsers, one Redis."""
    apps = [
        create_app(
            _settings(tmp_path, name, redis_url, **overrides),
            browser=FakeBrowser(),
            mailer=MemoryMailer(),
        )
        for name in ("a", "b")
    ]
    async with AsyncTestClient(apps[0]) as a, AsyncTestClient(apps[1]) as b:
        yield a, b


async def _refused_within(
    client: AsyncTestClient[Litestar], headers: dict[str, str], *, seconds: float
) -> int:
    """Call with the key until it is refused (401) or ``seconds`` pass; the last status.

    The body is empty: a valid key gets 400 (nothing charged, no burst counted), a revoked
    one 401.
    """
    deadline = time.monotonic() + seconds
    status = 0
    for _ in range(int(seconds / 0.05) + 1):
        status = (await client.post("/api/image", json={}, headers=headers)).status_code
        if status == 401 or time.monotonic() > deadline:
            break
        await anyio.sleep(0.05)
    return status


async def _issue(client: AsyncTestClient[Litestar]) -> str:
    response = await client.post("/api/keys/generate", json={"email": "s@example.com"})
    assert response.status_code == 200, response.text
    key: str = response.json()["key"]
    return key


async def test_a_key_regenerated_on_one_replica_is_refused_by_the_other_within_a_second(
    tmp_path: Path, redis_url: str
) -> None:
    async with _replicas(tmp_path, redis_url) as (a, b):
        key = await _issue(a)
        headers = {"X-SVC-Key": key}
        assert (await b.post("/api/image", json=OG_CARD, headers=headers)).status_code == 200
        assert await _refused_within(b, headers, seconds=0.1) == 400  # valid: only the body

        regenerated = await a.post("/api/keys/regenerate", json={"key": key})
        assert regenerated.status_code == 200, regenerated.text
        revoked_at = time.monotonic()
        status = await _refused_within(b, headers, seconds=1.0)
        assert status == 401
        assert time.monotonic() - revoked_at < 1.0
        new_key = {"X-SVC-Key": regenerated.json()["key"]}
        assert (await b.post("/api/image", json=OG_CARD, headers=new_key)).status_code == 200
        # The old key cannot be regenerated a second time on the other replica either.
        again = await b.post("/api/keys/regenerate", json={"key": key})
        assert again.status_code == 401


async def test_a_replica_started_after_a_regeneration_refuses_the_old_key_at_once(
    tmp_path: Path, redis_url: str
) -> None:
    async with _replicas(tmp_path, redis_url) as (a, _):
        key = await _issue(a)
        assert (await a.post("/api/keys/regenerate", json={"key": key})).status_code == 200
    app = create_app(
        _settings(tmp_path, "c", redis_url), browser=FakeBrowser(), mailer=MemoryMailer()
    )
    async with AsyncTestClient(app) as c:
        response = await c.post("/api/image", json=OG_CARD, headers={"X-SVC-Key": key})
        assert response.status_code == 401


async def _mcp_session(client: AsyncTestClient[Litestar]) -> dict[str, str]:
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "shared-state-test", "version": "1"},
        },
    }
    response = await client.post("/api/mcp", json=init, headers=ACCEPT)
    assert response.status_code == 200, response.text
    return {"Mcp-Session-Id": response.headers["mcp-session-id"]}


async def test_an_mcp_session_ended_on_one_replica_is_refused_by_the_other(
    tmp_path: Path, redis_url: str
) -> None:
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    async with _replicas(tmp_path, redis_url) as (a, b):
        session = await _mcp_session(a)
        version = {"MCP-Protocol-Version": "2025-06-18"}
        headers = {**ACCEPT, **session, **version}
        assert (await b.post("/api/mcp", json=ping, headers=headers)).status_code == 200

        assert (await a.delete("/api/mcp", headers=session)).status_code == 204

        refused = await b.post("/api/mcp", json=ping, headers=headers)
        assert refused.status_code == 404
        assert (await b.delete("/api/mcp", headers=session)).status_code == 404
        other = await _mcp_session(b)  # a new session still works on both
        assert (await a.post("/api/mcp", json=ping, headers={**headers, **other})).is_success


async def test_key_issuance_and_regenerate_limits_are_shared_by_the_replicas(
    tmp_path: Path, redis_url: str
) -> None:
    async with _replicas(tmp_path, redis_url, key_issue_per_hour=3, key_regenerate_per_hour=2) as (
        a,
        b,
    ):
        issued = [
            await (a if i % 2 else b).post("/api/keys/generate", json={"email": f"{i}@x.org"})
            for i in range(4)
        ]
        assert [r.status_code for r in issued] == [200, 200, 200, 429]
        assert issued[3].json()["code"] == "RATE_LIMITED"

        key = issued[0].json()["key"]
        for replica in (a, b):
            response = await replica.post("/api/keys/regenerate", json={"key": key})
            assert response.status_code == 200, response.text
            key = response.json()["key"]
        refused = await a.post("/api/keys/regenerate", json={"key": key})
        assert refused.status_code == 429
        assert int(refused.headers["retry-after"]) >= 1


async def test_a_lease_left_by_a_killed_replica_is_reclaimed_when_it_expires(
    tmp_path: Path, redis_url: str
) -> None:
    async with _replicas(tmp_path, redis_url, browser_queue_timeout=8) as (a, _):
        key = await _issue(a)
        key_id = a.app.state.services.keys.verify(key).key_id
        dead = _hold_lease_in_a_process(redis_url, key_id, lease_seconds=1.5)
        try:
            client = redis.asyncio.Redis.from_url(redis_url)
            assert await client.zcard(f"renderkit:inflight:{key_id}") == 1
            await client.aclose()
        finally:
            dead.send_signal(signal.SIGKILL)
            dead.wait(timeout=10)
            dead.stdout.close()
        started = time.monotonic()
        response = await a.post("/api/image", json=OG_CARD, headers={"X-SVC-Key": key})
        waited = time.monotonic() - started
        assert response.status_code == 200, response.text
        assert 0.3 < waited < 4  # it waited for the dead lease, then took it


def _hold_lease_in_a_process(redis_url: str, key_id: str, *, lease_seconds: float) -> Any:
    """A process that takes one of ``key_id``'s leases (cap 1) and keeps renewing it."""
    script = f"""
import anyio, sys
from renderkit_server.state._redis import connect
from renderkit_server.state.inflight.redis import RedisInflightLimiter

async def main():
    limiter = RedisInflightLimiter(
        connect({redis_url!r}), queue_timeout=5, lease_seconds={lease_seconds}
    )
    async with limiter.hold({key_id!r}, 1):
        print("held", flush=True)
        await anyio.sleep(60)

anyio.run(main)
"""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, env=env, text=True
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "held"
    return proc


async def test_without_redis_a_regeneration_reaches_another_process_by_the_periodic_reload(
    tmp_path: Path,
) -> None:
    # Two apps on one data dir share the SQLite file, as the workers of one host do.
    apps = [
        create_app(
            Settings(
                data_dir=tmp_path / "shared",
                admin_token=ADMIN,
                secret="test-secret-that-is-long-enough",
            ),
            browser=FakeBrowser(),
            mailer=MemoryMailer(),
        )
        for _ in range(2)
    ]
    async with AsyncTestClient(apps[0]) as a, AsyncTestClient(apps[1]) as b:
        key = await _issue(a)
        assert (await a.post("/api/keys/regenerate", json={"key": key})).status_code == 200
        status = await _refused_within(b, {"X-SVC-Key": key}, seconds=3.0)
        assert status == 401
