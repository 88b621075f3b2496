"""What a caller may submit as a job or a batch, checked whole before anything is queued.

A job's ``request`` is validated exactly as its synchronous endpoint would validate it
(structure, then the operation's own admission check), so a request that would be a 400
now is a 400 now, not a failed job later. Errors name the field from the top of the body:
``request.data.title`` for a job, ``jobs[3].request.data.title`` for a batch item. A
``webhook_url`` must pass the server's webhook egress policy
(:func:`~renderkit_server.webhooks.check_webhook_url`, the screenshots' rules), so a URL
nothing could ever be delivered to is refused before anything is queued.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import attrs

from renderkit import FieldError, InvalidRequestError, structure
from renderkit.core.netpolicy import UrlPolicy
from renderkit_server.bodies import json_depth
from renderkit_server.engines import Engines
from renderkit_server.operations import OPERATIONS, Operation
from renderkit_server.webhooks import check_webhook_url

__all__ = [
    "KINDS",
    "METADATA_MAX_BYTES",
    "METADATA_MAX_DEPTH",
    "BatchSubmission",
    "JobSubmission",
    "parse_batch",
    "parse_job",
]

#: The kinds a job may name: the operations, by short name or endpoint name.
KINDS: Mapping[str, str] = {
    "image": "image",
    "pdf": "pdf-gen",
    "pdf-gen": "pdf-gen",
    "screenshot": "screenshot",
    "read": "read",
    "audio": "audio",
    "parse": "parse",
    "pdf-ops": "pdf-ops",
}

#: Largest ``metadata`` object, as compact JSON: labels, not payloads.
METADATA_MAX_BYTES = 2048
#: Deepest nesting of ``metadata`` (an object holding objects two levels down).
METADATA_MAX_DEPTH = 3

_JOB_FIELDS = frozenset({"kind", "request", "webhook_url", "metadata"})
_ITEM_FIELDS = frozenset({"kind", "request", "metadata"})
_BATCH_FIELDS = frozenset({"jobs", "webhook_url", "metadata"})


@attrs.frozen(kw_only=True)
class JobSubmission:
    """One valid job: its operation, its request as sent, and the caller's extras."""

    operation: Operation
    request: Mapping[str, Any]
    webhook_url: str | None = None
    metadata: Mapping[str, Any] | None = None


@attrs.frozen(kw_only=True)
class BatchSubmission:
    """A valid batch: its jobs in order, and the batch's own extras."""

    jobs: tuple[JobSubmission, ...]
    webhook_url: str | None = None
    metadata: Mapping[str, Any] | None = None


async def parse_job(
    payload: Mapping[str, Any], *, engines: Engines, policy: UrlPolicy
) -> JobSubmission:
    """Check a ``POST /api/jobs`` body.

    Args:
        payload: the body.
        engines: what admission checks against.
        policy: the webhook egress policy ``webhook_url`` must pass.

    Raises:
        InvalidRequestError: naming every field that is wrong (unknown fields included).
    """
    errors = _unknown(payload, _JOB_FIELDS, "")
    job = _item(payload, "", engines, errors)
    webhook_url = await _webhook_url(payload.get("webhook_url"), policy, errors)
    if errors:
        raise InvalidRequestError(errors)
    assert job is not None  # no errors means the item parsed
    return attrs.evolve(job, webhook_url=webhook_url)


async def parse_batch(
    payload: Mapping[str, Any], *, engines: Engines, policy: UrlPolicy, max_jobs: int | None
) -> BatchSubmission:
    """Check a ``POST /api/batches`` body: all of it, every item, or nothing is queued.

    Args:
        payload: the body.
        engines: what admission checks against.
        policy: the webhook egress policy ``webhook_url`` must pass.
        max_jobs: the plan's ``batch_size`` (None: no cap).

    Raises:
        InvalidRequestError: naming every field that is wrong (``jobs[3].request.data...``).
    """
    errors = _unknown(payload, _BATCH_FIELDS, "")
    webhook_url = await _webhook_url(payload.get("webhook_url"), policy, errors)
    metadata = _metadata(payload.get("metadata"), "metadata", errors)
    items = payload.get("jobs")
    if not isinstance(items, list) or not items:
        errors.append(
            FieldError(field="jobs", message="must be a non-empty array", missing=items is None)
        )
        raise InvalidRequestError(errors)
    if max_jobs is not None and len(items) > max_jobs:
        message = f"holds {len(items)} jobs; the plan allows at most {max_jobs} per batch"
        errors.append(FieldError(field="jobs", message=message))
        raise InvalidRequestError(errors)
    jobs: list[JobSubmission] = []
    for index, item in enumerate(items):
        prefix = f"jobs[{index}]"
        if not isinstance(item, dict):
            errors.append(FieldError(field=prefix, message="must be an object"))
            continue
        errors.extend(_unknown(item, _ITEM_FIELDS, f"{prefix}."))
        job = _item(item, f"{prefix}.", engines, errors)
        if job is not None:
            jobs.append(job)
    if errors:
        raise InvalidRequestError(errors)
    return BatchSubmission(jobs=tuple(jobs), webhook_url=webhook_url, metadata=metadata)


def _item(
    payload: Mapping[str, Any], prefix: str, engines: Engines, errors: list[FieldError]
) -> JobSubmission | None:
    metadata = _metadata(payload.get("metadata"), f"{prefix}metadata", errors)
    kind = payload.get("kind")
    if not isinstance(kind, str) or kind not in KINDS:
        known = ", ".join(sorted(KINDS))
        errors.append(
            FieldError(
                field=f"{prefix}kind", message=f"must be one of {known}", missing=kind is None
            )
        )
        return None
    operation = OPERATIONS[KINDS[kind]]
    request = payload.get("request")
    if not isinstance(request, dict):
        errors.append(
            FieldError(
                field=f"{prefix}request",
                message=f"must be the JSON body of POST /api/{operation.name}",
                missing=request is None,
            )
        )
        return None
    try:
        # Exactly the synchronous endpoint's checks (execute() runs them again at run time).
        serving = operation.serving(request)
        serving.admit(structure(request, serving.model), engines)
    except InvalidRequestError as exc:
        errors.extend(attrs.evolve(e, field=f"{prefix}request.{e.field}") for e in exc.errors)
        return None
    return JobSubmission(operation=operation, request=request, metadata=metadata)


def _unknown(payload: Mapping[str, Any], known: frozenset[str], prefix: str) -> list[FieldError]:
    return [
        FieldError(field=f"{prefix}{name}", message="is not a field of a job", unknown=True)
        for name in sorted(set(payload) - known)
    ]


async def _webhook_url(value: object, policy: UrlPolicy, errors: list[FieldError]) -> str | None:
    if value is None:
        return None
    try:
        return await check_webhook_url(value, policy)
    except InvalidRequestError as exc:  # names webhook_url, at the top of job and batch alike
        errors.extend(exc.errors)
        return None


def _metadata(value: object, field: str, errors: list[FieldError]) -> Mapping[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        errors.append(FieldError(field=field, message="must be a JSON object"))
        return None
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
    if len(text) > METADATA_MAX_BYTES:
        message = f"must be at most {METADATA_MAX_BYTES} bytes as JSON, not {len(text)}"
        errors.append(FieldError(field=field, message=message))
        return None
    if json_depth(text) > METADATA_MAX_DEPTH:
        message = f"must nest at most {METADATA_MAX_DEPTH} levels"
        errors.append(FieldError(field=field, message=message))
        return None
    return value
