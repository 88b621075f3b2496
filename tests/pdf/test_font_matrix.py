"""Every built-in PDF template in every shipped locale, with the text a user of that locale
would send: each font in the file is an embedded TrueType subset, never Type 3 (Chromium
prints faces with CFF outlines, such as Noto CJK, as Type 3 glyphs)."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from renderkit import render_pdf
from renderkit.browser import ChromiumPool
from renderkit.pdf._locale import LABEL_LANGUAGES
from renderkit.pdf._templates import NAME_STYLES
from tests.pdf.test_certificate_print import font_types

pytestmark = [pytest.mark.anyio, pytest.mark.browser]


def _people(
    company: str, client: str, person: str, signatory: str, course: str, item: str, body: str
) -> dict[str, dict[str, object]]:
    """The four templates' data, in one language's words."""
    return {
        "invoice": {
            "company_name": company,
            "client_name": client,
            "invoice_number": "INV-42",
            "invoice_date": "2026-11-22",
            "line_items": [{"description": item, "quantity": 2, "unit_price": 1500}],
            "tax_rate": 10,
            "notes": body,
        },
        "report": {
            "title": course,
            "subtitle": item,
            "author": signatory,
            "company_name": company,
            "sections": [{"heading": item, "body": body, "bullets": [item, course]}],
        },
        "letter": {
            "sender_name": signatory,
            "recipient_name": person,
            "recipient_company": client,
            "subject": course,
            "body": body,
        },
        "certificate": {
            "recipient_name": person,
            "course_name": course,
            "description": body,
            "issued_by": company,
            "issued_date": "2026-11-22",
            "signatory_name": signatory,
            "signatory_title": item,
        },
    }


# Locale-typical copy: names, companies and sentences in the language of each catalogue.
TEXT: Mapping[str, dict[str, dict[str, object]]] = {
    "en": _people(
        "Northwind Studio",
        "Contoso Ltd",
        "Amelia Hartmann-Okafor",
        "Dr. Jane Smith",
        "Advanced Data Engineering",
        "Design work",
        "Thank you for your business.",
    ),
    "de": _people(
        "Nordwind Studio GmbH",
        "Müller & Söhne KG",
        "Jürgen Weiß",
        "Dr. Katharina Groß",
        "Fortgeschrittene Datenverarbeitung",
        "Gestaltung für Straßenschilder",
        "Vielen Dank für Ihren Auftrag. Zahlbar innerhalb von 14 Tagen.",
    ),
    "fr": _people(
        "Studio Nord-Ouest SARL",
        "Société Générale d'Études",
        "Hélène Côté-Lefèvre",
        "Dr. François Méndez",
        "Ingénierie des données avancée",
        "Conception graphique",
        "Merci de votre confiance. Règlement à réception.",
    ),
    "es": _people(
        "Estudio Noroeste S.L.",
        "Compañía Ibérica",
        "José Peña Núñez",
        "Dra. María Gómez",
        "Ingeniería de datos avanzada",
        "Diseño gráfico",
        "Gracias por su confianza. ¿Preguntas? Escríbanos.",
    ),
    "ar": _people(
        "شركة الشمال",
        "مؤسسة النور",
        "سارة عبد الله",
        "د. أحمد خالد",
        "هندسة البيانات المتقدمة",
        "أعمال التصميم",
        "شكرا لتعاملكم معنا.",
    ),
    "ja": _people(
        "株式会社ノースウィンド",
        "コントソ株式会社",
        "山田 太郎",
        "鈴木 花子",
        "データエンジニアリング上級",
        "デザイン作業",
        "ストリーミングパイプラインの実践研修40時間を修了しました。",
    ),
}

CASES = [
    pytest.param(
        template, language, style, id=f"{template}-{language}" + (f"-{style}" if style else "")
    )
    for language in LABEL_LANGUAGES
    for template in ("invoice", "report", "letter", "certificate")
    for style in (NAME_STYLES if template == "certificate" else (None,))
]


def test_the_matrix_has_copy_for_every_shipped_locale() -> None:
    assert set(TEXT) == set(LABEL_LANGUAGES)


@pytest.mark.parametrize(("template", "language", "style"), CASES)
async def test_every_template_in_every_shipped_locale_embeds_only_truetype_subsets(
    pool: ChromiumPool, template: str, language: str, style: str | None
) -> None:
    data = dict(TEXT[language][template])
    if style is not None:
        data["name_style"] = style
    request = {"template": template, "data": data, "locale": language}
    result = await render_pdf(request, browser=pool)
    fonts = font_types(result.content)
    assert fonts
    for subtype, base in fonts:
        assert subtype == "/CIDFontType2", (subtype, base)  # CID-keyed TrueType, not /Type3
        assert base[7:8] == "+", base  # "ABCDEF+Family": a subset
