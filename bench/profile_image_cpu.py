"""CPU per og-card, per Chromium process type, for pools launched with different flags.

    python bench/profile_image_cpu.py [--rounds 20] [--variant "NAME=FLAG FLAG" ...] [--burst]

Every variant is a warm 2-slot pool of its own Chromium with ``BrowserConfig.extra_args``
added (the first, "baseline", with none); a flag written ``!FLAG`` is instead taken out of
the pool's own flags (``!--disable-frame-rate-limit``: the pool keeps Chromium's 60 Hz frame
clock, ``BrowserConfig.frame_rate_limit``). Rounds alternate between the variants (A B A B)
so machine noise hits each alike; a round renders one og-card at scale 1 and one at 2.
Reported per variant and scale: the median wall time, and the mean CPU per card of each
Chromium process type (browser, gpu, renderer, other helpers), of the Playwright driver and
of Python itself, read from every thread's ``schedstat`` (nanoseconds) before and after each
render. ``--burst`` adds 4 clients rendering distinct cards at scale 2 (renders/s).

Before timing, every template and background is rendered at scale 1 and 2 with each variant
and its decoded pixels compared with the baseline's: a flag that changes a pixel is marked
(the baseline itself is not quite deterministic: a repeated 1x render now and then differs by
one level in a couple of bytes; compare with a second, unflagged variant, ``--variant same=``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import os
import re
import statistics
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from PIL import Image

from renderkit import render_image
from renderkit.browser import BrowserConfig, ChromiumPool, _process

DATA = {
    "tag": "Release 1.0",
    "title": "Render anything from JSON, in milliseconds",
    "subtitle": "Images, PDFs, screenshots, speech and parsing behind one API.",
    "domain": "renderkit.dev",
}
TEMPLATES = ("og-card", "twitter-card", "social-square", "announcement")
BACKGROUNDS = ("dark", "light", "gradient")
KINDS = ("browser", "gpu", "renderer", "other", "driver", "python")


def _kind(pid: int, chromium: int) -> str | None:
    """The process type of ``pid`` in Chromium's group (None: not Chromium's)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    if int(stat.rsplit(")", 1)[1].split()[2]) != chromium:  # the process group
        return None
    # A zygote's children rewrite their command line into one string: search, not split.
    found = re.search(rb"--type=([\w-]+)", cmdline)
    if found is None:
        return "browser"
    kind = found.group(1).decode()
    if kind == "gpu-process":
        return "gpu"
    return "renderer" if kind == "renderer" else "other"


def _driver() -> list[int]:
    """The Playwright driver (node), Python's child."""
    me = os.getpid()
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                stat = Path(f"/proc/{entry}/stat").read_text()
                if int(stat.rsplit(")", 1)[1].split()[1]) == me and "node" in stat:
                    found.append(int(entry))
    return found


def _cpu(pid: int) -> float:
    total = 0
    with contextlib.suppress(OSError):
        for tid in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError, ValueError, IndexError):
                total += int(Path(f"/proc/{pid}/task/{tid}/schedstat").read_text().split()[0])
    return total / 1e9


def snapshot(chromium: int, drivers: list[int], *, after: bool) -> dict[str, float]:
    """CPU seconds so far by process type (processes that exited since are not counted).

    Python's own time is read at the edge nearest the render (last before it, first after
    it), so the reading of /proc is not counted as the render's.
    """
    totals: dict[str, float] = defaultdict(float)
    if after:
        totals["python"] = _cpu(os.getpid())
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            kind = _kind(int(entry), chromium)
            if kind is not None:
                totals[kind] += _cpu(int(entry))
    totals["driver"] = sum(_cpu(pid) for pid in drivers)
    if not after:
        totals["python"] = _cpu(os.getpid())
    return totals


def pixels(png: bytes) -> bytes:
    return Image.open(io.BytesIO(png)).convert("RGBA").tobytes()


def _difference(a: bytes, b: bytes) -> tuple[int, int]:
    """How many channel bytes differ, and by at most how many levels."""
    if len(a) != len(b):
        return max(len(a), len(b)), 255
    diffs = [abs(x - y) for x, y in zip(a, b, strict=True) if x != y]
    return len(diffs), max(diffs)


