"""The browsable API: /docs, the schema at its conventional paths, one operation per endpoint
with a stable operationId and examples, and / leading to the docs."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable
from typing import Any

import jsonschema
import pytest
from litestar.testing import AsyncTestClient
from openapi_spec_validator import validate

from renderkit.core.converter import structure
from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.docs import ASSETS_PATH
from renderkit_server.mail import MemoryMailer
from renderkit_server.operations import OPERATIONS
from renderkit_server.settings import Settings

pytestmark = pytest.mark.anyio


@pytest.fixture
async def client(make_settings: Callable[..., Settings]) -> AsyncIterator[AsyncTestClient]:
    app = create_app(make_settings(), browser=FakeBrowser(), mailer=MemoryMailer())
    async with AsyncTestClient(app) as client:
        yield client


async def _document(client: AsyncTestClient) -> dict[str, Any]:
    response = await client.get("/docs/openapi.json")
    assert response.status_code == 200
    document: dict[str, Any] = response.json()
    return document


async def test_the_root_redirects_to_the_docs(client: AsyncTestClient) -> None:
    response = await client.get("/", follow_redirects=False)

    assert response.status_code == 307
    assert response.headers["location"] == "/docs"


async def test_the_docs_page_is_html_loading_the_served_schema(client: AsyncTestClient) -> None:
    response = await client.get("/docs")

    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert 'data-url="/docs/openapi.json"' in response.text
    assert f'<script src="{ASSETS_PATH}/swagger-ui-bundle.js">' in response.text
    assert '<a href="/docs/openapi.json">' in response.text.partition("<noscript>")[2]
    # Scripts, styles and fetches from this origin only: a CDN could not be used by mistake.
    assert "script-src 'self';" in response.headers["content-security-policy"]
    assert "https://" not in response.text


async def test_the_viewers_files_are_served_with_their_types_and_cached_for_a_year(
    client: AsyncTestClient,
) -> None:
    types = {
        "swagger-ui-bundle.js": "text/javascript",
        "renderkit-docs.js": "text/javascript",
        "swagger-ui.css": "text/css",
        "favicon-32x32.png": "image/png",
    }
    for name, media_type in types.items():
        response = await client.get(f"{ASSETS_PATH}/{name}")

        assert response.status_code == 200, name
        assert response.headers["content-type"].split(";")[0] == media_type
        assert response.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert response.headers["x-content-type-options"] == "nosniff"
    assert b"SwaggerUIBundle" in (await client.get(f"{ASSETS_PATH}/swagger-ui-bundle.js")).content


async def test_only_the_listed_viewer_files_are_served(client: AsyncTestClient) -> None:
    for name in ("index.css", "swagger-editor-bundle.js", "..%2F__init__.py", "LICENSE"):
        assert (await client.get(f"{ASSETS_PATH}/{name}")).status_code == 404, name
    assert (await client.get("/docs/assets/0.0.0/swagger-ui.css")).status_code == 404


async def test_the_schema_is_the_same_valid_document_at_every_conventional_path(
    client: AsyncTestClient,
) -> None:
    document = await _document(client)

    validate(document)
    for path in ("/openapi.json", "/api/openapi.json", "/v1/openapi.json"):
        assert (await client.get(path)).json() == document


async def test_each_endpoint_is_one_operation_with_a_stable_operation_id(
    client: AsyncTestClient,
) -> None:
    document = await _document(client)

    assert not [path for path in document["paths"] if path.startswith("/v1/")]
    assert "/v1" in document["info"]["description"]
    ids = {
        (path, method): operation["operationId"]
        for path, item in document["paths"].items()
        for method, operation in item.items()
    }
    assert ids == {
        ("/api/image", "post"): "generateImage",
        ("/api/pdf-gen", "post"): "generatePdf",
        ("/api/screenshot", "post"): "takeScreenshot",
        ("/api/read", "post"): "readPage",
        ("/api/audio", "post"): "generateAudio",
        ("/api/parse", "post"): "parseDocument",
        ("/api/pdf-ops", "post"): "editPdf",
        ("/api/keys/generate", "post"): "generateKey",
        ("/api/keys/regenerate", "post"): "regenerateKey",
        ("/api/health", "get"): "health",
        ("/api/image/{filename}", "get"): "getSignedImage",
        ("/api/usage", "get"): "getUsage",
        ("/api/jobs", "post"): "submitJob",
        ("/api/jobs", "get"): "listJobs",
        ("/api/jobs/{job_id}", "get"): "getJob",
        ("/api/jobs/{job_id}", "delete"): "cancelJob",
        ("/api/batches", "post"): "submitBatch",
        ("/api/batches/{batch_id}", "get"): "getBatch",
        ("/api/batches/{batch_id}", "delete"): "cancelBatch",
        ("/api/webhooks/secret", "get"): "getWebhookSecret",
        ("/api/webhooks/secret/rotate", "post"): "rotateWebhookSecret",
    }


async def test_every_operation_has_a_valid_example_request_and_response(
    client: AsyncTestClient,
) -> None:
    document = await _document(client)
    schemas = document["components"]["schemas"]

    for item in document["paths"].values():
        for method, operation in item.items():
            success = operation["responses"].get("200") or operation["responses"]["202"]
            if "application/json" not in success["content"]:
                # An image by signed URL: its example is in its parameters.
                assert all("example" in p for p in operation["parameters"] if p.get("required"))
                continue
            ok = success["content"]["application/json"]
            schema = ok["schema"]
            if "$ref" in schema:
                schema = schemas[schema["$ref"].rsplit("/", 1)[1]]
            # The document's components travel along, so references between schemas resolve.
            jsonschema.validate(ok["example"], {**schema, "components": document["components"]})
            if method == "post":
                assert "example" in operation["requestBody"]["content"]["application/json"]
    for name, op in OPERATIONS.items():
        body = document["paths"][f"/api/{name}"]["post"]["requestBody"]
        structure(body["content"]["application/json"]["example"], op.model)  # valid request


async def test_descriptions_have_no_restructuredtext_markup(client: AsyncTestClient) -> None:
    text = json.dumps(await _document(client))

    assert "``" not in text
    assert not re.search(r":(class|func|meth|attr|mod|data):`", text)
