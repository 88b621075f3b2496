"""The operations table is the one description of each production endpoint's response."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator, Callable
from typing import Any

import jsonschema
import pytest
from litestar.testing import AsyncTestClient

from renderkit.testing import FakeBrowser, FakeExtractor, FakeSpeechProvider
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.operations import OPERATIONS, PRODUCTION_ERRORS
from renderkit_server.settings import Settings

from ..parsing._documents import text_pdf
from .conftest import issue_key

pytestmark = pytest.mark.anyio

PAYLOADS: dict[str, dict[str, Any]] = {
    "image": {"template": "og-card", "data": {"title": "Hello"}},
    "pdf-gen": {"template": "letter", "data": {"body": "Dear Bob,"}},
    "screenshot": {"url": "https://example.com/"},
    "read": {"url": "https://example.com/"},
    "audio": {"script": "Hello there."},
    "parse": {
        "file": base64.b64encode(text_pdf([["Total 24.00"]])).decode(),
        "mimeType": "application/pdf",
        "include_provenance": True,
    },
    "pdf-ops": {
        "files": [{"file": base64.b64encode(text_pdf([["One"], ["Two"]])).decode()}],
        "pages": "2",
        "watermark": {"text": "DRAFT"},
    },
}


@pytest.fixture
async def app_client(make_settings: Callable[..., Settings]) -> AsyncIterator[AsyncTestClient]:
    app = create_app(
        make_settings(),
        browser=FakeBrowser(),
        mailer=MemoryMailer(),
        speech=FakeSpeechProvider(),
        extractor=FakeExtractor({"total": 24.0}, document_type="receipt"),
    )
    async with AsyncTestClient(app) as client:
        yield client


def test_every_operation_has_a_payload_here() -> None:
    assert set(PAYLOADS) == set(OPERATIONS)


@pytest.mark.parametrize("name", list(OPERATIONS))
async def test_a_success_body_has_exactly_the_fields_of_the_operations_response_schema(
    app_client: AsyncTestClient, name: str
) -> None:
    key = await issue_key(app_client)
    response = await app_client.post(
        f"/api/{name}", json=PAYLOADS[name], headers={"X-SVC-Key": key}
    )
    assert response.status_code == 200, response.text
    body = response.json()
    schema = OPERATIONS[name].response_schema()

    jsonschema.validate(body, schema)
    assert set(schema["required"]) <= set(body) <= set(schema["properties"])


@pytest.mark.parametrize("name", list(OPERATIONS))
def test_only_operations_that_store_a_file_report_its_url_and_size(name: str) -> None:
    operation = OPERATIONS[name]
    properties = operation.response_schema()["properties"]

    assert ("url" in properties) is operation.stores_file
    assert ("size_bytes" in properties) is operation.stores_file
    assert operation.stores_file is (name != "parse")


async def test_the_openapi_document_takes_responses_from_the_operations(
    app_client: AsyncTestClient,
) -> None:
    document = (await app_client.get("/openapi.json")).json()

    for name, operation in OPERATIONS.items():
        responses = document["paths"][f"/api/{name}"]["post"]["responses"]
        assert sorted(responses) == sorted(["200", *map(str, PRODUCTION_ERRORS)])
        assert responses["429"]["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/Error"
        }
        reference = f"{operation.model.__name__}Response"
        assert document["components"]["schemas"][reference] == operation.response_schema()


async def test_the_mcp_output_schema_is_the_operations_response_schema(
    app_client: AsyncTestClient,
) -> None:
    from renderkit_server.mcp.tools import TOOLS, portable_schema

    for tool in TOOLS.values():
        definition = tool.definition("2025-06-18")
        assert definition["outputSchema"] == portable_schema(tool.operation.response_schema())
