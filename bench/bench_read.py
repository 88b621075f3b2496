"""Benchmark: reading web pages as Markdown, renderkit's read_page vs trafilatura alone.

    python bench/bench_read.py [--rounds 3] [--record bench/results.toml]

The pages are the fixtures of ``tests/reading/pages``: eight articles wrapped in navigation,
sidebars, footers, cookie banners and ads (one built by script after load, one in French),
each with its main text written out by hand. Both sides go from a URL served on 127.0.0.1 to
Markdown, in the same run, page by page:

- renderkit: ``read_page`` on a warm two-slot pool (the page loads in Chromium, scripts run,
  hidden elements go, then trafilatura extracts from the rendered DOM);
- the peer: trafilatura alone, the usual way: fetch the HTML source over HTTP (httpx) and
  ``trafilatura.extract(output_format="markdown")`` with links, tables and images.

Quality is token precision and recall (bags of lower-cased words, Markdown link targets left
out) against the expected text; speed is seconds per document, medians over the rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

import httpx
import trafilatura

sys.path.insert(0, str(Path(__file__).parents[1]))

from _record import add_record_option, record
from tests._server import serve
from tests.reading._pages import (
    PAGE_NAMES,
    PAGE_OPTIONS,
    Score,
    expected_text,
    page_html,
    score,
)

from renderkit import read_page
from renderkit.browser import BrowserConfig, ChromiumPool


def _alone(client: httpx.Client, url: str) -> str:
    html = client.get(url).text
    text = trafilatura.extract(
        html,
        url=url,
        output_format="markdown",
        include_links=True,
        include_tables=True,
        include_images=True,
    )
    return text or ""


def _mean(scores: list[Score], field: str) -> float:
    return statistics.fmean(getattr(s, field) for s in scores)


async def main(rounds: int, record_to: Path | None) -> None:
    ours: dict[str, list[float]] = {name: [] for name in PAGE_NAMES}
    theirs: dict[str, list[float]] = {name: [] for name in PAGE_NAMES}
    our_scores: dict[str, Score] = {}
    their_scores: dict[str, Score] = {}
    with serve() as site, httpx.Client(timeout=30) as client:
        for name in PAGE_NAMES:
            site.routes[f"/{name}"] = (200, "text/html; charset=utf-8", page_html(name))
        config = BrowserConfig(slots=2, allow_private_network=True)
        async with ChromiumPool(config) as pool:
            await read_page({"url": site.url("/news")}, browser=pool)  # warm up
            _alone(client, site.url("/news"))
            for _ in range(rounds):
                for name in PAGE_NAMES:
                    url = site.url(f"/{name}")
                    t = time.perf_counter()
                    page = await read_page({"url": url, **PAGE_OPTIONS.get(name, {})}, browser=pool)
                    ours[name].append(time.perf_counter() - t)
                    our_scores[name] = score(expected_text(name), page.content)
                    t = time.perf_counter()
                    text = await asyncio.to_thread(_alone, client, url)
                    theirs[name].append(time.perf_counter() - t)
                    their_scores[name] = score(expected_text(name), text)
    print(f"{'page':10} {'renderkit P/R':>15} {'s/doc':>7}   {'trafilatura P/R':>15} {'s/doc':>7}")
    for name in PAGE_NAMES:
        a, b = our_scores[name], their_scores[name]
        print(
            f"{name:10} {a.precision:7.3f}/{a.recall:.3f} {statistics.median(ours[name]):7.3f}"
            f"   {b.precision:7.3f}/{b.recall:.3f} {statistics.median(theirs[name]):7.3f}"
        )
    our_seconds = statistics.median(s for times in ours.values() for s in times)
    their_seconds = statistics.median(s for times in theirs.values() for s in times)
    ours_all, theirs_all = list(our_scores.values()), list(their_scores.values())
    print(
        f"mean precision/recall: renderkit {_mean(ours_all, 'precision'):.3f}/"
        f"{_mean(ours_all, 'recall'):.3f}, trafilatura alone {_mean(theirs_all, 'precision'):.3f}/"
        f"{_mean(theirs_all, 'recall'):.3f}"
    )
    print(f"median s/doc: renderkit {our_seconds:.3f}, trafilatura alone {their_seconds:.3f}")
    pages = len(PAGE_NAMES)
    record(
        record_to,
        benchmark="bench_read.py",
        case=f"read: {pages} local fixture pages to Markdown, seconds per document",
        unit="s",
        renderkit=our_seconds,
        peer="trafilatura 2.3 alone (HTTP fetch of the source + extract), same pages",
        peer_median=their_seconds,
        notes=(
            f"{rounds} rounds, medians; mean token precision/recall renderkit "
            f"{_mean(ours_all, 'precision'):.3f}/{_mean(ours_all, 'recall'):.3f}, trafilatura "
            f"alone {_mean(theirs_all, 'precision'):.3f}/{_mean(theirs_all, 'recall'):.3f}; "
            "renderkit's time includes loading each page in Chromium"
        ),
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    add_record_option(parser)
    args = parser.parse_args()
    asyncio.run(main(args.rounds, args.record))
