"""The OpenAI-compatible and Anthropic arbiters over httpx.MockTransport: the exact requests,
and every failure ending in the rules' answer with a warning, the key never shown."""

from __future__ import annotations

import json
import logging

import httpx
import pytest

from renderkit.parsing import AnthropicArbiter, LocalExtractor, OpenAIArbiter, Usage, parse
from renderkit.parsing._models import ParseRequest, ParseResult
from renderkit.parsing.arbiter import NAME_FIELDS, Arbiter, Question, prompt
from renderkit.parsing.arbiter.base import SYSTEM_PROMPT

from .._sleeps import Sleeps
from ._arbiter_docs import UNSURE, UNSURE_CANDIDATES, UNSURE_LINES

pytestmark = pytest.mark.anyio

KEY = "sk-arbiter-secret-4242"
LOCAL = "http://127.0.0.1:8080/v1"
LOGGER = "renderkit.parsing.arbiter"


class Server:
    """A scripted provider: answers in turn (the last one repeats), recording each request."""

    def __init__(self, *answers: httpx.Response | type[httpx.TransportError]) -> None:
        self.answers = answers
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers[min(len(self.requests), len(self.answers)) - 1]
        if isinstance(answer, httpx.Response):
            return answer
        raise answer("boom", request=request)

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.MockTransport(self))


def _chat(
    content: str | None, usage: tuple[int, int] = (231, 1), **message: object
) -> httpx.Response:
    body = {
        "choices": [{"message": {"role": "assistant", "content": content, **message}}],
        "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1]},
    }
    return httpx.Response(200, json=body)


def _openai(server: Server, sleeps: Sleeps | None = None, **options: object) -> OpenAIArbiter:
    return OpenAIArbiter(
        api_key=KEY,
        model="qwen2.5-1.5b-instruct",
        base_url=LOCAL,
        client=server.client(),
        sleep=sleeps or Sleeps(),
        **options,  # type: ignore[arg-type]
    )


def _anthropic(server: Server, sleeps: Sleeps | None = None) -> AnthropicArbiter:
    return AnthropicArbiter(
        api_key=KEY, model="claude-haiku-test", client=server.client(), sleep=sleeps or Sleeps()
    )


async def _parse(arbiter: Arbiter) -> ParseResult:
    request = ParseRequest.from_bytes(UNSURE, "application/pdf")
    return await parse(request, extractor=LocalExtractor(arbiter=arbiter))


def _question() -> Question:
    return Question(
        field="company",
        description=NAME_FIELDS["company"][0],
        context="\n".join(UNSURE_LINES),
        candidates=UNSURE_CANDIDATES,
    )


def _kept(result: ParseResult) -> bool:
    return result.data["company"] == UNSURE_CANDIDATES[0]


def _no_key(result: ParseResult, caplog: pytest.LogCaptureFixture) -> None:
    assert KEY not in " ".join(result.warnings)
    assert KEY not in caplog.text


# --- the requests ---


async def test_the_openai_arbiter_sends_a_tiny_constrained_chat_completion() -> None:
    server = Server(_chat("2"))
    result = await _parse(_openai(server))
    assert result.data["company"] == UNSURE_CANDIDATES[1]
    assert result.usage == Usage(input_tokens=231, output_tokens=1)
    (sent,) = server.requests
    assert str(sent.url) == f"{LOCAL}/chat/completions"
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert json.loads(sent.content) == {
        "model": "qwen2.5-1.5b-instruct",
        "messages": [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": prompt(_question())},
        ],
        "max_tokens": 3,
        "temperature": 0,
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "choice", "schema": {"type": "integer", "enum": [0, 1, 2]}},
        },
    }
    user = json.loads(sent.content)["messages"][1]["content"]
    assert "Candidates:\n1. Harbourline Studio\n2. Quillmore Paper Supplies\n" in user
    assert (
        "Top of the document:\n<<<\nHarbourline Studio\nQuillmore Paper Supplies\nINVOICE" in user
    )


async def test_without_constraint_no_response_format_is_sent_for_hosted_apis() -> None:
    server = Server(_chat("1"))
    await _parse(_openai(server, constrained=False))
    assert "response_format" not in json.loads(server.requests[0].content)


async def test_the_anthropic_arbiter_sends_a_messages_call_and_reads_the_number() -> None:
    answer = {
        "content": [{"type": "text", "text": "2"}],
        "usage": {"input_tokens": 260, "output_tokens": 2},
    }
    server = Server(httpx.Response(200, json=answer))
    result = await _parse(_anthropic(server))
    assert result.data["company"] == UNSURE_CANDIDATES[1]
    assert result.usage == Usage(input_tokens=260, output_tokens=2)
    (sent,) = server.requests
    assert str(sent.url) == "https://api.anthropic.com/v1/messages"
    assert sent.headers["x-api-key"] == KEY
    assert sent.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in sent.headers
    assert json.loads(sent.content) == {
        "model": "claude-haiku-test",
        "max_tokens": 3,
        "temperature": 0,
        "system": SYSTEM_PROMPT,
        "messages": [{"role": "user", "content": prompt(_question())}],
    }


# --- the answers ---


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("0", "none of them"),
        ("none", "none of them"),
        ("5", "'5'"),
        ("Quillmore Paper Supplies", "'Quillmore Paper '"),
        ("", "''"),
        (None, "''"),
    ],
)
async def test_an_openai_answer_that_is_not_an_offered_number_keeps_the_rules_choice(
    content: str | None, said: str
) -> None:
    result = await _parse(_openai(Server(_chat(content))))
    assert _kept(result)
    assert f"company: the arbiter answered {said} for 2 candidates; the rules' choice stays" in (
        result.warnings
    )
    assert result.usage == Usage(input_tokens=231, output_tokens=1)  # the tokens were spent


