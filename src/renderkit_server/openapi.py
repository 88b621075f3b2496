"""The OpenAPI 3.1 document, generated from the operations table (no hand-written copy).

Each production endpoint's request schema comes from its model, its 200 response from
:meth:`Operation.response_schema <renderkit_server.operations.Operation.response_schema>`
and its error responses from the operation's statuses; the keys and health endpoints,
which are not operations, are described here. Each endpoint is one operation at its
``/api`` path with a stable ``operationId`` (what generated clients name their methods);
the ``/v1`` aliases are the same handlers and are stated once in ``info.description``.
Descriptions are Markdown (the docs UI renders them), so reStructuredText roles and
double backticks from docstrings are turned into Markdown code spans.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import attrs

from renderkit import AUDIO_FORMATS, ImageData
from renderkit.core.schema import json_schema
from renderkit_server.audiostream import STREAM_FIELD, STREAM_PROPERTY, STREAMABLE
from renderkit_server.jobs.openapi import job_openapi
from renderkit_server.operations import AUDIO, OPERATIONS, Operation
from renderkit_server.quotas import PLAN_NAMES

__all__ = ["OPERATION_IDS", "idempotent_operation", "openapi_document", "response_schema"]

#: The stable operationId of each endpoint, by its name under ``/api``.
OPERATION_IDS: dict[str, str] = {
    "image": "generateImage",
    "pdf-gen": "generatePdf",
    "screenshot": "takeScreenshot",
    "read": "readPage",
    "audio": "generateAudio",
    "parse": "parseDocument",
    "pdf-ops": "editPdf",
    "keys/generate": "generateKey",
    "keys/regenerate": "regenerateKey",
    "health": "health",
    "image/{filename}": "getSignedImage",
    "usage": "getUsage",
    "webhooks/secret": "getWebhookSecret",
    "webhooks/secret/rotate": "rotateWebhookSecret",
}

_TINY_PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQ"
    "AAAABJRU5ErkJggg=="
)
_FILE_URL = "https://api.example.com/files/images/2026/11/abc.png?expires=1764000000&signature=..."

#: An example request body and success body per endpoint (shown by the docs UI).
EXAMPLES: dict[str, tuple[dict[str, Any] | None, dict[str, Any]]] = {
    "image": (
        {"template": "og-card", "data": {"title": "Hello", "subtitle": "from renderkit"}},
        {
            "success": True,
            "url": _FILE_URL,
            "width": 1200,
            "height": 630,
            "format": "png",
            "template": "og-card",
            "warnings": [],
            "size_bytes": 48213,
            "cached": False,
            "credits_used": 1,
        },
    ),
    "pdf-gen": (
        {"template": "invoice", "data": {"invoice_number": "INV-1", "items": []}},
        {
            "success": True,
            "url": _FILE_URL.replace("images", "pdfs").replace(".png", ".pdf"),
            "pages": 1,
            "pages_est": 1,
            "page_size": "A4",
            "landscape": False,
            "template": "invoice",
            "format": "pdf",
            "warnings": [],
            "size_bytes": 20311,
            "cached": False,
            "credits_used": 1,
        },
    ),
    "screenshot": (
        {"url": "https://example.com", "device": "desktop", "full_page": False},
        {
            "success": True,
            "url": _FILE_URL.replace("images", "screenshots"),
            "width": 1280,
            "height": 800,
            "format": "png",
            "device": "desktop",
            "full_page": False,
            "captured_at": "2026-11-24T06:00:00Z",
            "source_url": "https://example.com/",
            "http_status": 200,
            "warnings": [],
            "size_bytes": 60211,
            "cached": False,
            "credits_used": 1,
        },
    ),
    "read": (
        {"url": "https://example.com/blog/post", "format": "markdown"},
        {
            "success": True,
            "url": _FILE_URL.replace("images", "pages").replace(".png", ".md"),
            "markdown": "# The headline\n\nThe first paragraph, with [a link](https://example.com/a).",
            "format": "markdown",
            "metadata": {
                "title": "The headline",
                "description": "What the post is about.",
                "canonical_url": "https://example.com/blog/post",
                "language": "en",
                "og": {"type": "article"},
            },
            "requested_url": "https://example.com/blog/post",
            "final_url": "https://example.com/blog/post",
            "http_status": 200,
            "read_at": "2026-11-24T06:00:00Z",
            "warnings": [],
            "size_bytes": 76,
            "cached": False,
            "credits_used": 1,
        },
    ),
    "audio": (
        {"script": "Hello from renderkit.", "voice_id": "alloy", "format": "mp3"},
        {
            "success": True,
            "url": _FILE_URL.replace("images", "audio").replace(".png", ".mp3"),
            "format": "mp3",
            "duration_seconds": 1.6,
            "duration_est": 1.6,
            "duration_est_sec": 1.6,
            "characters": 21,
            "characters_used": 21,
            "voice_id": "alloy",
            "model": "standard",
            "size_bytes": 12800,
            "cached": False,
            "credits_used": 1,
        },
    ),
    "parse": (
        {"file": _TINY_PNG, "mimeType": "image/png"},
        {
            "success": True,
            "data": {"total": 42.0},
            "document_type": "receipt",
            "confidence": 0.8,
            "field_confidence": {"total": 0.8},
            "warnings": [],
            "usage": {"input_tokens": 0, "output_tokens": 0},
            "pages": 1,
            "extractor": "local",
            "credits_used": 1,
        },
    ),
    "pdf-ops": (
        {
            "files": [
                {"render": {"template": "letter", "data": {"subject": "Hi", "body": "Hello"}}},
                {"file": "JVBERi0xLjcK..."},
            ],
            "watermark": {"text": "DRAFT", "opacity": 0.2},
            "page_numbers": {"format": "Page {n} of {total}"},
            "encrypt": {"owner_password": "owner-secret", "permissions": ["print"]},
        },
        {
            "success": True,
            "url": _FILE_URL.replace("images", "pdfs").replace(".png", ".pdf"),
            "pages": 3,
            "format": "pdf",
            "steps": ["merge", "watermark", "page_numbers", "encrypt"],
            "parts": [{"filename": "document.pdf", "pages": 3, "size_bytes": 48211}],
            "attachments": [],
            "encrypted": True,
            "signed": False,
            "size_bytes": 48211,
            "cached": False,
            "credits_used": 2,
        },
    ),
    "keys/generate": (
        {"email": "you@example.com", "plan": "starter"},
        {
            "success": True,
            "key": "sk_live_AbCdEf.GhIjKl",
            "plan": "starter",
            "email": "you@example.com",
            "created": "2026-11-24T06:00:00Z",
        },
    ),
    "keys/regenerate": (
        {},
        {
            "success": True,
            "key": "sk_live_MnOpQr.StUvWx",
            "plan": "starter",
            "email": "you@example.com",
            "issued_at": "2026-11-24T06:00:00Z",
        },
    ),
    "health": (
        None,
        {"status": "ok", "version": "1.0.0", "uptime_seconds": 3600, "services": {"browser": "ok"}},
    ),
    "usage": (
        None,
        {
            "period": "2026-11",
            "plan": "starter",
            "reset_at": "2026-12-01T00:00:00Z",
            "metrics": {
                "images": {"used": 412, "in_flight": 1, "limit": 5000, "remaining": 4587},
                "pdfs": {"used": 3, "in_flight": 0, "limit": 500, "remaining": 497},
                "audio_minutes": {"used": 12.25, "in_flight": 0, "limit": 60, "remaining": 47},
                "screenshots": {"used": 0, "in_flight": 0, "limit": 1000, "remaining": 1000},
            },
        },
    ),
}

_WEBHOOK_SECRET_EXAMPLE = {
    "success": True,
    "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    "created": "2026-11-27T04:00:00Z",
    "previous_valid_until": None,
}
EXAMPLES["webhooks/secret"] = (None, _WEBHOOK_SECRET_EXAMPLE)
EXAMPLES["webhooks/secret/rotate"] = (
    {},
    {**_WEBHOOK_SECRET_EXAMPLE, "previous_valid_until": "2026-11-28T04:00:00Z"},
)

_WEBHOOK_SECRET_RESPONSE: dict[str, Any] = {
    "type": "object",
    "required": ["success", "secret", "created", "previous_valid_until"],
    "properties": {
        "success": {"type": "boolean"},
        "secret": {"type": "string", "pattern": "^whsec_", "description": "Standard Webhooks"},
        "created": {"type": "string", "format": "date-time"},
        "previous_valid_until": {
            "type": ["string", "null"],
            "format": "date-time",
            "description": "Until when the secret the last rotation replaced still signs "
            "beside this one (null without a rotation)",
        },
    },
}

_WEBHOOK_HEADERS = {
    name: {"required": True, "schema": {"type": "string"}, "description": description}
    for name, description in (
        ("webhook-id", "The delivery's id, the same on every retry"),
        ("webhook-timestamp", "Unix seconds of this attempt"),
        ("webhook-signature", "Space-separated v1,<base64 HMAC-SHA256> signatures"),
    )
}


def _webhook_secret_operation(key: str, summary: str, security: Any) -> dict[str, Any]:
    return {
        "operationId": OPERATION_IDS[key],
        "summary": summary,
        "description": "For the calling key's lineage only; answered with "
        "`Cache-Control: no-store`. See the Webhooks page.",
        "security": security,
        "responses": {
            "200": _json_ref("WebhookSecretResponse", "The secret"),
            **_error_responses(401, 503),
        },
    }


_INFO_DESCRIPTION = (
    "Images, PDFs, screenshots, speech and document parsing from JSON.\n\n"
    "Every path under `/api` is also served under `/v1` (e.g. `POST /v1/image`): the same "
    "operation, documented once. Authenticate with `Authorization: Bearer <key>` or "
    "`X-SVC-Key: <key>`; errors are `{error, code, status}` envelopes."
)

_ERROR = {
    "type": "object",
    "required": ["error", "code", "status"],
    "properties": {
        "error": {"type": "string", "description": "Human-readable message naming the field"},
        "code": {"type": "string", "description": "Machine-readable code, e.g. MISSING_FIELD"},
        "status": {"type": "integer", "description": "The HTTP status"},
        "fields": {"type": "array", "items": {"type": "object"}},
        "retry_at": {"type": "string", "format": "date-time"},
    },
}

_KEY_RESPONSE = {
    "type": "object",
    "properties": {
        "success": {"type": "boolean"},
        "key": {"type": "string", "pattern": "^sk_live_[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$"},
        "plan": {"type": "string", "enum": list(PLAN_NAMES)},
        "email": {
            "type": ["string", "null"],
            "format": "email",
            "description": "Where the key was e-mailed; null for a regenerated key whose "
            "owner has no address on record (then it was e-mailed to no one)",
        },
        "created": {"type": "string", "format": "date-time"},
        "issued_at": {"type": "string", "format": "date-time"},
    },
}


def response_schema(name: str) -> dict[str, Any]:
    """The JSON Schema of a production endpoint's success body, by endpoint name.

    Raises:
        KeyError: ``name`` is not a production endpoint.
    """
    return OPERATIONS[name].response_schema()


_COUNT = {"type": "string", "pattern": "^[0-9]+$"}
#: The rate-limit headers, each with one meaning on every response (written out in
#: :mod:`renderkit_server.quotas.errors`); described here once and referenced by responses.
_RATE_LIMIT_HEADERS: dict[str, Any] = {
    "X-RateLimit-Limit": {
        "description": "Always the monthly quota of the call's metric, in plan units (never a "
        "burst or other window limit). Absent when that metric has no monthly limit, or when "
        "the call was refused before its quota was checked (a window limit's 429).",
        "schema": _COUNT,
    },
    "X-RateLimit-Remaining": {
        "description": "What is left of that monthly quota after this call, in plan units.",
        "schema": _COUNT,
    },
    "X-RateLimit-Reset": {
        "description": "When that monthly quota starts again (the next month, UTC), ISO 8601.",
        "schema": {"type": "string", "format": "date-time"},
    },
    "RateLimit-Policy": {
        "description": "A fixed-window limit (draft-ietf-httpapi-ratelimit-headers), named by "
        'its metric: `"burst_per_minute";q=60;w=60` allows `q` calls per window of `w` seconds. '
        "On a success: the plan's burst limit. On a 429 from a window limit: that limit "
        "(`burst_per_minute`, `key_issuance`, `key_regeneration`, `key_regeneration_address`, "
        "`key_email`, `failed_work_seconds`).",
        "schema": {"type": "string"},
    },
    "RateLimit": {
        "description": 'The state of that window: `"burst_per_minute";r=59;t=42` has `r` calls '
        "left and ends in `t` seconds.",
        "schema": {"type": "string"},
    },
    "Retry-After": {
        "description": "On every 429 (and a 503, or a 409 IDEMPOTENCY_KEY_IN_PROGRESS, that "
        "can be retried): whole seconds until the refused limit resets, or until trying "
        "again is worthwhile.",
        "schema": _COUNT,
    },
}
#: The ``Idempotency-Key`` request header (see :mod:`renderkit_server.idempotency`).
_IDEMPOTENCY_KEY: dict[str, Any] = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "description": "Makes a retry safe (IETF draft-ietf-httpapi-idempotency-key-header): "
    "a repeat with the same key and the same body within 24 h, from the same key lineage, "
    "answers the first answer (`Idempotent-Replayed: true`) without new work or charge. "
    "Successes and 400/413/415/422 are kept; 429 and 5xx are not (a retry runs again). "
    "Another body with the same key is 409 `IDEMPOTENCY_KEY_REUSED`; a repeat while the "
    "first still runs is 409 `IDEMPOTENCY_KEY_IN_PROGRESS` with `Retry-After`. A UUID is a "
    "good key.",
    "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[ -~]+$"},
}


def idempotent_operation(operation: dict[str, Any]) -> dict[str, Any]:
    """Describe a POST operation as taking ``Idempotency-Key``: the header parameter (whose
    description names the ``Idempotent-Replayed`` answer header) and the 409 answers
    (changes and returns ``operation``)."""
    # Inline, not a components reference: the docs' HTTP page reads parameters as written.
    operation.setdefault("parameters", []).append(dict(_IDEMPOTENCY_KEY))
    responses = operation["responses"]
    responses.update(_error_responses(409))
    responses["409"]["headers"] = _header_refs(["Retry-After"])
    return operation


#: What a metered success carries: every rate-limit header but Retry-After.
_SUCCESS_HEADERS = tuple(name for name in _RATE_LIMIT_HEADERS if name != "Retry-After")


def _header_refs(names: Iterable[str]) -> dict[str, Any]:
    return {name: {"$ref": f"#/components/headers/{name}"} for name in names}


def _error_responses(*statuses: int) -> dict[str, Any]:
    ref = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    descriptions = {
        400: "Invalid or missing parameters",
        401: "Missing or invalid API key",
        403: "Forbidden",
        404: "No such job or batch, or not yours (the same answer either way)",
        413: "Request body too large",
        409: "The Idempotency-Key was used with another body (IDEMPOTENCY_KEY_REUSED), or "
        "its first request still runs (IDEMPOTENCY_KEY_IN_PROGRESS, with Retry-After)",
        415: "Body is not JSON",
        429: "A monthly quota (X-RateLimit-*) or a window limit (RateLimit-Policy, "
        "RateLimit) is reached; see Retry-After",
        500: "Render failed",
        502: "An upstream failed: the page could not be loaded, or a speech or model provider "
        "answered with an error",
        503: "Overloaded or a backend is unavailable; see Retry-After",
        504: "Render timed out",
    }
    responses = {str(s): {"description": descriptions[s], **ref} for s in statuses}
    if 429 in statuses:
        responses["429"]["headers"] = _header_refs(_RATE_LIMIT_HEADERS)
    return responses


def _with_examples(name: str, operation: dict[str, Any]) -> dict[str, Any]:
    """Attach the endpoint's example request and success body to its operation."""
    request, response = EXAMPLES[name]
    if request is not None:
        operation["requestBody"]["content"]["application/json"]["example"] = request
    operation["responses"]["200"]["content"]["application/json"]["example"] = response
    return operation


