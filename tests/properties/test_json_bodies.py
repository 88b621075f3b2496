"""Property: whatever bytes a client sends as a JSON body, the server answers below 500, and
its REST errors are the envelope ``{"error", "code", "status"}``.

Run through the real app (fake browser, in-memory mail) with Litestar's test client.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from litestar.testing import TestClient

from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.settings import Settings

from .strategies import json_values

ADMIN = "admin-token-for-property-tests-0123"
REST_PATHS = ["/api/image", "/api/pdf-gen", "/api/screenshot", "/api/parse", "/api/keys/generate"]
BODY_SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, str]]:
    settings_ = Settings(
        data_dir=Path(tmp_path_factory.mktemp("data")),
        admin_token=ADMIN,
        secret="property-test-secret-long-enough-0123",
        key_issue_per_hour=1_000_000,
    )
    app = create_app(settings_, browser=FakeBrowser(), mailer=MemoryMailer())
    # The MCP endpoint answers loopback hosts only (DNS-rebinding guard).
    with TestClient(app, base_url="http://127.0.0.1") as client:
        response = client.post(
            "/api/keys/generate",
            json={"email": "props@example.com", "plan": "vip"},
            headers={"Authorization": f"Bearer {ADMIN}"},
        )
        assert response.status_code == 200, response.text
        yield client, response.json()["key"]


def _post(api: tuple[TestClient, str], path: str, body: bytes) -> tuple[int, object]:
    client, key = api
    response = client.post(
        path,
        content=body,
        headers={
            "X-SVC-Key": key,
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        },
    )
    try:
        payload = response.json()
    except ValueError:
        payload = response.text
    return response.status_code, payload


def _assert_rest_answer(status: int, payload: object) -> None:
    assert status < 500, (status, payload)
    if status >= 400:
        assert isinstance(payload, dict), payload
        assert isinstance(payload.get("error"), str) and payload["error"]
        assert isinstance(payload.get("code"), str) and payload["code"]
        assert payload.get("status") == status


#: Valid UTF-8 bodies: JSON documents of any shape, near-JSON text and plain text.
UTF8_BODIES = (
    json_values.map(lambda v: json.dumps(v).encode())
    | json_values.map(lambda v: json.dumps(v, ensure_ascii=False).encode())
    | st.builds(
        lambda v, cut: json.dumps({"template": "og-card", "data": v}).encode()[:cut],
        json_values,
        st.integers(min_value=0, max_value=200),
    )
    | st.text(max_size=200).map(str.encode)
)


@BODY_SETTINGS
@given(path=st.sampled_from(REST_PATHS), body=UTF8_BODIES)
def test_any_utf8_body_is_answered_below_500_with_the_error_envelope(
    api: tuple[TestClient, str], path: str, body: bytes
) -> None:
    _assert_rest_answer(*_post(api, path, body))


@BODY_SETTINGS
@given(body=UTF8_BODIES)
def test_any_utf8_body_to_mcp_is_answered_below_500(
    api: tuple[TestClient, str], body: bytes
) -> None:
    status, payload = _post(api, "/api/mcp", body)
    assert status < 500, (status, payload)


def _splice(body: bytes, junk: bytes, at: int) -> bytes:
    at %= len(body) + 1
    return body[:at] + junk + body[at:]


#: Any bytes: random, and JSON documents with invalid UTF-8 spliced in (inside strings too).
ANY_BODIES = st.binary(max_size=300) | st.builds(
    _splice,
    json_values.map(lambda v: json.dumps({"template": "og-card", "data": {"title": v}}).encode()),
    st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x80\x80", b"\xf4\x90\x80\x80"]),
    st.integers(min_value=0),
)


@BODY_SETTINGS
@given(path=st.sampled_from(REST_PATHS), body=ANY_BODIES)
@example(path="/api/image", body=b'{"template":"og-card","data":{"title":"\xff\xfe"}}')
@example(path="/api/keys/generate", body=b'{"\xff":1}')
def test_any_bytes_as_a_body_are_answered_below_500_with_the_error_envelope(
    api: tuple[TestClient, str], path: str, body: bytes
) -> None:
    _assert_rest_answer(*_post(api, path, body))


@pytest.mark.parametrize("path", ["/api/image", "/api/keys/generate", "/api/mcp"])
def test_a_10000_deep_json_array_is_a_4xx(api: tuple[TestClient, str], path: str) -> None:
    status, payload = _post(api, path, b"[" * 10_000 + b"]" * 10_000)
    assert 400 <= status < 500, (status, payload)
