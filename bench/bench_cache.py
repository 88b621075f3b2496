"""Benchmark: a render cache hit vs a miss, over HTTP (uvicorn on 127.0.0.1, httpx).

    python bench/bench_cache.py [--hits 300] [--misses 20] [--fake] [--record bench/results.toml]

One client, sequential. Misses render an og-card (1200x630 at 2x) with a new title each
time through Chromium (``--fake``: an in-memory browser, so a miss is the metered pipeline
without a real render); hits repeat one request, answered from the cache index (SQLite)
and the stored file. Target: a hit under 5 ms median. GET /api/health, interleaved, is the
floor of the HTTP stack on the machine at that moment.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from _record import add_record_option, record


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve(port: int, data_dir: str, fake: bool) -> None:
    import uvicorn

    from renderkit.testing import FakeBrowser
    from renderkit_server.app import create_app
    from renderkit_server.settings import Settings

    settings = Settings(
        data_dir=Path(data_dir),
        admin_token="bench-admin-token-0123456789",
        plans={"starter": {"images": None, "burst_per_minute": None}},
    )
    app = create_app(settings, browser=FakeBrowser() if fake else None)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


def start(data_dir: str, fake: bool) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    args = [sys.executable, __file__, "--serve", str(port), data_dir]
    if fake:
        args.append("--fake")
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    for _ in range(400):
        try:
            if httpx.get(f"{base}/api/health", timeout=1).status_code in (200, 503):
                return proc, base
        except httpx.TransportError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("server did not start")


def timed_ms(client: httpx.Client, body: dict, headers: dict, expect: str) -> float:
    t = time.perf_counter()
    response = client.post("/api/image", json=body, headers=headers)
    elapsed = (time.perf_counter() - t) * 1000
    response.raise_for_status()
    assert response.headers["x-cache"] == expect, response.headers.get("x-cache")
    return elapsed


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--serve":
        serve(int(sys.argv[2]), sys.argv[3], "--fake" in sys.argv[4:])
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("--hits", type=int, default=300)
    parser.add_argument("--misses", type=int, default=20)
    parser.add_argument("--fake", action="store_true", help="in-memory browser")
    add_record_option(parser)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data_dir:
        proc, base = start(data_dir, args.fake)
        try:
            with httpx.Client(base_url=base, timeout=60) as client:
                key = client.post("/api/keys/generate", json={"email": "b@example.com"}).json()
                headers = {"X-SVC-Key": key["key"]}

                def body(title: str) -> dict:
                    return {"template": "og-card", "data": {"title": title}}

                timed_ms(client, body("warm-up"), headers, "MISS")  # browser launch
                cached = body("cached")
                timed_ms(client, cached, headers, "MISS")
                for _ in range(20):
                    timed_ms(client, cached, headers, "HIT")
                misses, hits, health = [], [], []
                # Interleaved so both share the machine's noise.
                for i in range(args.misses):
                    misses.append(timed_ms(client, body(f"miss {i}"), headers, "MISS"))
                    for _ in range(args.hits // args.misses):
                        hits.append(timed_ms(client, cached, headers, "HIT"))
                        t = time.perf_counter()
                        client.get("/api/health")
                        health.append((time.perf_counter() - t) * 1000)
        finally:
            proc.terminate()
            proc.wait()
    renderer = "in-memory browser" if args.fake else "Chromium"
    print(f"og-card 1200x630@2x, {renderer}; one client, sequential")
    print(f"{'':18}{'median':>10}{'p90':>10}{'n':>6}")
    rows = (("GET /api/health", health), ("cache hit", hits), ("cache miss", misses))
    for name, samples in rows:
        p90 = statistics.quantiles(samples, n=10)[-1]
        print(f"{name:18}{statistics.median(samples):8.2f} ms{p90:8.2f} ms{len(samples):6d}")
    print(f"hit speed-up       {statistics.median(misses) / statistics.median(hits):8.1f}x")
    record(
        args.record,
        benchmark="bench_cache.py",
        case=f"og-card over HTTP answered from the render cache (a hit), {renderer}",
        unit="ms",
        renderkit=statistics.median(hits),
        peer="the same request rendered (a miss)",
        peer_median=statistics.median(misses),
        notes=f"GET /api/health, interleaved: median {statistics.median(health):.2f} ms",
    )


if __name__ == "__main__":
    main()
