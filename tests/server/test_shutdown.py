"""SIGTERM during a long synthesis: the process exits within its graceful-shutdown bound."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from ..speech import needs_kokoro

pytestmark = pytest.mark.browser

SHUTDOWN_TIMEOUT = 3

# Minutes of Kokoro's CPU on a busy machine, within the default speech budget's ceiling.
LONG_SCRIPT = (
    "The weather today is mild, with a light breeze from the west and clear skies. "
    "Please remember to water the garden, feed the cat, and lock the door. "
) * 9


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@needs_kokoro
def test_sigterm_during_a_synthesis_exits_within_the_shutdown_timeout(tmp_path: Path) -> None:
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    log = tmp_path / "server.log"
    env = {
        **os.environ,
        "RENDERKIT_DATA_DIR": str(tmp_path / "data"),
        "RENDERKIT_BROWSER_SLOTS": "1",
        "RENDERKIT_SHUTDOWN_TIMEOUT": str(SHUTDOWN_TIMEOUT),
        "RENDERKIT_KOKORO_PARALLEL": "1",
    }
    with log.open("ab") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "renderkit.cli", "serve", "--port", str(port)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    try:
        for _ in range(600):  # 60 s to start
            assert proc.poll() is None, log.read_text()[-3000:]
            try:
                if httpx.get(f"{base}/api/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        else:
            pytest.fail("the server did not start in 60 s")
        issued = httpx.post(f"{base}/api/keys/generate", json={"email": "a@example.com"})
        key = issued.json()["key"]
        outcome: list[object] = []

        def speak() -> None:
            try:
                outcome.append(
                    httpx.post(
                        f"{base}/api/audio",
                        json={"script": LONG_SCRIPT, "voice_id": "af_heart", "format": "wav"},
                        headers={"X-SVC-Key": key},
                        timeout=120,
                    )
                )
            except httpx.HTTPError as exc:
                outcome.append(exc)

        caller = threading.Thread(target=speak, daemon=True)
        caller.start()
        time.sleep(4)  # the model loads and is speaking
        assert caller.is_alive() and not outcome, outcome
        signalled = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        status = proc.wait(timeout=60)
        took = time.monotonic() - signalled
        caller.join(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    # The bound, then closing the engines and the browser (seconds on a busy machine).
    assert took < SHUTDOWN_TIMEOUT + 8, (
        f"exited {took:.1f} s after SIGTERM\n" + log.read_text()[-3000:]
    )
    assert status == 0, log.read_text()[-3000:]
    # The call did not complete: the client saw its connection end, not a file.
    assert outcome and not (isinstance(outcome[0], httpx.Response) and outcome[0].is_success)
