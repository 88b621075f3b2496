"""Running async code from a synchronous test, whatever the test session already runs.

Once a session-scoped async fixture (the shared Chromium pool, a server) has started the
session's event loop, ``anyio.run`` in the main thread fails with "Already running asyncio in
this thread": whether it does depends on which tests ran first. A fresh thread has no loop.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import anyio

T = TypeVar("T")


def in_thread(function: Callable[[], T]) -> T:
    """``function()`` on a thread of its own (e.g. a CLI's ``main``, which runs its own
    event loop); its exceptions propagate."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(function).result()


def run_blocking(function: Callable[[], Awaitable[T]]) -> T:
    """``anyio.run(function)`` on a thread of its own; its exceptions propagate."""

    async def main() -> T:
        return await function()

    return in_thread(lambda: anyio.run(main))
