"""Benchmark: 500 small jobs through the job queue, embedded and on Redis, beside the same
work done synchronously, all in one run.

    python bench/bench_jobs.py [--jobs 500] [--rounds 3] [--queue embedded --queue redis]
                               [--record bench/results.toml]

The server is create_app with an in-memory browser (16x16 og-cards, no render cache), so
what is measured is the queue and the metered pipeline, not Chromium. Each round starts one
server per queue (on a fresh data directory; the Redis one on a flushed redis-server on
127.0.0.1 that the bench starts) and measures on it:

1. **Jobs**: one ``POST /api/batches`` of ``--jobs`` image jobs, then the batch is polled
   until every job finished: jobs per second from the submit to the last finish, and the p95
   queue wait (claim time minus submit time, read from the queue's own records) over every
   job. The server runs its default 2 job workers.
2. **Synchronous**: the same ``--jobs`` renders as ``POST /api/image`` calls from 2 client
   threads (as many as the job workers): calls per second, on the same server (so with the
   same usage store: SQLite for the embedded queue, Redis for the Redis one).

3. **The queue alone**: the job store in this process, without the server: ``--jobs`` jobs
   submitted at once, then 2 concurrent loops claiming and finishing them (no work): jobs
   per second the queue itself can hand out, so the figures above can be read as queue
   cost or as the cost of the rest of the pipeline.

Every figure printed and recorded is the median over the rounds.

On one key the pipeline serialises renders by the plan's in-flight cap (starter: 1); the
embedded server's local limiter wakes the next render at once, while the Redis limiter (the
one every replica shares) polls with a backoff from 50 ms, so the Redis column mostly shows
that wait, in the jobs and the synchronous calls alike; the queue-alone line shows what the
Redis queue costs by itself.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import math
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import anyio
import httpx
import redis
import redis.asyncio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _record import add_record_option, record
from bench_server import start
from tests.server._redis import redis_server

from renderkit_server.state.jobs import Job, JobStore
from renderkit_server.state.jobs.redis import RedisJobStore
from renderkit_server.state.jobs.sqlite import SqliteJobStore


def _embedded_waits(data_dir: Path, redis_url: str | None) -> list[float]:
    with sqlite3.connect(data_dir / "jobs.sqlite3") as conn:
        rows = conn.execute("SELECT started_at - created_at FROM jobs WHERE status = 'succeeded'")
        return [float(wait) for (wait,) in rows]


def _redis_waits(data_dir: Path, redis_url: str | None) -> list[float]:
    assert redis_url is not None
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        waits = []
        for key in client.scan_iter("renderkit:jobs:job:*", count=1000):
            status, created, started = client.hmget(key, "status", "created_at", "started_at")
            if status == "succeeded":
                waits.append(float(started) - float(created))
        return waits
    finally:
        client.close()


#: Queue backend -> (whether its server needs Redis, the queue waits of the finished jobs).
QUEUES: dict[str, tuple[bool, Callable[[Path, str | None], list[float]]]] = {
    "embedded": (False, _embedded_waits),
    "redis": (True, _redis_waits),
}

BODY = {
    "template": "og-card",
    "width": 16,
    "height": 16,
    "scale": 1,
    "data": {"title": "x"},
    "cache": False,  # every job renders
}


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(math.ceil(0.95 * len(ordered)) - 1, 0)]


def run_jobs(client: httpx.Client, headers: dict[str, str], count: int) -> float:
    """Submit ``count`` jobs as one batch; return jobs per second until the last finished."""
    items = [
        {"kind": "image", "request": {**BODY, "data": {"title": str(i)}}} for i in range(count)
    ]
    started = time.perf_counter()
    batch = client.post("/api/batches", json={"jobs": items}, headers=headers, timeout=60)
    batch.raise_for_status()
    url = f"/api/batches/{batch.json()['id']}"
    while True:
        found = client.get(url, headers=headers, timeout=60).json()
        if found["status"] == "completed":
            break
        time.sleep(0.25)  # each poll reads the whole batch: rarely, to leave the CPU to it
    elapsed = time.perf_counter() - started
    failed = count - found["counts"]["succeeded"]
    if failed:
        msg = f"{failed} jobs did not succeed: {found['counts']}"
        raise SystemExit(msg)
    return count / elapsed


def run_sync(base: str, headers: dict[str, str], count: int, clients: int = 2) -> float:
    """The same renders as synchronous calls from ``clients`` threads; calls per second."""

    local = threading.local()
    opened: list[httpx.Client] = []

    def call(i: int) -> None:
        if not hasattr(local, "client"):  # one kept-alive connection per thread
            local.client = httpx.Client(base_url=base)
            opened.append(local.client)
        body = {**BODY, "data": {"title": str(i)}}
        local.client.post("/api/image", json=body, headers=headers, timeout=60).raise_for_status()

    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        list(pool.map(call, range(count)))
    rate = count / (time.perf_counter() - started)
    for client in opened:
        client.close()
    return rate


async def queue_alone(store: JobStore, count: int, workers: int = 2) -> float:
    """Jobs per second the store hands out: ``count`` submitted, ``workers`` loops claiming
    and finishing them with no work in between."""
    now = time.time()
    jobs = [
        Job(
            id=f"job_{i:032x}",
            owner=f"lineage-{i % 4}",
            plan="starter",
            kind="image",
            request={**BODY, "data": {"title": str(i)}},
            created_at=now,
            expires_at=now + 3600,
        )
        for i in range(count)
    ]
    for owner in range(4):  # one submission per owner, as one batch each
        await store.submit([job for job in jobs if job.owner == f"lineage-{owner}"])
    started = time.perf_counter()

    async def drain() -> None:
        while (claim := await store.claim("bench", 30)) is not None:
            await store.finish(claim, status="succeeded", result={"success": True})

    async with anyio.create_task_group() as group:
        for _ in range(workers):
            group.start_soon(drain)
    return count / (time.perf_counter() - started)


async def queue_alone_of(queue: str, count: int, redis_url: str | None) -> float:
    if queue == "redis":
        assert redis_url is not None
        client = redis.asyncio.Redis.from_url(redis_url)
        await client.flushdb()
        try:
            return await queue_alone(RedisJobStore(client), count)
        finally:
            await client.aclose()
    with tempfile.TemporaryDirectory() as tmp:
        store = SqliteJobStore(Path(tmp) / "jobs.sqlite3")
        try:
            return await queue_alone(store, count)
        finally:
            await store.aclose()


@contextlib.contextmanager
def redis_if(needed: bool) -> Iterator[str | None]:
    """A redis-server on 127.0.0.1 for the run when a Redis queue is measured."""
    if not needed:
        yield None
        return
    with redis_server() as url:
        yield url


def one_round(queue: str, count: int, redis_url: str | None) -> tuple[float, float, list[float]]:
    """Jobs per second, synchronous calls per second and the queue waits, on a fresh server."""
    uses_redis, waits_of = QUEUES[queue]
    environment = {}
    if uses_redis:
        assert redis_url is not None
        redis.Redis.from_url(redis_url).flushdb()
        environment["RENDERKIT_REDIS_URL"] = redis_url
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp)
        proc, base = start("renderkit", tmp, environment)
        try:
            with httpx.Client(base_url=base) as client:
                key = client.post("/api/keys/generate", json={"email": "b@example.com"}).json()
                headers = {"X-SVC-Key": key["key"]}
                for _ in range(20):  # warm up both paths
                    client.post("/api/image", json=BODY, headers=headers).raise_for_status()
                jobs_rate = run_jobs(client, headers, count)
                sync_rate = run_sync(base, headers, count)
            waits = waits_of(data_dir, redis_url)
        finally:
            proc.terminate()
            proc.wait()
    if len(waits) != count:
        msg = f"{queue}: {len(waits)} queue waits read for {count} jobs"
        raise SystemExit(msg)
    return jobs_rate, sync_rate, waits


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--queue", action="append", choices=sorted(QUEUES), help="repeatable; default: all"
    )
    add_record_option(parser)
    args = parser.parse_args()
    queues = args.queue or list(QUEUES)
    figures: dict[str, list[tuple[float, float, float, float, float]]] = {q: [] for q in queues}
    with redis_if(any(QUEUES[q][0] for q in queues)) as redis_url:
        for _ in range(args.rounds):
            for queue in queues:  # interleaved, so a busy moment hits every queue alike
                jobs_rate, sync_rate, waits = one_round(queue, args.jobs, redis_url)
                wait_p95, wait_median = p95(waits) * 1000, statistics.median(waits) * 1000
                alone = anyio.run(queue_alone_of, queue, args.jobs, redis_url)
                figures[queue].append((jobs_rate, sync_rate, wait_p95, wait_median, alone))
    print(f"{args.jobs} jobs, 2 workers, median of {args.rounds} rounds")
    header = ("queue", "jobs/s", "sync calls/s", "wait p95 ms", "median ms", "queue alone/s")
    print("{:<10}{:>10}{:>14}{:>13}{:>11}{:>15}".format(*header))
    for queue, rows in figures.items():
        jobs_rate, sync_rate, wait_p95, wait_median, alone = (
            statistics.median(column) for column in zip(*rows, strict=True)
        )
        print(
            f"{queue:<10}{jobs_rate:>10.1f}{sync_rate:>14.1f}{wait_p95:>13.0f}"
            f"{wait_median:>11.0f}{alone:>15.0f}"
        )
        state = "Redis" if QUEUES[queue][0] else "SQLite"
        record(
            args.record,
            benchmark="bench_jobs.py",
            case=f"{args.jobs} image jobs (16x16, in-memory browser) through the {queue} "
            "queue, 2 workers: jobs/s from submit to the last finish",
            unit="jobs/s",
            renderkit=jobs_rate,
            peer=f"the same renders as synchronous POST /api/image from 2 client threads, "
            f"same server (shared state on {state})",
            peer_median=sync_rate,
            notes=f"median of {args.rounds} rounds; queue wait p95 {wait_p95:.0f} ms, "
            f"median {wait_median:.0f} ms (one batch of {args.jobs}: the p95 is the "
            f"backlog's depth, not a delay per job); the queue alone hands out {alone:.0f} "
            "jobs/s (claim and finish, no work, 2 loops)",
        )


if __name__ == "__main__":
    main()
