"""Waiting for an event, or for cancelled tasks to end, without ever losing a cancellation
or waiting for ever."""

from __future__ import annotations

import asyncio
from typing import Any

__all__ = ["cancel_and_wait", "wait_set"]


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


async def cancel_and_wait(
    *tasks: asyncio.Future[Any], within: float | None = None
) -> set[asyncio.Future[Any]]:
    """Cancel ``tasks`` and wait until they have ended, at most ``within`` seconds; the ones
    still running then.

    Their outcomes are dropped (their failures are theirs to log). Not the usual
    ``task.cancel(); with suppress(CancelledError): await task``: that swallows the caller's
    own cancellation when it arrives during the wait, and waits for ever on a task that
    ignores its cancellation, which is how a shutdown hangs. ``asyncio.wait`` raises the
    caller's cancellation and takes a time limit.
    """
    for task in tasks:
        task.cancel()
    if not tasks:
        return set()
    done, pending = await asyncio.wait(tasks, timeout=within)
    for task in done:
        if not task.cancelled():
            task.exception()  # retrieved, so asyncio does not report it as never retrieved
    return pending
