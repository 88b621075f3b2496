"""Produced files get readable, safe names derived from what they show."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from renderkit import AudioRequest, ImageRequest, PdfRequest, ScreenshotRequest
from renderkit.core.converter import structure
from renderkit.core.filenames import (
    MAX_STEM_LENGTH,
    content_disposition,
    filename_from_disposition,
    suggested_filename,
)


def test_each_kind_of_request_names_its_file_after_its_main_field() -> None:
    invoice = structure({"template": "invoice", "data": {"invoice_number": "INV-0042"}}, PdfRequest)
    card = structure(
        {"template": "ogCard", "data": {"title": "Hello, World!"}, "format": "webp"},
        ImageRequest,
    )
    shot = structure({"url": "https://Example.com/a/b?q=1"}, ScreenshotRequest)
    speech = structure(
        {"script": "Welcome to the show, dear listeners, this is long", "format": "opus"},
        AudioRequest,
    )
    certificate = structure(
        {"template": "certificate", "data": {"recipient_name": "Zoë Müller"}}, PdfRequest
    )
    assert invoice.suggested_filename == "invoice-INV-0042.pdf"
    assert card.suggested_filename == "og-card-hello-world.webp"
    assert shot.suggested_filename == "screenshot-example.com.png"
    assert speech.suggested_filename == "speech-welcome-to-the-show-dear-listeners.opus"
    assert certificate.suggested_filename == "certificate-zoe-muller.pdf"


def test_a_request_without_a_main_field_is_named_after_its_template() -> None:
    assert structure({"template": "twitter-card"}, ImageRequest).suggested_filename == (
        "twitter-card.png"
    )
    custom = structure({"template": "custom", "html": "<p>x</p>"}, ImageRequest)
    assert custom.suggested_filename == "image.png"


@pytest.mark.parametrize(
    "subject", ["../../etc/passwd", 'a"b\\c/d', "\x00\x1f\r\nx", "...", "-" * 300, "a " * 400]
)
def test_a_hostile_or_huge_subject_never_leaves_the_name_safe_form(subject: str) -> None:
    name = suggested_filename("report", subject, "pdf")
    stem = name.removesuffix(".pdf")
    assert name.startswith("report") and name.endswith(".pdf")
    assert len(stem) <= MAX_STEM_LENGTH
    assert not set(stem) & set('/\\"\x00\r\n ')
    assert ".." not in stem and not stem.endswith("-")


def test_a_long_title_is_cut_at_a_word_boundary() -> None:
    name = suggested_filename("og-card", "the quick brown fox jumps over the lazy dog " * 3, "png")
    assert name.removesuffix(".png").endswith(("-fox", "-dog", "-the", "-lazy", "-quick"))
    assert len(name.removesuffix(".png")) <= MAX_STEM_LENGTH


def test_non_ascii_names_get_an_ascii_fallback_and_a_utf8_parameter() -> None:
    name = suggested_filename("og-card", "日本語のタイトル", "png")
    assert name == "og-card-日本語のタイトル.png"
    header = content_disposition(name)
    assert header == (f"inline; filename=\"og-card.png\"; filename*=UTF-8''{quote(name, safe='')}")
    header.encode("latin-1")  # a header value must be ISO-8859-1 (here: ASCII)
    assert filename_from_disposition(header) == name


def test_an_ascii_name_needs_no_extended_parameter() -> None:
    assert content_disposition("invoice-INV-0042.pdf") == (
        'inline; filename="invoice-INV-0042.pdf"'
    )
    assert filename_from_disposition('attachment; filename="a.pdf"') == "a.pdf"
    assert filename_from_disposition(None) is None
