"""The browsable API: Swagger UI at ``/docs`` (and ``/v1/docs``), ``/`` redirecting to it.

The page is Swagger UI reading ``/docs/openapi.json``, the document
:mod:`renderkit_server.openapi` generates (Litestar's own OpenAPI generation is off, so its
UI plugins, which read that, cannot be mounted as they are). Swagger UI's files come from the
``swagger-ui-py`` package, pinned in the server extra, and this app serves them itself under
``/docs/assets/<package version>/``: the page asks no other host for anything, so it works
offline and behind an egress filter, and its Content-Security-Policy says so to the browser.
The schema link stays in the page, above the viewer and in ``<noscript>``, for readers
without JavaScript.
"""

from __future__ import annotations

import html
from importlib import metadata
from pathlib import Path

import anyio
from litestar import MediaType, Response, get
from litestar.params import FromPath
from litestar.response import Redirect
from litestar.types import ControllerRouterHandler

from renderkit_server.errors import HttpProblem

__all__ = ["ASSETS_PATH", "ROUTES", "SCHEMA_PATH"]

#: The document the viewer reads.
SCHEMA_PATH = "/docs/openapi.json"

_SWAGGER_UI = metadata.distribution("swagger-ui-py")
#: Where the page's files are served; the package version in the path lets browsers keep them
#: for a year, and an upgrade changes every URL.
ASSETS_PATH = f"/docs/assets/{_SWAGGER_UI.version}"
_STATIC = Path(str(_SWAGGER_UI.locate_file("swagger_ui/static")))

# Started from a file rather than an inline script so the CSP can forbid inline scripts.
# validatorUrl null: Swagger UI otherwise shows a badge fetched from validator.swagger.io.
_INIT_JS = b"""window.addEventListener("load", function () {
  var root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.dataset.url,
    domNode: root,
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout"
  });
});
"""

_JS = "text/javascript"  # Litestar adds the charset to text/ types
#: Every file under ``ASSETS_PATH``: name -> (bytes, or a file of the package; media type).
_ASSETS: dict[str, tuple[bytes | Path, str]] = {
    "swagger-ui-bundle.js": (_STATIC / "swagger-ui-bundle.js", _JS),
    "swagger-ui.css": (_STATIC / "swagger-ui.css", "text/css"),
    "favicon-32x32.png": (_STATIC / "favicon-32x32.png", "image/png"),
    "renderkit-docs.js": (_INIT_JS, _JS),
}

_ASSET_HEADERS = {
    "Cache-Control": "public, max-age=31536000, immutable",
    "X-Content-Type-Options": "nosniff",
}

# Swagger UI sets inline styles and draws icons from data: URIs; nothing else is needed.
_PAGE_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)

_PAGE = """<!doctype html>
<html lang="en">
<head>
  <title>{title}</title>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="icon" type="image/png" href="{assets}/favicon-32x32.png">
  <link rel="stylesheet" href="{assets}/swagger-ui.css">
</head>
<body>
  <p style="font-family: sans-serif; margin: 1em 20px 0">The OpenAPI document:
    <a href="{schema}">{schema}</a></p>
  <noscript><p>The interactive reference needs JavaScript; the schema is at
    <a href="{schema}">{schema}</a>.</p></noscript>
  <div id="swagger-ui" data-url="{schema}"></div>
  <script src="{assets}/swagger-ui-bundle.js"></script>
  <script src="{assets}/renderkit-docs.js"></script>
</body>
</html>
"""


@get(["/docs", "/v1/docs"], include_in_schema=False, media_type=MediaType.HTML)
async def docs_page() -> Response[str]:
    """The interactive API reference."""
    page = _PAGE.format(
        title="renderkit API",
        schema=html.escape(SCHEMA_PATH),
        assets=html.escape(ASSETS_PATH),
    )
    return Response(
        page,
        media_type=MediaType.HTML,
        headers={"Content-Security-Policy": _PAGE_CSP, "X-Content-Type-Options": "nosniff"},
    )


@get(f"{ASSETS_PATH}/{{name:str}}", include_in_schema=False)
async def docs_asset(name: FromPath[str]) -> Response[bytes]:
    """One file of the reference page, from the fixed list above (no path is read from the
    request), cached by browsers for a year."""
    if name not in _ASSETS:
        raise HttpProblem(404, "NOT_FOUND", f"no such file: {ASSETS_PATH}/{name}")
    source, media_type = _ASSETS[name]
    body = source if isinstance(source, bytes) else await anyio.Path(source).read_bytes()
    return Response(body, media_type=media_type, headers=_ASSET_HEADERS)


@get("/", include_in_schema=False, status_code=307)
async def root() -> Redirect:
    """``/`` leads to the reference."""
    return Redirect("/docs", status_code=307)


#: What the app mounts for the browsable API.
ROUTES: tuple[ControllerRouterHandler, ...] = (docs_page, docs_asset, root)
