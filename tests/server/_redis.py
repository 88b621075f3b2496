"""Run a throwaway redis-server for the tests that need a real Redis."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

REDIS_SERVER = "/usr/bin/redis-server"


def require_redis_server() -> None:
    """Skip the calling test without redis-server, or fail when CI demands everything."""
    if os.path.exists(REDIS_SERVER):
        return
    if os.environ.get("RENDERKIT_REQUIRE_BROWSER") or os.environ.get("CI") == "true":
        pytest.fail(f"{REDIS_SERVER} is required in CI but is not installed")
    pytest.skip(f"{REDIS_SERVER} not installed")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _answers_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@contextmanager
def redis_server(*, startup_timeout: float = 10.0) -> Iterator[str]:
    """Start redis-server on a free port without persistence; yield its URL.

    Raises:
        RuntimeError: the server exited or did not answer PING within ``startup_timeout``.
    """
    port = _free_port()
    command = [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1"]
    command += ["--save", "", "--appendonly", "no"]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + startup_timeout
        while not _answers_ping(port):
            if time.monotonic() > deadline:
                msg = f"redis-server did not answer PING within {startup_timeout} s"
                raise RuntimeError(msg)
            # Waiting on the process doubles as a short pause between attempts and notices
            # a server that died (port taken, bad option) instead of polling it forever.
            try:
                proc.wait(timeout=0.05)
            except subprocess.TimeoutExpired:
                continue
            msg = f"redis-server exited with status {proc.returncode}"
            raise RuntimeError(msg)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
