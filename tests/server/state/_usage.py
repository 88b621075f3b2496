"""Values and helpers the store tests share."""

from __future__ import annotations

import redis.asyncio

PERIOD = "2026-11"
WINDOW = 1_790_000_040  # a multiple of 60


async def flush(url: str) -> None:
    """Empty the Redis database at ``url``, so each test starts from no counters."""
    client = redis.asyncio.Redis.from_url(url)
    try:
        await client.flushdb()
    finally:
        await client.aclose()
