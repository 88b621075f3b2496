"""Fields a template does not display: found once, then reported or refused.

A template shows some of its data model's fields (each template declares which: see
:data:`renderkit.image.ImageTemplate.fields` and :data:`renderkit.pdf.PDF_TEMPLATE_FIELDS`).
A field given to a template that does not show it used to vanish without a word; now the
request lists it (:func:`ignored_fields`), the result carries one warning per field
(:func:`warning_text`) and a strict request is refused with the same :class:`FieldError`\\ s.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

import attrs
from attrs import AttrsInstance

from renderkit.core.errors import FieldError

__all__ = ["given", "ignored_fields", "warning_text"]


def given(value: object) -> bool:
    """Whether a value says anything: not None, blank text or an empty list or object."""
    if value is None:
        return False
    if isinstance(value, str):
        return bool(value.strip())
    if isinstance(value, list | tuple | dict):
        return bool(value)
    return True


def ignored_fields(
    data: AttrsInstance,
    shown: Collection[str],
    *,
    template: str,
    shown_with: Mapping[str, str] | None = None,
    prefix: str = "data",
) -> tuple[FieldError, ...]:
    """The fields of ``data`` (an attrs instance) that were given but will not be displayed.

    A field counts as given when it differs from its default and :func:`given` holds.

    Args:
        data: the request's data model.
        shown: the fields the template displays.
        template: the template's name, for the messages.
        shown_with: a field displayed only together with another one (``name_style`` needs
            a ``recipient_name``): ignored when that one is not given.
        prefix: the path of ``data`` in the request.
    """
    pairs = shown_with or {}
    found = []
    for field in attrs.fields(type(data)):
        value = getattr(data, field.name)
        # A factory default (an empty list) is never "given" anyway.
        factory = isinstance(field.default, attrs.Factory)  # type: ignore[arg-type]
        default = None if factory else field.default
        if not given(value) or value == default:
            continue
        if field.name not in shown:
            message = f"{template} does not display {field.name}"
        elif (needed := pairs.get(field.name)) and not given(getattr(data, needed)):
            message = f"{template} displays {field.name} only with {needed}"
        else:
            continue
        found.append(FieldError(field=f"{prefix}.{field.name}", message=message))
    return tuple(found)


def warning_text(error: FieldError) -> str:
    """The warning for an ignored field: ``data.cta: og-card does not display cta; it was
    ignored``."""
    return f"{error}; it was ignored"
