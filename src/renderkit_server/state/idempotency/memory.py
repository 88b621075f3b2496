"""An :class:`~renderkit_server.state.idempotency.base.IdempotencyStore` in one process."""

from __future__ import annotations

import time
import uuid

import attrs

from renderkit_server.state.idempotency.base import (
    DEFAULT_MAX_PER_LINEAGE,
    Claim,
    StoredAnswer,
)

__all__ = ["MemoryIdempotencyStore"]


@attrs.define
class _Entry:
    fingerprint: str
    token: str
    lease_until: float
    expires_at: float
    answer: StoredAnswer | None = None


class MemoryIdempotencyStore:
    """Entries in dicts of the instance (insertion order is claim order), on the monotonic
    clock. For one process only: other replicas or workers do not see them.

    Args:
        max_per_lineage: entries one lineage keeps; claiming more forgets the oldest.
    """

    def __init__(self, *, max_per_lineage: int = DEFAULT_MAX_PER_LINEAGE) -> None:
        self._max = max_per_lineage
        self._lineages: dict[str, dict[str, _Entry]] = {}

    async def claim(
        self, lineage: str, key: str, fingerprint: str, *, lease: float, ttl: float
    ) -> Claim:
        """See :meth:`IdempotencyStore.claim`."""
        now = time.monotonic()
        entries = self._lineages.setdefault(lineage, {})
        for name in [name for name, entry in entries.items() if entry.expires_at <= now]:
            del entries[name]
        entry = entries.get(key)
        if entry is not None:
            if entry.answer is not None or entry.lease_until > now:
                if entry.fingerprint != fingerprint:
                    return Claim(outcome="conflict")
                if entry.answer is not None:
                    return Claim(outcome="replay", answer=entry.answer)
                return Claim(outcome="in_progress")
            del entries[key]  # a lapsed lease: its holder died
        token = uuid.uuid4().hex
        entries[key] = _Entry(
            fingerprint=fingerprint, token=token, lease_until=now + lease, expires_at=now + ttl
        )
        while len(entries) > self._max:
            del entries[next(iter(entries))]
        return Claim(outcome="started", token=token)

    async def renew(self, lineage: str, key: str, token: str, lease: float) -> bool:
        """See :meth:`IdempotencyStore.renew`."""
        entry = self._held(lineage, key, token)
        if entry is None:
            return False
        entry.lease_until = time.monotonic() + lease
        return True

    async def complete(self, lineage: str, key: str, token: str, answer: StoredAnswer) -> bool:
        """See :meth:`IdempotencyStore.complete`."""
        entry = self._held(lineage, key, token)
        if entry is None:
            return False
        entry.answer = answer
        return True

    async def release(self, lineage: str, key: str, token: str) -> None:
        """See :meth:`IdempotencyStore.release`."""
        if self._held(lineage, key, token) is not None:
            del self._lineages[lineage][key]

    async def aclose(self) -> None:
        """Nothing to release."""

    def _held(self, lineage: str, key: str, token: str) -> _Entry | None:
        entry = self._lineages.get(lineage, {}).get(key)
        if entry is None or entry.token != token or entry.answer is not None:
            return None
        return entry
