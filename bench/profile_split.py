"""A pool of one browser against a split pool (two browsers), side by side in one run.

    python bench/profile_split.py [--rounds 6] [--batch 10]

Two warm 2-slot local pools in one process: ``one`` (``split_browsers=False``, the pool as it
was: everything on one Chromium drawing frames on demand) and ``split`` (templates on a
template browser under begin-frame control, screenshots of URLs and custom documents on a
page browser with Chromium's 60 Hz frame clock). ``--no-begin-frame`` gives the split pool's
template browser the one browser's way of capturing instead. Each round runs one batch of each kind on each pool, the pools
in turn (A B A B, their order swapped every round) so machine noise hits both alike:

- ``shot``: ``--batch`` back-to-back screenshots of a static local page at 1280x800 (the page of
  ``bench_screenshot.py``, through the egress proxy);
- ``card 1x`` / ``card 2x``: ``--batch`` og-cards (distinct titles) at scale 1 and 2;
- ``invoice``: ``--batch`` renders of the 30-line invoice PDF.

Reported per pool and kind: the median wall time of a render (over every batch) and the
CPU per render of all the pool's Chromium processes (each browser's process group: utime,
stime and the reaped children's, from ``/proc``), the median of the batches. Then each
browser's memory (RSS and PSS of its process group) idle and after the rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))

from bench_pdf import invoice_request
from bench_screenshot import PAGE
from tests._server import serve

from renderkit import render_image, render_pdf, screenshot
from renderkit.browser import BrowserConfig, ChromiumPool

TICK = os.sysconf("SC_CLK_TCK")


def _group(pgid: int) -> list[Path]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid:
                found.append(entry)
    return found


def group_cpu(pgid: int) -> float:
    """CPU seconds of a process group so far, children it reaped included."""
    total = 0
    for entry in _group(pgid):
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(value) for value in fields[11:15])
    return total / TICK


def group_memory(pgid: int) -> tuple[float, float, int]:
    """RSS and PSS (MiB) of a process group, and how many processes it has."""
    rss = pss = 0
    entries = _group(pgid)
    for entry in entries:
        try:
            rollup = (entry / "smaps_rollup").read_text().splitlines()
        except OSError:
            continue
        for line in rollup:
            if line.startswith("Rss:"):
                rss += int(line.split()[1])
            elif line.startswith("Pss:"):
                pss += int(line.split()[1])
    return rss / 1024, pss / 1024, len(entries)


def browsers(pool: ChromiumPool) -> list[int]:
    pids = {pool.browser_pid, pool.page_browser_pid}
    return sorted(pid for pid in pids if pid is not None)


def cpu(pool: ChromiumPool) -> float:
    return sum(group_cpu(pid) for pid in browsers(pool))


def memory(name: str, pool: ChromiumPool, when: str) -> None:
    roles = {pool.browser_pid: "templates", pool.page_browser_pid: "pages"}
    if pool.browser_pid == pool.page_browser_pid:
        roles = {pool.browser_pid: "everything"}
    for pid in browsers(pool):
        rss, pss, count = group_memory(pid)
        print(
            f"memory {name:<6} {when:<12} {roles[pid]:<10} RSS {rss:6.0f} MiB  "
            f"PSS {pss:6.0f} MiB  ({count} processes)"
        )


async def main(rounds: int, batch: int, *, begin_frame: bool) -> None:
    with serve() as site:
        site.routes["/"] = (200, "text/html", PAGE)
        url = site.url("/")
        base = {"slots": 2, "allow_networks": ("127.0.0.0/8",)}
        pools = {
            "one": ChromiumPool(BrowserConfig(split_browsers=False, **base)),  # type: ignore[arg-type]
            "split": ChromiumPool(
                BrowserConfig(split_browsers=True, begin_frame_capture=begin_frame, **base)  # type: ignore[arg-type]
            ),
        }
        counter = iter(range(10**9))

        def kinds(pool: ChromiumPool) -> dict[str, Callable[[], Awaitable[object]]]:
            def card(scale: int) -> Callable[[], Awaitable[object]]:
                return lambda: render_image(
                    {
                        "template": "og-card",
                        "scale": scale,
                        "data": {"title": f"Card {next(counter)}"},
                    },
                    browser=pool,
                )

            return {
                "shot": lambda: screenshot({"url": url}, browser=pool),
                "card 1x": card(1),
                "card 2x": card(2),
                "invoice": lambda: render_pdf(invoice_request(), browser=pool),
            }

        try:
            for pool in pools.values():
                await pool.start()
            await asyncio.sleep(2)
            for name, pool in pools.items():
                memory(name, pool, "idle")
            for pool in pools.values():  # warm every kind
                for run in kinds(pool).values():
                    for _ in range(3):
                        await run()
            walls: dict[tuple[str, str], list[float]] = defaultdict(list)
            cpus: dict[tuple[str, str], list[float]] = defaultdict(list)
            for index in range(rounds):
                order = list(pools.items()) if index % 2 == 0 else list(reversed(pools.items()))
                for kind in ("shot", "card 1x", "card 2x", "invoice"):
                    for name, pool in order:
                        run = kinds(pool)[kind]
                        before = cpu(pool)
                        for _ in range(batch):
                            started = time.perf_counter()
                            await run()
                            walls[name, kind].append(time.perf_counter() - started)
                        # Let the batch's closing contexts finish and be counted.
                        await asyncio.sleep(0.3)
                        cpus[name, kind].append((cpu(pool) - before) / batch)
            for name, pool in pools.items():
                memory(name, pool, f"after {rounds * batch * 4}")
        finally:
            for pool in pools.values():
                await pool.aclose()
    print(f"{'kind':<8} {'pool':<6} {'wall ms':>8} {'cpu ms':>8}   split/one wall, cpu")
    for kind in ("shot", "card 1x", "card 2x", "invoice"):
        for name in pools:
            wall = statistics.median(walls[name, kind]) * 1000
            used = statistics.median(cpus[name, kind]) * 1000
            ratio = ""
            if name == "split":
                one_wall = statistics.median(walls["one", kind]) * 1000
                one_cpu = statistics.median(cpus["one", kind]) * 1000
                ratio = f"   {wall / one_wall:.2f}x, {used / one_cpu:.2f}x" if one_cpu else ""
            print(f"{kind:<8} {name:<6} {wall:8.1f} {used:8.1f}{ratio}")
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"load average {load} (1, 5, 15 min) on {os.cpu_count()} cores; {rounds} rounds of {batch}"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--batch", type=int, default=10)
    parser.add_argument("--no-begin-frame", action="store_true")
    args = parser.parse_args()
    asyncio.run(main(args.rounds, args.batch, begin_frame=not args.no_begin_frame))
