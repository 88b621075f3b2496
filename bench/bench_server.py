"""Benchmark: server overhead (auth + quota + storage) and GET /api/health throughput.

    python bench/bench_server.py [--requests 300] [--seconds 10] [--record bench/results.toml]

1. Latency, one client, sequential: GET /api/health vs POST /api/image with a key and a
   16x16 render from an in-memory browser, so the difference is the metered pipeline:
   key verification, validation, quota reservation (SQLite), storing the file, signing its URL.
2. Throughput of GET /api/health with wrk (2 threads, 32 connections) against renderkit and,
   in the same run, against a bare ASGI app on the same uvicorn (the stack's ceiling).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from _record import add_record_option, record

HERE = Path(__file__).parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start(
    kind: str, data_dir: str, environment: dict[str, str] | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    args = [sys.executable, str(HERE / "_fake_server.py"), str(port), data_dir]
    if kind == "peer":
        args.append("peer")
    env = {**os.environ, **(environment or {})}
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    base = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            if httpx.get(f"{base}/api/health", timeout=1).status_code == 200:
                return proc, base
        except httpx.TransportError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("server did not start")


def median_ms(fn, n: int) -> float:
    samples = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t) * 1000)
    return statistics.median(samples)


def wrk(url: str, seconds: int) -> float:
    out = subprocess.run(
        ["wrk", "-t2", "-c32", f"-d{seconds}s", url], capture_output=True, text=True, check=True
    ).stdout
    return float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--seconds", type=int, default=10)
    add_record_option(parser)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data_dir:
        proc, base = start("renderkit", data_dir)
        try:
            with httpx.Client(base_url=base) as client:
                key = client.post("/api/keys/generate", json={"email": "b@example.com"}).json()
                headers = {"X-SVC-Key": key["key"]}
                body = {
                    "template": "og-card",
                    "width": 16,
                    "height": 16,
                    "scale": 1,
                    "data": {"title": "x"},
                    # Every call renders: this measures the metered pipeline, not cache hits.
                    "cache": False,
                }
                for _ in range(20):
                    client.get("/api/health")
                    client.post("/api/image", json=body, headers=headers).raise_for_status()
                rounds = []
                for _ in range(3):  # interleave to share the machine's noise
                    health = median_ms(lambda: client.get("/api/health"), args.requests // 3)
                    image = median_ms(
                        lambda: client.post("/api/image", json=body, headers=headers),
                        args.requests // 3,
                    )
                    rounds.append((health, image))
            health = statistics.median(r[0] for r in rounds)
            image = statistics.median(r[1] for r in rounds)
            print(f"GET /api/health latency            median {health:6.2f} ms")
            print(f"POST /api/image (16x16, metered)   median {image:6.2f} ms")
            print(f"metered pipeline overhead          median {image - health:6.2f} ms")
            record(
                args.record,
                benchmark="bench_server.py",
                case="POST /api/image over HTTP, 16x16 from an in-memory browser (the metered "
                "pipeline: key, validation, quota, storage, signed URL)",
                unit="ms",
                renderkit=image,
                # The floor, not a peer: the same HTTP stack answering without the pipeline.
                notes=f"GET /api/health on the same server, interleaved: median {health:.2f} ms",
            )
            if shutil.which("wrk"):
                ours = wrk(f"{base}/api/health", args.seconds)
        finally:
            proc.terminate()
            proc.wait()
        if shutil.which("wrk"):
            peer_proc, peer_base = start("peer", data_dir)
            try:
                peer = wrk(f"{peer_base}/api/health", args.seconds)
            finally:
                peer_proc.terminate()
                peer_proc.wait()
            print(f"GET /api/health throughput (wrk)   {ours:8.0f} req/s")
            print(
                f"bare ASGI app, same uvicorn        {peer:8.0f} req/s  "
                f"(renderkit at {ours / peer:.0%} of the stack's ceiling)"
            )
            record(
                args.record,
                benchmark="bench_server.py",
                case="GET /api/health throughput (wrk, 2 threads, 32 connections)",
                unit="requests/s",
                renderkit=ours,
                peer="a bare ASGI app on the same uvicorn",
                peer_median=peer,
            )
        else:
            print("wrk not installed (apt-get install wrk): throughput not measured")


if __name__ == "__main__":
    main()
