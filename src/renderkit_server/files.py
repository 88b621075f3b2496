"""Download URLs for produced files, and the handler serving locally stored ones.

Local files are served by the app itself under signed, expiring URLs
(``/files/<key>?expires=<unix>&signature=<hmac>``); with a configured public base URL (a CDN
in front of the directory or bucket) URLs are permanent instead. S3 storage hands out its
own presigned or public URLs.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timedelta
from email.utils import format_datetime
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urlencode

import anyio.to_thread
import attrs
from litestar import HttpMethod, Request, Response, route
from litestar.di import NamedDependency
from litestar.params import FromPath
from litestar.types import ControllerRouterHandler

from renderkit import InvalidRequestError, ObjectNotFoundError
from renderkit.core.filenames import content_disposition
from renderkit.storage import LocalStorage, Storage
from renderkit_server import signing
from renderkit_server.byteranges import RangeNotSatisfiableError, parse_range
from renderkit_server.errors import HttpProblem

__all__ = ["ROUTES", "FileSigner", "FileUrls", "serve_file"]

_MAC_BYTES = 20


def _message(key: str, expires: int) -> str:
    return f"file:{key}:{expires}"


@attrs.frozen(kw_only=True)
class FileSigner:
    """Signs and checks file download URLs with HMAC-SHA256.

    The signature is over ``file:<key>:<expires>``, truncated to 160 bits.

    Attributes:
        secret: the MAC key (derived from the server secret for :attr:`PURPOSE`).
        clock: returns unix seconds; injectable for tests.
    """

    #: What the server secret is derived for (see :func:`renderkit_server.signing.current_key`).
    PURPOSE: ClassVar[str] = "renderkit-files"

    secret: bytes = attrs.field(repr=False)
    clock: Callable[[], float] = time.time

    @classmethod
    def from_secret(cls, secret: str) -> FileSigner:
        """A signer keyed by the server secret's current entry.

        Args:
            secret: ``RENDERKIT_SECRET``.

        Returns:
            The signer.
        """
        return cls(secret=signing.current_key(secret, cls.PURPOSE))

    def signature(self, key: str, expires: int) -> str:
        """The signature of a URL for ``key`` valid until ``expires`` (unix seconds)."""
        return signing.mac(self.secret, _message(key, expires), size=_MAC_BYTES)

    def query(self, key: str, ttl: timedelta) -> str:
        """The URL query (``expires`` and ``signature``) making ``key`` readable for ``ttl``."""
        expires = int(self.clock() + ttl.total_seconds())
        return urlencode({"expires": expires, "signature": self.signature(key, expires)})

    def check(self, key: str, expires: str | None, signature: str | None) -> int:
        """Return the expiry, or raise a 403 HttpProblem for a bad or expired signature."""
        if not expires or not signature or not expires.isdigit():
            raise HttpProblem(403, "FORBIDDEN", "this file URL is not signed")
        expiry = int(expires)
        if not signing.verify(self.secret, _message(key, expiry), signature, size=_MAC_BYTES):
            raise HttpProblem(403, "FORBIDDEN", "this file URL's signature is invalid")
        if expiry < self.clock():
            raise HttpProblem(403, "URL_EXPIRED", "this file URL has expired")
        return expiry


@attrs.frozen(kw_only=True)
class FileUrls:
    """Builds the URL returned to clients for a stored key."""

    storage: Storage
    signer: FileSigner
    ttl: timedelta
    public_url: str | None = None
    files_public_url: str | None = None

    async def url_for(self, key: str, base_url: str | None) -> str:
        """The URL for ``key``; ``base_url`` is this server's, used for local files."""
        if self.files_public_url:
            return f"{self.files_public_url}/{key}"
        backend_url = await self.storage.url_for(key, expires_in=self.ttl)
        if backend_url:
            return backend_url
        base = self.public_url or (base_url or "").rstrip("/")
        return f"{base}/files/{key}?{self.signer.query(key, self.ttl)}"


#: Cache lifetime of files behind permanent public URLs: they never change (random keys).
_IMMUTABLE = "public, max-age=31536000, immutable"


