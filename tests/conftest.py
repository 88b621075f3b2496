from __future__ import annotations

import io
import os
import shutil
from collections.abc import AsyncIterator, Iterator

import pytest
from PIL import Image

from renderkit.browser import DEFAULT_CHROMIUM, BrowserConfig, ChromiumPool

from ._server import LocalServer, serve

CHROMIUM = DEFAULT_CHROMIUM


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    # Playwright's async API runs on asyncio only.
    return "asyncio"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if shutil.which(CHROMIUM):
        return
    if os.environ.get("RENDERKIT_REQUIRE_BROWSER"):
        return  # CI: let browser tests fail loudly rather than skip
    skip = pytest.mark.skip(reason=f"{CHROMIUM} not installed")
    for item in items:
        if "browser" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
async def pool(anyio_backend: str) -> AsyncIterator[ChromiumPool]:
    """A warm pool shared by the browser tests; private addresses allowed for fixtures."""
    async with ChromiumPool(
        BrowserConfig(slots=2, allow_private_network=True, render_timeout=15)
    ) as browser:
        yield browser


@pytest.fixture
def http_server() -> Iterator[LocalServer]:
    with serve() as server:
        yield server


def png_bytes(size: tuple[int, int] = (64, 32), color: tuple[int, int, int] = (255, 0, 0)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, "PNG")
    return out.getvalue()


def open_image(content: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(content))
    image.load()
    return image
