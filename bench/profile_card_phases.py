"""Where one warm og-card's wall time goes, phase by phase, on the pool's default path.

    python bench/profile_card_phases.py [--cards 60] [--scale 1] [--runs 1] [--what-if 40]

A started pool (split, begin-frame capture, one template browser per slot), warmed, then
``--cards`` og-cards rendered one at a time through ``render_image`` (distinct titles, as
clients send), ``--runs`` times. Every step of the path is stamped with
``time.perf_counter`` around its await (the request model, the Jinja fragment, the pool's
lease and page, the shell and framing checks, the in-page render, the frame, the PNG's
size), every DevTools message on the slot's direct connection is timed from send to reply
(with its reply's size and the time its JSON took to parse), and the in-page render times
itself with ``performance.now()`` (read back after the card, outside its time). Prints the
median of each phase per card and the DevTools messages per card.

Then, ``--what-if`` rounds over raw DevTools on one of the pool's warm pages (the same
fragments, ``window.__rk.render`` then ``beginFrame`` as ``Slot._draw`` sends it), in turn:

- the frame alone: a card's frame drawn without a screenshot, against one with the pool's
  PNG screenshot and one with a JPEG (quality 80), each after a render of its own;
- one round trip fewer: ``beginFrame`` sent right behind the render's ``Runtime.evaluate``
  without waiting for its reply, timed, and its decoded pixels compared with the same card
  rendered and drawn the pool's way just after (the same card twice is drawn identically:
  checked too);
- inside the render: a copy of ``render.js`` with ``performance.now()`` stamps (coarsened to
  0.1 ms by Chromium) and a count of the ``overflows`` checks (each after a size change is a
  forced layout), evaluated into the page in place of the shell's.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import collections
import io
import json
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import attrs
from PIL import Image

from renderkit import render_image
from renderkit.browser import ChromiumPool
from renderkit.browser import _capture as capture_steps
from renderkit.browser import _cdp as cdp_module
from renderkit.browser._cdp import DirectCdp
from renderkit.browser._fair import FairScheduler
from renderkit.browser._page import Slot
from renderkit.browser._slots import SlotPool
from renderkit.browser._watch import RenderWatch
from renderkit.core.converter import structure
from renderkit.core.shell import renderer_script
from renderkit.image import _render as render_module
from renderkit.image._models import ImageRequest
from renderkit.image._templates import render_fragment

DATA = {
    "tag": "Release 1.0",
    "title": "Render anything from JSON, in milliseconds",
    "subtitle": "Images, PDFs, screenshots, speech and parsing behind one API.",
    "domain": "renderkit.dev",
}

#: Seconds per phase of the card under way (summed when a phase runs more than once).
phases: dict[str, float] = collections.defaultdict(float)
#: (method, seconds from send to reply, reply characters) of the card under way.
messages: list[tuple[str, float, int]] = []
parse_time = [0.0]


def timed_async(owner: Any, name: str, phase: str) -> Callable[[], None]:
    original = getattr(owner, name)

    async def wrapped(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return await original(*args, **kwargs)
        finally:
            phases[phase] += time.perf_counter() - start

    setattr(owner, name, wrapped)
    return lambda: setattr(owner, name, original)


def timed_sync(owner: Any, name: str, phase: str) -> Callable[[], None]:
    original = getattr(owner, name)

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            phases[phase] += time.perf_counter() - start

    setattr(owner, name, wrapped)
    return lambda: setattr(owner, name, original)


class _TimedJson:
    """``json`` as ``_cdp`` uses it, timing every reply's parse."""

    dumps = staticmethod(json.dumps)

    @staticmethod
    def loads(raw: str | bytes) -> Any:
        start = time.perf_counter()
        try:
            return json.loads(raw)
        finally:
            parse_time[0] += time.perf_counter() - start


