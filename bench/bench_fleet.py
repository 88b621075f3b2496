"""Benchmark: one replica on its local pool vs one replica on a remote browser vs two replicas.

    python bench/bench_fleet.py [--rounds 3] [--requests 24] [--clients 4] [--record FILE]

Starts on 127.0.0.1 what tests/integration starts (redis-server, a moto S3 server,
Browserless 2.42 from the npm cache, a plain ``chromium --remote-debugging-port``) and then,
one configuration at a time, ``renderkit serve`` replicas sharing them:

1. ``local``: one replica launching its own Chromium (the default pool, 2 slots).
2. ``remote``: one replica on the plain remote Chromium (``RENDERKIT_BROWSER_CDP_URL``).
3. ``2 replicas``: A on Browserless, B on the plain Chromium, requests alternating A/B.

Every round sends the same mix (og-card images, invoice PDFs, custom-HTML images, in equal
parts) from ``--clients`` concurrent clients and measures requests/s and latency; each
figure printed is the median over rounds, after a warm-up. A second table runs each kind
alone on the local pool (renders/s, and per core), and the Chromium memory of the local pool
is read from /proc (PSS of the browser's process tree, idle and after the load).

Everything (browsers, replicas, the fleet's Chromium) shares this machine's cores: on two
cores the remote and two-replica figures measure overhead and correctness, not scaling.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import boto3
import httpx
from moto.server import ThreadedMotoServer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _record import add_record_option, record
from tests.integration._fleet import (
    Browserless,
    RemoteChromium,
    Replica,
    cache_dir,
    install_browserless,
    replicas,
)
from tests.server._redis import redis_server

ADMIN = "bench-admin-token-0123456789"
SECRET = "bench-secret-shared-by-every-replica-0123456789"
# "cache": False: the bench measures renders, not the render cache's hits.
MIX: dict[str, tuple[str, dict[str, Any]]] = {
    "og-card image": (
        "/api/image",
        {"template": "og-card", "data": {"title": "Fleet bench"}, "cache": False},
    ),
    "invoice pdf": (
        "/api/pdf-gen",
        {
            "template": "invoice",
            "data": {
                "invoice_number": "INV-1",
                "company_name": "Renderkit Ltd",
                "client_name": "Bench Co",
                "items": [{"description": "Renders", "quantity": 3, "unit_price": 9.5}],
            },
            "cache": False,
        },
    ),
    "custom html image": (
        "/api/image",
        {
            "template": "custom",
            "html": "<h1 style='font:48px sans-serif'>Custom</h1>",
            "cache": False,
        },
    ),
}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def run_round(
    urls: list[str], key: str, kinds: list[str], requests: int, clients: int
) -> tuple[float, list[float], int]:
    """(requests/s, latencies in ms, failures) of ``requests`` calls from ``clients`` at once."""
    jobs = [(urls[i % len(urls)], kinds[i % len(kinds)]) for i in range(requests)]
    latencies: list[float] = []
    failures = 0

    async def worker(http: httpx.AsyncClient) -> None:
        nonlocal failures
        while jobs:
            url, kind = jobs.pop()
            path, body = MIX[kind]
            started = time.perf_counter()
            response = await http.post(f"{url}{path}", json=body, headers={"X-SVC-Key": key})
            latencies.append((time.perf_counter() - started) * 1000)
            if response.status_code != 200:
                failures += 1
                print(f"  {kind}: {response.status_code} {response.text[:120]}", file=sys.stderr)

    async with httpx.AsyncClient(timeout=120) as http:
        started = time.perf_counter()
        await asyncio.gather(*(worker(http) for _ in range(clients)))
        wall = time.perf_counter() - started
    return requests / wall, latencies, failures


def measure(
    urls: list[str], key: str, kinds: list[str], args: argparse.Namespace
) -> dict[str, float]:
    asyncio.run(run_round(urls, key, kinds, 2 * args.clients, args.clients))  # warm-up
    rates, p50s, p95s, failures = [], [], [], 0
    for _ in range(args.rounds):
        rate, latencies, failed = asyncio.run(
            run_round(urls, key, kinds, args.requests, args.clients)
        )
        rates.append(rate)
        p50s.append(percentile(latencies, 0.5))
        p95s.append(percentile(latencies, 0.95))
        failures += failed
    return {
        "req/s": statistics.median(rates),
        "p50 ms": statistics.median(p50s),
        "p95 ms": statistics.median(p95s),
        "failed": failures,
    }


def issue_key(url: str) -> str:
    response = httpx.post(
        f"{url}/api/keys/generate",
        json={"email": f"bench-{uuid.uuid4().hex[:8]}@example.com", "plan": "vip"},
        headers={"Authorization": f"Bearer {ADMIN}"},
        timeout=30,
    )
    response.raise_for_status()
    key: str = response.json()["key"]
    return key


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry))
    return tree


def chromium_pss_mib(replica: Replica) -> float:
    """PSS of every Chromium process under the replica (its local pool's browser)."""
    tree, total, stack = _children(), 0, [replica.process.proc.pid]
    while stack:
        pid = stack.pop()
        stack.extend(tree.get(pid, []))
        try:
            if "chromium" not in Path(f"/proc/{pid}/comm").read_text():
                continue
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--requests", type=int, default=24)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--slots", type=int, default=2)
    add_record_option(parser)
    args = parser.parse_args()
    kinds = list(MIX)
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # moto's per-request lines
    with tempfile.TemporaryDirectory() as tmp, redis_server() as redis_url:
        work = Path(tmp)
        s3 = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        s3.start()
        host, port = s3.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        boto3.client(
            "s3",
            endpoint_url=endpoint,
            region_name="us-east-1",
            aws_access_key_id="bench",
            aws_secret_access_key="bench-secret",
        ).create_bucket(Bucket="renderkit-bench")
        browserless = Browserless(install_browserless(cache_dir()), work)
        chromium = RemoteChromium(work)
        chromium.start()
        common = {
            "RENDERKIT_SECRET": SECRET,
            "RENDERKIT_ADMIN_TOKEN": ADMIN,
            "RENDERKIT_REDIS_URL": redis_url,
            "RENDERKIT_STORAGE": "s3",
            "RENDERKIT_S3_BUCKET": "renderkit-bench",
            "RENDERKIT_S3_ENDPOINT_URL": endpoint,
            "RENDERKIT_S3_REGION": "us-east-1",
            "RENDERKIT_S3_ACCESS_KEY_ID": "bench",
            "RENDERKIT_S3_SECRET_ACCESS_KEY": "bench-secret",
            "RENDERKIT_BROWSER_SLOTS": str(args.slots),
            "RENDERKIT_BROWSER_CDP_URLS": f"{browserless.url},{chromium.url}",  # #15 f2
        }
        configurations = {
            "local": {"a": common},
            "remote": {"a": {**common, "RENDERKIT_BROWSER_CDP_URL": chromium.url}},
            "2 replicas": {
                "a": {**common, "RENDERKIT_BROWSER_CDP_URL": browserless.url},
                "b": {**common, "RENDERKIT_BROWSER_CDP_URL": chromium.url},
            },
        }
        results: dict[str, dict[str, float]] = {}
        by_kind: dict[str, float] = {}
        memory: tuple[float, float] = (0.0, 0.0)
        try:
            for name, envs in configurations.items():
                with replicas(work / name, envs) as started:
                    urls = [replica.url for replica in started]
                    key = issue_key(urls[0])
                    if name == "local":
                        idle = chromium_pss_mib(started[0])
                    results[name] = measure(urls, key, kinds, args)
                    if name == "local":
                        memory = (idle, chromium_pss_mib(started[0]))
                        for kind in kinds:
                            by_kind[kind] = measure(urls, key, [kind], args)["req/s"]
                print(f"{name}: {results[name]}", file=sys.stderr)
        finally:
            chromium.stop()
            browserless.stop()
            s3.stop()

    cores = os.cpu_count() or 1
    print(
        f"\nmix of {len(kinds)} kinds, {args.requests} requests x {args.rounds} rounds, "
        f"{args.clients} clients, {args.slots} slots per replica, {cores} cores (medians)"
    )
    print(f"{'':10}" + "".join(f"{name:>14}" for name in results))
    for column in ("req/s", "p50 ms", "p95 ms", "failed"):
        print(f"{column:10}" + "".join(f"{r[column]:>14.1f}" for r in results.values()))
    print(f"\nlocal pool, one kind at a time ({cores} cores):")
    for kind, rate in by_kind.items():
        print(f"  {kind:20} {rate:6.1f} renders/s  {rate / cores:6.1f} per core")
    idle, loaded = memory
    print(
        f"\nlocal Chromium tree PSS: {idle:.0f} MiB idle, {loaded:.0f} MiB after the mix "
        f"with {args.slots} slots: about {(loaded - idle) / args.slots:.0f} MiB per busy slot"
    )
    for name, result in results.items():
        record(
            args.record,
            benchmark="bench_fleet.py",
            case=f"mixed requests ({', '.join(kinds)}), {args.requests} requests x {args.rounds} "
            f"rounds from {args.clients} clients, {args.slots} slots per replica: {name}",
            unit="requests/s",
            renderkit=result["req/s"],
            notes=f"p50 {result['p50 ms']:.0f} ms, p95 {result['p95 ms']:.0f} ms, "
            f"{result['failed']:.0f} failed",
        )
    for kind, rate in by_kind.items():
        record(
            args.record,
            benchmark="bench_fleet.py",
            case=f"{kind} alone, one replica on its local {args.slots}-slot pool",
            unit="renders/s",
            renderkit=rate,
        )


if __name__ == "__main__":
    main()
