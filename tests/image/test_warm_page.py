"""A warm template page shows the next card of the same shape by changing only the nodes that
differ (render.js ``show``): the result must be the card a fresh page shows, DOM and pixels,
and nothing of the previous card may linger (fitted sizes, clamps, an image that failed)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

import pytest

from renderkit import InvalidRequestError, render_image
from renderkit.browser import BrowserConfig, ChromiumPool, _cdp
from renderkit.browser._pool import _shell_document
from renderkit.image._render import image_shell
from renderkit.image._templates import render_fragment
from tests._server import LocalServer
from tests.conftest import open_image, png_bytes

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

LONG = ("A headline far too long for any card, so it is shrunk and then clamped " * 6).strip()
CARDS: Mapping[str, Mapping[str, str]] = {
    "plain": {"tag": "News", "title": "Render anything", "subtitle": "In milliseconds"},
    "clamped": {"tag": "News", "title": LONG, "subtitle": "In milliseconds"},
    "arabic": {"tag": "خبر", "title": "كيف خفضنا تكلفة الملفات", "subtitle": "بسرعة"},
    "two words": {"tag": "News", "title": "Two words", "subtitle": "In milliseconds"},
}

Show = Callable[[Mapping[str, str]], Awaitable[str]]


async def _page_showing(
    pool: ChromiumPool,
) -> AsyncIterator[tuple[Show, Callable[[], Awaitable[bool]]]]:
    browser = pool._browser
    assert browser is not None
    context = await browser.new_context()
    page = await context.new_page()
    await page.set_viewport_size({"width": 1200, "height": 630})
    await page.set_content(_shell_document(image_shell()))

    async def show(data: Mapping[str, str]) -> str:
        fragment = render_fragment("og-card", data, width=1200, height=630)
        outcome = await page.evaluate("([h]) => window.__rk.render(h, 1200, 630, 2000)", [fragment])
        assert outcome["ok"], outcome
        return str(await page.evaluate("document.getElementById('rk-root').innerHTML"))

    async def same_card_node() -> bool:
        # Marks the card's element; True if it already carried the mark (it was kept).
        return bool(
            await page.evaluate(
                "() => { const c = document.querySelector('#rk-root .rk-og');"
                " const kept = c.__kept === true; c.__kept = true; return kept; }"
            )
        )

    try:
        yield show, same_card_node
    finally:
        await context.close()


@pytest.fixture
async def warm(pool: ChromiumPool) -> AsyncIterator[tuple[Show, Callable[[], Awaitable[bool]]]]:
    async for pair in _page_showing(pool):
        yield pair


@pytest.fixture
async def fresh(pool: ChromiumPool) -> AsyncIterator[Show]:
    async for show, _ in _page_showing(pool):
        yield show


@pytest.mark.parametrize("before", sorted(CARDS))
@pytest.mark.parametrize("after", sorted(CARDS))
async def test_a_card_after_one_of_the_same_shape_keeps_its_nodes_and_has_a_fresh_pages_dom(
    warm: tuple[Show, Callable[[], Awaitable[bool]]], fresh: Show, before: str, after: str
) -> None:
    show, same_card_node = warm
    await show(CARDS[before])
    assert not await same_card_node()
    dom = await show(CARDS[after])
    assert await same_card_node()  # patched in place, not rebuilt
    # The fitted font sizes and clamps are inline styles: equal DOMs mean equal fitting.
    assert dom == await fresh(CARDS[after])


async def test_a_card_of_another_shape_is_built_anew(
    warm: tuple[Show, Callable[[], Awaitable[bool]]], fresh: Show
) -> None:
    show, same_card_node = warm
    await show(CARDS["plain"])
    assert not await same_card_node()
    without_tag = {"title": "No tag here", "subtitle": "In milliseconds"}
    dom = await show(without_tag)
    assert not await same_card_node()
    assert dom == await fresh(without_tag)


async def test_a_patched_card_has_the_pixels_of_the_same_card_drawn_first() -> None:
    """The partial redraw (only the changed area is rastered again) draws what a whole one
    does, at 1x and 2x."""
    bodies = [
        {"template": "og-card", "scale": scale, "data": dict(CARDS[name])}
        for scale in (1, 2)
        for name in ("clamped", "plain", "two words")
    ]
    async with ChromiumPool(BrowserConfig(slots=1)) as pool:
        in_turn = [(await render_image(body, browser=pool)).content for body in bodies]
    for body, patched in zip(bodies, in_turn, strict=True):
        async with ChromiumPool(BrowserConfig(slots=1)) as pool:
            first = (await render_image(body, browser=pool)).content
        assert open_image(patched).tobytes() == open_image(first).tobytes(), body


async def test_a_logo_that_failed_is_asked_for_again_by_the_next_card(
    http_server: LocalServer,
) -> None:
    answers = iter(
        [(503, "text/plain", b"down"), (200, "image/png", png_bytes((64, 64), (0, 255, 0)))]
    )
    http_server.routes["/logo.png"] = lambda _handler: next(answers)
    body = {
        "template": "og-card",
        "scale": 1,
        "data": {"title": "Logo", "logo_url": http_server.url("/logo.png")},
    }
    async with ChromiumPool(BrowserConfig(slots=1, allow_private_network=True)) as pool:
        with pytest.raises(InvalidRequestError) as info:
            await render_image(body, browser=pool)
        assert [e.field for e in info.value.errors] == ["data.logo_url"]
        result = await render_image(body, browser=pool)
    assert http_server.hits == ["/logo.png", "/logo.png"]
    colors = open_image(result.content).convert("RGB").getcolors(maxcolors=1_000_000)
    assert sum(n for n, (r, g, b) in colors if g > 200 and r < 60 and b < 60) > 200


async def test_the_same_card_again_is_drawn_from_its_first_frame(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Patched with itself, a card still damages its frame (fitting its text lays it out
    again), so its screenshot comes with the first frame: a frame without damage would bring
    none, and the page would be redrawn (three frames more)."""
    frames: list[str] = []
    send = _cdp.DirectCdp.send

    async def counting(
        self: _cdp.DirectCdp, method: str, params: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        if method == "HeadlessExperimental.beginFrame":
            frames.append(method)
        return await send(self, method, params)

    body = {"template": "og-card", "scale": 1, "data": dict(CARDS["plain"])}
    async with ChromiumPool(BrowserConfig(slots=1)) as pool:
        first = await render_image(body, browser=pool)
        monkeypatch.setattr(_cdp.DirectCdp, "send", counting)
        again = await render_image(body, browser=pool)
    assert frames == ["HeadlessExperimental.beginFrame"]
    assert again.content == first.content
