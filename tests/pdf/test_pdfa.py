"""PDF/A-2b and PDF/A-3b, and tagged PDFs, through a real Chromium: every template and custom
HTML, read back with pikepdf (see ``_pdfa_checks``) and compared as pixels with pdftoppm."""

from __future__ import annotations

import io
import shutil
import subprocess
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pikepdf
import pytest
from PIL import Image, ImageChops

from renderkit import InvalidRequestError, RenderError, render_pdf
from renderkit.browser import ChromiumPool
from renderkit.core.converter import structure
from renderkit.pdf import PdfRequest
from renderkit.pdf._headings import heading_texts
from renderkit.pdf._pdfa import DocumentInfo, finish_document

from ._einvoice_data import sample
from ._pdfa_checks import pdfa_problems

pytestmark = pytest.mark.anyio

# A dot of transparent PNG, drawn scaled: an image with a soft mask that Chromium smooths.
_DOT = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAYAAABytg0kAAAAFklEQVQIW2P4z8Dw"
    "n4GBgYGJgYGBAQAl/wP9oMr6SAAAAABJRU5ErkJggg=="
)
CUSTOM_HTML = f"""<!doctype html><html><head><title>Field notes</title>
<style>body {{ font-family: serif; }} .veil {{ opacity: .5; background: #c33; }}</style>
</head><body>
<h1>Field notes</h1>
<p>Ein Absatz mit Umlauten: äöü ß, and <a href="https://example.com/">a link</a>.</p>
<h2>Methods</h2><p class="veil">Half transparent.</p><img src="{_DOT}" width="120" height="120">
<h3>Sampling</h3><p>Dritter Abschnitt.</p>
</body></html>"""

TEMPLATES: dict[str, dict[str, Any]] = {
    "invoice": {
        "template": "invoice",
        "data": {
            "company_name": "Northwind Studio",
            "client_name": "Contoso Ltd",
            "invoice_number": "INV-7",
            "line_items": [{"description": "Design", "quantity": 2, "unit_price": 1500}],
            "tax_rate": 20,
        },
    },
    "certificate": {
        "template": "certificate",
        "data": {"recipient_name": "Ada Lovelace", "course_name": "Analytical Engines"},
    },
    "report": {
        "template": "report",
        "locale": "de",
        "data": {
            "title": "Quartalsbericht",
            "sections": [
                {"heading": "Umsatz", "body": "Gestiegen."},
                {"heading": "Kosten", "body": "Gesunken.", "bullets": ["Miete", "Strom"]},
            ],
        },
    },
    "letter": {
        "template": "letter",
        "data": {"recipient_name": "Grace Hopper", "subject": "Compilers", "body": "Dear Grace,"},
    },
    "custom": {"template": "custom", "html": CUSTOM_HTML, "title": "Field notes"},
}


def _outline(content: bytes) -> list[tuple[int, str]]:
    with pikepdf.open(io.BytesIO(content)) as pdf, pdf.open_outline() as outline:
        found: list[tuple[int, str]] = []

        def walk(items: list[Any], depth: int) -> None:
            for item in items:
                found.append((depth, item.title))
                walk(item.children, depth + 1)

        walk(outline.root, 1)
        return found


@pytest.mark.browser
@pytest.mark.parametrize("standard", ["PDF/A-2b", "PDF/A-3b"])
@pytest.mark.parametrize("name", list(TEMPLATES))
async def test_every_template_and_custom_html_prints_as_a_conforming_pdfa(
    pool: ChromiumPool, name: str, standard: str
) -> None:
    result = await render_pdf({**TEMPLATES[name], "pdf_standard": standard}, browser=pool)

    assert result.pdf_standard == standard
    assert pdfa_problems(result.content, standard) == []
    with pikepdf.open(io.BytesIO(result.content)) as pdf:
        # Chromium embedded every font it used, as TrueType outlines.
        fonts = [o for o in pdf.objects if isinstance(o, pikepdf.Dictionary) and "/FontName" in o]
        assert fonts
        assert all("/FontFile2" in descriptor for descriptor in fonts)
        assert str(pdf.Root.Lang) == TEMPLATES[name].get("locale", "en")


