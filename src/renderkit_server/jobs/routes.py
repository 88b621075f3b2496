"""``/api/jobs`` and ``/api/batches`` (and their ``/v1`` twins): submit, read, list, cancel.

Every handler authenticates first (nothing is parsed or stored for a caller without a valid
key), then hands the lineage and the body to :class:`~renderkit_server.jobs.service.JobService`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from litestar import Request, Response, delete, get, post
from litestar.di import NamedDependency
from litestar.params import FromPath, FromQuery
from litestar.types import ControllerRouterHandler

from renderkit_server.auth import authenticate
from renderkit_server.bodies import json_object
from renderkit_server.idempotency import Idempotency, idempotent
from renderkit_server.jobs.service import JobService
from renderkit_server.jobs.views import batch_view, job_view
from renderkit_server.keys import KeyService
from renderkit_server.state.webhook_outbox import Delivery
from renderkit_server.webhooks import WebhookDispatcher

__all__ = ["ROUTES"]

#: The default page of ``GET /api/jobs``.
_DEFAULT_PAGE = 20


def _paths(path: str) -> list[str]:
    return [f"/api{path}", f"/v1{path}"]


def _base(request: Request[Any, Any, Any]) -> str:
    return str(request.base_url).rstrip("/")


async def _deliveries(
    webhooks: WebhookDispatcher, owner: str, subject: str, webhook_url: str | None
) -> list[Delivery]:
    # Without a webhook_url nothing was ever queued: no outbox read.
    return [] if webhook_url is None else await webhooks.deliveries(owner, subject)


async def _accepted(
    request: Request[Any, Any, Any],
    idempotency: Idempotency,
    lineage: str,
    queue: Callable[[dict[str, Any], str], Awaitable[dict[str, Any]]],
) -> Response[Any]:
    """Read the body, ``queue`` it, answer 202 with its view and ``Location``; a retry with the
    same Idempotency-Key gets the same job or batch back, not a second one."""

    async def work() -> Response[Any]:
        view = await queue(await json_object(request), _base(request))
        return Response(view, status_code=202, headers={"Location": view["status_url"]})

    return await idempotent(request, idempotency, lineage, work)


@post(_paths("/jobs"), summary="Submit a job", status_code=202)
async def submit_job(
    request: Request[Any, Any, Any],
    keys: NamedDependency[KeyService],
    jobs: NamedDependency[JobService],
    idempotency: NamedDependency[Idempotency],
) -> Response[Any]:
    """Queue one production call; answers 202 with the job and its ``status_url``."""
    api_key = authenticate(request, keys)

    async def queue(payload: dict[str, Any], base: str) -> dict[str, Any]:
        return job_view(await jobs.submit(api_key, payload, base), base)

    return await _accepted(request, idempotency, api_key.key_id, queue)


@get(_paths("/jobs"), summary="List your jobs")
async def list_jobs(
    request: Request[Any, Any, Any],
    keys: NamedDependency[KeyService],
    jobs: NamedDependency[JobService],
    limit: FromQuery[int] = _DEFAULT_PAGE,
    before: FromQuery[str | None] = None,
) -> dict[str, Any]:
    """The key lineage's jobs, newest first; ``before`` (the last id) pages on."""
    api_key = authenticate(request, keys)
    found = await jobs.list(api_key, limit=limit, before=before)
    base = _base(request)
    page = max(1, min(limit, 100))
    return {
        "object": "list",
        "data": [job_view(job, base) for job in found],
        "has_more": len(found) == page,
        "next_before": found[-1].id if len(found) == page else None,
    }


@get(_paths("/jobs/{job_id:str}"), summary="Read a job")
async def get_job(
    request: Request[Any, Any, Any],
    keys: NamedDependency[KeyService],
    jobs: NamedDependency[JobService],
    webhooks: NamedDependency[WebhookDispatcher],
    job_id: FromPath[str],
) -> dict[str, Any]:
    """The job: status, timestamps, its result or error once finished, and its webhook
    deliveries with every attempt."""
    api_key = authenticate(request, keys)
    job = await jobs.get(api_key, job_id)
    deliveries = await _deliveries(webhooks, job.owner, job.id, job.webhook_url)
    return job_view(job, _base(request), deliveries=deliveries)


@delete(_paths("/jobs/{job_id:str}"), summary="Cancel a job", status_code=200)
async def cancel_job(
    request: Request[Any, Any, Any],
    keys: NamedDependency[KeyService],
    jobs: NamedDependency[JobService],
    job_id: FromPath[str],
) -> dict[str, Any]:
    """Cancel a queued or running job (nothing is charged); a finished one is unchanged."""
    api_key = authenticate(request, keys)
    return job_view(await jobs.cancel(api_key, job_id), _base(request))


@post(_paths("/batches"), summary="Submit a batch of jobs", status_code=202)
async def submit_batch(
    request: Request[Any, Any, Any],
    keys: NamedDependency[KeyService],
    jobs: NamedDependency[JobService],
    idempotency: NamedDependency[Idempotency],
) -> Response[Any]:
    """Queue every job of the batch, or none (an invalid item is a 400 naming it)."""
    api_key = authenticate(request, keys)

    async def queue(payload: dict[str, Any], base: str) -> dict[str, Any]:
        return batch_view(await jobs.submit_batch(api_key, payload, base), base)

    return await _accepted(request, idempotency, api_key.key_id, queue)


@get(_paths("/batches/{batch_id:str}"), summary="Read a batch")
async def get_batch(
    request: Request[Any, Any, Any],
    keys: NamedDependency[KeyService],
    jobs: NamedDependency[JobService],
    webhooks: NamedDependency[WebhookDispatcher],
    batch_id: FromPath[str],
) -> dict[str, Any]:
    """The batch: counts per status, every job with its result, and the batch's webhook
    deliveries with every attempt."""
    api_key = authenticate(request, keys)
    found = await jobs.get_batch(api_key, batch_id)
    batch = found.batch
    deliveries = await _deliveries(webhooks, batch.owner, batch.id, batch.webhook_url)
    return batch_view(found, _base(request), deliveries=deliveries)


@delete(_paths("/batches/{batch_id:str}"), summary="Cancel a batch", status_code=200)
async def cancel_batch(
    request: Request[Any, Any, Any],
    keys: NamedDependency[KeyService],
    jobs: NamedDependency[JobService],
    batch_id: FromPath[str],
) -> dict[str, Any]:
    """Cancel the batch's jobs not finished yet."""
    api_key = authenticate(request, keys)
    return batch_view(await jobs.cancel_batch(api_key, batch_id), _base(request))


#: What the app mounts for jobs and batches.
ROUTES: tuple[ControllerRouterHandler, ...] = (
    submit_job,
    list_jobs,
    get_job,
    cancel_job,
    submit_batch,
    get_batch,
    cancel_batch,
)
