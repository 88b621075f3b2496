"""Benchmark: screenshots of a local page, renderkit's pool vs a warm Playwright page.

    python bench/bench_screenshot.py [--rounds 20] [--chromium PATH] [--record bench/results.toml]

renderkit gives every capture a fresh, isolated browser context (its own cookies, storage and
cache) and sends every request through its egress proxy; the peer is the fastest thing
Playwright can do, one warm page reused for every capture (``goto`` + ``screenshot``), with
neither isolation nor egress checks. Both capture the same page, served on 127.0.0.1, at
1280x800 on the same Chromium binary (``--chromium``, the pool's default unless given; e.g.
``/usr/bin/chromium-headless-shell``, the old headless mode Playwright runs by default), in the
same run:

- back to back: ``rounds`` renderkit captures in a row, then ``rounds`` Playwright ones;
- interleaved: one of each, round by round, so machine noise hits both alike.

The page is static (no script), as in issue #30; a page with a script also pays renderkit's
100 ms network-quiet window, which the scripted case reports. Last, the egress proxy's own
cost: one page request straight to the server and through the proxy. Medians, the ratio
(renderkit's time over the warm page's) and the load average are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))

from _record import add_record_option, record
from playwright.async_api import async_playwright
from tests._server import serve

from renderkit import screenshot
from renderkit.browser import BrowserConfig, ChromiumPool
from renderkit.browser._egress import EgressProxy
from renderkit.core.netpolicy import UrlPolicy

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
SCRIPTED = PAGE.replace(
    b"</body>", b"<script>document.querySelector('h1').textContent += ' (live)';</script></body>"
)
PEER = "a warm Playwright page on the same Chromium binary: goto + screenshot"

Timed = Callable[[], Awaitable[object]]


async def timed(action: Timed) -> float:
    started = time.perf_counter()
    await action()
    return time.perf_counter() - started


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


def report(label: str, ours: list[float], theirs: list[float]) -> float:
    ratio = statistics.median(ours) / statistics.median(theirs)
    print(
        f"{label:<13} renderkit {median_ms(ours):7.1f} ms   warm Playwright page "
        f"{median_ms(theirs):7.1f} ms   ratio {ratio:.2f}x   (n={len(ours)})"
    )
    return ratio


async def fetch(port: int, target: str, host: str) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
    await writer.drain()
    await reader.read()
    writer.close()


async def proxy_cost(url: str, rounds: int) -> tuple[list[float], list[float]]:
    """One page request straight to the server and through the egress proxy, interleaved."""
    host = url.split("/")[2]
    port = int(host.rpartition(":")[2])
    proxy = EgressProxy(UrlPolicy(allow_networks=("127.0.0.0/8",)))
    await proxy.start()
    direct, proxied = [], []
    try:
        for _ in range(rounds):
            direct.append(await timed(lambda: fetch(port, "/", host)))
            proxied.append(await timed(lambda: fetch(proxy.port, url, host)))
    finally:
        await proxy.aclose()
    return direct, proxied


async def main(rounds: int, record_to: Path | None, chromium: str) -> None:
    with serve() as site:
        site.routes["/"] = (200, "text/html", PAGE)
        site.routes["/scripted"] = (200, "text/html", SCRIPTED)
        url, scripted_url = site.url("/"), site.url("/scripted")
        # The page is on loopback: allowed as an operator's network, so every request still
        # goes through the egress proxy, as a public page's would.
        config = BrowserConfig(slots=2, allow_networks=("127.0.0.0/8",), executable_path=chromium)
        async with ChromiumPool(config) as pool, async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=config.executable_path)
            page = await browser.new_page(viewport={"width": 1280, "height": 800})

            async def ours(target: str = url) -> None:
                await screenshot({"url": target}, browser=pool)

            async def theirs(target: str = url) -> None:
                await page.goto(target)
                await page.screenshot()

            for _ in range(3):  # warm both paths
                await ours()
                await theirs()
            back_ours = [await timed(ours) for _ in range(rounds)]
            back_theirs = [await timed(theirs) for _ in range(rounds)]
            mixed_ours, mixed_theirs = [], []
            for _ in range(rounds):
                mixed_ours.append(await timed(ours))
                mixed_theirs.append(await timed(theirs))
            script_ours, script_theirs = [], []
            for _ in range(max(5, rounds // 2)):
                script_ours.append(await timed(lambda: ours(scripted_url)))
                script_theirs.append(await timed(lambda: theirs(scripted_url)))
            await browser.close()
        direct, proxied = await proxy_cost(url, rounds * 10)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    report("back to back", back_ours, back_theirs)
    report("interleaved", mixed_ours, mixed_theirs)
    report("scripted page", script_ours, script_theirs)
    added = median_ms(proxied) - median_ms(direct)
    print(
        f"egress proxy  one page request {median_ms(direct):.2f} ms direct, "
        f"{median_ms(proxied):.2f} ms through the proxy: +{added:.2f} ms "
        f"({added / median_ms(back_ours):.1%} of a renderkit capture)"
    )
    print(f"load average {load} (1, 5, 15 min) on {os.cpu_count()} cores")
    # A run on another binary than the pool's default is a case of its own.
    default = chromium == BrowserConfig().executable_path
    binary = "" if default else f", both on {Path(chromium).name}"
    cases = [
        ("back to back", back_ours, back_theirs),
        ("interleaved", mixed_ours, mixed_theirs),
        ("interleaved, a page with a script", script_ours, script_theirs),
    ]
    for name, mine, peer in cases:
        record(
            record_to,
            benchmark="bench_screenshot.py",
            case=f"screenshot of a local page at 1280x800 through the egress proxy, {name}{binary}",
            unit="ms",
            renderkit=median_ms(mine),
            peer=PEER,
            peer_median=median_ms(peer),
            notes="a fresh isolated context per renderkit capture; ratio below 1: slower",
        )
    record(
        record_to,
        benchmark="bench_screenshot.py",
        case="one page request on loopback through the egress proxy (its added time)",
        unit="ms",
        renderkit=median_ms(proxied),
        peer="the same request straight to the server",
        peer_median=median_ms(direct),
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument(
        "--chromium",
        default=BrowserConfig().executable_path,
        help="the browser both sides run (e.g. /usr/bin/chromium-headless-shell)",
    )
    add_record_option(parser)
    args = parser.parse_args()
    asyncio.run(main(args.rounds, args.record, args.chromium))
