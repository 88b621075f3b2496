"""A job's life over HTTP: submitted, run by a worker, read back, cancelled, announced."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from renderkit_server.jobs import RecordingNotifier
from tests.server.jobs.conftest import (
    IMAGE,
    GatedBrowser,
    auth,
    images_used,
    issue_key,
    submit,
    wait_for,
)

pytestmark = pytest.mark.anyio


async def test_an_image_job_answers_the_synchronous_endpoints_body_and_is_charged_once(
    serve: Any, notifier: RecordingNotifier
) -> None:
    async with serve() as client:
        key = await issue_key(client)
        queued = await submit(client, key, metadata={"order": "A-17"})

        assert queued["status"] == "queued"
        assert queued["id"].startswith("job_")
        assert queued["status_url"].endswith(f"/api/jobs/{queued['id']}")
        done = await wait_for(client, key, queued["id"], "succeeded", "failed")
        sync = await client.post("/api/image", json=IMAGE, headers=auth(key))

        assert done["status"] == "succeeded", done
        assert set(done["result"]) == set(sync.json())
        assert done["result"]["credits_used"] == 1
        assert (done["result"]["width"], done["result"]["format"]) == (2400, "png")
        assert done["attempts"] == 1
        assert done["metadata"] == {"order": "A-17"}
        assert done["created_at"] <= done["started_at"] <= done["finished_at"]
        assert done["finished_at"].endswith("Z")
        assert await images_used(client, key) == 2  # the job and the sync call
        file = await client.get(done["result"]["url"])
        assert file.status_code == 200
        assert file.content.startswith(b"\x89PNG")
        [event] = notifier.events
        assert event.type == "job.succeeded"
        assert event.body["data"]["result"] == done["result"]
        assert event.body["data"]["id"] == queued["id"]


async def test_v1_paths_and_the_pdf_alias_reach_the_same_jobs(serve: Any) -> None:
    async with serve() as client:
        key = await issue_key(client)
        response = await client.post(
            "/v1/jobs",
            json={"kind": "pdf", "request": {"template": "invoice", "data": {}}},
            headers=auth(key),
        )
        assert response.status_code == 202, response.text
        job = response.json()

        done = await wait_for(client, key, job["id"], "succeeded", "failed")
        again = await client.get(f"/v1/jobs/{job['id']}", headers=auth(key))

        assert done["kind"] == "pdf-gen"
        assert done["status"] == "succeeded", done
        assert done["result"]["format"] == "pdf"
        assert again.json()["status"] == "succeeded"


async def test_a_failing_job_reports_the_envelope_the_sync_call_would_have_had(
    serve: Any,
) -> None:
    def fail(render: object) -> None:
        from renderkit import NavigationError

        raise NavigationError("the page could not be loaded", url="https://example.com")

    from renderkit.testing import FakeBrowser

    async with serve(browser=FakeBrowser(fail)) as client:
        key = await issue_key(client)
        job = await submit(client, key)

        done = await wait_for(client, key, job["id"], "succeeded", "failed")

        assert done["status"] == "failed"
        assert done["error"]["status"] == 502
        assert done["error"]["code"] == "NAVIGATION_FAILED"
        assert "result" not in done
        assert await images_used(client, key) == 0


async def test_cancelling_a_queued_job_keeps_it_from_running_and_announces_it(
    serve: Any, notifier: RecordingNotifier
) -> None:
    async with serve(jobs_workers=0) as client:
        key = await issue_key(client)
        job = await submit(client, key)

        response = await client.delete(f"/api/jobs/{job['id']}", headers=auth(key))

        assert response.status_code == 200
        assert response.json()["status"] == "cancelled"
        assert [e.type for e in notifier.events] == ["job.cancelled"]
        again = await client.delete(f"/api/jobs/{job['id']}", headers=auth(key))
        assert again.json()["status"] == "cancelled"
        assert len(notifier.events) == 1


async def test_cancelling_a_running_job_stops_its_work_and_charges_nothing(serve: Any) -> None:
    browser = GatedBrowser()
    async with serve(browser=browser) as client:
        key = await issue_key(client)
        job = await submit(client, key)
        await wait_for(client, key, job["id"], "running")
        with anyio.fail_after(5):
            await browser.entered.wait()

        response = await client.delete(f"/api/jobs/{job['id']}", headers=auth(key))
        browser.gate.set()
        after = await submit(client, key)
        await wait_for(client, key, after["id"], "succeeded")

        assert response.json()["status"] == "cancelled"
        final = await wait_for(client, key, job["id"], "cancelled")
        assert "result" not in final
        assert await images_used(client, key) == 1  # only the second job


async def test_jobs_are_listed_newest_first_a_page_at_a_time(serve: Any) -> None:
    async with serve(jobs_workers=0) as client:
        key = await issue_key(client)
        ids = [(await submit(client, key))["id"] for _ in range(3)]

        first = (await client.get("/api/jobs?limit=2", headers=auth(key))).json()
        rest = (
            await client.get(f"/api/jobs?limit=2&before={first['next_before']}", headers=auth(key))
        ).json()

        assert [j["id"] for j in first["data"]] == ids[::-1][:2]
        assert first["has_more"]
        assert [j["id"] for j in rest["data"]] == ids[:1]
        assert not rest["has_more"]


async def test_metrics_show_the_queue_and_each_jobs_wait_run_and_outcome(serve: Any) -> None:
    async with serve() as client:
        key = await issue_key(client)
        job = await submit(client, key)
        await wait_for(client, key, job["id"], "succeeded")

        text = (await client.get("/metrics")).text

        assert 'renderkit_jobs_finished_total{kind="image",status="succeeded"} 1.0' in text
        assert 'renderkit_job_queue_wait_seconds_count{kind="image"} 1.0' in text
        assert 'renderkit_job_run_seconds_count{kind="image"} 1.0' in text
        assert "renderkit_jobs_queued" in text
