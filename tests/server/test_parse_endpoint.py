"""POST /api/parse and /v1/parse through the test client, with the real reader and extractors."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import anyio.lowlevel
import httpx
import jsonschema
import pytest
from litestar.testing import AsyncTestClient

from renderkit import ConfigurationError, ProviderUnavailableError
from renderkit.parsing import AnthropicExtractor, LocalExtractor, OpenAIExtractor, ParseLimits
from renderkit.testing import FakeBrowser, FakeExtractor
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.openapi import response_schema
from renderkit_server.services import _extractor
from renderkit_server.settings import Settings

from ..parsing._documents import encode, receipt_image, require_tesseract, text_pdf
from ..parsing._hostile import attachment_bomb_pdf
from .conftest import issue_key

pytestmark = pytest.mark.anyio

INVOICE = text_pdf(
    [
        [
            "ACME TRADING LTD",
            "12 Harbour Road, Bristol BS1 4DJ",
            "INVOICE",
            "Invoice No: INV-2041",
            "Invoice Date: 14/03/2025",
            "Bill To: Northwind Ltd",
            "Subtotal GBP 20.00",
            "VAT 20% GBP 4.00",
            "Total GBP 24.00",
        ]
    ]
)
SCHEMA = {
    "type": "object",
    "properties": {
        "invoice_number": {"type": "string"},
        "total": {"type": "number", "description": "amount due"},
        "purchase_order": {"type": "string"},
    },
}


def _b64(content: bytes) -> str:
    return base64.b64encode(content).decode()


VARIANT_A = {"file": _b64(INVOICE), "mimeType": "application/pdf"}
VARIANT_B = {
    "file": _b64(INVOICE),
    "mime_type": "application/pdf",
    "schema": SCHEMA,
    "hints": "UK invoice, day-first dates",
}


def _app(settings: Settings, **backends: Any) -> Any:
    return create_app(settings, browser=FakeBrowser(), mailer=MemoryMailer(), **backends)


@pytest.fixture
async def parse_client(make_settings: Callable[..., Settings]) -> AsyncIterator[AsyncTestClient]:
    async with AsyncTestClient(_app(make_settings())) as client:
        yield client


async def _remaining(client: AsyncTestClient, key: str) -> int:
    """Parses left this month, read from a successful call's headers (which charges one)."""
    response = await client.post("/api/parse", json=VARIANT_A, headers={"X-SVC-Key": key})
    assert response.status_code == 200, response.text
    return int(response.headers["x-ratelimit-remaining"])


async def test_a_variant_a_body_detects_the_invoice_and_reports_its_fields(
    parse_client: AsyncTestClient,
) -> None:
    key = await issue_key(parse_client)
    response = await parse_client.post("/api/parse", json=VARIANT_A, headers={"X-SVC-Key": key})
    assert response.status_code == 200, response.text
    body = response.json()
    jsonschema.validate(body, response_schema("parse"))
    assert body["success"] is True
    assert body["document_type"] == "invoice"
    assert body["data"]["number"] == "INV-2041"
    assert body["data"]["total"] == 24.0
    assert body["data"]["currency"] == "GBP"
    assert body["data"]["date"] == "2025-03-14"
    assert 0 < body["confidence"] <= 1
    assert body["usage"] == {"input_tokens": 0, "output_tokens": 0}
    assert body["pages"] == 1
    assert body["credits_used"] == 1
    assert body["extractor"] == "local"
    assert "url" not in body  # parse returns data, not a file
    assert response.headers["x-ratelimit-limit"] == "500"  # starter parses per month
    assert response.headers["x-ratelimit-remaining"] == "499"


