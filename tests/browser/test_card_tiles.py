"""A template browser rasters and draws a card in a few large tiles (issue #30)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from websockets.asyncio.client import connect

from renderkit import render_image
from renderkit.browser import BrowserConfig, ChromiumPool
from renderkit.browser._process import CARD_TILES

from ..conftest import open_image
from ._owners import command_line

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

#: The display compositor's trace event for one drawn quad (a tile, mostly).
DRAWN_QUAD = "SoftwareRenderer::DoDrawQuad"


def _flags(pid: int | None) -> list[str]:
    assert pid is not None
    return command_line(pid)


async def _quads_per_card(pool: ChromiumPool, endpoint: str, cards: int) -> float:
    """Quads the template browser's display compositor draws per 1x og-card, traced."""
    events: list[dict[str, Any]] = []
    async with connect(endpoint, max_size=None) as browser:
        done = asyncio.get_running_loop().create_future()

        async def read() -> None:
            async for raw in browser:
                message = json.loads(raw)
                if message.get("method") == "Tracing.dataCollected":
                    events.extend(message["params"]["value"])
                elif message.get("method") == "Tracing.tracingComplete":
                    done.set_result(None)

        reader = asyncio.create_task(read())
        config = {"traceConfig": {"includedCategories": ["viz"]}}
        await browser.send(json.dumps({"id": 1, "method": "Tracing.start", "params": config}))
        await asyncio.sleep(0.2)
        for n in range(cards):
            body = {"template": "og-card", "scale": 1, "data": {"title": f"Tiles {n}"}}
            result = await render_image(body, browser=pool)
            assert open_image(result.content).size == (1200, 630)
        await browser.send(json.dumps({"id": 2, "method": "Tracing.end"}))
        await asyncio.wait_for(done, 10)
        reader.cancel()
    return sum(e.get("name") == DRAWN_QUAD for e in events) / cards


async def test_template_browsers_draw_a_card_from_a_few_large_tiles_and_pages_keep_small_ones() -> (
    None
):
    async with ChromiumPool(BrowserConfig(slots=1)) as pool:
        await render_image({"template": "og-card", "data": {"title": "warm"}}, browser=pool)
        assert set(CARD_TILES) <= set(_flags(pool.browser_pid))
        assert not set(CARD_TILES) & set(_flags(pool.page_browser_pid))
        endpoint = pool._templates.lifecycle._endpoint
        assert endpoint is not None
        # 256 px squares would be 5 x 3 = 15 tiles for 1200x630 (measured: 16 quads a card).
        assert await _quads_per_card(pool, endpoint, cards=3) <= 4


async def test_a_pool_of_one_browser_keeps_chromiums_tiles_for_the_strangers_pages_it_shows() -> (
    None
):
    async with ChromiumPool(BrowserConfig(slots=1, split_browsers=False)) as pool:
        await render_image({"template": "og-card", "data": {"title": "warm"}}, browser=pool)
        assert not set(CARD_TILES) & set(_flags(pool.browser_pid))
