"""The webhook outbox: every delivery, its attempts, and when it is next due.

A delivery is written before its first attempt and rewritten after each, so a retry that is
scheduled survives a restart and any replica can make it: :mod:`.sqlite` shares the outbox
between the processes of one host, :mod:`.redis` between every replica, :mod:`.memory`
keeps it in one process. Taking due deliveries (:meth:`WebhookOutbox.claim`) pushes their
due time forward by a lease, so two replicas never try one delivery at once, and a
delivery whose replica died while trying it comes due again when the lease runs out.

What is delivered, how, and when a delivery gives up is
:class:`renderkit_server.webhooks.WebhookDispatcher`'s job.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any, Literal, Protocol, runtime_checkable

import attrs

from renderkit import RenderkitError

__all__ = [
    "Attempt",
    "Delivery",
    "DeliveryStatus",
    "WebhookBacklogFullError",
    "WebhookOutbox",
    "decode",
    "encode",
]

#: ``pending`` (due or waiting for a retry), ``succeeded`` (a 2xx answer), ``failed``
#: (every attempt failed: it gave up).
DeliveryStatus = Literal["pending", "succeeded", "failed"]


class WebhookBacklogFullError(RenderkitError):
    """A key lineage has as many webhook deliveries pending as it may; retry later.

    Attributes:
        limit: the pending deliveries a lineage may have.
    """

    def __init__(self, message: str, *, limit: int) -> None:
        super().__init__(message)
        self.limit = limit


@attrs.frozen(kw_only=True)
class Attempt:
    """One POST to the receiver, as the sender saw it.

    Attributes:
        at: when it started (aware UTC).
        seconds: how long it took, to the answer or the failure.
        status: the receiver's HTTP status, None when there was no answer.
        error: why it failed without a 2xx: ``http_status``, ``redirect`` (a 3xx, never
            followed), ``timeout``, ``blocked_url`` (the egress policy refused the address,
            or the host did not resolve), ``invalid_url``, or the connection error's class
            (``ConnectError``...); None on success.
        excerpt: the start of the receiver's answer, bounded (never more than
            :data:`renderkit_server.webhooks.EXCERPT_CHARS` characters).
    """

    at: datetime
    seconds: float
    status: int | None = None
    error: str | None = None
    excerpt: str = ""

    @property
    def succeeded(self) -> bool:
        """A 2xx answer."""
        return self.error is None and self.status is not None and 200 <= self.status < 300


@attrs.frozen(kw_only=True)
class Delivery:
    """One event on its way to one URL.

    Attributes:
        id: the ``webhook-id`` header: the same on every attempt, for the receiver's
            de-duplication.
        lineage: the key lineage that owns it (and whose secret signs it).
        url: where it is POSTed.
        body: the JSON body, fixed when the event is written.
        subject: what it is about (a job or batch id), to list its deliveries; may be empty.
        created: when it was written (aware UTC); the retry period counts from here.
        status: see :data:`DeliveryStatus`.
        due: when it is next tried (or, while claimed, when the claim runs out); None once
            it is finished.
        attempts: every attempt so far, oldest first.
    """

    id: str
    lineage: str
    url: str
    body: str
    subject: str = ""
    created: datetime
    status: DeliveryStatus = "pending"
    due: datetime | None = None
    attempts: tuple[Attempt, ...] = ()


@runtime_checkable
class WebhookOutbox(Protocol):
    """Persists :class:`Delivery` records by id."""

    async def add(self, delivery: Delivery, *, max_pending: int) -> bool:
        """Record a new pending ``delivery`` (its ``due`` set), unless its lineage already
        has ``max_pending`` pending deliveries.

        A delivery whose id is already recorded (pending or finished, until purged) is not
        written again: the same event announced twice is delivered once.

        Returns:
            True when written, False when the id was already recorded (nothing changed).

        Raises:
            WebhookBacklogFullError: the lineage's backlog is full (nothing is written).
            StorageUnavailableError: the store could not be reached.
        """
        ...

    async def claim(self, now: datetime, *, lease: float, limit: int) -> list[Delivery]:
        """Up to ``limit`` pending deliveries due at ``now``, oldest due first, each made due
        again ``lease`` seconds later so no other caller takes it meanwhile.

        Raises:
            StorageUnavailableError: the store could not be reached.
        """
        ...

    async def save(self, delivery: Delivery) -> None:
        """Replace the record of ``delivery.id`` (an attempt appended, its status and due
        time moved on). A finished delivery is no longer claimed nor counted as pending.

        Raises:
            StorageUnavailableError: the store could not be reached.
        """
        ...

    async def get(self, delivery_id: str) -> Delivery | None:
        """The delivery, None when unknown (or purged).

        Raises:
            StorageUnavailableError: the store could not be reached.
        """
        ...

    async def for_subject(self, lineage: str, subject: str) -> list[Delivery]:
        """The deliveries of ``lineage`` about ``subject``, oldest first; another lineage's
        are never listed.

        Raises:
            StorageUnavailableError: the store could not be reached.
        """
        ...

    async def purge(self, before: datetime) -> int:
        """Forget finished deliveries created before ``before``; how many were forgotten.

        Raises:
            StorageUnavailableError: the store could not be reached.
        """
        ...

    async def aclose(self) -> None:
        """Release resources; closing twice is a no-op."""
        ...


# ISO text in the record (exact to the microsecond; a float timestamp is not).
def _time(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def _from_time(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value).astimezone(UTC)


def encode(delivery: Delivery) -> str:
    """``delivery`` as the text the shared stores keep."""
    data: dict[str, Any] = {
        "id": delivery.id,
        "lineage": delivery.lineage,
        "url": delivery.url,
        "body": delivery.body,
        "subject": delivery.subject,
        "created": _time(delivery.created),
        "status": delivery.status,
        "due": _time(delivery.due),
        "attempts": [
            [_time(a.at), a.seconds, a.status, a.error, a.excerpt] for a in delivery.attempts
        ],
    }
    return json.dumps(data, separators=(",", ":"))


def decode(value: str | bytes) -> Delivery:
    """The delivery :func:`encode` wrote."""
    data = json.loads(value)
    return Delivery(
        id=data["id"],
        lineage=data["lineage"],
        url=data["url"],
        body=data["body"],
        subject=data["subject"],
        created=datetime.fromisoformat(data["created"]).astimezone(UTC),
        status=data["status"],
        due=_from_time(data["due"]),
        attempts=tuple(
            Attempt(
                at=datetime.fromisoformat(at).astimezone(UTC),
                seconds=seconds,
                status=status,
                error=error,
                excerpt=excerpt,
            )
            for at, seconds, status, error, excerpt in data["attempts"]
        ),
    )


def backlog_full(limit: int) -> WebhookBacklogFullError:
    """The error of a lineage whose backlog is full."""
    msg = f"too many webhook deliveries pending for this key (at most {limit}); retry later"
    return WebhookBacklogFullError(msg, limit=limit)
