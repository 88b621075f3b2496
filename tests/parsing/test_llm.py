from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import pytest

from renderkit import ConfigurationError, ProviderError, ProviderUnavailableError
from renderkit.parsing import AnthropicExtractor, OpenAIExtractor, Usage
from renderkit.parsing._models import ParseRequest
from renderkit.parsing.pipeline import parse

from ._documents import text_pdf

PDF = text_pdf([["ACME TRADING LTD", "INVOICE", "Date: 3 March 2024", "Total due: 24.00"]])
SCHEMA = {
    "type": "object",
    "properties": {"vendor": {"type": "string"}, "total": {"type": "number"}},
}
KEY = "sk-test-secret-123"


class Recorder:
    def __init__(self, *answers: httpx.Response) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []
        self.sleeps: list[float] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.answers.pop(0)

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)


def _openai(recorder: Recorder, **options: object) -> OpenAIExtractor:
    client = httpx.AsyncClient(transport=httpx.MockTransport(recorder))
    return OpenAIExtractor(
        api_key=KEY,
        model="gpt-test",
        base_url="https://llm.example/v1",
        client=client,
        sleep=recorder.sleep,
        **options,
    )


def _anthropic(recorder: Recorder) -> AnthropicExtractor:
    client = httpx.AsyncClient(transport=httpx.MockTransport(recorder))
    return AnthropicExtractor(api_key=KEY, model="claude-test", client=client, sleep=recorder.sleep)


