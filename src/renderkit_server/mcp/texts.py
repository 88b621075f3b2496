"""A tool's text result (a document read as Markdown) kept as a file an agent can link to.

The Markdown is the tool's answer, already charged once the operation ran; storing it is a
convenience on top, so a storage failure leaves the link out rather than failing a call
whose answer was delivered.
"""

from __future__ import annotations

import logging

from renderkit.core.errors import ObjectNotFoundError, StorageError
from renderkit.storage.files import new_object_key
from renderkit_server.mcp.reading import TextFile
from renderkit_server.operations import Production

__all__ = ["MARKDOWN", "store_text"]

logger = logging.getLogger("renderkit_server")

#: The media type of Markdown (RFC 7763), UTF-8.
MARKDOWN = "text/markdown; charset=utf-8"


async def store_text(
    production: Production,
    text: str,
    *,
    kind: str,
    base_url: str | None,
    job_id: str | None = None,
) -> TextFile | None:
    """Store ``text`` as a Markdown file; its link, or None when storage failed.

    A task's text (``job_id`` given) is stored once, under a key of its job: an agent may
    fetch ``tasks/result`` any number of times, and each would otherwise leave a copy.
    """
    content = text.encode("utf-8")
    storage = production.storage
    try:
        if job_id is None:
            key = new_object_key(kind, "md")
            await storage.put(key, content, content_type=MARKDOWN)
        else:
            # Job ids are unguessable (128 random bits), like the keys of new_object_key.
            key = f"{kind}/tasks/{job_id}.md"
            try:
                await storage.head(key)
            except ObjectNotFoundError:
                await storage.put(key, content, content_type=MARKDOWN)
        url = await production.urls.url_for(key, base_url)
    except StorageError as exc:
        logger.warning("MCP: the Markdown could not be stored: %s", exc)
        return None
    return TextFile(url=url, media_type="text/markdown", size=len(content))
