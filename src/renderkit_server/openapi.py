"""The OpenAPI 3.1 document, generated from the operations table (no hand-written copy).

Each production endpoint's request schema comes from its model, its 200 response from
:meth:`Operation.response_schema <renderkit_server.operations.Operation.response_schema>`
and its error responses from the operation's statuses; the keys and health endpoints,
which are not operations, are described here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import attrs

from renderkit import ImageData
from renderkit.core.schema import json_schema
from renderkit_server.operations import OPERATIONS, Operation
from renderkit_server.quotas import PLAN_NAMES

__all__ = ["openapi_document", "response_schema"]

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
        "email": {"type": "string", "format": "email"},
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


def _error_responses(*statuses: int) -> dict[str, Any]:
    ref = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    descriptions = {
        400: "Invalid or missing parameters",
        401: "Missing or invalid API key",
        403: "Forbidden",
        413: "Request body too large",
        415: "Body is not JSON",
        429: "Quota or burst limit reached; see Retry-After",
        500: "Render failed",
        502: "An upstream failed: the page could not be loaded, or a speech or model provider "
        "answered with an error",
        503: "Overloaded or a backend is unavailable; see Retry-After",
        504: "Render timed out",
    }
    return {str(s): {"description": descriptions[s], **ref} for s in statuses}


def _paths(name: str) -> list[str]:
    return [f"/api/{name}", f"/v1/{name}"]


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
        for path in _paths(op.name):
            paths[path] = {
                "post": {
                    "operationId": f"{op.name.replace('-', '_')}_{path.split('/')[1]}",
                    "summary": op.title,
                    "description": op.description,
                    "security": security,
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {
                                "schema": {"$ref": f"#/components/schemas/{model_name}"}
                            }
                        },
                    },
                    "responses": {
                        "200": {
                            "description": "The result",
                            "content": {
                                "application/json": {
                                    "schema": {"$ref": f"#/components/schemas/{model_name}Response"}
                                }
                            },
                        },
                        **_error_responses(*op.error_statuses),
                    },
                }
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
    for path in _paths("keys/generate"):
        paths[path] = {
            "post": {
                "operationId": f"keys_generate_{path.split('/')[1]}",
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
    for path in _paths("keys/regenerate"):
        paths[path] = {
            "post": {
                "operationId": f"keys_regenerate_{path.split('/')[1]}",
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
                    **_error_responses(401, 413, 415),
                },
            }
        }
    for path in _paths("image/{filename}"):
        paths[path] = {"get": _signed_image_operation(path)}
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
    for path in _paths("health"):
        paths[path] = {
            "get": {
                "operationId": f"health_{path.split('/')[1]}",
                "summary": "Service health",
                "responses": {
                    "200": {
                        "description": "Status",
                        "content": {"application/json": {"schema": health}},
                    }
                },
            }
        }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "renderkit",
            "version": version,
            "description": "Images, PDFs, screenshots, speech and document parsing from JSON.",
        },
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer"},
                "svcKey": {"type": "apiKey", "in": "header", "name": "X-SVC-Key"},
            },
        },
    }


def _signed_image_operation(path: str) -> dict[str, Any]:
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
        },
        {
            "name": "kid",
            "in": "query",
            "required": True,
            "description": "Public key id: hex lineage id, a dot, the key's generation",
            "schema": {"type": "string"},
        },
        {
            "name": "sig",
            "in": "query",
            "required": True,
            "description": "base64url HMAC-SHA256 of <filename>?<every other parameter, sorted "
            "and percent-encoded> under HMAC-SHA256(key, 'renderkit url-signing v1')",
            "schema": {"type": "string"},
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
        "operationId": f"signed_image_{path.split('/')[1]}",
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
