"""pdf_standard and tagged over HTTP (/api and /v1), jobs, pdf-ops and the MCP tool schema:
declared once on PdfRequest, refused with a free 400 naming the field."""

from __future__ import annotations

import io
from typing import Any

import pikepdf
import pytest
from litestar.testing import AsyncTestClient

from renderkit.testing import FakeBrowser
from renderkit_server.mcp.tools import TOOLS

from .conftest import issue_key

pytestmark = pytest.mark.anyio

LETTER = {"template": "letter", "data": {"body": "Dear Bob,"}}


async def _used(client: AsyncTestClient, key: str) -> int:
    response = await client.get("/api/usage", headers={"X-SVC-Key": key})
    used: int = response.json()["metrics"]["pdfs"]["used"]
    return used


@pytest.mark.parametrize("path", ["/api/pdf-gen", "/v1/pdf-gen"])
@pytest.mark.parametrize(
    ("changes", "field"),
    [({"pdf_standard": "PDF/A-1b"}, "pdf_standard"), ({"tagged": "yes please"}, "tagged")],
)
async def test_a_bad_pdf_standard_or_tagged_is_a_free_400_naming_the_field(
    client: AsyncTestClient, path: str, changes: dict[str, Any], field: str
) -> None:
    key = await issue_key(client)

    response = await client.post(path, json={**LETTER, **changes}, headers={"X-SVC-Key": key})

    assert response.status_code == 400, response.text
    assert [f["field"] for f in response.json()["fields"]] == [field]
    assert await _used(client, key) == 0


async def test_a_pdfa_request_answers_with_an_archival_pdf_and_says_so(
    client: AsyncTestClient, fake_browser: FakeBrowser
) -> None:
    key = await issue_key(client)
    body = {**LETTER, "pdf_standard": "PDF/A-2b", "tagged": True, "locale": "fr"}

    response = await client.post("/api/pdf-gen", json=body, headers={"X-SVC-Key": key})

    assert response.status_code == 200, response.text
    answer = response.json()
    assert (answer["pdf_standard"], answer["tagged"]) == ("PDF/A-2b", True)
    assert fake_browser.renders[-1].pdf is not None
    assert fake_browser.renders[-1].pdf.tagged is True
    stored = await client.get(answer["url"])
    with pikepdf.open(io.BytesIO(stored.content)) as pdf:
        assert pdf.open_metadata().pdfa_status == "2B"
        assert str(pdf.Root.Lang) == "fr"


async def test_a_plain_pdf_reports_no_standard(client: AsyncTestClient) -> None:
    key = await issue_key(client)

    response = await client.post("/api/pdf-gen", json=LETTER, headers={"X-SVC-Key": key})

    assert response.status_code == 200, response.text
    assert "pdf_standard" not in response.json()
    assert "tagged" not in response.json()


async def test_a_job_with_a_bad_pdf_standard_is_refused_naming_the_field(
    client: AsyncTestClient,
) -> None:
    key = await issue_key(client)
    body = {"kind": "pdf-gen", "request": {**LETTER, "pdf_standard": "archival"}}

    response = await client.post("/api/jobs", json=body, headers={"X-SVC-Key": key})

    assert response.status_code == 400, response.text
    assert [f["field"] for f in response.json()["fields"]] == ["request.pdf_standard"]


async def test_pdf_ops_refuses_to_encrypt_a_pdfa_render_naming_encrypt(
    client: AsyncTestClient,
) -> None:
    key = await issue_key(client)
    body = {
        "files": [{"render": {**LETTER, "pdf_standard": "PDF/A-3b"}}],
        "encrypt": {"owner_password": "secret"},
    }

    response = await client.post("/api/pdf-ops", json=body, headers={"X-SVC-Key": key})

    assert response.status_code == 400, response.text
    assert [f["field"] for f in response.json()["fields"]] == ["encrypt"]
    assert "PDF/A" in response.text


def test_the_mcp_pdf_tool_declares_the_options_from_the_model() -> None:
    properties = TOOLS["generate_pdf"].input_schema()["properties"]

    standard = properties["pdf_standard"]
    branches = standard.get("anyOf", [standard])
    assert any(b.get("enum") == ["PDF/A-2b", "PDF/A-3b"] for b in branches)
    assert properties["tagged"]["type"] == "boolean"


async def test_the_openapi_document_lists_pdf_standard_and_tagged(client: AsyncTestClient) -> None:
    document = (await client.get("/openapi.json")).json()

    assert "PDF/A-2b" in str(document)
    assert "'tagged'" in str(document)
