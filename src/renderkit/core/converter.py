"""The one cattrs converter that turns plain JSON-like data into renderkit's request models.

Structuring is strict about types (a number is not silently turned into a string, ``true`` is
not a number) and about names: a field no variant of the interface defines is refused, with a
suggestion when a known field is close (``fullpage`` -> ``fullPage``), because a misspelt
option silently ignored is a wrong file the client pays for.

Both ways of building a model go through :func:`check_fields`: :func:`structure` (a dict from
JSON) and, for classes decorated with :func:`checked`, the constructor itself
(``ImageRequest(template="og-card", data={"title": "Hi"})``). So both accept the same input and
name the same fields in their errors, and every problem is reported at once.
"""

from __future__ import annotations

import difflib
import functools
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

from renderkit.core.errors import FieldError, InvalidRequestError

__all__ = [
    "ALIASES_ATTR",
    "FIELD_TYPES_ATTR",
    "check_fields",
    "checked",
    "converter",
    "structure",
    "unstructure",
]

T = TypeVar("T")

#: Models may declare ``__rk_aliases__ = {"alias": "canonical"}``: a client can send either
#: spelling (the interface has two naming variants); the canonical name wins if both are sent.
ALIASES_ATTR = "__rk_aliases__"

#: Models may define a static ``__rk_field_types__(given) -> {field: type}`` when a field's
#: model depends on another value sent (PdfRequest: ``data`` follows ``template``); ``Any``
#: leaves the field unchecked (the other value is invalid and reported instead).
FIELD_TYPES_ATTR = "__rk_field_types__"

# Where @checked keeps the constructor attrs generated (run once the input is checked).
_ATTRS_INIT = "__rk_attrs_init__"

# What structuring a value may raise for bad input; anything else is a bug and propagates.
_BAD_INPUT = (BaseValidationError, InvalidRequestError, TypeError, ValueError, KeyError)


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
    try:
        number = float(value)
    except OverflowError:  # an int beyond a double's range
        number = math.inf
    if not math.isfinite(number):
        msg = "must be a finite number"
        raise TypeError(msg)
    return number


def _strict_bool(value: object, _: type) -> bool:
    if not isinstance(value, bool):
        msg = "must be true or false"
        raise TypeError(msg)
    return value


def _int_or_str(value: object, _: type) -> int | str:
    # e.g. an HTTP status (404) or a range of them ("500-599").
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    msg = "must be an integer or a string"
    raise TypeError(msg)


def _is_list(tp: Any) -> bool:
    return typing.get_origin(tp) is list or tp is list


def _is_dict(tp: Any) -> bool:
    return typing.get_origin(tp) is dict or tp is dict


def _structure_dict(value: object, _: type) -> dict[str, Any]:
    # Free-form JSON objects (a parse schema): only the shape is checked here.
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        msg = "must be an object"
        raise TypeError(msg)
    return dict(value)


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
            except _BAD_INPUT as exc:  # collected so every bad element is reported
                exc.add_note(IterableValidationNote(f"@ index {index}", index, item))
                errors.append(exc)
        if errors:
            msg = f"While structuring {tp!r}"
            raise IterableValidationError(msg, errors, tp)
        return out

    return structure_list


def _model_hook_factory(cls: type) -> Callable[[Any, type], Any]:
    def structure_model(value: Any, _: type) -> Any:
        if isinstance(value, cls):  # already built, hence already checked
            return value
        if attrs.has(type(value)):  # e.g. LetterData given for an invoice
            msg = f"must be {cls.__name__} or an object, not {type(value).__name__}"
            raise TypeError(msg)
        if not isinstance(value, Mapping):
            msg = "must be an object"
            raise TypeError(msg)
        return _construct(cls, check_fields(cls, value))

    return structure_model


def _construct(cls: type[T], kwargs: dict[str, Any]) -> T:
    init = getattr(cls, _ATTRS_INIT, None)
    if init is None:
        return cls(**kwargs)
    instance = cls.__new__(cls)
    init(instance, **kwargs)
    return instance


def _make_converter() -> cattrs.Converter:
    conv = cattrs.Converter()
    conv.register_structure_hook(str, _strict_str)
    conv.register_structure_hook(int, _strict_int)
    conv.register_structure_hook(float, _strict_float)
    conv.register_structure_hook(bool, _strict_bool)
    conv.register_structure_hook(int | str, _int_or_str)
    conv.register_structure_hook_factory(attrs.has, _model_hook_factory)
    conv.register_structure_hook_factory(_is_list, lambda tp: _list_hook_factory(tp, conv))
    conv.register_structure_hook_factory(_is_dict, lambda tp: _structure_dict)
    return conv


#: The converter shared by the library and the server (never cattrs' global one).
converter: cattrs.Converter = _make_converter()


@attrs.frozen
class _Shape:
    """What check_fields needs to know about a model, computed once per class."""

    fields: dict[str, attrs.Attribute[Any]]  # by the name a caller passes
    types: dict[str, Any]
    aliases: dict[str, str]  # alias -> canonical

    @property
    def known(self) -> list[str]:
        return [*self.fields, *self.aliases]


@functools.cache
def _shape(cls: type) -> _Shape:
    # Resolved on first use, not at class creation: annotations may name later classes.
    hints = typing.get_type_hints(cls)
    fields = {(f.alias or f.name): f for f in attrs.fields(cls) if f.init}
    return _Shape(
        fields=fields,
        types={name: hints[f.name] for name, f in fields.items()},
        aliases=dict(getattr(cls, ALIASES_ATTR, {})),
    )


