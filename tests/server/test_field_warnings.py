"""Fields a template does not display: a 200 with warnings, or with strict a free 400."""

from __future__ import annotations

from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from renderkit.testing import FakeBrowser

from .conftest import issue_key

pytestmark = pytest.mark.anyio

OG_WITH_CTA = {"template": "og-card", "data": {"title": "New: PDF merging", "cta": "Read"}}
WARNING = "data.cta: og-card does not display cta; it was ignored"


async def _used(client: AsyncTestClient, key: str, metric: str) -> int:
    response = await client.get("/api/usage", headers={"X-SVC-Key": key})
    assert response.status_code == 200, response.text
    used: int = response.json()["metrics"][metric]["used"]
    return used


@pytest.mark.parametrize(
    ("path", "body", "warning"),
    [
        ("/api/image", OG_WITH_CTA, WARNING),
        (
            "/v1/image",
            {"template": "twitterCard", "data": {"title": "Hi", "tag": "Launch"}},
            "data.tag: twitter-card does not display tag; it was ignored",
        ),
        (
            "/api/pdf-gen",
            {"template": "custom", "html": "<p>B</p>", "data": {"html": "<p>A</p>"}},
            "data.html: custom prints html instead; it was ignored",
        ),
        (
            "/v1/pdf-gen",
            {"template": "certificatePdf", "data": {"course_name": "Go", "name_style": "sans"}},
            "data.name_style: certificate displays name_style only with recipient_name; "
            "it was ignored",
        ),
    ],
)
async def test_a_field_the_template_does_not_display_is_answered_as_a_warning(
    client: AsyncTestClient, path: str, body: dict[str, Any], warning: str
) -> None:
    key = await issue_key(client)
    response = await client.post(path, json=body, headers={"X-SVC-Key": key})
    assert response.status_code == 200, response.text
    assert response.json()["warnings"] == [warning]


async def test_a_call_without_ignored_fields_answers_an_empty_warnings_list(
    client: AsyncTestClient,
) -> None:
    key = await issue_key(client)
    body = {"template": "og-card", "data": {"title": "Hi", "domain": "example.com"}}
    response = await client.post("/api/image", json=body, headers={"X-SVC-Key": key})
    assert response.status_code == 200, response.text
    assert response.json()["warnings"] == []


async def test_an_answer_from_the_render_cache_carries_the_same_warnings(
    client: AsyncTestClient, fake_browser: FakeBrowser
) -> None:
    key = await issue_key(client)
    first = await client.post("/api/image", json=OG_WITH_CTA, headers={"X-SVC-Key": key})
    again = await client.post("/api/image", json=OG_WITH_CTA, headers={"X-SVC-Key": key})
    assert (first.status_code, again.status_code) == (200, 200)
    assert again.json()["cached"] is True
    assert len(fake_browser.renders) == 1
    assert first.json()["warnings"] == again.json()["warnings"] == [WARNING]


async def test_a_strict_request_is_refused_naming_the_field_and_charges_nothing(
    client: AsyncTestClient, fake_browser: FakeBrowser
) -> None:
    key = await issue_key(client)
    for path, body, metric in (
        ("/api/image", {**OG_WITH_CTA, "strict": True}, "images"),
        (
            "/v1/pdf-gen",
            {"template": "invoice", "strict": True, "data": {"discount": 5}},
            "pdfs",
        ),
    ):
        response = await client.post(path, json=body, headers={"X-SVC-Key": key})
        assert response.status_code == 400, response.text
        error = response.json()
        assert error["code"] == "INVALID_FIELD"
        assert [f["field"] for f in error["fields"]] == [
            "data.cta" if metric == "images" else "data.discount"
        ]
        assert await _used(client, key, metric) == 0
    assert fake_browser.renders == []


async def test_a_strict_request_that_displays_everything_renders_and_is_charged(
    client: AsyncTestClient,
) -> None:
    key = await issue_key(client)
    body = {"template": "announcement", "strict": True, "data": {"title": "Hi", "cta": "Go"}}
    response = await client.post("/api/image", json=body, headers={"X-SVC-Key": key})
    assert response.status_code == 200, response.text
    assert response.json()["warnings"] == []
    assert await _used(client, key, "images") == 1


async def test_an_empty_report_is_a_400_naming_what_is_missing(
    client: AsyncTestClient, fake_browser: FakeBrowser
) -> None:
    key = await issue_key(client)
    for path, template in (("/api/pdf-gen", "report"), ("/v1/pdf-gen", "reportPdf")):
        body = {"template": template, "data": {"sections": []}}
        response = await client.post(path, json=body, headers={"X-SVC-Key": key})
        assert response.status_code == 400, response.text
        error = response.json()
        assert error["fields"][0]["field"] == "data.sections"
        assert "a report needs a title or at least one section" in error["error"]
    assert fake_browser.renders == []
    assert await _used(client, key, "pdfs") == 0


async def test_unknown_fields_are_still_refused_beside_strict(client: AsyncTestClient) -> None:
    key = await issue_key(client)
    body = {**OG_WITH_CTA, "strict": True, "stritc": True}
    response = await client.post("/api/image", json=body, headers={"X-SVC-Key": key})
    assert response.status_code == 400
    assert "stritc" in [f["field"] for f in response.json()["fields"]]


async def test_the_published_schema_documents_strict_and_warnings(
    client: AsyncTestClient,
) -> None:
    document = (await client.get("/openapi.json")).json()
    for path in ("/api/image", "/api/pdf-gen"):
        operation = document["paths"][path]["post"]
        body = operation["requestBody"]["content"]["application/json"]["schema"]
        success = operation["responses"]["200"]["content"]["application/json"]["schema"]
        assert "strict" in _resolve(document, body)["properties"]
        assert "warnings" in _resolve(document, success)["required"]


def _resolve(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        *_, group, name = schema["$ref"].split("/")
        schema = document["components"][group][name]
    return schema
