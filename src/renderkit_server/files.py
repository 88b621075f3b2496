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
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import urlencode

import attrs
from litestar import Request, Response, get
from litestar.datastructures import ETag
from litestar.di import NamedDependency
from litestar.params import FromPath
from litestar.response import File
from litestar.types import ControllerRouterHandler

from renderkit import InvalidRequestError, ObjectNotFoundError
from renderkit.storage import LocalStorage, Storage
from renderkit_server import signing
from renderkit_server.errors import ApiError

if TYPE_CHECKING:
    # services.py imports this module; the app resolves the name for Litestar.
    from renderkit_server.services import Services

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
        """Return the expiry, or raise a 403 ApiError for a bad or expired signature."""
        if not expires or not signature or not expires.isdigit():
            raise ApiError(403, "FORBIDDEN", "this file URL is not signed")
        expiry = int(expires)
        if not signing.verify(self.secret, _message(key, expiry), signature, size=_MAC_BYTES):
            raise ApiError(403, "FORBIDDEN", "this file URL's signature is invalid")
        if expiry < self.clock():
            raise ApiError(403, "URL_EXPIRED", "this file URL has expired")
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


@get(["/files/{key:path}"], include_in_schema=False)
async def serve_file(
    request: Request[Any, Any, Any], key: FromPath[str], services: NamedDependency[Services]
) -> Response[Any] | File:
    """Serve a locally stored file behind a valid signature."""
    urls = services.urls
    key = key.lstrip("/")
    if not urls.files_public_url:
        expires = urls.signer.check(
            key, request.query_params.get("expires"), request.query_params.get("signature")
        )
        max_age = max(0, int(expires - urls.signer.clock()))
    else:
        max_age = 31_536_000
    storage = urls.storage
    if not isinstance(storage, LocalStorage):
        raise ApiError(404, "NOT_FOUND", "files are not served by this server")
    try:
        head = await storage.head(key)
        path = storage.path_for(key)
    except (ObjectNotFoundError, InvalidRequestError):
        raise ApiError(404, "NOT_FOUND", "no such file") from None
    return File(
        path=path,
        content_disposition_type="inline",
        media_type=head.content_type,
        etag=ETag(value=head.etag),
        headers={"Cache-Control": f"private, max-age={max_age}, immutable"},
    )


#: What the app mounts for files.
ROUTES: tuple[ControllerRouterHandler, ...] = (serve_file,)
