"""Extractors backed by a remote language model, over httpx.

- :class:`OpenAIExtractor`: any OpenAI-compatible chat-completions endpoint (OpenAI, Azure
  OpenAI's compatible route, vLLM, Ollama, LM Studio...), with ``response_format`` set to a
  JSON Schema.
- :class:`AnthropicExtractor`: Anthropic's Messages API, forcing one tool call whose input
  schema is the extraction schema.

Both send the document's text (and, with ``send_images=True``, page images for vision
models), report the provider's own token counts as ``usage``, retry 429 and 5xx answers and
network errors a bounded number of times (honouring ``Retry-After``, with an injectable
``sleep`` for tests), and never put the API key in an error message.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import Any

import anyio
import httpx

from renderkit.core.errors import ProviderError
from renderkit.core.media import MEDIA_TYPES
from renderkit.core.retry import Sleep
from renderkit.parsing._protocol import DOCUMENT_TYPES, Document, Extraction, Usage
from renderkit.parsing.readers.document import render_page_images
from renderkit.parsing.remote import AnthropicMessages, OpenAIChat, RemoteModel

__all__ = ["AnthropicExtractor", "OpenAIExtractor"]

_SYSTEM = (
    "You extract structured data from documents. Answer only with the requested JSON. "
    "Use null for a field the document does not contain; never invent values. Dates are "
    "ISO 8601 (YYYY-MM-DD); amounts are numbers without currency symbols. document_type is "
    "one of: " + ", ".join(DOCUMENT_TYPES) + "."
)
_GENERIC_FIELDS = (
    "Without a schema, extract every structured field you can identify, using snake_case "
    "keys: parties/seller/buyer, addresses, dates, document numbers, amounts, currency, "
    "totals, subtotal, tax, e-mails, phones and line_items (a list of objects)."
)


def _answer_schema(schema: Mapping[str, Any] | None) -> dict[str, Any]:
    data: dict[str, Any] = dict(schema) if schema is not None else {"type": "object"}
    data.pop("$schema", None)
    return {
        "type": "object",
        "properties": {
            "document_type": {"type": "string", "enum": list(DOCUMENT_TYPES)},
            "data": data,
        },
        "required": ["document_type", "data"],
    }


class _RemoteExtractor(RemoteModel):
    name = "remote"

    def __init__(
        self,
        *,
        api_key: str,
        model: str,
        base_url: str | None = None,
        client: httpx.AsyncClient | None = None,
        timeout: float = 120.0,
        max_retries: int = 2,
        retry_backoff: float = 1.0,
        send_images: bool = False,
        max_images: int = 5,
        max_text_chars: int = 100_000,
        max_tokens: int = 4096,
        sleep: Sleep = anyio.sleep,
    ) -> None:
        super().__init__(
            api_key=api_key,
            model=model,
            base_url=base_url,
            client=client,
            timeout=timeout,
            max_retries=max_retries,
            retry_backoff=retry_backoff,
            sleep=sleep,
        )
        self.send_images = send_images
        self.max_images = max_images
        self.max_text_chars = max_text_chars
        self.max_tokens = max_tokens

    def _prompt(
        self, document: Document, schema: Mapping[str, Any] | None, hints: str | None
    ) -> str:
        text = document.text
        if len(text) > self.max_text_chars:
            text = text[: self.max_text_chars] + "\n[... truncated]"
        parts = []
        if schema is None:
            parts.append(_GENERIC_FIELDS)
        else:
            parts.append("Fill exactly the properties of the data schema.")
        if hints:
            parts.append(f"Hints from the user: {hints}")
        parts.append(
            f"Document text ({len(document.pages)} pages, from OCR or the PDF text layer):"
        )
        parts.append(text)
        return "\n\n".join(parts)

    async def _images(self, document: Document) -> list[tuple[str, str]]:
        if not self.send_images:
            return []
        if document.mime_type != MEDIA_TYPES["pdf"]:
            return [(document.mime_type, base64.b64encode(document.content).decode("ascii"))]
        pngs = await render_page_images(document, max_pages=self.max_images)
        return [(MEDIA_TYPES["png"], base64.b64encode(p).decode("ascii")) for p in pngs]

    def _extraction(
        self,
        answer: Any,
        usage: Usage,
        document: Document,
        schema: Mapping[str, Any] | None,
        warnings: list[str],
    ) -> Extraction:
        if not isinstance(answer, Mapping):
            msg = f"{self.provider}'s answer is not a JSON object"
            raise ProviderError(msg, provider=self.provider)
        kind = answer.get("document_type")
        data = answer.get("data")
        if not isinstance(data, Mapping):
            warnings.append("the model did not wrap its answer in {document_type, data}")
            data = {k: v for k, v in answer.items() if k != "document_type"}
        if kind not in DOCUMENT_TYPES:
            if kind is not None:
                warnings.append(
                    f"document_type {str(kind)[:40]!r} is not a known type; using other"
                )
            kind = "other"
        data = dict(data)
        expected = tuple(schema["properties"]) if schema is not None else tuple(data)
        for name in expected:
            if data.get(name) is None:
                data.setdefault(name, None)
                warnings.append(f"{name}: not found in the document")
        quality = document.ocr_confidence or 1.0
        return Extraction(
            data=data,
            document_type=str(kind),
            field_confidence={k: quality for k, v in data.items() if v is not None},
            expected_fields=expected,
            warnings=tuple(warnings),
            usage=usage,
        )


def _loads(text: str, provider: str) -> Any:
    cleaned = text.strip()
    if cleaned.startswith("```"):
        cleaned = cleaned.strip("`").removeprefix("json").strip()
    try:
        return json.loads(cleaned)
    except ValueError:
        msg = f"{provider}'s answer is not valid JSON"
        raise ProviderError(msg, provider=provider) from None


class OpenAIExtractor(_RemoteExtractor, OpenAIChat):
    """An OpenAI-compatible chat-completions model (``POST {base_url}/chat/completions``).

    Args:
        api_key: sent as ``Authorization: Bearer``.
        model: the model name, e.g. ``gpt-4o-mini``.
        base_url: default ``https://api.openai.com/v1``.
        client: an httpx client to use (tests pass one with ``httpx.MockTransport``).
        max_retries: extra attempts after a 429, a 5xx or a network error.
        sleep: awaited between attempts (injectable for tests).
        send_images: also send page images (for vision models).
    """

    name = "openai"

    def request_body(
        self, prompt: str, schema: Mapping[str, Any] | None, images: list[tuple[str, str]]
    ) -> dict[str, Any]:
        """The JSON body sent to the endpoint."""
        content: Any = prompt
        if images:
            content = [{"type": "text", "text": prompt}] + [
                {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{data}"}}
                for mime, data in images
            ]
        return {
            "model": self.model,
            "messages": [
                {"role": "system", "content": _SYSTEM},
                {"role": "user", "content": content},
            ],
            "temperature": 0,
            "max_tokens": self.max_tokens,
            "response_format": {
                "type": "json_schema",
                "json_schema": {
                    "name": "extraction",
                    "schema": _answer_schema(schema),
                    "strict": False,
                },
            },
        }

    async def extract(
        self, document: Document, *, schema: Mapping[str, Any] | None, hints: str | None
    ) -> Extraction:
        """Ask the model; see :class:`~renderkit.parsing.Extractor`.

        Raises:
            ProviderError: a rejected key (401/403), another 4xx, or an answer that is not JSON.
            ProviderUnavailableError: 429/5xx or network errors after the retries.
        """
        body = self.request_body(
            self._prompt(document, schema, hints), schema, await self._images(document)
        )
        message, usage = await self.chat(body)
        warnings: list[str] = []
        if message.get("refusal"):
            msg = "the model refused to answer"
            raise ProviderError(msg, provider=self.provider)
        answer = _loads(message.get("content") or "", self.provider)
        return self._extraction(answer, usage, document, schema, warnings)


class AnthropicExtractor(_RemoteExtractor, AnthropicMessages):
    """Anthropic's Messages API (``POST {base_url}/v1/messages``) with one forced tool call.

    Args:
        api_key: sent as ``x-api-key``.
        model: e.g. ``claude-sonnet-4-5``.
        base_url: default ``https://api.anthropic.com``.
        client, max_retries, sleep, send_images: as for :class:`OpenAIExtractor`.
    """

    name = "anthropic"
    _TOOL = "record_extraction"

    def request_body(
        self, prompt: str, schema: Mapping[str, Any] | None, images: list[tuple[str, str]]
    ) -> dict[str, Any]:
        """The JSON body sent to the endpoint."""
        content: list[dict[str, Any]] = [
            {"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}}
            for mime, data in images
        ]
        content.append({"type": "text", "text": prompt})
        return {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "system": _SYSTEM,
            "messages": [{"role": "user", "content": content}],
            "tools": [
                {
                    "name": self._TOOL,
                    "description": "Record the document type and the extracted data.",
                    "input_schema": _answer_schema(schema),
                }
            ],
            "tool_choice": {"type": "tool", "name": self._TOOL},
        }

    async def extract(
        self, document: Document, *, schema: Mapping[str, Any] | None, hints: str | None
    ) -> Extraction:
        """Ask the model; see :class:`~renderkit.parsing.Extractor`.

        Raises:
            ProviderError: a rejected key (401/403), another 4xx, or an unusable answer.
            ProviderUnavailableError: 429/5xx/529 or network errors after the retries.
        """
        body = self.request_body(
            self._prompt(document, schema, hints), schema, await self._images(document)
        )
        blocks, usage = await self.messages(body)
        warnings: list[str] = []
        for block in blocks:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                return self._extraction(block.get("input"), usage, document, schema, warnings)
        texts = [
            b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text"
        ]
        if texts:
            warnings.append("the model answered in text instead of the tool call")
            return self._extraction(
                _loads("".join(texts), self.provider), usage, document, schema, warnings
            )
        msg = "anthropic's answer has no tool call"
        raise ProviderError(msg, provider=self.provider)