_ROLE = re.compile(r":[a-z]+:`~?([^`<]*?)(?:\s*<[^>]*>)?`")


def _markdown(node: Any) -> Any:
    """Docstring-derived descriptions with reStructuredText roles and ````x```` as `x`."""
    if isinstance(node, dict):
        return {
            k: (_ROLE.sub(r"`\1`", v).replace("``", "`"))
            if k == "description" and isinstance(v, str)
            else _markdown(v)
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_markdown(v) for v in node]
    return node


def openapi_document(operations: Iterable[Operation], *, version: str) -> dict[str, Any]:
    """Build the document for the given operations plus keys and health."""
    schemas: dict[str, Any] = {"Error": _ERROR, "KeyResponse": _KEY_RESPONSE}
    paths: dict[str, Any] = {}
    security: list[dict[str, list[str]]] = [{"bearer": []}, {"svcKey": []}]
    for op in operations:
        request_schema = json_schema(op.model)
        defs = request_schema.pop("$defs", {})
        for def_name, def_schema in defs.items():
            schemas[def_name] = _rewrite_refs(def_schema)
        model_name = op.model.__name__
        schemas[model_name] = _rewrite_refs(request_schema)
        schemas[f"{model_name}Response"] = op.response_schema()
        body_name = model_name
        streamed: dict[str, Any] = {}
        if op is AUDIO:
            # The endpoint's body is the model plus "stream" (jobs and MCP take the model).
            body_name = f"{model_name}Body"
            plain = schemas[model_name]
            properties = {**plain["properties"], STREAM_FIELD: STREAM_PROPERTY}
            schemas[body_name] = {**plain, "properties": properties}
            streamed = {
                AUDIO_FORMATS[name].content_type: {"schema": {"type": "string", "format": "binary"}}
                for name in STREAMABLE
            }
        paths[f"/api/{op.name}"] = {
            "post": idempotent_operation(
                {
                    "operationId": OPERATION_IDS[op.name],
                    "summary": op.title,
                    "description": op.description,
                    "security": security,
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {
                                "schema": {"$ref": f"#/components/schemas/{body_name}"}
                            }
                        },
                    },
                    "responses": {
                        "200": {
                            "description": "The result",
                            "headers": _header_refs(_SUCCESS_HEADERS),
                            "content": {
                                "application/json": {
                                    "schema": {"$ref": f"#/components/schemas/{model_name}Response"}
                                },
                                **streamed,
                            },
                        },
                        **_error_responses(*op.error_statuses),
                    },
                }
            )
        }
    key_request = {
        "type": "object",
        "required": ["email"],
        "properties": {
            "email": {"type": "string", "format": "email", "maxLength": 254},
            "plan": {
                "type": "string",
                "enum": list(PLAN_NAMES),
                "default": "starter",
            },
        },
    }
    paths["/api/keys/generate"] = {
        "post": {
            "operationId": OPERATION_IDS["keys/generate"],
            "summary": "Issue an API key (starter self-service; other plans: admin token)",
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": key_request}},
            },
            "responses": {
                "200": _json_ref("KeyResponse", "The new key, shown once"),
                **_error_responses(400, 401, 403, 413, 415, 429),
            },
        }
    }
    paths["/api/keys/regenerate"] = {
        "post": {
            "operationId": OPERATION_IDS["keys/regenerate"],
            "summary": "Rotate a key: the old one stops working at once",
            "requestBody": {
                "required": False,
                "content": {
                    "application/json": {
                        "schema": {"type": "object", "properties": {"key": {"type": "string"}}}
                    }
                },
            },
            "responses": {
                "200": _json_ref("KeyResponse", "The new key, shown once"),
                **_error_responses(401, 413, 415, 429),
            },
        }
    }
    paths["/api/image/{filename}"] = {"get": _signed_image_operation()}
    schemas["UsageResponse"] = _USAGE_RESPONSE
    paths["/api/usage"] = {
        "get": {
            "operationId": OPERATION_IDS["usage"],
            "summary": "This month's usage of the calling key, and what is left",
            "description": "Read from the ledger calls are charged to: a call counts once it "
            "completed (200). Calls still running are listed as `in_flight` and already count "
            "against `remaining`. `audio_minutes` are minutes with three decimals; `limit` and "
            "`remaining` are null for a metric the plan does not limit.",
            "security": security,
            "responses": {
                "200": _json_ref("UsageResponse", "Usage per metric"),
                **_error_responses(401, 503),
            },
        }
    }
    schemas["WebhookSecretResponse"] = _WEBHOOK_SECRET_RESPONSE
    paths["/api/webhooks/secret"] = {
        "get": _webhook_secret_operation(
            "webhooks/secret", "The webhook signing secret of the calling key", security
        )
    }
    rotate = _webhook_secret_operation(
        "webhooks/secret/rotate", "Rotate the webhook signing secret (with a grace)", security
    )
    rotate["requestBody"] = {  # none needed: the key says whose secret
        "required": False,
        "content": {"application/json": {"schema": {"type": "object", "maxProperties": 0}}},
    }
    paths["/api/webhooks/secret/rotate"] = {"post": rotate}
    health = {
        "type": "object",
        "required": ["status", "version", "uptime_seconds", "services"],
        "properties": {
            "status": {"type": "string", "enum": ["ok", "degraded"]},
            "version": {"type": "string"},
            "uptime_seconds": {"type": "integer"},
            "services": {
                "type": "object",
                "additionalProperties": {"type": "string", "enum": ["ok", "degraded", "down"]},
            },
        },
    }
    paths["/api/health"] = {
        "get": {
            "operationId": OPERATION_IDS["health"],
            "summary": "Service health",
            "responses": {
                "200": {
                    "description": "Status",
                    "content": {"application/json": {"schema": health}},
                }
            },
        }
    }
    job_paths, job_schemas, webhooks = job_openapi(_error_responses, security)
    # Every event is signed per Standard Webhooks: its headers are the delivery's (webhooks/).
    for event in webhooks.values():
        event["post"]["parameters"] = [
            {"name": name, "in": "header", **header} for name, header in _WEBHOOK_HEADERS.items()
        ]
    for submit in ("/api/jobs", "/api/batches"):
        idempotent_operation(job_paths[submit]["post"])
    paths.update(job_paths)
    schemas.update(job_schemas)
    for path, item in paths.items():
        for operation in item.values():
            if path.removeprefix("/api/") in EXAMPLES:  # JSON operations; images show parameters
                _with_examples(path.removeprefix("/api/"), operation)
    document = {
        "openapi": "3.1.0",
        "info": {"title": "renderkit", "version": version, "description": _INFO_DESCRIPTION},
        "paths": paths,
        "webhooks": webhooks,
        "components": {
            "schemas": schemas,
            "headers": _RATE_LIMIT_HEADERS,
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer"},
                "svcKey": {"type": "apiKey", "in": "header", "name": "X-SVC-Key"},
            },
        },
    }
    return dict(_markdown(document))


