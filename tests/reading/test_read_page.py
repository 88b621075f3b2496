"""read_page() through a real Chromium against the fixture pages served on 127.0.0.1."""

from __future__ import annotations

from collections.abc import AsyncIterator
from http.server import BaseHTTPRequestHandler

import pytest

from renderkit import BlockedUrlError, InvalidRequestError, read_page
from renderkit.browser import BrowserConfig, ChromiumPool
from tests._server import LocalServer, serve
from tests.reading._pages import PAGE_NAMES, PAGE_OPTIONS, expected_text, page_html, score

pytestmark = [pytest.mark.anyio, pytest.mark.browser]


@pytest.fixture
def site(http_server: LocalServer) -> LocalServer:
    for name in PAGE_NAMES:
        http_server.routes[f"/{name}"] = (200, "text/html; charset=utf-8", page_html(name))
    return http_server


@pytest.mark.parametrize("name", PAGE_NAMES)
async def test_each_fixture_page_reads_as_its_main_text_with_precision_and_recall_of_0_9(
    pool: ChromiumPool, site: LocalServer, name: str
) -> None:
    request = {"url": site.url(f"/{name}"), **PAGE_OPTIONS.get(name, {})}
    result = await read_page(request, browser=pool)
    found = score(expected_text(name), result.content)
    assert found.precision >= 0.9, result.content
    assert found.recall >= 0.9, result.content


async def test_markdown_keeps_headings_links_tables_and_image_alt_text(
    pool: ChromiumPool, site: LocalServer
) -> None:
    review = await read_page({"url": site.url("/review")}, browser=pool)
    assert review.content.startswith("# Review: the Kestrel 2 e-bike")
    assert "## Specifications" in review.content
    assert "| Battery | 540 Wh, removable |" in review.content
    assert f"![The Kestrel 2 leaning against a brick wall]({site.url('/img/kestrel.jpg')})" in (
        review.content
    )
    blog = await read_page({"url": site.url("/blog")}, browser=pool)
    assert "[timber prices](https://example.org/timber-prices)" in blog.content
    assert "1. Nothing goes on it that I cannot do this week." in blog.content


async def test_navigation_sidebars_footers_ads_and_banners_are_left_out(
    pool: ChromiumPool, site: LocalServer
) -> None:
    news = await read_page({"url": site.url("/news")}, browser=pool)
    for noise in ("Most read", "Advertisement", "Copyright", "cookies", "Subscribe today"):
        assert noise not in news.content
    essay = await read_page({"url": site.url("/essay")}, browser=pool)
    assert "Before you go" not in essay.content  # hidden in the page: never main content


async def test_content_built_by_scripts_is_read_from_the_rendered_dom(
    pool: ChromiumPool, site: LocalServer
) -> None:
    result = await read_page({"url": site.url("/scripted"), "delay": 600}, browser=pool)
    assert "Six new sleeper routes" in result.content
    assert "Loading, please wait" not in result.content
    assert "This site uses cookies" not in result.content
    assert result.metadata.title == "Night trains are back on the map | Rail Weekly"
    assert result.metadata.description == "Sleeper services return to six European routes."


async def test_metadata_comes_from_the_page_with_links_made_absolute(
    pool: ChromiumPool, site: LocalServer
) -> None:
    result = await read_page({"url": site.url("/news")}, browser=pool)
    meta = result.metadata
    assert meta.title == "Harbour bridge reopens after two-year repair"
    assert meta.description is not None
    assert meta.description.startswith("The Northgate harbour bridge carries traffic")
    assert meta.canonical_url == site.url("/news/2026/harbour-bridge-reopens")
    assert meta.language == "en-GB"
    assert meta.og == {
        "title": "Harbour bridge reopens after two-year repair",
        "type": "article",
        "image": site.url("/img/bridge.jpg"),
        "site_name": "The Coastal Courier",
    }
    assert result.requested_url == result.final_url == site.url("/news")
    assert result.http_status == 200
    french = await read_page({"url": site.url("/french")}, browser=pool)
    assert french.metadata.language == "fr"
    assert french.metadata.og["locale"] == "fr_FR"


async def test_text_and_html_formats_carry_the_same_main_content(
    pool: ChromiumPool, site: LocalServer
) -> None:
    text = await read_page({"url": site.url("/docs"), "format": "text"}, browser=pool)
    html = await read_page({"url": site.url("/docs"), "format": "html"}, browser=pool)
    assert "](" not in text.content and "#" not in text.content
    assert "Calls that are never retried" in text.content
    assert "<table>" in html.content and "<h2>Choosing a policy</h2>" in html.content
    assert "Installation and setup" not in html.content + text.content
    assert (text.media_type, html.media_type) == ("text/plain", "text/html")


async def test_hide_selectors_and_click_controls_apply_before_reading(
    pool: ChromiumPool, site: LocalServer
) -> None:
    result = await read_page(
        {
            "url": site.url("/essay"),
            "hide_selectors": ["h3"],
            "scripts": "document.querySelector('.entry-content p').textContent = 'Rewritten.'",
        },
        browser=pool,
    )
    assert "Hours, not items" not in result.content
    assert "Rewritten." in result.content


async def test_headers_reach_the_page_origin(pool: ChromiumPool, site: LocalServer) -> None:
    seen: list[str | None] = []

    def page(handler: BaseHTTPRequestHandler) -> tuple[int, str, bytes]:
        seen.append(handler.headers.get("X-Reader"))
        return 200, "text/html", page_html("essay")

    site.routes["/private"] = page
    await read_page({"url": site.url("/private"), "headers": {"X-Reader": "yes"}}, browser=pool)
    assert seen == ["yes"]


async def test_a_dom_larger_than_the_cap_is_refused_naming_url(
    pool: ChromiumPool, site: LocalServer
) -> None:
    with pytest.raises(InvalidRequestError) as info:
        await read_page({"url": site.url("/news")}, browser=pool, max_dom_chars=1_000)
    assert info.value.errors[0].field == "url"
    assert "larger than 1,000 characters" in str(info.value)


async def test_a_longer_answer_is_cut_at_the_output_cap_with_a_warning(
    pool: ChromiumPool, site: LocalServer
) -> None:
    result = await read_page({"url": site.url("/essay")}, browser=pool, max_output_chars=300)
    assert 0 < len(result.content) <= 300
    assert any("was cut" in w for w in result.warnings)


async def test_a_status_in_fail_on_status_refuses_the_read(
    pool: ChromiumPool, http_server: LocalServer
) -> None:
    http_server.routes["/gone"] = (404, "text/html", b"<h1>Not here</h1>")
    with pytest.raises(InvalidRequestError):
        await read_page({"url": http_server.url("/gone"), "fail_on_status": [404]}, browser=pool)
    result = await read_page({"url": http_server.url("/gone")}, browser=pool)
    assert "the page answered HTTP 404" in result.warnings


@pytest.fixture
async def strict_pool() -> AsyncIterator[ChromiumPool]:
    async with ChromiumPool(BrowserConfig(slots=1)) as pool:
        yield pool


async def test_a_private_address_is_refused_and_never_fetched(strict_pool: ChromiumPool) -> None:
    with serve() as private:
        private.routes["/"] = (200, "text/html", page_html("news"))
        with pytest.raises(BlockedUrlError):
            await read_page({"url": private.url("/")}, browser=strict_pool)
        assert private.hits == []
