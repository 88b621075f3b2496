"""Soak test: the real server under mixed concurrent load on loopback.

    python scripts/soak.py [--clients 20] [--duration 300] [--warmup 0.2]

Starts ``renderkit serve`` (uvicorn, real Chromium, local storage, SQLite, local speech) on
127.0.0.1 with a temporary data dir, and a page server on 127.0.0.1 that screenshots target
(the server allows only that address: ``RENDERKIT_ALLOW_NETWORKS=127.0.0.1/32``). Issues one
business key per client (burst unlimited in a config file, so quotas never stop the run), then
runs the clients for the duration, each cycling through image (template and custom HTML), PDF,
screenshot of the local page, audio and parse (a one-page text PDF made here).

Prints requests, errors by status and code, p50/p95/p99 latency per kind, the RSS of the
server's process tree (server, Chromium and every child) at start, after warm-up and at the
end, and browser process counts. Exits 1 on an unexpected error (a 5xx other than 503
OVERLOADED, a connection failure or a timeout), RSS growth over 10% after warm-up, or a process
of the tree still alive after shutdown.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import collections
import contextlib
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

ADMIN = "soak-admin-token-0123456789abcdef"
RSS_GROWTH_LIMIT = 0.10
#: 503 with this code is the documented "busy, retry" answer, not a fault.
EXPECTED_BUSY = (503, "OVERLOADED")
CLIENT_TIMEOUT = 60.0
PAGE = b"""<!doctype html><html><head><title>soak</title></head>
<body style="font-family:sans-serif"><h1>Soak page</h1><p>Served on loopback.</p>
<ul><li>one</li><li>two</li><li>three</li></ul></body></html>"""


# --- inputs -----------------------------------------------------------------------------------


def text_pdf() -> bytes:
    """A one-page PDF with a text layer (so parse reads it without OCR)."""
    stream = (
        b"BT /F1 14 Tf 72 720 Td (INVOICE  No. 2024-001) Tj 0 -24 Td (Date: 2024-05-01) Tj "
        b"0 -24 Td (Acme Corp, 1 Main Street) Tj 0 -24 Td (Total: 120.00 USD) Tj ET"
    )
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def requests_mix(page_url: str) -> list[tuple[str, str, dict[str, Any]]]:
    """(kind, path, body) for each kind of request a client cycles through."""
    pdf = base64.b64encode(text_pdf()).decode()
    return [
        ("image", "/api/image", {"template": "og-card", "data": {"title": "Soak", "tag": "t"}}),
        (
            "image-custom",
            "/api/image",
            {
                "template": "custom",
                "html": "<div style='padding:40px;font:32px sans-serif'>custom soak</div>",
                "width": 600,
                "height": 300,
                "scale": 1,
            },
        ),
        (
            "pdf",
            "/api/pdf-gen",
            {
                "template": "invoice",
                "data": {
                    "company_name": "Acme",
                    "client_name": "Client",
                    "line_items": [{"description": "Work", "quantity": 2, "unit_price": 50}],
                },
            },
        ),
        ("screenshot", "/api/screenshot", {"url": page_url}),
        ("audio", "/api/audio", {"script": "This is the soak test speaking."}),
        ("parse", "/api/parse", {"file": pdf, "mimeType": "application/pdf"}),
    ]


# --- processes --------------------------------------------------------------------------------


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = collections.defaultdict(list)
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree[ppid].append(int(entry))
    return tree


def process_tree(root: int) -> list[int]:
    """``root`` and all its descendants."""
    tree, out, todo = _children(), [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(tree.get(pid, []))
    return out


def _identity(pid: int) -> tuple[int, str] | None:
    # (pid, start time) survives pid reuse; None when the process is gone.
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    if fields[0] == "Z":
        return None
    return pid, fields[19]


def rss_bytes(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1]) * 1024
    return total


def is_browser(pid: int) -> bool:
    try:
        name = Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return False
    return "chrom" in name.lower()


@contextlib.contextmanager
def page_server() -> Iterator[str]:
    """The local page screenshots target, on 127.0.0.1."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(PAGE)))
            self.end_headers()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(PAGE)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/page.html"
    finally:
        server.shutdown()
        server.server_close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(data_dir: Path, port: int) -> subprocess.Popen[bytes]:
    config = data_dir.parent / "soak.toml"
    config.write_text('[plans.business]\nburst_per_minute = "unlimited"\n')
    env = {
        **os.environ,
        "RENDERKIT_DATA_DIR": str(data_dir),
        "RENDERKIT_ADMIN_TOKEN": ADMIN,
        "RENDERKIT_SECRET": "soak-secret-0123456789abcdef0123456789",
        "RENDERKIT_ALLOW_NETWORKS": "127.0.0.1/32",
        "RENDERKIT_KEY_ISSUE_PER_HOUR": "1000",
        "RENDERKIT_CONFIG": str(config),
        "RENDERKIT_PUBLIC_URL": f"http://127.0.0.1:{port}",
    }
    log = (data_dir.parent / "server.log").open("wb")
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "renderkit.cli",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: Ctrl-C here does not reach it first
    )


