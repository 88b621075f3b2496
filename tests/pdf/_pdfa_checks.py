"""What a PDF/A-2b or PDF/A-3b file must hold, read back with pikepdf.

No conformance validator can be installed from the registries here (veraPDF is Java and
published on none of them), so the tests check the structure the standard asks of the
files renderkit writes, one problem a line.
"""

from __future__ import annotations

import io
import re
from datetime import datetime

import pikepdf
from pikepdf.models.metadata import decode_pdf_date

from renderkit.pdf.einvoice import srgb_profile

#: What PDF/A allows as blend modes (ISO 32000-1 table 136: the standard ones).
_BLEND_MODES = {
    "/Normal", "/Compatible", "/Multiply", "/Screen", "/Overlay", "/Darken", "/Lighten",
    "/ColorDodge", "/ColorBurn", "/HardLight", "/SoftLight", "/Difference", "/Exclusion",
    "/Hue", "/Saturation", "/Color", "/Luminosity",
}  # fmt: skip

# Info key -> the XMP property that must say the same (ISO 19005-2 6.6.2.3.1).
_INFO_XMP = {
    "/Title": "dc:title",
    "/Author": "dc:creator",
    "/Subject": "dc:description",
    "/Keywords": "pdf:Keywords",
    "/Creator": "xmp:CreatorTool",
    "/Producer": "pdf:Producer",
}
_INFO_DATES = {"/CreationDate": "xmp:CreateDate", "/ModDate": "xmp:ModifyDate"}


def pdfa_problems(
    content: bytes, standard: str, *, attachments: frozenset[str] = frozenset()
) -> list[str]:
    """Everything in ``content`` that breaks ``standard`` (``PDF/A-2b`` or ``PDF/A-3b``);
    ``attachments`` names the embedded files allowed (PDF/A-3 only)."""
    part = standard[len("PDF/A-")]
    problems: list[str] = []
    version = re.match(rb"%PDF-1\.([0-7])\r?\n%[\x80-\xff]{4}", content)
    if version is None:
        problems.append("the header is not %PDF-1.0..1.7 followed by a binary comment")
    with pikepdf.open(io.BytesIO(content)) as pdf:
        root = pdf.Root
        if pdf.is_encrypted or "/Encrypt" in pdf.trailer:
            problems.append("the file is encrypted")
        file_id = pdf.trailer.get("/ID")
        if not isinstance(file_id, pikepdf.Array) or len(file_id) != 2:
            problems.append("the trailer has no /ID")
        problems += _intent_problems(root)
        problems += _metadata_problems(pdf, part)
        problems += _font_problems(pdf)
        problems += _content_problems(pdf, part, attachments)
    return problems


def _intent_problems(root: pikepdf.Dictionary) -> list[str]:
    intents = root.get("/OutputIntents")
    if not isinstance(intents, pikepdf.Array) or len(intents) != 1:
        return ["the catalog has not exactly one output intent"]
    intent = intents[0]
    problems = []
    if intent.get("/S") != "/GTS_PDFA1":
        problems.append("the output intent is not GTS_PDFA1")
    profile = intent.get("/DestOutputProfile")
    if profile is None or profile.read_bytes() != srgb_profile() or profile.get("/N") != 3:
        problems.append("the output intent does not carry the sRGB profile")
    return problems


def _metadata_problems(pdf: pikepdf.Pdf, part: str) -> list[str]:
    problems = []
    stream = pdf.Root.get("/Metadata")
    if stream is None:
        return ["the catalog has no XMP metadata"]
    if "/Filter" in stream:
        problems.append("the XMP metadata stream is filtered")
    meta = pdf.open_metadata()
    if meta.get("pdfaid:part") != part or meta.get("pdfaid:conformance") != "B":
        problems.append(
            f"XMP says pdfaid {meta.get('pdfaid:part')}{meta.get('pdfaid:conformance')}"
        )
    info = pdf.docinfo
    for key, prop in _INFO_XMP.items():
        stated = str(info[key]) if key in info else None
        said = meta.get(prop)
        if isinstance(said, list):  # dc:creator is a sequence
            said = "; ".join(said)
        if stated != (said or None):
            problems.append(f"Info {key} is {stated!r}, XMP {prop} is {said!r}")
    for key, prop in _INFO_DATES.items():
        if key not in info or prop not in meta:
            problems.append(f"Info {key} or XMP {prop} is missing")
        elif decode_pdf_date(str(info[key])) != datetime.fromisoformat(meta[prop]):
            problems.append(f"Info {key} and XMP {prop} differ")
    return problems


def _font_problems(pdf: pikepdf.Pdf) -> list[str]:
    problems = []
    holders = [page.obj for page in pdf.pages] + list(pdf.objects)
    fonts: list[pikepdf.Dictionary] = []
    for holder in holders:
        resources = (
            holder.get("/Resources")
            if isinstance(holder, pikepdf.Dictionary | pikepdf.Stream)
            else None
        )
        named = resources.get("/Font") if isinstance(resources, pikepdf.Dictionary) else None
        for font in (named or pikepdf.Dictionary()).values():
            fonts.append(font)
            fonts.extend(font.get("/DescendantFonts", []))
    for font in fonts:
        if font.get("/Subtype") in ("/Type0", "/Type3"):
            # A Type 0 font is embedded through its descendant (listed too); a Type 3
            # font's glyphs are content streams in the file.
            continue
        descriptor = font.get("/FontDescriptor")
        if descriptor is None or not any(f"/FontFile{n}" in descriptor for n in ("", "2", "3")):
            problems.append(f"the font {font.get('/BaseFont')} is not embedded")
    return problems


def _content_problems(pdf: pikepdf.Pdf, part: str, attachments: frozenset[str]) -> list[str]:
    problems = []
    for obj in pdf.objects:
        if not isinstance(obj, (pikepdf.Dictionary, pikepdf.Stream)):
            continue
        if "/JS" in obj or obj.get("/S") in ("/JavaScript", "/Launch"):
            problems.append("the file holds a script or launch action")
        if obj.get("/Interpolate") is True:
            problems.append("an image asks for interpolation")
        blend = obj.get("/BM")
        if blend is not None and str(blend) not in _BLEND_MODES:
            problems.append(f"blend mode {blend} is not a standard one")
        group = obj.get("/Group")
        if isinstance(group, pikepdf.Dictionary) and group.get("/CS") == "/DeviceCMYK":
            problems.append("a transparency group blends in CMYK under an RGB intent")
        annotation = obj.get("/Type") == "/Annot" and obj.get("/Subtype") != "/Popup"
        # Print set; Invisible, Hidden and NoView clear.
        if annotation and int(obj.get("/F", 0)) & 0b100111 != 0b100:
            problems.append(f"a {obj.get('/Subtype')} annotation is not printable")
    names = pdf.Root.get("/Names")
    if isinstance(names, pikepdf.Dictionary) and "/JavaScript" in names:
        problems.append("the catalog names document scripts")
    embedded = set(pdf.attachments)
    if embedded - attachments:
        problems.append(f"unexpected embedded files {sorted(embedded - attachments)}")
    if embedded and part == "2":
        problems.append("PDF/A-2b with embedded files")
    return problems
