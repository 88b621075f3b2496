"""The OpenAPI description of jobs and batches, and of the webhook event they announce.

Kept beside the jobs (their fields are written in :mod:`.views` and :mod:`.submission`);
:func:`renderkit_server.openapi.openapi_document` adds these paths, schemas and the
OpenAPI 3.1 ``webhooks`` entry to the one document.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from renderkit_server.jobs.notify import EVENT_TYPES
from renderkit_server.jobs.submission import KINDS, METADATA_MAX_BYTES, METADATA_MAX_DEPTH
from renderkit_server.state.jobs import JOB_STATUSES
from renderkit_server.webhooks.egress import MAX_URL_CHARS

__all__ = ["JOB_OPERATION_IDS", "job_openapi"]

#: The stable operationId of each job endpoint, by its path under ``/api`` and method.
JOB_OPERATION_IDS: dict[tuple[str, str], str] = {
    ("jobs", "post"): "submitJob",
    ("jobs", "get"): "listJobs",
    ("jobs/{job_id}", "get"): "getJob",
    ("jobs/{job_id}", "delete"): "cancelJob",
    ("batches", "post"): "submitBatch",
    ("batches/{batch_id}", "get"): "getBatch",
    ("batches/{batch_id}", "delete"): "cancelBatch",
}

_TIME = {"type": ["string", "null"], "format": "date-time"}
_METADATA = {
    "type": ["object", "null"],
    "description": f"Your own JSON object, returned as given (at most {METADATA_MAX_BYTES} "
    f"bytes, nesting at most {METADATA_MAX_DEPTH} levels)",
}
_WEBHOOK_URL = {
    "type": ["string", "null"],
    "format": "uri",
    "maxLength": MAX_URL_CHARS,
    "description": "Where the finished event is POSTed (see webhooks); it must pass the "
    "server's egress policy (no private or loopback address unless the operator allows them)",
}
_TRUNCATED = {
    "type": "boolean",
    "description": "Only in a webhook event whose whole body would exceed the payload limit: "
    "`result` (a batch's `jobs`) is left out; read it at `status_url`",
}
_DELIVERY = {
    "type": "object",
    "required": ["id", "url", "status", "created", "next_attempt_at", "attempts"],
    "properties": {
        "id": {"type": "string", "description": "The `webhook-id` header, the same on retries"},
        "url": {"type": "string", "format": "uri"},
        "status": {"type": "string", "enum": ["pending", "succeeded", "failed"]},
        "created": {"type": "string", "format": "date-time"},
        "next_attempt_at": _TIME,
        "attempts": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["at", "duration_ms", "status_code", "error", "response_excerpt"],
                "properties": {
                    "at": {"type": "string", "format": "date-time"},
                    "duration_ms": {"type": "integer"},
                    "status_code": {"type": ["integer", "null"]},
                    "error": {
                        "type": ["string", "null"],
                        "description": "http_status, redirect, timeout, blocked_url, "
                        "invalid_url or the connection error's class; null on success",
                    },
                    "response_excerpt": {"type": "string"},
                },
            },
        },
    },
}
_WEBHOOK = {
    "type": "object",
    "description": "Reading one job or batch: its webhook deliveries, oldest first",
    "required": ["deliveries"],
    "properties": {
        "deliveries": {
            "type": "array",
            "items": {"$ref": "#/components/schemas/WebhookDelivery"},
        }
    },
}
_KIND = {
    "type": "string",
    "enum": sorted(KINDS),
    "description": "The operation: `pdf` and `pdf-gen` are the same",
}
_REQUEST = {
    "type": "object",
    "description": "The body of the operation's own endpoint (ImageRequest, PdfRequest, "
    "ScreenshotRequest, AudioRequest or ParseRequest), validated at submit exactly as there",
}

_RESULTS = ["ImageRequest", "PdfRequest", "ScreenshotRequest", "AudioRequest", "ParseRequest"]

_JOB_SUBMISSION = {
    "type": "object",
    "additionalProperties": False,
    "required": ["kind", "request"],
    "properties": {
        "kind": _KIND,
        "request": _REQUEST,
        "webhook_url": _WEBHOOK_URL,
        "metadata": _METADATA,
    },
}

_JOB = {
    "type": "object",
    "required": ["id", "object", "kind", "status", "status_url", "created_at", "attempts"],
    "properties": {
        "id": {"type": "string", "pattern": "^job_[0-9a-f]{32}$"},
        "object": {"type": "string", "enum": ["job"]},
        "kind": {"type": "string", "enum": sorted(set(KINDS.values()))},
        "status": {"type": "string", "enum": list(JOB_STATUSES)},
        "status_url": {"type": "string", "format": "uri"},
        "created_at": {"type": "string", "format": "date-time"},
        "started_at": {**_TIME, "description": "When the latest attempt started"},
        "finished_at": _TIME,
        "expires_at": {
            "type": "string",
            "format": "date-time",
            "description": "After this the job reads as 404 (the retention)",
        },
        "attempts": {
            "type": "integer",
            "description": "Runs started; above 1 when a worker stopped mid-job (charged once)",
        },
        "metadata": _METADATA,
        "batch_id": {"type": ["string", "null"]},
        "webhook_url": _WEBHOOK_URL,
        "result": {
            "description": "On success: the body the synchronous endpoint returns",
            "oneOf": [{"$ref": f"#/components/schemas/{name}Response"} for name in _RESULTS],
        },
        "error": {
            "$ref": "#/components/schemas/Error",
            "description": "On failure: the error envelope; `status` is the HTTP status the "
            "synchronous call would have had",
        },
        "webhook": _WEBHOOK,
        "truncated": _TRUNCATED,
    },
}

_JOB_LIST = {
    "type": "object",
    "required": ["object", "data", "has_more", "next_before"],
    "properties": {
        "object": {"type": "string", "enum": ["list"]},
        "data": {"type": "array", "items": {"$ref": "#/components/schemas/Job"}},
        "has_more": {"type": "boolean"},
        "next_before": {
            "type": ["string", "null"],
            "description": "Pass as `before` for the next page",
        },
    },
}

_BATCH_SUBMISSION = {
    "type": "object",
    "additionalProperties": False,
    "required": ["jobs"],
    "properties": {
        "jobs": {
            "type": "array",
            "minItems": 1,
            "description": "At most the plan's batch size; one invalid item refuses all",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["kind", "request"],
                "properties": {"kind": _KIND, "request": _REQUEST, "metadata": _METADATA},
            },
        },
        "webhook_url": _WEBHOOK_URL,
        "metadata": _METADATA,
    },
}

_BATCH = {
    "type": "object",
    "required": ["id", "object", "status", "status_url", "created_at", "total", "counts", "jobs"],
    "properties": {
        "id": {"type": "string", "pattern": "^batch_[0-9a-f]{32}$"},
        "object": {"type": "string", "enum": ["batch"]},
        "status": {"type": "string", "enum": ["in_progress", "completed"]},
        "status_url": {"type": "string", "format": "uri"},
        "created_at": {"type": "string", "format": "date-time"},
        "completed_at": _TIME,
        "expires_at": {"type": "string", "format": "date-time"},
        "metadata": _METADATA,
        "webhook_url": _WEBHOOK_URL,
        "total": {"type": "integer"},
        "counts": {
            "type": "object",
            "required": list(JOB_STATUSES),
            "properties": {status: {"type": "integer"} for status in JOB_STATUSES},
        },
        "jobs": {"type": "array", "items": {"$ref": "#/components/schemas/Job"}},
        "webhook": _WEBHOOK,
        "truncated": _TRUNCATED,
    },
}

_EVENT = {
    "type": "object",
    "required": ["type", "timestamp", "data"],
    "properties": {
        "type": {"type": "string", "enum": list(EVENT_TYPES)},
        "timestamp": {"type": "string", "format": "date-time"},
        "data": {
            "description": "The job (job.*) or the batch (batch.completed), as GET returns it",
            "oneOf": [
                {"$ref": "#/components/schemas/Job"},
                {"$ref": "#/components/schemas/Batch"},
            ],
        },
    },
}

_ID = "job_5f0c3a9e8b7d4c2a1e6f90b8c7d6e5f4"
_BATCH_ID = "batch_0a1b2c3d4e5f60718293a4b5c6d7e8f9"
_EXAMPLE_JOB = {
    "id": _ID,
    "object": "job",
    "kind": "image",
    "status": "queued",
    "status_url": f"https://render.example.com/api/jobs/{_ID}",
    "created_at": "2026-11-27T05:00:00Z",
    "started_at": None,
    "finished_at": None,
    "expires_at": "2026-12-04T05:00:00Z",
    "attempts": 0,
    "metadata": {"order": "A-17"},
    "batch_id": None,
    "webhook_url": "https://hooks.example.com/renderkit",
}
_EXAMPLE_READ = {
    **_EXAMPLE_JOB,
    "status": "succeeded",
    "started_at": "2026-11-27T05:00:01Z",
    "finished_at": "2026-11-27T05:00:03Z",
    "attempts": 1,
    "webhook": {
        "deliveries": [
            {
                "id": f"{_ID}_succeeded",
                "url": "https://hooks.example.com/renderkit",
                "status": "succeeded",
                "created": "2026-11-27T05:00:03Z",
                "next_attempt_at": None,
                "attempts": [
                    {
                        "at": "2026-11-27T05:00:03Z",
                        "duration_ms": 84,
                        "status_code": 204,
                        "error": None,
                        "response_excerpt": "",
                    }
                ],
            }
        ]
    },
}
_EXAMPLE_SUBMISSION = {
    "kind": "image",
    "request": {"template": "og-card", "data": {"title": "Quarterly report"}},
    "webhook_url": "https://hooks.example.com/renderkit",
    "metadata": {"order": "A-17"},
}
_EXAMPLE_BATCH = {
    "id": _BATCH_ID,
    "object": "batch",
    "status": "in_progress",
    "status_url": f"https://render.example.com/api/batches/{_BATCH_ID}",
    "created_at": "2026-11-27T05:00:00Z",
    "completed_at": None,
    "expires_at": "2026-12-04T05:00:00Z",
    "metadata": {"month": "2026-11"},
    "webhook_url": None,
    "total": 1,
    "counts": dict.fromkeys(JOB_STATUSES, 0) | {"queued": 1},
    "jobs": [{**_EXAMPLE_JOB, "batch_id": _BATCH_ID, "webhook_url": None}],
}
_EXAMPLE_BATCH_SUBMISSION = {
    "jobs": [
        {"kind": "parse", "request": {"file": "JVBERi0xLjcK...", "mimeType": "application/pdf"}}
    ],
    "metadata": {"month": "2026-11"},
}


def _json(schema: str, description: str, example: Any) -> dict[str, Any]:
    return {
        "description": description,
        "content": {
            "application/json": {
                "schema": {"$ref": f"#/components/schemas/{schema}"},
                "example": example,
            }
        },
    }


def _body(schema: str, example: Any) -> dict[str, Any]:
    return {
        "required": True,
        "content": {
            "application/json": {
                "schema": {"$ref": f"#/components/schemas/{schema}"},
                "example": example,
            }
        },
    }


def _path_id(name: str, prefix: str) -> dict[str, Any]:
    return {
        "name": name,
        "in": "path",
        "required": True,
        "schema": {"type": "string"},
        "example": _ID if prefix == "job" else _BATCH_ID,
    }


def job_openapi(
    errors: Callable[..., dict[str, Any]], security: list[dict[str, list[str]]]
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The job and batch paths, their schemas, and the ``webhooks`` entry.

    Args:
        errors: builds the error responses of the given statuses (the document's own).
        security: the document's security requirement for keyed endpoints.

    Returns:
        ``(paths, schemas, webhooks)``.
    """

    def op(path: str, method: str, summary: str, description: str, **rest: Any) -> dict[str, Any]:
        return {
            "operationId": JOB_OPERATION_IDS[(path, method)],
            "summary": summary,
            "description": description,
            "security": security,
            **rest,
        }

    paths = {
        "/api/jobs": {
            "post": op(
                "jobs",
                "post",
                "Submit a job",
                "Queue one production call (image, pdf, screenshot, read, audio, parse, "
                "pdf-ops) to run in the background. The request is validated now, as its "
                "endpoint would; it is charged only if it succeeds. Answers 202 with the job "
                "and a `Location` header.",
                requestBody=_body("JobSubmission", _EXAMPLE_SUBMISSION),
                responses={
                    "202": _json("Job", "Queued", _EXAMPLE_JOB),
                    **errors(400, 401, 413, 415, 429),
                },
            ),
            "get": op(
                "jobs",
                "get",
                "List your jobs",
                "The jobs of your key (and its regenerations), newest first.",
                parameters=[
                    {
                        "name": "limit",
                        "in": "query",
                        "schema": {"type": "integer", "minimum": 1, "maximum": 100},
                        "description": "Page size (20 by default, at most 100)",
                    },
                    {
                        "name": "before",
                        "in": "query",
                        "schema": {"type": "string"},
                        "description": "`next_before` of the previous page",
                    },
                ],
                responses={
                    "200": _json(
                        "JobList",
                        "A page of jobs",
                        {
                            "object": "list",
                            "data": [_EXAMPLE_JOB],
                            "has_more": False,
                            "next_before": None,
                        },
                    ),
                    **errors(400, 401),
                },
            ),
        },
        "/api/jobs/{job_id}": {
            "get": op(
                "jobs/{job_id}",
                "get",
                "Read a job",
                "Its status, timestamps and, once finished, the synchronous endpoint's body "
                "(`result`) or error envelope (`error`). A job of another key answers 404 like "
                "an id that does not exist.",
                parameters=[_path_id("job_id", "job")],
                responses={"200": _json("Job", "The job", _EXAMPLE_READ), **errors(401, 404)},
            ),
            "delete": op(
                "jobs/{job_id}",
                "delete",
                "Cancel a job",
                "Cancels a queued or running job (running work stops; nothing is charged). "
                "A finished job is answered unchanged.",
                parameters=[_path_id("job_id", "job")],
                responses={
                    "200": _json(
                        "Job",
                        "The job after the cancel",
                        {**_EXAMPLE_JOB, "status": "cancelled"},
                    ),
                    **errors(401, 404),
                },
            ),
        },
        "/api/batches": {
            "post": op(
                "batches",
                "post",
                "Submit a batch of jobs",
                "Queue up to the plan's batch size of jobs at once: all of them, or none when "
                "an item is invalid (400 naming `jobs[3].request...`). One `batch.completed` "
                "event is sent when every job finished.",
                requestBody=_body("BatchSubmission", _EXAMPLE_BATCH_SUBMISSION),
                responses={
                    "202": _json("Batch", "Queued", _EXAMPLE_BATCH),
                    **errors(400, 401, 413, 415, 429),
                },
            ),
        },
        "/api/batches/{batch_id}": {
            "get": op(
                "batches/{batch_id}",
                "get",
                "Read a batch",
                "Counts per status and every job with its result.",
                parameters=[_path_id("batch_id", "batch")],
                responses={"200": _json("Batch", "The batch", _EXAMPLE_BATCH), **errors(401, 404)},
            ),
            "delete": op(
                "batches/{batch_id}",
                "delete",
                "Cancel a batch",
                "Cancels every job of the batch not finished yet.",
                parameters=[_path_id("batch_id", "batch")],
                responses={
                    "200": _json("Batch", "The batch after the cancel", _EXAMPLE_BATCH),
                    **errors(401, 404),
                },
            ),
        },
    }
    schemas = {
        "JobSubmission": _JOB_SUBMISSION,
        "Job": _JOB,
        "JobList": _JOB_LIST,
        "BatchSubmission": _BATCH_SUBMISSION,
        "Batch": _BATCH,
        "JobEvent": _EVENT,
        "WebhookDelivery": _DELIVERY,
    }
    webhooks = {
        "jobFinished": {
            "post": {
                "operationId": "jobFinished",
                "summary": "A job finished, or a batch completed",
                "description": "Sent to the `webhook_url` of a job when it succeeded, failed or "
                "was cancelled (`job.*`), and to a batch's when its last job finished "
                "(`batch.completed`); `data` is what GET answers for it.",
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": {"$ref": "#/components/schemas/JobEvent"},
                            "example": {
                                "type": "job.succeeded",
                                "timestamp": "2026-11-27T05:00:03Z",
                                "data": {
                                    **_EXAMPLE_JOB,
                                    "status": "succeeded",
                                    "attempts": 1,
                                    "started_at": "2026-11-27T05:00:01Z",
                                    "finished_at": "2026-11-27T05:00:03Z",
                                },
                            },
                        }
                    },
                },
                "responses": {"2XX": {"description": "Received; any other answer is retried"}},
            }
        }
    }
    return paths, schemas, webhooks
