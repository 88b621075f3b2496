"""Benchmark: screenshot of a local page with a warm pool vs a cold browser per capture.

    python bench/bench_screenshot.py [--rounds 20] [--record bench/results.toml]

The peer is the straightforward command-line way, `chromium --headless --screenshot`, which
starts a browser for every capture. Both capture the same page (served on 127.0.0.1) at
1280x800, interleaved round by round.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))

from _record import add_record_option, record
from tests._server import serve

from renderkit import screenshot
from renderkit.browser import BrowserConfig, ChromiumPool

PAGE = (
    b"""<!doctype html><html><head><style>
body { font-family: sans-serif; margin: 40px; background: #f8fafc; }
.card { background: white; border-radius: 12px; padding: 24px; margin: 16px 0;
        box-shadow: 0 1px 3px rgba(0,0,0,.1); }
</style></head><body><h1>Dashboard</h1>
"""
    + b"".join(
        b"<div class='card'><h2>Card %d</h2><p>Lorem ipsum dolor sit amet, consectetur.</p></div>"
        % i
        for i in range(8)
    )
    + b"</body></html>"
)


def summary(values: list[float]) -> str:
    return f"median {statistics.median(values) * 1000:7.1f} ms (n={len(values)})"


def cold(url: str, out: str) -> None:
    subprocess.run(
        [
            "/usr/bin/chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--no-first-run",
            "--hide-scrollbars",
            f"--user-data-dir={tempfile.mkdtemp(prefix='rk-bench-')}",
            "--window-size=1280,800",
            f"--screenshot={out}",
            url,
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )


async def main(rounds: int, record_to: Path | None) -> None:
    with serve() as site, tempfile.TemporaryDirectory() as tmp:
        site.routes["/"] = (200, "text/html", PAGE)
        url = site.url("/")
        async with ChromiumPool(BrowserConfig(slots=2, allow_private_network=True)) as pool:
            for _ in range(3):
                await screenshot({"url": url}, browser=pool)
            ours, theirs = [], []
            for i in range(rounds):
                t = time.perf_counter()
                await screenshot({"url": url}, browser=pool)
                ours.append(time.perf_counter() - t)
                t = time.perf_counter()
                await asyncio.to_thread(cold, url, f"{tmp}/{i}.png")
                theirs.append(time.perf_counter() - t)
    print(f"renderkit screenshot (warm pool)         {summary(ours)}")
    print(f"chromium --headless --screenshot (cold)  {summary(theirs)}")
    print(f"speed-up: {statistics.median(theirs) / statistics.median(ours):.1f}x")
    record(
        record_to,
        benchmark="bench_screenshot.py",
        case="screenshot of a local page at 1280x800, warm pool",
        unit="ms",
        renderkit=statistics.median(ours) * 1000,
        peer="chromium --headless --screenshot, a cold browser per capture",
        peer_median=statistics.median(theirs) * 1000,
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=20)
    add_record_option(parser)
    args = parser.parse_args()
    asyncio.run(main(args.rounds, args.record))
