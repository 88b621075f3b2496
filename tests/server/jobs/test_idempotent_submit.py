"""Submitting jobs and batches with Idempotency-Key: a retry gets the same job, never a second."""

from __future__ import annotations

from typing import Any

import pytest

from tests.server.jobs.conftest import IMAGE, auth, issue_key, services, wait_for

pytestmark = pytest.mark.anyio


async def _jobs_of(client: Any, key: str) -> list[str]:
    response = await client.get("/api/jobs", headers=auth(key))
    assert response.status_code == 200, response.text
    return [job["id"] for job in response.json()["data"]]


async def test_a_retried_job_submission_answers_the_same_job_and_queues_nothing_more(
    serve: Any,
) -> None:
    async with serve() as client:
        key = await issue_key(client)
        headers = {**auth(key), "Idempotency-Key": "order-17"}
        body = {"kind": "image", "request": IMAGE}

        first = await client.post("/api/jobs", json=body, headers=headers)
        again = await client.post("/api/jobs", json=body, headers=headers)

        assert first.status_code == again.status_code == 202
        assert again.json()["id"] == first.json()["id"]
        assert again.headers["Idempotent-Replayed"] == "true"
        assert again.headers["Location"] == first.headers["Location"]
        assert await _jobs_of(client, key) == [first.json()["id"]]
        done = await wait_for(client, key, first.json()["id"], "succeeded", "failed")
        assert done["status"] == "succeeded"
        lineage = services(client).keys.verify(key).key_id
        assert (await services(client).quotas.usage(lineage)).get("images", 0) == 1


async def test_the_same_idempotency_key_with_another_job_is_a_409_and_queues_nothing(
    serve: Any,
) -> None:
    async with serve() as client:
        key = await issue_key(client)
        headers = {**auth(key), "Idempotency-Key": "order-18"}
        first = await client.post(
            "/api/jobs", json={"kind": "image", "request": IMAGE}, headers=headers
        )
        other = {"kind": "image", "request": {**IMAGE, "data": {"title": "Another"}}}

        conflict = await client.post("/api/jobs", json=other, headers=headers)

        assert first.status_code == 202
        assert conflict.status_code == 409
        assert conflict.json()["code"] == "IDEMPOTENCY_KEY_REUSED"
        assert await _jobs_of(client, key) == [first.json()["id"]]


async def test_a_retried_batch_submission_answers_the_same_batch(serve: Any) -> None:
    async with serve() as client:
        key = await issue_key(client)
        headers = {**auth(key), "Idempotency-Key": "month-end"}
        body = {"jobs": [{"kind": "image", "request": IMAGE}] * 3}

        first = await client.post("/api/batches", json=body, headers=headers)
        again = await client.post("/api/batches", json=body, headers=headers)

        assert first.status_code == again.status_code == 202
        assert again.json()["id"] == first.json()["id"]
        assert len(await _jobs_of(client, key)) == 3


async def test_the_openapi_document_offers_idempotency_key_on_job_and_batch_submission(
    serve: Any,
) -> None:
    async with serve() as client:
        document = (await client.get("/openapi.json")).json()

    for path in ("/api/jobs", "/api/batches"):
        post = document["paths"][path]["post"]
        assert "Idempotency-Key" in [p["name"] for p in post.get("parameters", [])]
        assert "409" in post["responses"]
