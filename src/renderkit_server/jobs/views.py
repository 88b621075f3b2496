"""How jobs and batches read over HTTP, and the webhook events built from those reads.

One function per shape, so ``GET /api/jobs/{id}``, the job list, the batch's per-job
results and the ``data`` of a webhook event are the same JSON. Reading one job or batch
adds its webhook deliveries (``webhook.deliveries``); lists and events do not.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from typing import Any

from renderkit.core.times import isoformat_z
from renderkit_server.jobs.notify import EventType, JobEvent
from renderkit_server.state.jobs import JOB_STATUSES, Batch, BatchView, Job
from renderkit_server.state.webhook_outbox import Delivery
from renderkit_server.webhooks import delivery_json

__all__ = [
    "batch_event",
    "batch_view",
    "event_summary",
    "job_event",
    "job_view",
    "timestamp",
]


def timestamp(seconds: float | None) -> str | None:
    """Unix seconds as the API's one timestamp spelling (``2026-11-27T05:00:00Z``)."""
    if seconds is None:
        return None
    return isoformat_z(datetime.datetime.fromtimestamp(seconds, datetime.UTC))


def _webhook(deliveries: Sequence[Delivery]) -> dict[str, Any]:
    return {"deliveries": [delivery_json(d) for d in deliveries]}


def job_view(
    job: Job, base_url: str, *, deliveries: Sequence[Delivery] | None = None
) -> dict[str, Any]:
    """The job as ``GET /api/jobs/{id}`` answers it.

    ``result`` (on success) is the synchronous endpoint's body; ``error`` (on failure) its
    error envelope, whose ``status`` is the HTTP status the synchronous call would have had.
    With ``deliveries`` (reading one job), ``webhook.deliveries`` lists them with their
    attempts.
    """
    view: dict[str, Any] = {
        "id": job.id,
        "object": "job",
        "kind": job.kind,
        "status": job.status,
        "status_url": f"{base_url}/api/jobs/{job.id}",
        "created_at": timestamp(job.created_at),
        "started_at": timestamp(job.started_at),
        "finished_at": timestamp(job.finished_at),
        "expires_at": timestamp(job.expires_at),
        "attempts": job.attempts,
        "metadata": dict(job.metadata) if job.metadata is not None else None,
        "batch_id": job.batch_id,
        "webhook_url": job.webhook_url,
    }
    if job.status == "succeeded":
        view["result"] = dict(job.result or {})
    if job.status == "failed":
        view["error"] = dict(job.error or {})
    if deliveries is not None:
        view["webhook"] = _webhook(deliveries)
    return view


def batch_view(
    found: BatchView, base_url: str, *, deliveries: Sequence[Delivery] | None = None
) -> dict[str, Any]:
    """The batch as ``GET /api/batches/{id}`` answers it: counts per status and every job
    (with ``deliveries``, the batch's own webhook deliveries as :func:`job_view` shows a
    job's)."""
    batch = found.batch
    counts = dict.fromkeys(JOB_STATUSES, 0)
    for job in found.jobs:
        counts[job.status] += 1
    done = all(job.finished for job in found.jobs)
    view: dict[str, Any] = {
        "id": batch.id,
        "object": "batch",
        "status": "completed" if done else "in_progress",
        "status_url": f"{base_url}/api/batches/{batch.id}",
        "created_at": timestamp(batch.created_at),
        "completed_at": timestamp(batch.completed_at),
        "expires_at": timestamp(batch.expires_at),
        "metadata": dict(batch.metadata) if batch.metadata is not None else None,
        "webhook_url": batch.webhook_url,
        "total": len(found.jobs),
        "counts": counts,
        "jobs": [job_view(job, base_url) for job in found.jobs],
    }
    if deliveries is not None:
        view["webhook"] = _webhook(deliveries)
    return view


def event_summary(data: Mapping[str, Any]) -> dict[str, Any]:
    """An event's ``data`` without the job's ``result`` or the batch's ``jobs``, marked
    ``truncated``: what is sent when the whole would exceed the webhook payload limit (the
    receiver reads the rest at ``status_url``)."""
    summary = {name: value for name, value in data.items() if name not in ("result", "jobs")}
    summary["truncated"] = True
    return summary


def _body(kind: EventType, now: float, data: Mapping[str, Any]) -> dict[str, Any]:
    return {"type": kind, "timestamp": timestamp(now), "data": dict(data)}


def job_event(job: Job, base_url: str, now: float) -> JobEvent:
    """The ``job.<status>`` event of a finished job."""
    kind: EventType
    if job.status == "succeeded":
        kind = "job.succeeded"
    elif job.status == "failed":
        kind = "job.failed"
    else:
        kind = "job.cancelled"
    return JobEvent(
        id=f"{job.id}_{job.status}",
        type=kind,
        subject=job.id,
        owner=job.owner,
        webhook_url=job.webhook_url,
        body=_body(kind, now, job_view(job, base_url)),
    )


def batch_event(found: BatchView, base_url: str, now: float) -> JobEvent:
    """The ``batch.completed`` event of a batch whose every job finished."""
    batch: Batch = found.batch
    return JobEvent(
        id=f"{batch.id}_completed",
        type="batch.completed",
        subject=batch.id,
        owner=batch.owner,
        webhook_url=batch.webhook_url,
        body=_body("batch.completed", now, batch_view(found, base_url)),
    )