def _suggest(name: str, known: list[str]) -> str | None:
    # Case-insensitive, so "fullpage" finds "fullPage" before "full_page".
    folded = {k.lower(): k for k in known}
    close = difflib.get_close_matches(name.lower(), list(folded), n=1, cutoff=0.6)
    return folded[close[0]] if close else None


def _unknown(key: object, shape: _Shape) -> FieldError:
    # A blank or non-string key is shown quoted, so the message still names something.
    name = key if isinstance(key, str) and key.strip() else repr(key)
    suggestion = _suggest(name, shape.known)
    if suggestion is not None:
        message = f"is not a known field; did you mean {suggestion}?"
    else:
        message = f"is not a known field (known: {', '.join(shape.fields)})"
    return FieldError(field=name[:100], message=message, unknown=True, suggestion=suggestion)


def _check_value(
    field: attrs.Attribute[Any], tp: Any, path: str, value: Any, errors: list[FieldError]
) -> Any:
    """``value`` structured to ``tp``; its problems are appended to ``errors`` under ``path``."""
    try:
        typed = converter.structure(value, tp)
    except _BAD_INPUT as exc:
        errors.extend(_flatten(exc, path))
        return value
    # Run the field's own converter and validator now, so every field's problem is reported
    # together; attrs runs them again (cheaply) when the checked values are assigned.
    converted: Any = typed
    if field.converter is not None:
        convert = typing.cast(Callable[[Any], Any], field.converter)  # plain callables only
        converted = convert(typed)
    if field.validator is not None:
        try:
            field.validator(None, field, converted)
        except InvalidRequestError as exc:
            errors.extend(attrs.evolve(e, field=path) for e in exc.errors)
    return typed


def _same(first: object, second: object) -> bool:
    """Whether two sent values are equal; a comparison that raises (a signalling
    ``Decimal('sNaN')``) counts as different, so the value is still checked by name."""
    try:
        return bool(first == second)
    except (ArithmeticError, TypeError, ValueError):
        return False


def check_fields(cls: type, given: Mapping[Any, Any]) -> dict[str, Any]:
    """Check ``given`` against the fields of the attrs class ``cls``.

    Resolves aliases, refuses unknown names (suggesting a close known one), reports missing
    required fields, structures each value to its field's type through :data:`converter` (a
    dict becomes a nested model) and runs each field's converter and validator.

    Returns:
        The keyword arguments for the attrs-generated ``__init__``, by canonical name.

    Raises:
        InvalidRequestError: listing every problem, each with its dotted path.
    """
    shape = _shape(cls)
    types = dict(shape.types)
    resolve = getattr(cls, FIELD_TYPES_ATTR, None)
    if resolve is not None:
        types.update(resolve(given))
    errors: list[FieldError] = []
    sent: dict[str, Any] = {}
    shadowed: list[tuple[str, str, Any]] = []
    # Canonical names first: when both spellings are sent, the canonical one wins.
    for key, value in given.items():
        if isinstance(key, str) and key in shape.fields:
            sent[key] = value
    for key, value in given.items():
        if isinstance(key, str) and key in shape.fields:
            continue
        canonical = shape.aliases.get(key) if isinstance(key, str) else None
        if canonical is None:
            errors.append(_unknown(key, shape))
        elif canonical not in sent:
            sent[canonical] = value
        elif not _same(sent[canonical], value):
            # Overridden, but still not silently dropped garbage: checked under its own name.
            shadowed.append((key, canonical, value))
    kwargs: dict[str, Any] = {}
    for name, field in shape.fields.items():
        if name in sent:
            kwargs[name] = _check_value(field, types[name], name, sent[name], errors)
        elif field.default is attrs.NOTHING:
            errors.append(FieldError(field=name, message="is required", missing=True))
    for alias, canonical, value in shadowed:
        _check_value(shape.fields[canonical], types[canonical], alias, value, errors)
    if errors:
        raise InvalidRequestError(errors)
    return kwargs


def checked(cls: type[T]) -> type[T]:
    """Make the constructor of the attrs class ``cls`` check its arguments like structure().

    Apply above ``@attrs.frozen``. ``cls(**kwargs)`` then accepts what :func:`structure`
    accepts for the same dict (aliases, a dict for a nested model, ``90.0`` for an int) and
    raises :class:`InvalidRequestError` naming every unknown, missing or invalid field,
    instead of a bare ``TypeError`` or a model holding a dict.
    """
    attrs_init = cls.__init__

    # wraps(): help() and IDEs still show the typed signature attrs generated.
    @functools.wraps(attrs_init)
    def __init__(self: Any, /, **given: Any) -> None:
        attrs_init(self, **check_fields(cls, given))

    setattr(cls, _ATTRS_INIT, attrs_init)
    cls.__init__ = __init__  # type: ignore[method-assign,assignment]
    return cls


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
            attrs.evolve(e, field=f"{parent}.{e.field}" if parent else e.field) for e in exc.errors
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
        InvalidRequestError: listing every field that is unknown, missing, of the wrong type
            or out of range, each with its dotted path (``data.brand_color``).
    """
    try:
        return converter.structure(value, cls)
    except _BAD_INPUT as exc:
        raise InvalidRequestError(_flatten(exc, "")) from exc


def unstructure(value: object) -> Any:
    """Turn a model back into plain JSON-compatible data."""
    return converter.unstructure(value)
