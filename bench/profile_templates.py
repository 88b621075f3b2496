"""Profile what the built-in image templates cost to capture, per template and background.

    python bench/profile_templates.py [--iterations 8] [--runs 2] [--template og-card ...]
    python bench/profile_templates.py --css /tmp/a.css --css /tmp/b.css   # compare stylesheets

A warm pool page renders each template x background once through ``render_image`` (which also
sets the device metrics to scale 2), then for every iteration changes the title (so the DOM
really changes), swaps the fragment in with ``window.__rk.render`` and times only CDP
``Page.captureScreenshot`` for PNG and JPEG, the way the engine calls it. Chromium
re-rasterises the page in software for every capture, so this is the cost of painting the
template plus encoding (and shipping) the image.

``floor`` is the same with the decoration pseudo-elements (``.rk::before`` and ``.rk::after``)
hidden: what the text and the card's own background cost. ``--css`` swaps the shell's stylesheet
for the given files (fragments still come from the installed renderkit), interleaved per
iteration so that machine noise hits every variant alike. ``total`` is the end-to-end median of
``render_image`` for og-card PNG.

Wall time is what a caller waits; ``cpu`` adds up the CPU time of every process involved
(Chromium, the Playwright driver, Python; Linux only), which a busy machine disturbs less.
The machine is noisy: results are medians, and runs should be compared with each other.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from renderkit import render_image
from renderkit.browser import BrowserConfig, ChromiumPool
from renderkit.image._templates import TEMPLATES, image_css, render_fragment
from renderkit.image._theme import BACKGROUNDS

DATA = {
    "tag": "Release 1.0",
    "subtitle": "Images, PDFs, screenshots, speech and parsing behind one API.",
    "body": "Render Open Graph cards, banners and posts from JSON in milliseconds.",
    "cta": "Get started",
    "domain": "renderkit.dev",
}
TITLES = [
    "Render anything from JSON, in milliseconds",
    "Ship beautiful social images in one API call",
    "Warm browser pools make every render fast",
    "Fonts, templates and caching handled for you",
]
FLOOR_CSS = "#rk-root .rk::before, #rk-root .rk::after { display: none !important; }"
FORMATS = ("png", "jpeg")

# Replaces the text of the shell's template stylesheet (the <style> that styles .rk-og) and
# sets (or clears) an extra style for the floor.
SET_STYLES_JS = """([css, extra]) => {
  const sheet = [...document.querySelectorAll('style')].find(
    (s) => s.id === 'rk-profile-css' || s.textContent.includes('#rk-root .rk-og'));
  sheet.id = 'rk-profile-css';
  if (sheet.textContent !== css) sheet.textContent = css;
  let style = document.getElementById('rk-profile-extra');
  if (!style) {
    style = document.createElement('style');
    style.id = 'rk-profile-extra';
    document.head.appendChild(style);
  }
  style.textContent = extra;
}"""


def _process_tree(root: int) -> list[int]:
    """``root`` and all its descendants (Chromium, the Playwright driver)."""
    children: dict[int, list[int]] = defaultdict(list)
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            children[int(stat.rsplit(")", 1)[1].split()[1])].append(int(entry))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def _cpu_seconds(pids: list[int]) -> float:
    """CPU time so far of every thread of ``pids`` (nanosecond precision, from schedstat)."""
    total = 0
    for pid in pids:
        try:
            threads = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in threads:
            with contextlib.suppress(OSError, ValueError, IndexError):
                total += int(Path(f"/proc/{pid}/task/{tid}/schedstat").read_text().split()[0])
    return total / 1e9


async def capture(
    slot: Any, fmt: str, width: int, height: int, pids: list[int]
) -> tuple[float, float]:
    """Wall and CPU seconds of one ``Page.captureScreenshot``, as the engine calls it."""
    params: dict[str, Any] = {
        "format": fmt,
        "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1},
        "optimizeForSpeed": True,
    }
    if fmt == "jpeg":
        params["quality"] = 90
    cpu = _cpu_seconds(pids)
    t = time.perf_counter()
    await slot.cdp.send("Page.captureScreenshot", params)
    return time.perf_counter() - t, _cpu_seconds(pids) - cpu


def ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.1f}"


async def profile(args: argparse.Namespace) -> None:
    sheets = [(p.stem, p.read_text(encoding="utf-8")) for p in args.css] or [
        ("current", image_css())
    ]
    variants = [(label, css, "") for label, css in sheets]
    if not args.no_floor:
        variants.append(("floor", sheets[0][1], FLOOR_CSS))
    templates = args.template or list(TEMPLATES)
    backgrounds = args.background or list(BACKGROUNDS)
    # (template, background, variant, format, "wall" | "cpu") -> seconds
    results: dict[tuple[str, ...], list[float]] = defaultdict(list)
    totals: list[float] = []

    async with ChromiumPool(BrowserConfig(slots=1)) as pool:
        for run in range(args.runs):
            for name in templates:
                w, h = TEMPLATES[name].width, TEMPLATES[name].height
                for background in backgrounds:
                    data = {**DATA, "background": background, "title": TITLES[0]}
                    await render_image({"template": name, "data": data}, browser=pool)
                    slot = pool._idle[0]
                    pids = _process_tree(os.getpid())
                    for i in range(args.iterations):
                        title = f"{TITLES[(i + 1) % len(TITLES)]} #{run}.{i}"
                        fragment = render_fragment(
                            name, {**data, "title": title}, width=w, height=h
                        )
                        for label, css, extra in variants:
                            await slot.page.evaluate(SET_STYLES_JS, [css, extra])
                            outcome = await slot.page.evaluate(
                                "([html, w, h, t]) => window.__rk.render(html, w, h, t)",
                                [fragment, w, h, 5000],
                            )
                            assert outcome["ok"], outcome
                            for fmt in FORMATS:
                                wall, cpu = await capture(slot, fmt, w, h, pids)
                                results[(name, background, label, fmt, "wall")].append(wall)
                                results[(name, background, label, fmt, "cpu")].append(cpu)
                    # Leave the page with the stylesheet render_image expects.
                    await slot.page.evaluate(SET_STYLES_JS, [image_css(), ""])
            body = {"template": "og-card", "data": {**DATA, "title": TITLES[0]}}
            for i in range(args.iterations * 2):
                body["data"]["title"] = f"{TITLES[i % len(TITLES)]} {run}.{i}"
                t = time.perf_counter()
                await render_image(body, browser=pool)
                totals.append(time.perf_counter() - t)
            print(f"run {run + 1}/{args.runs} done", flush=True)

    labels = [label for label, _, _ in variants]
    n = args.iterations * args.runs
    for measure in ("wall", "cpu"):
        print(f"\ncapture medians, {measure} ms, scale 2, n={n} per cell")
        print(
            f"{'template':<14} {'background':<10}"
            + "".join(f" {label[:10] + ' ' + fmt:>15}" for label in labels for fmt in FORMATS)
        )
        for name in templates:
            for background in backgrounds:
                cells = [
                    ms(results[(name, background, label, fmt, measure)])
                    for label in labels
                    for fmt in FORMATS
                ]
                print(f"{name:<14} {background:<10}" + "".join(f" {c:>15}" for c in cells))
    print(f"\nrender_image og-card png @2x, total: median {ms(totals)} ms (n={len(totals)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=8)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--template", action="append", choices=sorted(TEMPLATES))
    parser.add_argument("--background", action="append", choices=BACKGROUNDS)
    parser.add_argument("--css", action="append", type=Path, default=[], help="stylesheets")
    parser.add_argument("--no-floor", action="store_true", help="skip the floor measurement")
    asyncio.run(profile(parser.parse_args()))


if __name__ == "__main__":
    main()
