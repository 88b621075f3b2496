"""One table of formats: every capability's formats and MIME types come from it."""

from __future__ import annotations

from pathlib import Path

import pytest

from renderkit.core.media import (
    MAX_PIXELS,
    MEDIA_TYPES,
    format_of_path,
    media_type_of_path,
    media_types,
    same_format,
)
from renderkit.image import IMAGE_FORMATS, ImageRequest
from renderkit.parsing.readers.document import MIME_TYPES, sniff_mime_type
from renderkit.screenshot._models import SCREENSHOT_FORMATS
from renderkit.speech import AUDIO_FORMATS


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("card.png", "png"),
        ("photo.JPG", "jpeg"),
        ("photo.jpeg", "jpeg"),
        ("speech.ogg", "ogg"),
        ("speech.opus", "opus"),
        ("report.pdf", "pdf"),
        (Path("dir.v2/voice.aac"), "aac"),
        ("notes.txt", None),
        ("no-extension", None),
    ],
)
def test_a_file_name_extension_names_its_format(name: str | Path, expected: str | None) -> None:
    assert format_of_path(name) == expected


def test_ogg_and_opus_are_one_format_under_two_names() -> None:
    assert same_format("ogg", "opus") and same_format("opus", "ogg")
    assert not same_format("ogg", "mp3")
    assert not same_format("png", "jpeg")
    assert media_type_of_path("talk.ogg") == media_type_of_path("talk.opus") == "audio/ogg"


def test_a_file_name_extension_gives_its_mime_type() -> None:
    assert media_type_of_path("scan.jpg") == "image/jpeg"
    assert media_type_of_path("talk.mp3") == "audio/mpeg"
    assert media_type_of_path("data.csv") is None


def test_capability_format_tables_are_subsets_of_the_one_table() -> None:
    assert IMAGE_FORMATS == {"png": "image/png", "jpeg": "image/jpeg", "webp": "image/webp"}
    assert list(SCREENSHOT_FORMATS) == ["png", "jpeg", "webp", "pdf"]
    for table in (IMAGE_FORMATS, SCREENSHOT_FORMATS):
        assert all(MEDIA_TYPES[name] == mime for name, mime in table.items())
    for name, encoding in AUDIO_FORMATS.items():
        assert encoding.content_type == MEDIA_TYPES[name]
    assert set(MIME_TYPES) <= set(MEDIA_TYPES.values())


def test_an_unknown_format_is_refused_when_a_capability_lists_its_formats() -> None:
    with pytest.raises(KeyError):
        media_types("png", "gif")


def test_sniffed_types_are_the_table_entries() -> None:
    assert sniff_mime_type(b"%PDF-1.7\n") == MEDIA_TYPES["pdf"]
    assert sniff_mime_type(b"\x89PNG\r\n\x1a\n....") == MEDIA_TYPES["png"]


def test_the_image_scale_is_lowered_to_stay_within_the_shared_pixel_limit() -> None:
    request = ImageRequest(template="custom", html="<p>x</p>", width=4096, height=4096, scale=3)
    width, height = request.size
    scale = request.effective_scale
    assert scale < 3
    assert width * height * scale**2 <= MAX_PIXELS
