"""The one Redis client survives a server that dropped its pooled connections.

A restarted or failed-over Redis leaves connections idle in the pool that the server has
closed; when the close was a reset, or its end-of-file was not read yet, the pool cannot
tell and hands one out. Without a retry, each such connection fails one user's call with
503 after the server is back (seen in CI right after a restart).
"""

from __future__ import annotations

import time

import pytest
import redis

from renderkit_server.state._redis import connect

pytestmark = pytest.mark.anyio


async def test_a_pooled_connection_the_server_closed_costs_no_call(redis_url: str) -> None:
    client = connect(redis_url)
    try:
        await client.set("pooled", "yes")  # one connection now idles in the pool
        with redis.Redis.from_url(redis_url) as admin:
            # The server closes every other client; the async loop does not run before the
            # next command, so the pool cannot have read the close yet.
            assert admin.client_kill_filter(_type="normal", skipme=True) >= 1
        assert await client.get("pooled") == b"yes"
    finally:
        await client.aclose()


async def test_a_server_that_is_down_still_fails_fast() -> None:
    client = connect("redis://127.0.0.1:9/0", timeout=5.0)  # discard port: refused at once
    started = time.monotonic()
    try:
        with pytest.raises(redis.exceptions.ConnectionError):
            await client.get("anything")
    finally:
        await client.aclose()
    assert time.monotonic() - started < 1.0  # one retry, no backoff, no timeout
