"""The MCP tools: definitions generated from the operations, and their results.

Each tool is a production operation under an agent-facing name. Its ``inputSchema`` is the
JSON Schema of the operation's request model and its ``outputSchema`` the schema of the REST
success body: both come from the same code as the OpenAPI document, so there is no
hand-written copy to drift. Results are shaped for the revision the client negotiated: a
strict client validates content blocks, so nothing newer than its revision is sent.
"""

from __future__ import annotations

import base64
import functools
import json
from collections.abc import Mapping
from typing import Any

import attrs

from renderkit.core.errors import InvalidRequestError
from renderkit.core.schema import json_schema
from renderkit_server.mcp.previews import PREVIEW_MAX_SIDE, Preview
from renderkit_server.mcp.protocol import version_at_least
from renderkit_server.openapi import response_schema
from renderkit_server.operations import OPERATIONS, Execution, Operation

__all__ = [
    "INLINE_MODES",
    "TOOLS",
    "McpTool",
    "error_result",
    "file_name",
    "inline_mode",
    "success_result",
    "tool_definitions",
    "wants_preview",
    "warnings_blocks",
]

#: The revisions whose tools declare ``execution.taskSupport`` (see :mod:`.tasks`).
TASK_REVISIONS = frozenset({"2025-11-25"})

#: Files up to this size also travel inline (an image, audio or embedded resource block), so
#: an agent can look at a small image without fetching it; larger ones only as a link.
INLINE_LIMIT = 1_000_000

#: How an image result travels besides its link, chosen by the tool argument ``inline``:
#: a small preview by default, since a full-size card inlined costs an agent thousands of
#: tokens it rarely needs.
INLINE_MODES: tuple[str, ...] = ("preview", "full", "none")
_INLINE_ARGUMENT = "inline"
_INLINE_SCHEMA: dict[str, Any] = {
    "type": "string",
    "enum": list(INLINE_MODES),
    "default": "preview",
    "description": (
        "How a produced image comes back besides its link (the `url`, and a resource_link "
        f"block): `preview` (default) a JPEG of at most {PREVIEW_MAX_SIDE} px on its long "
        "side, a few tens of KB, enough to check layout and text; `full` the whole file "
        "(up to 1 MB; a large image costs thousands of tokens), `none` the link only. "
        "PDF and audio results are not affected."
    ),
}


@attrs.frozen(kw_only=True)
class McpTool:
    """An operation as an MCP tool.

    Attributes:
        name: the tool name agents call.
        operation: the production operation it runs (metered like the REST call).
        read_only: it changes nothing a caller could observe (parse stores no file).
        open_world: it may reach the outside world (web pages, remote logos and images).
        summary: what to use it for, prepended to the operation's description.
        cost: what a successful call uses of the API key's monthly quota.
        makes_images: its result may be an image, so it takes the ``inline`` argument.
        preset: request fields the tool sets itself (``read_document``: the Markdown
            output); they are left out of its input schema and refused as arguments.
        hidden: request fields the tool does not offer (left out of its input schema,
            refused as arguments), so an agent sees only what it needs.
        description: what it does, when the operation's own description (which names the
            fields the tool hides) would mislead.
        reads_as: the body field whose text is the result's first content block, instead
            of the JSON (``markdown``: the document itself); the tool's result also links
            to it stored as a file.
    """

    name: str
    operation: Operation
    read_only: bool
    open_world: bool
    summary: str
    cost: str
    makes_images: bool = False
    preset: Mapping[str, Any] = attrs.field(factory=dict)
    hidden: frozenset[str] = frozenset()
    reads_as: str | None = None
    description: str | None = None

    def input_schema(self) -> dict[str, Any]:
        """The request model's schema, plus ``inline`` for a tool that makes images."""
        schema: dict[str, Any] = portable_schema(json_schema(self.operation.model))
        left_out = self.hidden | set(self.preset)
        if left_out:
            properties = {k: v for k, v in schema["properties"].items() if k not in left_out}
            schema = {**schema, "properties": properties}
            if "required" in schema:
                schema["required"] = [k for k in schema["required"] if k not in left_out]
        if self.makes_images:
            properties = {**schema["properties"], _INLINE_ARGUMENT: _INLINE_SCHEMA}
            schema = {**schema, "properties": properties}
        return schema

    def definition(self, version: str) -> dict[str, Any]:
        """The ``tools/list`` entry for a client of ``version``."""
        op = self.operation
        tool: dict[str, Any] = {
            "name": self.name,
            "description": f"{self.summary} {self.description or op.description} "
            "Each successful call uses "
            f"{self.cost} of the API key's monthly quota; a failed call uses nothing.",
            "inputSchema": self.input_schema(),
        }
        if version_at_least(version, "2025-03-26"):
            tool["annotations"] = {
                "title": op.title,
                "readOnlyHint": self.read_only,
                "destructiveHint": False,
                # Each call produces (and bills) a new file: repeating it is not a no-op.
                "idempotentHint": self.read_only,
                "openWorldHint": self.open_world,
            }
        if version_at_least(version, "2025-06-18"):
            tool["title"] = op.title
            tool["outputSchema"] = portable_schema(response_schema(op.name))
        if version in TASK_REVISIONS:
            # Every tool may run as a task (a job): a client that asks gets a task id at once.
            tool["execution"] = {"taskSupport": "optional"}
        return tool


