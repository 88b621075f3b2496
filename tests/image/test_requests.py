"""Validation of image requests, and what render_image hands the browser (no Chromium)."""

from __future__ import annotations

import pytest

from renderkit import ImageRequest, InvalidRequestError, render_image, structure
from renderkit.storage import MemoryStorage
from renderkit.testing import FakeBrowser
from tests.conftest import open_image

pytestmark = pytest.mark.anyio


def fields_of(exc: InvalidRequestError) -> list[str]:
    return [e.field for e in exc.errors]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "template"),
        ({"template": "nope"}, "template"),
        ({"template": 7}, "template"),
        ({"template": "og-card", "data": {"brand_color": "red;}body{x"}}, "data.brand_color"),
        ({"template": "og-card", "data": {"brand_color": "#12345"}}, "data.brand_color"),
        ({"template": "og-card", "data": {"text_color": "url(x)"}}, "data.text_color"),
        ({"template": "og-card", "quality": 0}, "quality"),
        ({"template": "og-card", "quality": 101}, "quality"),
        ({"template": "og-card", "quality": "90"}, "quality"),
        ({"template": "og-card", "width": 100_000}, "width"),
        ({"template": "og-card", "height": 0}, "height"),
        ({"template": "og-card", "scale": 4}, "scale"),
        ({"template": "og-card", "format": "gif"}, "format"),
        ({"template": "og-card", "data": {"title": 42}}, "data.title"),
        ({"template": "og-card", "data": {"title": ["a"]}}, "data.title"),
        ({"template": "og-card", "data": {"background": "neon"}}, "data.background"),
        ({"template": "og-card", "data": {"logo_url": "javascript:alert(1)"}}, "data.logo_url"),
        ({"template": "og-card", "data": {"logo_url": "file:///etc/passwd"}}, "data.logo_url"),
        ({"template": "og-card", "data": {"title": "x" * 501}}, "data.title"),
        ({"template": "og-card", "data": "title"}, "data"),
        ({"template": "og-card", "html": "<p>x</p>"}, "html"),
        ({"template": "custom"}, "html"),
        ({"template": "custom", "html": "   "}, "html"),
    ],
)
async def test_invalid_request_names_the_field_and_never_reaches_the_browser(
    body: dict, field: str
) -> None:
    browser = FakeBrowser()
    with pytest.raises(InvalidRequestError) as info:
        await render_image(body, browser=browser)
    assert fields_of(info.value) == [field]
    assert browser.renders == []


def test_missing_template_is_reported_as_missing() -> None:
    with pytest.raises(InvalidRequestError) as info:
        structure({"data": {}}, ImageRequest)
    assert info.value.missing


def test_wrong_type_is_not_reported_as_missing() -> None:
    with pytest.raises(InvalidRequestError) as info:
        structure({"template": "og-card", "quality": "high"}, ImageRequest)
    assert not info.value.missing


def test_both_variant_names_resolve_to_the_same_template() -> None:
    for a, b in [
        ("ogCard", "og-card"),
        ("socialSquare", "social-square"),
        ("twitterCard", "twitter-card"),
        ("announcementBanner", "announcement"),
    ]:
        assert (
            structure({"template": a}, ImageRequest).spec
            == structure({"template": b}, ImageRequest).spec
        )


def test_cta_text_is_an_alias_of_cta() -> None:
    req = structure({"template": "ogCard", "data": {"cta_text": "Buy"}}, ImageRequest)
    assert req.data.cta == "Buy"


def test_unknown_fields_are_refused_at_the_top_level_and_in_data() -> None:
    # Reverses the earlier "ignore unknown fields" decision (DECISIONS.md, issue #12).
    with pytest.raises(InvalidRequestError) as info:
        structure(
            {"template": "ogCard", "data": {"titel": "Hi"}, "future_field": {"x": 1}},
            ImageRequest,
        )
    assert fields_of(info.value) == ["future_field", "data.titel"]
    assert [e.unknown for e in info.value.errors] == [True, True]
    assert info.value.errors[1].suggestion == "title"


def test_jpg_is_accepted_as_jpeg() -> None:
    assert structure({"template": "og-card", "format": "JPG"}, ImageRequest).format == "jpeg"


def test_integral_float_quality_is_accepted() -> None:
    assert structure({"template": "og-card", "quality": 80.0}, ImageRequest).quality == 80


@pytest.mark.parametrize(
    "color",
    [
        "#fff",
        "#A1B2C3",
        "#a1b2c3cc",
        "rebeccapurple",
        "rgb(10, 20, 30)",
        "rgba(10,20,30,0.5)",
        "hsl(210 40% 50%)",
    ],
)
def test_common_colour_forms_are_accepted(color: str) -> None:
    req = structure({"template": "og-card", "data": {"brand_color": color}}, ImageRequest)
    assert req.data.brand_color == color


@pytest.mark.parametrize(
    ("template", "size"),
    [
        ("og-card", (2400, 1260)),
        ("socialSquare", (2160, 2160)),
        ("twitter-card", (1600, 836)),
        ("announcementBanner", (2400, 800)),
        ("custom", (2400, 1260)),
    ],
)
async def test_result_reports_the_pixel_size_at_default_scale_two(
    template: str, size: tuple[int, int]
) -> None:
    body = (
        {"template": template, "html": "<p>x</p>"}
        if template == "custom"
        else {"template": template}
    )
    result = await render_image(body, browser=FakeBrowser())
    assert (result.width, result.height) == size
    assert result.template == template


async def test_html_in_data_is_escaped_before_reaching_the_browser() -> None:
    browser = FakeBrowser()
    await render_image(
        {"template": "og-card", "data": {"title": "<img src=x onerror=alert(1)>"}},
        browser=browser,
    )
    fragment = browser.renders[0].html
    assert "<img src=x" not in fragment
    assert "&lt;img src=x onerror=alert(1)&gt;" in fragment


async def test_storage_receives_the_file_and_result_carries_its_key() -> None:
    storage = MemoryStorage()
    result = await render_image(
        {"template": "og-card", "format": "webp"}, browser=FakeBrowser(), storage=storage
    )
    assert result.key is not None and result.key.endswith(".webp")
    assert await storage.get(result.key) == result.content
    head = await storage.head(result.key)
    assert head.content_type == "image/webp"
    assert open_image(result.content).format == "WEBP"


async def test_width_and_height_override_the_template_size() -> None:
    result = await render_image(
        {"template": "og-card", "width": 600, "height": 300, "scale": 1}, browser=FakeBrowser()
    )
    assert (result.width, result.height) == (600, 300)


def test_result_displays_inline_in_jupyter() -> None:
    from renderkit import ImageResult

    png = ImageResult(content=b"png", format="png", width=1, height=1, template="og-card")
    jpeg = ImageResult(content=b"jpg", format="jpeg", width=1, height=1, template="og-card")
    assert png._repr_png_() == b"png" and png._repr_jpeg_() is None
    assert jpeg._repr_jpeg_() == b"jpg" and jpeg._repr_png_() is None


async def test_huge_outputs_are_scaled_down_to_forty_megapixels() -> None:
    result = await render_image(
        {"template": "custom", "html": "<p/>", "width": 4096, "height": 4096, "scale": 3},
        browser=FakeBrowser(),
    )
    assert result.width * result.height <= 40_000_000
    assert result.width == result.height > 4096
