"""Template renders on one template browser drawing on demand against one begin-frame
browser per slot, side by side in one run.

    python bench/profile_template_browsers.py [--rounds 8] [--memory 400]

Two warm 2-slot split pools in one process: ``on-demand`` (``begin_frame_capture=False``:
one template browser, frames drawn when a capture asks) and ``per-slot`` (the default: a
template browser under begin-frame control for each slot). Each round, the pools in turn
(A B A B, the order swapped every round): a burst of 4 clients rendering 40 distinct og-cards
at 2x, then 10 cards at 1x and 10 at 2x one at a time. Reported per pool: the burst's
renders per second (median and every round), the Chromium CPU per card of the burst (all the
pool's browsers' process groups) and the median wall time and CPU of a card alone.

With ``--memory N``, then each pool alone in a process of its own (so no other pool's
browsers share its libraries' pages): N og-cards alternating 1x and 2x from 4 clients, and
each browser's RSS and PSS before and after (MiB), with the PSS of the Playwright drivers
(one per browser).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))

from bench_image import DATA
from profile_split import group_cpu, group_memory

from renderkit import render_image
from renderkit.browser import BrowserConfig, ChromiumPool

CONFIGS = {
    "on-demand": BrowserConfig(slots=2, begin_frame_capture=False),
    "per-slot": BrowserConfig(slots=2, begin_frame_capture=True),
}
_counter = iter(range(10**9))


def _pids(pool: ChromiumPool) -> list[int]:
    # The template browsers', then the page browser's (the same one unless split).
    pids = [*pool.template_browser_pids, pool.page_browser_pid]
    return [pid for n, pid in enumerate(pids) if pid and pid not in pids[:n]]


def _cpu(pool: ChromiumPool) -> float:
    return sum(group_cpu(os.getpgid(pid)) for pid in _pids(pool))


async def _card(pool: ChromiumPool, scale: int) -> None:
    title = f"{DATA['title']} #{next(_counter)}"
    request = {"template": "og-card", "data": {**DATA, "title": title}, "scale": scale}
    await render_image(request, browser=pool)


async def _burst(pool: ChromiumPool, total: int, scales: tuple[int, ...] = (2,)) -> float:
    left = iter(range(total))

    async def client() -> None:
        for n in left:
            await _card(pool, scales[n % len(scales)])

    started = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(4)))
    return total / (time.perf_counter() - started)


async def _alone(pool: ChromiumPool, scale: int, count: int) -> tuple[float, float]:
    """Median wall time and mean Chromium CPU (ms) of ``count`` cards one at a time."""
    walls = []
    before = _cpu(pool)
    for _ in range(count):
        started = time.perf_counter()
        await _card(pool, scale)
        walls.append((time.perf_counter() - started) * 1000)
    return statistics.median(walls), (_cpu(pool) - before) / count * 1000


async def compare(rounds: int) -> None:
    pools = {name: ChromiumPool(config) for name, config in CONFIGS.items()}
    figures: dict[str, dict[str, list[float]]] = {
        name: {key: [] for key in ("rate", "cpu", "1x", "cpu1", "2x", "cpu2")} for name in pools
    }
    try:
        for pool in pools.values():
            await pool.start()
            await _burst(pool, 12)
            await _alone(pool, 1, 3)
        for round_ in range(rounds):
            order = list(pools.items())
            for name, pool in order if round_ % 2 == 0 else reversed(order):
                got = figures[name]
                before = _cpu(pool)
                got["rate"].append(await _burst(pool, 40))
                got["cpu"].append((_cpu(pool) - before) / 40 * 1000)
                for scale in (1, 2):
                    wall, cpu = await _alone(pool, scale, 10)
                    got[f"{scale}x"].append(wall)
                    got[f"cpu{scale}"].append(cpu)
    finally:
        for pool in pools.values():
            await pool.aclose()
    for name, got in figures.items():
        med = {key: statistics.median(values) for key, values in got.items()}
        rates = ", ".join(f"{rate:.1f}" for rate in got["rate"])
        print(
            f"{name:<10} 4 clients at 2x {med['rate']:5.1f}/s ({rates}), "
            f"{med['cpu']:5.1f} ms CPU/card | alone: 1x {med['1x']:5.1f} ms, "
            f"{med['cpu1']:5.1f} CPU; 2x {med['2x']:5.1f} ms, {med['cpu2']:5.1f} CPU"
        )
    print("load {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()))


def _pss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1]) // 1024
    return 0


def _drivers() -> list[int]:
    """PSS (MiB) of this process's Playwright drivers."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            if parent == os.getpid() and b"playwright" in (entry / "cmdline").read_bytes():
                found.append(_pss(int(entry.name)))
        except (OSError, ValueError):
            continue
    return found


async def memory(name: str, cards: int) -> None:
    async with ChromiumPool(CONFIGS[name]) as pool:
        pids = _pids(pool)

        def browsers() -> str:
            sizes = [group_memory(os.getpgid(pid))[:2] for pid in pids]
            return ", ".join(f"{rss:.0f}/{pss:.0f}" for rss, pss in sizes)

        idle = browsers()
        rate = await _burst(pool, cards, scales=(1, 2))
        print(
            f"{name:<10} {cards} mixed cards at {rate:.1f}/s; RSS/PSS MiB per browser "
            f"(templates, then pages) idle {idle}, after {browsers()}; "
            f"Playwright drivers' PSS {_drivers()}"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--memory", type=int, default=0)
    parser.add_argument("--only-memory", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.only_memory:
        asyncio.run(memory(args.only_memory, args.memory))
        return
    asyncio.run(compare(args.rounds))
    if args.memory:
        for name in CONFIGS:
            command = [sys.executable, __file__, "--memory", str(args.memory)]
            subprocess.run([*command, "--only-memory", name], check=True)


if __name__ == "__main__":
    main()
