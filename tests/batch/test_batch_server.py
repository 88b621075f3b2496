"""``renderkit batch --server``: the jobs file run as a real server's jobs (uvicorn on
127.0.0.1, the embedded queue, a fake browser), written into the layout a local run uses,
with the same summary and exit status; Ctrl-C cancels what it submitted."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from litestar import Litestar

from renderkit import AsyncClient, NavigationError
from renderkit.batch import to_job
from renderkit.batch._remote import as_completed_on_server
from renderkit.cli import main
from renderkit.testing import FakeBrowser
from renderkit.testing._fake_browser import RecordedRender
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.settings import Settings
from tests._uvicorn import served_in_thread
from tests.server.jobs.conftest import GatedBrowser

from .test_batch_cli import image_job, write_jobs


def _app(tmp_path: Path, browser: FakeBrowser) -> Litestar:
    settings = Settings(
        data_dir=tmp_path / "data",
        secret="batch-server-tests-secret-0123456789",
        cache_ttl_seconds=0,
    )
    return create_app(settings, browser=browser, mailer=MemoryMailer())


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, str]]:
    def fail_broken(render: RecordedRender) -> None:
        if "Broken" in render.html:
            raise NavigationError("the page could not be loaded", url="https://example.com")

    with served_in_thread(_app(tmp_path, FakeBrowser(fail_broken))) as base:
        key = httpx.post(f"{base}/api/keys/generate", json={"email": "b@example.com"})
        yield base, key.json()["key"]


def _jobs_of(base: str, key: str) -> list[dict[str, object]]:
    listed = httpx.get(f"{base}/api/jobs?limit=100", headers={"X-SVC-Key": key}).json()
    jobs: list[dict[str, object]] = listed["data"]
    return jobs


def test_a_batch_on_a_server_writes_the_local_layout_and_reports_failures_by_line(
    served: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, key = served
    jobs = write_jobs(
        tmp_path / "jobs.jsonl",
        [
            image_job("Hello World"),
            image_job("Hello World"),
            image_job("Named", output="cards/named.png"),
            {"kind": "pdf", "request": {"template": "invoice", "data": {"invoice_number": "7"}}},
            image_job("Broken page"),
            "{not json",
        ],
    )
    out = tmp_path / "out"
    argv = ["batch", str(jobs), "--out", str(out), "--server", base, "--key", key]

    status = main(argv)
    printed = capsys.readouterr()

    assert status == 1
    written = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert written == [
        "cards/named.png",
        "invoice-7.pdf",
        "twitter-card-hello-world-2.png",
        "twitter-card-hello-world.png",
    ]
    assert (out / "cards/named.png").read_bytes().startswith(b"\x89PNG")
    assert (out / "invoice-7.pdf").read_bytes().startswith(b"%PDF")
    assert "│    4 │       0 │      2 │     6 │" in printed.out
    assert "line 5: NavigationError: the page could not be loaded" in printed.err
    assert "line 6: invalid job: not valid JSON" in printed.err
    assert f"on {base}" in printed.err
    assert len(_jobs_of(base, key)) == 5  # the invalid line never reached the server

    # Run again: the files are there, so only the failed job is submitted again.
    assert main(argv) == 1
    assert len(_jobs_of(base, key)) == 6


def test_a_batch_without_a_usable_key_fails_every_job_and_exits_1(
    served: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, _ = served
    jobs = write_jobs(tmp_path / "jobs.jsonl", [image_job("One")])

    status = main(
        ["batch", str(jobs), "--out", str(tmp_path / "out"), "--server", base, "--key", "sk_nope"]
    )

    assert status == 1
    assert "line 1: AuthenticationError" in capsys.readouterr().err


def _as_if_from_a_terminal() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_cancels_the_jobs_submitted_to_the_server_and_prints_the_summary(
    tmp_path: Path,
) -> None:
    # The gate is never opened: every job stays running or queued until it is cancelled.
    with served_in_thread(_app(tmp_path, GatedBrowser())) as base:
        key = httpx.post(f"{base}/api/keys/generate", json={"email": "c@example.com"}).json()["key"]
        jobs = write_jobs(tmp_path / "jobs.jsonl", [image_job(f"Card {n}") for n in range(4)])
        argv = ["batch", str(jobs), "--out", str(tmp_path / "out"), "--server", base, "--key", key]
        env = {**os.environ, "PYTHONPATH": str(Path("src").resolve())}
        with subprocess.Popen(
            [sys.executable, "-m", "renderkit.cli", *argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            preexec_fn=_as_if_from_a_terminal,
        ) as process:
            try:
                deadline = time.monotonic() + 60
                while len(_jobs_of(base, key)) < 4:
                    assert time.monotonic() < deadline, "the jobs were never submitted"
                    time.sleep(0.1)
                process.send_signal(signal.SIGINT)
                stdout, stderr = process.communicate(timeout=60)
            finally:
                if process.poll() is None:
                    process.kill()
                    process.wait(timeout=10)
        statuses = [job["status"] for job in _jobs_of(base, key)]

    assert process.returncode == 130, stderr
    assert statuses == ["cancelled"] * 4
    assert "interrupted" in stdout
    assert "4 job(s) not finished" in stderr


class _HangingFirstSubmit(httpx.AsyncBaseTransport):
    """A server whose first submit never answers (the job may be queued; its id never
    arrives), and which answers everything after it."""

    def __init__(self) -> None:
        self.seen: list[httpx.Request] = []
        self.hanging = asyncio.Event()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request)
        view = {"id": "job_1", "object": "job", "kind": "image", "status": "queued"}
        if request.method == "POST" and not self.hanging.is_set():
            self.hanging.set()
            await asyncio.Event().wait()
        if request.method == "DELETE":
            return httpx.Response(200, json={**view, "status": "cancelled"})
        return httpx.Response(202, json=view)


@pytest.mark.anyio
async def test_an_interrupted_submit_is_found_by_its_key_and_cancelled() -> None:
    transport = _HangingFirstSubmit()
    jobs = [to_job(image_job("One"), where="line 1", line=1)]

    async def consume() -> None:
        async with AsyncClient("http://render.test", "sk", transport=transport) as client:
            async for _ in as_completed_on_server(jobs, client):
                pass

    task = asyncio.ensure_future(consume())
    await asyncio.wait_for(transport.hanging.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    methods = [(r.method, r.url.path) for r in transport.seen]
    assert methods == [
        ("POST", "/api/jobs"),
        ("POST", "/api/jobs"),
        ("DELETE", "/api/jobs/job_1"),
    ]
    keys = {r.headers["idempotency-key"] for r in transport.seen if r.method == "POST"}
    assert len(keys) == 1
