"""Benchmark: a 30-line Factur-X invoice end to end vs the same invoice as a plain PDF.

    python bench/bench_einvoice.py [--rounds 20] [--record bench/results.toml]

End to end is render_pdf with ``einvoice: factur-x``: the e-invoice rules, the CII XML
(drafthorse), its XSD and EN 16931 Schematron checks (Saxon), the render, the sRGB output
intent and the embedding with XMP (factur-x). The plain invoice is the same request without
``einvoice``. Both interleave round by round on one warm pool; the e-invoice stages are then
timed on their own in the same run, so the difference can be read off them.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import statistics
import time
from pathlib import Path
from typing import Any

from _record import add_record_option, record

from renderkit import PdfRequest, render_pdf, structure
from renderkit.browser import BrowserConfig, ChromiumPool
from renderkit.demo import EINVOICE_SAMPLE
from renderkit.pdf.einvoice import pdfa3_with_xml, validate_einvoice_xml, write_einvoice
from renderkit.pdf.einvoice._cii import cii_xml
from renderkit.pdf.einvoice._facts import invoice_facts


def _thirty_lines() -> dict[str, Any]:
    request = copy.deepcopy(EINVOICE_SAMPLE)
    base = request["data"]["line_items"]
    request["data"]["line_items"] = [
        {**base[i % len(base)], "description": f"{base[i % len(base)]['description']} #{i + 1}"}
        for i in range(30)
    ]
    return request


def _ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


async def main(rounds: int, record_to: Path | None) -> None:
    einvoice = _thirty_lines()
    plain = {k: v for k, v in einvoice.items() if k != "einvoice"}
    req = structure(einvoice, PdfRequest)
    profile = req.einvoice_profile_info
    times: dict[str, list[float]] = {k: [] for k in ("factur-x", "plain", "xml", "check", "pdfa")}
    async with ChromiumPool(BrowserConfig(slots=2)) as pool:
        for _ in range(3):
            await render_pdf(einvoice, browser=pool)
            plain_pdf = (await render_pdf(plain, browser=pool)).content
        for _ in range(rounds):
            t = time.perf_counter()
            result = await render_pdf(einvoice, browser=pool)
            times["factur-x"].append(time.perf_counter() - t)
            t = time.perf_counter()
            await render_pdf(plain, browser=pool)
            times["plain"].append(time.perf_counter() - t)
    assert result.einvoice_checks == ("xsd", "schematron-en16931")
    assert req.data is not None
    for _ in range(rounds):
        t = time.perf_counter()
        xml = cii_xml(invoice_facts(req.data), profile)  # type: ignore[arg-type]
        times["xml"].append(time.perf_counter() - t)
        t = time.perf_counter()
        validate_einvoice_xml(xml, profile)
        times["check"].append(time.perf_counter() - t)
        t = time.perf_counter()
        pdfa3_with_xml(plain_pdf, xml, level="en16931", title="", author="", subject="", lang="de")
        times["pdfa"].append(time.perf_counter() - t)
    write_einvoice(req.data, profile)  # type: ignore[arg-type]
    labels = {
        "factur-x": "Factur-X invoice, end to end",
        "plain": "the same invoice, plain PDF",
        "xml": "  of which: CII XML (drafthorse, its XSD check)",
        "check": "  of which: XSD + EN 16931 Schematron (Saxon)",
        "pdfa": "  of which: output intent + embed + XMP (factur-x)",
    }
    for key, label in labels.items():
        print(f"{label:52s} median {_ms(times[key]):7.1f} ms (n={rounds})")
    print(f"30 lines, {len(result.content):,} bytes PDF/A-3b, {len(xml):,} bytes XML")
    record(
        record_to,
        benchmark="bench_einvoice.py",
        case="a 30-line Factur-X EN 16931 invoice end to end (render, XML, checks, PDF/A-3b)",
        unit="ms",
        renderkit=_ms(times["factur-x"]),
        peer="the same invoice as a plain PDF (no e-invoice), same pool, interleaved",
        peer_median=_ms(times["plain"]),
        notes=(
            f"XML {_ms(times['xml']):.1f} ms, XSD+Schematron {_ms(times['check']):.1f} ms, "
            f"PDF/A+embed {_ms(times['pdfa']):.1f} ms (medians, same run)"
        ),
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=20)
    add_record_option(parser)
    args = parser.parse_args()
    asyncio.run(main(args.rounds, args.record))
