"""``renderkit demo``: every image and PDF template, and a speech sample, rendered into a folder.

The templates come from the registries (:data:`renderkit.image.IMAGE_TEMPLATES`,
:data:`renderkit.pdf.PDF_TEMPLATES`), so a new template is in the demo from the day it
is added; sample data below only makes it look its best.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from renderkit.browser import ChromiumPool
from renderkit.core.cli import CommandError, add_browser_arguments, browser_config, command
from renderkit.image import IMAGE_TEMPLATES, render_image
from renderkit.pdf import PDF_TEMPLATES, render_pdf
from renderkit.speech import LocalSpeechProvider, synthesize

__all__ = ["add_demo_command", "demo_templates", "run_demo_command"]

_CUSTOM_HTML = """<!doctype html><html><body style="margin:0;height:100vh;display:grid;
place-items:center;background:linear-gradient(135deg,#0f172a,#4f46e5);color:#fff;
font:700 64px system-ui,sans-serif">Your own HTML, rendered as is</body></html>"""

# Request fields beyond the template name, per template; one missing here renders with {}.
_IMAGE_SAMPLES: dict[str, dict[str, Any]] = {
    "og-card": {
        "data": {
            "tag": "Release 1.0",
            "title": "Render anything from JSON, in milliseconds",
            "subtitle": "Images, PDFs, screenshots, speech and parsing behind one API.",
            "domain": "renderkit.dev",
            "background": "dark",
        }
    },
    "social-square": {
        "data": {
            "tag": "New",
            "title": "Ship social cards without a designer 🎨",
            "subtitle": "Four templates, three themes, your brand colour.",
            "cta": "Try it free",
            "background": "gradient",
            "brand_color": "#ec4899",
        }
    },
    "twitter-card": {
        "data": {
            "title": "How we render an OG image in 60 ms",
            "subtitle": "Warm pages, DOM swaps and a fast PNG encoder.",
            "domain": "blog.renderkit.dev",
            "background": "light",
        }
    },
    "announcement": {
        "data": {
            "tag": "Webinar",
            "title": "Automating documents at scale",
            "subtitle": "Thursday, 3 December · 17:00 CET",
            "cta": "Register",
            "background": "gradient",
            "brand_color": "#0ea5e9",
        }
    },
    "custom": {"html": _CUSTOM_HTML},
}

_PDF_SAMPLES: dict[str, dict[str, Any]] = {
    "invoice": {
        "data": {
            "company_name": "Renderkit Ltd",
            "company_address": "1 Market Street\nLondon EC1A 1AA",
            "client_name": "Acme Corp",
            "client_address": "500 Howard St\nSan Francisco, CA",
            "invoice_number": "INV-0042",
            "invoice_date": "2026-11-24",
            "due_date": "2026-12-24",
            "currency": "EUR",
            "line_items": [
                {"description": "Pro plan, November", "quantity": 1, "unit_price": 99},
                {"description": "Extra renders (10k)", "quantity": 3, "unit_price": 12.5},
            ],
            "tax_rate": 20,
            "notes": "Thank you for your business.",
        }
    },
    "certificate": {
        "data": {
            "recipient_name": "Ada Lovelace",
            "course_name": "Document automation with renderkit",
            "issued_by": "Renderkit Academy",
            "issued_date": "2026-11-24",
            "signatory_name": "Grace Hopper",
            "signatory_title": "Head of training",
            "description": "For completing twelve hands-on lessons.",
        }
    },
    "report": {
        "data": {
            "title": "Quarterly rendering report",
            "subtitle": "Q3 2026",
            "author": "Renderkit team",
            "date": "2026-10-01",
            "sections": [
                {
                    "heading": "Summary",
                    "body": "Renders grew steadily; latency stayed flat.",
                    "bullets": ["1.2M images", "85k PDFs", "p95 under 300 ms"],
                },
                {"heading": "Next", "body": "Batch jobs and a documentation site."},
            ],
        }
    },
    "letter": {
        "data": {
            "company_name": "Renderkit Ltd",
            "sender_name": "Sam Render",
            "recipient_name": "Jordan Doe",
            "recipient_company": "Acme Corp",
            "date": "2026-11-24",
            "subject": "Your renderkit account",
            "body": "Thank you for choosing renderkit.\n\nYour account is ready to use.",
        }
    },
    "custom": {"html": "<h1>Custom HTML</h1><p>Any document, printed to PDF.</p>"},
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
            image = await render_image(
                {"template": name, **_IMAGE_SAMPLES.get(name, {})}, browser=pool
            )
            path = image.save(folder / f"{name}.png")
            print(f"{path}  {image.width}x{image.height} {image.size_bytes:,} B")
        for name in pdfs:
            pdf = await render_pdf({"template": name, **_PDF_SAMPLES.get(name, {})}, browser=pool)
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