@pytest.mark.browser
async def test_a_plain_pdf_is_left_plain_and_the_checks_say_why_it_is_no_pdfa(
    pool: ChromiumPool,
) -> None:
    result = await render_pdf(TEMPLATES["letter"], browser=pool)

    assert result.pdf_standard is None
    assert result.tagged is False
    problems = pdfa_problems(result.content, "PDF/A-2b")
    assert "the catalog has not exactly one output intent" in problems
    assert "the catalog has no XMP metadata" in problems


@pytest.mark.browser
async def test_a_tagged_report_has_a_structure_tree_its_language_and_an_outline_of_its_headings(
    pool: ChromiumPool,
) -> None:
    result = await render_pdf({**TEMPLATES["report"], "tagged": True}, browser=pool)

    assert result.tagged is True
    with pikepdf.open(io.BytesIO(result.content)) as pdf:
        root = pdf.Root
        assert root.StructTreeRoot.get("/K") is not None
        assert root.MarkInfo.Marked is True
        assert str(root.Lang) == "de"
        assert root.ViewerPreferences.DisplayDocTitle is True
        assert str(pdf.docinfo.Title) == "Quartalsbericht"
        assert pdf.open_metadata()["dc:title"] == "Quartalsbericht"
    # The title is the h1, each section an h2; the section numbers are not part of them.
    assert _outline(result.content) == [(1, "Quartalsbericht"), (2, "Umsatz"), (2, "Kosten")]


@pytest.mark.browser
async def test_tagged_custom_html_is_outlined_by_its_headings_and_can_be_pdfa_too(
    pool: ChromiumPool,
) -> None:
    request = {**TEMPLATES["custom"], "tagged": True, "pdf_standard": "PDF/A-3b", "locale": "de"}

    result = await render_pdf(request, browser=pool)

    assert _outline(result.content) == [(1, "Field notes"), (2, "Methods"), (3, "Sampling")]
    assert pdfa_problems(result.content, "PDF/A-3b") == []
    with pikepdf.open(io.BytesIO(result.content)) as pdf:
        assert str(pdf.Root.Lang) == "de"
        assert "/StructTreeRoot" in pdf.Root


@pytest.mark.browser
async def test_a_factur_x_invoice_is_a_pdfa_3b_carrying_only_its_xml(pool: ChromiumPool) -> None:
    result = await render_pdf(sample(tagged=True), browser=pool)

    assert result.pdf_standard == "PDF/A-3b"
    attachments = frozenset({"factur-x.xml"})
    assert pdfa_problems(result.content, "PDF/A-3b", attachments=attachments) == []
    with pikepdf.open(io.BytesIO(result.content)) as pdf:
        meta = pdf.open_metadata()
        # The Factur-X extension schema survives the PDF/A finishing.
        assert "factur-x.xml" in str(meta)
        assert "/StructTreeRoot" in pdf.Root


def pages_png(content: bytes, folder: Path, stem: str, *, dpi: int = 60) -> list[Image.Image]:
    """Every page of the PDF ``content`` as an image (pdftoppm at ``dpi``), in order."""
    source = folder / f"{stem}.pdf"
    source.write_bytes(content)
    pdftoppm = shutil.which("pdftoppm")
    assert pdftoppm is not None
    subprocess.run([pdftoppm, "-r", str(dpi), "-png", source, folder / stem], check=True)
    return [Image.open(path).convert("RGB") for path in sorted(folder.glob(f"{stem}-*.png"))]


