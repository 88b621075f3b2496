"""Benchmark: how long a hostile JSON body holds the server (finding 1 of the security review).

    python bench/bench_bodies.py [--sizes 16,31,63,1024,10240] [--limit 120] [--record FILE]

Serves create_app in a subprocess (bench/_fake_server.py) and posts escaped quotes in an
unterminated string (``{"email": "\\"\\"\\"...``), the review's body, to the keyless
``POST /api/keys/generate``, sizes in KiB. Meanwhile a thread probes ``GET /api/health``
every 20 ms. Prints the time to the answer and the worst and 90th-percentile health latency.
A body not answered within ``--limit`` seconds is reported as such (the server is killed).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time

import httpx
from _record import add_record_option, record
from bench_server import start


def probe(base: str, stop: threading.Event, latencies: list[float]) -> None:
    with httpx.Client(base_url=base, timeout=300) as client:
        while not stop.is_set():
            started = time.perf_counter()
            try:
                client.get("/api/health")
            except httpx.TransportError:
                return
            latencies.append(time.perf_counter() - started)
            stop.wait(0.02)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="16,31,63,1024,10240", help="KiB, comma-separated")
    parser.add_argument("--limit", type=float, default=120.0, help="seconds per body")
    add_record_option(parser)
    args = parser.parse_args()
    print(f"{'KiB':>6} {'answer':>9} {'health max':>11} {'health p90':>11}")
    for kib in (int(size) for size in args.sizes.split(",")):
        head = b'{"email": "'
        body = head + b'\\"' * ((kib * 1024 - len(head)) // 2)  # at most the body limit
        with tempfile.TemporaryDirectory() as data_dir:
            proc, base = start("renderkit", data_dir)
            stop, latencies = threading.Event(), []
            prober = threading.Thread(target=probe, args=(base, stop, latencies), daemon=True)
            prober.start()
            for _ in range(100):  # the prober is connected and probing before the body goes
                if latencies:
                    break
                time.sleep(0.01)
            try:
                started = time.perf_counter()
                try:
                    status = httpx.post(
                        f"{base}/api/keys/generate",
                        content=body,
                        headers={"Content-Type": "application/json"},
                        timeout=args.limit,
                    ).status_code
                    seconds = time.perf_counter() - started
                    answer = f"{seconds:8.2f}s"
                except httpx.TimeoutException:
                    status, seconds, answer = 0, args.limit, f">{args.limit:.0f}s"
            finally:
                stop.set()
                prober.join(5)  # a probe held up by the body is answered with it, and counted
                proc.kill()
            worst = max(latencies, default=float("nan")) * 1000
            p90 = (
                statistics.quantiles(latencies, n=10, method="inclusive")[-1] * 1000
                if len(latencies) > 1
                else worst
            )
            print(f"{kib:>6} {answer:>9} {worst:>9.0f}ms {p90:>9.0f}ms  (status {status})")
            record(
                args.record,
                benchmark="bench_bodies.py",
                case=f"a hostile {kib} KiB JSON body (escaped quotes, unterminated) to "
                "POST /api/keys/generate: time to the answer",
                unit="s",
                renderkit=seconds,
                notes=f"status {status or 'none: timed out'}; GET /api/health meanwhile: "
                f"max {worst:.0f} ms, p90 {p90:.0f} ms",
            )


if __name__ == "__main__":
    main()
