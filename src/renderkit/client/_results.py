"""The library's result types built from a server's success body, their file fetched lazily.

A server answers with facts and a signed ``url``, not the file. The ``Remote*`` results are
subclasses of the library's results (``isinstance(result, ImageResult)`` holds) whose
``content`` is downloaded from ``url`` on first access, so code that only needs the URL (to
put in a page or an e-mail) never downloads the file.
"""

from __future__ import annotations

import datetime
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from renderkit.image import ImageResult
from renderkit.parsing import FieldProvenance, ParseResult, Usage
from renderkit.parsing.markdown import MarkdownBlock, MarkdownDocument
from renderkit.pdf import PdfResult
from renderkit.reading import PageMetadata, ReadResult
from renderkit.screenshot import ScreenshotResult
from renderkit.speech import AudioResult

__all__ = [
    "LazyContent",
    "RemoteAudioResult",
    "RemoteImageResult",
    "RemotePdfResult",
    "RemoteScreenshotResult",
    "audio_result",
    "image_result",
    "parse_result",
    "pdf_result",
    "read_result",
    "screenshot_result",
]

Download = tuple[bytes, str | None]
"""A downloaded file and the name the server gave it (``Content-Disposition``), if any."""

Loader = Callable[[str], Download]
"""Downloads a result's file, given its URL."""


def _slot(cls: type, name: str) -> Any:
    """The slot descriptor of the attrs field ``name`` in ``cls``'s bases."""
    return next(
        vars(klass)[name]
        for klass in cls.__mro__[1:]
        if isinstance(vars(klass).get(name), types.MemberDescriptorType)
    )


class LazyContent:
    """Mixin placed before a frozen attrs result: ``content`` is fetched on first access.

    The result class stores ``content`` in a slot; this property shadows it and keeps the
    bytes in that same slot once downloaded (reached through the class: the slot's
    descriptor, read off an instance, would read the slot itself), so equality, ``save``
    and ``attrs.evolve`` see ordinary bytes. The loader lives in the instance ``__dict__``
    (the subclass has one), out of the attrs fields. The download also sets ``filename`` to
    the name the server gave the file, which the success body does not carry.
    """

    _content_slot: ClassVar[Any]
    _filename_slot: ClassVar[Any]
    url: str | None
    filename: str

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._content_slot = _slot(cls, "content")
        cls._filename_slot = _slot(cls, "filename")

    @property
    def content(self) -> bytes:
        """The file, downloaded from ``url`` the first time it is read."""
        loader: Loader | None = self.__dict__.pop("_loader", None)
        if loader is not None and self.url is not None:
            self._store(loader(self.url))
        data: bytes = type(self)._content_slot.__get__(self, type(self))
        return data

    @content.setter
    def content(self, value: bytes) -> None:  # attrs' __init__ assigns the field
        type(self)._content_slot.__set__(self, value)

    @property
    def downloaded(self) -> bool:
        """Whether ``content`` has been fetched (or was given)."""
        return "_loader" not in self.__dict__

    def fill(self, download: Download) -> None:
        """Set the downloaded file (an async download); no lazy fetch happens after."""
        self.__dict__.pop("_loader", None)
        self._store(download)

    def save(self, path: str | Path) -> Path:
        """Write the file to ``path``, or into ``path`` under the server's file name when
        ``path`` is a directory; return where it was written."""
        data = self.content  # downloads first: the download names the file
        path = Path(path)
        if path.is_dir():
            path = path / self.filename
        path.write_bytes(data)
        return path

    def _store(self, download: Download) -> None:
        data, filename = download
        type(self)._content_slot.__set__(self, data)
        if filename:
            # Only the last path component: a server's header never writes outside `path`.
            type(self)._filename_slot.__set__(self, Path(filename).name)

    def _defer(self, loader: Loader) -> None:
        self.__dict__["_loader"] = loader


class RemoteImageResult(LazyContent, ImageResult):
    """An :class:`~renderkit.ImageResult` from a server; ``content`` is fetched lazily."""


class RemotePdfResult(LazyContent, PdfResult):
    """A :class:`~renderkit.PdfResult` from a server; ``content`` is fetched lazily."""


class RemoteScreenshotResult(LazyContent, ScreenshotResult):
    """A :class:`~renderkit.ScreenshotResult` from a server; ``content`` is fetched lazily."""


class RemoteAudioResult(LazyContent, AudioResult):
    """An :class:`~renderkit.AudioResult` from a server; ``content`` is fetched lazily.

    ``sample_rate`` is 0 and ``provider`` is ``"remote"``: the server does not report them.
    """


R = TypeVar("R", bound=LazyContent)