#: Keywords that constrain a value of one JSON type; the rest annotate the whole schema.
_TYPE_KEYWORDS: dict[str, frozenset[str]] = {
    "string": frozenset({"minLength", "maxLength", "pattern", "format", "enum"}),
    "integer": frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "enum"}),
    "number": frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "enum"}),
    "array": frozenset({"items", "minItems", "maxItems", "uniqueItems"}),
    "object": frozenset({"properties", "required", "additionalProperties"}),
}


def portable_schema(node: Any) -> Any:
    """The same schema, with nullable ``"type": [X, "null"]`` spelled as ``anyOf`` branches.

    Both mean the same in JSON Schema, but clients that map tool schemas onto a single-type
    dialect (Gemini's function declarations, for one) reject type arrays, and the MCP
    Inspector's ``--strict`` check flags them. Each branch takes the constraints of its type;
    everything else (description, default...) stays on the outer schema.
    """
    if isinstance(node, list):
        return [portable_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: portable_schema(value) for key, value in node.items()}
    types = node.get("type")
    if not (isinstance(types, list) and len(types) > 1):
        return node
    owned = set().union(*(_TYPE_KEYWORDS.get(kind, frozenset()) for kind in types))
    branches = []
    for kind in types:
        branch: dict[str, Any] = {"type": kind}
        for keyword in _TYPE_KEYWORDS.get(kind, frozenset()) & node.keys():
            value = node[keyword]
            branch[keyword] = [v for v in value if v is not None] if keyword == "enum" else value
        branches.append(branch)
    outer = {k: v for k, v in node.items() if k != "type" and k not in owned}
    return {"anyOf": branches, **outer}