def _cache_control(max_age: int | None) -> str:
    # A signed URL is a capability that expires: shared caches must not keep (and hand out)
    # the file past that moment, so it is private and lives only as long as the signature.
    if max_age is None:
        return _IMMUTABLE
    return f"private, max-age={max_age}, immutable"


def _disposition(key: str, filename: str | None) -> str:
    """``inline`` with the name stored with the file, else ``renderkit-<last part of the key>``
    (files stored before names were recorded, or by a caller that gave none)."""
    if filename:
        return content_disposition(filename)
    base = key.rsplit("/", 1)[-1]
    return content_disposition("renderkit-" + base)


def _etag_matches(header: str, etag: str) -> bool:
    # If-None-Match uses the weak comparison (RFC 9110 13.1.2): W/ prefixes do not matter.
    candidates = (part.strip().removeprefix("W/") for part in header.split(","))
    return any(c in ("*", etag) for c in candidates)


def _read_span(path: Path, first: int, length: int) -> bytes:
    with path.open("rb") as file:
        file.seek(first)
        return file.read(length)


@route(
    ["/files/{key:path}"],
    http_method=[HttpMethod.GET, HttpMethod.HEAD],
    include_in_schema=False,
)
async def serve_file(
    request: Request[Any, Any, Any], key: FromPath[str], urls: NamedDependency[FileUrls]
) -> Response[Any]:
    """Serve a locally stored file behind a valid signature, as a CDN would.

    ``nosniff``, the readable name stored with the file (``invoice-INV-0042.pdf``), a strong
    ``ETag`` (``If-None-Match`` answers 304), ``Last-Modified``, single byte ranges (206, or
    416 beyond the end) and HEAD.
    """
    key = key.lstrip("/")
    max_age: int | None = None
    if not urls.files_public_url:
        expires = urls.signer.check(
            key, request.query_params.get("expires"), request.query_params.get("signature")
        )
        max_age = max(0, int(expires - urls.signer.clock()))
    storage = urls.storage
    if not isinstance(storage, LocalStorage):
        raise HttpProblem(404, "NOT_FOUND", "files are not served by this server")
    try:
        head = await storage.head(key)
        path = storage.path_for(key)
    except (ObjectNotFoundError, InvalidRequestError):
        raise HttpProblem(404, "NOT_FOUND", "no such file") from None
    etag = f'"{head.etag}"'
    headers = {
        "ETag": etag,
        "Last-Modified": format_datetime(head.created_at, usegmt=True),
        "Cache-Control": _cache_control(max_age),
        "Accept-Ranges": "bytes",
        "X-Content-Type-Options": "nosniff",
        "Content-Disposition": _disposition(key, head.filename),
    }
    if_none_match = request.headers.get("if-none-match")
    if if_none_match is not None and _etag_matches(if_none_match, etag):
        return Response(content=b"", status_code=304, headers=headers)
    span = None
    if request.headers.get("if-range", etag) == etag:  # a changed file is sent whole
        try:
            span = parse_range(request.headers.get("range"), head.size)
        except RangeNotSatisfiableError as exc:
            raise HttpProblem(
                416,
                "RANGE_NOT_SATISFIABLE",
                f"{exc}: the file has {head.size} bytes",
                headers={"Content-Range": f"bytes */{head.size}"},
            ) from None
    first, last = span if span is not None else (0, head.size - 1)
    length = last - first + 1
    if span is not None:
        headers["Content-Range"] = f"bytes {first}-{last}/{head.size}"
    status = 206 if span is not None else 200
    if request.method == HttpMethod.HEAD:
        body = b""
    else:
        try:
            body = await anyio.to_thread.run_sync(_read_span, path, first, length)
        except FileNotFoundError:  # deleted between head() and now
            raise HttpProblem(404, "NOT_FOUND", "no such file") from None
    headers["Content-Length"] = str(length)
    return Response(content=body, status_code=status, media_type=head.content_type, headers=headers)


#: What the app mounts for files.
ROUTES: tuple[ControllerRouterHandler, ...] = (serve_file,)
