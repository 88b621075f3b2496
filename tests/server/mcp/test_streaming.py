"""Choosing between one JSON answer and an SSE stream."""

from __future__ import annotations

import pytest

from renderkit_server.mcp.protocol import Message
from renderkit_server.mcp.streaming import accepts, wants_stream

CALL = Message(kind="request", id=1, method="tools/call", params={"name": "generate_image"})
CALL_WITH_PROGRESS = Message(
    kind="request",
    id=1,
    method="tools/call",
    params={"name": "generate_image", "_meta": {"progressToken": "p-1"}},
)


@pytest.mark.parametrize(
    ("accept", "json_ok", "sse_ok"),
    [
        (None, True, True),
        ("", True, True),
        ("*/*", True, True),
        ("application/json, text/event-stream", True, True),
        ("application/json;q=0.9", True, False),
        ("application/*", True, False),
        ("text/event-stream", False, True),
        ("text/*", False, True),
        ("image/png", False, False),
    ],
)
def test_the_accept_header_says_which_framings_the_client_takes(
    accept: str | None, json_ok: bool, sse_ok: bool
) -> None:
    headers = {} if accept is None else {"accept": accept}

    assert accepts(headers) == (json_ok, sse_ok)


def test_a_client_that_takes_both_gets_json_unless_it_asks_for_progress() -> None:
    assert not wants_stream(CALL, json_ok=True, sse_ok=True)
    assert wants_stream(CALL_WITH_PROGRESS, json_ok=True, sse_ok=True)


def test_a_client_that_cannot_take_sse_never_gets_a_stream() -> None:
    assert not wants_stream(CALL_WITH_PROGRESS, json_ok=True, sse_ok=False)


def test_a_client_that_takes_only_sse_always_gets_a_stream() -> None:
    ping = Message(kind="request", id=2, method="ping")

    assert wants_stream(ping, json_ok=False, sse_ok=True)
    assert wants_stream(CALL, json_ok=False, sse_ok=True)
