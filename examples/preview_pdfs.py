"""Print renderkit's built-in PDF documents straight through Playwright.

For every sample this builds the standalone document the engine prints (a ``<style>`` with the
packaged Inter ``@font-face`` rules and the documents' stylesheet, then the template's body
fragment), and prints it with ``page.pdf`` using the template's header/footer templates. Use it
to check the documents by eye, or as a starting point for printing them from your own browser
code.

    python examples/preview_pdfs.py /tmp/rk-pdf-previews
    python examples/preview_pdfs.py /tmp/rk-pdf-previews --sample invoice-usd --png

``--png`` also writes page images with ``pdftoppm`` (poppler-utils) next to each PDF. The
certificate is printed at A4 and Letter with every margin, and its page count is checked.
Needs Chromium; by default Debian's headless shell (``--chromium`` to change it).
"""

from __future__ import annotations

import argparse
import base64
import html
import io
import math
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw
from playwright.sync_api import Page, sync_playwright

from renderkit.browser import DEFAULT_CHROMIUM
from renderkit.core.shell import font_face_css
from renderkit.pdf._templates import RenderedDocument, pdf_css, render_document

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--no-first-run",
]
MARGINS = {"none": "0mm", "small": "10mm", "normal": "18mm", "large": "25mm"}
PAGE_SIZES = ("A4", "Letter")


# --------------------------------------------------------------------------------------------
# Sample images (data: URLs drawn with Pillow)


def _png_url(img: Image.Image) -> str:
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=True)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def make_logo(color: str = "#3730a3") -> str:
    """A rounded-square mark with two chevrons, as a data:image/png URL."""
    size = 256
    rgb = tuple(int(color[i : i + 2], 16) for i in (1, 3, 5))
    img = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    draw.rounded_rectangle([0, 0, size - 1, size - 1], radius=58, fill=(*rgb, 255))
    white = (255, 255, 255, 255)
    draw.polygon([(70, 78), (130, 128), (70, 178), (70, 148), (96, 128), (70, 108)], fill=white)
    draw.polygon(
        [(122, 78), (186, 128), (122, 178), (122, 148), (148, 128), (122, 108)],
        fill=(255, 255, 255, 170),
    )
    return _png_url(img)


def make_signature() -> str:
    """A handwritten-looking flourish on a transparent background."""
    width, height = 900, 300
    img = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    ink = (22, 32, 84, 255)
    points = []
    for i in range(400):
        t = i / 399
        x = 60 + t * 720
        y = 170 - 70 * math.sin(t * math.pi * 5.2) * (1 - 0.6 * t) - 40 * math.sin(t * 2.1)
        points.append((x + 25 * math.sin(t * 31), y))
    draw.line(points, fill=ink, width=9, joint="curve")
    draw.line([(120, 235), (820, 200)], fill=ink, width=6)
    return _png_url(img)


# --------------------------------------------------------------------------------------------
# Sample data

_PRODUCTS = [
    ("Design system audit", 1, 2400),
    ("Component library — Figma to React", 12.5, 145),
    ("Accessibility review (WCAG 2.2 AA)", 6, 160),
    ("Cloud hosting, monthly", 1, 89.9),
    ("Support retainer hours", 3.25, 120),
    ("Stock photography licence", 4, 19.99),
    ("Copywriting: landing page, two revisions included", 1, 650),
    ("QA test pass on iOS, Android and desktop browsers", 2, 380),
]


