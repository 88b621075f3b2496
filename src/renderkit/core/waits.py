"""Waiting for an event with a time limit, without ever losing a cancellation."""

from __future__ import annotations

import asyncio

__all__ = ["wait_set"]


async def wait_set(event: asyncio.Event, timeout: float) -> bool:
    """Wait at most ``timeout`` seconds for ``event``; whether it is set.

    Not ``asyncio.wait_for``: on Python 3.11 it swallows a cancellation that arrives just as
    the event is set (it returns the event's result instead of raising), so a loop around
    it, like a job worker waiting for its doorbell, never stops and the app's shutdown
    waits for ever. ``asyncio.timeout`` tells its own expiry from an outside cancellation.
    """
    try:
        async with asyncio.timeout(timeout):
            await event.wait()
    except TimeoutError:
        return event.is_set()
    return True