_AMOUNT = {"type": "number", "minimum": 0}
_USAGE_RESPONSE: dict[str, Any] = {
    "type": "object",
    "required": ["period", "plan", "reset_at", "metrics"],
    "properties": {
        "period": {"type": "string", "description": "The month, YYYY-MM (UTC)"},
        "plan": {"type": "string", "enum": list(PLAN_NAMES)},
        "reset_at": {"type": "string", "format": "date-time"},
        "metrics": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "required": ["used", "in_flight", "limit", "remaining"],
                "properties": {
                    "used": {**_AMOUNT, "description": "Charged this month"},
                    "in_flight": {**_AMOUNT, "description": "Held by calls still running"},
                    "limit": {"type": ["integer", "null"]},
                    "remaining": {"type": ["integer", "null"]},
                },
            },
        },
    },
}


def _signed_image_operation() -> dict[str, Any]:
    """``GET /api/image/{filename}``: an image by signed URL (see :mod:`.signed_images`)."""
    text = {"type": "string", "maxLength": 500}
    fields = sorted(attrs.fields_dict(ImageData))  # the query names the template's data fields
    parameters: list[dict[str, Any]] = [
        {
            "name": "filename",
            "in": "path",
            "required": True,
            "description": "<template>.<png|jpeg|webp>, e.g. og-card.png",
            "schema": {"type": "string", "pattern": "^[a-z0-9-]+\\.(png|jpeg|jpg|webp)$"},
            "example": "og-card.png",
        },
        {
            "name": "kid",
            "in": "query",
            "required": True,
            "description": "Public key id: hex lineage id, a dot, the key's generation",
            "schema": {"type": "string"},
            "example": "9f2c4e1a7b3d5f60812a4c6e8b0d2f41.0",
        },
        {
            "name": "sig",
            "in": "query",
            "required": True,
            "description": "base64url HMAC-SHA256 of <filename>?<every other parameter, sorted "
            "and percent-encoded> under HMAC-SHA256(key, 'renderkit url-signing v1')",
            "schema": {"type": "string"},
            "example": "p0Y9kH2m1bQ8wXzL4cR7tV3nA6sD5fG0jK9uE2iO1yM",
        },
        {
            "name": "exp",
            "in": "query",
            "description": "Unix time after which the URL is refused",
            "schema": {"type": "integer"},
        },
        *({"name": n, "in": "query", "schema": {"type": "number"}} for n in ("width", "height")),
        {"name": "scale", "in": "query", "schema": {"type": "number"}},
        *({"name": n, "in": "query", "schema": text} for n in fields),
    ]
    binary = {"schema": {"type": "string", "format": "binary"}}
    return {
        "operationId": OPERATION_IDS["image/{filename}"],
        "summary": 'An image by signed URL, for <meta property="og:image">',
        "description": "Build the URL with renderkit.sign_image_url or `renderkit sign-url`. "
        "Cacheable for ever (ETag, Cache-Control immutable); the first view of each distinct "
        "image renders it and charges one image, later views are served from storage free.",
        "parameters": parameters,
        "responses": {
            "200": {
                "description": "The image",
                "content": {f"image/{f}": binary for f in ("png", "jpeg", "webp")},
            },
            "304": {"description": "Not modified (If-None-Match matched the ETag)"},
            **_error_responses(400, 403, 429, 500, 502, 503, 504),
        },
    }


def _json_ref(name: str, description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{name}"}}},
    }


def _rewrite_refs(node: Any) -> Any:
    """Point JSON Schema ``#/$defs/X`` references at OpenAPI components."""
    if isinstance(node, dict):
        return {
            k: (v.replace("#/$defs/", "#/components/schemas/") if k == "$ref" else _rewrite_refs(v))
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_rewrite_refs(v) for v in node]
    return node