@pytest.mark.browser
@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="pdftoppm (poppler-utils) missing")
@pytest.mark.parametrize("name", ["invoice", "custom"])
async def test_pdfa_finishing_does_not_change_how_the_pages_look(
    pool: ChromiumPool, name: str
) -> None:
    plain = (await render_pdf(TEMPLATES[name], browser=pool)).content
    info = DocumentInfo(title="Same", lang="en")

    archival = finish_document(plain, info=info, standard="PDF/A-2b", tagged=True)

    assert pdfa_problems(archival, "PDF/A-2b") == []
    with tempfile.TemporaryDirectory() as folder:
        before = pages_png(plain, Path(folder), "plain")
        after = pages_png(archival, Path(folder), "pdfa")
    assert before
    assert len(before) == len(after)
    for one, other in zip(before, after, strict=True):
        assert ImageChops.difference(one, other).getbbox() is None


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"pdf_standard": "PDF/A-1b"}, "pdf_standard"),
        ({"pdf_standard": "PDF/X-4"}, "pdf_standard"),
        ({"pdf_standard": 2}, "pdf_standard"),
        ({"tagged": "very"}, "tagged"),
    ],
)
def test_an_unknown_pdf_standard_or_a_bad_tagged_is_refused_naming_the_field(
    changes: dict[str, Any], field: str
) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        structure({**TEMPLATES["letter"], **changes}, PdfRequest)

    assert [e.field for e in caught.value.errors] == [field]


def test_a_pdf_standard_is_read_in_any_case() -> None:
    request = structure({**TEMPLATES["letter"], "pdf_standard": "pdf/a-3B"}, PdfRequest)

    assert request.pdf_standard == "PDF/A-3b"


def test_a_factur_x_invoice_cannot_be_pdfa_2b() -> None:
    with pytest.raises(InvalidRequestError) as caught:
        structure(sample(pdf_standard="PDF/A-2b"), PdfRequest)

    assert [e.field for e in caught.value.errors] == ["pdf_standard"]


@pytest.mark.parametrize("field", ["pdf_standard", "tagged"])
def test_an_e_invoice_answered_as_xml_refuses_pdf_options(field: str) -> None:
    value = "PDF/A-3b" if field == "pdf_standard" else True
    with pytest.raises(InvalidRequestError) as caught:
        structure(sample(einvoice="xrechnung", **{field: value}), PdfRequest)

    assert [e.field for e in caught.value.errors] == [field]
    embedded = structure(
        sample(einvoice="xrechnung", einvoice_embed=True, **{field: value}), PdfRequest
    )
    assert embedded.effective_pdf_standard == "PDF/A-3b"


def _pdf_with(*, annotation_flags: int, interpolate: bool, font_file: bool) -> bytes:
    pdf = pikepdf.new()
    pdf.add_blank_page(page_size=(200, 200))
    page = pdf.pages[0].obj
    descriptor = pikepdf.Dictionary(Type=pikepdf.Name.FontDescriptor, FontName=pikepdf.Name.Lost)
    if font_file:
        descriptor.FontFile2 = pdf.make_stream(b"\x00\x01\x00\x00")
    font = pikepdf.Dictionary(
        Type=pikepdf.Name.Font,
        Subtype=pikepdf.Name.TrueType,
        BaseFont=pikepdf.Name.Lost,
        FontDescriptor=pdf.make_indirect(descriptor),
    )
    image = pdf.make_stream(
        b"\xff\x00\x00",
        Type=pikepdf.Name.XObject,
        Subtype=pikepdf.Name.Image,
        Width=1,
        Height=1,
        ColorSpace=pikepdf.Name.DeviceRGB,
        BitsPerComponent=8,
        Interpolate=interpolate,
    )
    page.Resources = pikepdf.Dictionary(
        Font=pikepdf.Dictionary(F1=font), XObject=pikepdf.Dictionary(Im1=image)
    )
    page.Annots = pikepdf.Array(
        [
            pdf.make_indirect(
                pikepdf.Dictionary(
                    Type=pikepdf.Name.Annot,
                    Subtype=pikepdf.Name.Link,
                    Rect=[0, 0, 10, 10],
                    F=annotation_flags,
                )
            )
        ]
    )
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


