"""A field no variant of the interface defines is refused, named, and a close one suggested.

A misspelt option silently ignored would render the wrong file and charge for it, so every
level (top level, ``data``, line items, report sections, the screenshot viewport) refuses
unknown names, while both naming variants and every alias stay accepted.
"""

from __future__ import annotations

from typing import Any

import pytest

from renderkit import (
    AudioRequest,
    ImageData,
    ImageRequest,
    InvalidRequestError,
    ParseRequest,
    PdfRequest,
    ScreenshotRequest,
    structure,
)
from renderkit.pdf import InvoiceData, LineItem
from renderkit.screenshot import Viewport

URL = "https://example.com/"
PDF = "JVBERi0xLjcK"


def refused(build: Any) -> list[tuple[str, str | None]]:
    with pytest.raises(InvalidRequestError) as info:
        build()
    assert all(e.unknown and not e.missing for e in info.value.errors)
    return [(e.field, e.suggestion) for e in info.value.errors]


@pytest.mark.parametrize(
    ("model", "body", "expected"),
    [
        (ScreenshotRequest, {"url": URL, "fullpage": True}, [("fullpage", "fullPage")]),
        (ScreenshotRequest, {"url": URL, "dark-mode": True}, [("dark-mode", "darkMode")]),
        (
            ScreenshotRequest,
            {"url": URL, "viewport": {"width": 800, "height": 600, "scale": 2}},
            [("viewport.scale", None)],
        ),
        (
            ParseRequest,
            {"file": PDF, "mimeType": "application/pdf", "provenance": True},
            [("provenance", "include_provenance")],
        ),
        (ImageRequest, {"template": "og-card", "qualty": 80}, [("qualty", "quality")]),
        (
            ImageRequest,
            {"template": "og-card", "data": {"titel": "Hi", "subtitle": "x"}},
            [("data.titel", "title")],
        ),
        (
            PdfRequest,
            {"template": "invoice", "data": {"items": [{"unit_price": 1, "qty": 2}]}},
            [("data.line_items[0].qty", None)],
        ),
        (
            PdfRequest,
            {"template": "report", "data": {"sections": [{"heading": "A", "bulets": ["x"]}]}},
            [("data.sections[0].bulets", "bullets")],
        ),
        (
            PdfRequest,
            # Another template's field is unknown to this one.
            {"template": "letter", "data": {"line_items": []}},
            [("data.line_items", None)],
        ),
        (AudioRequest, {"script": "Hi", "similarity_bost": 0.5}, [("similarity_bost", None)]),
    ],
)
def test_an_unknown_field_is_refused_by_name_with_a_close_suggestion(
    model: type, body: dict[str, Any], expected: list[tuple[str, str | None]]
) -> None:
    found = refused(lambda: structure(body, model))
    assert [field for field, _ in found] == [field for field, _ in expected]
    for (_, suggestion), (_, wanted) in zip(found, expected, strict=True):
        if wanted is not None:
            assert suggestion == wanted


def test_every_unknown_field_is_reported_not_only_the_first() -> None:
    body = {
        "url": URL,
        "fullpage": True,
        "blockads": True,
        "viewport": {"widht": 800, "height": 600},
    }
    with pytest.raises(InvalidRequestError) as info:
        structure(body, ScreenshotRequest)
    assert [(e.field, e.suggestion) for e in info.value.errors] == [
        ("fullpage", "fullPage"),
        ("blockads", "blockAds"),
        ("viewport.widht", "width"),
        ("viewport.width", None),  # the misspelt field leaves the real one missing
    ]
    assert info.value.errors[-1].missing


def test_unknown_fields_are_reported_with_the_invalid_values_beside_them() -> None:
    with pytest.raises(InvalidRequestError) as info:
        structure({"template": "og-card", "quality": 0, "widht": 300}, ImageRequest)
    assert {e.field for e in info.value.errors} == {"quality", "widht"}


def test_the_message_names_the_field_and_the_suggestion() -> None:
    with pytest.raises(InvalidRequestError) as info:
        structure({"url": URL, "fullpage": True}, ScreenshotRequest)
    assert "fullpage" in str(info.value)
    assert "fullPage" in str(info.value)


def test_a_name_close_to_nothing_lists_the_known_fields() -> None:
    with pytest.raises(InvalidRequestError) as info:
        structure({"url": URL, "zzz": 1}, ScreenshotRequest)
    (error,) = info.value.errors
    assert error.suggestion is None
    assert "full_page" in error.message


@pytest.mark.parametrize(
    ("model", "body"),
    [
        (ScreenshotRequest, {"url": URL, "fullPage": True, "darkMode": True, "blockAds": True}),
        (ScreenshotRequest, {"url": URL, "full_page": True, "dark_mode": True, "block_ads": True}),
        (ParseRequest, {"file": PDF, "mime_type": "application/pdf"}),
        (AudioRequest, {"script": "Hi", "similarity_boost": 0.3}),
        (ImageRequest, {"template": "ogCard", "data": {"cta_text": "Go"}}),
        (
            PdfRequest,
            {
                "template": "invoicePdf",
                "data": {
                    "from_name": "A",
                    "from_address": "B",
                    "to_name": "C",
                    "to_address": "D",
                    "date": "2026-01-01",
                    "items": [{"description": "x", "quantity": 1, "unit_price": 2}],
                },
            },
        ),
        (PdfRequest, {"template": "certificatePdf", "data": {"issuer_name": "A", "date": "x"}}),
    ],
)
def test_both_naming_variants_and_every_alias_stay_accepted(
    model: type, body: dict[str, Any]
) -> None:
    assert isinstance(structure(body, model), model)


def test_the_constructor_refuses_unknown_keywords_like_structure() -> None:
    from_kwargs = refused(lambda: ScreenshotRequest(url=URL, fullpage=True))
    from_dict = refused(lambda: structure({"url": URL, "fullpage": True}, ScreenshotRequest))
    assert from_kwargs == from_dict == [("fullpage", "fullPage")]


def test_the_constructor_accepts_aliases_and_dicts_for_nested_models() -> None:
    shot = ScreenshotRequest(url=URL, fullPage=True, viewport={"width": 800, "height": 600})
    assert shot.full_page is True
    assert shot.viewport == Viewport(width=800, height=600)
    image = ImageRequest(template="og-card", data={"title": "x"})
    assert image.data == ImageData(title="x")
    pdf = PdfRequest(template="invoice", data={"items": [{"unit_price": 2}]})
    assert pdf.data == InvoiceData(line_items=[LineItem(unit_price=2.0)])


def test_constructor_errors_name_the_same_fields_as_structure() -> None:
    body: dict[str, Any] = {"quality": "90", "data": {"title": 5}, "scale": 9}
    with pytest.raises(InvalidRequestError) as from_kwargs:
        ImageRequest(**body)
    with pytest.raises(InvalidRequestError) as from_dict:
        structure(body, ImageRequest)
    assert from_kwargs.value.errors == from_dict.value.errors
    assert [e.field for e in from_kwargs.value.errors] == [
        "template",
        "data.title",
        "quality",
        "scale",
    ]


def test_a_signalling_nan_under_both_spellings_is_a_field_error_not_a_crash() -> None:
    # Comparing the two spellings' values used to raise decimal.InvalidOperation.
    from decimal import Decimal

    with pytest.raises(InvalidRequestError) as caught:
        structure(
            {"url": URL, "reduced_motion": True, "reducedMotion": Decimal("sNaN")},
            ScreenshotRequest,
        )
    assert [error.field for error in caught.value.errors] == ["reducedMotion"]
