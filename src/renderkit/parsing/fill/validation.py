"""Checking the schema before any work, and the filled data against it after."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jsonschema
import jsonschema.exceptions
import jsonschema.validators

from renderkit.core.errors import InvalidRequestError
from renderkit.core.schemarefs import ref_cycle
from renderkit.parsing._models import check_schema_depth

__all__ = ["check_schema", "validate"]

_REF_CYCLE = "refers to itself without end (a $ref cycle that never reaches a type)"


def check_schema(schema: Mapping[str, Any]) -> type[jsonschema.protocols.Validator]:
    """Check that ``schema`` is a JSON Schema renderkit can fill, and return its validator class.

    Raises:
        InvalidRequestError: on field ``schema``: not valid JSON Schema (per its ``$schema``
            dialect, 2020-12 by default), nested more than 40 levels, a ``$ref`` cycle, or
            not an object schema with ``properties``.
    """
    check_schema_depth(schema)
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(dict(schema))
    except jsonschema.exceptions.SchemaError as exc:
        where = "/".join(str(p) for p in exc.absolute_path)
        msg = f"is not a valid JSON Schema: {exc.message[:200]}" + (
            f" (at {where})" if where else ""
        )
        raise InvalidRequestError.single("schema", msg) from None
    cycle = ref_cycle(schema)  # before any work: a cycle deeper in is found only by the data
    if cycle is not None:
        raise InvalidRequestError.single("schema", f"{_REF_CYCLE} at {cycle[:80]}")
    try:
        # Validating anything walks a top-level $ref cycle ({"$ref": "#"}) without end: find
        # that now, before any work is done, rather than after extraction.
        cls(dict(schema)).is_valid({})
    except RecursionError:
        raise InvalidRequestError.single("schema", _REF_CYCLE) from None
    properties = schema.get("properties")
    if not isinstance(properties, Mapping) or not properties:
        msg = 'must describe an object with "properties" (the fields to extract)'
        raise InvalidRequestError.single("schema", msg)
    if len(properties) > 500:
        msg = "may list at most 500 properties"
        raise InvalidRequestError.single("schema", msg)
    return cls


def validate(
    data: dict[str, Any],
    schema: Mapping[str, Any],
    validator_cls: type[jsonschema.protocols.Validator],
    warnings: list[str],
) -> set[str]:
    """Validate ``data``; append a warning per mismatch and return the mismatching fields."""
    # A field the extractor could not find is null: that is reported as "not found", not as
    # a type mismatch, so nulls are left out of validation (required ones still warn).
    present = {k: v for k, v in data.items() if v is not None}
    validator = validator_cls(schema, format_checker=validator_cls.FORMAT_CHECKER)
    invalid: set[str] = set()
    try:
        errors = sorted(validator.iter_errors(present), key=lambda e: list(e.absolute_path))
    except RecursionError:  # a $ref cycle under a property the data holds
        raise InvalidRequestError.single("schema", _REF_CYCLE) from None
    for error in errors:
        path = [str(p) for p in error.absolute_path]
        field = path[0] if path else None
        if error.validator == "required":
            continue  # missing fields already carry a "not found" warning
        if field is not None:
            invalid.add(field)
        where = ".".join(path) or "data"
        warnings.append(f"{where}: does not match the schema ({error.message[:160]})")
    return invalid
