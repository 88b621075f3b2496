"""``renderkit demo``: every image and PDF template, and a speech sample, rendered into a folder.

The templates come from the registries (:data:`renderkit.image.IMAGE_TEMPLATES`,
:data:`renderkit.pdf.PDF_TEMPLATES`), so a new template is in the demo from the day it
is added; the sample requests below (also the documentation gallery's) only make it look its best.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from renderkit.browser import ChromiumPool
from renderkit.browser.cli import add_browser_arguments, browser_config
from renderkit.core.cli import CommandError, command
from renderkit.image import IMAGE_TEMPLATES, render_image
from renderkit.pdf import PDF_TEMPLATES, render_pdf
from renderkit.speech import LocalSpeechProvider, synthesize

__all__ = [
    "EINVOICE_SAMPLE",
    "IMAGE_SAMPLES",
    "PDF_SAMPLES",
    "add_demo_command",
    "demo_templates",
    "run_demo_command",
]

#: A sample request per image template: the demo and the documentation gallery render these.
IMAGE_SAMPLES: dict[str, dict[str, Any]] = {
    "og-card": {
        "template": "og-card",
        "data": {
            "tag": "Release 1.0",
            "title": "Render anything from JSON, in milliseconds",
            "subtitle": "Images, PDFs, screenshots, speech and parsing behind one API.",
            "domain": "renderkit.dev",
            "background": "dark",
        },
    },
    "social-square": {
        "template": "social-square",
        "data": {
            "tag": "New",
            "title": "Ship social cards without a designer",
            "subtitle": "Four templates, three themes, your brand colour.",
            "cta": "Try it free",
            "background": "gradient",
            "brand_color": "#ec4899",
        },
    },
    "twitter-card": {
        "template": "twitter-card",
        "data": {
            "title": "How we render an OG image in 60 ms",
            "subtitle": "Warm pages, DOM swaps and a fast PNG encoder.",
            "domain": "blog.renderkit.dev",
            "background": "light",
        },
    },
    "announcement": {
        "template": "announcement",
        "data": {
            "tag": "Webinar",
            "title": "Automating documents at scale",
            "subtitle": "Thursday, 3 December · 17:00 CET",
            "cta": "Register",
            "background": "gradient",
            "brand_color": "#0ea5e9",
        },
    },
    "custom": {
        "template": "custom",
        "width": 800,
        "height": 300,
        "html": (
            "<style>html, body { margin: 0; height: 100% }</style>"
            '<div style="height:100%;display:grid;place-items:center;'
            "background:linear-gradient(135deg,#0f172a,#4338ca);color:white;"
            'font:700 56px Inter,sans-serif">Your HTML, rendered</div>'
        ),
    },
}

#: A sample request per PDF template.
PDF_SAMPLES: dict[str, dict[str, Any]] = {
    "invoice": {
        "template": "invoice",
        "data": {
            "company_name": "Northwind Studio",
            "company_address": "12 Harbour Road, Bristol BS1 4DJ",
            "client_name": "Contoso Ltd",
            "client_address": "1 Market Street, London EC2A 1AA",
            "invoice_number": "INV-0042",
            "invoice_date": "2026-11-02",
            "due_date": "2026-12-02",
            "currency": "EUR",
            "tax_rate": 20,
            "line_items": [
                {"description": "Brand workshop", "quantity": 1, "unit_price": 1800},
                {"description": "Landing page design", "quantity": 3, "unit_price": 950},
                {"description": "Illustrations", "quantity": 6, "unit_price": 120},
            ],
            "notes": "Thank you for your business.",
            "payment": {
                "account_holder": "Northwind Studio Ltd",
                "bank_name": "Example Bank",
                "iban": "GB82WEST12345698765432",
                "bic": "WESTGB2L",
                "reference": "INV-0042",
            },
        },
    },
    "certificate": {
        "template": "certificate",
        "data": {
            "recipient_name": "Ada Lovelace",
            "course_name": "Analytical Engines, Advanced",
            "description": "For completing 40 hours of coursework with distinction.",
            "issued_by": "Babbage Institute",
            "issued_date": "2026-11-20",
            "signatory_name": "Charles Babbage",
            "signatory_title": "Director",
        },
    },
    "report": {
        "template": "report",
        "data": {
            "title": "Quarterly performance",
            "subtitle": "Q3 2026",
            "author": "Finance team",
            "company_name": "Northwind Studio",
            "sections": [
                {
                    "heading": "Summary",
                    "body": "Revenue grew 18% on the quarter; margins held at 31%.",
                    "bullets": ["Three new enterprise clients", "Churn down to 2.1%"],
                },
                {"heading": "Outlook", "body": "We expect steady growth through Q4."},
            ],
        },
    },
    "letter": {
        "template": "letter",
        "data": {
            "sender_name": "Northwind Studio",
            "sender_address": "12 Harbour Road, Bristol BS1 4DJ",
            "recipient_name": "Jane Doe",
            "recipient_company": "Contoso Ltd",
            "recipient_address": "1 Market Street, London EC2A 1AA",
            "date": "2026-11-24",
            "subject": "Our proposal",
            "body": "Dear Jane,\n\nThank you for meeting us last week. Please find our "
            "proposal enclosed.\n\nWe look forward to working with you.",
            "closing": "Kind regards",
        },
    },
    "custom": {
        "template": "custom",
        "html": "<h1>Hello</h1><p>Any HTML document, printed by Chromium.</p>",
        "footer_html": '<div style="font-size:9px;margin:auto">'
        '<span class="pageNumber"></span> / <span class="totalPages"></span></div>',
    },
}


#: A complete Factur-X (EN 16931) invoice request: the e-invoice guide and the gallery show
#: it, the tests check that it validates and parses back exactly.
EINVOICE_SAMPLE: dict[str, Any] = {
    "template": "invoice",
    "einvoice": "factur-x",
    "locale": "de-DE",
    "data": {
        "company_name": "Nordlicht Werkzeuge GmbH",
        "company_email": "rechnung@nordlicht.example",
        "client_name": "Hafenbau Kiel AG",
        "client_email": "kreditoren@hafenbau.example",
        "invoice_number": "NW-2026-0815",
        "invoice_date": "2026-03-02",
        "due_date": "2026-04-01",
        "currency": "EUR",
        "tax_rate": 19,
        "discount": 25,
        "buyer_reference": "04011000-12345-03",
        "seller": {
            "street": "Werftstraße 12",
            "postcode": "24143",
            "city": "Kiel",
            "country": "DE",
            "vat_id": "DE 123 456 789",
            "contact_name": "Jana Ohlsen",
            "phone": "+49 431 555 0100",
        },
        "buyer": {
            "street": "Kaistraße 1",
            "postcode": "24103",
            "city": "Kiel",
            "country": "DE",
            "vat_id": "DE987654321",
        },
        "payment": {
            "account_holder": "Nordlicht Werkzeuge GmbH",
            "iban": "DE89 3704 0044 0532 0130 00",
            "bic": "COBADEFFXXX",
            "reference": "NW-2026-0815",
        },
        "line_items": [
            {"description": "Drehmomentschlüssel 40-200 Nm", "quantity": 4, "unit_price": 189.9},
            {
                "description": "Montage vor Ort",
                "quantity": 6.5,
                "unit_price": 78,
                "unit_code": "HUR",
            },
            {
                "description": "Fachbuch Schweißtechnik",
                "quantity": 2,
                "unit_price": 49.95,
                "tax_rate": 7,
            },
            {
                "description": "Versicherung des Transports",
                "quantity": 1,
                "unit_price": 35,
                "tax_category": "E",
                "tax_exemption_reason": "Steuerfrei nach § 4 Nr. 10 UStG",
            },
        ],
        "notes": "Vielen Dank für Ihren Auftrag.",
    },
}


_SPEECH_SAMPLE = "Hello from renderkit. This sample was spoken offline by espeak N G."


def demo_templates() -> tuple[list[str], list[str]]:
    """The image and PDF template names the demo renders: each registry's canonical names."""
    images = [template.name for template in IMAGE_TEMPLATES]
    pdfs = list(dict.fromkeys(PDF_TEMPLATES.values()))
    return images, pdfs