async def test_a_variant_b_body_fills_exactly_the_schema_and_warns_about_what_is_missing(
    parse_client: AsyncTestClient,
) -> None:
    key = await issue_key(parse_client)
    response = await parse_client.post(
        "/v1/parse", json=VARIANT_B, headers={"Authorization": f"Bearer {key}"}
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["data"] == {"invoice_number": "INV-2041", "total": 24.0, "purchase_order": None}
    assert any("purchase_order" in w for w in body["warnings"])
    assert body["success"] is True


async def test_provenance_is_returned_on_request(parse_client: AsyncTestClient) -> None:
    key = await issue_key(parse_client)
    response = await parse_client.post(
        "/api/parse",
        json={**VARIANT_A, "include_provenance": True},
        headers={"X-SVC-Key": key},
    )
    body = response.json()
    total = body["provenance"]["total"]
    assert total["page"] == 1
    x0, y0, x1, y1 = total["bbox"]
    assert 0 <= x0 < x1 <= 1
    assert 0 <= y0 < y1 <= 1
    jsonschema.validate(body, response_schema("parse"))


async def test_a_scanned_receipt_is_read_by_ocr(parse_client: AsyncTestClient) -> None:
    require_tesseract()
    key = await issue_key(parse_client)
    body = {"file": _b64(encode(receipt_image(), "JPEG", quality=90)), "mimeType": "image/jpeg"}
    response = await parse_client.post("/api/parse", json=body, headers={"X-SVC-Key": key})
    assert response.status_code == 200, response.text
    result = response.json()
    assert result["document_type"] == "receipt"
    assert result["data"]["total"] == pytest.approx(29.89)
    assert result["data"]["date"] == "2017-10-29"


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"file": "!!not base64!!", "mimeType": "application/pdf"}, "file", "base64"),
        ({"file": "", "mimeType": "application/pdf"}, "file", "empty"),
        ({"file": _b64(INVOICE), "mimeType": "image/png"}, "mimeType", "pdf"),
        ({"file": _b64(INVOICE), "mimeType": "text/plain"}, "mimeType", "application/pdf"),
        ({"file": _b64(b"%PDF-1.7\nbroken"), "mimeType": "application/pdf"}, "file", "pdf"),
        ({"mimeType": "application/pdf"}, "file", "required"),
        (
            {**VARIANT_A, "schema": {"type": "object", "properties": {"a": {"type": 7}}}},
            "schema",
            "json schema",
        ),
    ],
)
async def test_bad_documents_are_400_naming_the_field_and_charge_nothing(
    parse_client: AsyncTestClient, body: dict[str, Any], field: str, words: str
) -> None:
    key = await issue_key(parse_client)
    response = await parse_client.post("/api/parse", json=body, headers={"X-SVC-Key": key})
    assert response.status_code == 400, response.text
    error = response.json()
    assert error["fields"][0]["field"] == field
    assert words in error["error"].lower()
    assert await _remaining(parse_client, key) == 499  # only the probe call was charged


async def test_a_document_over_the_configured_size_is_400(
    make_settings: Callable[..., Settings],
) -> None:
    async with AsyncTestClient(_app(make_settings(parse_max_bytes=200))) as client:
        key = await issue_key(client)
        response = await client.post("/api/parse", json=VARIANT_A, headers={"X-SVC-Key": key})
    assert response.status_code == 400
    assert response.json()["fields"][0]["field"] == "file"
    assert "200 bytes" in response.json()["error"]


async def test_a_pdf_over_the_configured_page_limit_is_400(
    make_settings: Callable[..., Settings],
) -> None:
    two_pages = text_pdf([["page one"], ["page two"]])
    body = {"file": _b64(two_pages), "mimeType": "application/pdf"}
    async with AsyncTestClient(_app(make_settings(parse_max_pages=1))) as client:
        key = await issue_key(client)
        response = await client.post("/api/parse", json=body, headers={"X-SVC-Key": key})
    assert response.status_code == 400
    assert "pages" in response.json()["error"]


async def test_parse_needs_a_key(parse_client: AsyncTestClient) -> None:
    response = await parse_client.post("/api/parse", json=VARIANT_A)
    assert response.status_code == 401
    assert response.json()["code"] == "UNAUTHORIZED"


async def test_the_monthly_parse_quota_is_enforced(
    make_settings: Callable[..., Settings],
) -> None:
    app = _app(make_settings(plans={"starter": {"parses": 1}}))
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        first = await client.post("/api/parse", json=VARIANT_A, headers={"X-SVC-Key": key})
        second = await client.post("/api/parse", json=VARIANT_A, headers={"X-SVC-Key": key})
    assert first.status_code == 200
    assert second.status_code == 429
    assert second.json()["code"] == "QUOTA_EXCEEDED"


async def test_an_injected_extractor_gets_the_schema_and_hints(
    make_settings: Callable[..., Settings],
) -> None:
    fake = FakeExtractor({"invoice_number": "X-1", "total": 5}, document_type="invoice")
    async with AsyncTestClient(_app(make_settings(), extractor=fake)) as client:
        key = await issue_key(client)
        response = await client.post("/v1/parse", json=VARIANT_B, headers={"X-SVC-Key": key})
    assert response.status_code == 200, response.text
    (call,) = fake.calls
    assert call.schema == SCHEMA
    assert call.hints == "UK invoice, day-first dates"
    assert "INV-2041" in call.document.text
    body = response.json()
    assert body["data"] == {"invoice_number": "X-1", "total": 5, "purchase_order": None}
    assert body["extractor"] == "fake"
    assert fake.closed  # the app closes its extractor on shutdown


