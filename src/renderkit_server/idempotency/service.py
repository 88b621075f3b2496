"""The claim / run / store cycle of one keyed request, shared by REST and the MCP tools."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

import attrs

from renderkit import StorageUnavailableError
from renderkit_server.errors import HttpProblem
from renderkit_server.idempotency.keys import HEADER, entry_key
from renderkit_server.state.idempotency import IdempotencyStore, StoredAnswer

__all__ = ["STORED_STATUSES", "Answered", "Idempotency"]

logger = logging.getLogger("renderkit_server")

#: The client errors a retry would only repeat: stored and replayed like a success. A 429,
#: a 5xx, a timeout or a disconnect is not stored: its retry runs again. Neither is a 401
#: or 403: nothing is claimed before the key is authenticated.
STORED_STATUSES = frozenset({400, 413, 415, 422})

#: Seconds an entry stays "in progress" without its holder renewing it; renewed every third
#: of it while the work runs, so a crash frees the key this long after it.
LEASE_SECONDS = 30.0

#: What the client waits before sending again while the first request runs.
IN_PROGRESS_RETRY_AFTER = 1


@attrs.frozen(kw_only=True)
class Answered:
    """What :meth:`Idempotency.run` answered: the work's answer, or the stored first one."""

    answer: StoredAnswer
    replayed: bool


def stored(status: int) -> bool:
    """Whether an answer with ``status`` is kept for the key's retries."""
    return 200 <= status < 300 or status in STORED_STATUSES


class Idempotency:
    """Runs a keyed request's work once per key lineage, method, path and key.

    Args:
        store: where entries live (shared by every replica with Redis).
        ttl: seconds an entry is kept from its first request (24 h by default).
        max_answer_bytes: the largest answer body kept; a larger answer is sent but not
            kept, and the entry is released (a retry runs again).
        lease: seconds a running entry is held without renewal (see :data:`LEASE_SECONDS`).
    """

    def __init__(
        self,
        store: IdempotencyStore,
        *,
        ttl: float,
        max_answer_bytes: int,
        lease: float = LEASE_SECONDS,
    ) -> None:
        self.store = store
        self.ttl = ttl
        self.max_answer_bytes = max_answer_bytes
        self.lease = lease

    async def run(
        self,
        *,
        lineage: str,
        method: str,
        path: str,
        key: str,
        fingerprint: str,
        work: Callable[[], Awaitable[StoredAnswer]],
    ) -> Answered:
        """Replay the first answer to this key, or run ``work`` and keep its answer.

        Call it only once the caller's key is authenticated: ``lineage`` is its key lineage.

        Args:
            lineage: the authenticated key's lineage id.
            method, path: the request's; a key is scoped to them.
            key: the ``Idempotency-Key`` value (checked by :func:`.keys.parse_key`).
            fingerprint: the request's fingerprint (:func:`.keys.fingerprint_body`).
            work: does the request's work and returns its answer; an exception from it
                frees the key (its retry runs again) and propagates.

        Raises:
            HttpProblem: 409 ``IDEMPOTENCY_KEY_REUSED`` (the key came with another request)
                or ``IDEMPOTENCY_KEY_IN_PROGRESS`` (the first request still runs; with
                ``Retry-After``).
            StorageUnavailableError: the store is down (nothing ran).
        """
        name = entry_key(method, path, key)
        claim = await self.store.claim(lineage, name, fingerprint, lease=self.lease, ttl=self.ttl)
        if claim.outcome == "replay" and claim.answer is not None:
            return Answered(answer=claim.answer, replayed=True)
        if claim.outcome == "conflict":
            msg = (
                f"this {HEADER} was used with a different request body (or method and path); "
                "send a new key for a new request"
            )
            raise HttpProblem(409, "IDEMPOTENCY_KEY_REUSED", msg, field=HEADER)
        if claim.outcome != "started":
            msg = f"the first request with this {HEADER} is still running; retry shortly"
            raise HttpProblem(
                409,
                "IDEMPOTENCY_KEY_IN_PROGRESS",
                msg,
                headers={"Retry-After": str(IN_PROGRESS_RETRY_AFTER)},
                field=HEADER,
            )
        token = claim.token
        keeper = asyncio.ensure_future(self._keep(lineage, name, token))
        try:
            answer = await work()
        except BaseException:
            await self._release(lineage, name, token)
            raise
        finally:
            keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await keeper
        keep = stored(answer.status) and len(answer.body) <= self.max_answer_bytes
        if stored(answer.status) and not keep:
            logger.info("an answer of %d bytes is too large to keep for replay", len(answer.body))
        try:
            if keep:
                await self.store.complete(lineage, name, token, answer)
            else:
                await self.store.release(lineage, name, token)
        except StorageUnavailableError as exc:
            # The work is done (and charged): its answer goes out; the entry's lease lapses
            # and a retry runs again, the store being unable to say otherwise.
            logger.warning("the answer could not be kept for replay: %s", exc)
        return Answered(answer=answer, replayed=False)

    async def _keep(self, lineage: str, name: str, token: str) -> None:
        """Renew the lease every third of it while the work runs."""
        while True:
            await asyncio.sleep(self.lease / 3)
            try:
                held = await self.store.renew(lineage, name, token, self.lease)
            except StorageUnavailableError as exc:
                logger.warning("an idempotency lease could not be renewed: %s", exc)
                continue
            if not held:
                logger.warning("an idempotency lease lapsed while its request was running")
                return

    async def _release(self, lineage: str, name: str, token: str) -> None:
        # Shielded: a cancelled request (its client went away) still frees its key. A store
        # that is down leaves the lease to lapse; the work's own error is what propagates.
        try:
            await asyncio.shield(self.store.release(lineage, name, token))
        except StorageUnavailableError as exc:
            logger.warning("an idempotency entry could not be released: %s", exc)