def test_finishing_makes_hidden_annotations_printable_and_drops_image_interpolation() -> None:
    source = _pdf_with(annotation_flags=2, interpolate=True, font_file=True)
    assert "a /Link annotation is not printable" in pdfa_problems(source, "PDF/A-2b")
    assert "an image asks for interpolation" in pdfa_problems(source, "PDF/A-2b")

    archival = finish_document(
        source,
        info=DocumentInfo(title="T", author="A", lang="fr"),
        standard="PDF/A-2b",
        tagged=False,
    )

    assert pdfa_problems(archival, "PDF/A-2b") == []


def test_finishing_refuses_a_pdf_with_a_font_it_does_not_embed() -> None:
    source = _pdf_with(annotation_flags=4, interpolate=False, font_file=False)
    assert "the font /Lost is not embedded" in pdfa_problems(source, "PDF/A-3b")

    with pytest.raises(RenderError, match="Lost"):
        finish_document(source, info=DocumentInfo(lang="en"), standard="PDF/A-3b", tagged=False)


def test_info_and_xmp_state_the_same_title_author_and_dates() -> None:
    source = _pdf_with(annotation_flags=4, interpolate=False, font_file=True)
    now = datetime(2026, 11, 27, 9, 30, 5, tzinfo=UTC)

    archival = finish_document(
        source,
        info=DocumentInfo(title="Ünïcode title", author="Zoë", subject="S", lang="de"),
        standard="PDF/A-3b",
        tagged=True,
        now=now,
    )

    with pikepdf.open(io.BytesIO(archival)) as pdf:
        assert str(pdf.docinfo.CreationDate) == "D:20261127093005+00'00'"
        meta = pdf.open_metadata()
        assert meta["dc:title"] == "Ünïcode title"
        assert meta["dc:creator"] == ["Zoë"]
        assert datetime.fromisoformat(meta["xmp:ModifyDate"]) == now
        assert pdf.Root.ViewerPreferences.DisplayDocTitle is True
    assert pdfa_problems(archival, "PDF/A-3b") == []


def test_heading_texts_are_read_in_order_without_what_aria_hides() -> None:
    html = (
        "<h1>Title <b>bold</b></h1><p>x</p><h2><span aria-hidden='true'>01<i>x</i></span>"
        "  Revenue\n now</h2><div><h3>A<br>B</h3></div>"
    )

    assert heading_texts(html) == ["Title bold", "Revenue now", "AB"]


@pytest.mark.browser
async def test_a_right_to_left_outline_keeps_the_words_in_reading_order(
    pool: ChromiumPool,
) -> None:
    certificate = {**TEMPLATES["certificate"], "locale": "ar", "tagged": True}
    heading = "مرحبا بالعالم الجميل"
    custom = {
        "template": "custom",
        "html": f"<html dir='rtl' lang='ar'><body><h1>شهادة إتمام</h1><h2>{heading}</h2>",
        "tagged": True,
    }

    printed = await render_pdf(certificate, browser=pool)
    written = await render_pdf(custom, browser=pool)

    # Chromium writes these titles word by word in visual (reversed) order.
    assert _outline(printed.content) == [(1, "شهادة إتمام")]
    assert _outline(written.content) == [(1, "شهادة إتمام"), (2, heading)]


@pytest.mark.browser
@pytest.mark.parametrize("tagged", [False, True])
async def test_colour_emoji_drawn_as_type3_glyphs_still_make_a_pdfa(
    pool: ChromiumPool, tagged: bool
) -> None:
    html = "<html><body><h1>Smile 😀</h1><p>Done ✓</p></body></html>"
    request = {"template": "custom", "html": html, "pdf_standard": "PDF/A-2b", "tagged": tagged}

    result = await render_pdf(request, browser=pool)

    with pikepdf.open(io.BytesIO(result.content)) as pdf:
        subtypes = {
            str(o.Subtype)
            for o in pdf.objects
            if isinstance(o, pikepdf.Dictionary) and o.get("/Type") == "/Font"
        }
    assert "/Type3" in subtypes  # Chromium draws colour emoji as Type 3 glyphs
    assert pdfa_problems(result.content, "PDF/A-2b") == []
