"""A delivery as the API shows it (on a job, to the key holder who owns it).

The URL is shown as given (it carries no credentials: :func:`check_webhook_url` refuses
them); the body is not repeated (the job is shown beside it), and the receiver's answer only
as its bounded excerpt.
"""

from __future__ import annotations

from typing import Any

from renderkit.core.times import isoformat_z
from renderkit_server.state.webhook_outbox import Attempt, Delivery

__all__ = ["delivery_json"]


def _attempt_json(attempt: Attempt) -> dict[str, Any]:
    return {
        "at": isoformat_z(attempt.at),
        "duration_ms": round(attempt.seconds * 1000),
        "status_code": attempt.status,
        "error": attempt.error,
        "response_excerpt": attempt.excerpt,
    }


def delivery_json(delivery: Delivery) -> dict[str, Any]:
    """``{id, url, status, created, next_attempt_at, attempts: [...]}`` for ``delivery``.

    ``status`` is ``pending``, ``succeeded`` or ``failed`` (gave up); ``next_attempt_at``
    is null once it is finished.
    """
    return {
        "id": delivery.id,
        "url": delivery.url,
        "status": delivery.status,
        "created": isoformat_z(delivery.created),
        "next_attempt_at": None if delivery.due is None else isoformat_z(delivery.due),
        "attempts": [_attempt_json(a) for a in delivery.attempts],
    }
