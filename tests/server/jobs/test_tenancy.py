"""Who may see a job, what a submission may hold, and how much may wait."""

from __future__ import annotations

import secrets
from typing import Any

import anyio
import pytest

from tests.server.jobs.conftest import IMAGE, auth, issue_key, submit, wait_for

pytestmark = pytest.mark.anyio


async def test_another_key_gets_the_same_404_as_for_an_id_that_does_not_exist(
    serve: Any,
) -> None:
    async with serve(jobs_workers=0) as client:
        owner = await issue_key(client, email="owner@example.com")
        other = await issue_key(client, email="other@example.com")
        job = await submit(client, owner)
        missing = f"job_{secrets.token_hex(16)}"

        foreign = await client.get(f"/api/jobs/{job['id']}", headers=auth(other))
        absent = await client.get(f"/api/jobs/{missing}", headers=auth(other))
        cancel = await client.delete(f"/api/jobs/{job['id']}", headers=auth(other))
        listed = await client.get("/api/jobs", headers=auth(other))

        assert foreign.status_code == absent.status_code == cancel.status_code == 404
        assert foreign.json() == absent.json() == cancel.json()
        assert listed.json()["data"] == []
        mine = await client.get(f"/api/jobs/{job['id']}", headers=auth(owner))
        assert mine.json()["status"] == "queued"


async def test_a_regenerated_key_keeps_its_lineages_jobs(serve: Any) -> None:
    async with serve() as client:
        old = await issue_key(client)
        job = await submit(client, old)
        await wait_for(client, old, job["id"], "succeeded")

        regenerated = await client.post("/api/keys/regenerate", headers={"X-SVC-Key": old})
        assert regenerated.status_code == 200, regenerated.text
        new = regenerated.json()["key"]

        response = await client.get(f"/api/jobs/{job['id']}", headers=auth(new))
        assert response.status_code == 200
        assert response.json()["status"] == "succeeded"
        refused = await client.get(f"/api/jobs/{job['id']}", headers=auth(old))
        assert refused.status_code == 401


async def test_jobs_need_a_valid_key_before_anything_is_read(serve: Any) -> None:
    async with serve(jobs_workers=0) as client:
        response = await client.post("/api/jobs", content=b"{not json")
        listed = await client.get("/api/jobs", headers=auth("rk_bogus"))

        assert response.status_code == 401
        assert listed.status_code == 401


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"kind": "image", "request": {**IMAGE, "colour": "red"}}, "request.colour"),
        ({"kind": "image", "request": {"template": "og-card", "data": 5}}, "request.data"),
        ({"kind": "video", "request": IMAGE}, "kind"),
        ({"request": IMAGE}, "kind"),
        ({"kind": "image"}, "request"),
        ({"kind": "image", "request": IMAGE, "priority": 1}, "priority"),
        ({"kind": "image", "request": IMAGE, "webhook_url": "ftp://x.example"}, "webhook_url"),
        ({"kind": "image", "request": IMAGE, "metadata": [1, 2]}, "metadata"),
        ({"kind": "audio", "request": {"script": ""}}, "request.script"),
    ],
)
async def test_an_invalid_submission_is_a_400_naming_its_field_and_queues_nothing(
    serve: Any, body: dict[str, Any], field: str
) -> None:
    async with serve(jobs_workers=0) as client:
        key = await issue_key(client)

        response = await client.post("/api/jobs", json=body, headers=auth(key))

        assert response.status_code == 400, response.text
        assert field in [f["field"] for f in response.json()["fields"]]
        listed = await client.get("/api/jobs", headers=auth(key))
        assert listed.json()["data"] == []


async def test_metadata_too_large_or_too_deep_is_refused(serve: Any) -> None:
    async with serve(jobs_workers=0) as client:
        key = await issue_key(client)
        huge = {"note": "x" * 5000}
        deep: dict[str, Any] = {"a": {"b": {"c": {"d": 1}}}}

        for metadata in (huge, deep):
            response = await client.post(
                "/api/jobs",
                json={"kind": "image", "request": IMAGE, "metadata": metadata},
                headers=auth(key),
            )
            assert response.status_code == 400, response.text
            assert response.json()["fields"][0]["field"] == "metadata"


@pytest.mark.parametrize(
    "job_id",
    [
        "1",
        "job_" + "0" * 32,
        "job_' OR 1=1 --",
        "batch_" + "a" * 32,
        "job_" + "a" * 5000,
        "%2e%2e%2fetc",
    ],
)
async def test_bogus_ids_are_a_plain_404(serve: Any, job_id: str) -> None:
    async with serve(jobs_workers=0) as client:
        key = await issue_key(client)
        await submit(client, key)

        response = await client.get(f"/api/jobs/{job_id}", headers=auth(key))
        cancel = await client.delete(f"/api/jobs/{job_id}", headers=auth(key))
        page = await client.get(f"/api/jobs?before={job_id}", headers=auth(key))

        assert response.status_code == cancel.status_code == 404
        assert response.json()["code"] == "NOT_FOUND"
        assert page.json()["data"] == []


async def test_the_plans_cap_on_unfinished_jobs_answers_429_with_retry_after(
    serve: Any,
) -> None:
    async with serve(jobs_workers=0, plans={"starter": {"jobs_active": 2}}) as client:
        key = await issue_key(client)
        first = await submit(client, key)
        await submit(client, key)

        refused = await client.post(
            "/api/jobs", json={"kind": "image", "request": IMAGE}, headers=auth(key)
        )

        assert refused.status_code == 429
        assert refused.json()["code"] == "TOO_MANY_JOBS"
        assert int(refused.headers["retry-after"]) > 0
        await client.delete(f"/api/jobs/{first['id']}", headers=auth(key))
        await submit(client, key)  # a cancelled job frees its place


async def test_expired_jobs_read_as_404(serve: Any) -> None:
    async with serve(jobs_retention_seconds=1) as client:
        key = await issue_key(client)
        job = await submit(client, key)
        await wait_for(client, key, job["id"], "succeeded")
        await anyio.sleep(1.2)  # the retention is real time: one second

        response = await client.get(f"/api/jobs/{job['id']}", headers=auth(key))

        assert response.status_code == 404
        from tests.server.jobs.conftest import services

        assert await services(client).jobs.store.sweep() == 1


async def test_a_request_nested_past_the_body_limit_is_refused_before_decoding(
    serve: Any,
) -> None:
    async with serve(jobs_workers=0) as client:
        key = await issue_key(client)
        deep = '{"kind": "image", "request": ' + "[" * 5000 + "]" * 5000 + "}"

        response = await client.post(
            "/api/jobs",
            content=deep.encode(),
            headers={**auth(key), "Content-Type": "application/json"},
        )

        assert response.status_code == 400
        assert response.json()["code"] == "INVALID_JSON"
