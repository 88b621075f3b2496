"""Jobs on a shared Redis, proved with real processes: ``renderkit serve`` replicas on
127.0.0.1 over one redis-server, each on its own data directory (so nothing but Redis is
shared), with a real Chromium.

* A worker process SIGKILLed mid-job: another replica's worker runs the job again once the
  dead one's lease ran out; the job shows the second attempt, the key is charged once.
* Two replicas: a job submitted to one is read, listed and cancelled on the other, and a
  third key learns nothing about it on either.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server._redis import redis_server, require_redis_server
from tests.server._serve_process import ADMIN, Server

pytestmark = pytest.mark.browser

LEASE_SECONDS = 2
# The page keeps the renderer busy long enough to be killed in the middle of it.
SLOW_PAGE = (
    "<html><body><h1>slow job</h1><script>"
    "const t=Date.now();while(Date.now()-t<4000){}</script></body></html>"
)


@pytest.fixture
def redis_url() -> Iterator[str]:
    require_redis_server()
    with redis_server() as url:
        yield url


@pytest.fixture
def replicas(tmp_path: Path, redis_url: str) -> Iterator[dict[str, Server]]:
    """The replicas a test started (by :func:`replica`), by name; stopped after the test."""
    made: dict[str, Server] = {}
    yield made
    for server in made.values():
        server.stop()


def replica(made: dict[str, Server], tmp_path: Path, url: str, name: str, workers: int) -> Server:
    server = Server(
        tmp_path / name,
        url,
        {
            "RENDERKIT_JOBS_WORKERS": str(workers),
            "RENDERKIT_JOBS_LEASE_SECONDS": str(LEASE_SECONDS),
            "RENDERKIT_BILLING_LEASE_SECONDS": str(LEASE_SECONDS),
        },
    )
    made[name] = server
    server.start()
    return server


def issue(server: Server, email: str) -> dict[str, str]:
    issued = httpx.post(
        f"{server.base}/api/keys/generate",
        json={"email": email, "plan": "vip"},
        headers={"Authorization": f"Bearer {ADMIN}"},
        timeout=10,
    )
    assert issued.status_code == 200, issued.text
    return {"Authorization": f"Bearer {issued.json()['key']}"}


def submit(server: Server, key: dict[str, str], html: str) -> str:
    body = {"kind": "image", "request": {"template": "custom", "html": html, "scale": 1}}
    response = httpx.post(f"{server.base}/api/jobs", json=body, headers=key, timeout=10)
    assert response.status_code == 202, response.text
    job_id: str = response.json()["id"]
    return job_id


def read(server: Server, key: dict[str, str], job_id: str) -> httpx.Response:
    return httpx.get(f"{server.base}/api/jobs/{job_id}", headers=key, timeout=10)


def wait_for(
    server: Server, key: dict[str, str], job_id: str, *statuses: str, timeout: float = 60
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        response = read(server, key, job_id)
        assert response.status_code == 200, response.text
        job: dict[str, Any] = response.json()
        if job["status"] in statuses:
            return job
        assert time.monotonic() < deadline, job
        time.sleep(0.1)


def images_used(server: Server, key: dict[str, str]) -> float:
    response = httpx.get(f"{server.base}/api/usage", headers=key, timeout=10)
    assert response.status_code == 200, response.text
    used: float = response.json()["metrics"]["images"]["used"]
    return used


def test_a_job_whose_worker_process_was_killed_completes_on_another_replica_charged_once(
    replicas: dict[str, Server], tmp_path: Path, redis_url: str
) -> None:
    first = replica(replicas, tmp_path, redis_url, "first", workers=1)
    key = issue(first, "killed@example.com")
    job_id = submit(first, key, SLOW_PAGE)
    running = wait_for(first, key, job_id, "running", "succeeded", "failed")
    assert running["status"] == "running", running
    time.sleep(0.5)  # inside the render

    first.kill()
    assert first.orphaned == []  # its Chromium died with it
    second = replica(replicas, tmp_path, redis_url, "second", workers=1)

    done = wait_for(second, key, job_id, "succeeded", "failed", "cancelled")
    assert done["status"] == "succeeded", done
    assert done["attempts"] == 2
    assert done["result"]["credits_used"] == 1
    time.sleep(LEASE_SECONDS + 0.5)  # the dead worker's billing lease has run out too
    assert images_used(second, key) == 1


def test_a_job_submitted_to_one_replica_is_read_and_cancelled_on_another(
    replicas: dict[str, Server], tmp_path: Path, redis_url: str
) -> None:
    # No workers anywhere: the job stays queued until cancelled.
    a = replica(replicas, tmp_path, redis_url, "a", workers=0)
    b = replica(replicas, tmp_path, redis_url, "b", workers=0)
    key = issue(a, "shared@example.com")
    stranger = issue(b, "stranger@example.com")
    job_id = submit(a, key, "<html><body>queued</body></html>")

    on_b = read(b, key, job_id)
    assert on_b.status_code == 200, on_b.text
    assert (on_b.json()["id"], on_b.json()["status"]) == (job_id, "queued")
    listed = httpx.get(f"{b.base}/api/jobs", headers=key, timeout=10)
    assert job_id in {job["id"] for job in listed.json()["data"]}, listed.text
    assert read(b, stranger, job_id).status_code == 404
    assert (
        httpx.delete(f"{a.base}/api/jobs/{job_id}", headers=stranger, timeout=10).status_code == 404
    )

    cancelled = httpx.delete(f"{b.base}/api/jobs/{job_id}", headers=key, timeout=10)

    assert cancelled.status_code == 200, cancelled.text
    assert cancelled.json()["status"] == "cancelled"
    assert read(a, key, job_id).json()["status"] == "cancelled"
    assert images_used(a, key) == 0
