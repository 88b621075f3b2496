"""The OpenAPI 3.1 document, generated from the request models (no hand-written copy)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from renderkit.core.schema import json_schema
from renderkit.parsing import DOCUMENT_TYPES
from renderkit_server.operations import Operation

__all__ = ["openapi_document"]

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

_RESPONSES: dict[str, dict[str, Any]] = {
    "image": {
        "success": {"type": "boolean"},
        "url": {"type": "string", "format": "uri"},
        "width": {"type": "integer", "description": "Pixels of the returned file"},
        "height": {"type": "integer", "description": "Pixels of the returned file"},
        "format": {"type": "string", "enum": ["png", "jpeg", "webp"]},
        "size_bytes": {"type": "integer"},
        "template": {"type": "string", "description": "The template name as sent"},
        "credits_used": {"type": "integer"},
    },
    "screenshot": {
        "success": {"type": "boolean"},
        "url": {"type": "string", "format": "uri"},
        "width": {"type": "integer", "description": "Pixels of the returned image"},
        "height": {"type": "integer", "description": "Pixels of the returned image"},
        "format": {"type": "string", "enum": ["png", "jpeg", "webp", "pdf"]},
        "size_bytes": {"type": "integer"},
        "device": {"type": "string"},
        "full_page": {"type": "boolean"},
        "captured_at": {"type": "string", "format": "date-time"},
        "source_url": {"type": "string", "description": "Final URL after redirects"},
        "http_status": {"type": ["integer", "null"]},
        "warnings": {"type": "array", "items": {"type": "string"}},
        "credits_used": {"type": "integer"},
    },
    "audio": {
        "success": {"type": "boolean"},
        "url": {"type": "string", "format": "uri"},
        "format": {"type": "string", "enum": ["mp3", "wav", "opus", "aac"]},
        "duration_seconds": {"type": "number", "description": "Measured from the file"},
        "duration_est": {"type": "number", "description": "Same as duration_seconds"},
        "duration_est_sec": {"type": "number", "description": "Same as duration_seconds"},
        "characters": {"type": "integer"},
        "characters_used": {"type": "integer"},
        "voice_id": {"type": "string"},
        "model": {"type": "string"},
        "size_bytes": {"type": "integer"},
        "credits_used": {"type": "integer", "description": "Characters charged"},
    },
    "pdf-gen": {
        "success": {"type": "boolean"},
        "url": {"type": "string", "format": "uri"},
        "pages": {"type": "integer", "description": "Exact page count"},
        "pages_est": {"type": "integer", "description": "Same as pages (variant B name)"},
        "page_size": {"type": "string", "enum": ["A4", "Letter", "Legal", "A3"]},
        "landscape": {"type": "boolean"},
        "format": {"type": "string", "enum": ["pdf"]},
        "size_bytes": {"type": "integer"},
        "template": {"type": "string", "description": "The template name as sent"},
        "credits_used": {"type": "integer"},
    },
    "parse": {
        "success": {"type": "boolean"},
        "data": {
            "type": "object",
            "description": "The extracted fields; exactly the schema's properties when given",
        },
        "document_type": {
            "type": "string",
            "enum": list(DOCUMENT_TYPES),
        },
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        "warnings": {"type": "array", "items": {"type": "string"}},
        "usage": {
            "type": "object",
            "required": ["input_tokens", "output_tokens"],
            "properties": {
                "input_tokens": {"type": "integer"},
                "output_tokens": {"type": "integer"},
            },
        },
        "pages": {"type": "integer", "description": "Pages read"},
        "extractor": {"type": "string", "description": "local, openai or anthropic"},
        "credits_used": {"type": "integer"},
    },
}

#: Success-body fields present only on request (left out of ``required``).
_OPTIONAL: dict[str, dict[str, Any]] = {
    "parse": {
        "provenance": {
            "type": "object",
            "description": "With include_provenance: per field, where it was read",
            "additionalProperties": {
                "type": "object",
                "properties": {
                    "page": {"type": "integer"},
                    "bbox": {
                        "type": "array",
                        "items": {"type": "number"},
                        "minItems": 4,
                        "maxItems": 4,
                        "description": "x0, y0, x1, y1 as fractions of the page, top left 0,0",
                    },
                    "text": {"type": "string"},
                },
            },
        }
    }
}

_KEY_RESPONSE = {
    "type": "object",
    "properties": {
        "success": {"type": "boolean"},
        "key": {"type": "string", "pattern": "^sk_live_[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$"},
        "plan": {"type": "string", "enum": ["starter", "pro", "business", "vip"]},
        "email": {"type": "string", "format": "email"},
        "created": {"type": "string", "format": "date-time"},
        "issued_at": {"type": "string", "format": "date-time"},
    },
}


def response_schema(name: str) -> dict[str, Any]:
    """The JSON Schema of a production endpoint's success body."""
    properties = _RESPONSES.get(name, {})
    return {
        "type": "object",
        "required": sorted(properties),
        "properties": {**properties, **_OPTIONAL.get(name, {})},
    }


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
    security = [{"bearer": []}, {"svcKey": []}]
    for op in operations:
        request_schema = json_schema(op.model)
        defs = request_schema.pop("$defs", {})
        for def_name, def_schema in defs.items():
            schemas[def_name] = _rewrite_refs(def_schema)
        model_name = op.model.__name__
        schemas[model_name] = _rewrite_refs(request_schema)
        schemas[f"{model_name}Response"] = response_schema(op.name)
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
                        **_error_responses(400, 401, 413, 415, 429, 500, 502, 503, 504),
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
                "enum": ["starter", "pro", "business", "vip"],
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
