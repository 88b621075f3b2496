"""Text-first results: how the reading tools (``read_url``, ``read_document``) answer.

An agent that reads a page or a document wants the text, not JSON around it. So one builder,
:func:`text_first_result`, shapes every such answer, called directly or fetched as a task
(``tasks/result``), at every revision:

1. the text itself (the body's text field: ``markdown``, or ``html``/``text`` for a page read
   in those formats);
2. the warnings, one per line, when there are any;
3. the rest of the body as compact JSON, without the text (it is block 1). From 2025-06-18
   the whole body is also the ``structuredContent``, so the bulky fields
   (:data:`BULKY_FIELDS`: ``blocks``, one entry per paragraph with its page and box) are left
   out of this JSON and only counted, under ``omitted``; an older client has no
   ``structuredContent``, so its JSON keeps them. The link's URL is the JSON's ``url``;
4. from 2025-06-18, a ``resource_link`` to the text as a file: the Markdown stored for the
   call (``read_document``), or the operation's own file (``read_url``).

The text is inline already, so no revision gets the file embedded a second time.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import attrs

from renderkit import structure
from renderkit.core.media import TEXT_MEDIA_TYPES
from renderkit_server.mcp.protocol import version_at_least
from renderkit_server.mcp.tools import TOOLS, McpTool, file_name, warnings_blocks
from renderkit_server.operations import OPERATIONS

__all__ = [
    "BULKY_FIELDS",
    "TextFile",
    "file_link",
    "job_tool",
    "text_field",
    "text_first_result",
]

#: Body fields too large to repeat in the JSON text block when ``structuredContent`` carries
#: them: a long document has thousands of blocks, many times the Markdown's own size.
BULKY_FIELDS = frozenset({"blocks"})


@attrs.frozen(kw_only=True)
class TextFile:
    """The text of a result as a file an agent can fetch.

    Attributes:
        url: where it can be fetched.
        media_type: its type (``text/markdown``), None when unknown.
        size: its size in bytes, None when unknown.
    """

    url: str
    media_type: str | None
    size: int | None


def text_field(tool: McpTool, operation_name: str, request: Mapping[str, Any]) -> str | None:
    """The body field a call of ``tool`` answers as text first, or None for a JSON result.

    ``tool``'s own :attr:`McpTool.reads_as`, else the text field of the operation that serves
    the request (a page read, or a screenshot asked as Markdown, answers its text).
    """
    if tool.reads_as is not None:
        return tool.reads_as
    operation = OPERATIONS[operation_name].serving(request)
    if operation.text_field is None:
        return None
    return operation.text_field(structure(request, operation.model))


def job_tool(kind: str, request: Mapping[str, Any]) -> McpTool | None:
    """The tool a job of ``kind`` was most likely submitted by: of the tools running that
    operation whose preset fields the request carries and whose hidden fields it does not,
    the one presetting the most (a task is a job, and a job records only its operation).

    A ``parse`` job asking ``output: markdown`` with no schema or hints is thus
    ``read_document``'s, even when ``parse_document`` submitted it: it reads the same.
    """
    fitting = [
        tool
        for tool in TOOLS.values()
        if tool.operation.name == kind
        and all(request.get(name) == value for name, value in tool.preset.items())
        and not tool.hidden & request.keys()
    ]
    return max(fitting, key=lambda tool: len(tool.preset), default=None)


def file_link(body: Mapping[str, Any], field: str) -> TextFile | None:
    """The operation's own file (the body's ``url`` and ``size_bytes``) as a :class:`TextFile`,
    its type the one of the text format ``field`` names (a job's result records no type)."""
    url = body.get("url")
    if not isinstance(url, str) or not url:
        return None
    size = body.get("size_bytes")
    return TextFile(
        url=url,
        media_type=TEXT_MEDIA_TYPES.get(field),
        size=size if isinstance(size, int) else None,
    )


def text_first_result(
    body: Mapping[str, Any], *, field: str, version: str, link: TextFile | None
) -> dict[str, Any]:
    """A ``tools/call`` result whose first block is the text of ``body[field]`` (see the
    module docstring for the blocks after it)."""
    structured = version_at_least(version, "2025-06-18")
    content: list[dict[str, Any]] = [
        {"type": "text", "text": str(body.get(field, ""))},
        *warnings_blocks(body),
    ]
    rest = {key: value for key, value in body.items() if key != field}
    if structured:
        omitted = {name: _count(rest.pop(name)) for name in sorted(BULKY_FIELDS & rest.keys())}
        if omitted:
            rest["omitted"] = omitted
    if link is not None:
        rest["url"] = link.url
    content.append(
        {"type": "text", "text": json.dumps(rest, ensure_ascii=False, separators=(",", ":"))}
    )
    if structured and link is not None:
        resource: dict[str, Any] = {
            "type": "resource_link",
            "uri": link.url,
            "name": file_name(link.url, link.media_type or ""),
        }
        if link.media_type is not None:
            resource["mimeType"] = link.media_type
        if link.size is not None:
            resource["size"] = link.size
        content.append(resource)
    result: dict[str, Any] = {"content": content, "isError": False}
    if structured:
        result["structuredContent"] = dict(body)
    return result


def _count(value: Any) -> int:
    return len(value) if isinstance(value, (list, tuple, dict, str)) else 1
