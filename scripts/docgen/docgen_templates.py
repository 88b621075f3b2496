"""The Templates page: every image and PDF template with its fields, a preview and an example.

Fields come from the request models' JSON Schema (the one the API and MCP tools publish);
previews are rendered here with the real library and Chromium from the sample requests
below, so the gallery shows what the current code draws. Nothing is stored in the repository.
"""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Iterable
from typing import Any

import pypdfium2 as pdfium
from docgen_markdown import fenced, fields_table, rst_to_markdown, table

import renderkit
from renderkit.browser import ChromiumPool
from renderkit.core.schema import json_schema
from renderkit.demo import EINVOICE_SAMPLE, IMAGE_SAMPLES, PDF_SAMPLES


def _first_page_png(pdf: bytes) -> bytes:
    document = pdfium.PdfDocument(pdf)
    try:
        bitmap = document[0].render(scale=96 / 72)  # the first page at 96 dpi
        buffer = io.BytesIO()
        bitmap.to_pil().save(buffer, format="PNG", optimize=True)
        return buffer.getvalue()
    finally:
        document.close()


async def _render_all() -> dict[str, bytes]:
    previews: dict[str, bytes] = {}
    # One at a time: concurrent renders gain little on a small CI machine and can wait past
    # the pool's queue timeout when it is busy.
    async with ChromiumPool() as browser:
        for name, request in IMAGE_SAMPLES.items():
            # Scale 1 keeps the gallery light; the API renders at 2x by default.
            image = await renderkit.render_image({**request, "scale": 1}, browser=browser)
            previews[f"image-{name}.png"] = image.content
        for name, request in PDF_SAMPLES.items():
            pdf = await renderkit.render_pdf(request, browser=browser)
            previews[f"pdf-{name}.png"] = _first_page_png(pdf.content)
        einvoice = await renderkit.render_pdf(EINVOICE_SAMPLE, browser=browser)
        previews["pdf-einvoice.png"] = _first_page_png(einvoice.content)
    return previews


def render_gallery() -> dict[str, bytes]:
    """PNG previews by file name: ``image-og-card.png``, ``pdf-invoice.png``..."""
    return asyncio.run(_render_all())


def _example(request: dict[str, Any], endpoint: str, function: str) -> str:
    body = json.dumps(request, indent=2, ensure_ascii=False)
    return (
        '=== "HTTP"\n\n'
        + _indent(
            fenced(
                "sh",
                f"curl -s http://127.0.0.1:8000/api/{endpoint} "
                '-H "Authorization: Bearer $KEY" \\\n'
                f"     -H 'content-type: application/json' -d @- <<'EOF'\n{body}\nEOF",
            )
        )
        + '\n=== "Python"\n\n'
        + _indent(
            fenced(
                "python",
                f"result = await renderkit.{function}({body}, browser=browser)\n"
                f'result.save("{request["template"]}.{"pdf" if endpoint == "pdf-gen" else "png"}")',
            )
        )
    )


def _names(fields: Iterable[str]) -> str:
    """The declared fields of a template (the one statement the renderer and the request's
    warnings also read), as a readable list."""
    return ", ".join(f"`{name}`" for name in sorted(fields)) or "no `data` field"


def _indent(text: str) -> str:
    return "".join(f"    {line}" if line.strip() else line for line in text.splitlines(True))


def templates_page() -> str:
    """The Templates page's Markdown; the previews it shows are under ``gallery/``."""
    image_schema = json_schema(renderkit.ImageRequest)
    pdf_schema = json_schema(renderkit.PdfRequest)
    image_options = {
        k: v for k, v in image_schema["properties"].items() if k not in ("template", "data")
    }
    pdf_options = {k: v for k, v in pdf_schema["properties"].items() if k not in ("data",)}
    defs = pdf_schema["$defs"]
    parts = [
        "# Templates\n\n",
        "Every template, its fields and a preview rendered from the example request shown "
        "under it. *This page is generated at build time: the field tables from the request "
        "models' JSON Schema (the one the HTTP API and the MCP tools publish), the previews "
        "by the library with Chromium.* Every field is optional unless marked required; a "
        "field a template does not know is refused with a 400 naming it.\n\n",
        "## Image templates\n\n",
        table(
            ("template", "also accepted as", "size (CSS px)"),
            [
                (f"`{t.name}`", ", ".join(f"`{a}`" for a in t.aliases), f"{t.width}x{t.height}")
                for t in renderkit.IMAGE_TEMPLATES
            ],
        ),
        "\nAll image templates share one `data` model; each template below lists the fields it "
        "displays. A field the template does not display is ignored and named in the "
        "response's `warnings` (refused with a 400 when the request has `strict: true`). "
        "Request options are in [Image request options](#image-request-options).\n\n",
        "### Image `data` fields\n\n",
        fields_table(image_schema["$defs"]["ImageData"]),
    ]
    for template in renderkit.IMAGE_TEMPLATES:
        request = IMAGE_SAMPLES[template.name]
        parts += [
            f"\n### {template.name}\n\n",
            f"{template.width}x{template.height}. Displays {_names(template.content_fields)}"
            + (" and the colour fields" if template.content_fields else "")
            + ".\n\n",
            f"![{template.name} preview](gallery/image-{template.name}.png)\n\n",
            _example(request, "image", "render_image"),
        ]
    parts += [
        "\n### Image request options\n\n",
        fields_table({"properties": image_options}),
        "\n## PDF templates\n\n",
        "Request options are in [PDF request options](#pdf-request-options).\n\n",
    ]
    models = {
        "invoice": ("InvoiceData", "LineItem", "PaymentDetails", "Party"),
        "certificate": ("CertificateData",),
        "report": ("ReportData", "ReportSection"),
        "letter": ("LetterData",),
        "custom": ("CustomData",),
    }
    for name in dict.fromkeys(renderkit.PDF_TEMPLATES.values()):
        aliases = [a for a, canonical in renderkit.PDF_TEMPLATES.items() if canonical == name]
        parts.append(f"\n### {name}\n\n")
        parts.append("Names: " + ", ".join(f"`{a}`" for a in aliases) + ".\n\n")
        parts.append(f"Displays {_names(renderkit.PDF_TEMPLATE_FIELDS[name])}.\n\n")
        for model in models.get(name, ()):
            schema = defs[model]
            if schema.get("description"):
                parts.append(rst_to_markdown(schema["description"]) + "\n\n")
            parts.append(f"`{model}` fields:\n\n" + fields_table(schema) + "\n")
        parts.append(f"![{name} preview: first page](gallery/pdf-{name}.png)\n\n")
        parts.append(_example(PDF_SAMPLES[name], "pdf-gen", "render_pdf"))
        if name == "invoice":
            parts += [
                "\n#### invoice as a Factur-X e-invoice\n\n",
                "With `einvoice`, the same page becomes a PDF/A-3b carrying the EN 16931 XML "
                "(see [E-invoices](einvoices.md)).\n\n",
                "![Factur-X invoice preview: first page](gallery/pdf-einvoice.png)\n\n",
                _example(EINVOICE_SAMPLE, "pdf-gen", "render_pdf"),
            ]
    parts += ["\n### PDF request options\n\n", fields_table({"properties": pdf_options})]
    return "".join(parts)
