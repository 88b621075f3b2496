"""How :func:`renderkit_server.operations.execute` uses the render cache.

A cached operation first looks its request up (:func:`lookup`): a live entry whose file is
still in storage answers at once, without rendering and without charging the monthly quota
(the burst limit still counts the request). Otherwise the call renders as usual and
:func:`remember` indexes the stored file. A failing index never fails a call: the lookup
is then a miss and the entry is not written.

Entries are scoped (see :func:`~renderkit_server.state.render_cache.keys.scope`): a key
lineage reads only what it rendered itself, unless the operator shares template renders.
A request's TTL is also the oldest entry it accepts, so an entry stored for 30 days does not
answer a request asking for one second. ``cache: false`` renders again and its file replaces
the entry, so the next cached request gets the new file.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

import attrs
from prometheus_client import Counter

from renderkit import ObjectNotFoundError, RenderkitError, StorageUnavailableError
from renderkit.browser import Browser
from renderkit.speech import SpeechProvider
from renderkit.storage import Storage
from renderkit_server.state.render_cache.base import CachedEntry, RenderCache
from renderkit_server.state.render_cache.keys import cache_key

__all__ = ["CacheLookup", "Hit", "browser_renderer", "lookup", "remember", "speech_renderer"]

logger = logging.getLogger("renderkit_server")

#: The response header saying how the cache answered: HIT, MISS or BYPASS.
HEADER = "X-Cache"


@attrs.frozen(kw_only=True)
class Hit:
    """A cached file, read back from storage."""

    entry: CachedEntry
    content: bytes


@attrs.frozen(kw_only=True)
class CacheLookup:
    """The outcome of a lookup.

    Attributes:
        key: the cache key to remember the render under (None: do not remember it).
        ttl: seconds the entry lives.
        result: ``hit``, ``miss`` or ``bypass`` (the ``X-Cache`` header, lower case).
        hit: the cached file on a hit.
    """

    key: str | None = None
    ttl: int = 0
    result: str = "miss"
    hit: Hit | None = None

    @property
    def headers(self) -> dict[str, str]:
        """The ``X-Cache`` header of the response (none for an operation not cached)."""
        return {} if self.result == "none" else {HEADER: self.result.upper()}


async def browser_renderer(browser: Browser) -> str:
    """The renderer version of browser operations: Chromium's major version.

    A browser that cannot tell (a test double) is named by its class.
    """
    version = getattr(browser, "version", None)
    if version is None:
        return type(browser).__name__
    return "chromium " + str(await version()).split(".", 1)[0]


async def speech_renderer(speech: SpeechProvider) -> str:
    """The renderer version of audio: the speech engines, the default first (the voice is
    in the request, and with the default engine it says which engine speaks)."""
    engines = getattr(speech, "engines", None)
    if engines is None:
        return type(speech).__name__
    return "+".join(type(engine).__name__ for engine in engines)


async def lookup(
    *,
    operation: str,
    kind: str,
    request: Any,
    ttl: int,
    renderer: str,
    scope: str,
    index: RenderCache,
    storage: Storage,
    counter: Counter,
    clock: Callable[[], float] = time.time,
) -> CacheLookup:
    """Look ``request`` up, unless ``ttl`` is 0 (not cached) or it asks ``cache: false``
    (then the render is remembered without looking, replacing the entry).

    Args:
        operation: the operation's name, part of the key.
        kind: the metrics label (the operation's storage kind).
        request: the structured request.
        ttl: seconds a new entry lives, and the oldest entry this request accepts (its
            maximum age); 0 when this request is not cached.
        renderer: the renderer version, part of the key.
        scope: who may read the entry, part of the key (see
            :func:`~renderkit_server.state.render_cache.keys.scope`).
        index: the render cache's index.
        storage: where the cached files are.
        counter: the lookups by kind and result (``renderkit_cache_requests_total``).
        clock: Unix seconds, the clock :attr:`CachedEntry.created` is read against.
    """
    if ttl <= 0:
        return CacheLookup(result="none")
    key = cache_key(operation, request, renderer=renderer, scope=scope)
    if not getattr(request, "cache", True):
        counter.labels(kind, "bypass").inc()
        return CacheLookup(key=key, ttl=ttl, result="bypass")
    hit = await _read(key, index, storage, oldest=clock() - ttl)
    counter.labels(kind, "miss" if hit is None else "hit").inc()
    return CacheLookup(key=key, ttl=ttl, result="miss" if hit is None else "hit", hit=hit)


async def _read(key: str, index: RenderCache, storage: Storage, *, oldest: float) -> Hit | None:
    try:
        entry = await index.get(key)
        # An entry stored with a longer TTL than this request's is still live in the index,
        # but older than this requester accepts.
        if entry is None or entry.created <= oldest:
            return None
        # Read, not only checked: the MCP tools embed small files, and a file removed from
        # storage (expiry rules, an operator) turns the hit into a miss.
        content = await storage.get(entry.storage_key)
    except ObjectNotFoundError:
        return None
    except StorageUnavailableError as exc:
        logger.warning("render cache lookup failed, rendering instead: %s", exc)
        return None
    return Hit(entry=entry, content=content)


async def remember(
    found: CacheLookup,
    *,
    storage_key: str,
    content_type: str,
    size: int,
    facts: Mapping[str, Any],
    index: RenderCache,
    clock: Callable[[], float] = time.time,
) -> None:
    """Index a file just rendered and stored for the lookup that missed or bypassed."""
    if found.key is None:
        return
    entry = CachedEntry(
        storage_key=storage_key,
        content_type=content_type,
        size=size,
        facts=dict(facts),
        created=clock(),
    )
    try:
        await index.put(found.key, entry, found.ttl)
    except RenderkitError as exc:
        logger.warning("render cache write failed: %s", exc)
