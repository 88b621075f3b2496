"""Whatever a caller sends, only renderkit's own errors come back.

Hypothesis feeds every request model (through its constructor and through ``structure``) and
every public function arbitrary JSON-like values, wrong types, extreme numbers and foreign
Python objects, shaped like the models' input often enough to reach the validators and the
render paths (with the in-memory fakes, so no Chromium or speech engine runs).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import datetime
import functools
import math
import typing
from collections.abc import Awaitable, Callable
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import renderkit
from renderkit import (
    AudioRequest,
    ImageData,
    ImageRequest,
    InvalidRequestError,
    ParseRequest,
    PdfRequest,
    RenderkitError,
    ScreenshotRequest,
    structure,
)
from renderkit.core.converter import ALIASES_ATTR
from renderkit.pdf import (
    CertificateData,
    CustomData,
    InvoiceData,
    LetterData,
    LineItem,
    ReportData,
    ReportSection,
)
from renderkit.screenshot import Viewport
from renderkit.testing import FakeBrowser, FakeExtractor, FakeSpeechProvider
from tests.parsing._documents import text_pdf

REQUESTS: list[type] = [ImageRequest, PdfRequest, ScreenshotRequest, AudioRequest, ParseRequest]
NESTED: list[type] = [
    ImageData,
    InvoiceData,
    LineItem,
    CertificateData,
    ReportData,
    ReportSection,
    LetterData,
    CustomData,
    Viewport,
]
MODELS = REQUESTS + NESTED

FAST = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def names(model: type) -> list[str]:
    """Every name ``model`` accepts, both variants' spellings."""
    fields = [f.alias or f.name for f in attrs.fields(model)]
    return fields + list(getattr(model, ALIASES_ATTR, {}))


def field_type(model: type, name: str) -> Any:
    """The type of the field ``name`` (or the field it is an alias of) of ``model``."""
    name = getattr(model, ALIASES_ATTR, {}).get(name, name)
    (field,) = [f for f in attrs.fields(model) if (f.alias or f.name) == name]
    return typing.get_type_hints(model)[field.name]


EVERY_NAME = sorted({name for model in MODELS for name in names(model)})
TEXT_PDF = base64.b64encode(text_pdf([["Invoice INV-1", "Total 12.00 EUR"]])).decode()

# Values a real client might send, so that some examples get past validation.
PLAUSIBLE = st.sampled_from(
    [
        "og-card",
        "ogCard",
        "custom",
        "invoice",
        "certificatePdf",
        "report",
        "letter",
        "https://example.com/",
        "http://[::1",
        "data:image/png;base64,AA==",
        "#fff",
        "rebeccapurple",
        "png",
        "JPG",
        "webp",
        "pdf",
        "wav",
        "A4",
        "letter",
        "mobile",
        "application/pdf",
        "image/png",
        TEXT_PDF,
        "<p>x</p>",
        "Hello there",
        "eur",
        "en-us",
        "main",
        1,
        2,
        90,
        300,
        1.5,
        0.5,
        True,
        False,
    ]
)
EXTREMES = st.sampled_from(
    [math.nan, math.inf, -math.inf, 10**400, -(10**400), 1e308, 2**63, -1, 0, "", " ", "\x00"]
)
FOREIGN = st.one_of(
    st.binary(max_size=8),
    st.complex_numbers(),
    st.decimals(),
    st.fractions(),
    st.datetimes(),
    st.sets(st.integers(), max_size=3),
    st.tuples(st.integers(), st.text(max_size=3)),
    st.from_type(type),
    st.just(object()),
    st.just(datetime.UTC),
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.text(max_size=12),
    PLAUSIBLE,
    EXTREMES,
    FOREIGN,
)
KEYS = st.sampled_from(EVERY_NAME) | st.text(max_size=10)
JUNK = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=8,
)


@functools.cache  # one strategy object per model: rebuilding them per draw is slow
def shaped(model: type) -> st.SearchStrategy[dict[str, Any]]:
    """Dicts with any of ``model``'s names (plausible values, junk, or nested shapes) and
    sometimes a few unknown ones."""
    optional = {name: values_for(field_type(model, name)) for name in names(model)}
    known = st.fixed_dictionaries({}, optional=optional)
    extra = st.dictionaries(KEYS, JUNK, max_size=2)
    return st.builds(lambda a, b: {**b, **a}, known, st.just({}) | extra)


