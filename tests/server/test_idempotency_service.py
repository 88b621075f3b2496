"""The claim / run / store cycle of :class:`Idempotency`, over the in-memory store."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from renderkit import StorageUnavailableError
from renderkit_server.errors import HttpProblem
from renderkit_server.idempotency import Answered, Idempotency, entry_key
from renderkit_server.state.idempotency import Claim, MemoryIdempotencyStore, StoredAnswer

pytestmark = pytest.mark.anyio

OK = StoredAnswer(status=200, body=b"{}")


def _service(store: MemoryIdempotencyStore, lease: float = 30.0) -> Idempotency:
    return Idempotency(store, ttl=3600, max_answer_bytes=1024, lease=lease)


async def _run(
    service: Idempotency, work: Callable[[], Awaitable[StoredAnswer]], fingerprint: str = "fp"
) -> Answered:
    return await service.run(
        lineage="lin",
        method="POST",
        path="/api/image",
        key="k",
        fingerprint=fingerprint,
        work=work,
    )


async def test_work_that_raises_frees_the_key_for_its_retry() -> None:
    service = _service(MemoryIdempotencyStore())
    runs = 0

    async def fail() -> StoredAnswer:
        nonlocal runs
        runs += 1
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        await _run(service, fail)
    with pytest.raises(RuntimeError):
        await _run(service, fail)

    assert runs == 2


async def test_a_cancelled_request_frees_its_key() -> None:
    service = _service(MemoryIdempotencyStore())
    started = asyncio.Event()

    async def hang() -> StoredAnswer:
        started.set()
        await asyncio.Event().wait()
        return OK

    task = asyncio.create_task(_run(service, hang))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    async def ok() -> StoredAnswer:
        return OK

    answered = await _run(service, ok)
    assert answered.replayed is False


async def test_a_long_run_keeps_its_lease_past_its_first_term() -> None:
    store = MemoryIdempotencyStore()
    service = _service(store, lease=0.3)
    seen: list[Claim] = []

    async def slow() -> StoredAnswer:
        await asyncio.sleep(0.5)
        seen.append(await store.claim("lin", _entry(), "fp", lease=30, ttl=60))
        return OK

    await _run(service, slow)

    assert seen[0].outcome == "in_progress"


def _entry() -> str:
    return entry_key("POST", "/api/image", "k")


async def test_server_errors_and_oversized_answers_are_not_kept() -> None:
    service = _service(MemoryIdempotencyStore())
    answers = [
        StoredAnswer(status=503, body=b"{}"),
        StoredAnswer(status=200, body=b"x" * 2048),
        OK,
        OK,
    ]
    runs = 0

    async def work() -> StoredAnswer:
        nonlocal runs
        runs += 1
        return answers.pop(0)

    results = [await _run(service, work) for _ in range(4)]

    assert runs == 3
    assert [r.replayed for r in results] == [False, False, False, True]


async def test_the_answer_goes_out_when_the_store_fails_to_keep_it() -> None:
    class Failing(MemoryIdempotencyStore):
        async def complete(self, lineage: str, key: str, token: str, answer: StoredAnswer) -> bool:
            raise StorageUnavailableError("down")

    service = _service(Failing())

    async def ok() -> StoredAnswer:
        return OK

    answered = await _run(service, ok)

    assert answered.answer == OK


async def test_conflict_and_in_progress_are_409s_with_their_codes() -> None:
    store = MemoryIdempotencyStore()
    service = _service(store)
    await store.claim("lin", _entry(), "fp", lease=30, ttl=60)

    async def ok() -> StoredAnswer:
        return OK

    with pytest.raises(HttpProblem) as running:
        await _run(service, ok)
    with pytest.raises(HttpProblem) as reused:
        await _run(service, ok, fingerprint="other")

    assert (running.value.status, running.value.code) == (409, "IDEMPOTENCY_KEY_IN_PROGRESS")
    assert running.value.headers["Retry-After"] == "1"
    assert (reused.value.status, reused.value.code) == (409, "IDEMPOTENCY_KEY_REUSED")
