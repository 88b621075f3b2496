"""Benchmark: the 30-line invoice to PDF on a warm pool vs Typst, plus PDF/A and tagged.

What PDF/A and tagging cost on top of a plain PDF is measured in the same rounds.

    python bench/bench_pdf.py [--rounds 30] [--record bench/results.toml] [--no-peer]
        [--weasyprint]

The peer is Typst (PyPI ``typst``, the ``bench`` extra) compiling the same invoice written in
Typst markup (bench/invoice.typ: the same content and layout, Inter, two A4 pages) with a warm
in-process compiler, as a service would keep one. Every round renders a new invoice number
with both, interleaved, so Typst's memoization cannot turn a render into a cache hit; the
result gives both medians, the median of the per-round ratios and the load average.
``--no-peer`` measures renderkit alone; ``--weasyprint`` also times WeasyPrint on the invoice
fragment inside the same shell (packaged Inter, the document CSS), in a worker thread. The
PDF/A-2b, tagged and PDF/A-2b + tagged variants of the same request run in the same rounds,
so the medians compare like with like.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from _record import add_record_option, record
from profile_templates import _cpu_seconds, _process_tree

from renderkit import render_pdf
from renderkit.browser import BrowserConfig, ChromiumPool
from renderkit.pdf._render import pdf_shell
from renderkit.pdf._templates import render_document

INVOICE = {
    "company_name": "Northwind Studio",
    "company_address": "12 Harbour Street\nBristol BS1 4XX",
    "company_email": "billing@northwind.example",
    "client_name": "Contoso Ltd",
    "client_address": "1 Main Road\nLeeds LS1 1AA",
    "invoice_number": "INV-2026-0042",
    "invoice_date": "2026-11-22",
    "due_date": "2026-12-22",
    "currency": "USD",
    "line_items": [
        {"description": "Brand design", "quantity": 2, "unit_price": 1500},
        {"description": "Hosting (months)", "quantity": 12, "unit_price": 29.99},
        {"description": "Support hours", "quantity": 3.5, "unit_price": 80},
        {"description": "Illustrations", "quantity": 6, "unit_price": 120},
    ],
    "tax_rate": 20,
    "discount": 100,
    "notes": "Payment within 30 days. Thank you for your business.",
}


def invoice_data(lines: int = 30) -> dict[str, object]:
    """The invoice with ``lines`` line items (the four above, numbered, repeated)."""
    base = INVOICE["line_items"]
    assert isinstance(base, list)
    items = [
        {**base[i % len(base)], "description": f"{base[i % len(base)]['description']} #{i + 1}"}
        for i in range(lines)
    ]
    return {**INVOICE, "line_items": items}


def invoice_request(lines: int = 30) -> dict[str, object]:
    """The render_pdf request body for the ``lines``-line invoice."""
    return {"template": "invoice", "data": invoice_data(lines)}


def _ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


def summary(values: list[float]) -> str:
    values = sorted(values)
    p90 = values[max(0, int(len(values) * 0.9) - 1)]
    return f"median {statistics.median(values) * 1000:7.1f} ms  (p90 {p90 * 1000:7.1f}, n={len(values)})"


#: The request variants measured against the plain PDF, all in the same rounds.
VARIANTS: dict[str, dict[str, object]] = {
    "PDF/A-2b": {"pdf_standard": "PDF/A-2b"},
    "tagged": {"tagged": True},
    "PDF/A-2b + tagged": {"pdf_standard": "PDF/A-2b", "tagged": True},
}


def typst_compiler() -> Callable[[dict[str, object]], bytes]:
    """A warm in-process Typst compiler of bench/invoice.typ: data in, PDF out."""
    import typst

    source = (Path(__file__).parent / "invoice.typ").read_bytes()
    compiler = typst.Compiler(source)

    def compile_pdf(data: dict[str, object]) -> bytes:
        pdf = compiler.compile(input=source, sys_inputs={"data": json.dumps(data)})
        assert isinstance(pdf, bytes)
        return pdf

    return compile_pdf


async def main(
    rounds: int, record_to: Path | None, *, peer: bool = True, weasy: bool = False, note: str = ""
) -> None:
    compile_typst = typst_compiler() if peer else None
    data = invoice_data(30)
    document = render_document("invoice", data)
    html = (
        f"<!doctype html><html><head><meta charset='utf-8'>{pdf_shell().head}"
        "<style>@page { size: A4; margin: 0.7in }</style></head>"
        f"<body><div id='rk-root'>{document.body}</div></body></html>"
    )

    def weasyprint_pdf() -> bytes:
        import weasyprint

        return bytes(weasyprint.HTML(string=html).write_pdf())

    def numbered(n: int) -> dict[str, object]:
        # A new invoice number every round, for both: Typst's compiler memoizes, and an
        # unchanged document would be a cache hit rather than a render.
        return {**data, "invoice_number": f"INV-2026-{n:04d}"}

    bodies = {name: {"template": "invoice", **changes} for name, changes in VARIANTS.items()}
    ours: list[float] = []
    theirs: list[float] = []
    # CPU seconds of this process and its children (Chromium, Typst's threads) per render:
    # steadier than wall time on a shared machine.
    ours_cpu: list[float] = []
    theirs_cpu: list[float] = []
    weasy_times: list[float] = []
    variants: dict[str, list[float]] = {name: [] for name in bodies}
    async with ChromiumPool(BrowserConfig(slots=2)) as pool:
        for n in range(-3, rounds):
            request = numbered(n + 10_000)
            # Listed every round, outside the timing: Chromium starts renderers as it needs them.
            pids = _process_tree(os.getpid())
            cpu, t = _cpu_seconds(pids), time.perf_counter()
            result = await render_pdf({"template": "invoice", "data": request}, browser=pool)
            ours.append(time.perf_counter() - t)
            ours_cpu.append(_cpu_seconds(pids) - cpu)
            assert result.pages == 2
            for name, body in bodies.items():
                t = time.perf_counter()
                await render_pdf({**body, "data": request}, browser=pool)
                variants[name].append(time.perf_counter() - t)
            if compile_typst is not None:
                cpu, t = _cpu_seconds(pids), time.perf_counter()
                compile_typst(request)
                theirs.append(time.perf_counter() - t)
                theirs_cpu.append(_cpu_seconds(pids) - cpu)
            if weasy:
                t = time.perf_counter()
                await asyncio.to_thread(weasyprint_pdf)
                weasy_times.append(time.perf_counter() - t)
    # The first three rounds warm everything up.
    ours, theirs, weasy_times = ours[3:], theirs[3:], weasy_times[3:]
    ours_cpu, theirs_cpu = ours_cpu[3:], theirs_cpu[3:]
    load = os.getloadavg()[0]
    print(f"30-line invoice, {rounds} rounds interleaved, load average {load:.2f}")
    print(f"renderkit invoice pdf (warm pool)  {summary(ours)}  cpu {_ms(ours_cpu):.1f} ms")
    for name, times in variants.items():
        times = times[3:]
        extra = (statistics.median(times) - statistics.median(ours)) * 1000
        print(f"  {name:<18} {summary(times)}  ({extra:+.1f} ms on the plain median)")
    if weasy:
        print(f"WeasyPrint, same HTML (thread)     {summary(weasy_times)}")
    if compile_typst is None:
        return
    import typst

    typst_name = f"Typst {typst.__version__} (warm compiler)"
    print(f"{typst_name:<34} {summary(theirs)}  cpu {_ms(theirs_cpu):.1f} ms")
    pairwise = statistics.median(a / b for a, b in zip(ours, theirs, strict=True))
    ratio = statistics.median(ours) / statistics.median(theirs)
    cpu_ratio = _ms(ours_cpu) / _ms(theirs_cpu)
    print(
        f"renderkit time / Typst time: {ratio:.2f} (medians), {pairwise:.2f} (pairwise median),"
        f" {cpu_ratio:.2f} (CPU medians)"
    )
    record(
        record_to,
        benchmark="bench_pdf.py",
        case="the 30-line invoice template to PDF (2 pages), warm pool",
        unit="ms",
        renderkit=statistics.median(ours) * 1000,
        peer=f"Typst {typst.__version__}, the same invoice in bench/invoice.typ, warm compiler",
        peer_median=statistics.median(theirs) * 1000,
        notes=(
            f"{rounds} rounds interleaved, a new invoice number each round; renderkit/Typst "
            f"pairwise median {pairwise:.2f}; CPU medians (all processes) {_ms(ours_cpu):.1f} vs "
            f"{_ms(theirs_cpu):.1f} ms ({cpu_ratio:.2f})" + (f"; {note}" if note else "")
        ),
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--no-peer", action="store_true", help="skip Typst")
    parser.add_argument("--weasyprint", action="store_true", help="also time WeasyPrint")
    parser.add_argument("--note", default="", help="added to the recorded result's notes")
    add_record_option(parser)
    args = parser.parse_args()
    asyncio.run(
        main(args.rounds, args.record, peer=not args.no_peer, weasy=args.weasyprint, note=args.note)
    )
