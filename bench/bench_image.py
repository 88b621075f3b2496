"""Benchmark: og-cards against Takumi, and against the straightforward Playwright way.

    python bench/bench_image.py [--rounds 30] [--skip-playwright] [--record bench/results.toml]

Three comparisons, each interleaved round by round so machine noise hits both sides alike:

- og-card PNG at scale 1 and 2, one at a time, against Takumi (``@takumi-rs/core`` 2.16.3,
  native, no browser) drawing the same card (``bench/takumi_og.mjs``), timed inside Node;
- 4 clients rendering distinct og-cards at scale 2 (throughput and p95), renderkit's 2-slot
  pool against Takumi's own concurrency (libuv's thread pool);
- og-card PNG and JPEG at scale 2 against Playwright on the same Chromium (new page,
  set_content, screenshot).

Takumi is installed with npm into ``.tools/takumi`` on first use (like the MCP peers in
scripts/mcp_clients.py). Reports medians, ratios and the load average next to them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

from _record import add_record_option, record
from playwright.async_api import async_playwright

from renderkit import render_image
from renderkit.browser import DEFAULT_CHROMIUM, BrowserConfig, ChromiumPool
from renderkit.image._render import image_shell
from renderkit.image._templates import render_fragment

ROOT = Path(__file__).resolve().parent.parent
TAKUMI_DIR = ROOT / ".tools" / "takumi"
TAKUMI_PACKAGE = "@takumi-rs/core@2.16.3"
FONTS = ROOT / "src" / "renderkit" / "core" / "assets" / "fonts"
TAKUMI = "Takumi (@takumi-rs/core 2.16.3, native) drawing the same card, timed inside Node"

DATA = {
    "tag": "Release 1.0",
    "title": "Render anything from JSON, in milliseconds",
    "subtitle": "Images, PDFs, screenshots, speech and parsing behind one API.",
    "domain": "renderkit.dev",
}
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--no-first-run",
]


def ms(values: list[float]) -> str:
    return f"median {statistics.median(values) * 1000:6.1f} ms  (p90 {sorted(values)[int(len(values) * 0.9) - 1] * 1000:6.1f}, n={len(values)})"


def load() -> str:
    return "load {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, round(len(values) * 0.95) - 1)]


class Takumi:
    """The Node peer, one process answering one JSON line per command."""

    def __init__(self) -> None:
        if not (TAKUMI_DIR / "node_modules" / "@takumi-rs" / "core").exists():
            TAKUMI_DIR.mkdir(parents=True, exist_ok=True)
            npm = ["npm", "install", "--no-save", "--no-audit", "--no-fund", "-q", TAKUMI_PACKAGE]
            subprocess.run(npm, cwd=TAKUMI_DIR, check=True)
        node = shutil.which("node") or "node"
        script = ROOT / "bench" / "takumi_og.mjs"
        self._process = subprocess.Popen(
            [node, str(script), str(FONTS)],
            cwd=TAKUMI_DIR,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def ask(self, command: str) -> dict[str, Any]:
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write(command + "\n")
        self._process.stdin.flush()
        answer: dict[str, Any] = json.loads(self._process.stdout.readline())
        return answer

    def once(self, scale: int) -> float:
        return float(self.ask(f"once {scale}")["ms"]) / 1000

    def close(self) -> None:
        assert self._process.stdin is not None
        self._process.stdin.close()
        self._process.wait(timeout=10)


async def against_takumi(pool: ChromiumPool, rounds: int, record_to: Path | None) -> None:
    takumi = Takumi()
    try:
        bodies = {s: {"template": "og-card", "data": DATA, "scale": s} for s in (1, 2)}
        for _ in range(3):  # warm both
            for scale, body in bodies.items():
                await render_image(body, browser=pool)
                takumi.once(scale)
        ours: dict[int, list[float]] = {1: [], 2: []}
        theirs: dict[int, list[float]] = {1: [], 2: []}
        for _ in range(rounds):
            for scale, body in bodies.items():
                t = time.perf_counter()
                await render_image(body, browser=pool)
                ours[scale].append(time.perf_counter() - t)
                theirs[scale].append(takumi.once(scale))
        during = load()

        # 4 clients, distinct cards (a title each), back to back at scale 2.
        total = max(rounds * 2, 40)
        counter = iter(range(total))
        latencies: list[float] = []

        async def client() -> None:
            for n in counter:
                data = {**DATA, "title": f"{DATA['title']} #{n}"}
                t = time.perf_counter()
                await render_image({"template": "og-card", "data": data}, browser=pool)
                latencies.append(time.perf_counter() - t)

        t = time.perf_counter()
        await asyncio.gather(*(client() for _ in range(4)))
        rate = total / (time.perf_counter() - t)
        their_burst = takumi.ask(f"burst 4 {total} 2")
        burst_load = load()
    finally:
        takumi.close()

    for scale in (1, 2):
        ratio = statistics.median(ours[scale]) / statistics.median(theirs[scale])
        print(f"og-card png @{scale}x  renderkit {ms(ours[scale])}")
        print(f"               takumi    {ms(theirs[scale])}   renderkit/takumi {ratio:.2f}")
    print(f"  ({during})")
    print(
        f"4 clients, {total} distinct og-cards @2x: renderkit {rate:.1f}/s p95 "
        f"{p95(latencies) * 1000:.0f} ms; takumi {their_burst['rate']:.1f}/s p95 "
        f"{their_burst['p95_ms']:.0f} ms  ({burst_load})"
    )
    for scale in (1, 2):
        record(
            record_to,
            benchmark="bench_image.py",
            case=f"og-card PNG at scale {scale} (1200x630 @{scale}x), one at a time, vs Takumi",
            unit="ms",
            renderkit=statistics.median(ours[scale]) * 1000,
            peer=TAKUMI,
            peer_median=statistics.median(theirs[scale]) * 1000,
            notes=f"interleaved round by round, {rounds} rounds; {during} (1, 5, 15 min)",
        )
    record(
        record_to,
        benchmark="bench_image.py",
        case=f"og-card PNG @2x throughput, 4 clients, {total} distinct cards, 2 slots",
        unit="renders/s",
        renderkit=rate,
        peer=TAKUMI + "; 4 concurrent renders",
        peer_median=float(their_burst["rate"]),
        notes=(
            f"p95 renderkit {p95(latencies) * 1000:.0f} ms, Takumi "
            f"{their_burst['p95_ms']:.0f} ms; {burst_load} (1, 5, 15 min)"
        ),
    )


async def against_playwright(pool: ChromiumPool, rounds: int, record_to: Path | None) -> None:
    fragment = render_fragment("og-card", DATA, width=1200, height=630)
    document = (
        f"<!doctype html><html><head><meta charset='utf-8'>{image_shell().head}</head>"
        f"<body><div id='rk-root' style='width:1200px;height:630px'>{fragment}</div></body></html>"
    )
    async with async_playwright() as pw:
        naive_browser = await pw.chromium.launch(executable_path=DEFAULT_CHROMIUM, args=ARGS)
        naive_context = await naive_browser.new_context(
            viewport={"width": 1200, "height": 630}, device_scale_factor=2
        )

        async def naive() -> bytes:
            page = await naive_context.new_page()
            await page.set_content(document)
            png = await page.screenshot(type="png")
            await page.close()
            return png

        png_body = {"template": "og-card", "data": DATA}
        jpeg_body = {**png_body, "format": "jpeg"}
        for _ in range(3):  # warm both paths
            await render_image(png_body, browser=pool)
            await render_image(jpeg_body, browser=pool)
            await naive()
        ours_png, ours_jpeg, baseline = [], [], []
        for _ in range(rounds):
            t = time.perf_counter()
            await render_image(png_body, browser=pool)
            ours_png.append(time.perf_counter() - t)
            t = time.perf_counter()
            await render_image(jpeg_body, browser=pool)
            ours_jpeg.append(time.perf_counter() - t)
            t = time.perf_counter()
            await naive()
            baseline.append(time.perf_counter() - t)
        await naive_browser.close()

    ratio = statistics.median(baseline) / statistics.median(ours_png)
    print(f"renderkit og-card png @2x   {ms(ours_png)}")
    print(f"renderkit og-card jpeg @2x  {ms(ours_jpeg)}")
    print(f"playwright new page+setContent+screenshot png @2x  {ms(baseline)}")
    print(f"speed-up vs straightforward: {ratio:.1f}x  ({load()})")
    peer = "Playwright on the same Chromium: new page, set_content, screenshot"
    case = "og-card {} at scale 2 (1200x630 @2x), warm pool, one at a time"
    record(
        record_to,
        benchmark="bench_image.py",
        case=case.format("PNG"),
        unit="ms",
        renderkit=statistics.median(ours_png) * 1000,
        peer=peer,
        peer_median=statistics.median(baseline) * 1000,
    )
    record(
        record_to,
        benchmark="bench_image.py",
        case=case.format("JPEG"),
        unit="ms",
        renderkit=statistics.median(ours_jpeg) * 1000,
        peer=peer + " (PNG)",
        peer_median=statistics.median(baseline) * 1000,
    )


async def main(rounds: int, record_to: Path | None, *, playwright: bool) -> None:
    async with ChromiumPool(BrowserConfig(slots=2)) as pool:
        await against_takumi(pool, rounds, record_to)
        if playwright:
            await against_playwright(pool, rounds, record_to)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--skip-playwright", action="store_true")
    add_record_option(parser)
    args = parser.parse_args()
    asyncio.run(main(args.rounds, args.record, playwright=not args.skip_playwright))
