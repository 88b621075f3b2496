"""Benchmark: 500 small jobs through the job queue, beside the same work done synchronously.

    python bench/bench_jobs.py [--jobs 500] [--queue embedded] [--record bench/results.toml]

The server is create_app with an in-memory browser (16x16 og-cards, no render cache), so
what is measured is the queue and the metered pipeline, not Chromium. In one run:

1. **Jobs**: one ``POST /api/batches`` of ``--jobs`` image jobs, then the batch is polled
   until every job finished: jobs per second from the submit to the last finish, and the p95
   queue wait (claim time minus submit time, read from the queue's own records) over every
   job. The server runs its default 2 job workers, both allowed to render at once
   (``jobs_browser_share=100``; a production server keeps half of its slots for sync calls).
2. **Synchronous**: the same ``--jobs`` renders as ``POST /api/image`` calls from 2 client
   threads (as many as the job workers): calls per second.

``--queue`` names the queue backend; ``embedded`` is the SQLite queue. A Redis queue adds its
entry to ``QUEUES`` (the environment its server needs, and how to read its job records).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import math
import sqlite3
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
from _record import add_record_option, record
from bench_server import start


def _embedded_waits(data_dir: Path) -> list[float]:
    with sqlite3.connect(data_dir / "jobs.sqlite3") as conn:
        rows = conn.execute("SELECT started_at - created_at FROM jobs WHERE status = 'succeeded'")
        return [float(wait) for (wait,) in rows]


#: Queue backend -> (extra server environment, the queue waits of the finished jobs).
QUEUES: dict[str, tuple[dict[str, str], Callable[[Path], list[float]]]] = {
    "embedded": ({}, _embedded_waits),
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=500)
    parser.add_argument("--queue", choices=sorted(QUEUES), default="embedded")
    add_record_option(parser)
    args = parser.parse_args()
    environment, waits_of = QUEUES[args.queue]
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp)
        proc, base = start("renderkit", tmp, environment)
        try:
            with httpx.Client(base_url=base) as client:
                key = client.post("/api/keys/generate", json={"email": "b@example.com"}).json()
                headers = {"X-SVC-Key": key["key"]}
                for _ in range(20):  # warm up both paths
                    client.post("/api/image", json=BODY, headers=headers).raise_for_status()
                jobs_rate = run_jobs(client, headers, args.jobs)
                sync_rate = run_sync(base, headers, args.jobs)
            waits = waits_of(data_dir)
        finally:
            proc.terminate()
            proc.wait()
    wait_p95 = p95(waits) * 1000
    wait_median = statistics.median(waits) * 1000
    print(f"{args.jobs} jobs ({args.queue} queue, 2 workers)  {jobs_rate:8.1f} jobs/s")
    print(
        f"queue wait                          p95 {wait_p95:8.0f} ms  median {wait_median:.0f} ms"
    )
    print(f"the same as sync calls (2 clients)  {sync_rate:8.1f} calls/s")
    record(
        args.record,
        benchmark="bench_jobs.py",
        case=f"{args.jobs} image jobs (16x16, in-memory browser) through the {args.queue} "
        "queue, 2 workers: jobs/s from submit to the last finish",
        unit="jobs/s",
        renderkit=jobs_rate,
        peer="the same renders as synchronous POST /api/image from 2 client threads",
        peer_median=sync_rate,
        notes=f"queue wait p95 {wait_p95:.0f} ms, median {wait_median:.0f} ms "
        f"(one batch of {args.jobs}: the p95 is the backlog's depth, not a delay per job)",
    )


if __name__ == "__main__":
    main()
