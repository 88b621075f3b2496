"""``GET /api/image/<template>.<format>?<fields>&kid=&exp=&sig=``: images by signed URL.

A page puts the URL straight into ``<meta property="og:image">``; crawlers and CDNs fetch it
without any header. The signature (see :mod:`renderkit.image.signed_url`) is checked
against the URL-signing secret the server recorded for the public key id
(:class:`~renderkit_server.keys.url_secrets.UrlSecrets`). The response never changes for a
given URL, so it is cacheable for ever: each distinct image is rendered and charged once,
stored under a name derived from its ETag, and served from storage on every later view.

"Once" holds for simultaneous first views too (a page shared on a busy network brings many
crawlers at the same moment): the first view takes a lock named after the image
(:class:`~renderkit_server.state.render_locks.RenderLocks`, across replicas when they share
Redis or an SQLite file) and renders; the others wait for the lock to be freed and serve the
stored image. If the renderer fails, the next waiter takes the lock and tries itself.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl

import attrs
from litestar import Request, Response, get
from litestar.di import NamedDependency
from litestar.params import FromPath

import renderkit
from renderkit import ImageData, InvalidRequestError, ObjectNotFoundError
from renderkit.image.signed_url import SIGNATURE_PARAM, canonical_query, signature
from renderkit_server.errors import HttpProblem
from renderkit_server.keys import KeyService
from renderkit_server.keys.url_secrets import UrlSecrets
from renderkit_server.operations import IMAGE, Production, execute
from renderkit_server.state.render_locks import RenderLocks

__all__ = ["CACHE_CONTROL", "signed_image"]

#: The URL names one image for ever, so any cache may keep it for a year.
CACHE_CONTROL = "public, max-age=31536000, immutable"

_FILENAME_RE = re.compile(r"([a-z0-9-]+|[a-zA-Z]+)\.(png|jpeg|jpg|webp)")
_KID_RE = re.compile(r"([0-9a-f]{32})\.([0-9]{1,10})")
_SIZE_PARAMS = {"width": int, "height": int, "scale": float}
_CONTROL_PARAMS = {"kid", "exp", SIGNATURE_PARAM}
_DATA_FIELDS = frozenset({*attrs.fields_dict(ImageData), *ImageData.__rk_aliases__})
_STORAGE_PREFIX = "signed-images"


def _forbidden(code: str, message: str) -> HttpProblem:
    return HttpProblem(403, code, message)


def _query(request: Request[Any, Any, Any]) -> dict[str, str]:
    raw = request.scope.get("query_string", b"").decode("latin-1")
    params: dict[str, str] = {}
    for name, value in parse_qsl(raw, keep_blank_values=True):
        if name in params:
            raise InvalidRequestError.single(name, "must appear once in a signed URL")
        params[name] = value
    return params


def _etag(filename: str, canonical: str) -> str:
    # The renderer version is in the tag: an upgrade that changes the pixels makes new files.
    digest = hashlib.sha256(f"{filename}?{canonical}\n{renderkit.__version__}".encode())
    return digest.hexdigest()[:40]


def _matches(if_none_match: str | None, etag: str) -> bool:
    if not if_none_match:
        return False
    tags = {t.strip().removeprefix("W/") for t in if_none_match.split(",")}
    return "*" in tags or f'"{etag}"' in tags


async def _verify(
    keys: KeyService, url_secrets: UrlSecrets, params: dict[str, str], template: str, fmt: str
) -> str:
    """Check kid, signature and expiry; return the key lineage to charge and its plan."""
    sig, kid = params.get(SIGNATURE_PARAM), params.get("kid")
    if not sig or not kid:
        msg = "a signed image URL needs kid and sig query parameters"
        raise _forbidden("SIGNATURE_INVALID", msg)
    match = _KID_RE.fullmatch(kid)
    if match is None:
        raise _forbidden("SIGNATURE_INVALID", "kid is not a key id")
    if keys.is_revoked(match[1], int(match[2])):
        raise _forbidden("KEY_REVOKED", "the key that signed this URL was regenerated")
    entry = await url_secrets.lookup(kid)
    if entry is None:
        raise _forbidden("SIGNATURE_INVALID", "kid names no key known to this server")
    canonical = canonical_query(params)
    expected = signature(entry.secret, template, fmt, canonical)
    if not hmac.compare_digest(expected.encode(), sig.encode("utf-8", "replace")):
        raise _forbidden("SIGNATURE_INVALID", "sig does not match the URL")
    exp = params.get("exp")
    if exp is not None:
        if not exp.isdigit():
            raise InvalidRequestError.single("exp", "must be unix seconds")
        if int(exp) <= time.time():
            raise _forbidden("URL_EXPIRED", "this signed URL has expired (exp)")
    return entry.plan


def _payload(params: dict[str, str], template: str, fmt: str) -> dict[str, Any]:
    unknown = sorted(
        n for n in params if n not in _CONTROL_PARAMS | _SIZE_PARAMS.keys() | _DATA_FIELDS
    )
    if unknown:
        msg = f"unknown query parameters: {', '.join(unknown)}"
        raise InvalidRequestError.single(unknown[0], msg)
    payload: dict[str, Any] = {"template": template, "format": fmt}
    payload["data"] = {n: v for n, v in params.items() if n in _DATA_FIELDS}
    for name, kind in _SIZE_PARAMS.items():
        if name in params:
            try:
                payload[name] = kind(params[name])
            except ValueError:
                raise InvalidRequestError.single(name, "must be a number") from None
    return payload


@get(
    ["/api/image/{filename:str}", "/v1/image/{filename:str}"],
    summary="Get an image by signed URL",
    include_in_schema=False,
)
async def signed_image(
    request: Request[Any, Any, Any],
    filename: FromPath[str],
    keys: NamedDependency[KeyService],
    url_secrets: NamedDependency[UrlSecrets],
    production: NamedDependency[Production],
    render_locks: NamedDependency[RenderLocks],
) -> Response[bytes]:
    """Render (first view, charged once) or serve from storage the image a signed URL names."""
    match = _FILENAME_RE.fullmatch(filename)
    if match is None:
        msg = "the path must be <template>.<png|jpeg|webp>"
        raise InvalidRequestError.single("format", msg)
    template, fmt = match[1], {"jpg": "jpeg"}.get(match[2], match[2])
    params = _query(request)
    plan = await _verify(keys, url_secrets, params, template, fmt)
    payload = _payload(params, template, fmt)
    canonical = canonical_query(params)
    etag = _etag(f"{template}.{fmt}", canonical)
    headers = {"Cache-Control": CACHE_CONTROL, "ETag": f'"{etag}"'}
    if _matches(request.headers.get("if-none-match"), etag):
        return Response(b"", status_code=304, headers=headers)
    media_type = f"image/{fmt}"
    key = f"{_STORAGE_PREFIX}/{etag}.{fmt}"
    content = await _stored(production, key)
    if content is None:

        async def render() -> bytes:
            result = await execute(
                IMAGE,
                payload,
                production=production,
                key_id=params["kid"].partition(".")[0],
                plan=plan,
                base_url=str(request.base_url).rstrip("/"),
            )
            rendered = result.content or b""
            await production.storage.put(key, rendered, content_type=media_type)
            return rendered

        content = await _render_once(production, render_locks, key, render)
    return Response(content, media_type=media_type, headers=headers)


async def _stored(production: Production, key: str) -> bytes | None:
    try:
        return await production.storage.get(key)
    except ObjectNotFoundError:
        return None


async def _render_once(
    production: Production,
    locks: RenderLocks,
    key: str,
    render: Callable[[], Awaitable[bytes]],
) -> bytes:
    """Render under the image's lock, or wait for whoever holds it and serve what it stored.

    A render may take as long as a billing lease, so the lock is held (and waited for) that
    long at most.

    Raises:
        HttpProblem: 503 ``RENDER_PENDING`` when another view held the lock for the whole
            wait without storing the image.
    """
    budget = production.quotas.lease_seconds
    deadline = time.monotonic() + budget
    while True:
        token = await locks.acquire(key, budget)
        if token is not None:
            try:
                # The holder before us may have stored it between our look and our lock.
                content = await _stored(production, key)
                return content if content is not None else await render()
            finally:
                await locks.release(key, token)
        left = deadline - time.monotonic()
        if left <= 0:
            msg = "this image is being rendered for another request; try again shortly"
            raise HttpProblem(503, "RENDER_PENDING", msg, headers={"Retry-After": "5"})
        await locks.wait(key, left)
        content = await _stored(production, key)
        if content is not None:
            return content