def instrument() -> list[Callable[[], None]]:
    undo = [
        timed_sync(render_module, "structure", "request model (cattrs)"),
        timed_sync(render_module, "render_fragment", "Jinja fragment"),
        timed_sync(render_module, "_pixel_size", "PNG size (Pillow header)"),
        timed_async(render_module, "attach_storage", "storage (none)"),
        timed_async(ChromiumPool, "capture_fragment", "pool: capture_fragment (all)"),
        timed_async(FairScheduler, "acquire", "pool: lease"),
        timed_async(SlotPool, "_take_idle", "pool: warm page taken"),
        timed_async(RenderWatch, "run", "pool: watch.run (all work)"),
        timed_async(capture_steps, "load_shell", "slot: load_shell (warm: no-op)"),
        timed_async(Slot, "frame", "slot: frame (warm: no-op)"),
        timed_async(capture_steps, "inject", "slot: inject (window.__rk.render)"),
        timed_async(Slot, "_draw", "slot: beginFrame + screenshot (all)"),
    ]
    original_send = DirectCdp.send

    async def send(self: DirectCdp, method: str, params: dict[str, Any] | None = None) -> Any:
        start = time.perf_counter()
        reply = await original_send(self, method, params)
        size = len(json.dumps(reply)) if method.startswith("Headless") else 0
        messages.append((method, time.perf_counter() - start, size))
        return reply

    DirectCdp.send = send  # type: ignore[method-assign]
    undo.append(lambda: setattr(DirectCdp, "send", original_send))
    cdp_module.json = _TimedJson  # type: ignore[assignment]
    undo.append(lambda: setattr(cdp_module, "json", json))
    return undo


#: Wraps the page's renderer so it times itself (performance.now, in the page).
PAGE_TIMER = """(() => {
  if (window.__rkTimed) return;
  const render = window.__rk.render;
  window.__rkTimed = [];
  window.__rk.render = async (...args) => {
    const t = performance.now();
    try { return await render(...args); }
    finally { window.__rkTimed.push(performance.now() - t); }
  };
})()"""


async def page_times(pool: ChromiumPool) -> list[float]:
    """The in-page render times (ms) of every template page since the last call."""
    times: list[float] = []
    for member in pool._template_browsers:
        for slot in member.slots._idle:
            assert slot.direct is not None
            reply = await slot.direct.send(
                "Runtime.evaluate",
                {
                    "expression": "window.__rkTimed.splice(0)",
                    "returnByValue": True,
                },
            )
            times += reply["result"]["value"]
    return times


async def time_pages(pool: ChromiumPool) -> None:
    for member in pool._template_browsers:
        for slot in member.slots._idle:
            assert slot.direct is not None
            await slot.direct.send("Runtime.evaluate", {"expression": PAGE_TIMER})


PNG = {"format": "png", "optimizeForSpeed": True}


def fragment(title: str, scale: int) -> tuple[str, int, int]:
    body = {"template": "og-card", "data": {**DATA, "title": title}, "scale": scale}
    req = structure(body, ImageRequest)
    width, height = req.size
    return (
        render_fragment("og-card", attrs.asdict(req.data), width=width, height=height),
        width,
        height,
    )


def decoded(reply: dict[str, Any]) -> bytes | None:
    data = reply.get("screenshotData")
    if not data:
        return None
    with Image.open(io.BytesIO(base64.b64decode(data))) as image:
        return image.convert("RGB").tobytes()