def stop_server(server: subprocess.Popen[bytes], timeout: float = 45.0) -> int | None:
    if server.poll() is None:
        server.send_signal(signal.SIGTERM)
    try:
        return server.wait(timeout)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
        return None


# --- load -------------------------------------------------------------------------------------


class Stats:
    def __init__(self) -> None:
        self.latencies: dict[str, list[float]] = collections.defaultdict(list)
        self.outcomes: collections.Counter[tuple[str, int, str]] = collections.Counter()
        self.unexpected: list[str] = []

    def record(self, kind: str, seconds: float, status: int, code: str) -> None:
        self.latencies[kind].append(seconds)
        self.outcomes[(kind, status, code)] += 1
        # Every request of the mix is valid and within quota: any answer but 200 and the
        # documented busy 503 (a 4xx, a 5xx, no answer at all) is a fault.
        if status != 200 and (status, code) != EXPECTED_BUSY:
            self.unexpected.append(f"{kind}: {status} {code}")


async def wait_ready(client: httpx.AsyncClient, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            if (await client.get("/api/health")).status_code < 500:
                return
        await asyncio.sleep(0.2)
    msg = "the server did not answer /api/health in time"
    raise SystemExit(msg)


async def issue_keys(client: httpx.AsyncClient, count: int) -> list[str]:
    keys = []
    for index in range(count):
        response = await client.post(
            "/api/keys/generate",
            json={"email": f"soak{index}@example.com", "plan": "business"},
            headers={"Authorization": f"Bearer {ADMIN}"},
        )
        response.raise_for_status()
        keys.append(response.json()["key"])
    return keys


async def run_client(
    client: httpx.AsyncClient,
    key: str,
    mix: list[tuple[str, str, dict[str, Any]]],
    offset: int,
    stop_at: float,
    stats: Stats,
) -> None:
    index = offset
    while time.monotonic() < stop_at:
        kind, path, body = mix[index % len(mix)]
        index += 1
        started = time.monotonic()
        try:
            response = await client.post(path, json=body, headers={"X-SVC-Key": key})
            status = response.status_code
            code = "" if status == 200 else str(response.json().get("code", ""))
            if status == 503:  # the documented busy answer: back off as told
                await asyncio.sleep(min(float(response.headers.get("Retry-After", 1)), 5))
        except (httpx.HTTPError, ValueError) as exc:
            status, code = 0, type(exc).__name__
        stats.record(kind, time.monotonic() - started, status, code)


def _median(samples: list[tuple[float, int]], start: float, end: float) -> int:
    values = [rss for at, rss in samples if start <= at <= end] or [samples[-1][1]]
    return int(statistics.median(values))


def percentile(values: list[float], q: float) -> float:
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def mb(value: int) -> str:
    return f"{value / 1e6:.0f} MB"


async def soak(args: argparse.Namespace) -> int:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    seen: set[tuple[int, str]] = set()
    failures: list[str] = []
    with tempfile.TemporaryDirectory(prefix="renderkit-soak-") as tmp, page_server() as page_url:
        server = start_server(Path(tmp) / "data", port)

        def sample() -> list[int]:
            pids = process_tree(server.pid)
            seen.update(i for i in map(_identity, pids) if i is not None)
            return pids

        try:
            limits = httpx.Limits(max_connections=args.clients + 5)
            async with httpx.AsyncClient(
                base_url=base, timeout=CLIENT_TIMEOUT, limits=limits
            ) as client:
                await wait_ready(client)
                keys = await issue_keys(client, args.clients)
                mix = requests_mix(page_url)
                # One request of each kind first: Chromium is launched, models are loaded.
                for kind, path, body in mix:
                    response = await client.post(path, json=body, headers={"X-SVC-Key": keys[0]})
                    if response.status_code != 200:
                        failures.append(f"warm-up {kind}: {response.status_code} {response.text}")
                pids = sample()
                rss_start, browsers_start = rss_bytes(pids), sum(map(is_browser, pids))
                stats = Stats()
                started = time.monotonic()
                stop_at = started + args.duration
                tasks = [
                    asyncio.create_task(run_client(client, key, mix, i, stop_at, stats))
                    for i, key in enumerate(keys)
                ]
                # Chromium's renderer count (hence the tree's RSS) follows the load from moment
                # to moment, so single readings are noisy: RSS is sampled every second and the
                # median of a window right after warm-up is compared with the last window's.
                samples: list[tuple[float, int]] = []
                while not all(t.done() for t in tasks):
                    await asyncio.sleep(1)
                    samples.append((time.monotonic() - started, rss_bytes(sample())))
                await asyncio.gather(*tasks)
                elapsed = time.monotonic() - started
                pids = sample()
                browsers_end = sum(map(is_browser, pids))
                warm_from = args.duration * args.warmup
                window = max(args.duration * 0.1, 3)
                rss_warm = _median(samples, warm_from, warm_from + window)
                rss_end = _median(samples, args.duration - window, args.duration)
        finally:
            exit_status = stop_server(server)
        await asyncio.sleep(1)  # let the kernel reap what the server's shutdown killed
        leaked = sorted(pid for pid, start in seen if _identity(pid) == (pid, start))
        for pid in leaked:  # clean up after reporting
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        server_log = (Path(tmp) / "server.log").read_text(errors="replace")

    total = sum(len(v) for v in stats.latencies.values())
    print(f"soak: {args.clients} clients for {args.duration:.0f} s on loopback")
    print(f"requests: {total} in {elapsed:.0f} s ({total / elapsed:.1f}/s)")
    print("outcomes (kind status code: count):")
    for (kind, status, code), count in sorted(stats.outcomes.items()):
        print(f"  {kind:13} {status} {code or 'OK'}: {count}")
    print("latency seconds (kind: n p50 p95 p99):")
    for kind, values in sorted(stats.latencies.items()):
        p50, p95, p99 = (percentile(values, q) for q in (50, 95, 99))
        print(f"  {kind:13} n={len(values):5} p50={p50:6.2f} p95={p95:6.2f} p99={p99:6.2f}")
    growth = (rss_end - rss_warm) / rss_warm if rss_warm else 0.0
    print(
        f"RSS of the server's process tree (sum of VmRSS): start {mb(rss_start)}, after "
        f"warm-up {mb(rss_warm)}, end {mb(rss_end)} (growth after warm-up {growth:+.1%}; "
        f"medians of 1 s samples over the {window:.0f} s after warm-up and the last {window:.0f} s)"
    )
    print(f"browser processes: start {browsers_start}, end {browsers_end}")
    print(f"server exit status: {exit_status}; processes left after shutdown: {len(leaked)}")

    failures += [f"unexpected response {u}" for u in sorted(set(stats.unexpected))]
    if growth > args.max_rss_growth:
        failures.append(f"RSS grew {growth:.1%} after warm-up (limit {args.max_rss_growth:.0%})")
    if leaked:
        failures.append(f"{len(leaked)} processes of the server's tree outlived it: {leaked}")
    if exit_status != 0:
        failures.append(f"the server exited with {exit_status}")
    if failures:
        print("FAIL:")
        for failure in failures:
            print(f"  {failure}")
        tail = server_log.strip().splitlines()[-20:]
        if tail:
            print("server log (last lines):", *tail, sep="\n  ")
        return 1
    print("PASS")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=20, help="concurrent clients (20)")
    parser.add_argument("--duration", type=float, default=300, help="seconds of load (300)")
    parser.add_argument(
        "--warmup", type=float, default=0.2, help="share of the run before the RSS baseline"
    )
    parser.add_argument(
        "--max-rss-growth",
        type=float,
        default=RSS_GROWTH_LIMIT,
        help="largest RSS growth after warm-up, as a share (0.10)",
    )
    args = parser.parse_args()
    return asyncio.run(soak(args))


if __name__ == "__main__":
    sys.exit(main())
