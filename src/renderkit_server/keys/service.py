"""Issuing, verifying and regenerating API keys.

Keys are self-validating (see :mod:`renderkit_server.keys.tokens`): :meth:`KeyService.verify`
checks the signature and an in-memory revocation table and never touches a database.
Regeneration is the only way a key stops working; it records "generations below N of lineage
L are invalid" in a :class:`~renderkit_server.state.revocations.RevocationStore`, which is
loaded into memory by :meth:`KeyService.start` and kept up to date by every revocation this
process makes.

Several processes: each :class:`KeyService` caches revocations per process. Processes that
share a store see each other's revocations through :meth:`KeyService.refresh_forever`: a
store that is a :class:`~renderkit_server.state.revocations.RevocationFeed` (Redis) pushes each
revocation to every replica as it happens, and the periodic full reload is a safety net for
notifications lost while the feed reconnected; with a store that cannot push (one SQLite file
shared by the workers of one host) the reload interval is how long an old key may keep working
on the *other* processes. A double regeneration is still refused across processes, because
:meth:`RevocationStore.revoke` is a compare-and-set. Verification never waits for the store:
when it is unreachable, the last table loaded keeps being applied and regeneration fails.

Owners: keys carry no e-mail address (version 2, see :mod:`renderkit_server.keys.tokens`);
:meth:`KeyService.issue` records lineage -> address in a
:class:`~renderkit_server.state.key_owners.KeyOwnerStore`, where :meth:`KeyService.owner_email`
finds it for the key e-mails. A version 1 key still carries its address, which regeneration
copies into the store. A lineage with no address on record (the entry was deleted, or a
store that does not persist lost it) still regenerates: the new key is only returned in the
response, never e-mailed, because refusing would leave a leaked key impossible to rotate.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable
from typing import NoReturn

import anyio

from renderkit import InvalidRequestError, RenderkitError
from renderkit_server.closing import close_each
from renderkit_server.keys.emails import normalize_email
from renderkit_server.keys.tokens import (
    PLANS,
    ApiKey,
    InvalidKeyError,
    IssuedKey,
    KeySigner,
    fingerprint,
)
from renderkit_server.state.key_owners import KeyOwnerStore, MemoryKeyOwnerStore
from renderkit_server.state.revocations import RevocationFeed, RevocationStore

__all__ = ["KeyService", "normalize_plan"]

logger = logging.getLogger("renderkit_server")

_PLAN = "plan"
_MAX_GENERATION = 2**32 - 1


class KeyService:
    """Issues, verifies and regenerates API keys.

    Use it as ``async with KeyService(...) as keys:`` or call :meth:`start` before the first
    :meth:`verify` and :meth:`aclose` at shutdown. The service owns ``revocations`` and
    ``owners`` and closes them.

    Args:
        signer: signs new keys and checks signatures.
        revocations: where regenerations are recorded.
        owners: where each lineage's owner e-mail is kept; by default in this process only
            (a server passes its shared store, see :mod:`renderkit_server.state.build`).
        clock: returns unix seconds; injectable for tests.
    """

    def __init__(
        self,
        signer: KeySigner,
        revocations: RevocationStore,
        *,
        owners: KeyOwnerStore | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._signer = signer
        self._revocations = revocations
        self._owners: KeyOwnerStore = owners if owners is not None else MemoryKeyOwnerStore()
        self._clock = clock
        self._before: dict[str, int] = {}
        self._started = False
        self._lock = anyio.Lock()

    fingerprint = staticmethod(fingerprint)

    async def __aenter__(self) -> KeyService:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def start(self) -> None:
        """Load the revocation table into memory.

        Raises:
            StorageUnavailableError: the store could not be read.
        """
        await self.refresh()
        self._started = True

    async def refresh(self) -> None:
        """Merge revocations made by other processes sharing the store into the cache, and
        write back any the store lost.

        Raises:
            StorageUnavailableError: the store could not be read.
        """
        stored = await self._revocations.load_all()
        for key_id, before in stored.items():
            self._raise_threshold(key_id, before)
        for key_id, before in list(self._before.items()):
            if stored.get(key_id, 0) < before:
                # The store lost a revocation this process knows (a Redis restarted without
                # persistence): write it back, or a replica started later would accept the key.
                await self._revocations.revoke(key_id, before=before)

    async def refresh_forever(self, *, every: float) -> NoReturn:
        """Keep the cache up to date with other processes until cancelled.

        Reloads every ``every`` seconds; with a :class:`RevocationFeed` store, also applies
        each revocation as it is announced (and reloads whenever the feed reconnects). A
        failed reload is logged and retried.

        Args:
            every: seconds between full reloads.
        """
        async with anyio.create_task_group() as group:
            if isinstance(self._revocations, RevocationFeed):
                group.start_soon(self._follow, self._revocations)
            while True:
                await anyio.sleep(every)
                await self._try_refresh()
        msg = "unreachable: the reload loop only ends by cancellation"  # pragma: no cover
        raise AssertionError(msg)  # pragma: no cover

    async def _follow(self, feed: RevocationFeed) -> None:
        await feed.follow(self._raise_threshold, self._try_refresh)

    async def _try_refresh(self) -> None:
        try:
            await self.refresh()
        except RenderkitError:
            logger.warning("could not refresh key revocations", exc_info=True)

    async def aclose(self) -> None:
        """Close the revocation and owner stores."""
        await close_each(self._revocations, self._owners)

    async def issue(self, email: str, plan: str) -> IssuedKey:
        """Issue a key for a new lineage.

        Args:
            email: owner's e-mail address; normalised (see :func:`normalize_email`).
            plan: one of :data:`PLANS` (case-insensitive).

        Returns:
            The new key; show it once, it cannot be recovered. The address is recorded as
            the lineage's owner, not written into the key.

        Raises:
            InvalidRequestError: for field ``email`` or ``plan``.
            StorageUnavailableError: the owner could not be recorded; no key is issued.
        """
        email = normalize_email(email)
        plan = normalize_plan(plan)
        key_id = secrets.token_hex(16)
        await self._owners.put(key_id, email)
        return self._issue(key_id=key_id, plan=plan, email=email, generation=0)

    async def owner_email(self, claims: ApiKey) -> str | None:
        """The e-mail address of a verified key's owner: the one a version 1 key carries,
        else the one on record for its lineage; None when there is none.

        Raises:
            StorageUnavailableError: the owner store could not be read.
        """
        if claims.email is not None:
            return claims.email
        return await self._owners.get(claims.key_id)

    def verify(self, key: str) -> ApiKey:
        """Verify a key in memory: signature, known kid and not revoked.

        Args:
            key: the key string as received.

        Returns:
            The key's claims.

        Raises:
            InvalidKeyError: the key is not valid.
            RuntimeError: :meth:`start` was not awaited, so revocations are unknown.
        """
        if not self._started:
            msg = "KeyService.start() must be awaited before verify()"
            raise RuntimeError(msg)
        claims = self._signer.verify(key)
        if self.is_revoked(claims.key_id, claims.generation):
            raise InvalidKeyError(reason="revoked")
        return claims

    def is_revoked(self, key_id: str, generation: int) -> bool:
        """Whether generation ``generation`` of lineage ``key_id`` was regenerated away (in
        memory, like :meth:`verify`); signed image URLs of such a key are refused."""
        return generation < self._before.get(key_id, 0)

    async def regenerate(self, key: str) -> IssuedKey:
        """Replace a key: the old one stops verifying at once, the new one keeps its lineage.

        Args:
            key: the current key.

        Returns:
            A version 2 key for the same lineage and plan with the next generation; its
            ``email`` is the owner's address (:meth:`owner_email`), None when none is on
            record. A version 1 key's address is recorded as the lineage's owner first.

        Raises:
            InvalidKeyError: the old key is not valid, e.g. it was already regenerated.
            StorageUnavailableError: the owner or the revocation could not be recorded; the
                old key stays valid.
        """
        self.verify(key)
        async with self._lock:
            # Verify again under the lock: a concurrent regenerate may just have revoked it.
            old = self.verify(key)
            generation = old.generation + 1
            if generation > _MAX_GENERATION:
                raise InvalidKeyError(reason="revoked")
            email = await self.owner_email(old)
            if old.email is not None:
                # Before revoking: the new key no longer carries the address, and a failure
                # here leaves the old key (which does) valid.
                await self._owners.put(old.key_id, old.email)
            if not await self._revocations.revoke(old.key_id, before=generation):
                # Another process sharing the store regenerated this key first.
                self._raise_threshold(old.key_id, generation)
                raise InvalidKeyError(reason="revoked")
            self._raise_threshold(old.key_id, generation)
        return self._issue(key_id=old.key_id, plan=old.plan, email=email, generation=generation)

    def _issue(self, *, key_id: str, plan: str, email: str | None, generation: int) -> IssuedKey:
        issued_at = int(self._clock())
        claims = ApiKey(
            key_id=key_id,
            plan=plan,
            generation=generation,
            issued_at=issued_at,
            kid=self._signer.current_kid,
        )
        return IssuedKey(
            key=self._signer.sign(claims),
            key_id=key_id,
            plan=plan,
            email=email,
            created=claims.issued,
            generation=generation,
        )

    def _raise_threshold(self, key_id: str, before: int) -> None:
        if before > self._before.get(key_id, 0):
            self._before[key_id] = before


def normalize_plan(plan: object) -> str:
    """Return the plan name in its canonical (lower-case) spelling.

    Raises:
        InvalidRequestError: for field ``plan``: not a string or not one of :data:`PLANS`.
    """
    if not isinstance(plan, str):
        msg = "must be a string"
        raise InvalidRequestError.single(_PLAN, msg)
    normalized = plan.lower()
    if normalized not in PLANS:
        msg = f"must be one of {', '.join(PLANS)}"
        raise InvalidRequestError.single(_PLAN, msg)
    return normalized
