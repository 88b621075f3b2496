"""Benchmark: og-card PNG at scale 2 with a warm pool vs the straightforward Playwright way.

    python bench/bench_image.py [--rounds 30] [--record bench/results.toml]

Both run in the same process against the same Debian Chromium, interleaved round by round
so machine noise hits both alike. Reports medians and the ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from pathlib import Path

from _record import add_record_option, record
from playwright.async_api import async_playwright

from renderkit import render_image
from renderkit.browser import BrowserConfig, ChromiumPool
from renderkit.image._render import image_shell
from renderkit.image._templates import render_fragment

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


async def main(rounds: int, record_to: Path | None) -> None:
    fragment = render_fragment("og-card", DATA, width=1200, height=630)
    document = (
        f"<!doctype html><html><head><meta charset='utf-8'>{image_shell().head}</head>"
        f"<body><div id='rk-root' style='width:1200px;height:630px'>{fragment}</div></body></html>"
    )
    async with ChromiumPool(BrowserConfig(slots=2)) as pool, async_playwright() as pw:
        naive_browser = await pw.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
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

        # Throughput: 4 clients, each rendering back to back.
        total = max(rounds, 20)
        counter = iter(range(total))

        async def client() -> None:
            for _ in counter:
                await render_image(png_body, browser=pool)

        t = time.perf_counter()
        await asyncio.gather(*(client() for _ in range(4)))
        elapsed = time.perf_counter() - t

    ratio = statistics.median(baseline) / statistics.median(ours_png)
    print(f"renderkit og-card png @2x   {ms(ours_png)}")
    print(f"renderkit og-card jpeg @2x  {ms(ours_jpeg)}")
    print(f"playwright new page+setContent+screenshot png @2x  {ms(baseline)}")
    print(f"speed-up vs straightforward: {ratio:.1f}x")
    print(f"throughput, 4 concurrent clients: {total / elapsed:.1f} renders/s ({total} renders)")
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
    record(
        record_to,
        benchmark="bench_image.py",
        case=f"og-card PNG throughput, 4 concurrent clients, 2 slots ({total} renders)",
        unit="renders/s",
        renderkit=total / elapsed,
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=30)
    add_record_option(parser)
    args = parser.parse_args()
    asyncio.run(main(args.rounds, args.record))
