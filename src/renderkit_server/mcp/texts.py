"""A tool's text result (a document read as Markdown) kept as a file an agent can link to.

The Markdown is the tool's answer, already charged once the operation ran; storing it is a
convenience on top, so a storage failure leaves the link out rather than failing a call
whose answer was delivered.
"""

from __future__ import annotations

import logging

from renderkit.core.errors import StorageError
from renderkit.storage.files import store_file
from renderkit_server.mcp.reading import TextFile
from renderkit_server.operations import Production

__all__ = ["MARKDOWN", "store_text"]

logger = logging.getLogger("renderkit_server")

#: The media type of Markdown (RFC 7763), UTF-8.
MARKDOWN = "text/markdown; charset=utf-8"


async def store_text(
    production: Production, text: str, *, kind: str, base_url: str | None
) -> TextFile | None:
    """Store ``text`` as a Markdown file; its link, or None when storage failed."""
    content = text.encode("utf-8")
    try:
        stored = await store_file(
            production.storage,
            kind=kind,
            extension="md",
            content=content,
            content_type=MARKDOWN,
            url_ttl=production.urls.ttl,
        )
        url = await production.urls.url_for(stored.key, base_url)
    except StorageError as exc:
        logger.warning("MCP: the Markdown could not be stored: %s", exc)
        return None
    return TextFile(url=url, media_type="text/markdown", size=len(content))
