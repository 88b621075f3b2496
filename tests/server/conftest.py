from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar.testing import AsyncTestClient

from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.settings import Settings

ADMIN = "admin-token-for-tests-0123456789"


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def make_settings(data_dir: Path) -> Callable[..., Settings]:
    def make(**overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "data_dir": data_dir,
            "admin_token": ADMIN,
            "allow_private_urls": True,
            "secret": "test-secret-that-is-long-enough",
        }
        values.update(overrides)
        return Settings(**values)

    return make


@pytest.fixture
def fake_browser() -> FakeBrowser:
    return FakeBrowser()


@pytest.fixture
def mailer() -> MemoryMailer:
    return MemoryMailer()


@pytest.fixture
async def client(
    make_settings: Callable[..., Settings], fake_browser: FakeBrowser, mailer: MemoryMailer
) -> AsyncIterator[AsyncTestClient]:
    app = create_app(make_settings(), browser=fake_browser, mailer=mailer)
    async with AsyncTestClient(app) as test_client:
        yield test_client


async def issue_key(
    client: AsyncTestClient | httpx.AsyncClient, plan: str = "starter", email: str = "a@example.com"
) -> str:
    headers = {"Authorization": f"Bearer {ADMIN}"} if plan != "starter" else {}
    response = await client.post(
        "/api/keys/generate", json={"email": email, "plan": plan}, headers=headers
    )
    assert response.status_code == 200, response.text
    return response.json()["key"]