async def test_an_anthropic_refusal_without_text_keeps_the_rules_choice() -> None:
    answer = {
        "content": [],
        "stop_reason": "refusal",
        "usage": {"input_tokens": 9, "output_tokens": 0},
    }
    result = await _parse(_anthropic(Server(httpx.Response(200, json=answer))))
    assert _kept(result)
    assert any("the arbiter answered ''" in w for w in result.warnings)


async def test_an_openai_refusal_keeps_the_rules_choice() -> None:
    result = await _parse(_openai(Server(_chat(None, refusal="I can't help with that."))))
    assert _kept(result)
    assert any("the arbiter failed (the model refused to answer)" in w for w in result.warnings)


# --- the failures ---


@pytest.mark.parametrize("status", [401, 403])
async def test_a_rejected_key_is_logged_once_never_retried_and_never_shown(
    status: int, caplog: pytest.LogCaptureFixture
) -> None:
    server = Server(httpx.Response(status, json={"error": {"type": "authentication_error"}}))
    sleeps = Sleeps()
    arbiter = _openai(server, sleeps)
    with caplog.at_level(logging.ERROR, logger=LOGGER):
        first = await _parse(arbiter)
        second = await _parse(arbiter)
    assert _kept(first) and _kept(second)
    assert len(server.requests) == 2  # one per document: a 401 is not retried
    assert sleeps.delays == []
    rejections = [r for r in caplog.records if r.name == LOGGER]
    assert len(rejections) == 1
    assert f"HTTP {status}" in rejections[0].getMessage()
    assert f"company: the arbiter failed (openai rejected the API key (HTTP {status}))" in (
        " ".join(first.warnings)
    )
    _no_key(first, caplog)


async def test_a_rate_limit_with_a_short_retry_after_is_waited_for_then_answered() -> None:
    server = Server(httpx.Response(429, headers={"retry-after": "1"}), _chat("2"))
    sleeps = Sleeps()
    result = await _parse(_openai(server, sleeps))
    assert result.data["company"] == UNSURE_CANDIDATES[1]
    assert len(server.requests) == 2
    assert sleeps.delays == [1.0]


async def test_a_rate_limit_asking_for_longer_than_the_arbiter_waits_keeps_the_rules_choice(
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = Server(httpx.Response(429, headers={"retry-after": "120"}), _chat("2"))
    sleeps = Sleeps()
    result = await _parse(_openai(server, sleeps))
    assert _kept(result)
    assert len(server.requests) == 1
    assert sleeps.delays == []
    assert any("rate-limited (HTTP 429)" in w for w in result.warnings)
    _no_key(result, caplog)


async def test_server_errors_are_retried_a_bounded_number_of_times() -> None:
    server = Server(httpx.Response(503))
    sleeps = Sleeps()
    result = await _parse(_anthropic(server, sleeps))
    assert _kept(result)
    assert len(server.requests) == 3
    assert len(sleeps.delays) == 2
    assert all(0 < d <= 2.0 for d in sleeps.delays)
    assert any("HTTP 503) after 3 attempts" in w for w in result.warnings)


async def test_a_server_error_then_an_answer_uses_the_answer() -> None:
    server = Server(httpx.Response(500), _chat("2"))
    result = await _parse(_openai(server))
    assert result.data["company"] == UNSURE_CANDIDATES[1]


@pytest.mark.parametrize("error", [httpx.ReadTimeout, httpx.ConnectError])
async def test_a_timed_out_or_unreachable_server_keeps_the_rules_choice(
    error: type[httpx.TransportError], caplog: pytest.LogCaptureFixture
) -> None:
    server = Server(error)
    result = await _parse(_openai(server))
    assert _kept(result)
    assert len(server.requests) == 3
    assert any(f"could not be reached ({error.__name__})" in w for w in result.warnings)
    _no_key(result, caplog)


async def test_a_body_that_is_not_json_keeps_the_rules_choice() -> None:
    server = Server(httpx.Response(200, content=b"<html>proxy error</html>"))
    result = await _parse(_openai(server))
    assert _kept(result)
    assert any("answered with a body that is not JSON" in w for w in result.warnings)


async def test_json_without_a_message_keeps_the_rules_choice() -> None:
    result = await _parse(_openai(Server(httpx.Response(200, json={"choices": []}))))
    assert _kept(result)
    assert any("openai's answer has no message" in w for w in result.warnings)


async def test_the_key_is_never_in_a_repr() -> None:
    arbiter = _openai(Server(_chat("1")))
    assert KEY not in repr(arbiter)
    assert repr(arbiter) == f"OpenAIArbiter(model='qwen2.5-1.5b-instruct', base_url='{LOCAL}')"


@pytest.mark.parametrize(
    ("reported", "counted"), [(12.0, 12), ("12", 12), ("many", 0), (None, 0), (-3, 0)]
)
async def test_token_counts_are_read_leniently_and_never_break_a_parse(
    reported: object, counted: int
) -> None:
    answer = {
        "choices": [{"message": {"role": "assistant", "content": "2"}}],
        "usage": {"prompt_tokens": reported, "completion_tokens": 1},
    }
    result = await _parse(_openai(Server(httpx.Response(200, json=answer))))
    assert result.data["company"] == UNSURE_CANDIDATES[1]
    assert result.usage == Usage(input_tokens=counted, output_tokens=1)
