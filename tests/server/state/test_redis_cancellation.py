"""A cancellation redis-py swallowed mid-command is raised once the call returns, in every
Redis store: the loops that call them (job workers, webhook delivery) must stop on shutdown."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

import pytest
import redis.asyncio

from renderkit_server.state._redis import redis_errors
from renderkit_server.state.revocations.redis import RedisRevocationStore
from renderkit_server.state.usage.redis import RedisUsageStore
from renderkit_server.state.webhook_outbox.redis import RedisWebhookOutbox

pytestmark = pytest.mark.anyio


async def _cancelled_then(call: Callable[[], Awaitable[object]]) -> None:
    """Run ``call`` in a task whose cancellation was swallowed, as redis-py can do."""

    async def loop_body() -> None:
        task = asyncio.current_task()
        assert task is not None
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(0)  # the swallowed cancellation
        await call()
        pytest.fail("the loop ran on after its cancellation")

    task = asyncio.create_task(loop_body())
    done, _ = await asyncio.wait({task}, timeout=10)
    if task not in done:  # bounded: a loop that swallowed its cancellation fails, not hangs
        task.cancel()
        pytest.fail("the loop ran on after its cancellation")
    with pytest.raises(asyncio.CancelledError):
        task.result()


async def test_redis_errors_raises_a_cancellation_still_pending_after_the_call() -> None:
    async def call() -> None:
        with redis_errors("test store"):
            pass

    await _cancelled_then(call)


async def test_the_webhook_outbox_claim_loop_stops_on_a_swallowed_cancellation(
    redis_client: redis.asyncio.Redis,
) -> None:
    outbox = RedisWebhookOutbox(redis_client)

    await _cancelled_then(lambda: outbox.claim(datetime.now(UTC), lease=30.0, limit=10))


async def test_a_call_without_a_pending_cancellation_returns_normally() -> None:
    with redis_errors("test store"):
        value = 1

    assert value == 1


async def test_the_revocation_feed_stops_on_a_swallowed_cancellation(
    redis_client: redis.asyncio.Redis,
) -> None:
    store = RedisRevocationStore(redis_client)

    async def connected() -> None:
        return None

    # Unguarded, the feed would poll its channel for ever and hang the app's shutdown.
    await _cancelled_then(lambda: store.follow(lambda key_id, before: None, connected))


async def test_the_usage_store_raises_a_swallowed_cancellation_while_polling(
    redis_client: redis.asyncio.Redis,
) -> None:
    store = RedisUsageStore(redis_client)

    await _cancelled_then(lambda: store.usage("key", "2026-11"))
