"""Background work a pool starts and must see finished before it closes."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

__all__ = ["TaskSet"]


class TaskSet:
    """Tasks run in the background (closing pages, restarting a browser), kept until done."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run ``coro`` in the background."""
        # Keep a reference so the task is not garbage-collected mid-flight.
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def drain(self) -> None:
        """Wait for every task, those the tasks start included; their failures are theirs
        to log."""
        # A render ending while the pool closes still hands its page to a closing task.
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
