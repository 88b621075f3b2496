"""The :class:`IdempotencyStore` protocol and the values it keeps."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Literal, Protocol, runtime_checkable

import attrs

__all__ = [
    "DEFAULT_MAX_PER_LINEAGE",
    "Claim",
    "IdempotencyStore",
    "Outcome",
    "StoredAnswer",
    "decode_headers",
    "encode_headers",
]

#: Entries one key lineage may hold at once; past it the oldest are forgotten.
DEFAULT_MAX_PER_LINEAGE = 10_000

#: What :meth:`IdempotencyStore.claim` found.
Outcome = Literal["started", "replay", "conflict", "in_progress"]


@attrs.frozen(kw_only=True)
class StoredAnswer:
    """The first answer to a keyed request: what a retry receives instead of new work.

    Attributes:
        status: the HTTP status.
        headers: the response headers worth repeating (never credentials or cookies).
        body: the response body as sent.
    """

    status: int
    headers: Mapping[str, str] = attrs.field(factory=dict)
    body: bytes = b""


@attrs.frozen(kw_only=True)
class Claim:
    """The result of :meth:`IdempotencyStore.claim`.

    Attributes:
        outcome: ``started`` (the caller runs the work and holds the entry with
            :attr:`token`), ``replay`` (the first answer is :attr:`answer`), ``conflict``
            (the key was used with another request) or ``in_progress`` (the first request
            with this key is still running).
        token: proves the caller holds a started entry; empty otherwise.
        answer: the stored first answer of a replay; None otherwise.
    """

    outcome: Outcome
    token: str = ""
    answer: StoredAnswer | None = None


def encode_headers(headers: Mapping[str, str]) -> str:
    """Headers as JSON text, for the backends that keep text."""
    return json.dumps(dict(headers), separators=(",", ":"))


def decode_headers(text: str | bytes) -> dict[str, str]:
    """The headers :func:`encode_headers` wrote."""
    decoded: dict[str, str] = json.loads(text)
    return decoded


@runtime_checkable
class IdempotencyStore(Protocol):
    """Entries by key lineage and entry key, each either running (a lease) or answered.

    ``lineage`` is the API key lineage the entry belongs to (a key and its regenerations):
    entries of one lineage are invisible to every other. ``key`` names the entry within its
    lineage (the server hashes the method, path and ``Idempotency-Key`` into it). An entry
    lives ``ttl`` seconds from its claim, answered or not; a running entry whose lease ran
    out (its holder crashed) is free to claim again. Each lineage keeps at most the
    store's ``max_per_lineage`` entries: claiming one more forgets the oldest. Backend
    failures raise :class:`renderkit.StorageUnavailableError`.
    """

    async def claim(
        self, lineage: str, key: str, fingerprint: str, *, lease: float, ttl: float
    ) -> Claim:
        """Look up ``key`` and, when it is free, take it for a new run.

        A free key (never used, expired, or running under a lapsed lease) is taken for
        ``lease`` seconds: ``started`` with a token. An answered entry with the same
        ``fingerprint`` is a ``replay``; a live entry (answered or running) with another
        fingerprint a ``conflict``; a running one with the same fingerprint ``in_progress``.
        """
        ...

    async def renew(self, lineage: str, key: str, token: str, lease: float) -> bool:
        """Extend a running entry's lease to ``lease`` seconds from now.

        Returns:
            False when ``token`` no longer holds it (the lease lapsed and another took it).
        """
        ...

    async def complete(self, lineage: str, key: str, token: str, answer: StoredAnswer) -> bool:
        """Store ``answer`` on the running entry ``token`` holds; it keeps its expiry.

        Returns:
            False when ``token`` no longer holds the entry (nothing is stored).
        """
        ...

    async def release(self, lineage: str, key: str, token: str) -> None:
        """Forget the running entry ``token`` holds, so a retry runs again; a no-op when
        ``token`` no longer holds it."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...
