"""pdf-gen with an e-invoice: the facts it reports, the XML answer, free 4xx refusals."""

from __future__ import annotations

import pytest
from litestar.testing import AsyncTestClient

from ..pdf._einvoice_data import sample
from .conftest import issue_key

pytestmark = pytest.mark.anyio


async def _used(client: AsyncTestClient, key: str) -> int:
    response = await client.get("/api/usage", headers={"X-SVC-Key": key})
    used: int = response.json()["metrics"]["pdfs"]["used"]
    return used


async def test_a_factur_x_invoice_reports_its_format_profile_and_checks(
    client: AsyncTestClient,
) -> None:
    key = await issue_key(client)

    response = await client.post("/api/pdf-gen", json=sample(), headers={"X-SVC-Key": key})

    assert response.status_code == 200, response.text
    body = response.json()
    assert body["format"] == "pdf"
    assert body["einvoice"] == "factur-x"
    assert body["einvoice_profile"] == "en16931"
    assert body["einvoice_validated"] == ["xsd", "schematron-en16931"]
    assert ".pdf" in body["url"]


async def test_an_xrechnung_is_answered_as_xml(client: AsyncTestClient) -> None:
    key = await issue_key(client)

    response = await client.post(
        "/api/pdf-gen", json=sample(einvoice="xrechnung"), headers={"X-SVC-Key": key}
    )

    assert response.status_code == 200, response.text
    body = response.json()
    assert body["format"] == "xml"
    assert body["einvoice_validated"] == ["xsd", "schematron-en16931", "xrechnung-br-de"]
    stored = await client.get(body["url"])
    assert stored.status_code == 200
    assert stored.headers["content-type"].startswith("application/xml")
    assert b"xrechnung_3.0" in stored.content


async def test_an_e_invoice_missing_a_field_is_a_free_400_naming_it(
    client: AsyncTestClient,
) -> None:
    key = await issue_key(client)
    request = sample()
    del request["data"]["seller"]["vat_id"]

    response = await client.post("/api/pdf-gen", json=request, headers={"X-SVC-Key": key})

    assert response.status_code == 400, response.text
    assert "data.seller.vat_id" in response.text
    assert await _used(client, key) == 0


async def test_a_plain_invoice_reports_no_e_invoice_facts(client: AsyncTestClient) -> None:
    key = await issue_key(client)
    body = {"template": "invoice", "data": {"line_items": [{"unit_price": 5}]}}

    response = await client.post("/api/pdf-gen", json=body, headers={"X-SVC-Key": key})

    assert response.status_code == 200, response.text
    assert "einvoice" not in response.json()
