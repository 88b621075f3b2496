"""Property: whatever bytes, base64 and MIME type a parse request carries, reading it ends in
a result or an InvalidRequestError naming ``file`` or ``mimeType``, within a bounded time."""

from __future__ import annotations

import base64
import concurrent.futures
import io
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from renderkit import InvalidRequestError, parse
from renderkit.parsing import Page, ParseLimits
from renderkit.parsing.readers.document import check_mime_type, decode_file

T = TypeVar("T")

LIMITS = ParseLimits(max_bytes=200_000, max_pages=5, max_pixels=4_000_000)
MIME_TYPES = ["application/pdf", "image/png", "image/jpeg", "image/webp"]
# Generous: a corrupt 200 kB file is read in well under a second on this machine.
SECONDS_PER_FILE = 10


class BlankOcr:
    """An OCR engine that reads nothing: the intake, not OCR quality, is under test."""

    async def recognize(self, image: Image.Image, *, page: int, detect_orientation: bool) -> Page:
        return Page(number=page, lines=(), source="ocr", width=image.width, height=image.height)


def _image(fmt: str) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (40, 30), (200, 10, 10)).save(out, fmt)
    return out.getvalue()


SEEDS = {
    "application/pdf": _image("PDF"),
    "image/png": _image("PNG"),
    "image/jpeg": _image("JPEG"),
    "image/webp": _image("WEBP"),
}


def _mutate(seed: bytes, flips: list[tuple[int, int]], cut: int) -> bytes:
    data = bytearray(seed[: max(cut, 1)])
    for position, value in flips:
        data[position % len(data)] = value
    return bytes(data)


#: Real files with bytes changed and tails cut off (reaching the parsers), and junk.
FILES = st.builds(
    _mutate,
    st.sampled_from(list(SEEDS.values())),
    st.lists(st.tuples(st.integers(min_value=0), st.integers(0, 255)), max_size=8),
    st.integers(min_value=1, max_value=5000),
) | st.binary(max_size=300)

#: What a client may put in ``file``: base64 of those, URL-safe or with a data: prefix, or text.
FILE_FIELDS = (
    FILES.map(lambda b: base64.b64encode(b).decode())
    | FILES.map(lambda b: base64.urlsafe_b64encode(b).decode().rstrip("="))
    | FILES.map(lambda b: "data:application/pdf;base64," + base64.b64encode(b).decode())
    | st.text(max_size=200)
)
MIME_FIELDS = st.sampled_from([*MIME_TYPES, "image/jpg", "text/html", ""]) | st.text(max_size=30)

INTAKE_SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _assert_names_the_file(exc: InvalidRequestError) -> None:
    fields = {e.field for e in exc.errors}
    assert fields, "the error must name a field"
    assert fields <= {"file", "mimeType", "schema"}, fields


@INTAKE_SETTINGS
@given(value=FILE_FIELDS)
def test_decoding_any_file_field_gives_bytes_within_the_limit_or_a_file_error(value: str) -> None:
    try:
        content = decode_file(value, max_bytes=LIMITS.max_bytes)
    except InvalidRequestError as exc:
        fields = {e.field for e in exc.errors}
    else:
        fields = {"file"}
        assert 0 < len(content) <= LIMITS.max_bytes
    assert fields == {"file"}


@INTAKE_SETTINGS
@given(content=FILES, declared=st.sampled_from(MIME_TYPES))
def test_sniffing_any_bytes_confirms_the_type_or_names_the_field(
    content: bytes, declared: str
) -> None:
    try:
        assert check_mime_type(content, declared) == declared
    except InvalidRequestError as exc:
        _assert_names_the_file(exc)


def test_the_seed_files_parse() -> None:
    for mime_type, content in SEEDS.items():
        body = {"file": base64.b64encode(content).decode(), "mimeType": mime_type}
        result = _run(lambda b=body: parse(b, ocr=BlankOcr(), limits=LIMITS))
        assert result.pages == 1


@pytest.mark.parametrize("mime_type", MIME_TYPES)
def test_parsing_mutated_files_of_each_type_gives_a_result_or_a_file_error_in_bounded_time(
    mime_type: str,
) -> None:
    files = st.builds(
        _mutate,
        st.just(SEEDS[mime_type]),
        st.lists(st.tuples(st.integers(min_value=0), st.integers(0, 255)), max_size=8),
        st.integers(min_value=1, max_value=5000),
    )

    @INTAKE_SETTINGS
    @given(content=files)
    def check(content: bytes) -> None:
        _parse_bounded({"file": base64.b64encode(content).decode(), "mimeType": mime_type})

    check()


@INTAKE_SETTINGS
@given(file=FILE_FIELDS, mime_type=MIME_FIELDS)
def test_parsing_any_file_and_mime_type_gives_a_result_or_a_4xx_class_error(
    file: str, mime_type: str
) -> None:
    _parse_bounded({"file": file, "mimeType": mime_type})


def _run(fn: Callable[[], Awaitable[T]]) -> T:
    """Run ``fn`` on an event loop of its own thread: a session-scoped async fixture of
    another module (the shared Chromium pool) may hold this thread's loop."""
    with concurrent.futures.ThreadPoolExecutor(1) as thread:
        return thread.submit(anyio.run, fn).result()


def _parse_bounded(body: dict[str, Any]) -> None:
    async def run() -> None:
        with anyio.fail_after(SECONDS_PER_FILE):
            try:
                await parse(body, ocr=BlankOcr(), limits=LIMITS)
            except InvalidRequestError as exc:
                _assert_names_the_file(exc)

    _run(run)


def test_a_schema_nested_200_levels_is_an_invalid_request_error_naming_schema() -> None:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(200):
        schema = {"type": "object", "properties": {"a": schema}}
    body = {
        "file": base64.b64encode(SEEDS["application/pdf"]).decode(),
        "mimeType": "application/pdf",
        "schema": schema,
    }
    with pytest.raises(InvalidRequestError) as caught:
        _run(lambda: parse(body, ocr=BlankOcr(), limits=LIMITS))
    assert {e.field for e in caught.value.errors} == {"schema"}
