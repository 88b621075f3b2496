"""POST /api/parse with ``output``: the document as Markdown, with or without the fields."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator, Callable

import jsonschema
import pytest
from litestar.testing import AsyncTestClient

from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.openapi import response_schema
from renderkit_server.settings import Settings

from ..parsing._documents import text_pdf
from .conftest import issue_key

pytestmark = pytest.mark.anyio

INVOICE = text_pdf(
    [
        [
            "ACME TRADING LTD",
            "INVOICE",
            "Invoice No: INV-2041",
            "Bill To: Northwind Ltd",
            "Total GBP 24.00",
        ]
    ]
)
SENTENCE = "The council agreed the harbour works would start in spring and end by autumn."
# Ten pages of prose: far more Markdown than a small budget holds.
LONG = text_pdf([[f"Page {n} notes."] + [SENTENCE] * 20 for n in range(1, 11)])


def _body(content: bytes, **extra: object) -> dict[str, object]:
    return {"file": base64.b64encode(content).decode(), "mimeType": "application/pdf", **extra}


@pytest.fixture
async def client(make_settings: Callable[..., Settings]) -> AsyncIterator[AsyncTestClient]:
    app = create_app(make_settings(), browser=FakeBrowser(), mailer=MemoryMailer())
    async with AsyncTestClient(app) as test_client:
        yield test_client


async def _post(client: AsyncTestClient, key: str, body: dict[str, object]) -> dict[str, object]:
    response = await client.post("/api/parse", json=body, headers={"X-SVC-Key": key})
    assert response.status_code == 200, response.text
    answer: dict[str, object] = response.json()
    jsonschema.validate(answer, response_schema("parse"))
    return answer


async def test_output_markdown_answers_the_document_and_its_blocks_without_fields(
    client: AsyncTestClient,
) -> None:
    key = await issue_key(client)
    body = await _post(client, key, _body(INVOICE, output="markdown"))
    assert "data" not in body and "document_type" not in body
    markdown = body["markdown"]
    assert isinstance(markdown, str)
    assert markdown.startswith("<!-- page 1 -->")
    assert "Invoice No: INV-2041" in markdown and "Total GBP 24.00" in markdown
    assert body["truncated"] is False
    assert body["pages"] == 1
    blocks = body["blocks"]
    assert isinstance(blocks, list) and blocks
    for block in blocks:
        assert block["page"] == 1
        assert block["text"] in markdown
        x0, y0, x1, y1 = block["bbox"]
        assert 0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1
    assert body["credits_used"] == 1


async def test_fields_plus_markdown_answers_both(client: AsyncTestClient) -> None:
    key = await issue_key(client)
    body = await _post(client, key, _body(INVOICE, output="fields+markdown"))
    assert body["document_type"] == "invoice"
    assert body["data"]["number"] == "INV-2041"  # type: ignore[index]
    assert "Bill To: Northwind Ltd" in str(body["markdown"])


async def test_the_default_output_answers_no_markdown(client: AsyncTestClient) -> None:
    key = await issue_key(client)
    body = await _post(client, key, _body(INVOICE))
    assert body["data"]
    assert "markdown" not in body and "blocks" not in body


async def test_a_character_budget_ends_the_markdown_at_a_block_and_says_so(
    client: AsyncTestClient,
) -> None:
    key = await issue_key(client)
    whole = await _post(client, key, _body(LONG, output="markdown"))
    cut = await _post(client, key, _body(LONG, output="markdown", max_chars=4000))
    assert whole["truncated"] is False and cut["truncated"] is True
    markdown = str(cut["markdown"])
    assert len(markdown) <= 4000
    assert markdown.rstrip().splitlines()[-1].startswith("[Truncated:")
    kept = cut["blocks"]
    assert isinstance(kept, list) and isinstance(whole["blocks"], list)
    # Whole blocks, the first ones of the full answer, and each of them in the Markdown.
    assert kept == whole["blocks"][: len(kept)]
    assert 0 < len(kept) < len(whole["blocks"])
    assert all(block["text"] in markdown for block in kept)


@pytest.mark.parametrize(
    ("extra", "field"),
    [({"output": "html"}, "output"), ({"output": "markdown", "max_chars": 10}, "max_chars")],
)
async def test_a_bad_output_or_budget_is_400_naming_the_field_and_costs_nothing(
    client: AsyncTestClient, extra: dict[str, object], field: str
) -> None:
    key = await issue_key(client)
    before = await _remaining(client, key)
    response = await client.post(
        "/api/parse", json=_body(INVOICE, **extra), headers={"X-SVC-Key": key}
    )
    assert response.status_code == 400, response.text
    assert response.json()["fields"][0]["field"] == field
    assert await _remaining(client, key) == before - 1  # only the second good call counted


async def _remaining(client: AsyncTestClient, key: str) -> int:
    """Parses left this month, read from a good call's headers (which charges one)."""
    response = await client.post("/api/parse", json=_body(INVOICE), headers={"X-SVC-Key": key})
    assert response.status_code == 200, response.text
    return int(response.headers["x-ratelimit-remaining"])
