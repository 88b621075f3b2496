"""Malformed JSON bodies of any depth or encoding are 400s on every JSON route, never 500s."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from litestar.testing import AsyncTestClient

from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.bodies import MAX_JSON_DEPTH, JsonBodyError, decode_json, json_depth
from renderkit_server.mail import MemoryMailer
from renderkit_server.settings import Settings

from .conftest import issue_key

HOST = "testserver.local"
DEEP = b"[" * 10_000 + b"]" * 10_000
NOT_UTF8 = b'{"email": "\xff\xfe@example.com", "plan": "starter"}'
JUST_TOO_DEEP = b"[" * (MAX_JSON_DEPTH + 1) + b"]" * (MAX_JSON_DEPTH + 1)


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        (b"1", 0),
        (b"[]", 1),
        (b'{"a": [[1], {"b": 2}]}', 3),
        (b'{"a": "[[[[{{{{"}', 1),
        (b'["\\"[[[", "\\\\", [2]]', 2),
    ],
)
def test_json_depth_counts_brackets_outside_strings(text: bytes, depth: int) -> None:
    assert json_depth(text) == depth


def test_a_body_at_the_depth_cap_decodes_and_one_level_more_is_refused() -> None:
    at_cap = b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH
    assert json_depth(at_cap) == MAX_JSON_DEPTH
    decode_json(at_cap)
    with pytest.raises(JsonBodyError, match=f"deeper than {MAX_JSON_DEPTH} levels"):
        decode_json(JUST_TOO_DEEP)


def test_ten_thousand_levels_are_refused_without_a_recursion_error() -> None:
    with pytest.raises(JsonBodyError, match="deeper than"):
        decode_json(DEEP)


def test_invalid_utf8_inside_a_string_is_a_json_body_error() -> None:
    with pytest.raises(JsonBodyError, match="not UTF-8"):
        decode_json(NOT_UTF8)


# Bytes that look like JSON often enough to reach past the first character.
_TOKENS = [b"[", b"]", b"{", b"}", b'"', b"\\", b",", b":", b"1", b"a", b" ", b"\xff", b"\xc3"]
_json_ish = st.binary(max_size=300) | st.lists(st.sampled_from(_TOKENS), max_size=400).map(b"".join)


@settings(max_examples=400, deadline=None)
@given(_json_ish)
def test_arbitrary_bytes_decode_or_raise_json_body_error_only(raw: bytes) -> None:
    with contextlib.suppress(JsonBodyError):
        decode_json(raw)


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(), children),
    max_leaves=30,
)


@settings(max_examples=200, deadline=None)
@given(_json_values)
def test_json_depth_matches_the_nesting_of_the_value_encoded(value: object) -> None:
    def depth(item: object) -> int:
        if isinstance(item, list):
            return 1 + max((depth(x) for x in item), default=0)
        if isinstance(item, dict):
            return 1 + max((depth(x) for x in item.values()), default=0)
        return 0

    assert json_depth(json.dumps(value).encode()) == depth(value)


@pytest.fixture
async def any_route_client(
    make_settings: Callable[..., Settings],
) -> AsyncIterator[AsyncTestClient]:
    app = create_app(
        make_settings(mcp_allowed_hosts=(HOST,)), browser=FakeBrowser(), mailer=MemoryMailer()
    )
    async with AsyncTestClient(app) as test_client:
        yield test_client


@pytest.mark.anyio
@pytest.mark.parametrize("path", ["/api/image", "/v1/pdf-gen", "/api/parse", "/api/keys/generate"])
@pytest.mark.parametrize(
    ("body", "reason"),
    [(DEEP, "deeper than 64 levels"), (JUST_TOO_DEEP, "deeper"), (NOT_UTF8, "not UTF-8")],
)
async def test_malformed_bodies_are_400_invalid_json_naming_the_body_on_rest_routes(
    any_route_client: AsyncTestClient, path: str, body: bytes, reason: str
) -> None:
    key = await issue_key(any_route_client)
    headers = {"X-SVC-Key": key, "Content-Type": "application/json"}
    response = await any_route_client.post(path, content=body, headers=headers)
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "INVALID_JSON"
    assert response.json()["status"] == 400
    assert "request body" in response.json()["error"]
    assert reason in response.json()["error"]


@pytest.mark.anyio
@pytest.mark.parametrize(("body", "reason"), [(DEEP, "deeper than"), (NOT_UTF8, "not UTF-8")])
async def test_malformed_bodies_are_a_json_rpc_parse_error_in_a_400_on_mcp(
    any_route_client: AsyncTestClient, body: bytes, reason: str
) -> None:
    response = await any_route_client.post(
        "/api/mcp",
        content=body,
        headers={
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        },
    )
    assert response.status_code == 400
    answer = response.json()
    assert answer["id"] is None
    assert answer["error"]["code"] == -32700
    assert reason in answer["error"]["message"]


@pytest.mark.anyio
async def test_a_key_regenerate_body_that_is_too_deep_is_400_invalid_json(
    any_route_client: AsyncTestClient,
) -> None:
    key = await issue_key(any_route_client)
    response = await any_route_client.post(
        "/api/keys/regenerate",
        content=DEEP,
        headers={"X-SVC-Key": key, "Content-Type": "application/json"},
    )
    assert response.status_code == 400
    assert response.json()["code"] == "INVALID_JSON"
