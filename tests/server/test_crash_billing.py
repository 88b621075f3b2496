"""Billing survives a crash: a real server SIGKILLed mid-way through 20 renders charges
exactly the calls that returned 200, once its leases have passed.

The server runs as ``renderkit serve`` on 127.0.0.1, with a real Chromium and a two-second
billing lease; after the kill (which Chromium must not outlive) it is restarted
on the same data directory (SQLite files, or the same redis-server).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.server._redis import redis_server, require_redis_server
from tests.server.test_process import _free_port

pytestmark = pytest.mark.browser

ADMIN = "crash-admin-token-0123456789"
LEASE_SECONDS = 2
CALLS = 20


class Server:
    """``renderkit serve`` on one data directory (and optionally one Redis), restartable."""

    def __init__(self, data_dir: Path, redis_url: str | None) -> None:
        self.data_dir = data_dir
        self.data_dir.mkdir()
        self.redis_url = redis_url
        self.log = data_dir.parent / "server.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.orphaned: list[int] = []
        self.base = ""

    def start(self) -> None:
        port = _free_port()
        self.base = f"http://127.0.0.1:{port}"
        env = {
            **os.environ,
            "RENDERKIT_DATA_DIR": str(self.data_dir),
            "RENDERKIT_ADMIN_TOKEN": ADMIN,
            "RENDERKIT_SECRET": "crash-test-secret-that-is-long-enough",
            "RENDERKIT_BROWSER_SLOTS": "2",
            "RENDERKIT_BROWSER_MAX_QUEUE": "64",
            "RENDERKIT_BROWSER_TENANT_QUEUE": "64",
            "RENDERKIT_BROWSER_QUEUE_TIMEOUT": "60",
            "RENDERKIT_CACHE_TTL_SECONDS": "0",
            "RENDERKIT_BILLING_LEASE_SECONDS": str(LEASE_SECONDS),
        }
        if self.redis_url:
            env["RENDERKIT_REDIS_URL"] = self.redis_url
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "renderkit.cli", "serve", "--port", str(port)],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=log,
            )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, self.log.read_text()[-3000:]
            try:
                if httpx.get(f"{self.base}/api/health", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.1)
        pytest.fail("server did not start in time")

    def kill(self) -> None:
        """SIGKILL the server process alone: a crash, with no shutdown code running.

        Every process it started (the Chromium tree, under its warden) must then end by
        itself within 5 s; any left is ended here and reported as orphaned.
        """
        assert self.proc is not None
        started = _descendants(self.proc.pid)
        self.proc.kill()
        self.proc.wait(timeout=10)
        deadline = time.monotonic() + 5
        while (left := [pid for pid in started if _alive(pid)]) and time.monotonic() < deadline:
            time.sleep(0.1)
        for pid in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.orphaned = left

    def stop(self) -> None:
        """Stop the server gracefully (it closes its browser), or kill it if it hangs."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=40)
        except subprocess.TimeoutExpired:
            self.kill()


def _alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie waiting for its reaper has ended)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


def _descendants(root: int) -> list[int]:
    """Every live process below ``root``, read from /proc (children before grandchildren)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # ended while we looked
        # Field 4 is the parent; the command (field 2) may hold spaces, so split after it.
        parent = int(stat.rpartition(")")[2].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    found, queue = [], [root]
    while queue:
        for child in children.get(queue.pop(0), []):
            found.append(child)
            queue.append(child)
    return found


@pytest.fixture(params=["sqlite", "redis"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Server]:
    with contextlib.ExitStack() as stack:
        url = None
        if request.param == "redis":
            require_redis_server()
            url = stack.enter_context(redis_server())
        srv = Server(tmp_path / "data", url)
        srv.start()
        try:
            yield srv
        finally:
            srv.stop()


def _page(index: int) -> str:
    # Each page differs (no cache hit) and keeps the renderer busy for a moment.
    return (
        f"<html><body style='background:#{index:06x}'><h1>call {index}</h1><script>"
        "const t=Date.now();while(Date.now()-t<400){}</script></body></html>"
    )


def _usage(base: str, key: str) -> dict[str, float]:
    response = httpx.get(f"{base}/api/usage", headers={"X-SVC-Key": key}, timeout=10)
    assert response.status_code == 200, response.text
    images: dict[str, float] = response.json()["metrics"]["images"]
    return images


def test_a_server_killed_mid_render_charges_exactly_the_calls_that_returned_200(
    server: Server,
) -> None:
    admin = {"Authorization": f"Bearer {ADMIN}"}
    issued = httpx.post(
        f"{server.base}/api/keys/generate",
        json={"email": "crash@example.com", "plan": "vip"},
        headers=admin,
        timeout=10,
    )
    assert issued.status_code == 200, issued.text
    key = issued.json()["key"]
    statuses: list[int | str] = []
    done = threading.Condition()

    def call(index: int) -> None:
        try:
            response = httpx.post(
                f"{server.base}/api/image",
                json={"template": "custom", "html": _page(index), "scale": 1},
                headers={"X-SVC-Key": key},
                timeout=60,
            )
            outcome: int | str = response.status_code
        except httpx.TransportError as exc:
            outcome = type(exc).__name__
        with done:
            statuses.append(outcome)
            done.notify_all()

    workers = [threading.Thread(target=call, args=(i,)) for i in range(CALLS)]
    for worker in workers:
        worker.start()
    with done:
        assert done.wait_for(lambda: statuses.count(200) >= 3, timeout=60), statuses
    server.kill()
    assert server.orphaned == []  # Chromium died with its server
    for worker in workers:
        worker.join(timeout=30)

    completed = statuses.count(200)
    assert len(statuses) == CALLS
    assert 3 <= completed < CALLS, statuses  # killed mid-way: some calls never finished
    assert all(s == 200 or isinstance(s, str) for s in statuses), statuses

    server.start()
    assert _usage(server.base, key)["used"] == completed
    time.sleep(LEASE_SECONDS + 0.5)
    assert _usage(server.base, key) == {
        "used": completed,
        "in_flight": 0,
        "limit": None,
        "remaining": None,
    }