async def test_an_unavailable_model_is_503_and_charges_nothing(
    make_settings: Callable[..., Settings],
) -> None:
    failing = {"on": True}

    def handler(_call: object) -> None:
        if failing["on"]:
            raise ProviderUnavailableError("the model is overloaded (HTTP 529)", provider="fake")

    fake = FakeExtractor({"total": 1}, handler=handler)
    async with AsyncTestClient(_app(make_settings(), extractor=fake)) as client:
        key = await issue_key(client)
        response = await client.post("/api/parse", json=VARIANT_A, headers={"X-SVC-Key": key})
        failing["on"] = False
        remaining = await _remaining(client, key)
    assert response.status_code == 503
    assert response.json()["code"] == "UPSTREAM_UNAVAILABLE"
    assert remaining == 499


class _SlowExtractor(LocalExtractor):
    name = "slow"

    async def extract(self, document: Any, *, schema: Any, hints: Any) -> Any:
        await anyio.sleep(30)
        return await super().extract(document, schema=schema, hints=hints)


async def test_a_parse_over_the_timeout_is_504_in_bounded_time(
    make_settings: Callable[..., Settings],
) -> None:
    app = _app(make_settings(parse_timeout=0.3), extractor=_SlowExtractor())
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        with anyio.fail_after(10):
            response = await client.post("/api/parse", json=VARIANT_A, headers={"X-SVC-Key": key})
    assert response.status_code == 504
    assert response.json()["code"] == "RENDER_TIMEOUT"
    assert "0.3 s" in response.json()["error"]