def add_demo_command(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``demo`` sub-command to ``parser.add_subparsers()``'s result."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "demo",
        help="render every image and PDF template and a speech sample into a folder",
        description="Render every image and PDF template with sample data, and a speech "
        "sample with the offline engine (espeak-ng), into a folder.",
    )
    parser.add_argument("-o", "--output", type=Path, default=Path("renderkit-demo"), metavar="DIR")
    parser.add_argument("--espeak", default="espeak-ng", help="the espeak-ng executable")
    add_browser_arguments(parser)
    parser.set_defaults(run=run_demo_command)
    return parser


def _directory(path: Path) -> Path:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        msg = f"-o: cannot create {path}: {exc.strerror or exc}"
        raise CommandError(msg) from exc
    return path


@command("demo")
async def run_demo_command(args: argparse.Namespace) -> int:
    """Run ``renderkit demo``: print one line per file written; returns the exit status.

    Raises:
        CommandError: the folder cannot be created (exit 2).
        RenderkitError: a render or the speech sample failed.
    """
    folder = _directory(args.output)
    images, pdfs = demo_templates()
    async with ChromiumPool(browser_config(args)) as pool:
        for name in images:
            image = await render_image(IMAGE_SAMPLES.get(name, {"template": name}), browser=pool)
            path = image.save(folder / f"{name}.png")
            print(f"{path}  {image.width}x{image.height} {image.size_bytes:,} B")
        for name in pdfs:
            pdf = await render_pdf(PDF_SAMPLES.get(name, {"template": name}), browser=pool)
            path = pdf.save(folder / f"{name}.pdf")
            print(f"{path}  {pdf.pages} page(s) {pdf.size_bytes:,} B")
    provider = LocalSpeechProvider(args.espeak)
    try:
        audio = await synthesize({"script": _SPEECH_SAMPLE, "format": "mp3"}, provider=provider)
    finally:
        await provider.aclose()
    path = audio.save(folder / "speech.mp3")
    print(f"{path}  {audio.duration_seconds:.1f} s {audio.size_bytes:,} B")
    return 0
