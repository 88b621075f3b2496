"""The one cattrs converter that turns plain JSON-like data into renderkit's request models.

Structuring is strict about types (a number is not silently turned into a string, ``true`` is
not a number) and lenient about unknown keys, as the interface decisions require: clients may
send fields from either variant of the spec, and fields we do not know are ignored.
"""

from __future__ import annotations

import math
import typing
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import attrs
import cattrs
from cattrs.errors import (
    AttributeValidationNote,
    BaseValidationError,
    IterableValidationError,
    IterableValidationNote,
)
from cattrs.gen import make_dict_structure_fn

from renderkit.core.errors import FieldError, InvalidRequestError

__all__ = ["ALIASES_ATTR", "converter", "structure", "unstructure"]

T = TypeVar("T")

#: Models may declare ``__rk_aliases__ = {"alias": "canonical"}``: a client can send either
#: spelling (the interface has two naming variants); the canonical name wins if both are sent.
ALIASES_ATTR = "__rk_aliases__"


def _strict_str(value: object, _: type) -> str:
    if not isinstance(value, str):
        msg = "must be a string"
        raise TypeError(msg)
    return value


def _strict_int(value: object, _: type) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        msg = "must be an integer"
        raise TypeError(msg)
    if isinstance(value, float):
        if not value.is_integer():
            msg = "must be an integer"
            raise TypeError(msg)
        return int(value)
    return value


def _strict_float(value: object, _: type) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        msg = "must be a number"
        raise TypeError(msg)
    if not math.isfinite(value):
        msg = "must be a finite number"
        raise TypeError(msg)
    return float(value)


def _strict_bool(value: object, _: type) -> bool:
    if not isinstance(value, bool):
        msg = "must be true or false"
        raise TypeError(msg)
    return value


def _is_list(tp: Any) -> bool:
    return typing.get_origin(tp) is list or tp is list


def _list_hook_factory(tp: Any, conv: cattrs.Converter) -> Callable[[Any, type], Any]:
    (item,) = typing.get_args(tp) or (Any,)

    def structure_list(value: Any, _: type) -> list[Any]:
        # A string is iterable, but "abc" is not a list of three strings.
        if not isinstance(value, list | tuple):
            msg = "must be an array"
            raise TypeError(msg)
        out: list[Any] = []
        errors: list[Exception] = []
        for index, element in enumerate(value):
            try:
                out.append(conv.structure(element, item))
            except Exception as exc:  # collected so every bad element is reported
                exc.add_note(IterableValidationNote(f"@ index {index}", index, item))
                errors.append(exc)
        if errors:
            msg = f"While structuring {tp!r}"
            raise IterableValidationError(msg, errors, tp)
        return out

    return structure_list


def _model_hook_factory(cls: type, conv: cattrs.Converter) -> Callable[[Any, type], Any]:
    base = make_dict_structure_fn(cls, conv)
    aliases: Mapping[str, str] = getattr(cls, ALIASES_ATTR, {})

    def structure_model(value: Any, _: type) -> Any:
        if not isinstance(value, Mapping):
            msg = "must be an object"
            raise TypeError(msg)
        if not aliases:
            return base(value, cls)
        value = dict(value)
        shadowed: dict[str, tuple[str, Any]] = {}
        for alias, canonical in aliases.items():
            if alias in value:
                aliased = value.pop(alias)
                if canonical not in value:
                    value[canonical] = aliased
                elif value[canonical] != aliased:
                    shadowed[canonical] = (alias, aliased)
        result = base(value, cls)
        # Both names sent with different values: the canonical one wins (as the schema, which
        # lists both, allows), but the other must still be a valid value, not silently
        # dropped garbage.
        for canonical, (alias, aliased) in shadowed.items():
            try:
                base({**value, canonical: aliased}, cls)
            except Exception as exc:  # re-reported under the alias's name
                errors = [
                    FieldError(field=alias + e.field[len(canonical) :], message=e.message)
                    for e in _flatten(exc, "")
                    if e.field == canonical or e.field.startswith(canonical + ".")
                ]
                if errors:
                    raise InvalidRequestError(errors) from None
        return result

    return structure_model


def _make_converter() -> cattrs.Converter:
    conv = cattrs.Converter(forbid_extra_keys=False)
    conv.register_structure_hook(str, _strict_str)
    conv.register_structure_hook(int, _strict_int)
    conv.register_structure_hook(float, _strict_float)
    conv.register_structure_hook(bool, _strict_bool)
    conv.register_structure_hook_factory(attrs.has, lambda cls: _model_hook_factory(cls, conv))
    conv.register_structure_hook_factory(_is_list, lambda tp: _list_hook_factory(tp, conv))
    return conv


#: The converter shared by the library and the server (never cattrs' global one).
converter: cattrs.Converter = _make_converter()


def _path(parent: str, note: object) -> str:
    if isinstance(note, AttributeValidationNote):
        return f"{parent}.{note.name}" if parent else note.name
    if isinstance(note, IterableValidationNote):
        return f"{parent}[{note.index}]"
    return parent


def _leaf_message(exc: BaseException) -> tuple[str, bool]:
    if isinstance(exc, KeyError):
        return "is required", True
    if isinstance(exc, TypeError | ValueError) and exc.args and isinstance(exc.args[0], str):
        return exc.args[0], False
    return "is invalid", False


def _flatten(exc: BaseException, parent: str) -> list[FieldError]:
    if isinstance(exc, InvalidRequestError):
        return [
            FieldError(
                field=f"{parent}.{e.field}" if parent else e.field,
                message=e.message,
                missing=e.missing,
            )
            for e in exc.errors
        ]
    if isinstance(exc, BaseValidationError):
        errors: list[FieldError] = []
        for sub in exc.exceptions:
            notes = getattr(sub, "__notes__", [])
            path = parent
            for note in notes:
                path = _path(parent, note)
            errors.extend(_flatten(sub, path))
        return errors
    message, missing = _leaf_message(exc)
    return [FieldError(field=parent or "body", message=message, missing=missing)]


def structure(value: object, cls: type[T]) -> T:
    """Structure JSON-like ``value`` into ``cls``.

    Raises:
        InvalidRequestError: listing every field that is missing, of the wrong type or out of
            range, each with its dotted path (``data.brand_color``).
    """
    try:
        return converter.structure(value, cls)
    except (BaseValidationError, InvalidRequestError, TypeError, ValueError, KeyError) as exc:
        raise InvalidRequestError(_flatten(exc, "")) from exc


def unstructure(value: object) -> Any:
    """Turn a model back into plain JSON-compatible data."""
    return converter.unstructure(value)
