"""The parse arbiter's server settings: off by default, built from RENDERKIT_PARSE_ARBITER_*,
misconfiguration named at startup, and its answer reaching the HTTP result."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from litestar.testing import AsyncTestClient

from renderkit import ConfigurationError
from renderkit.parsing import AnthropicArbiter, LocalExtractor, OpenAIArbiter
from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.services import _extractor
from renderkit_server.settings import SECRET_FIELDS, Settings

from ..parsing._arbiter_docs import UNSURE, UNSURE_CANDIDATES
from .conftest import issue_key


def test_the_arbiter_is_off_by_default(make_settings: Callable[..., Settings]) -> None:
    extractor = _extractor(make_settings())
    assert isinstance(extractor, LocalExtractor)
    assert extractor.arbiter is None


def test_a_local_openai_compatible_arbiter_needs_no_key(
    make_settings: Callable[..., Settings],
) -> None:
    extractor = _extractor(
        make_settings(
            parse_arbiter="openai",
            parse_arbiter_model="qwen2.5:1.5b-instruct",
            parse_arbiter_base_url="http://127.0.0.1:11434/v1",
            parse_arbiter_timeout=3.0,
            parse_arbiter_threshold=0.7,
        )
    )
    assert isinstance(extractor, LocalExtractor)
    arbiter = extractor.arbiter
    assert isinstance(arbiter, OpenAIArbiter)
    assert arbiter.base_url == "http://127.0.0.1:11434/v1"
    assert arbiter.constrained is True
    assert arbiter.timeout == 3.0
    assert (extractor.arbiter_timeout, extractor.arbiter_threshold) == (3.0, 0.7)


def test_the_arbiter_settings_come_from_the_environment_and_the_key_stays_secret() -> None:
    settings = Settings.from_env(
        {
            "RENDERKIT_PARSE_ARBITER": "anthropic",
            "RENDERKIT_PARSE_ARBITER_MODEL": "claude-haiku-test",
            "RENDERKIT_PARSE_ARBITER_API_KEY": "sk-ant-arbiter-secret",
            "RENDERKIT_PARSE_ARBITER_TIMEOUT": "4",
            "RENDERKIT_PARSE_ARBITER_THRESHOLD": "0.6",
            "RENDERKIT_PARSE_ARBITER_CONSTRAINED": "false",
        }
    )
    assert settings.parse_arbiter == "anthropic"
    assert (settings.parse_arbiter_timeout, settings.parse_arbiter_threshold) == (4.0, 0.6)
    assert settings.parse_arbiter_constrained is False
    assert "sk-ant-arbiter-secret" not in repr(settings)
    assert "parse_arbiter_api_key" in SECRET_FIELDS
    extractor = _extractor(settings)
    assert isinstance(extractor, LocalExtractor)
    assert isinstance(extractor.arbiter, AnthropicArbiter)
    assert "sk-ant-arbiter-secret" not in repr(extractor.arbiter)
    assert Settings.from_env({"RENDERKIT_PARSE_ARBITER": "off"}).parse_arbiter is None


@pytest.mark.parametrize(
    ("overrides", "named"),
    [
        ({"parse_arbiter": "openai"}, "RENDERKIT_PARSE_ARBITER_MODEL"),
        (
            {"parse_arbiter": "openai", "parse_arbiter_model": "gpt-x"},
            "RENDERKIT_PARSE_ARBITER_API_KEY",
        ),
        (
            {"parse_arbiter": "anthropic", "parse_arbiter_model": "claude-x"},
            "RENDERKIT_PARSE_ARBITER_API_KEY",
        ),
        (
            {
                "parse_arbiter": "openai",
                "parse_arbiter_model": "m",
                "parse_arbiter_base_url": "http://127.0.0.1:8080/v1",
                "parse_arbiter_timeout": 30.0,
                "parse_timeout": 30.0,
            },
            "RENDERKIT_PARSE_ARBITER_TIMEOUT",
        ),
        (
            {
                "parse_arbiter": "openai",
                "parse_arbiter_model": "m",
                "parse_arbiter_base_url": "http://127.0.0.1:8080/v1",
                "parse_extractor": "openai",
                "llm_model": "m",
                "llm_base_url": "http://127.0.0.1:8080/v1",
            },
            "RENDERKIT_PARSE_ARBITER",
        ),
    ],
)
def test_an_incomplete_arbiter_configuration_names_the_setting(
    make_settings: Callable[..., Settings], overrides: dict[str, Any], named: str
) -> None:
    with pytest.raises(ConfigurationError) as raised:
        _extractor(make_settings(**overrides))
    assert named in str(raised.value)


@pytest.mark.parametrize(
    ("variable", "value", "named"),
    [
        ("RENDERKIT_PARSE_ARBITER", "llama", "parse_arbiter"),
        ("RENDERKIT_PARSE_ARBITER_THRESHOLD", "1.5", "parse_arbiter_threshold"),
        ("RENDERKIT_PARSE_ARBITER_TIMEOUT", "0", "parse_arbiter_timeout"),
        ("RENDERKIT_PARSE_ARBITER_TIMEOUT", "soon", "RENDERKIT_PARSE_ARBITER_TIMEOUT"),
    ],
)
def test_an_invalid_arbiter_setting_is_refused_naming_it(
    variable: str, value: str, named: str
) -> None:
    with pytest.raises(ConfigurationError) as raised:
        Settings.from_env({variable: value})
    assert named in str(raised.value)


@pytest.mark.anyio
async def test_the_arbiters_choice_and_tokens_reach_the_parse_answer(
    make_settings: Callable[..., Settings],
) -> None:
    requests: list[httpx.Request] = []

    def model(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(
            200,
            json={
                "choices": [{"message": {"role": "assistant", "content": "2"}}],
                "usage": {"prompt_tokens": 233, "completion_tokens": 1},
            },
        )

    arbiter = OpenAIArbiter(
        api_key="none",
        model="qwen2.5-1.5b-instruct",
        base_url="http://127.0.0.1:8080/v1",
        client=httpx.AsyncClient(transport=httpx.MockTransport(model)),
    )
    app = create_app(
        make_settings(),
        browser=FakeBrowser(),
        mailer=MemoryMailer(),
        extractor=LocalExtractor(arbiter=arbiter),
    )
    body = {"file": base64.b64encode(UNSURE).decode(), "mimeType": "application/pdf"}
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        response = await client.post("/api/parse", json=body, headers={"X-SVC-Key": key})
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["data"]["company"] == UNSURE_CANDIDATES[1]
    assert answer["usage"] == {"input_tokens": 233, "output_tokens": 1}
    assert "company: chosen by the arbiter (openai), candidate 2 of 2" in answer["warnings"]
    (sent,) = requests
    assert json.loads(sent.content)["max_tokens"] == 3
