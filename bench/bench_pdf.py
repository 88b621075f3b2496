"""Benchmark: the invoice template to PDF with a warm pool vs WeasyPrint on the same HTML,
and what PDF/A and tagging cost on top of a plain PDF.

    python bench/bench_pdf.py [--rounds 30] [--record bench/results.toml] [--no-peer]

Both produce the same document (the invoice fragment inside the same shell: packaged Inter
fonts and the document CSS), interleaved round by round. WeasyPrint runs in a worker thread
as a server would run it. Install it with `pip install weasyprint` (nox -s bench does);
``--no-peer`` measures renderkit alone. The PDF/A-2b, tagged and PDF/A-2b + tagged variants
of the same request run in the same rounds, so the medians compare like with like.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from pathlib import Path

from _record import add_record_option, record

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


async def main(rounds: int, record_to: Path | None, *, peer: bool = True) -> None:
    if peer:
        import weasyprint

    document = render_document("invoice", INVOICE)
    html = (
        f"<!doctype html><html><head><meta charset='utf-8'>{pdf_shell().head}"
        "<style>@page { size: A4; margin: 0.7in }</style></head>"
        f"<body><div id='rk-root'>{document.body}</div></body></html>"
    )

    def weasy() -> bytes:
        return weasyprint.HTML(string=html).write_pdf() if peer else b""

    body = {"template": "invoice", "data": INVOICE}
    bodies = {name: {**body, **changes} for name, changes in VARIANTS.items()}
    async with ChromiumPool(BrowserConfig(slots=2)) as pool:
        for _ in range(3):
            for request in (body, *bodies.values()):
                await render_pdf(request, browser=pool)
            await asyncio.to_thread(weasy)
        ours, theirs = [], []
        variants: dict[str, list[float]] = {name: [] for name in bodies}
        for _ in range(rounds):
            t = time.perf_counter()
            await render_pdf(body, browser=pool)
            ours.append(time.perf_counter() - t)
            for name, request in bodies.items():
                t = time.perf_counter()
                await render_pdf(request, browser=pool)
                variants[name].append(time.perf_counter() - t)
            t = time.perf_counter()
            await asyncio.to_thread(weasy)
            theirs.append(time.perf_counter() - t)
    print(f"renderkit invoice pdf (warm pool)  {summary(ours)}")
    for name, times in variants.items():
        extra = (statistics.median(times) - statistics.median(ours)) * 1000
        print(f"  {name:<18} {summary(times)}  ({extra:+.1f} ms on the plain median)")
    if not peer:
        return
    print(f"WeasyPrint {weasyprint.__version__}, same HTML      {summary(theirs)}")
    ratio = statistics.median(ours) / statistics.median(theirs)
    print(f"renderkit time / WeasyPrint time: {ratio:.2f}")
    record(
        record_to,
        benchmark="bench_pdf.py",
        case="the invoice template to PDF, warm pool",
        unit="ms",
        renderkit=statistics.median(ours) * 1000,
        peer=f"WeasyPrint {weasyprint.__version__} on the same HTML, in a worker thread",
        peer_median=statistics.median(theirs) * 1000,
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--no-peer", action="store_true", help="skip WeasyPrint")
    add_record_option(parser)
    args = parser.parse_args()
    asyncio.run(main(args.rounds, args.record, peer=not args.no_peer))