def _chat(content: str, usage: tuple[int, int] = (812, 34)) -> httpx.Response:
    body = {
        "choices": [{"message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1]},
    }
    return httpx.Response(200, json=body)


ANSWER = json.dumps(
    {"document_type": "invoice", "data": {"vendor": "ACME TRADING LTD", "total": 24.0}}
)


@pytest.mark.anyio
async def test_openai_extractor_sends_the_text_and_a_json_schema_response_format() -> None:
    recorder = Recorder(_chat(ANSWER))
    result = await parse(
        ParseRequest.from_bytes(PDF, "application/pdf", schema=SCHEMA, hints="UK"),
        extractor=_openai(recorder),
    )
    (request,) = recorder.requests
    assert request.method == "POST"
    assert str(request.url) == "https://llm.example/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    body = json.loads(request.content)
    assert body["model"] == "gpt-test"
    assert body["temperature"] == 0
    assert body["response_format"]["type"] == "json_schema"
    answer_schema = body["response_format"]["json_schema"]["schema"]
    assert answer_schema["properties"]["data"] == SCHEMA
    assert answer_schema["required"] == ["document_type", "data"]
    system, user = body["messages"]
    assert system["role"] == "system"
    assert "ACME TRADING LTD" in user["content"] and "Hints from the user: UK" in user["content"]
    assert result.data == {"vendor": "ACME TRADING LTD", "total": 24.0}
    assert result.document_type == "invoice"
    assert result.usage == Usage(input_tokens=812, output_tokens=34)
    assert result.extractor == "openai"
    assert result.confidence == 1.0


@pytest.mark.anyio
async def test_openai_extractor_can_send_page_images_to_vision_models() -> None:
    recorder = Recorder(_chat(ANSWER))
    await parse(
        ParseRequest.from_bytes(PDF, "application/pdf", schema=SCHEMA),
        extractor=_openai(recorder, send_images=True),
    )
    content = json.loads(recorder.requests[0].content)["messages"][1]["content"]
    assert content[0]["type"] == "text"
    assert content[1]["type"] == "image_url"
    assert content[1]["image_url"]["url"].startswith("data:image/png;base64,")


@pytest.mark.anyio
async def test_a_rejected_key_is_a_provider_error_that_does_not_leak_the_key() -> None:
    recorder = Recorder(
        httpx.Response(
            401, json={"error": {"type": "invalid_api_key", "message": f"bad key {KEY}"}}
        )
    )
    with pytest.raises(ProviderError) as exc:
        await parse(ParseRequest.from_bytes(PDF, "application/pdf"), extractor=_openai(recorder))
    assert type(exc.value) is ProviderError
    assert exc.value.status == 401
    assert exc.value.provider == "openai"
    assert KEY not in str(exc.value)
    assert KEY not in repr(_openai(recorder))


@pytest.mark.anyio
async def test_rate_limits_and_server_errors_are_retried_with_the_injected_sleep() -> None:
    recorder = Recorder(
        httpx.Response(429, headers={"retry-after": "3"}),
        httpx.Response(503),
        _chat(ANSWER),
    )
    result = await parse(
        ParseRequest.from_bytes(PDF, "application/pdf", schema=SCHEMA), extractor=_openai(recorder)
    )
    assert len(recorder.requests) == 3
    assert recorder.sleeps[0] == 3.0
    assert len(recorder.sleeps) == 2
    assert result.data["total"] == 24.0


@pytest.mark.anyio
async def test_persistent_server_errors_end_in_provider_unavailable_after_bounded_retries() -> None:
    recorder = Recorder(*(httpx.Response(500) for _ in range(3)))
    with pytest.raises(ProviderUnavailableError) as exc:
        await parse(
            ParseRequest.from_bytes(PDF, "application/pdf"),
            extractor=_openai(recorder, max_retries=2),
        )
    assert exc.value.status == 500
    assert len(recorder.requests) == 3
    assert len(recorder.sleeps) == 2


@pytest.mark.anyio
async def test_network_errors_are_retried_then_reported_as_unavailable() -> None:
    def fail(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    sleeps: list[float] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    extractor = OpenAIExtractor(
        api_key=KEY,
        model="m",
        client=httpx.AsyncClient(transport=httpx.MockTransport(fail)),
        sleep=sleep,
        max_retries=1,
    )
    with pytest.raises(ProviderUnavailableError):
        await parse(ParseRequest.from_bytes(PDF, "application/pdf"), extractor=extractor)
    assert len(sleeps) == 1


@pytest.mark.anyio
async def test_a_timed_out_request_is_retried_unlike_for_speech() -> None:
    calls: list[httpx.Request] = []

    def slow_then_ok(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        if len(calls) == 1:
            raise httpx.ReadTimeout("slow", request=request)
        return _chat(ANSWER)

    recorder = Recorder()
    extractor = OpenAIExtractor(
        api_key=KEY,
        model="m",
        client=httpx.AsyncClient(transport=httpx.MockTransport(slow_then_ok)),
        sleep=recorder.sleep,
    )
    result = await parse(
        ParseRequest.from_bytes(PDF, "application/pdf", schema=SCHEMA), extractor=extractor
    )
    assert len(calls) == 2
    assert len(recorder.sleeps) == 1
    assert result.data["total"] == 24.0


@pytest.mark.anyio
async def test_an_answer_that_is_not_json_is_a_provider_error() -> None:
    recorder = Recorder(_chat("Sure! The total is 24."))
    with pytest.raises(ProviderError):
        await parse(ParseRequest.from_bytes(PDF, "application/pdf"), extractor=_openai(recorder))


@pytest.mark.anyio
async def test_model_output_that_breaks_the_schema_becomes_a_warning() -> None:
    answer = json.dumps(
        {"document_type": "invoice", "data": {"vendor": "ACME", "total": "twenty-four"}}
    )
    result = await parse(
        ParseRequest.from_bytes(PDF, "application/pdf", schema=SCHEMA),
        extractor=_openai(Recorder(_chat(answer))),
    )
    assert result.data["total"] == "twenty-four"
    assert any(w.startswith("total: does not match the schema") for w in result.warnings)
    assert result.confidence < 1.0


@pytest.mark.anyio
async def test_anthropic_extractor_forces_a_tool_call_and_reports_real_usage() -> None:
    body = {
        "content": [
            {
                "type": "tool_use",
                "id": "t1",
                "name": "record_extraction",
                "input": {"document_type": "invoice", "data": {"vendor": "ACME", "total": 24}},
            }
        ],
        "usage": {"input_tokens": 1500, "output_tokens": 40},
    }
    recorder = Recorder(httpx.Response(529), httpx.Response(200, json=body))
    result = await parse(
        ParseRequest.from_bytes(PDF, "application/pdf", schema=SCHEMA),
        extractor=_anthropic(recorder),
    )
    request = recorder.requests[-1]
    assert str(request.url) == "https://api.anthropic.com/v1/messages"
    assert request.headers["x-api-key"] == KEY
    assert request.headers["anthropic-version"] == "2023-06-01"
    sent = json.loads(request.content)
    assert sent["model"] == "claude-test"
    assert sent["tool_choice"] == {"type": "tool", "name": "record_extraction"}
    assert sent["tools"][0]["input_schema"]["properties"]["data"] == SCHEMA
    assert sent["messages"][0]["content"][-1]["type"] == "text"
    assert result.data == {"vendor": "ACME", "total": 24}
    assert result.usage == Usage(input_tokens=1500, output_tokens=40)
    assert len(recorder.sleeps) == 1


@pytest.mark.anyio
async def test_a_missing_field_in_the_model_answer_is_null_with_a_warning() -> None:
    answer = json.dumps({"document_type": "invoice", "data": {"vendor": "ACME"}})
    result = await parse(
        ParseRequest.from_bytes(PDF, "application/pdf", schema=SCHEMA),
        extractor=_openai(Recorder(_chat(answer))),
    )
    assert result.data == {"vendor": "ACME", "total": None}
    assert "total: not found in the document" in result.warnings


def test_remote_extractors_need_a_key_and_a_model() -> None:
    builders: list[Callable[[], object]] = [
        lambda: OpenAIExtractor(api_key="", model="m"),
        lambda: AnthropicExtractor(api_key="k", model=""),
    ]
    for build in builders:
        with pytest.raises(ConfigurationError):
            build()


@pytest.mark.anyio
async def test_aclose_closes_only_a_client_the_extractor_created() -> None:
    client = httpx.AsyncClient(transport=httpx.MockTransport(Recorder()))
    extractor = OpenAIExtractor(api_key=KEY, model="m", client=client)
    await extractor.aclose()
    assert not client.is_closed
    await client.aclose()
    own = OpenAIExtractor(api_key=KEY, model="m")
    inner = own.client
    await own.aclose()
    await own.aclose()
    assert inner.is_closed
