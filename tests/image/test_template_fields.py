"""Each image template's declared fields are what it displays: no field vanishes unreported."""

from __future__ import annotations

import re
from importlib import resources

import attrs
import pytest

from renderkit import IMAGE_TEMPLATES, ImageData, ImageRequest, InvalidRequestError, structure
from renderkit.image import render_image
from renderkit.image._templates import STYLE_FIELDS, render_fragment
from renderkit.testing import FakeBrowser

pytestmark = pytest.mark.anyio

SENTINEL = "Zq7sentinel"
NAMED = [t for t in IMAGE_TEMPLATES if t.name != "custom"]
STYLE_VALUES = {
    "brand_color": "#12ab34",
    "background_color": "#fedcba",
    "text_color": "#010203",
    "background": "gradient",
}


def _value(name: str) -> str:
    if name in STYLE_VALUES:
        return STYLE_VALUES[name]
    if name == "logo_url":
        return f"https://example.com/{SENTINEL}.png"
    return SENTINEL


def _fragment(template: str, data: dict[str, str]) -> str:
    spec = next(t for t in IMAGE_TEMPLATES if t.name == template)
    return render_fragment(template, data, width=spec.width, height=spec.height)


@pytest.mark.parametrize("template", [t.name for t in NAMED])
def test_every_declared_field_appears_in_the_fragment_and_no_other_does(template: str) -> None:
    spec = next(t for t in NAMED if t.name == template)
    bare = _fragment(template, {"title": "Base"})
    for name in attrs.fields_dict(ImageData):
        if name == "title":
            continue
        fragment = _fragment(template, {"title": "Base", name: _value(name)})
        if name in spec.fields:
            assert fragment != bare, f"{template} declares {name} but does not display it"
            if name not in STYLE_FIELDS:
                assert SENTINEL in fragment, name
        else:
            assert fragment == bare, f"{template} displays {name} but does not declare it"
    assert SENTINEL in _fragment(template, {"title": SENTINEL})


@pytest.mark.parametrize("template", [t.name for t in NAMED])
def test_the_template_source_reads_exactly_its_declared_content_fields(template: str) -> None:
    # The renderer passes only declared fields, so a field the .j2 reads but nobody declared
    # would silently never show: the source itself is held to the declaration.
    source = (resources.files("renderkit.image") / "templates" / f"{template}.html.j2").read_text()
    read = set(re.findall(r"\bd\.([a-z_]+)", source))
    spec = next(t for t in NAMED if t.name == template)
    assert read == set(spec.content_fields)


@pytest.mark.parametrize(
    ("template", "field"),
    [
        ("og-card", "cta"),
        ("twitter-card", "cta"),
        ("social-square", "domain"),
        ("announcement", "domain"),
        ("announcement", "body"),
        ("twitter-card", "tag"),
    ],
)
async def test_a_field_the_template_does_not_display_is_a_warning_naming_it(
    template: str, field: str
) -> None:
    request = {"template": template, "data": {"title": "Launch", field: "Read the post"}}

    result = await render_image(request, browser=FakeBrowser())

    assert result.warnings == (
        f"data.{field}: {template} does not display {field}; it was ignored",
    )


async def test_the_variant_a_spelling_of_a_field_is_reported_under_its_canonical_path() -> None:
    result = await render_image(
        {"template": "ogCard", "data": {"title": "Hi", "cta_text": "Go"}}, browser=FakeBrowser()
    )
    assert result.warnings == ("data.cta: og-card does not display cta; it was ignored",)


async def test_fields_the_template_displays_give_no_warning() -> None:
    data = {"title": "Hi", "tag": "New", "domain": "example.com", "brand_color": "#f00"}
    result = await render_image({"template": "og-card", "data": data}, browser=FakeBrowser())
    assert result.warnings == ()


def test_a_strict_request_is_refused_naming_every_field_it_would_ignore() -> None:
    body = {
        "template": "announcement",
        "strict": True,
        "data": {"title": "Hi", "body": "More", "domain": "example.com"},
    }
    with pytest.raises(InvalidRequestError) as caught:
        structure(body, ImageRequest)
    assert [e.field for e in caught.value.errors] == ["data.body", "data.domain"]
    assert "announcement does not display body" in str(caught.value)


async def test_a_strict_request_with_only_displayed_fields_renders() -> None:
    browser = FakeBrowser()
    body = {"template": "social-square", "strict": True, "data": {"title": "Hi", "cta": "Go"}}
    result = await render_image(body, browser=browser)
    assert result.warnings == ()
    assert len(browser.renders) == 1


async def test_data_beside_custom_html_is_reported_as_ignored() -> None:
    result = await render_image(
        {"template": "custom", "html": "<p>x</p>", "data": {"title": "Hi"}},
        browser=FakeBrowser(),
    )
    assert result.warnings == ("data.title: custom does not display title; it was ignored",)


async def test_a_card_given_nothing_it_displays_warns_that_it_shows_only_its_background() -> None:
    result = await render_image(
        {"template": "og-card", "data": {"cta": "Buy"}}, browser=FakeBrowser()
    )
    assert result.warnings[0].startswith("data.cta: og-card does not display cta")
    assert result.warnings[1].startswith("data.title: og-card shows only its background")
    with pytest.raises(InvalidRequestError) as caught:
        structure({"template": "og-card", "strict": True}, ImageRequest)
    assert [e.field for e in caught.value.errors] == ["data.title"]