def _deferred(result: R, loader: Loader) -> R:
    result._defer(loader)
    return result


def image_result(body: dict[str, Any], loader: Loader) -> ImageResult:
    """The image result a ``POST /api/image`` body describes."""
    return _deferred(
        RemoteImageResult(
            content=b"",
            format=body["format"],
            width=body["width"],
            height=body["height"],
            template=body["template"],
            url=body["url"],
            warnings=tuple(body.get("warnings") or ()),
        ),
        loader,
    )


def pdf_result(body: dict[str, Any], loader: Loader) -> PdfResult:
    """The PDF result a ``POST /api/pdf-gen`` body describes."""
    return _deferred(
        RemotePdfResult(
            content=b"",
            pages=body["pages"],
            page_size=body["page_size"],
            landscape=body["landscape"],
            template=body["template"],
            url=body["url"],
            warnings=tuple(body.get("warnings") or ()),
            format=body.get("format", "pdf"),
            # The XML of an embedded e-invoice stays inside the PDF (einvoice_xml is None).
            einvoice=body.get("einvoice"),
            einvoice_profile=body.get("einvoice_profile"),
            einvoice_checks=tuple(body.get("einvoice_validated") or ()),
            pdf_standard=body.get("pdf_standard"),
            tagged=bool(body.get("tagged", False)),
        ),
        loader,
    )


def screenshot_result(body: dict[str, Any], loader: Loader) -> ScreenshotResult:
    """The screenshot result a ``POST /api/screenshot`` body describes."""
    return _deferred(
        RemoteScreenshotResult(
            content=b"",
            format=body["format"],
            width=body["width"],
            height=body["height"],
            device=body["device"],
            full_page=body["full_page"],
            source_url=body["source_url"],
            http_status=body.get("http_status"),
            captured_at=datetime.datetime.fromisoformat(body["captured_at"]),
            warnings=tuple(body.get("warnings") or ()),
            url=body["url"],
        ),
        loader,
    )


def audio_result(body: dict[str, Any], loader: Loader) -> AudioResult:
    """The audio result a ``POST /api/audio`` body describes."""
    return _deferred(
        RemoteAudioResult(
            content=b"",
            format=body["format"],
            duration_seconds=body["duration_seconds"],
            characters=body["characters"],
            voice_id=body["voice_id"],
            model=body["model"],
            sample_rate=0,
            provider="remote",
            url=body["url"],
        ),
        loader,
    )


def read_result(body: dict[str, Any]) -> ReadResult:
    """The read result a ``POST /api/read`` body describes (the text is in the body)."""
    meta = body.get("metadata") or {}
    return ReadResult(
        content=body[body["format"]],
        format=body["format"],
        metadata=PageMetadata(
            title=meta.get("title"),
            description=meta.get("description"),
            canonical_url=meta.get("canonical_url"),
            language=meta.get("language"),
            og=dict(meta.get("og") or {}),
        ),
        requested_url=body["requested_url"],
        final_url=body["final_url"],
        http_status=body.get("http_status"),
        read_at=datetime.datetime.fromisoformat(body["read_at"]),
        warnings=tuple(body.get("warnings") or ()),
    )


def _markdown(body: dict[str, Any]) -> MarkdownDocument | None:
    if "markdown" not in body:
        return None
    blocks = tuple(
        MarkdownBlock(page=b["page"], bbox=tuple(b["bbox"]), kind=b["kind"], text=b["text"])
        for b in body.get("blocks") or ()
    )
    return MarkdownDocument(
        markdown=body["markdown"],
        blocks=blocks,
        pages=body.get("pages", 0),
        truncated=bool(body.get("truncated")),
    )


def parse_result(body: dict[str, Any]) -> ParseResult:
    """The parse result a ``POST /api/parse`` body describes (no file to fetch): the fields,
    the Markdown or both, as the request's ``output`` asked."""
    provenance = body.get("provenance")
    markdown = _markdown(body)
    fields = "data" in body
    output = "fields" if markdown is None else "fields+markdown" if fields else "markdown"
    return ParseResult(
        data=body.get("data") or {},
        document_type=body.get("document_type", "other"),
        confidence=body.get("confidence", 0.0),
        field_confidence=body.get("field_confidence") or {},
        warnings=tuple(body.get("warnings") or ()),
        usage=Usage(**(body.get("usage") or {})),
        pages=body.get("pages", 0),
        provenance=None
        if provenance is None
        else {
            name: FieldProvenance(page=p["page"], bbox=tuple(p["bbox"]), text=p["text"])
            for name, p in provenance.items()
        },
        extractor=body.get("extractor", "remote" if fields else "none"),
        markdown=markdown,
        output=output,
    )
