"""PDF operations as a job: the same answer as POST /api/pdf-ops, charged once, read back."""

from __future__ import annotations

from typing import Any

import pytest

from tests.pdfops._pdfs import b64, page_texts
from tests.pdfops.test_pdf_ops import THREE, TWO
from tests.server.jobs.conftest import auth, issue_key, services, submit, wait_for

pytestmark = pytest.mark.anyio


async def test_a_pdf_ops_job_merges_and_stamps_like_the_endpoint_and_is_charged_one_pdf(
    serve: Any,
) -> None:
    async with serve() as client:
        key = await issue_key(client)
        request = {
            "files": [{"file": b64(THREE)}, {"file": b64(TWO)}],
            "watermark": {"text": "COPY"},
        }

        queued = await submit(client, key, "pdf-ops", request)
        done = await wait_for(client, key, queued["id"], "succeeded", "failed")

        assert done["status"] == "succeeded", done
        assert done["kind"] == "pdf-ops"
        assert done["result"]["pages"] == 5
        assert done["result"]["credits_used"] == 1
        stored = await client.get(done["result"]["url"])
        texts = page_texts(stored.content)
        assert len(texts) == 5 and all("COPY" in text for text in texts)
        assert "Beta page two" in texts[4]
        lineage = services(client).keys.verify(key).key_id
        assert (await services(client).quotas.usage(lineage)).get("pdfs", 0) == 1


async def test_a_pdf_ops_job_with_a_broken_upload_fails_with_the_endpoints_4xx_and_costs_nothing(
    serve: Any,
) -> None:
    async with serve() as client:
        key = await issue_key(client)
        request = {"files": [{"file": b64(b"%PDF-1.7 garbage")}]}
        sync = await client.post("/api/pdf-ops", json=request, headers=auth(key))

        queued = await submit(client, key, "pdf-ops", request)
        done = await wait_for(client, key, queued["id"], "succeeded", "failed")

        assert 400 <= sync.status_code < 500, sync.text
        assert done["status"] == "failed"
        assert done["error"]["status"] == sync.status_code
        assert done["error"]["code"] == sync.json()["code"]
        lineage = services(client).keys.verify(key).key_id
        assert (await services(client).quotas.usage(lineage)).get("pdfs", 0) == 0
