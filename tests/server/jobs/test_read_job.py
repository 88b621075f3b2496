"""Reading a page as a job: as /api/read, and as a screenshot job asked for Markdown."""

from __future__ import annotations

from typing import Any

import pytest

from renderkit.testing import FakeBrowser
from tests.server.jobs.conftest import issue_key, services, submit, wait_for

pytestmark = pytest.mark.anyio

PAGE = (
    '<html lang="en"><head><title>Job page</title></head><body><nav><a href="/">Home</a></nav>'
    "<article><h1>Read by a job</h1><p>A worker read this page as Markdown, the same way the "
    "endpoint reads it, and charged it as one screenshot.</p></article></body></html>"
)


@pytest.mark.parametrize("kind", ["read", "screenshot"])
async def test_a_read_job_answers_the_markdown_and_is_charged_one_screenshot(
    serve: Any, kind: str
) -> None:
    async with serve(browser=FakeBrowser(page_html=PAGE)) as client:
        key = await issue_key(client)
        request = {"url": "https://example.com/post", "format": "markdown"}

        queued = await submit(client, key, kind, request)
        done = await wait_for(client, key, queued["id"], "succeeded", "failed")

        assert done["status"] == "succeeded", done
        assert done["result"]["markdown"].startswith("# Read by a job")
        assert done["result"]["metadata"]["title"] == "Job page"
        lineage = services(client).keys.verify(key).key_id
        assert (await services(client).quotas.usage(lineage)).get("screenshots", 0) == 1


async def test_a_screenshot_job_asking_markdown_with_an_image_option_is_refused_at_submission(
    serve: Any,
) -> None:
    async with serve() as client:
        key = await issue_key(client)
        response = await client.post(
            "/api/jobs",
            json={
                "kind": "screenshot",
                "request": {"url": "https://example.com/", "format": "markdown", "quality": 80},
            },
            headers={"X-SVC-Key": key},
        )
        assert response.status_code == 400
        assert response.json()["fields"][0]["field"] == "request.quality"