def samples(logo: str, signature: str) -> dict[str, tuple[str, dict[str, Any]]]:
    company = {
        "company_name": "Northwind Studio Ltd",
        "company_address": "4th Floor, 12 Wharf Street\nLondon SE1 2AB\nUnited Kingdom",
        "company_email": "billing@northwind.studio",
        "company_logo": logo,
        "client_name": "Acme Corporation",
        "client_address": "Attn: Accounts Payable\n500 Market Street, Suite 210\n"
        "San Francisco, CA 94105",
        "client_email": "ap@acme.example",
    }
    long_items = [
        {
            "description": f"{_PRODUCTS[i % len(_PRODUCTS)][0]} — sprint {i // 4 + 1}",
            "quantity": _PRODUCTS[i % len(_PRODUCTS)][1],
            "unit_price": _PRODUCTS[i % len(_PRODUCTS)][2],
        }
        for i in range(60)
    ]
    report_sections = [
        {
            "heading": "Executive summary",
            "body": "Revenue grew 18% quarter on quarter, driven by the self-serve plan and a "
            "strong renewal cohort. Gross margin improved to 74% as rendering moved onto warm "
            "browser pools.\n\nWe enter Q4 with a healthy pipeline and two enterprise pilots "
            "that are expected to convert before the end of the year.",
            "bullets": [
                "Monthly recurring revenue up 18% to $412k",
                "Net revenue retention of 118%",
                "Median render time down from 820 ms to 210 ms",
            ],
        },
        {
            "heading": "Product and engineering",
            "body": "The PDF engine shipped in August with invoice, certificate, report and "
            "letter templates. Customers generated 1.2 million documents in the first six "
            "weeks, with a failure rate below 0.02%.\n\nThe screenshot service now blocks "
            "private network targets by default, closing the last open finding from the "
            "spring penetration test.",
            "bullets": [
                "Shipped: PDF templates, signed expiring URLs, MCP endpoint",
                "In progress: speech synthesis voices for German and Japanese",
            ],
        },
        {
            "heading": "Customers",
            "body": "We added 312 paying accounts, 41 of them on the business plan. Churn "
            "fell to 1.9% a month, its lowest level since launch. "
            "Support satisfaction held at 96% across 2,140 conversations.\n\n"
            "The most requested features were custom fonts in PDFs, batch rendering and "
            "webhooks on completion; all three are on the Q4 roadmap.",
            "bullets": [],
        },
        {
            "heading": "Risks",
            "body": "Chromium's release cadence keeps moving the ground under our rendering "
            "tests; we now pin the browser per release and run the visual suite nightly.",
            "bullets": [
                "Dependence on a single object-storage provider",
                "Hiring for two senior platform roles is behind plan",
                "Currency exposure on EUR-denominated contracts",
            ],
        },
        {
            "heading": "Outlook for Q4",
            "body": "We expect revenue of $1.35–1.45M for the quarter, with margins stable. "
            "Priorities are enterprise readiness (SSO, audit logs, regional storage) and "
            "the self-serve upgrade path.\n\nThank you to every team for an exceptional "
            "quarter.",
            "bullets": ["SSO and SCIM by November", "EU data residency by December"],
        },
    ]
    return {
        "invoice-usd": (
            "invoice",
            {
                **company,
                "invoice_number": "INV-2026-0142",
                "invoice_date": "2026-11-22",
                "due_date": "2026-12-22",
                "currency": "USD",
                "line_items": [
                    {
                        "description": "Brand identity workshop (2 days)",
                        "quantity": 2,
                        "unit_price": 1850,
                    },
                    {
                        "description": "Website redesign — design and build",
                        "quantity": 1,
                        "unit_price": 9400,
                    },
                    {
                        "description": "Hosting and maintenance, 12 months",
                        "quantity": 12,
                        "unit_price": 49.5,
                    },
                ],
                "tax_rate": 8.25,
                "notes": "Payment by bank transfer to Northwind Studio Ltd, "
                "account 12345678, sort code 00-11-22, within 30 days.\n\n"
                "Thank you for your business!",
                "brand_color": "#3730a3",
            },
        ),
        "invoice-eur-60": (
            "invoice",
            {
                **company,
                "invoice_number": "2026/0917",
                "invoice_date": "2026-09-30",
                "due_date": "2026-10-30",
                "currency": "EUR",
                "line_items": long_items,
                "tax_rate": 20,
                "discount": 1250,
                "notes": "Reverse charge: VAT to be accounted for by the recipient where "
                "applicable.\nPlease quote the invoice number with your payment.",
                "brand_color": "#0f766e",
            },
        ),
        "invoice-jpy": (
            "invoice",
            {
                "company_name": "Sakura Print KK",
                "company_address": "1-2-3 Shibuya, Shibuya-ku\nTokyo 150-0002, Japan",
                "company_email": "invoice@sakura-print.example",
                "client_name": "Tanaka Trading Co.",
                "invoice_number": "JP-0042",
                "invoice_date": "2026-11-22",
                "due_date": "End of month",
                "currency": "JPY",
                "line_items": [
                    {
                        "description": "名刺印刷 (business cards), 100 pcs",
                        "quantity": 3,
                        "unit_price": 1980,
                    },
                    {"description": "Poster A2, matte", "quantity": 10, "unit_price": 1250},
                ],
                "tax_rate": 10,
                "brand_color": "#be123c",
            },
        ),
        "certificate": (
            "certificate",
            {
                "recipient_name": "Amelia Rodríguez",
                "course_name": "Advanced Data Visualisation",
                "description": "For completing 40 hours of instruction and a capstone project "
                "on communicating uncertainty with interactive charts.",
                "issued_by": "Northwind Academy",
                "issued_date": "2026-11-22",
                "signatory_name": "Dr. Jonathan Hale",
                "signatory_title": "Director of Learning",
                "logo_url": logo,
                "signature_url": signature,
                "brand_color": "#1e3a8a",
            },
        ),
        "report": (
            "report",
            {
                "title": "Quarterly Business Review",
                "subtitle": "Q3 2026 — performance, product progress and outlook",
                "author": "Priya Natarajan, Chief Operating Officer",
                "date": "2026-10-14",
                "company_name": "Northwind Studio",
                "logo_url": logo,
                "brand_color": "#3730a3",
                "sections": report_sections,
            },
        ),
        "letter": (
            "letter",
            {
                "sender_name": "Eleanor Whitfield",
                "sender_address": "Northwind Studio Ltd\n12 Wharf Street\nLondon SE1 2AB",
                "sender_email": "eleanor@northwind.studio",
                "recipient_name": "Mr. David Chen",
                "recipient_title": "Head of Procurement",
                "recipient_company": "Acme Corporation",
                "recipient_address": "500 Market Street, Suite 210\nSan Francisco, CA 94105",
                "date": "2026-11-22",
                "subject": "Proposal for the 2027 design retainer",
                "body": "Dear Mr. Chen,\n\nThank you for meeting with us last week to discuss "
                "Acme's plans for the coming year. As promised, I am writing to set out our "
                "proposal for a design retainer covering your product, marketing and internal "
                "tools teams.\n\nWe propose a dedicated team of three designers and one "
                "front-end engineer, available for 60 hours a week, with a monthly planning "
                "session and a quarterly review of priorities. The retainer would start on "
                "1 February 2027 and run for twelve months.\n\nA detailed scope, timeline and "
                "fee schedule are enclosed. We would be happy to walk your team through them "
                "at a time that suits you.\n\nI look forward to hearing from you.",
                "company_name": "Northwind Studio",
                "logo_url": logo,
                "brand_color": "#3730a3",
            },
        ),
        "certificate-script-issuer-only": (
            "certificate",
            {
                "recipient_name": "Jordan Lee",
                "course_name": "Workplace Safety Essentials",
                "description": "For completing the course and its practical assessment.",
                "issued_by": "Sunny Labs",
                "name_style": "script",
                "brand_color": "#fde047",
            },
        ),
        "invoice-empty": ("invoice", {}),
        "certificate-empty": ("certificate", {}),
        "report-empty": ("report", {}),
        "letter-empty": ("letter", {}),
    }


