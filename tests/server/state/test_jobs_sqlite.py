"""The JobStore contract on SQLite, plus what only a shared file shows: two replicas."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from renderkit_server.state.jobs import JobStore
from renderkit_server.state.jobs.sqlite import SqliteJobStore
from tests.server.state.jobs_contract import FakeClock, JobStoreContract, new_job


class TestSqliteJobStore(JobStoreContract):
    @pytest.fixture
    def make_store(self, tmp_path: Path) -> Callable[[FakeClock], JobStore]:
        return lambda clock: SqliteJobStore(tmp_path / "jobs.sqlite3", clock=clock)


@pytest.mark.anyio
async def test_two_replicas_on_one_file_never_claim_the_same_job(tmp_path: Path) -> None:
    clock = FakeClock()
    a = SqliteJobStore(tmp_path / "jobs.sqlite3", clock=clock)
    b = SqliteJobStore(tmp_path / "jobs.sqlite3", clock=clock)
    try:
        jobs = [new_job(clock) for _ in range(20)]
        await a.submit(jobs)

        claims = await asyncio.gather(*(s.claim("w", 30) for s in (a, b) * 12))

        ids = [c.job.id for c in claims if c is not None]
        assert sorted(ids) == sorted(j.id for j in jobs)
        seen = await b.get(jobs[0].id, owner="lineage-a")
        assert seen is not None
        assert seen.status == "running"
    finally:
        await a.aclose()
        await b.aclose()


@pytest.mark.anyio
async def test_the_queue_outlives_the_process_that_wrote_it(tmp_path: Path) -> None:
    clock = FakeClock()
    first = SqliteJobStore(tmp_path / "jobs.sqlite3", clock=clock)
    job = new_job(clock, metadata={"nested": {"list": [1, 2]}})
    await first.submit([job])
    await first.aclose()

    second = SqliteJobStore(tmp_path / "jobs.sqlite3", clock=clock)
    try:
        assert await second.get(job.id, owner="lineage-a") == job
        claim = await second.claim("w", 30)
        assert claim is not None
        assert claim.job.id == job.id
    finally:
        await second.aclose()
