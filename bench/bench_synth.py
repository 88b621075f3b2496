"""Benchmark: the synthetic document factory, 100 invoice PDFs and 100 receipt PNGs.

    python bench/bench_synth.py [--count 100] [--record bench/results.toml]

One process, one warm 2-slot ChromiumPool. Reports the wall time of each batch and its CPU:
this process's plus every Chromium process's (read from /proc), so the figure means something
on a shared machine where the wall clock mostly measures the neighbours.
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

import anyio
from _record import add_record_option, record

from renderkit.browser import BrowserConfig, ChromiumPool
from renderkit.parsing.synth import build_set

TICK = os.sysconf("SC_CLK_TCK")


def descendants_cpu(root: int) -> float:
    """CPU seconds of every live descendant of ``root`` (and of their reaped children)."""
    children: dict[int, list[int]] = {}
    stats: dict[int, list[str]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        stats[int(entry)] = fields
        children.setdefault(int(fields[1]), []).append(int(entry))
    total, todo = 0.0, list(children.get(root, []))
    while todo:
        pid = todo.pop()
        f = stats[pid]
        total += sum(int(x) for x in f[11:15]) / TICK  # utime stime cutime cstime
        todo += children.get(pid, [])
    return total


def own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def main(count: int, record_to: Path | None) -> None:
    async with ChromiumPool(BrowserConfig(slots=2)) as browser:
        with tempfile.TemporaryDirectory() as out:
            for kind in ("invoice", "receipt"):
                await build_set(kind, 2, 99, Path(out), browser=browser)  # warm pages
                browser_before, own_before = descendants_cpu(os.getpid()), own_cpu()
                started = time.perf_counter()
                await build_set(kind, count, 5, Path(out), browser=browser, concurrency=4)
                wall = time.perf_counter() - started
                chromium = descendants_cpu(os.getpid()) - browser_before
                python = own_cpu() - own_before
                print(
                    f"{count} {kind}s: wall {wall:.1f} s, CPU {python + chromium:.1f} s "
                    f"(Python {python:.1f} s, Chromium {chromium:.1f} s), "
                    f"load {os.getloadavg()[0]:.1f}"
                )
                record(
                    record_to,
                    benchmark="bench_synth",
                    case=f"{count} synthetic {kind}s, warm 2-slot pool, no photos",
                    unit="s",
                    renderkit=wall,
                    notes=f"CPU {python + chromium:.1f} s (Chromium {chromium:.1f} s)",
                )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=100)
    add_record_option(parser)
    args = parser.parse_args()
    anyio.run(main, args.count, args.record)
