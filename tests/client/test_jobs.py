"""``client.submit(...)`` and ``submit_batch(...)`` against a real server on 127.0.0.1 (uvicorn,
the embedded job queue and its workers, a fake browser), and the polling schedule."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar import Litestar

from renderkit import (
    AsyncClient,
    Client,
    ImageResult,
    InvalidRequestError,
    JobCancelledError,
    JobTimeoutError,
    NavigationError,
    ReadResult,
)
from renderkit.client import AsyncJob, Job
from renderkit.core.retry import RetryPolicy
from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.settings import Settings
from tests._uvicorn import served_app, served_in_thread
from tests.server.jobs.conftest import GatedBrowser

pytestmark = pytest.mark.anyio

IMAGE = {"template": "og-card", "data": {"title": "Quarterly report"}}


def _app(tmp_path: Path, browser: FakeBrowser) -> Litestar:
    settings = Settings(
        data_dir=tmp_path / "data",
        secret="client-jobs-tests-secret-0123456789",
        cache_ttl_seconds=0,
        jobs_lease_seconds=2.0,
    )
    return create_app(settings, browser=browser, mailer=MemoryMailer())


async def _key(http: httpx.AsyncClient) -> str:
    response = await http.post("/api/keys/generate", json={"email": "jobs@example.com"})
    assert response.status_code == 200, response.text
    key: str = response.json()["key"]
    return key


async def test_a_submitted_job_answers_at_once_and_its_result_is_the_synchronous_result(
    tmp_path: Path,
) -> None:
    browser = FakeBrowser()
    async with served_app(_app(tmp_path, browser)) as http:
        key = await _key(http)
        async with AsyncClient(str(http.base_url), key) as client:
            job = await client.submit("image", IMAGE, metadata={"order": "A-17"})
            assert isinstance(job, AsyncJob)
            assert job.id.startswith("job_")
            assert job.status in ("queued", "running")
            result = await job.result(timeout=30, poll=0.05)
            direct = await client.render_image(IMAGE)
            await client.download(result)
        usage = (await http.get("/api/usage", headers={"X-SVC-Key": key})).json()

    assert job.status == "succeeded"
    assert job.metadata == {"order": "A-17"}
    assert isinstance(result, ImageResult)
    assert (result.format, result.width, result.height) == (
        direct.format,
        direct.width,
        direct.height,
    )
    assert result.url is not None
    assert result.content.startswith(b"\x89PNG")
    assert usage["metrics"]["images"]["used"] == 2  # the job once, the direct call once


@pytest.mark.parametrize("kind", ["read", "screenshot"])
async def test_a_read_job_and_a_screenshot_job_asked_for_markdown_answer_a_read_result(
    tmp_path: Path, kind: str
) -> None:
    page = "<html><body><article><h1>Queued</h1><p>Read in the background.</p></article>"
    async with served_app(_app(tmp_path, FakeBrowser(page_html=page))) as http:
        key = await _key(http)
        async with AsyncClient(str(http.base_url), key) as client:
            job = await client.submit(kind, {"url": "https://example.com/", "format": "markdown"})
            result = await job.result(timeout=30, poll=0.05)

    assert isinstance(result, ReadResult)
    assert result.content.startswith("# Queued")


async def test_a_failed_job_raises_the_exception_the_synchronous_call_raises(
    tmp_path: Path,
) -> None:
    def fail(render: object) -> None:
        raise NavigationError("the page could not be loaded", url="https://example.com")

    async with served_app(_app(tmp_path, FakeBrowser(fail))) as http:
        key = await _key(http)
        async with AsyncClient(str(http.base_url), key) as client:
            job = await client.submit("image", IMAGE)
            with pytest.raises(NavigationError, match="could not be loaded"):
                await job.result(timeout=30, poll=0.05)

    assert job.status == "failed"


async def test_a_running_job_outlives_a_short_wait_and_once_cancelled_has_no_result(
    tmp_path: Path,
) -> None:
    browser = GatedBrowser()
    async with served_app(_app(tmp_path, browser)) as http:
        key = await _key(http)
        async with AsyncClient(str(http.base_url), key) as client:
            job = await client.submit("image", IMAGE)
            with pytest.raises(JobTimeoutError) as waited:
                await job.wait(timeout=0.3, poll=0.05)
            assert waited.value.job_id == job.id
            assert job.status in ("queued", "running")
            await job.cancel()
            assert job.status == "cancelled"
            with pytest.raises(JobCancelledError):
                await job.result(timeout=5)
            browser.gate.set()
        usage = (await http.get("/api/usage", headers={"X-SVC-Key": key})).json()

    assert usage["metrics"]["images"]["used"] == 0


async def test_a_repeated_submit_with_the_same_idempotency_key_is_the_same_job(
    tmp_path: Path,
) -> None:
    async with served_app(_app(tmp_path, FakeBrowser())) as http:
        key = await _key(http)
        async with AsyncClient(str(http.base_url), key) as client:
            first = await client.submit("image", IMAGE, idempotency_key="invoice-42")
            again = await client.submit("image", IMAGE, idempotency_key="invoice-42")
            other = await client.submit("image", IMAGE)
            await first.wait(timeout=30, poll=0.05)

    assert again.id == first.id
    assert other.id != first.id


async def test_an_invalid_job_is_refused_naming_the_field_and_an_unknown_kind_is_never_sent(
    tmp_path: Path,
) -> None:
    async with served_app(_app(tmp_path, FakeBrowser())) as http:
        key = await _key(http)
        async with AsyncClient(str(http.base_url), key) as client:
            with pytest.raises(InvalidRequestError) as refused:
                await client.submit("image", {"template": "og-card", "data": {}, "scale": 9})
            with pytest.raises(InvalidRequestError) as unknown:
                await client.submit("video", IMAGE)
        listed = (await http.get("/api/jobs", headers={"X-SVC-Key": key})).json()

    assert any("scale" in error.field for error in refused.value.errors)
    assert unknown.value.errors[0].field == "kind"
    assert listed["data"] == []


def test_the_blocking_client_runs_a_job_and_a_batch_to_their_results(tmp_path: Path) -> None:
    with served_in_thread(_app(tmp_path, FakeBrowser())) as base:
        key = httpx.post(f"{base}/api/keys/generate", json={"email": "b@example.com"}).json()["key"]
        with Client(base, key) as client:
            job = client.submit("pdf", {"template": "invoice", "data": {}})
            assert isinstance(job, Job)
            pdf = job.result(timeout=30, poll=0.05)
            pdf_bytes = pdf.content
            batch = client.submit_batch(
                [
                    ("image", IMAGE),
                    {"kind": "image", "request": IMAGE, "metadata": {"n": 2}},
                ],
                metadata={"month": "2026-11"},
            )
            batch.wait(timeout=30, poll=0.05)
            results = [item.result() for item in batch.jobs]
            again = client.job(job.id)

    assert job.status == "succeeded"
    assert pdf.pages >= 1
    assert pdf_bytes.startswith(b"%PDF")
    assert batch.finished
    assert batch.counts["succeeded"] == 2
    assert batch.view["metadata"] == {"month": "2026-11"}
    assert [item.metadata for item in batch.jobs] == [None, {"n": 2}]
    assert all(isinstance(result, ImageResult) for result in results)
    assert again.status == "succeeded"


def _job(status: str, **extra: Any) -> dict[str, Any]:
    return {"id": "job_1", "object": "job", "kind": "image", "status": status, **extra}


async def test_polling_waits_longer_each_time_and_at_least_what_retry_after_asks() -> None:
    answers: list[Callable[[], httpx.Response]] = [
        lambda: httpx.Response(202, json=_job("queued")),
        lambda: httpx.Response(200, json=_job("running")),
        lambda: httpx.Response(200, json=_job("running"), headers={"Retry-After": "4"}),
        lambda: httpx.Response(200, json=_job("running")),
        lambda: httpx.Response(429, json={"error": "slow down"}, headers={"Retry-After": "2"}),
        lambda: httpx.Response(200, json=_job("failed", error={"error": "x", "status": 504})),
    ]
    sleeps: list[float] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    transport = httpx.MockTransport(lambda request: answers.pop(0)())
    retry = RetryPolicy(max_retries=2, backoff=1.0, max_delay=30.0)
    async with AsyncClient(
        "http://render.test", "sk", transport=transport, retry=retry, sleep=sleep
    ) as client:
        job = await client.submit("image", IMAGE)
        await job.wait(poll=1.0, max_poll=5.0)

    # Polls: 1, then 1.5 (growth), then the 4 asked, then 5 (capped); the read answered 429
    # is the client's own retry, waiting the 2 s its Retry-After asked before reading again.
    assert sleeps == [1.0, 1.5, 4.0, 5.0, 2.0]
    assert job.status == "failed"
    assert not answers
