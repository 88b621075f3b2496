"""The HTTP API end to end through Litestar's test client (FakeBrowser, real SQLite)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from renderkit import BrowserBusyError, RenderError, RenderTimeoutError
from renderkit.testing import FakeBrowser, RecordedRender
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.settings import Settings

from ..conftest import open_image
from .conftest import ADMIN, issue_key

pytestmark = pytest.mark.anyio

VARIANT_A = {
    "template": "ogCard",
    "data": {
        "title": "Variant A",
        "subtitle": "s",
        "cta_text": "Go",
        "brand_color": "#ff0000",
        "background_color": "#101010",
        "text_color": "#ffffff",
    },
    "format": "png",
    "quality": 90,
}
VARIANT_B = {
    "template": "og-card",
    "data": {
        "title": "Variant B",
        "tag": "New",
        "cta": "Go",
        "background": "gradient",
        "domain": "example.com",
    },
    "format": "jpeg",
}
#: Metering tests render every call: identical requests would otherwise be cache hits.
UNCACHED = {**VARIANT_B, "cache": False}
ISO_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def envelope(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["status"] == status
    assert body["code"] == code
    assert isinstance(body["error"], str) and body["error"]
    return body


@pytest.mark.parametrize("prefix", ["/api", "/v1"])
async def test_health_answers_on_both_paths(client: AsyncTestClient, prefix: str) -> None:
    response = await client.get(f"{prefix}/health")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] in ("ok", "degraded")
    assert body["version"] == "1.0.0"
    assert isinstance(body["uptime_seconds"], int)
    assert set(body["services"]) == {"image", "pdf", "audio", "screenshot", "parse"}
    assert re.fullmatch(r"[0-9a-f]{16}", response.headers["x-request-id"])


async def test_request_id_from_the_client_is_echoed(client: AsyncTestClient) -> None:
    response = await client.get("/api/health", headers={"X-Request-Id": "abc-123"})
    assert response.headers["x-request-id"] == "abc-123"


@pytest.mark.parametrize(
    ("prefix", "body", "header"),
    [
        ("/api", VARIANT_A, "bearer"),
        ("/v1", VARIANT_A, "svc"),
        ("/api", VARIANT_B, "svc"),
        ("/v1", VARIANT_B, "bearer"),
    ],
)
async def test_image_accepts_both_variants_and_answers_the_superset(
    client: AsyncTestClient, prefix: str, body: dict, header: str
) -> None:
    key = await issue_key(client)
    headers = {"Authorization": f"Bearer {key}"} if header == "bearer" else {"X-SVC-Key": key}
    response = await client.post(f"{prefix}/image", json=body, headers=headers)
    assert response.status_code == 200, response.text
    result = response.json()
    assert result["success"] is True
    assert result["template"] == body["template"]
    assert (result["width"], result["height"]) == (2400, 1260)
    assert result["format"] == body["format"]
    assert result["credits_used"] == 1
    assert response.headers["x-ratelimit-limit"] == "5000"
    assert response.headers["x-ratelimit-remaining"] == "4999"
    assert ISO_UTC.match(response.headers["x-ratelimit-reset"])
    file = await client.get(result["url"].removeprefix("http://testserver.local"))
    assert file.status_code == 200
    assert file.headers["content-type"] == f"image/{body['format']}"
    assert int(file.headers["content-length"]) == result["size_bytes"] == len(file.content)
    assert file.headers["etag"]
    assert open_image(file.content).size == (2400, 1260)


async def test_signed_file_url_rejects_tampering(client: AsyncTestClient) -> None:
    key = await issue_key(client)
    result = (await client.post("/api/image", json=VARIANT_B, headers={"X-SVC-Key": key})).json()
    path = result["url"].removeprefix("http://testserver.local")
    tampered = re.sub(r"signature=[^&]+", "signature=AAAA", path)
    envelope(await client.get(tampered), 403, "FORBIDDEN")
    envelope(await client.get(path.split("?")[0]), 403, "FORBIDDEN")
    expired = re.sub(r"expires=\d+", "expires=1000", path)
    assert (await client.get(expired)).status_code == 403


async def test_missing_and_invalid_keys_are_401(client: AsyncTestClient) -> None:
    envelope(await client.post("/api/image", json=VARIANT_B), 401, "UNAUTHORIZED")
    bad = {"Authorization": "Bearer sk_live_abc.def"}
    envelope(await client.post("/api/image", json=VARIANT_B, headers=bad), 401, "UNAUTHORIZED")


async def test_two_different_keys_in_both_headers_is_401(client: AsyncTestClient) -> None:
    one, two = await issue_key(client, email="a@x.io"), await issue_key(client, email="b@x.io")
    headers = {"Authorization": f"Bearer {one}", "X-SVC-Key": two}
    envelope(await client.post("/api/image", json=VARIANT_B, headers=headers), 401, "UNAUTHORIZED")


async def test_missing_template_is_400_missing_field_naming_it(client: AsyncTestClient) -> None:
    key = await issue_key(client)
    body = envelope(
        await client.post("/api/image", json={"data": {}}, headers={"X-SVC-Key": key}),
        400,
        "MISSING_FIELD",
    )
    assert "template" in body["error"]
    assert body["fields"] == [{"field": "template", "message": "is required"}]


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"template": "og-card", "quality": 0}, "quality"),
        ({"template": "og-card", "data": {"title": 5}}, "data.title"),
        ({"template": "og-card", "width": 100000}, "width"),
        ({"template": "nope"}, "template"),
    ],
)
async def test_invalid_values_are_400_naming_the_field(
    client: AsyncTestClient, payload: dict, field: str
) -> None:
    key = await issue_key(client)
    body = envelope(
        await client.post("/api/image", json=payload, headers={"X-SVC-Key": key}),
        400,
        "INVALID_FIELD",
    )
    assert body["fields"][0]["field"] == field
    assert field in body["error"]


async def test_bad_json_wrong_body_type_and_media_type(client: AsyncTestClient) -> None:
    key = await issue_key(client)
    headers = {"X-SVC-Key": key, "Content-Type": "application/json"}
    envelope(
        await client.post("/api/image", content=b"{nope", headers=headers), 400, "INVALID_JSON"
    )
    envelope(
        await client.post("/api/image", content=b"[1,2]", headers=headers), 400, "INVALID_FIELD"
    )
    envelope(await client.post("/api/image", content=b"", headers=headers), 400, "MISSING_FIELD")
    text = {"X-SVC-Key": key, "Content-Type": "text/plain"}
    envelope(
        await client.post("/api/image", content=b"hello", headers=text),
        415,
        "UNSUPPORTED_MEDIA_TYPE",
    )


async def test_oversized_body_is_413(make_settings: Callable[..., Settings]) -> None:
    app = create_app(
        make_settings(max_body_bytes=1000), browser=FakeBrowser(), mailer=MemoryMailer()
    )
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        payload = {"template": "custom", "html": "x" * 5000}
        envelope(
            await client.post("/api/image", json=payload, headers={"X-SVC-Key": key}),
            413,
            "PAYLOAD_TOO_LARGE",
        )


async def test_unknown_path_and_wrong_method_use_the_envelope(client: AsyncTestClient) -> None:
    envelope(await client.get("/api/nothing-here"), 404, "NOT_FOUND")
    envelope(await client.get("/api/image"), 405, "METHOD_NOT_ALLOWED")


@pytest.mark.parametrize("prefix", ["/api", "/v1"])
async def test_an_unknown_api_path_is_a_404_envelope_suggesting_the_closest_path(
    client: AsyncTestClient, prefix: str
) -> None:
    body = envelope(await client.post(f"{prefix}/pdf", json={}), 404, "NOT_FOUND")
    assert body["suggestion"] == f"{prefix}/pdf-gen"
    assert body["error"] == f"no such endpoint: {prefix}/pdf; did you mean {prefix}/pdf-gen?"


async def test_an_unknown_path_like_no_endpoint_gets_no_suggestion(
    client: AsyncTestClient,
) -> None:
    body = envelope(await client.get("/api/zzzzzzzzzzzzzzzzzzzzzzzz"), 404, "NOT_FOUND")
    assert "suggestion" not in body
    assert body["error"] == "no such endpoint: /api/zzzzzzzzzzzzzzzzzzzzzzzz"


async def test_quota_exhaustion_is_429_with_retry_headers_and_failures_are_free(
    make_settings: Callable[..., Settings],
) -> None:
    fail = {"on": False}

    def handler(render: RecordedRender) -> None:
        if fail["on"]:
            msg = "boom"
            raise RenderError(msg)

    settings = make_settings(plans={"starter": {"images": 2}})
    app = create_app(settings, browser=FakeBrowser(handler), mailer=MemoryMailer())
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        headers = {"X-SVC-Key": key}
        first = await client.post("/api/image", json=UNCACHED, headers=headers)
        assert first.headers["x-ratelimit-remaining"] == "1"
        fail["on"] = True
        envelope(
            await client.post("/api/image", json=UNCACHED, headers=headers), 500, "RENDER_FAILED"
        )
        fail["on"] = False
        second = await client.post("/api/image", json=UNCACHED, headers=headers)
        assert second.status_code == 200
        assert second.headers["x-ratelimit-remaining"] == "0"
        third = await client.post("/api/image", json=UNCACHED, headers=headers)
        body = envelope(third, 429, "QUOTA_EXCEEDED")
        assert int(third.headers["retry-after"]) >= 1
        assert ISO_UTC.match(third.headers["x-ratelimit-reset"])
        assert body["retry_at"] == third.headers["x-ratelimit-reset"]
        assert third.headers["x-ratelimit-remaining"] == "0"


async def test_fifty_concurrent_requests_against_a_quota_of_ten_succeed_ten_times(
    make_settings: Callable[..., Settings],
) -> None:
    settings = make_settings(plans={"starter": {"images": 10, "burst_per_minute": None}})
    app = create_app(settings, browser=FakeBrowser(), mailer=MemoryMailer())
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        responses = await asyncio.gather(
            *(
                client.post("/api/image", json=UNCACHED, headers={"X-SVC-Key": key})
                for _ in range(50)
            )
        )
    statuses = sorted(r.status_code for r in responses)
    assert statuses.count(200) == 10
    assert statuses.count(429) == 40


async def test_burst_limit_is_429_rate_limited(make_settings: Callable[..., Settings]) -> None:
    settings = make_settings(plans={"starter": {"burst_per_minute": 3}})
    app = create_app(settings, browser=FakeBrowser(), mailer=MemoryMailer())
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        codes = [
            (await client.post("/api/image", json=VARIANT_B, headers={"X-SVC-Key": key}))
            for _ in range(4)
        ]
    assert [c.status_code for c in codes] == [200, 200, 200, 429]
    assert codes[-1].json()["code"] == "RATE_LIMITED"
    assert 1 <= int(codes[-1].headers["retry-after"]) <= 60


@pytest.mark.parametrize(
    ("error", "status", "code"),
    [
        (BrowserBusyError("busy", retry_after=2), 503, "OVERLOADED"),
        (RenderTimeoutError("slow", timeout=1), 504, "RENDER_TIMEOUT"),
        (ValueError("secret /etc/passwd"), 500, "INTERNAL_ERROR"),
    ],
)
async def test_render_failures_map_to_statuses_without_leaking_internals(
    make_settings: Callable[..., Settings], error: Exception, status: int, code: str
) -> None:
    def handler(render: RecordedRender) -> None:
        raise error

    app = create_app(make_settings(), browser=FakeBrowser(handler), mailer=MemoryMailer())
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        response = await client.post("/api/image", json=VARIANT_B, headers={"X-SVC-Key": key})
        body = envelope(response, status, code)
        assert "/etc/passwd" not in response.text and "Traceback" not in response.text
        if status == 503:
            assert response.headers["retry-after"] == "2"
        usage = await client.post("/api/image", json=VARIANT_B, headers={"X-SVC-Key": key})
        assert usage.status_code == status  # still failing, and still not charged:
    assert body["status"] == status


async def test_self_service_issues_starter_keys_only(
    client: AsyncTestClient, mailer: MemoryMailer
) -> None:
    response = await client.post(
        "/api/keys/generate", json={"email": "x@example.com", "plan": "pro"}
    )
    envelope(response, 403, "FORBIDDEN")
    ok = await client.post("/v1/keys/generate", json={"email": "x@example.com", "plan": "starter"})
    body = ok.json()
    assert body["key"].startswith("sk_live_")
    assert body["plan"] == "starter" and body["email"] == "x@example.com"
    assert ISO_UTC.match(
        body["created"].split(".")[0] + "Z" if "." in body["created"] else body["created"]
    )
    assert body["created"] == body["issued_at"]
    assert mailer.messages[-1]["To"] == "x@example.com"
    assert body["key"] in mailer.messages[-1].get_body().get_content()
    paid = await client.post(
        "/api/keys/generate",
        json={"email": "y@example.com", "plan": "vip"},
        headers={"Authorization": f"Bearer {ADMIN}"},
    )
    assert paid.json()["plan"] == "vip"


async def test_key_generation_validates_email_and_plan(client: AsyncTestClient) -> None:
    envelope(
        await client.post("/api/keys/generate", json={"plan": "starter"}), 400, "MISSING_FIELD"
    )
    body = envelope(
        await client.post("/api/keys/generate", json={"email": "not-an-email"}),
        400,
        "INVALID_FIELD",
    )
    assert "email" in body["error"]
    admin = {"Authorization": f"Bearer {ADMIN}"}
    body = envelope(
        await client.post(
            "/api/keys/generate", json={"email": "a@b.co", "plan": "gold"}, headers=admin
        ),
        400,
        "INVALID_FIELD",
    )
    assert "plan" in body["error"]


async def test_key_issuance_is_rate_limited_per_client(
    make_settings: Callable[..., Settings],
) -> None:
    app = create_app(
        make_settings(key_issue_per_hour=2), browser=FakeBrowser(), mailer=MemoryMailer()
    )
    async with AsyncTestClient(app) as client:
        codes = [
            (await client.post("/api/keys/generate", json={"email": f"u{i}@x.io"})).status_code
            for i in range(3)
        ]
    assert codes == [200, 200, 429]


@pytest.mark.parametrize("how", ["body", "bearer", "svc"])
async def test_regenerate_invalidates_the_old_key_at_once_and_after_restart(
    make_settings: Callable[..., Settings], how: str
) -> None:
    settings = make_settings()
    app = create_app(settings, browser=FakeBrowser(), mailer=MemoryMailer())
    async with AsyncTestClient(app) as client:
        old = await issue_key(client, plan="pro")
        if how == "body":
            response = await client.post("/api/keys/regenerate", json={"key": old})
        elif how == "bearer":
            response = await client.post(
                "/v1/keys/regenerate", headers={"Authorization": f"Bearer {old}"}
            )
        else:
            response = await client.post("/api/keys/regenerate", headers={"X-SVC-Key": old})
        assert response.status_code == 200, response.text
        new = response.json()["key"]
        assert response.json()["plan"] == "pro"
        assert new != old
        envelope(
            await client.post("/api/image", json=VARIANT_B, headers={"X-SVC-Key": old}),
            401,
            "UNAUTHORIZED",
        )
        ok = await client.post("/api/image", json=VARIANT_B, headers={"X-SVC-Key": new})
        assert ok.status_code == 200
        envelope(await client.post("/api/keys/regenerate", json={"key": old}), 401, "UNAUTHORIZED")
    restarted = create_app(settings, browser=FakeBrowser(), mailer=MemoryMailer())
    async with AsyncTestClient(restarted) as client:
        envelope(
            await client.post("/api/image", json=VARIANT_B, headers={"X-SVC-Key": old}),
            401,
            "UNAUTHORIZED",
        )
        ok = await client.post("/api/image", json=VARIANT_B, headers={"X-SVC-Key": new})
        assert ok.status_code == 200


async def test_diagnostic_needs_the_admin_token_and_never_shows_secrets(
    client: AsyncTestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RENDERKIT_SMTP_PASSWORD", "hunter2-very-secret")
    envelope(await client.get("/api/health/diagnostic"), 401, "UNAUTHORIZED")
    response = await client.get(
        "/v1/health/diagnostic", headers={"Authorization": f"Bearer {ADMIN}"}
    )
    assert response.status_code == 200
    body = response.json()
    assert body["env"]["RENDERKIT_SMTP_PASSWORD"] == {"set": True, "length": 19}
    assert body["checks"]["storage"]["ok"] is True
    assert body["checks"]["usage"]["ok"] is True
    assert "hunter2" not in response.text and ADMIN not in response.text
    assert "test-secret-that-is-long-enough" not in response.text


async def test_openapi_document_is_valid_and_describes_the_image_request(
    client: AsyncTestClient,
) -> None:
    from openapi_spec_validator import validate

    response = await client.get("/openapi.json")
    document = response.json()
    validate(document)
    image = document["components"]["schemas"]["ImageRequest"]
    assert image["required"] == ["template"]
    assert "ogCard" in image["properties"]["template"]["enum"]
    assert image["properties"]["quality"]["maximum"] == 100
    assert set(document["paths"]) >= {"/api/image", "/api/keys/generate", "/api/health"}


# Signed with the test secret by the code before the shared signing helper existed.
LEGACY_KEY = (
    "sk_live_AQ8PDw8PDw8PDw8PDw8PDw8AAAAAAAAAAABoTuGAAmsxbGVnYWN5QGV4YW1wbGUuY29t"
    ".UDfujML2nCq6dJbnR6YAyQ"
)


async def test_a_key_issued_before_the_signing_helper_still_authenticates(
    client: AsyncTestClient,
) -> None:
    response = await client.post("/api/image", json=VARIANT_B, headers={"X-SVC-Key": LEGACY_KEY})

    assert response.status_code == 200, response.text
    assert response.headers["x-ratelimit-remaining"] == "4999"


async def test_missing_key_is_401_naming_both_key_headers(client: AsyncTestClient) -> None:
    body = envelope(await client.post("/api/image", json=VARIANT_B), 401, "UNAUTHORIZED")

    assert "Authorization: Bearer" in body["error"]
    assert "X-SVC-Key" in body["error"]


async def test_regenerate_without_any_key_is_401(client: AsyncTestClient) -> None:
    envelope(await client.post("/api/keys/regenerate", json={}), 401, "UNAUTHORIZED")
    envelope(await client.post("/api/keys/regenerate"), 401, "UNAUTHORIZED")


async def test_file_url_with_a_non_ascii_signature_is_403_not_a_server_error(
    client: AsyncTestClient,
) -> None:
    key = await issue_key(client)
    result = (await client.post("/api/image", json=VARIANT_B, headers={"X-SVC-Key": key})).json()
    path = result["url"].removeprefix("http://testserver.local")
    tampered = re.sub(r"signature=[^&]+", "signature=%C3%A9%C3%A9", path)

    envelope(await client.get(tampered), 403, "FORBIDDEN")


async def test_every_concern_mounts_its_routes_on_both_prefixes(client: AsyncTestClient) -> None:
    paths = {route.path for route in client.app.routes}

    for name in (
        "image",
        "pdf-gen",
        "audio",
        "screenshot",
        "parse",
        "keys/generate",
        "mcp",
        "webhooks/secret",
        "webhooks/secret/rotate",
    ):
        assert {f"/api/{name}", f"/v1/{name}"} <= paths
    assert {"/api/health", "/v1/health/diagnostic", "/openapi.json", "/files/{key:path}"} <= paths
