"""The browsable API: an interactive reference at ``/docs`` and ``/`` redirecting to it.

The page is Scalar's API reference reading ``/docs/openapi.json``, the document
:mod:`renderkit_server.openapi` generates (Litestar's own OpenAPI generation is off, so its
UI plugins, which read that, cannot be mounted as they are). Scalar's script comes from the
jsDelivr CDN: no Python package bundles it, and only the reader's browser fetches it; the
schema itself is served by this app.
"""

from __future__ import annotations

import html

from litestar import MediaType, Response, get
from litestar.response import Redirect
from litestar.types import ControllerRouterHandler

__all__ = ["ROUTES", "SCALAR_JS_URL"]

#: Where the reader's browser loads Scalar from (pinned: the page is tested with this major).
SCALAR_JS_URL = "https://cdn.jsdelivr.net/npm/@scalar/api-reference@1"

_PAGE = """<!doctype html>
<html lang="en">
<head>
  <title>{title}</title>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
</head>
<body>
  <noscript>The interactive reference needs JavaScript; the schema is at
    <a href="{schema}">{schema}</a>.</noscript>
  <script id="api-reference" data-url="{schema}"></script>
  <script src="{script}" crossorigin></script>
</body>
</html>
"""


@get(["/docs", "/v1/docs"], include_in_schema=False, media_type=MediaType.HTML)
async def docs_page() -> Response[str]:
    """The interactive API reference."""
    page = _PAGE.format(
        title="renderkit API",
        schema=html.escape("/docs/openapi.json"),
        script=html.escape(SCALAR_JS_URL),
    )
    return Response(page, media_type=MediaType.HTML)


@get("/", include_in_schema=False, status_code=307)
async def root() -> Redirect:
    """``/`` leads to the reference."""
    return Redirect("/docs", status_code=307)


#: What the app mounts for the browsable API.
ROUTES: tuple[ControllerRouterHandler, ...] = (docs_page, root)