# A valid body of each request, for the examples that change only one or two of its fields.
VALID: dict[type, dict[str, Any]] = {
    ImageRequest: {"template": "ogCard", "data": {"title": "Hello there", "brand_color": "#fff"}},
    PdfRequest: {"template": "invoice", "data": {"currency": "eur", "items": [{"unit_price": 2}]}},
    ScreenshotRequest: {"url": "https://example.com/", "device": "mobile", "format": "JPG"},
    AudioRequest: {"script": "Hello there", "format": "wav"},
    ParseRequest: {"file": TEXT_PDF, "mimeType": "application/pdf"},
}


@functools.cache
def nearly_valid(model: type) -> st.SearchStrategy[dict[str, Any]]:
    """``VALID[model]`` with up to two of its fields changed or added."""
    change = st.sampled_from(names(model)).flatmap(
        lambda name: st.tuples(st.just(name), values_for(field_type(model, name)))
    )
    return st.lists(change, max_size=2).map(lambda pairs: {**VALID[model], **dict(pairs)})


def values_for(tp: Any) -> st.SearchStrategy[Any]:
    """Values for a field of type ``tp``: nested shapes for models, else plausible or junk."""
    args = [a for a in typing.get_args(tp) if a is not type(None)]
    if attrs.has(tp):
        return shaped(tp) | JUNK
    if typing.get_origin(tp) is list and attrs.has(args[0]):
        return st.lists(shaped(args[0]), max_size=3) | JUNK
    if args and all(attrs.has(a) for a in args):  # a union of models (PdfRequest.data)
        return st.one_of([shaped(a) for a in args]) | JUNK
    if tp in (str, int, float, bool) or set(args) <= {str, int, float, bool}:
        # Well-typed values of any content: odd text and numbers that pass the type check.
        return st.from_type(tp) | PLAUSIBLE | JUNK
    return PLAUSIBLE | JUNK


def outcome(build: Callable[[], Any]) -> Any:
    """The built model, or the field errors of the InvalidRequestError (nothing else may
    escape)."""
    try:
        return build()
    except InvalidRequestError as exc:
        errors = exc.errors
    assert errors, "an InvalidRequestError lists its fields"
    assert all(e.field and e.message for e in errors)
    return errors


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
@FAST
@given(data=st.data())
def test_a_model_constructor_raises_nothing_but_invalid_request_error(
    model: type, data: st.DataObject
) -> None:
    kwargs = data.draw(shaped(model))
    outcome(lambda: model(**kwargs))


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
@FAST
@given(data=st.data())
def test_structuring_anything_raises_nothing_but_invalid_request_error(
    model: type, data: st.DataObject
) -> None:
    value = data.draw(shaped(model) | JUNK)
    outcome(lambda: structure(value, model))


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
@FAST
@given(data=st.data())
def test_the_constructor_and_structure_agree_on_every_input(
    model: type, data: st.DataObject
) -> None:
    kwargs = data.draw(shaped(model))
    assert outcome(lambda: model(**kwargs)) == outcome(lambda: structure(kwargs, model))


async def _render_image(value: Any) -> Any:
    return await renderkit.render_image(value, browser=FakeBrowser())


async def _render_pdf(value: Any) -> Any:
    return await renderkit.render_pdf(value, browser=FakeBrowser())


async def _screenshot(value: Any) -> Any:
    return await renderkit.screenshot(value, browser=FakeBrowser())


async def _synthesize(value: Any) -> Any:
    return await renderkit.synthesize(value, provider=FakeSpeechProvider())


async def _parse(value: Any) -> Any:
    return await renderkit.parse(value, extractor=FakeExtractor({"total": 12}))


CALLS: list[tuple[Callable[[Any], Awaitable[Any]], type]] = [
    (_render_image, ImageRequest),
    (_render_pdf, PdfRequest),
    (_screenshot, ScreenshotRequest),
    (_synthesize, AudioRequest),
    (_parse, ParseRequest),
]


@pytest.mark.parametrize(("call", "model"), CALLS, ids=lambda c: getattr(c, "__name__", ""))
@FAST
@given(data=st.data())
def test_public_functions_raise_nothing_but_renderkit_errors(
    call: Callable[[Any], Awaitable[Any]], model: type, data: st.DataObject
) -> None:
    # Mostly near-valid bodies: those reach the render code, where odd values could leak.
    value = data.draw(st.one_of(nearly_valid(model), nearly_valid(model), shaped(model), JUNK))
    with contextlib.suppress(RenderkitError):
        # A loop of its own per example (Hypothesis drives a plain function).
        asyncio.run(call(value))


def test_the_valid_bodies_render() -> None:
    """The bodies the examples start from are valid: those examples reach the render code."""
    for call, model in CALLS:
        assert asyncio.run(call(VALID[model])) is not None
