"""Benchmark: render_many on 50 mixed jobs vs a naive sequential loop over the same jobs.

    python bench/bench_batch.py [--rounds 3] [--concurrency 4] [--slots 2] [--record bench/results.toml]

The 50 jobs: 30 images (four templates, distinct titles), 10 PDFs (invoice, report,
certificate, letter), 5 speech clips and 5 screenshots of a page served locally. Both sides
use the same warm pool; the loop awaits one job after another, render_many keeps
``--concurrency`` in flight. Rounds alternate between the two; medians of the whole batch.
"""

from __future__ import annotations

import argparse
import asyncio
import http.server
import statistics
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from _record import add_record_option, record

from renderkit import render_image, render_many, render_pdf, screenshot, synthesize
from renderkit.browser import BrowserConfig, ChromiumPool

PAGE = b"""<!doctype html><html><body style="font:18px sans-serif;margin:40px">
<h1>Release notes</h1><p>Batch rendering, readable file names and a progress bar.</p>
<ul><li>one pool</li><li>bounded concurrency</li><li>resumable</li></ul></body></html>"""


@contextmanager
def local_page() -> Iterator[str]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.send_header("content-length", str(len(PAGE)))
            self.end_headers()
            self.wfile.write(PAGE)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()


def mixed_jobs(url: str, round_: int) -> list[dict[str, Any]]:
    templates = ["og-card", "social-square", "twitter-card", "announcement"]
    jobs: list[dict[str, Any]] = []
    for i in range(30):
        data = {"title": f"Post {round_}-{i}: shipping batch renders", "tag": "Blog"}
        jobs.append({"kind": "image", "request": {"template": templates[i % 4], "data": data}})
    pdfs = [
        (
            "invoice",
            {
                "invoice_number": "INV-{n}",
                "client_name": "Contoso",
                "line_items": [{"description": "Design", "quantity": 2, "unit_price": 1500}],
            },
        ),
        (
            "report",
            {
                "title": "Quarterly report {n}",
                "sections": [{"heading": "Summary", "body": "Revenue grew. " * 40}],
            },
        ),
        ("certificate", {"recipient_name": "Ada {n}", "course_name": "Batch rendering"}),
        (
            "letter",
            {"recipient_name": "Grace {n}", "subject": "Hello", "body": "Dear Grace. " * 30},
        ),
    ]
    for i in range(10):
        template, data = pdfs[i % 4]
        filled = {
            k: v.format(n=f"{round_}-{i}") if isinstance(v, str) else v for k, v in data.items()
        }
        jobs.append({"kind": "pdf", "request": {"template": template, "data": filled}})
    for i in range(5):
        script = f"Clip {round_} {i}: your batch of renders has finished."
        jobs.append({"kind": "audio", "request": {"script": script}})
    for i in range(5):
        jobs.append({"kind": "screenshot", "request": {"url": f"{url}?r={round_}-{i}"}})
    return jobs


async def sequential(jobs: list[dict[str, Any]], pool: ChromiumPool) -> None:
    for job in jobs:
        request = job["request"]
        if job["kind"] == "image":
            await render_image(request, browser=pool)
        elif job["kind"] == "pdf":
            await render_pdf(request, browser=pool)
        elif job["kind"] == "audio":
            await synthesize(request)
        else:
            await screenshot(request, browser=pool)


async def main(rounds: int, concurrency: int, slots: int, record_to: Path | None) -> None:
    with local_page() as url:
        config = BrowserConfig(slots=slots, allow_private_network=True)
        async with ChromiumPool(config) as pool:
            outcomes = await render_many(mixed_jobs(url, -1), browser=pool)  # warm up
            failed = [o.error for o in outcomes if not o.ok]
            assert not failed, failed
            ours, loop = [], []
            for r in range(rounds):
                t = time.perf_counter()
                outcomes = await render_many(
                    mixed_jobs(url, 2 * r), browser=pool, concurrency=concurrency
                )
                ours.append(time.perf_counter() - t)
                assert all(o.ok for o in outcomes)
                t = time.perf_counter()
                await sequential(mixed_jobs(url, 2 * r + 1), pool)
                loop.append(time.perf_counter() - t)
    print(f"50 mixed jobs, pool of {slots} slots, {rounds} rounds")
    print(f"render_many (concurrency {concurrency})  median {statistics.median(ours):6.2f} s")
    print(f"sequential loop                median {statistics.median(loop):6.2f} s")
    print(f"loop time / render_many time: {statistics.median(loop) / statistics.median(ours):.2f}")
    record(
        record_to,
        benchmark="bench_batch.py",
        case="50 mixed jobs (30 images, 10 PDFs, 5 speech clips, 5 local screenshots), "
        f"render_many at concurrency {concurrency}, warm {slots}-slot pool",
        unit="s",
        renderkit=statistics.median(ours),
        peer="a sequential loop over the same jobs, same pool",
        peer_median=statistics.median(loop),
        notes=f"{rounds} rounds; medians of the whole batch",
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--slots", type=int, default=2)
    add_record_option(parser)
    args = parser.parse_args()
    asyncio.run(main(args.rounds, args.concurrency, args.slots, args.record))
