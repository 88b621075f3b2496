"""Where a back-to-back screenshot's time goes, phase by phase, next to a warm Playwright page.

    python bench/profile_shot_phases.py [--rounds 15] [--batches 4]

One split pool (the page browser's spares, its egress proxy and doors) and one warm
Playwright page on the same binary, in one process, capturing the static page of
``bench_screenshot.py`` in batches of back-to-back captures taken in turn (A B A B). Every
phase is stamped on one clock (``time.time``, as Chromium's resource timing is): the capture's
start, taking the spare, ``goto`` called, the proxy door accepting Chromium's connection and
having read its request, the upstream connection made, the server seeing the request, Chromium's
own timing of the request (its start, the connection to the proxy or server, the request sent
and the response's first byte), ``goto`` back (the load event), the static-page check and the
screenshot. Medians per phase over all batches, milliseconds from the capture's ``goto`` call.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import os
import statistics
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parents[1]))

from bench_screenshot import PAGE
from playwright.async_api import Request, async_playwright
from tests._server import serve

from renderkit import screenshot
from renderkit.browser import BrowserConfig, ChromiumPool
from renderkit.browser import _capture as capture_steps
from renderkit.browser import _egress as egress
from renderkit.browser._page import Slot

#: Stamps of the capture under way, by phase (one capture at a time).
stamps: dict[str, float] = {}


def stamp(phase: str) -> None:
    stamps.setdefault(phase, time.time())


def wrap_async(owner: Any, name: str, before: str | None, after: str | None) -> None:
    original = getattr(owner, name)

    async def wrapped(*args: Any, **kwargs: Any) -> Any:
        if before:
            stamp(before)
        result = await original(*args, **kwargs)
        if after:
            stamp(after)
        return result

    setattr(owner, name, wrapped)


def instrument() -> None:
    wrap_async(capture_steps, "_navigate", "goto called", "goto returned (load)")
    wrap_async(capture_steps, "_is_static", None, "static check done")
    wrap_async(Slot, "capture", None, "screenshot done")
    wrap_async(egress.EgressProxy, "_check", "door read the request", "policy checked")
    wrap_async(egress, "_pipe_both", "upstream connected, request forwarded", None)
    original_handle = egress.EgressProxy._handle

    async def handle(self: Any, *args: Any) -> None:
        stamp("door accepted the connection")
        await original_handle(self, *args)

    egress.EgressProxy._handle = handle  # type: ignore[method-assign]


def chromium_timing(request: Request) -> None:
    """Chromium's resource timing of the page's request (milliseconds from its start)."""
    timing = request.timing
    start = timing["startTime"] / 1000
    stamps.setdefault("chromium: request started", start)
    for key, label in (
        ("connectStart", "chromium: connecting"),
        ("connectEnd", "chromium: connected"),
        ("requestStart", "chromium: request sent"),
        ("responseStart", "chromium: first response byte"),
    ):
        if timing[key] >= 0:  # type: ignore[literal-required]
            stamps.setdefault(label, start + timing[key] / 1000)  # type: ignore[literal-required]


def served(_: object) -> tuple[int, str, bytes]:
    stamp("server saw the request")
    return (200, "text/html", PAGE)


@contextlib.asynccontextmanager
async def no_background(pool: ChromiumPool, rounds: int) -> AsyncIterator[None]:
    """A what-if bound, not the pool's behaviour: the batch's spares all made before it and
    its contexts closed after it, so no capture shares the machine with either."""
    slots = pool._pages.slots
    profile = next(iter(slots._spares))
    refill, retire = slots._refill_spares, slots._retire
    slots._spare_contexts = rounds + 2
    refill(profile)
    await asyncio.gather(*slots._spares[profile])
    used: list[Slot] = []
    slots._refill_spares = lambda _: None  # type: ignore[method-assign]
    slots._retire = lambda slot, lease, hung: used.append(slot)  # type: ignore[method-assign,misc]
    try:
        yield
    finally:
        slots._refill_spares, slots._retire = refill, retire  # type: ignore[method-assign]
        slots._spare_contexts = pool.config.spare_contexts
        lifecycle = pool._pages.lifecycle
        for slot in used:
            await lifecycle.close_slot(slot, hung=False)
        spares = slots._spares[profile]
        while len(spares) > slots._spare_contexts:
            await lifecycle.close_slot(await spares.pop(), hung=False)


async def run(rounds: int, batches: int, *, bound: bool) -> None:
    instrument()
    results: dict[str, dict[str, list[float]]] = collections.defaultdict(
        lambda: collections.defaultdict(list)
    )
    with serve() as site:
        site.routes["/"] = served
        url = site.url("/")
        config = BrowserConfig(slots=2, allow_networks=("127.0.0.0/8",))
        async with ChromiumPool(config) as pool, async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=config.executable_path)
            page = await browser.new_page(viewport={"width": 1280, "height": 800})
            page.on("requestfinished", chromium_timing)
            watched: set[int] = set()
            original_shoot = capture_steps.shoot

            async def shoot(slot: Slot, *args: Any) -> Any:
                stamp("spare taken")
                if id(slot.page) not in watched:
                    watched.add(id(slot.page))
                    slot.page.on("requestfinished", chromium_timing)
                return await original_shoot(slot, *args)

            capture_steps.shoot = shoot

            async def ours() -> None:
                await screenshot({"url": url}, browser=pool)

            async def theirs() -> None:
                stamp("goto called")
                await page.goto(url)
                stamp("goto returned (load)")
                await page.screenshot()
                stamp("screenshot done")

            async def batch(name: str, action: Callable[[], Any]) -> None:
                for _ in range(rounds):
                    stamps.clear()
                    started = time.time()
                    await action()
                    ended = time.time()
                    await asyncio.sleep(0.05)  # late events (request timing) come in
                    zero = stamps.get("goto called", started)
                    results[name]["capture started"].append(started - zero)
                    for phase, at in stamps.items():
                        results[name][phase].append(at - zero)
                    results[name]["capture returned"].append(ended - zero)

            for _ in range(3):
                await ours()
                await theirs()
            for _ in range(batches):
                await batch("renderkit, back to back", ours)
                if bound:
                    async with no_background(pool, rounds):
                        await batch("renderkit, spares made before, closes after", ours)
                await batch("warm Playwright page", theirs)
            await browser.close()
    for name, phases in results.items():
        total = statistics.median(
            r - s
            for r, s in zip(phases["capture returned"], phases["capture started"], strict=True)
        )
        print(f"== {name}: {total * 1000:.1f} ms a capture (median)")
        ordered = sorted(phases.items(), key=lambda kv: statistics.median(kv[1]))
        for phase, values in ordered:
            low, mid, high = (
                statistics.quantiles(values, n=4)[0],
                statistics.median(values),
                statistics.quantiles(values, n=4)[2],
            )
            print(
                f"   {phase:<42} {mid * 1000:7.1f} ms  (quartiles {low * 1000:6.1f} .. "
                f"{high * 1000:6.1f}, n={len(values)})"
            )
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"load average {load} on {os.cpu_count()} cores; ms from goto called")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--batches", type=int, default=4)
    parser.add_argument(
        "--bound",
        action="store_true",
        help="also a batch whose spares were all made before it and closed after it",
    )
    args = parser.parse_args()
    asyncio.run(run(args.rounds, args.batches, bound=args.bound))
