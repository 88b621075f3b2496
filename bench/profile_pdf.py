"""Profile what Chromium's print step costs for the 30-line invoice, one change at a time.

    python bench/profile_pdf.py [--rounds 15] [--fonts DIR]

A warm page holds the pdf shell (the packaged fonts and the document CSS) with the invoice
fragment rendered into it, as the pool's warm slots do; every round times only CDP
``Page.printToPDF`` for each variant, interleaved so that machine noise hits every variant
alike. Variants change one print parameter (tagging, header/footer templates, page ranges)
or one thing in the page (a style rule added on top of the document CSS). Medians, with the
load average, since the machine is shared: wall medians and the mean CPU time of every
process involved (Chromium, the Playwright driver, Python), which the load disturbs less.
``--fonts DIR`` adds a variant printing with ``Inter-<Weight>-latin.woff2`` from DIR (e.g.
Inter subset to Latin with fontTools' pyftsubset) instead of the packaged Inter.

``--phases`` instead times every step of whole ``render_pdf`` calls on a warm pool, as the
library runs them: the request model, the template render (Python: Jinja, Babel), putting
the fragment into the warm page (and, in the same call, the title), ``Page.printToPDF``, the
metadata and page count; "pool" is what the pool adds around its page work (queueing, the
watch) and "other" the rest of the call. Each step is timed by wrapping the function that does it.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import statistics
import time
from pathlib import Path
from typing import Any

import attrs
from bench_pdf import invoice_request
from playwright.async_api import async_playwright
from profile_templates import _cpu_seconds, _process_tree

from renderkit import structure
from renderkit.browser import DEFAULT_CHROMIUM
from renderkit.browser._capture import shell_document
from renderkit.core.shell import _INTER_WEIGHTS
from renderkit.pdf import PdfRequest
from renderkit.pdf._models import MARGINS, PAGE_SIZES
from renderkit.pdf._render import pdf_shell
from renderkit.pdf._templates import render_document

#: Print parameters on top of the baseline (what Slot.print_pdf sends for a default request);
#: None leaves the parameter out (Chromium's own default).
PARAMS: dict[str, dict[str, Any]] = {
    "baseline": {},
    "tagging left to Chromium (on)": {"generateTaggedPDF": None},
    "tagged true + outline": {"generateTaggedPDF": True, "generateDocumentOutline": True},
    "no header/footer": {"displayHeaderFooter": False},
    "pageRanges 1-3": {"pageRanges": "1-3"},
    "preferCSSPageSize": {"preferCSSPageSize": True},
}

#: Style rules added to the page, each measured with the baseline print parameters.
STYLES: dict[str, str] = {
    "no kerning/ligature features": (
        ".rkd{font-feature-settings:normal;font-kerning:auto;text-rendering:auto}"
    ),
    "text-rendering auto": ".rkd{text-rendering:auto}",
    "no backgrounds": ".rkd *{background:none!important}",
    "one weight (400)": ".rkd *{font-weight:400!important}",
    "no tabular-nums": ".rkd *{font-variant-numeric:normal!important}",
}


def _subset_faces(folder: Path) -> str:
    """The packaged Inter weights replaced by ``Inter-<Weight>-latin.woff2`` from ``folder``."""
    rules = []
    for weight, name in _INTER_WEIGHTS.items():
        data = base64.b64encode((folder / f"Inter-{name}-latin.woff2").read_bytes()).decode()
        rules.append(
            "@font-face{font-family:'Inter Subset';font-display:block;"
            f"font-weight:{weight};src:url(data:font/woff2;base64,{data}) format('woff2')}}"
        )
    return "\n".join(rules) + ".rkd{font-family:'Inter Subset',sans-serif}"


async def phases(rounds: int) -> None:
    """Median wall time of each step of ``render_pdf`` for the 30-line invoice."""
    import renderkit.pdf._render as render_module
    from renderkit import render_pdf
    from renderkit.browser import BrowserConfig, ChromiumPool
    from renderkit.browser import _capture as capture_steps
    from renderkit.browser._cdp import DirectCdp
    from renderkit.browser._pool import ChromiumPool as Pool

    spent: dict[str, list[float]] = {}

    def timed(owner: Any, name: str, phase: str) -> None:
        inner = getattr(owner, name)
        if asyncio.iscoroutinefunction(inner):

            async def wrapper(*args: Any, **kwargs: Any) -> Any:
                t = time.perf_counter()
                try:
                    return await inner(*args, **kwargs)
                finally:
                    spent.setdefault(phase, []).append(time.perf_counter() - t)

        else:

            def wrapper(*args: Any, **kwargs: Any) -> Any:  # type: ignore[misc]
                t = time.perf_counter()
                try:
                    return inner(*args, **kwargs)
                finally:
                    spent.setdefault(phase, []).append(time.perf_counter() - t)

        setattr(owner, name, wrapper)

    send = DirectCdp.send

    async def cdp_send(self: DirectCdp, method: str, params: Any = None) -> Any:
        t = time.perf_counter()
        try:
            return await send(self, method, params)
        finally:
            if method == "Page.printToPDF":
                spent.setdefault("print (Page.printToPDF)", []).append(time.perf_counter() - t)
            elif str((params or {}).get("expression", "")).startswith("document.title"):
                spent.setdefault("title", []).append(time.perf_counter() - t)

    DirectCdp.send = cdp_send  # type: ignore[method-assign]
    timed(render_module, "structure", "request model")
    timed(render_module, "render_document", "template (Python: Jinja, Babel)")
    timed(capture_steps, "load_shell", "warm page check")
    timed(capture_steps, "inject", "fragment into the warm page")
    timed(render_module, "finish_pdf", "metadata + page count")
    timed(Pool, "print_fragment", "pool")
    data = invoice_request(30)["data"]
    assert isinstance(data, dict)
    totals: list[float] = []
    async with ChromiumPool(BrowserConfig(slots=2)) as pool:
        for n in range(rounds + 3):
            if n == 3:
                spent.clear()
                totals.clear()
            body = {"template": "invoice", "data": {**data, "invoice_number": f"INV-{n:04d}"}}
            t = time.perf_counter()
            await render_pdf(body, browser=pool)
            totals.append(time.perf_counter() - t)
    medians = {phase: statistics.median(times) * 1000 for phase, times in spent.items()}
    steps = ("warm page check", "fragment into the warm page", "title", "print (Page.printToPDF)")
    medians["pool"] -= sum(medians.get(step, 0.0) for step in steps)
    total = statistics.median(totals) * 1000
    medians["other"] = total - sum(medians.values())
    print(f"load average {os.getloadavg()[0]:.2f}, {rounds} render_pdf calls, medians")
    for phase, ms in medians.items():
        print(f"  {phase:<36} {ms:7.2f} ms  {ms / total:6.1%}")
    print(f"  {'render_pdf':<36} {total:7.2f} ms")


async def main(rounds: int, fonts: Path | None) -> None:
    if fonts is not None:
        STYLES["Inter from --fonts"] = _subset_faces(fonts)
    req = structure(invoice_request(30), PdfRequest)
    document = render_document(req.kind, attrs.asdict(req.data), locale=req.locale)
    width, height = PAGE_SIZES[req.page_size]
    margin = MARGINS[req.margin]
    footer = document.footer_template
    base: dict[str, Any] = {
        "printBackground": True,
        "paperWidth": width,
        "paperHeight": height,
        "marginTop": margin,
        "marginBottom": max(margin, 0.5) if footer else margin,
        "marginLeft": margin,
        "marginRight": margin,
        "preferCSSPageSize": False,
        "displayHeaderFooter": bool(footer or document.header_template),
        "headerTemplate": document.header_template or "<span></span>",
        "footerTemplate": footer or "<span></span>",
        "generateTaggedPDF": False,
    }
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=DEFAULT_CHROMIUM)
        page = await browser.new_page()
        shell = pdf_shell()
        if shell.print_viewport is not None:
            # As the pool prints it: from the viewport the shell's styles expect.
            width_px, height_px = shell.print_viewport
            await page.set_viewport_size({"width": width_px, "height": height_px})
        await page.set_content(shell_document(shell))
        await page.evaluate("Promise.all([...document.fonts].map(f => f.load())).then(() => 1)")
        await page.evaluate("(h) => window.__rk.render(h, null, null, 5000)", document.body)
        cdp = await page.context.new_cdp_session(page)

        restyles = iter(range(1_000_000))

        async def style(css: str) -> None:
            # A new sheet for every case (a numbered comment), so each print follows the same
            # style recalculation and layout and the variants differ only in their rules.
            css = f"{css}/*{next(restyles)}*/"
            await page.evaluate(
                "(c) => { let s = document.getElementById('prof');"
                " if (!s) { s = document.createElement('style'); s.id = 'prof';"
                " document.head.append(s); } s.textContent = c;"
                " return Promise.all([...document.fonts].map(f => f.load())).then(() => 1); }",
                css,
            )

        pids = _process_tree(os.getpid())

        async def once(params: dict[str, Any]) -> tuple[float, float, int]:
            cpu = _cpu_seconds(pids)
            t = time.perf_counter()
            sent = {k: v for k, v in {**base, **params}.items() if v is not None}
            result = await cdp.send("Page.printToPDF", sent)
            elapsed = time.perf_counter() - t
            return elapsed, _cpu_seconds(pids) - cpu, len(base64.b64decode(result["data"]))

        cases: list[tuple[str, str, dict[str, Any]]] = [
            (name, "", params) for name, params in PARAMS.items()
        ] + [(name, css, {}) for name, css in STYLES.items()]
        times: dict[str, list[float]] = {name: [] for name, _, _ in cases}
        cpus: dict[str, list[float]] = {name: [] for name, _, _ in cases}
        sizes: dict[str, int] = {}
        for round_ in range(rounds + 2):
            for name, css, params in cases:
                await style(css)
                # One untimed print after the restyle: the timed one is a warm page's print.
                await once(params)
                elapsed, cpu, size = await once(params)
                if round_ >= 2:
                    times[name].append(elapsed)
                    cpus[name].append(cpu)
                    sizes[name] = size
        await browser.close()
    base_ms = statistics.median(times["baseline"]) * 1000
    base_cpu = statistics.mean(cpus["baseline"]) * 1000
    print(f"load average {os.getloadavg()[0]:.2f}, {rounds} rounds, Page.printToPDF only")
    print(f"  {'variant':<30} {'wall median':>18} {'cpu mean (all procs)':>22}      size")
    for name, values in times.items():
        ms = statistics.median(values) * 1000
        cpu_ms = statistics.mean(cpus[name]) * 1000
        print(
            f"  {name:<30} {ms:7.1f} ms ({ms - base_ms:+6.1f})"
            f"  {cpu_ms:7.1f} ms ({cpu_ms - base_cpu:+6.1f})  {sizes[name] / 1024:6.1f} KiB"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--fonts", type=Path, help="a folder of Inter-<Weight>-latin.woff2")
    parser.add_argument("--phases", action="store_true", help="time each step of render_pdf")
    args = parser.parse_args()
    asyncio.run(phases(args.rounds) if args.phases else main(args.rounds, args.fonts))