async def what_if(pool: ChromiumPool, rounds: int, scale: int) -> None:
    """Raw DevTools on one warm page: the frame's parts, and one round trip fewer."""
    slot = pool._template_browsers[0].slots._idle[0]
    page = slot.direct
    assert page is not None

    def render(title: str) -> dict[str, Any]:
        html, width, height = fragment(title, scale)
        args = [html, width, height, 5000, None]
        expression = f"window.__rk.render(...{json.dumps(args)})"
        return {"expression": expression, "awaitPromise": True, "returnByValue": True}

    frames: dict[str, list[float]] = collections.defaultdict(list)
    sequential: list[float] = []
    pipelined: list[float] = []
    same = wrong = stale = twice_same = empty = 0
    for n in range(rounds):
        for name, shot in (
            ("no screenshot", None),
            ("PNG (the pool's)", PNG),
            ("JPEG 80", {"format": "jpeg", "quality": 80}),
        ):
            await page.send("Runtime.evaluate", render(f"{name} {n}"))
            start = time.perf_counter()
            await page.send("HeadlessExperimental.beginFrame", {"screenshot": shot} if shot else {})
            frames[name].append(time.perf_counter() - start)
        start = time.perf_counter()
        await page.send("Runtime.evaluate", render(f"sequential {n}"))
        previous = await page.send("HeadlessExperimental.beginFrame", {"screenshot": PNG})
        sequential.append(time.perf_counter() - start)
        start = time.perf_counter()
        _, reply = await asyncio.gather(
            page.send("Runtime.evaluate", render(f"pipelined {n}")),
            page.send("HeadlessExperimental.beginFrame", {"screenshot": PNG}),
        )
        pipelined.append(time.perf_counter() - start)
        # The same card the pool's way, twice: the reference, and its control.
        references = []
        for _ in range(2):
            await page.send("Runtime.evaluate", render(f"pipelined {n}"))
            references.append(
                decoded(await page.send("HeadlessExperimental.beginFrame", {"screenshot": PNG}))
            )
        got = decoded(reply)
        if got is None or references[0] is None:
            empty += 1
            continue
        twice_same += references[0] == references[1]
        if got == references[0]:
            same += 1
        else:
            wrong += 1
            stale += got == decoded(previous)
    ms = 1000
    print(
        f"what-if, raw DevTools on a warm page, {rounds} rounds at {scale}x; load {os.getloadavg()[0]:.1f}"
    )
    for name, values in frames.items():
        print(f"  beginFrame after a render, {name:24s} {statistics.median(values) * ms:7.2f} ms")
    print(
        f"  {'render, then beginFrame (the pool way)':50s} {statistics.median(sequential) * ms:7.2f} ms"
    )
    print(
        f"  {'beginFrame sent behind the render':50s} {statistics.median(pipelined) * ms:7.2f} ms"
    )
    print(
        f"    its pixels: {same} the same card's, {wrong} not ({stale} the card before);"
        f" {empty} without a screenshot;"
        f" the pool's way twice the same in {twice_same} of {same + wrong}"
    )
    await inside_the_render(page, rounds, scale)


#: (text of render.js, the same with a stamp); the stamps' names, in order.
_STAMPS = (
    (
        "show(el, html);",
        "__s=[performance.now()]; show(el, html); __s.push(performance.now());"
        " document.body.offsetHeight;",
    ),
    ("await document.fonts.ready;", "__s.push(performance.now()); await document.fonts.ready;"),
    (
        'for (const node of el.querySelectorAll("[data-fit]")) fit(node);',
        "__s.push(performance.now()); __o = 0;"
        ' for (const node of el.querySelectorAll("[data-fit]")) fit(node); __s.push(performance.now());',
    ),
    ("return { ok: true };", "__s.push(performance.now()); return { ok: true, s: __s, o: __o };"),
    ("function overflows(el) {", "function overflows(el) { __o++;"),
)
_STAMP_NAMES = (
    "DOM swap (show: patch or replace)",
    "style and first layout",
    "fonts and images awaited",
    "shrinking (data-fit)",
    "growing (data-fit-max)",
)


async def inside_the_render(page: DirectCdp, rounds: int, scale: int) -> None:
    script = "let __s = [], __o = 0;\n" + renderer_script()
    for text, stamped in _STAMPS:
        assert text in script, text
        script = script.replace(text, stamped)
    await page.send("Runtime.evaluate", {"expression": script})
    parts: dict[str, list[float]] = collections.defaultdict(list)
    checks: list[int] = []
    for n in range(rounds):
        html, width, height = fragment(f"{DATA['title']} ({n})", scale)
        expression = f"window.__rk.render(...{json.dumps([html, width, height, 5000, None])})"
        reply = await page.send(
            "Runtime.evaluate",
            {"expression": expression, "awaitPromise": True, "returnByValue": True},
        )
        value = reply["result"]["value"]
        stamps = value["s"]
        for name, start, end in zip(_STAMP_NAMES, stamps[:-1], stamps[1:], strict=True):
            parts[name].append(end - start)
        parts["the whole render"].append(stamps[-1] - stamps[0])
        checks.append(value["o"])
        await page.send("HeadlessExperimental.beginFrame", {"screenshot": PNG})
    print(f"  inside window.__rk.render (medians of {rounds}):")
    for name, values in parts.items():
        print(f"    {name:44s} {statistics.median(values):5.1f} ms")
    print(f"    overflow checks per render: {statistics.median(checks):g}")


