"""Signed render-by-URL images: the URL a page puts in ``<meta property="og:image">``.

A signed URL is ``<base>/api/image/<template>.<format>?<fields>&kid=<id>&exp=<t>&sig=<mac>``.
The key never appears in it: the key holder derives a URL-signing secret from the key
(:func:`url_secret`), names the key by a public id (:func:`public_key_id`: lineage and
generation, the leading fields of every key version) and signs the canonical query
(:func:`canonical_query`, the one canonicaliser the server verifies with too).
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import hmac
import struct
from collections.abc import Mapping
from urllib.parse import quote

from renderkit.core.errors import InvalidRequestError

__all__ = [
    "SIGNATURE_PARAM",
    "canonical_query",
    "public_key_id",
    "sign_image_url",
    "signature",
    "url_secret",
]

#: The query parameter holding the signature; every other parameter is signed.
SIGNATURE_PARAM = "sig"
_CONTEXT = b"renderkit url-signing v1"
_KEY_PREFIX = "sk_live_"
# The key payload starts with version (1 byte), lineage id (16 bytes), plan (1 byte) and
# generation (uint32): see renderkit_server.keys.tokens, which owns the full format.
_HEAD = struct.Struct(">B16sBI")
_FORMATS = ("png", "jpeg", "webp")


def url_secret(key: str) -> bytes:
    """The URL-signing secret of an API key: HMAC-SHA256(key, "renderkit url-signing v1").

    Args:
        key: the full API key string.

    Returns:
        32 bytes; anyone holding the key can derive it, nobody can go back to the key.
    """
    return hmac.new(key.encode("utf-8"), _CONTEXT, hashlib.sha256).digest()


def public_key_id(key: str) -> str:
    """The public id naming ``key`` in URLs: hex lineage id, a dot, the generation.

    Args:
        key: the full API key string.

    Returns:
        e.g. ``"9f86d081884c7d659a2feaa0c55ad015.0"``.

    Raises:
        InvalidRequestError: for field ``key``: not an API key.
    """
    payload = key.removeprefix(_KEY_PREFIX).partition(".")[0] if isinstance(key, str) else ""
    try:
        raw = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
        _version, lineage, _plan, generation = _HEAD.unpack_from(raw)
    except (ValueError, struct.error):
        raise InvalidRequestError.single("key", "is not a renderkit API key") from None
    if not key.startswith(_KEY_PREFIX):
        raise InvalidRequestError.single("key", "is not a renderkit API key")
    return f"{lineage.hex()}.{generation}"


def canonical_query(params: Mapping[str, str]) -> str:
    """The signed form of a query: every parameter but ``sig``, sorted by name, each name
    and value percent-encoded with nothing left safe (RFC 3986 unreserved characters stay).

    Signer and verifier both call this on decoded values, so how a browser or CDN
    re-encodes the URL in between does not matter.
    """
    return "&".join(
        f"{quote(name, safe='')}={quote(value, safe='')}"
        for name, value in sorted(params.items())
        if name != SIGNATURE_PARAM
    )


def signature(secret: bytes, template: str, image_format: str, canonical: str) -> str:
    """The ``sig`` of a URL: HMAC-SHA256 over ``<template>.<format>?<canonical query>``,
    base64url without padding. The file name is signed too, so a signature made for one
    template or format cannot be moved to another."""
    message = f"{template}.{image_format}?{canonical}".encode()
    mac = hmac.new(secret, message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode("ascii")


def _flatten(data: Mapping[str, object], prefix: str = "") -> dict[str, str]:
    flat: dict[str, str] = {}
    for name, value in data.items():
        if value is None:
            continue
        if isinstance(value, Mapping):
            flat.update(_flatten(value, f"{prefix}{name}."))
        elif isinstance(value, bool):
            flat[f"{prefix}{name}"] = "true" if value else "false"
        else:
            flat[f"{prefix}{name}"] = str(value)
    return flat


def sign_image_url(
    base_url: str,
    key: str,
    template: str,
    data: Mapping[str, object],
    *,
    format: str = "png",
    expires: datetime.datetime | int | None = None,
    width: int | None = None,
    height: int | None = None,
    scale: float | None = None,
) -> str:
    """Build a signed render-by-URL image link for a renderkit server.

    Args:
        base_url: the server, e.g. ``https://render.example.com`` (a trailing ``/`` is fine).
        key: your API key; only a secret derived from it is used, it is not in the URL.
        template: a template name, e.g. ``og-card``.
        data: the template's fields (``title``, ``subtitle``...); nested mappings become
            dotted names; None values are left out.
        format: ``png``, ``jpeg`` or ``webp``.
        expires: when the link stops working (aware datetime or unix seconds); None for never.
        width: the image request's width override (CSS px).
        height: the image request's height override (CSS px).
        scale: the image request's device scale override.

    Returns:
        The URL; every view after the first is served from storage without charging.

    Raises:
        InvalidRequestError: for field ``key`` or ``format``.
    """
    image_format = {"jpg": "jpeg"}.get(format.lower(), format.lower())
    if image_format not in _FORMATS:
        raise InvalidRequestError.single("format", f"must be one of {', '.join(_FORMATS)}")
    params = _flatten(data)
    for name, value in (("width", width), ("height", height), ("scale", scale)):
        if value is not None:
            params[name] = str(value)
    params["kid"] = public_key_id(key)
    if expires is not None:
        stamp = expires if isinstance(expires, int) else int(expires.timestamp())
        params["exp"] = str(stamp)
    canonical = canonical_query(params)
    sig = signature(url_secret(key), template, image_format, canonical)
    return f"{base_url.rstrip('/')}/api/image/{template}.{image_format}?{canonical}&sig={sig}"