def stress_samples(logo: str, signature: str) -> dict[str, tuple[str, dict[str, Any]]]:
    """Edge cases: long text everywhere, a light brand colour, a two-page letter."""
    words = (
        "Quarterly reconciliation of consulting hours across three workstreams, including "
        "travel, accommodation and the on-site workshop facilitation in Rotterdam and Lyon"
    )
    return {
        "stress-invoice": (
            "invoice",
            {
                "company_name": "Extremely Long Company Name International Holdings GmbH & Co. KG",
                "company_address": "Hauptstraße 1\n10115 Berlin\nGermany",
                "company_logo": logo,
                "client_name": "<script>alert('x')</script> Client & Sons",
                "invoice_number": "A-2026-000000123456",
                "invoice_date": "22/11/2026",
                "currency": "BHD",
                "line_items": [
                    {
                        "description": f"{words} ({i})" * (1 + i % 3),
                        "quantity": 1 + i,
                        "unit_price": 1234.5678,
                    }
                    for i in range(14)
                ],
                "discount": 99999999,
                "tax_rate": 5,
                "notes": "\n\n".join([words] * 6),
                "brand_color": "#facc15",
            },
        ),
        "stress-certificate": (
            "certificate",
            {
                "recipient_name": "Maximiliana Alexandra Konstantinopoulou-Wittgenstein",
                "title": "Certificate of Professional Achievement in Applied Engineering",
                "course_name": words,
                "description": (words + ". ") * 4,
                "issued_by": "The International Institute of Extremely Long Organisation Names",
                "issued_date": "Spring term, 2026",
                "signatory_name": "Professor Dr. Bartholomew Fitzgerald-Montgomery III",
                "signatory_title": "Vice-Chancellor for Academic Affairs and Lifelong Learning",
                "logo_url": logo,
                "signature_url": signature,
                "brand_color": "#facc15",
            },
        ),
        "stress-letter": (
            "letter",
            {
                "sender_name": "Eleanor Whitfield",
                "sender_email": "eleanor@northwind.studio",
                "recipient_name": "Mr. David Chen",
                "date": "next Tuesday",
                "subject": "A very long letter",
                "body": "Dear David,\n\n"
                + "\n\n".join([words + ". " + words + "."] * 14)
                + "\n\nBest,\nEleanor",
                "closing": "Kind regards",
            },
        ),
    }


