"""wait_set and cancel_and_wait: waits that never lose their task's cancellation and never
wait for ever."""

from __future__ import annotations

import asyncio

import pytest

from renderkit.core.waits import cancel_and_wait, wait_set

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


async def _stubborn() -> None:
    """A task that ignores its first cancellation, as a loop swallowing one would."""
    try:
        await asyncio.sleep(60)
    except asyncio.CancelledError:
        await asyncio.sleep(60)


async def test_cancel_and_wait_ends_the_tasks_and_returns_none_pending() -> None:
    tasks = [asyncio.create_task(asyncio.sleep(60)) for _ in range(3)]
    await asyncio.sleep(0)

    assert await cancel_and_wait(*tasks) == set()
    assert all(task.cancelled() for task in tasks)


async def test_cancel_and_wait_stops_waiting_for_a_task_that_ignores_its_cancellation() -> None:
    stubborn = asyncio.create_task(_stubborn())
    await asyncio.sleep(0)

    pending = await cancel_and_wait(stubborn, within=0.2)

    assert pending == {stubborn}
    stubborn.cancel()  # the second cancellation ends it
    await asyncio.wait({stubborn}, timeout=2)
    assert stubborn.cancelled()


async def test_cancel_and_wait_keeps_the_callers_own_cancellation() -> None:
    stubborn = asyncio.create_task(_stubborn())
    await asyncio.sleep(0)
    closer = asyncio.create_task(cancel_and_wait(stubborn))
    await asyncio.sleep(0.05)

    closer.cancel()  # the caller is cancelled while it waits: it must stop, not wait on
    done, _ = await asyncio.wait({closer}, timeout=2)

    assert closer in done and closer.cancelled()
    stubborn.cancel()
    await asyncio.wait({stubborn}, timeout=2)


async def test_cancel_and_wait_retrieves_a_failed_tasks_error() -> None:
    async def fails() -> None:
        raise ValueError("its own failure")

    task = asyncio.create_task(fails())
    await asyncio.sleep(0)  # it has failed before it is cancelled

    assert await cancel_and_wait(task) == set()
    assert isinstance(task.exception(), ValueError)
