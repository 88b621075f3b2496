from __future__ import annotations

import pytest

from renderkit.browser import BrowserConfig
from renderkit.sync import Renderkit, render_image

from .conftest import open_image

pytestmark = pytest.mark.browser


def test_sync_facade_reuses_one_browser_for_several_renders() -> None:
    with Renderkit(browser=BrowserConfig(slots=1)) as rk:
        first = rk.render_image({"template": "og-card", "data": {"title": "one"}})
        second = rk.render_image({"template": "twitter-card", "scale": 1})
    assert open_image(first.content).size == (2400, 1260)
    assert open_image(second.content).size == (800, 418)


def test_one_shot_sync_render() -> None:
    result = render_image({"template": "announcement", "format": "jpeg", "scale": 1})
    assert open_image(result.content).size == (1200, 400)


def test_methods_outside_the_with_block_raise() -> None:
    with pytest.raises(RuntimeError):
        Renderkit().render_image({"template": "og-card"})