async def run(cards: int, scale: int, runs: int, rounds: int) -> None:
    per_phase: dict[str, list[float]] = collections.defaultdict(list)
    per_message: dict[str, list[float]] = collections.defaultdict(list)
    per_card_messages: list[int] = []
    reply_chars: list[int] = []
    totals: list[float] = []
    in_page: list[float] = []
    parses: list[float] = []
    async with ChromiumPool() as pool:
        # Warm every template browser's page (two at once: one per slot).
        for n in range(6):
            bodies = [
                {"template": "og-card", "data": {**DATA, "title": f"warm {n} {k}"}, "scale": scale}
                for k in range(pool.config.slots)
            ]
            await asyncio.gather(*(render_image(body, browser=pool) for body in bodies))
        await time_pages(pool)
        await page_times(pool)
        undo = instrument()
        try:
            for r in range(runs):
                for n in range(cards):
                    body = {
                        "template": "og-card",
                        "data": {**DATA, "title": f"{DATA['title']} #{r}.{n}"},
                        "scale": scale,
                    }
                    phases.clear()
                    messages.clear()
                    parse_time[0] = 0.0
                    start = time.perf_counter()
                    await render_image(body, browser=pool)
                    totals.append(time.perf_counter() - start)
                    for phase, seconds in phases.items():
                        per_phase[phase].append(seconds)
                    per_card_messages.append(len(messages))
                    for method, seconds, size in messages:
                        per_message[method].append(seconds)
                        if size:
                            reply_chars.append(size)
                    parses.append(parse_time[0])
                    in_page += await page_times(pool)
        finally:
            for each in undo:
                each()
        report(
            totals, per_phase, in_page, parses, per_card_messages, per_message, reply_chars, scale
        )
        if rounds:
            await what_if(pool, rounds, scale)


def report(
    totals: list[float],
    per_phase: dict[str, list[float]],
    in_page: list[float],
    parses: list[float],
    per_card_messages: list[int],
    per_message: dict[str, list[float]],
    reply_chars: list[int],
    scale: int,
) -> None:
    ms = 1000
    print(f"{len(totals)} og-cards at {scale}x, one at a time; load {os.getloadavg()[0]:.1f}")
    print(f"  {'render_image, end to end':44s} {statistics.median(totals) * ms:7.2f} ms")
    for phase, values in per_phase.items():
        print(f"  {phase:44s} {statistics.median(values) * ms:7.2f} ms")
    print(f"  {'in the page: window.__rk.render':44s} {statistics.median(in_page):7.2f} ms")
    print(f"  {'JSON parse of DevTools replies':44s} {statistics.median(parses) * ms:7.2f} ms")
    print(f"DevTools messages per card: {statistics.median(per_card_messages):g}")
    for method, values in per_message.items():
        print(
            f"  {method:44s} {statistics.median(values) * ms:7.2f} ms"
            f"  (n={len(values)}, p90 {sorted(values)[int(len(values) * 0.9)] * ms:.2f})"
        )
    if reply_chars:
        print(f"  beginFrame reply: {statistics.median(reply_chars) / 1024:.0f} KiB of JSON")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cards", type=int, default=60)
    parser.add_argument("--scale", type=int, default=1)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--what-if", type=int, default=40, help="rounds (0: none)")
    args = parser.parse_args()
    asyncio.run(run(args.cards, args.scale, args.runs, args.what_if))


if __name__ == "__main__":
    main()
