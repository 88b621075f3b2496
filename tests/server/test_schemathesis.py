"""schemathesis over the served OpenAPI document: the real app (real Chromium, SQLite, local
storage, local speech) on a uvicorn on 127.0.0.1, authenticated with a real key.

Checks, for every operation and a bounded number of generated requests each: no 5xx, every
response conforms to the documented schema and status codes, and every error body is the
envelope ``{"error", "code", "status"}``. keys/regenerate is left out: it would revoke the
key the run authenticates with. The /v1 aliases are the same handlers as /api and are not
run twice.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
import uvicorn
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

import renderkit
from renderkit_server.app import create_app
from renderkit_server.openapi import openapi_document
from renderkit_server.operations import OPERATIONS
from renderkit_server.settings import Settings

ADMIN = "admin-token-for-schemathesis-0123456"

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """(base URL, vip key) of the app served by uvicorn on 127.0.0.1."""
    app = create_app(
        Settings(
            data_dir=Path(tmp_path_factory.mktemp("data")),
            admin_token=ADMIN,
            secret="schemathesis-secret-long-enough-0123",
            key_issue_per_hour=1_000_000,  # keys/generate is fuzzed too
            render_timeout=10,
        )
    )
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.started, "uvicorn did not start"
        response = httpx.post(
            f"{base}/api/keys/generate",
            json={"email": "fuzz@example.com", "plan": "vip"},
            headers={"Authorization": f"Bearer {ADMIN}"},
        )
        assert response.status_code == 200, response.text
        yield base, response.json()["key"]
    finally:
        server.should_exit = True
        thread.join(60)


# Loaded from the function that serves /openapi.json, so tests are collected without a
# server (schemathesis.pytest.from_fixture fails under pytest 9: Function has no _nodeid);
# test_the_served_document_is_the_one_under_test pins the two together.
DOCUMENT = openapi_document(OPERATIONS.values(), version=renderkit.__version__)
schema = (
    schemathesis.openapi.from_dict(DOCUMENT)
    .exclude(path_regex="regenerate")
    .exclude(path_regex="^/v1/")
)


def test_the_served_document_is_the_one_under_test(served: tuple[str, str]) -> None:
    base, _ = served
    assert httpx.get(f"{base}/openapi.json").json() == DOCUMENT


@schemathesis.check
def error_bodies_are_the_envelope(ctx: Any, response: Any, case: Any) -> bool | None:
    """Every 4xx/5xx answer is {"error": str, "code": str, "status": <the status>}."""
    if response.status_code < 400:
        return None
    body = response.json()
    assert isinstance(body, dict), f"error body is not an object: {body!r}"
    assert isinstance(body.get("error"), str) and body["error"], f"no error message: {body}"
    assert isinstance(body.get("code"), str) and body["code"], f"no error code: {body}"
    assert body.get("status") == response.status_code, f"status mismatch: {body}"
    return True


CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    error_bodies_are_the_envelope,
]


@schema.parametrize()
@settings(
    max_examples=5,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_generated_requests_get_documented_non_5xx_answers_with_enveloped_errors(
    case: Any, served: tuple[str, str]
) -> None:
    base, key = served
    # Both key headers, equal: the bearer scheme in the document makes schemathesis generate
    # an Authorization header of its own, and two different keys are a 401 by design.
    headers = {"Authorization": f"Bearer {key}", "X-SVC-Key": key}
    case.call_and_validate(base_url=base, headers=headers, checks=CHECKS, timeout=60)