TOOLS: dict[str, McpTool] = {
    tool.name: tool
    for tool in (
        McpTool(
            name="generate_image",
            makes_images=True,
            cost="one image",
            operation=OPERATIONS["image"],
            read_only=False,
            open_world=True,
            summary="Create a social or marketing image (Open Graph card, square post, "
            "Twitter card, banner) from a designed template or your own HTML.",
        ),
        McpTool(
            name="generate_pdf",
            cost="one PDF",
            operation=OPERATIONS["pdf-gen"],
            read_only=False,
            open_world=True,
            summary="Create a PDF document: an invoice, certificate, report or letter "
            "from a template, or any HTML.",
        ),
        McpTool(
            name="generate_audio",
            cost="one credit per character (and the audio minutes produced)",
            operation=OPERATIONS["audio"],
            read_only=False,
            open_world=False,
            summary="Turn text into spoken audio (text to speech).",
        ),
        McpTool(
            name="take_screenshot",
            makes_images=True,
            cost="one screenshot",
            operation=OPERATIONS["screenshot"],
            read_only=False,
            open_world=True,
            summary="See what a public web page looks like: capture it as an image or PDF.",
        ),
        McpTool(
            name="read_url",
            cost="one screenshot",
            operation=OPERATIONS["read"],
            # The stored file is the answer's copy: the call changes nothing an agent sees.
            read_only=True,
            open_world=True,
            summary="Read what a public web page says: its main text as clean Markdown "
            "(or HTML, or plain text) with its title, description, language and links, "
            "for summarising, quoting or answering questions about the page.",
        ),
        McpTool(
            name="parse_document",
            cost="one parse",
            operation=OPERATIONS["parse"],
            read_only=True,
            open_world=False,
            summary="Read a PDF or a photo/scan of a document (invoice, receipt, contract, "
            "form...) and get its fields as JSON.",
        ),
        McpTool(
            name="edit_pdf",
            cost="one PDF (plus one per input rendered from a template)",
            operation=OPERATIONS["pdf-ops"],
            read_only=False,
            # Rendered inputs may load remote images, as generate_pdf does.
            open_world=True,
            summary="Merge, split, rotate, watermark, number, describe, attach files to, "
            "password-protect or sign (with the server's certificate, when it has one) PDFs "
            "(uploaded, or rendered from templates first).",
        ),
        McpTool(
            name="read_document",
            cost="one parse",
            operation=OPERATIONS["parse"],
            read_only=True,
            open_world=False,
            preset={"output": "markdown"},
            hidden=frozenset({"schema", "hints", "include_provenance"}),
            reads_as="markdown",
            summary="Read a whole PDF or a photo/scan of a document as Markdown, to answer "
            "questions about it or quote it: headings, paragraphs, lists and tables in "
            "reading order, each page marked <!-- page N -->. The result's blocks give the "
            "page and box (x0, y0, x1, y1, fractions of the page) of every block, to cite "
            "where an answer came from. Set max_chars to bound a long document (it then "
            "ends at a block boundary and says so). For an invoice's or receipt's fields "
            "as JSON use parse_document.",
            description="The file is base64 in `file`, its type in `mimeType` (PDF, JPEG, "
            "PNG, WebP). PDF text layers are read directly, scans and photos by OCR; tables "
            "come as Markdown tables, running headers and footers are dropped. Returns the "
            "Markdown as text, a link to it stored as a .md file, and (structured) "
            "`markdown`, `blocks`, `pages`, `truncated` and `warnings`.",
        ),
    )
}


@functools.cache
def tool_definitions(version: str) -> tuple[dict[str, Any], ...]:
    """Every tool's definition for a client of ``version``.

    Built once per revision: the schemas come from the models by reflection (a few ms), and
    every agent that connects asks for them. Read-only: the answer is shared.
    """
    return tuple(tool.definition(version) for tool in TOOLS.values())


def file_name(url: str, content_type: str = "") -> str:
    """The name a ``resource_link`` gives the file at ``url``: its last path segment."""
    path = url.split("?", 1)[0]
    return path.rsplit("/", 1)[-1] or content_type.replace("/", ".")


