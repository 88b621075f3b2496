"""wait_set: a timed wait for an event that never loses its task's cancellation."""

from __future__ import annotations

import asyncio

import pytest

from renderkit.core.waits import wait_set

pytestmark = pytest.mark.anyio


async def test_a_loop_cancelled_as_its_event_is_set_stops() -> None:
    event = asyncio.Event()
    rounds = 0

    async def worker() -> None:
        nonlocal rounds
        while True:
            await wait_set(event, 0.05)
            event.clear()
            rounds += 1

    for _ in range(20):  # the race is exact: set and cancel in the same loop turn
        task = asyncio.create_task(worker())
        await asyncio.sleep(0.01)
        event.set()
        task.cancel()
        done, _ = await asyncio.wait({task}, timeout=2)
        assert done == {task}, "the worker ran on after its cancellation"
        assert task.cancelled()


async def test_it_answers_whether_the_event_was_set_in_time() -> None:
    event = asyncio.Event()
    assert await wait_set(event, 0.01) is False

    asyncio.get_running_loop().call_later(0.01, event.set)
    assert await wait_set(event, 1) is True
    assert await wait_set(event, 0) is True
