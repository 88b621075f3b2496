"""Jobs on a real ``renderkit serve`` on 127.0.0.1 with Chromium and espeak-ng: every kind
from submit to result, a backlog that leaves synchronous calls their slot, and a kill
mid-job that the restarted server finishes and charges once."""

from __future__ import annotations

import base64
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests._server import LocalServer, serve
from tests.server._serve_process import ADMIN, Server
from tests.speech import needs_espeak

pytestmark = pytest.mark.browser

LEASE_SECONDS = 2


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(
        tmp_path / "data",
        None,
        {
            "RENDERKIT_ALLOW_PRIVATE_URLS": "1",
            "RENDERKIT_JOBS_LEASE_SECONDS": str(LEASE_SECONDS),
            "RENDERKIT_JOBS_BROWSER_SHARE": "50",
        },
    )
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


def _key(server: Server, plan: str = "vip", email: str = "jobs@example.com") -> str:
    issued = httpx.post(
        f"{server.base}/api/keys/generate",
        json={"email": email, "plan": plan},
        headers={"Authorization": f"Bearer {ADMIN}"},
        timeout=10,
    )
    assert issued.status_code == 200, issued.text
    key: str = issued.json()["key"]
    return key


def _submit(server: Server, key: str, kind: str, request: dict[str, Any]) -> str:
    response = httpx.post(
        f"{server.base}/api/jobs",
        json={"kind": kind, "request": request},
        headers={"X-SVC-Key": key},
        timeout=10,
    )
    assert response.status_code == 202, response.text
    job_id: str = response.json()["id"]
    return job_id


def _wait(server: Server, key: str, job_id: str, *statuses: str, timeout: float = 90) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = httpx.get(
            f"{server.base}/api/jobs/{job_id}", headers={"X-SVC-Key": key}, timeout=10
        ).json()
        if job["status"] in statuses:
            return job
        time.sleep(0.1)
    pytest.fail(f"job {job_id} never reached {statuses}")


def _busy_page(index: int, millis: int) -> str:
    return (
        f"<html><body style='background:#{index:06x}'><h1>job {index}</h1><script>"
        f"const t=Date.now();while(Date.now()-t<{millis}){{}}</script></body></html>"
    )


@needs_espeak
def test_every_kind_runs_as_a_job_and_answers_its_endpoints_body(server: Server) -> None:
    key = _key(server)
    page = LocalServer(
        routes={"/": (200, "text/html", b"<html><body><h1>Loopback page</h1></body></html>")}
    )
    with serve(page):
        ids = {
            "image": _submit(server, key, "image", {"template": "og-card", "data": {"title": "x"}}),
            "pdf-gen": _submit(server, key, "pdf", {"template": "invoice", "data": {}}),
            "screenshot": _submit(server, key, "screenshot", {"url": page.url("/")}),
            "audio": _submit(server, key, "audio", {"script": "Your invoice is ready."}),
        }
        done = {
            kind: _wait(server, key, job_id, "succeeded", "failed") for kind, job_id in ids.items()
        }

    for kind, job in done.items():
        assert job["status"] == "succeeded", (kind, job)
        assert job["kind"] == kind
        assert job["result"]["success"] is True
        assert job["result"]["credits_used"] >= 1
    assert done["image"]["result"]["format"] == "png"
    assert done["screenshot"]["result"]["http_status"] == 200
    assert done["audio"]["result"]["duration_seconds"] > 0
    pdf = httpx.get(done["pdf-gen"]["result"]["url"], timeout=10)
    assert pdf.content.startswith(b"%PDF")

    parsed = _submit(
        server,
        key,
        "parse",
        {"file": base64.b64encode(pdf.content).decode(), "mimeType": "application/pdf"},
    )
    job = _wait(server, key, parsed, "succeeded", "failed")
    assert job["status"] == "succeeded", job
    assert job["result"]["document_type"] == "invoice"
    assert job["result"]["pages"] == 1


def test_a_backlog_of_browser_jobs_leaves_synchronous_calls_their_slot(server: Server) -> None:
    backlog_key = _key(server, email="backlog@example.com")
    sync_key = _key(server, plan="pro", email="sync@example.com")
    for i in range(2):  # warm both slots' og-card pages, as a running server's are
        warm = httpx.post(
            f"{server.base}/api/image",
            json={"template": "og-card", "data": {"title": f"warm {i}"}},
            headers={"X-SVC-Key": sync_key},
            timeout=60,
        )
        assert warm.status_code == 200, warm.text
    ids = [
        _submit(
            server,
            backlog_key,
            "image",
            {"template": "custom", "html": _busy_page(i, 1500), "scale": 1},
        )
        for i in range(6)
    ]
    _wait(server, backlog_key, ids[0], "running")

    timings = []
    for i in range(3):
        started = time.monotonic()
        response = httpx.post(
            f"{server.base}/api/image",
            json={"template": "og-card", "data": {"title": f"sync {i}"}},
            headers={"X-SVC-Key": sync_key},
            timeout=30,
        )
        timings.append(time.monotonic() - started)
        assert response.status_code == 200, response.text

    running = [
        httpx.get(f"{server.base}/api/jobs/{i}", headers={"X-SVC-Key": backlog_key}).json()
        for i in ids
    ]
    assert sum(job["status"] == "queued" for job in running) >= 2  # the backlog still waits
    # A job holds one of the two slots for 1.5 s at a time; the other stays the sync calls'.
    assert max(timings) < 1.4, timings


def test_a_job_cut_off_by_a_crash_is_finished_by_the_restarted_server_and_charged_once(
    server: Server,
) -> None:
    key = _key(server)
    job_id = _submit(
        server, key, "image", {"template": "custom", "html": _busy_page(1, 3000), "scale": 1}
    )
    _wait(server, key, job_id, "running")

    server.kill()
    server.start()
    job = _wait(server, key, job_id, "succeeded", "failed", timeout=60)

    assert job["status"] == "succeeded", job
    assert job["attempts"] == 2
    usage = httpx.get(f"{server.base}/api/usage", headers={"X-SVC-Key": key}, timeout=10).json()
    assert usage["metrics"]["images"]["used"] == 1
