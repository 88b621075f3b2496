"""The browser's account and split are operator settings that reach the pool's configuration."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from litestar.testing import AsyncTestClient

from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.services import browser_config
from renderkit_server.settings import Settings

from .conftest import ADMIN


@pytest.mark.parametrize(
    ("value", "user"),
    [
        (None, "nobody"),
        ("renderkit-browser", "renderkit-browser"),
        ("65534", 65534),
        ("root", "root"),
    ],
)
def test_browser_user_setting_reaches_the_pool_config(value: str | None, user: str | int) -> None:
    environ = {} if value is None else {"RENDERKIT_BROWSER_USER": value}
    assert browser_config(Settings.from_env(environ)).user == user


@pytest.mark.parametrize(("value", "split"), [(None, True), ("false", False), ("true", True)])
def test_the_split_browser_setting_reaches_the_pool_config(value: str | None, split: bool) -> None:
    environ = {} if value is None else {"RENDERKIT_BROWSER_SPLIT": value}
    assert browser_config(Settings.from_env(environ)).split_browsers is split


@pytest.mark.parametrize(("value", "begin"), [(None, True), ("true", True), ("false", False)])
def test_the_begin_frame_setting_reaches_the_pool_config(value: str | None, begin: bool) -> None:
    environ = {} if value is None else {"RENDERKIT_BROWSER_BEGIN_FRAME": value}
    assert browser_config(Settings.from_env(environ)).begin_frame_capture is begin


class _IsolatedBrowser(FakeBrowser):
    sandboxed = True
    browser_user = "renderkit-browser"

    async def version(self) -> str:
        return "156.0"


@pytest.mark.anyio
async def test_diagnostic_reports_the_browser_account_and_sandbox(
    make_settings: Callable[..., Settings],
) -> None:
    app = create_app(make_settings(), browser=_IsolatedBrowser(), mailer=MemoryMailer())
    async with AsyncTestClient(app) as client:
        response = await client.get(
            "/api/health/diagnostic", headers={"Authorization": f"Bearer {ADMIN}"}
        )
    browser = response.json()["checks"]["browser"]
    assert (browser["sandboxed"], browser["user"]) == (True, "renderkit-browser")