def inline_mode(tool: McpTool, arguments: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The ``inline`` choice of a call and the arguments for the operation (the tool's
    :attr:`McpTool.preset` fields added).

    Raises:
        InvalidRequestError: ``inline`` is not one of :data:`INLINE_MODES`, or the tool makes
            no images (then it is an unknown field, like any other); an argument is a field
            the tool sets itself or does not offer.
    """
    rest = dict(arguments)
    for name in sorted((tool.hidden | set(tool.preset)) & rest.keys()):
        msg = f"is not an argument of {tool.name}"
        raise InvalidRequestError.single(name, msg)
    rest.update(tool.preset)
    if _INLINE_ARGUMENT not in rest or not tool.makes_images:
        return "preview", rest
    mode = rest.pop(_INLINE_ARGUMENT)
    if mode not in INLINE_MODES:
        msg = f"must be one of {', '.join(INLINE_MODES)}"
        raise InvalidRequestError.single(_INLINE_ARGUMENT, msg)
    return str(mode), rest


def wants_preview(execution: Execution, mode: str) -> bool:
    """Whether the result's file is an image to be shown as a preview."""
    return (
        mode == "preview"
        and execution.content is not None
        and execution.content_type.startswith("image/")
    )


def _image_block(
    content: bytes, media: str, *, mode: str, preview: Preview | None
) -> dict[str, Any] | None:
    if mode == "full" and len(content) <= INLINE_LIMIT:
        return {"type": "image", "data": _base64(content), "mimeType": media}
    if mode != "none" and preview is not None:
        return {"type": "image", "data": _base64(preview.content), "mimeType": preview.media_type}
    return None


def _base64(content: bytes) -> str:
    return base64.b64encode(content).decode("ascii")


def _file_blocks(
    execution: Execution, version: str, mode: str, preview: Preview | None
) -> list[dict[str, Any]]:
    content, media = execution.content, execution.content_type
    url = execution.body.get("url")
    if content is None or not url:
        return []
    blocks: list[dict[str, Any]] = []
    small = len(content) <= INLINE_LIMIT
    if media.startswith("image/"):
        # Every revision has image blocks; before 2025-06-18 the link is the body's url.
        image = _image_block(content, media, mode=mode, preview=preview)
        if image is not None:
            blocks.append(image)
    elif small and media.startswith("audio/") and version_at_least(version, "2025-03-26"):
        blocks.append({"type": "audio", "data": _base64(content), "mimeType": media})
    elif small and not version_at_least(version, "2025-06-18"):
        # No resource links before 2025-06-18: embed the file itself.
        blocks.append(
            {
                "type": "resource",
                "resource": {"uri": url, "mimeType": media, "blob": _base64(content)},
            }
        )
    if version_at_least(version, "2025-06-18"):
        blocks.append(
            {
                "type": "resource_link",
                "uri": url,
                "name": file_name(url, media),
                "mimeType": media,
                "size": len(content),
            }
        )
    return blocks


def success_result(
    execution: Execution,
    version: str,
    *,
    inline: str = "preview",
    preview: Preview | None = None,
) -> dict[str, Any]:
    """A ``tools/call`` result: the JSON as text (and ``structuredContent``), the warnings
    spelled out in a text block of their own (an agent reads them without parsing the JSON,
    and can fix its call), plus the file.

    An image comes as ``inline`` says: ``preview`` shows ``preview`` (none given: the link
    alone), ``full`` the file itself (up to :data:`INLINE_LIMIT`), ``none`` nothing inline.
    """
    text = json.dumps(execution.body, ensure_ascii=False)
    content: list[dict[str, Any]] = [
        {"type": "text", "text": text},
        *warnings_blocks(execution.body),
    ]
    blocks = _file_blocks(execution, version, inline, preview)
    result: dict[str, Any] = {
        "content": [*content, *blocks],
        "isError": False,
    }
    if version_at_least(version, "2025-06-18"):
        result["structuredContent"] = execution.body
    return result


def warnings_blocks(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The body's ``warnings`` spelled out in a text block of their own, when there are any."""
    warnings = body.get("warnings") or ()
    if not warnings:
        return []
    lines = "\n".join(f"- {w}" for w in warnings)
    return [{"type": "text", "text": f"Warnings:\n{lines}"}]


def error_result(body: Mapping[str, Any]) -> dict[str, Any]:
    """A failed tool call: ``isError`` with the error envelope as text, so the agent sees the
    message (which field, which limit, when to retry) and can correct itself."""
    lines = [str(body.get("error", "the call failed"))]
    if "retry_at" in body:
        lines.append(f"retry at {body['retry_at']}")
    envelope = json.dumps(dict(body), ensure_ascii=False)
    return {
        "content": [{"type": "text", "text": "\n".join(lines) + "\n" + envelope}],
        "isError": True,
    }