async def test_an_openai_compatible_model_answers_through_the_endpoint_with_real_token_usage(
    make_settings: Callable[..., Settings],
) -> None:
    requests: list[httpx.Request] = []

    def model(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        answer = {"document_type": "invoice", "data": {"invoice_number": "INV-2041", "total": 24}}
        return httpx.Response(
            200,
            json={
                "choices": [{"message": {"role": "assistant", "content": json.dumps(answer)}}],
                "usage": {"prompt_tokens": 321, "completion_tokens": 17},
            },
        )

    extractor = OpenAIExtractor(
        api_key="sk-test-secret",
        model="llama3.1",
        base_url="http://127.0.0.1:11434/v1",
        client=httpx.AsyncClient(transport=httpx.MockTransport(model)),
    )
    async with AsyncTestClient(_app(make_settings(), extractor=extractor)) as client:
        key = await issue_key(client)
        response = await client.post("/api/parse", json=VARIANT_B, headers={"X-SVC-Key": key})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["usage"] == {"input_tokens": 321, "output_tokens": 17}
    assert body["data"]["invoice_number"] == "INV-2041"
    assert body["extractor"] == "openai"
    (sent,) = requests
    assert str(sent.url) == "http://127.0.0.1:11434/v1/chat/completions"
    assert "INV-2041" in json.loads(sent.content)["messages"][-1]["content"]


def test_the_extractor_is_chosen_by_the_settings(make_settings: Callable[..., Settings]) -> None:
    assert isinstance(_extractor(make_settings()), LocalExtractor)
    local_llm = _extractor(
        make_settings(
            parse_extractor="openai", llm_model="llama3.1", llm_base_url="http://10.0.0.5:8000/v1"
        )
    )
    assert isinstance(local_llm, OpenAIExtractor)
    assert local_llm.base_url == "http://10.0.0.5:8000/v1"
    claude = _extractor(
        make_settings(parse_extractor="anthropic", llm_model="claude-x", llm_api_key="k" * 20)
    )
    assert isinstance(claude, AnthropicExtractor)
    assert "k" * 20 not in repr(claude)


@pytest.mark.parametrize(
    ("overrides", "words"),
    [
        ({"parse_extractor": "openai"}, "RENDERKIT_LLM_MODEL"),
        ({"parse_extractor": "openai", "llm_model": "gpt-4o-mini"}, "RENDERKIT_LLM_API_KEY"),
        ({"parse_extractor": "anthropic", "llm_model": "claude-x"}, "RENDERKIT_LLM_API_KEY"),
    ],
)
def test_an_incomplete_llm_configuration_names_the_missing_setting(
    make_settings: Callable[..., Settings], overrides: dict[str, str], words: str
) -> None:
    with pytest.raises(ConfigurationError, match=words):
        _extractor(make_settings(**overrides))


def test_the_llm_settings_come_from_the_environment_and_the_key_stays_secret() -> None:
    settings = Settings.from_env(
        {
            "RENDERKIT_PARSE_EXTRACTOR": "anthropic",
            "RENDERKIT_LLM_MODEL": "claude-x",
            "RENDERKIT_LLM_API_KEY": "sk-ant-very-secret",
            "RENDERKIT_PARSE_MAX_PAGES": "5",
            "RENDERKIT_PARSE_TIMEOUT": "30",
        }
    )
    assert settings.parse_extractor == "anthropic"
    assert settings.parse_max_pages == 5
    assert settings.parse_timeout == 30.0
    assert "sk-ant-very-secret" not in repr(settings)


async def test_the_openapi_document_describes_parse(parse_client: AsyncTestClient) -> None:
    document = (await parse_client.get("/openapi.json")).json()
    operation = document["paths"]["/api/parse"]["post"]
    assert operation["summary"] == "Parse a document"
    request = document["components"]["schemas"]["ParseRequest"]
    assert set(request["required"]) == {"file", "mimeType"}
    response = document["components"]["schemas"]["ParseRequestResponse"]
    # What every output answers is required; the fields and the Markdown, each answered only
    # with the outputs that ask for them, are described but optional.
    assert {"pages", "warnings"} <= set(response["required"])
    for name in ("document_type", "data", "markdown", "blocks", "truncated", "provenance"):
        assert name in response["properties"]
        assert name not in response["required"]


async def test_an_over_deep_schema_is_400_naming_schema_and_costs_nothing(
    parse_client: AsyncTestClient,
) -> None:
    key = await issue_key(parse_client)
    before = await _remaining(parse_client, key)
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(25):  # 51 levels: within the body's cap, beyond the schema's
        schema = {"type": "object", "properties": {"a": schema}}
    response = await parse_client.post(
        "/api/parse", json={**VARIANT_A, "schema": schema}, headers={"X-SVC-Key": key}
    )
    assert response.status_code == 400, response.text
    assert response.json()["fields"][0]["field"] == "schema"
    assert "at most 40 levels" in response.json()["error"]
    assert await _remaining(parse_client, key) == before - 1  # only the probe itself


async def test_an_attachment_inflating_to_512_mb_is_400_naming_the_limit_and_costs_nothing(
    make_settings: Callable[..., Settings],
) -> None:
    """Finding 1 over HTTP: refused before any work, nothing charged, health stays fast."""
    body = {"file": _b64(attachment_bomb_pdf()), "mimeType": "application/pdf"}
    async with AsyncTestClient(_app(make_settings())) as client:
        key = await issue_key(client)
        before = await _remaining(client, key)
        latencies: list[float] = []
        done = anyio.Event()

        async def probe_health() -> None:
            while not latencies or not done.is_set():  # at least once, then until done
                start = time.monotonic()
                assert (await client.get("/api/health")).status_code == 200
                latencies.append(time.monotonic() - start)
                await anyio.lowlevel.checkpoint()

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(probe_health)
            with anyio.fail_after(10):
                response = await client.post("/api/parse", json=body, headers={"X-SVC-Key": key})
            done.set()
        after = await _remaining(client, key)
    assert response.status_code == 400, response.text
    error = response.json()
    assert error["fields"][0]["field"] == "file"
    assert "max_embedded_bytes" in error["error"]
    assert after == before - 1  # only the probe call after it was charged
    assert latencies
    assert max(latencies) < 0.1


def test_the_parse_cost_ceilings_come_from_the_environment_with_the_library_defaults() -> None:
    default = ParseLimits()
    settings = Settings.from_env(
        {"RENDERKIT_PARSE_MAX_EMBEDDED_BYTES": "1000", "RENDERKIT_PARSE_MAX_OCR_PIXELS": "5"}
    )
    assert settings.parse_max_embedded_bytes == 1000
    assert settings.parse_max_ocr_pixels == 5
    assert settings.parse_max_pixels == default.max_pixels
    assert settings.parse_max_inflated_bytes == default.max_inflated_bytes
