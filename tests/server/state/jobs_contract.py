"""The JobStore contract, written once: each backend's test module subclasses
:class:`JobStoreContract` and provides the ``make_store`` fixture (a factory taking the
test's :class:`FakeClock`), the way ``renderkit.testing.StorageContract`` is used.

Time moves only through the clock, so lease and retention tests need no sleeps.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from renderkit_server.state.jobs import ABANDONED, Batch, Job, JobStore

T0 = 1_800_000_000.0
DAY = 86_400.0


class FakeClock:
    """Unix seconds that move only when told to."""

    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def new_job(
    clock: FakeClock,
    *,
    owner: str = "lineage-a",
    kind: str = "image",
    weight: int = 1,
    retention: float = DAY,
    **fields: Any,
) -> Job:
    """A queued job created now."""
    return Job(
        id=secrets.token_hex(16),
        owner=owner,
        plan="starter",
        kind=kind,
        request={"template": "og-card", "data": {"title": "x"}},
        created_at=clock.now,
        expires_at=clock.now + retention,
        weight=weight,
        **fields,
    )


@pytest.mark.anyio
class JobStoreContract:
    """Every behaviour of :class:`JobStore`; subclasses provide ``make_store``."""

    @pytest.fixture
    def clock(self) -> FakeClock:
        return FakeClock()

    @pytest.fixture
    def make_store(self) -> Callable[[FakeClock], JobStore]:
        raise NotImplementedError

    @pytest.fixture
    async def store(
        self, make_store: Callable[[FakeClock], JobStore], clock: FakeClock
    ) -> AsyncIterator[JobStore]:
        store = make_store(clock)
        yield store
        await store.aclose()

    async def test_the_backend_satisfies_the_protocol(self, store: JobStore) -> None:
        assert isinstance(store, JobStore)

    async def test_a_submitted_job_reads_back_queued_to_its_owner_only(
        self, store: JobStore, clock: FakeClock
    ) -> None:
        job = new_job(clock, metadata={"order": 7}, webhook_url="https://example.com/hook")
        assert await store.submit([job])

        assert await store.get(job.id, owner="lineage-a") == job
        assert await store.get(job.id, owner="lineage-b") is None
        assert await store.get(secrets.token_hex(16), owner="lineage-a") is None

    async def test_the_cap_refuses_a_whole_submission_that_would_pass_it(
        self, store: JobStore, clock: FakeClock
    ) -> None:
        assert await store.submit([new_job(clock), new_job(clock)], cap=3)
        refused = [new_job(clock), new_job(clock)]

        assert not await store.submit(refused, cap=3)
        assert await store.get(refused[0].id, owner="lineage-a") is None
        assert await store.submit([new_job(clock, owner="lineage-b")] * 1, cap=1)
        assert await store.submit([new_job(clock)], cap=3)

    async def test_finished_jobs_do_not_count_against_the_cap(
        self, store: JobStore, clock: FakeClock
    ) -> None:
        assert await store.submit([new_job(clock)], cap=1)
        claim = await store.claim("w", 30)
        assert claim is not None
        await store.finish(claim, status="succeeded", result={"success": True})

        assert await store.submit([new_job(clock)], cap=1)

    async def test_a_submission_of_several_owners_is_refused(
        self, store: JobStore, clock: FakeClock
    ) -> None:
        with pytest.raises(ValueError):  # noqa: PT011 - the store's own check
            await store.submit([new_job(clock), new_job(clock, owner="lineage-b")])
        with pytest.raises(ValueError):  # noqa: PT011
            await store.submit([])

    async def test_a_claim_runs_the_job_and_counts_the_attempt(
        self, store: JobStore, clock: FakeClock
    ) -> None:
        assert await store.claim("w", 30) is None
        job = new_job(clock)
        await store.submit([job])
        clock.advance(2)

        claim = await store.claim("w", 30)

        assert claim is not None
        assert claim.job.id == job.id
        assert (claim.job.status, claim.job.attempts, claim.job.started_at) == (
            "running",
            1,
            clock.now,
        )
        assert await store.claim("w", 30) is None
        stored = await store.get(job.id, owner="lineage-a")
        assert stored is not None
        assert stored.status == "running"

    async def test_one_owners_backlog_delays_another_owners_job_by_about_one_job(
        self, store: JobStore, clock: FakeClock
    ) -> None:
        await store.submit([new_job(clock) for _ in range(50)])
        first = await store.claim("w", 30)
        assert first is not None
        clock.advance(1)
        single = new_job(clock, owner="lineage-b")
        await store.submit([single])

        order = []
        for _ in range(3):
            claim = await store.claim("w", 30)
            assert claim is not None
            order.append(claim.job.owner)

        assert "lineage-b" in order[:2]

    async def test_a_heavier_plan_is_served_in_proportion_to_its_weight(
        self, store: JobStore, clock: FakeClock
    ) -> None:
        await store.submit([new_job(clock, owner="pro", weight=4) for _ in range(20)])
        await store.submit([new_job(clock, owner="starter") for _ in range(20)])

        owners = []
        for _ in range(10):
            claim = await store.claim("w", 30)
            assert claim is not None
            owners.append(claim.job.owner)

        assert owners.count("pro") == 8
        assert owners.count("starter") == 2

    async def test_one_owners_jobs_run_in_submission_order(
        self, store: JobStore, clock: FakeClock
    ) -> None:
        jobs = []
        for _ in range(5):
            jobs.append(new_job(clock))
            await store.submit([jobs[-1]])
            clock.advance(1)

        claimed = []
        for _ in range(5):
            claim = await store.claim("w", 30)
            assert claim is not None
            claimed.append(claim.job.id)

        assert claimed == [job.id for job in jobs]

    async def test_a_heartbeat_keeps_the_claim_past_its_first_lease(
        self, store: JobStore, clock: FakeClock
    ) -> None:
        await store.submit([new_job(clock)])
        claim = await store.claim("w", 30)
        assert claim is not None
        clock.advance(20)
        assert await store.heartbeat(claim, 30)
        clock.advance(20)

        assert await store.claim("w", 30) is None
        finished = await store.finish(claim, status="succeeded", result={"success": True})
        assert finished is not None
        assert finished.status == "succeeded"

    async def test_a_job_whose_worker_stopped_renewing_is_claimed_again(
        self, store: JobStore, clock: FakeClock
    ) -> None:
        job = new_job(clock)
        await store.submit([job])
        dead = await store.claim("dead", 30)
        assert dead is not None
        clock.advance(31)

        again = await store.claim("alive", 30)

        assert again is not None
        assert again.job.id == job.id
        assert again.job.attempts == 2
        assert not await store.heartbeat(dead, 30)
        assert await store.finish(dead, status="succeeded", result={"late": True}) is None
        assert await store.finish(again, status="succeeded", result={"ok": True}) is not None
        stored = await store.get(job.id, owner="lineage-a")
        assert stored is not None
        assert stored.result == {"ok": True}

    async def test_a_job_that_kills_its_worker_every_time_is_given_up(
        self, store: JobStore, clock: FakeClock
    ) -> None:
        job = new_job(clock)
        await store.submit([job])
        for _ in range(2):
            assert await store.claim("w", 30, max_attempts=2) is not None
            clock.advance(31)

        assert await store.claim("w", 30, max_attempts=2) is None
        stored = await store.get(job.id, owner="lineage-a")
        assert stored is not None
        assert (stored.status, stored.error, stored.finished_at) == (
            "failed",
            ABANDONED,
            clock.now,
        )

    async def test_a_finished_job_keeps_its_outcome_and_refuses_a_second_finish(
        self, store: JobStore, clock: FakeClock
    ) -> None:
        await store.submit([new_job(clock)])
        claim = await store.claim("w", 30)
        assert claim is not None
        clock.advance(3)
        error = {"error": "navigation failed", "code": "NAVIGATION_FAILED", "status": 502}

        failed = await store.finish(claim, status="failed", error=error)

        assert failed is not None
        assert (failed.status, failed.error, failed.result, failed.finished_at) == (
            "failed",
            error,
            None,
            clock.now,
        )
        assert await store.finish(claim, status="succeeded", result={}) is None
        assert await store.get(failed.id, owner="lineage-a") == failed

    async def test_a_requeued_job_is_the_next_one_claimed(
        self, store: JobStore, clock: FakeClock
    ) -> None:
        first, second = new_job(clock), new_job(clock)
        await store.submit([first])
        await store.submit([second])
        claim = await store.claim("w", 30)
        assert claim is not None

        assert await store.requeue(claim)
        assert not await store.heartbeat(claim, 30)
        stored = await store.get(first.id, owner="lineage-a")
        assert stored is not None
        assert stored.status == "queued"
        again = await store.claim("w", 30)
        assert again is not None
        assert again.job.id == first.id

    async def test_cancelling_a_queued_job_keeps_it_from_running(
        self, store: JobStore, clock: FakeClock
    ) -> None:
        job = new_job(clock)
        await store.submit([job])

        assert await store.cancel(job.id, owner="lineage-b") is None
        cancelled = await store.cancel(job.id, owner="lineage-a")

        assert cancelled is not None
        assert (cancelled.status, cancelled.finished_at) == ("cancelled", clock.now)
        assert await store.claim("w", 30) is None

    async def test_cancelling_a_running_job_voids_its_claim(
        self, store: JobStore, clock: FakeClock
    ) -> None:
        await store.submit([new_job(clock)])
        claim = await store.claim("w", 30)
        assert claim is not None

        cancelled = await store.cancel(claim.job.id, owner="lineage-a")

        assert cancelled is not None
        assert cancelled.status == "cancelled"
        assert not await store.heartbeat(claim, 30)
        assert await store.finish(claim, status="succeeded", result={}) is None
        stored = await store.get(claim.job.id, owner="lineage-a")
        assert stored is not None
        assert stored.status == "cancelled"

    async def test_cancelling_a_finished_job_changes_nothing(
        self, store: JobStore, clock: FakeClock
    ) -> None:
        await store.submit([new_job(clock)])
        claim = await store.claim("w", 30)
        assert claim is not None
        done = await store.finish(claim, status="succeeded", result={"success": True})

        assert await store.cancel(claim.job.id, owner="lineage-a") == done

    async def test_an_owners_jobs_are_listed_newest_first_a_page_at_a_time(
        self, store: JobStore, clock: FakeClock
    ) -> None:
        jobs = []
        for _ in range(5):
            jobs.append(new_job(clock))
            await store.submit([jobs[-1]])
            clock.advance(1)
        await store.submit([new_job(clock, owner="lineage-b")])

        page = await store.list("lineage-a", limit=2)
        rest = await store.list("lineage-a", limit=10, before=page[-1].id)

        assert [j.id for j in page] == [jobs[4].id, jobs[3].id]
        assert [j.id for j in rest] == [jobs[2].id, jobs[1].id, jobs[0].id]
        assert await store.list("lineage-a", limit=10, before=secrets.token_hex(16)) == []
        assert len(await store.list("lineage-b", limit=10)) == 1

    async def test_a_batch_completes_once_when_its_last_job_finishes(
        self, store: JobStore, clock: FakeClock
    ) -> None:
        batch_id = secrets.token_hex(16)
        jobs = [new_job(clock, batch_id=batch_id) for _ in range(3)]
        batch = Batch(
            id=batch_id,
            owner="lineage-a",
            created_at=clock.now,
            expires_at=clock.now + DAY,
            job_ids=tuple(j.id for j in jobs),
            metadata={"month": "2026-11"},
        )
        assert await store.submit(jobs, batch=batch)
        assert await store.get_batch(batch_id, owner="lineage-b") is None

        for _ in range(3):
            assert await store.complete_batch(batch_id) is None
            claim = await store.claim("w", 30)
            assert claim is not None
            await store.finish(claim, status="succeeded", result={"n": claim.job.id})

        completed = await store.complete_batch(batch_id)
        assert completed is not None
        assert completed.completed_at == clock.now
        assert await store.complete_batch(batch_id) is None
        view = await store.get_batch(batch_id, owner="lineage-a")
        assert view is not None
        assert [j.id for j in view.jobs] == [j.id for j in jobs]
        assert {j.status for j in view.jobs} == {"succeeded"}
        assert view.batch.metadata == {"month": "2026-11"}

    async def test_cancelling_a_batch_cancels_what_has_not_finished(
        self, store: JobStore, clock: FakeClock
    ) -> None:
        batch_id = secrets.token_hex(16)
        jobs = [new_job(clock, batch_id=batch_id) for _ in range(3)]
        batch = Batch(
            id=batch_id,
            owner="lineage-a",
            created_at=clock.now,
            expires_at=clock.now + DAY,
            job_ids=tuple(j.id for j in jobs),
        )
        await store.submit(jobs, batch=batch)
        claim = await store.claim("w", 30)
        assert claim is not None
        await store.finish(claim, status="succeeded", result={})

        assert await store.cancel_batch(batch_id, owner="lineage-b") is None
        view = await store.cancel_batch(batch_id, owner="lineage-a")

        assert view is not None
        assert sorted(j.status for j in view.jobs) == ["cancelled", "cancelled", "succeeded"]
        assert await store.complete_batch(batch_id) is not None

    async def test_expired_jobs_read_as_missing_and_are_swept(
        self, store: JobStore, clock: FakeClock
    ) -> None:
        old = new_job(clock, retention=10)
        await store.submit([old])
        clock.advance(5)
        young = new_job(clock, retention=10)
        await store.submit([young])
        clock.advance(6)

        assert await store.get(old.id, owner="lineage-a") is None
        assert await store.cancel(old.id, owner="lineage-a") is None
        assert [j.id for j in await store.list("lineage-a", limit=10)] == [young.id]
        assert await store.sweep() == 1
        assert await store.get(young.id, owner="lineage-a") is not None
        claim = await store.claim("w", 30)
        assert claim is not None
        assert claim.job.id == young.id

    async def test_the_depth_counts_queued_jobs_by_kind(
        self, store: JobStore, clock: FakeClock
    ) -> None:
        await store.submit([new_job(clock, kind="image"), new_job(clock, kind="image")])
        await store.submit([new_job(clock, kind="parse", owner="lineage-b")])
        assert await store.claim("w", 30) is not None

        assert sum((await store.depth()).values()) == 2
        assert set(await store.depth()) <= {"image", "parse"}
