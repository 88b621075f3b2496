"""Reading and verifying the caller's key: the one authentication of REST and MCP."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, cast

import pytest
from litestar import Request
from litestar.types import HTTPScope

from renderkit_server.auth import authenticate, extract_key, is_admin, require_admin
from renderkit_server.errors import HttpProblem
from renderkit_server.keys import (
    InvalidKeyError,
    KeyService,
    KeySigner,
    MemoryRevocationStore,
    fingerprint,
)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Authorization": "Bearer sk_live_a.b"}, "sk_live_a.b"),
        ({"authorization": "bearer sk_live_a.b"}, "sk_live_a.b"),
        ({"AUTHORIZATION": "BEARER   sk_live_a.b  "}, "sk_live_a.b"),
        ({"X-SVC-Key": "sk_live_a.b"}, "sk_live_a.b"),
        ({"x-svc-key": " sk_live_a.b "}, "sk_live_a.b"),
        ({"Authorization": "Bearer sk_live_a.b", "X-SVC-Key": "sk_live_a.b"}, "sk_live_a.b"),
        ({}, None),
        ({"X-SVC-Key": ""}, None),
        ({"Content-Type": "application/json"}, None),
    ],
)
def test_extract_key_reads_either_key_header(headers: dict[str, str], expected: str | None) -> None:
    assert extract_key(headers) == expected


@pytest.mark.parametrize(
    "headers",
    [
        {"Authorization": "Basic dXNlcjpwYXNz"},
        {"Authorization": "Basic dXNlcjpwYXNz", "X-SVC-Key": "sk_live_a.b"},
        {"Authorization": "sk_live_a.b"},
        {"Authorization": ""},
        {"Authorization": "Bearer"},
        {"Authorization": "Bearer   "},
        {"Authorization": "Bearer ", "X-SVC-Key": "sk_live_a.b"},
    ],
)
def test_extract_key_refuses_an_authorization_header_that_is_not_bearer(
    headers: dict[str, str],
) -> None:
    with pytest.raises(InvalidKeyError) as info:
        extract_key(headers)
    assert info.value.reason == "malformed"


def test_extract_key_rejects_two_different_keys() -> None:
    headers = {"Authorization": "Bearer sk_live_a.b", "X-SVC-Key": "sk_live_c.d"}

    with pytest.raises(InvalidKeyError) as info:
        extract_key(headers)

    assert info.value.reason == "conflicting_headers"
    assert "sk_live_a.b" not in str(info.value)
    assert "sk_live_c.d" not in str(info.value)


def _request(*headers: tuple[str, str]) -> Request[Any, Any, Any]:
    raw = [(name.lower().encode(), value.encode()) for name, value in headers]
    scope = {"type": "http", "method": "POST", "path": "/", "headers": raw, "state": {}}
    return Request(cast("HTTPScope", scope))


@pytest.fixture
async def keys() -> AsyncIterator[KeyService]:
    signer = KeySigner({"a": b"s" * 32}, "a")
    async with KeyService(signer, MemoryRevocationStore()) as service:
        yield service


@pytest.mark.anyio
@pytest.mark.parametrize("header", ["Authorization", "X-SVC-Key"])
async def test_authenticate_returns_the_verified_claims_and_records_the_fingerprint(
    keys: KeyService, header: str
) -> None:
    issued = await keys.issue("a@example.com", "pro")
    value = f"Bearer {issued.key}" if header == "Authorization" else issued.key
    request = _request((header, value))

    claims = authenticate(request, keys)

    assert (claims.key_id, claims.plan) == (issued.key_id, "pro")
    assert request.scope["state"]["key_fingerprint"] == fingerprint(issued.key)


@pytest.mark.anyio
async def test_authenticate_without_a_key_raises_the_one_key_error_saying_what_to_send(
    keys: KeyService,
) -> None:
    with pytest.raises(InvalidKeyError) as info:
        authenticate(_request(("Content-Type", "application/json")), keys)

    assert info.value.reason == "missing"
    assert "X-SVC-Key" in str(info.value)


@pytest.mark.anyio
async def test_authenticate_refuses_a_revoked_key_and_two_different_keys(keys: KeyService) -> None:
    old = await keys.issue("a@example.com", "pro")
    new = await keys.regenerate(old.key)

    with pytest.raises(InvalidKeyError) as revoked:
        authenticate(_request(("X-SVC-Key", old.key)), keys)
    with pytest.raises(InvalidKeyError) as conflicting:
        authenticate(_request(("X-SVC-Key", new.key), ("Authorization", f"Bearer {old.key}")), keys)

    assert revoked.value.reason == "revoked"
    assert conflicting.value.reason == "conflicting_headers"


@pytest.mark.parametrize(
    ("headers", "admin"),
    [
        ({"Authorization": "Bearer admin-token"}, True),
        ({"Authorization": "bearer  admin-token "}, True),
        ({"Authorization": "Bearer admin-token2"}, False),
        ({"X-SVC-Key": "admin-token"}, False),
        ({}, False),
    ],
)
def test_only_the_exact_admin_token_as_a_bearer_token_is_admin(
    headers: dict[str, str], admin: bool
) -> None:
    request = _request(*headers.items())

    assert is_admin(request.headers, "admin-token") is admin
    assert is_admin(request.headers, None) is False
    if not admin:
        with pytest.raises(HttpProblem) as info:
            require_admin(request.headers, "admin-token")
        assert info.value.status == 401
