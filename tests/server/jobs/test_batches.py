"""Batches: all-or-nothing submission, per-job results, one announcement, cancel the rest."""

from __future__ import annotations

from typing import Any

import pytest

from renderkit_server.jobs import RecordingNotifier
from tests.server.jobs.conftest import auth, images_used, issue_key, wait_for

pytestmark = pytest.mark.anyio


def _items(count: int) -> list[dict[str, Any]]:
    return [
        {
            "kind": "image",
            "request": {"template": "og-card", "data": {"title": f"Invoice {i}"}},
            "metadata": {"n": i},
        }
        for i in range(count)
    ]


async def test_a_batch_reports_every_jobs_result_and_is_announced_once(
    serve: Any, notifier: RecordingNotifier
) -> None:
    async with serve() as client:
        key = await issue_key(client)
        response = await client.post(
            "/api/batches",
            json={"jobs": _items(3), "metadata": {"month": "2026-11"}},
            headers=auth(key),
        )
        assert response.status_code == 202, response.text
        batch = response.json()
        assert batch["total"] == 3
        assert batch["counts"]["queued"] == 3

        for job in batch["jobs"]:
            await wait_for(client, key, job["id"], "succeeded")
        done = (await client.get(f"/api/batches/{batch['id']}", headers=auth(key))).json()

        assert done["status"] == "completed"
        assert done["counts"]["succeeded"] == 3
        assert [j["metadata"] for j in done["jobs"]] == [{"n": 0}, {"n": 1}, {"n": 2}]
        assert all(j["result"]["credits_used"] == 1 for j in done["jobs"])
        assert await images_used(client, key) == 3
        completed = [e for e in notifier.events if e.type == "batch.completed"]
        assert len(completed) == 1
        assert completed[0].body["data"]["counts"]["succeeded"] == 3
        assert completed[0].body["data"]["metadata"] == {"month": "2026-11"}


async def test_one_invalid_item_refuses_the_whole_batch_naming_it(serve: Any) -> None:
    async with serve(jobs_workers=0) as client:
        key = await issue_key(client)
        items = _items(4)
        items[3]["request"] = {"template": "og-card", "data": {"title": "x"}, "colour": 1}

        response = await client.post("/api/batches", json={"jobs": items}, headers=auth(key))

        assert response.status_code == 400
        assert [f["field"] for f in response.json()["fields"]] == ["jobs[3].request.colour"]
        assert (await client.get("/api/jobs", headers=auth(key))).json()["data"] == []


async def test_a_batch_larger_than_the_plan_allows_is_refused(serve: Any) -> None:
    async with serve(jobs_workers=0, plans={"starter": {"batch_size": 2}}) as client:
        key = await issue_key(client)

        response = await client.post("/api/batches", json={"jobs": _items(3)}, headers=auth(key))

        assert response.status_code == 400
        assert response.json()["fields"][0]["field"] == "jobs"


async def test_cancelling_a_batch_cancels_its_waiting_jobs_and_completes_it(
    serve: Any, notifier: RecordingNotifier
) -> None:
    async with serve(jobs_workers=0) as client:
        key = await issue_key(client)
        batch = (
            await client.post("/api/batches", json={"jobs": _items(3)}, headers=auth(key))
        ).json()
        other = await issue_key(client, email="other@example.com")

        foreign = await client.delete(f"/api/batches/{batch['id']}", headers=auth(other))
        response = await client.delete(f"/api/batches/{batch['id']}", headers=auth(key))

        assert foreign.status_code == 404
        assert response.json()["counts"]["cancelled"] == 3
        assert response.json()["status"] == "completed"
        assert [e.type for e in notifier.events] == ["batch.completed"]


async def test_a_batch_of_another_key_is_a_404(serve: Any) -> None:
    async with serve(jobs_workers=0) as client:
        key = await issue_key(client)
        other = await issue_key(client, email="other@example.com")
        batch = (
            await client.post("/api/batches", json={"jobs": [{**_items(1)[0]}]}, headers=auth(key))
        ).json()

        response = await client.get(f"/api/batches/{batch['id']}", headers=auth(other))

        assert response.status_code == 404
