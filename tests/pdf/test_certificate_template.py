"""The certificate's HTML (no browser): name faces, seal monogram, signature row, widows."""

from __future__ import annotations

import pytest

from renderkit import InvalidRequestError, structure
from renderkit.pdf import PdfRequest
from renderkit.pdf._templates import NAME_STYLES, render_document


def test_the_name_face_defaults_to_serif_and_follows_name_style() -> None:
    assert 'cert-name-serif"' in render_document("certificate", {"recipient_name": "Ada"}).body
    for style in NAME_STYLES:
        body = render_document("certificate", {"recipient_name": "Ada", "name_style": style}).body
        assert f'cert-name-{style}"' in body


def test_an_unknown_name_style_is_refused_naming_the_field() -> None:
    with pytest.raises(InvalidRequestError) as info:
        structure({"template": "certificate", "data": {"name_style": "gothic"}}, PdfRequest)
    assert [e.field for e in info.value.errors] == ["data.name_style"]
    with pytest.raises(ValueError, match="name_style"):
        render_document("certificate", {"name_style": "gothic"})


@pytest.mark.parametrize(
    ("issuer", "monogram"),
    [
        ("Northwind Academy", ">NA<"),
        ("The Academy of Fine Arts", ">AF<"),
        ("acme", ">A<"),
        ("Université de Montréal", ">UM<"),
    ],
)
def test_the_seal_carries_the_issuers_initials(issuer: str, monogram: str) -> None:
    body = render_document("certificate", {"issued_by": issuer}).body
    assert f'class="cert-seal-monogram" x="60" y="60"{monogram}' in body


def test_without_an_issuer_the_seal_has_a_star_not_letters() -> None:
    body = render_document("certificate", {"recipient_name": "Ada"}).body
    assert "cert-seal-mark" in body
    assert "cert-seal-monogram" not in body


@pytest.mark.parametrize(
    ("data", "blocks"),
    [
        ({}, 0),
        ({"issued_by": "Northwind"}, 1),
        ({"signatory_name": "Jane"}, 1),
        ({"signatory_name": "Jane", "issued_date": "2026-11-22"}, 2),
    ],
)
def test_the_signature_row_knows_how_many_blocks_it_lays_out(
    data: dict[str, str], blocks: int
) -> None:
    body = render_document("certificate", data).body
    assert f'cert-bottom cert-bottom-{blocks}"' in body
    assert body.count('class="cert-col ') == blocks


def test_the_last_two_words_of_the_description_are_tied() -> None:
    body = render_document("certificate", {"description": "Completed with high distinction."}).body
    assert "Completed with high\u00a0distinction." in body


def test_long_last_words_or_a_two_word_description_are_left_untied() -> None:
    long_words = "Awarded for internationalisation counterintelligence"
    assert long_words in render_document("certificate", {"description": long_words}).body
    assert "Well done." in render_document("certificate", {"description": "Well done."}).body
