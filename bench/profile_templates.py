"""Profile the raster cost of the built-in image templates, per template and background.

    python bench/profile_templates.py [--iterations 8] [--runs 2] [--template og-card ...]
    python bench/profile_templates.py --css /tmp/a.css --css /tmp/b.css   # compare stylesheets

A warm pool page renders each template x background once through ``render_image`` (which also
sets the device metrics to scale 2), then for every iteration changes the title (so the DOM
really changes), swaps the fragment in with ``window.__rk.render`` and times only CDP
``Page.captureScreenshot`` for PNG and JPEG, the way the engine calls it. Each capture
re-rasterises the page in software, so the timings are the cost of painting the template.

"floor" is the same measurement with the decoration pseudo-elements (``.rk::before`` and
``.rk::after``) hidden: what the text, accents and background alone cost. ``--css`` swaps the
shell's stylesheet for the given files (in the same page, interleaved per iteration, so machine
noise hits every variant alike). ``total`` is an end-to-end ``render_image`` PNG median.

The machine is noisy: results are medians; compare runs, not single numbers.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from renderkit import render_image
from renderkit._image_templates import BACKGROUNDS, TEMPLATES, image_css, render_fragment
from renderkit.browser import BrowserConfig, ChromiumPool

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

# Replaces the text of the shell's template stylesheet (the <style> that styles .rk-og) and
# sets (or clears) an extra style for the floor; returns nothing.
SET_STYLES_JS = """([css, floor]) => {
  const sheet = [...document.querySelectorAll('style')].find(
    (s) => s.id === 'rk-profile-css' || s.textContent.includes('#rk-root .rk-og'));
  sheet.id = 'rk-profile-css';
  if (sheet.textContent !== css) sheet.textContent = css;
  let extra = document.getElementById('rk-profile-floor');
  if (!extra) {
    extra = document.createElement('style');
    extra.id = 'rk-profile-floor';
    document.head.appendChild(extra);
  }
  extra.textContent = floor || '';
}"""


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


async def capture(slot: Any, fmt: str, width: int, height: int) -> float:
    params: dict[str, Any] = {
        "format": fmt,
        "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1},
        "optimizeForSpeed": True,
    }
    if fmt == "jpeg":
        params["quality"] = 90
    t = time.perf_counter()
    await slot.cdp.send("Page.captureScreenshot", params)
    return time.perf_counter() - t


async def profile(args: argparse.Namespace) -> None:
    variants: list[tuple[str, str, bool]] = []
    sheets = [(p.name, p.read_text(encoding="utf-8")) for p in args.css] or [
        ("current", image_css())
    ]
    for label, css in sheets:
        variants.append((label, css, False))
    if not args.no_floor:
        variants.append(("floor", sheets[0][1], True))

    templates = args.template or list(TEMPLATES)
    backgrounds = args.background or list(BACKGROUNDS)
    # results[(template, background, variant, fmt)] -> seconds
    results: dict[tuple[str, str, str, str], list[float]] = defaultdict(list)
    totals: dict[str, list[float]] = defaultdict(list)

    async with ChromiumPool(BrowserConfig(slots=1)) as pool:
        for run in range(args.runs):
            for name in templates:
                spec = TEMPLATES[name]
                w, h = spec.width, spec.height
                for background in backgrounds:
                    data = {**DATA, "background": background, "title": TITLES[0]}
                    await render_image({"template": name, "data": data}, browser=pool)
                    slot = pool._idle[0]
                    for i in range(args.iterations):
                        for label, css, floor in variants:
                            await slot.page.evaluate(
                                SET_STYLES_JS, [css, FLOOR_CSS if floor else ""]
                            )
                            title = f"{TITLES[(i + 1) % len(TITLES)]} #{run}.{i}"
                            fragment = render_fragment(
                                name, {**data, "title": title}, width=w, height=h
                            )
                            outcome = await slot.page.evaluate(
                                "([html, w, h, t]) => window.__rk.render(html, w, h, t)",
                                [fragment, w, h, 5000],
                            )
                            assert outcome["ok"], outcome
                            for fmt in ("png", "jpeg"):
                                results[(name, background, label, fmt)].append(
                                    await capture(slot, fmt, w, h)
                                )
                    # Leave the page with the stylesheet render_image expects.
                    await slot.page.evaluate(SET_STYLES_JS, [image_css(), ""])
            if args.css:
                continue  # render_image always uses the packaged stylesheet
            body = {"template": "og-card", "data": {**DATA, "title": TITLES[0]}}
            for i in range(args.iterations * 2):
                body["data"]["title"] = f"{TITLES[i % len(TITLES)]} {run}.{i}"
                t = time.perf_counter()
                await render_image(body, browser=pool)
                totals["og-card png"].append(time.perf_counter() - t)
            print(f"run {run + 1}/{args.runs} done", flush=True)

    labels = [label for label, _, _ in variants]
    header = f"{'template':<14} {'background':<9}" + "".join(
        f" {label[:12] + ' png':>16} {label[:12] + ' jpg':>16}" for label in labels
    )
    print(f"\ncapture medians in ms, scale 2, n={args.iterations * args.runs} per cell")
    print(header)
    for name in templates:
        for background in backgrounds:
            row = f"{name:<14} {background:<9}"
            for label in labels:
                for fmt in ("png", "jpeg"):
                    row += f" {median_ms(results[(name, background, label, fmt)]):16.1f}"
            print(row)
    for key, values in totals.items():
        print(
            f"\nrender_image {key} @2x total: median {median_ms(values):.1f} ms (n={len(values)})"
        )


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
