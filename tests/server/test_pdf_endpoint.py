"""POST /api/pdf-gen through the test client (in-memory browser, real SQLite and files)."""

from __future__ import annotations

import pytest
from litestar.testing import AsyncTestClient

from .conftest import issue_key

pytestmark = pytest.mark.anyio

VARIANT_A = {
    "template": "invoicePdf",
    "data": {
        "invoice_number": "A-1",
        "date": "2026-11-01",
        "from_name": "ACME",
        "to_name": "Bob",
        "items": [{"description": "Widget", "quantity": 2, "unit_price": 5}],
        "currency": "EUR",
        "tax_rate": 20,
    },
    "page_size": "A4",
}
VARIANT_B = {
    "template": "invoice",
    "data": {
        "invoice_number": "B-1",
        "invoice_date": "2026-11-01",
        "company_name": "ACME",
        "client_name": "Bob",
        "line_items": [{"description": "Widget", "quantity": 2, "unit_price": 5}],
        "discount": 1,
    },
    "page_size": "Letter",
    "margin": "small",
}


@pytest.mark.parametrize(
    ("path", "body", "header"),
    [("/api/pdf-gen", VARIANT_A, "bearer"), ("/v1/pdf-gen", VARIANT_B, "svc")],
)
async def test_pdf_gen_accepts_both_variants_and_answers_the_superset(
    client: AsyncTestClient, path: str, body: dict, header: str
) -> None:
    key = await issue_key(client)
    headers = {"Authorization": f"Bearer {key}"} if header == "bearer" else {"X-SVC-Key": key}
    response = await client.post(path, json=body, headers=headers)
    assert response.status_code == 200, response.text
    result = response.json()
    assert result["success"] is True
    assert result["pages"] == result["pages_est"] == 1
    assert result["page_size"] == body["page_size"]
    assert result["landscape"] is False
    assert result["template"] == body["template"]
    assert result["credits_used"] == 1
    assert response.headers["x-ratelimit-limit"] == "500"
    file = await client.get(result["url"].removeprefix("http://testserver.local"))
    assert file.headers["content-type"] == "application/pdf"
    assert file.content.startswith(b"%PDF-")
    assert len(file.content) == result["size_bytes"]


async def test_pdf_custom_html_in_data_and_certificate_landscape(client: AsyncTestClient) -> None:
    key = await issue_key(client)
    headers = {"X-SVC-Key": key}
    custom = await client.post(
        "/api/pdf-gen", json={"template": "custom", "data": {"html": "<p>A</p>"}}, headers=headers
    )
    assert custom.status_code == 200
    certificate = await client.post(
        "/api/pdf-gen", json={"template": "certificate", "landscape": False}, headers=headers
    )
    assert certificate.json()["landscape"] is True


async def test_pdf_validation_errors_name_the_field(client: AsyncTestClient) -> None:
    key = await issue_key(client)
    response = await client.post(
        "/api/pdf-gen",
        json={
            "template": "invoice",
            "data": {"line_items": [{"description": "x", "quantity": -2, "unit_price": 1}]},
        },
        headers={"X-SVC-Key": key},
    )
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "INVALID_FIELD"
    assert body["fields"][0]["field"] == "data.line_items[0].quantity"
    missing = await client.post("/api/pdf-gen", json={"data": {}}, headers={"X-SVC-Key": key})
    assert missing.json()["code"] == "MISSING_FIELD"