# --------------------------------------------------------------------------------------------
# Printing


def build_document(doc: RenderedDocument) -> str:
    """The standalone HTML the engine's shell amounts to: fonts + stylesheet, then the body."""
    title = f"<title>{html.escape(doc.title)}</title>" if doc.title else ""
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8">{title}<style>\n'
        + font_face_css()
        + "\n"
        + pdf_css()
        + "\n</style></head><body>"
        + doc.body
        + "</body></html>"
    )


def print_pdf(
    page: Page, doc: RenderedDocument, path: Path, *, page_size: str, margin: str, landscape: bool
) -> None:
    page.set_content(build_document(doc), wait_until="load")
    page.evaluate("document.fonts.ready.then(() => true)")
    side = MARGINS[margin]
    page.pdf(
        path=str(path),
        format=page_size,
        landscape=landscape or doc.force_landscape,
        margin={"top": side, "right": side, "bottom": side, "left": side},
        print_background=True,
        display_header_footer=bool(doc.header_template or doc.footer_template),
        header_template=doc.header_template or "<span></span>",
        footer_template=doc.footer_template or "<span></span>",
    )


def page_count(path: Path) -> int:
    import pypdfium2

    document = pypdfium2.PdfDocument(str(path))
    try:
        return len(document)
    finally:
        document.close()


def to_png(path: Path, dpi: int = 50) -> None:
    if shutil.which("pdftoppm") is None:
        print("pdftoppm not found (poppler-utils); skipping PNGs", file=sys.stderr)
        return
    subprocess.run(
        ["pdftoppm", "-png", "-r", str(dpi), str(path), str(path.with_suffix(""))], check=True
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder to write the PDFs into")
    parser.add_argument("--sample", action="append", help="only these sample names")
    parser.add_argument("--png", action="store_true", help="also write page PNGs (pdftoppm)")
    parser.add_argument("--stress", action="store_true", help="also print edge-case samples")
    parser.add_argument("--chromium", default=DEFAULT_CHROMIUM)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)

    logo, signature = make_logo(), make_signature()
    data_sets = samples(logo, signature)
    if args.stress:
        data_sets |= stress_samples(logo, signature)
    failures = 0
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
        page = browser.new_page()
        for name, (template, data) in data_sets.items():
            if args.sample and name not in args.sample:
                continue
            doc = render_document(template, data)
            if template == "certificate" and name != "certificate-empty":
                for size in PAGE_SIZES:
                    for margin in MARGINS:
                        path = args.out / f"{name}-{size}-{margin}.pdf"
                        print_pdf(page, doc, path, page_size=size, margin=margin, landscape=True)
                        pages = page_count(path)
                        ok = pages == 1
                        failures += not ok
                        print(f"{path.name}: {pages} page(s){'' if ok else '  <-- expected 1'}")
                        if args.png:
                            to_png(path)
                continue
            path = args.out / f"{name}.pdf"
            print_pdf(page, doc, path, page_size="A4", margin="normal", landscape=False)
            print(f"{path.name}: {page_count(path)} page(s)")
            if args.png:
                to_png(path)
        browser.close()
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
