"""At-least-once execution, exactly-once charging: crashes, lost results and shutdowns."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from renderkit import StorageUnavailableError
from renderkit.testing import FakeBrowser
from renderkit_server.state.jobs import Claim, Job, JobStore
from tests.server.jobs.conftest import (
    GatedBrowser,
    auth,
    images_used,
    issue_key,
    services,
    submit,
    wait_for,
)

pytestmark = pytest.mark.anyio


class FinishFailsOnce:
    """A job store whose first ``finish`` fails, as if the worker died right after charging."""

    def __init__(self, store: JobStore) -> None:
        self._store = store
        self.failed = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    async def finish(self, claim: Claim, **outcome: Any) -> Job | None:
        if not self.failed:
            self.failed += 1
            msg = "the job store went away"
            raise StorageUnavailableError(msg)
        return await self._store.finish(claim, **outcome)


async def test_a_job_whose_result_was_lost_after_charging_runs_again_and_is_charged_once(
    serve: Any,
) -> None:
    browser = FakeBrowser()
    async with serve(browser=browser, jobs_workers=1) as client:
        jobs = services(client).jobs
        flaky = FinishFailsOnce(jobs.store)
        jobs.store = flaky  # type: ignore[assignment]
        key = await issue_key(client)
        job = await submit(client, key)

        done = await wait_for(client, key, job["id"], "succeeded", timeout=15)

        assert flaky.failed == 1
        assert done["attempts"] == 2
        assert len(browser.renders) == 2  # it really ran twice
        assert done["result"]["credits_used"] == 1
        assert await images_used(client, key) == 1


async def test_a_job_running_at_shutdown_goes_back_to_the_queue_uncharged_and_runs_after(
    serve: Any,
) -> None:
    gated = GatedBrowser()
    async with serve(browser=gated, jobs_workers=1) as client:
        key = await issue_key(client)
        job = await submit(client, key)
        await wait_for(client, key, job["id"], "running")
        await asyncio.wait_for(gated.entered.wait(), 5)
    # The app stopped with the render waiting at the gate.

    async with serve(jobs_workers=0) as client:
        waiting = await client.get(f"/api/jobs/{job['id']}", headers=auth(key))
        assert waiting.json()["status"] == "queued"
        assert await images_used(client, key) == 0

    async with serve(jobs_workers=1) as client:
        done = await wait_for(client, key, job["id"], "succeeded")
        assert done["attempts"] == 2
        assert await images_used(client, key) == 1


async def test_one_keys_backlog_does_not_hold_up_another_keys_single_job(serve: Any) -> None:
    class SlowBrowser(FakeBrowser):
        async def capture_fragment(self, shell: Any, fragment: str, capture: Any) -> bytes:
            await asyncio.sleep(0.03)
            return await super().capture_fragment(shell, fragment, capture)

    async with serve(browser=SlowBrowser(), jobs_workers=1) as client:
        busy = await issue_key(client, email="busy@example.com")
        quiet = await issue_key(client, email="quiet@example.com")
        items = [
            {"kind": "image", "request": {"template": "og-card", "data": {"title": f"n{i}"}}}
            for i in range(30)
        ]
        batch = await client.post("/api/batches", json={"jobs": items}, headers=auth(busy))
        assert batch.status_code == 202
        single = await submit(client, quiet)

        await wait_for(client, quiet, single["id"], "succeeded")

        store = services(client).jobs.store
        lineage = services(client).keys.verify(busy).key_id
        quiet_job = await store.get(single["id"], owner=services(client).keys.verify(quiet).key_id)
        assert quiet_job is not None
        assert quiet_job.started_at is not None
        started_before = 0
        for item in batch.json()["jobs"]:
            found = await store.get(item["id"], owner=lineage)
            assert found is not None
            if found.started_at is not None and found.started_at < quiet_job.started_at:
                started_before += 1
        assert started_before <= 2
