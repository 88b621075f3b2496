"""A real `renderkit serve` process on 127.0.0.1 with a real Chromium."""

from __future__ import annotations

import json
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

from tests.server._redis import _free_port
from tests.server._serve_process import wait_until_healthy

from ..conftest import open_image

pytestmark = pytest.mark.browser

ADMIN = "process-admin-token-0123456789"


class Server:
    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = data_dir.parent / f"server-{self.port}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = {
            **os.environ,
            "RENDERKIT_DATA_DIR": str(self.data_dir),
            "RENDERKIT_ADMIN_TOKEN": ADMIN,
            "RENDERKIT_BROWSER_SLOTS": "1",
        }
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "renderkit.cli", "serve", "--port", str(self.port)],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=log,
            )
        wait_until_healthy(self.proc, self.base, self.log)

    def stop(self) -> int:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=40)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(tmp_path / "data")
    srv.start()
    yield srv
    if srv.proc and srv.proc.poll() is None:
        srv.stop()


def test_real_server_renders_with_both_variants_and_serves_the_file(server: Server) -> None:
    with httpx.Client(base_url=server.base, timeout=30) as client:
        key = client.post("/api/keys/generate", json={"email": "p@example.com"}).json()["key"]
        a = client.post(
            "/api/image",
            json={"template": "ogCard", "data": {"title": "Variant A", "cta_text": "Go"}},
            headers={"Authorization": f"Bearer {key}"},
        )
        b = client.post(
            "/v1/image",
            json={
                "template": "twitter-card",
                "format": "webp",
                "data": {"title": "Variant B", "domain": "x.io", "background": "light"},
            },
            headers={"X-SVC-Key": key},
        )
        assert a.status_code == 200, a.text
        assert b.status_code == 200, b.text
        assert a.headers["x-request-id"]
        file = client.get(a.json()["url"])
        assert file.status_code == 200
        assert file.headers["content-type"] == "image/png"
        assert open_image(file.content).size == (2400, 1260)
        pdf = client.post(
            "/api/pdf-gen",
            json={
                "template": "invoice",
                "data": {
                    "invoice_number": "P-1",
                    "line_items": [{"description": "Render", "quantity": 3, "unit_price": 9.5}],
                },
            },
            headers={"X-SVC-Key": key},
        )
        assert pdf.status_code == 200, pdf.text
        assert pdf.json()["pages"] == 1
        assert client.get(pdf.json()["url"]).content.startswith(b"%PDF-")
        audio = client.post(
            "/api/audio", json={"script": "Hello from the real server."}, headers={"X-SVC-Key": key}
        )
        assert audio.status_code == 200, audio.text
        assert audio.json()["duration_seconds"] > 0.5
        assert client.get(audio.json()["url"]).headers["content-type"] == "audio/mpeg"
        webp = client.get(b.json()["url"])
        assert open_image(webp.content).format == "WEBP"
        assert (b.json()["width"], b.json()["height"]) == (1600, 836)
    assert server.stop() == 0
    lines = [json.loads(x) for x in server.log.read_text().splitlines() if x.startswith("{")]
    requests = [x for x in lines if x.get("logger") == "renderkit_server.access"]
    assert any(x["path"] == "/api/image" and x["status"] == 200 for x in requests)
    assert all(key not in json.dumps(x) for x in lines)


def test_regenerated_key_stays_invalid_after_a_restart(tmp_path: Path) -> None:
    server = Server(tmp_path / "data")
    server.start()
    try:
        with httpx.Client(base_url=server.base, timeout=30) as client:
            old = client.post("/api/keys/generate", json={"email": "r@example.com"}).json()["key"]
            new = client.post("/api/keys/regenerate", json={"key": old}).json()["key"]
    finally:
        server.stop()
    server.start()
    try:
        with httpx.Client(base_url=server.base, timeout=30) as client:
            body = {"template": "announcement", "scale": 1}
            denied = client.post("/api/image", json=body, headers={"X-SVC-Key": old})
            allowed = client.post("/api/image", json=body, headers={"X-SVC-Key": new})
        assert denied.status_code == 401
        assert allowed.status_code == 200
    finally:
        server.stop()


def test_sigterm_lets_an_in_flight_render_finish(server: Server) -> None:
    with httpx.Client(base_url=server.base, timeout=60) as client:
        key = client.post("/api/keys/generate", json={"email": "g@example.com"}).json()["key"]
        slow = (
            "<html><body style='background:#0a0'><script>const t=Date.now();"
            "while(Date.now()-t<1500){}</script></body></html>"
        )
        result: dict[str, httpx.Response] = {}

        def call() -> None:
            result["r"] = client.post(
                "/api/image",
                json={"template": "custom", "html": slow, "scale": 1},
                headers={"X-SVC-Key": key},
            )

        worker = threading.Thread(target=call)
        worker.start()
        time.sleep(0.5)  # let the request reach the renderer before the signal
        code = server.stop()
        worker.join(timeout=30)
    assert result["r"].status_code == 200
    assert code == 0
