"""``renderkit serve`` as a real process on 127.0.0.1 for tests: started on a free port over
one data directory (and optionally one Redis), restartable, killable like a crash."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.server._redis import _free_port

ADMIN = "served-admin-token-0123456789"


class Server:
    """``renderkit serve`` on one data directory (and optionally one Redis), restartable;
    ``settings`` adds or overrides environment variables (``RENDERKIT_*``) of the process."""

    def __init__(
        self, data_dir: Path, redis_url: str | None, settings: dict[str, str] | None = None
    ) -> None:
        self.data_dir = data_dir
        self.settings = settings or {}
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
            "RENDERKIT_SECRET": "served-test-secret-that-is-long-enough",
            "RENDERKIT_BROWSER_SLOTS": "2",
            "RENDERKIT_BROWSER_MAX_QUEUE": "64",
            "RENDERKIT_BROWSER_TENANT_QUEUE": "64",
            "RENDERKIT_BROWSER_QUEUE_TIMEOUT": "60",
            "RENDERKIT_CACHE_TTL_SECONDS": "0",
            **self.settings,
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
        wait_until_healthy(self.proc, self.base, self.log)

    def kill(self) -> None:
        """SIGKILL the server process alone: a crash, with no shutdown code running.

        Every process it started (the Chromium tree, under its warden) must then end by
        itself within 5 s; any left is ended here and listed in :attr:`orphaned`.
        """
        assert self.proc is not None
        started = descendants(self.proc.pid)
        self.proc.kill()
        self.proc.wait(timeout=10)
        deadline = time.monotonic() + 5
        while (left := [pid for pid in started if alive(pid)]) and time.monotonic() < deadline:
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


def wait_until_healthy(proc: subprocess.Popen[bytes], base: str, log: Path) -> None:
    """Wait (60 s at most) until the server at ``base`` answers /api/health with 200; fail with
    the end of its ``log`` if the process exits first."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, log.read_text()[-3000:]
        try:
            if httpx.get(f"{base}/api/health", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.1)
    pytest.fail("server did not start in time")


def alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie waiting for its reaper has ended)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


def descendants(root: int) -> list[int]:
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
