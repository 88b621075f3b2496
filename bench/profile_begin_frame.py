"""The headless shell's own capture, ``HeadlessExperimental.beginFrame``, against the pool's.

    python bench/profile_begin_frame.py [--rounds 10]

Two headless shells over raw DevTools, each with one warm image page (the pool's shell
document, framed as ``Slot.frame`` does: a viewport ``scale`` times larger, zoomed in):

- "capture": the pool's flags and way, ``Page.captureScreenshot`` with ``optimizeForSpeed``,
  with its unlimited frame rate (``--disable-frame-rate-limit``, the pool's default), twice
  ("capture-again" is the control for the pixel comparison), then with Chromium's 60 Hz frame
  clock ("capture-60Hz", ``BrowserConfig.frame_rate_limit=True``);
- "beginframe": ``--enable-begin-frame-control --run-all-compositor-stages-before-draw``, the
  page made with ``enableBeginFrameControl``, and one ``HeadlessExperimental.beginFrame``
  with a screenshot per card: the browser draws only the frame asked for.

It first compares the decoded pixels of every template and background at scale 1 and 2,
and checks whether an ordinary page (made without begin-frame control, as Playwright makes
every page) of the begin-frame browser can still be captured and printed; then, rounds
alternating, reports per variant and scale the median wall time of a card (render and
capture) and the mean CPU of Chromium's processes per card.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import statistics
import time
from collections import defaultdict
from typing import Any

import attrs
from profile_image_cpu import BACKGROUNDS, DATA, TEMPLATES, pixels, snapshot

from renderkit.browser import DEFAULT_CHROMIUM
from renderkit.browser._capture import shell_document
from renderkit.browser._cdp import DirectCdp, page_ws_url
from renderkit.browser._process import UNLIMITED_FRAMES, ChromiumProcess, launch_chromium
from renderkit.core.converter import structure
from renderkit.image._models import ImageRequest
from renderkit.image._render import image_shell
from renderkit.image._templates import render_fragment

BEGIN_FRAME_FLAGS = ("--enable-begin-frame-control", "--run-all-compositor-stages-before-draw")
CHROMIUM_KINDS = ("browser", "gpu", "renderer", "other")


@attrs.define
class Variant:
    name: str
    process: ChromiumProcess
    browser: DirectCdp
    begin_frame: bool
    page: DirectCdp | None = None
    #: beginFrame replies that carried no screenshot.
    empty_frames: int = 0


async def start(name: str, flags: tuple[str, ...], *, begin_frame: bool) -> Variant:
    process = await launch_chromium(DEFAULT_CHROMIUM, extra_args=flags)
    browser = await DirectCdp.open(process.ws_url)
    variant = Variant(name, process, browser, begin_frame)
    variant.page = await open_page(variant, begin_frame=begin_frame)
    return variant


async def open_page(variant: Variant, *, begin_frame: bool) -> DirectCdp:
    """A page in a new context, loaded with the image shell (``load_shell``)."""
    context = await variant.browser.send("Target.createBrowserContext")
    params: dict[str, Any] = {
        "url": "about:blank",
        "browserContextId": context["browserContextId"],
    }
    if begin_frame:
        params["enableBeginFrameControl"] = True
    target = await variant.browser.send("Target.createTarget", params)
    page = await DirectCdp.open(page_ws_url(variant.process.ws_url, target["targetId"]))
    tree = await page.send("Page.getFrameTree")
    await page.send(
        "Page.setDocumentContent",
        {"frameId": tree["frameTree"]["frame"]["id"], "html": shell_document(image_shell())},
    )
    await page.send(
        "Runtime.evaluate",
        {
            "expression": "Promise.all([...document.fonts].map(f => f.load())).then(() => 1)",
            "awaitPromise": True,
        },
    )
    return page


def fragment(title: str, template: str, background: str) -> tuple[str, int, int]:
    body = {"template": template, "data": {**DATA, "title": title, "background": background}}
    request = structure(body, ImageRequest)
    width, height = request.size
    data = attrs.asdict(request.data)
    return render_fragment(request.spec.name, data, width=width, height=height), width, height


async def card(variant: Variant, html: str, width: int, height: int, scale: int) -> bytes:
    """Frame the page for ``scale`` (as ``Slot.frame``), render ``html`` into it, capture."""
    page = variant.page
    assert page is not None
    metrics = {"width": width * scale, "height": height * scale, "deviceScaleFactor": 1}
    await page.send("Emulation.setDeviceMetricsOverride", {**metrics, "mobile": False})
    await page.send("Emulation.setPageScaleFactor", {"pageScaleFactor": scale})
    args = json.dumps([html, width, height, 5000])
    reply = await page.send(
        "Runtime.evaluate",
        {
            "expression": f"window.__rk.render(...{args})",
            "awaitPromise": True,
            "returnByValue": True,
        },
    )
    assert reply["result"]["value"]["ok"], reply
    return await shoot(variant, page)


async def shoot(variant: Variant, page: DirectCdp) -> bytes:
    screenshot = {"format": "png", "optimizeForSpeed": True}
    if not variant.begin_frame:
        reply = await page.send("Page.captureScreenshot", screenshot)
        return base64.b64decode(reply["data"])
    # A frame without damage (the same card again, or the first frame after a load, now and
    # then) comes back without a screenshot: ask for another, and count it.
    for _ in range(3):
        reply = await page.send("HeadlessExperimental.beginFrame", {"screenshot": screenshot})
        if "screenshotData" in reply:
            return base64.b64decode(reply["screenshotData"])
        variant.empty_frames += 1
    msg = "three frames without a screenshot"
    raise RuntimeError(msg)


def difference(a: bytes, b: bytes) -> str:
    if len(a) != len(b):
        return "sizes differ"
    diffs = [abs(x - y) for x, y in zip(a, b, strict=True) if x != y]
    return f"{len(diffs)} bytes, <= {max(diffs)}"


async def compare_pixels(variants: list[Variant]) -> None:
    """Print each case whose pixels differ from the first variant's, and whether they are
    those of another variant (the capture's own 1x variation) or new."""
    for template in TEMPLATES:
        for background in BACKGROUNDS:
            html, width, height = fragment(DATA["title"], template, background)
            for scale in (1, 2):
                seen = [pixels(await card(v, html, width, height, scale)) for v in variants]
                for variant, got in zip(variants[1:], seen[1:], strict=True):
                    if got != seen[0]:
                        also = [v.name for v, o in zip(variants, seen, strict=True) if o == got]
                        print(
                            f"  PIXELS DIFFER {variant.name}: {template}/{background}@{scale}x "
                            f"({difference(got, seen[0])}; the same as {', '.join(also)})"
                        )


async def ordinary_page(variant: Variant) -> None:
    """Whether a page made the ordinary way still captures and prints in ``variant``."""
    page = await open_page(variant, begin_frame=False)
    for method in ("Page.captureScreenshot", "Page.printToPDF"):
        started = time.perf_counter()
        try:
            async with asyncio.timeout(10):
                await page.send(method)
            outcome = f"ok in {(time.perf_counter() - started) * 1000:.0f} ms"
        except TimeoutError:
            outcome = "NO ANSWER within 10 s"
        print(f"  {variant.name}: an ordinary page's {method}: {outcome}")
    await page.aclose()


async def main(args: argparse.Namespace) -> None:
    variants = [
        await start("capture", (UNLIMITED_FRAMES,), begin_frame=False),
        # The control: the pool's capture itself is not quite deterministic at 1x.
        await start("capture-again", (UNLIMITED_FRAMES,), begin_frame=False),
        await start("capture-60Hz", (), begin_frame=False),
        await start("beginframe", BEGIN_FRAME_FLAGS, begin_frame=True),
    ]
    try:
        await compare_pixels(variants)
        await ordinary_page(variants[-1])
        walls: dict[tuple[str, int], list[float]] = defaultdict(list)
        cpus: dict[tuple[str, int], list[float]] = defaultdict(list)
        for round_ in range(args.rounds + 2):
            html, width, height = fragment(f"{DATA['title']} {round_}", "og-card", "dark")
            for variant in variants:
                for scale in (1, 2):
                    before = snapshot(variant.process.pid, [], after=False)
                    started = time.perf_counter()
                    await card(variant, html, width, height, scale)
                    wall = time.perf_counter() - started
                    after = snapshot(variant.process.pid, [], after=True)
                    if round_ >= 2:  # the first rounds warm up
                        walls[variant.name, scale].append(wall * 1000)
                        cpu = sum(after[k] - before[k] for k in CHROMIUM_KINDS)
                        cpus[variant.name, scale].append(cpu * 1000)
        load = "load {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())
    finally:
        for variant in variants:
            if variant.page is not None:
                await variant.page.aclose()
            await variant.browser.aclose()
            await variant.process.kill()
    print(f"{'variant':<14} sc  wall ms  chromium cpu ms")
    for (name, scale), values in walls.items():
        cpu = statistics.mean(cpus[name, scale])
        print(f"{name:<14} {scale}x {statistics.median(values):7.1f}  {cpu:7.1f}")
    print(f"beginFrame replies without a screenshot: {variants[-1].empty_frames}")
    print(f"({load}; {args.rounds} rounds)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    asyncio.run(main(parser.parse_args()))