async def check_pixels(pools: dict[str, ChromiumPool]) -> dict[str, list[str]]:
    """Variant -> the (template, background, scale) cases whose pixels differ from baseline."""
    differs: dict[str, list[str]] = defaultdict(list)
    for template in TEMPLATES:
        for background in BACKGROUNDS:
            for scale in (1, 2):
                body = {
                    "template": template,
                    "data": {**DATA, "background": background},
                    "scale": scale,
                }
                base = None
                for name, pool in pools.items():
                    got = pixels((await render_image(body, browser=pool)).content)
                    if base is None:
                        base = got
                    elif got != base:
                        count, worst = _difference(got, base)
                        differs[name].append(
                            f"{template}/{background}@{scale}x ({count} bytes, <= {worst})"
                        )
    return differs


async def burst(pool: ChromiumPool, total: int) -> float:
    counter = iter(range(total))

    async def client() -> None:
        for n in counter:
            data = {**DATA, "title": f"{DATA['title']} #{n}"}
            await render_image({"template": "og-card", "data": data, "scale": 2}, browser=pool)

    t = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(4)))
    return total / (time.perf_counter() - t)


async def main(args: argparse.Namespace) -> None:
    variants: dict[str, tuple[str, ...]] = {"baseline": ()}
    for spec in args.variant:
        name, _, flags = spec.partition("=")
        variants[name] = tuple(flags.split())
    pools: dict[str, ChromiumPool] = {}
    async with contextlib.AsyncExitStack() as stack:
        base_args = _process._BASE_ARGS
        for name, flags in variants.items():
            # "!FLAG" takes FLAG out of the pool's own flags, for this variant only.
            dropped = {f[1:] for f in flags if f.startswith("!")}
            _process._BASE_ARGS = tuple(a for a in base_args if a not in dropped)
            config = BrowserConfig(
                slots=2,
                extra_args=tuple(f for f in flags if f[0] != "!"),
                frame_rate_limit=_process.UNLIMITED_FRAMES in dropped,
            )
            try:
                pools[name] = await stack.enter_async_context(ChromiumPool(config))
            finally:
                _process._BASE_ARGS = base_args
        differs = await check_pixels(pools)
        drivers = _driver()
        walls: dict[tuple[str, int], list[float]] = defaultdict(list)
        cpus: dict[tuple[str, int, str], list[float]] = defaultdict(list)
        rates: dict[str, list[float]] = defaultdict(list)
        for warm in range(args.rounds + 3):
            for name, pool in pools.items():
                pid = pool.browser_pid
                assert pid is not None
                for scale in (1, 2):
                    data: dict[str, Any] = {**DATA, "title": f"{DATA['title']} {warm}"}
                    body = {"template": "og-card", "data": data, "scale": scale}
                    before = snapshot(pid, drivers, after=False)
                    t = time.perf_counter()
                    await render_image(body, browser=pool)
                    wall = time.perf_counter() - t
                    after = snapshot(pid, drivers, after=True)
                    if warm >= 3:
                        walls[name, scale].append(wall)
                        for kind in KINDS:
                            cpus[name, scale, kind].append(after[kind] - before[kind])
                if args.burst and warm % 5 == 4:
                    rates[name].append(await burst(pool, 24))
        load = "load {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())
    print(f"{'variant':<28} sc  wall ms  cpu ms: " + " ".join(f"{k:>8}" for k in KINDS) + "   sum")
    for name in variants:
        for scale in (1, 2):
            per = [statistics.mean(cpus[name, scale, k]) * 1000 for k in KINDS]
            wall = statistics.median(walls[name, scale]) * 1000
            cols = " ".join(f"{v:8.1f}" for v in per)
            print(f"{name:<28} {scale}x {wall:7.1f}          {cols} {sum(per):6.1f}")
        if rates[name]:
            print(f"{name:<28} 4 clients @2x: {statistics.median(rates[name]):.1f}/s")
        if differs.get(name):
            print(f"  PIXELS DIFFER: {', '.join(differs[name])}")
    print(f"({load}; {args.rounds} rounds; flags: {variants})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument(
        "--variant", action="append", default=[], help="NAME=FLAG FLAG (space-separated)"
    )
    parser.add_argument("--burst", action="store_true")
    asyncio.run(main(parser.parse_args()))
