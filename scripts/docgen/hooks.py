"""MkDocs hook: adds the generated pages and the template gallery to the build.

Registered under ``hooks:`` in mkdocs.yml. Nothing is written into ``docs/``: the pages and
PNGs are virtual files (``File.generated``), so the site always shows the current code and
the repository holds no rendered binaries. ``mkdocs serve`` rebuilds the pages on every
change but renders the gallery once per process (it takes a few seconds of Chromium).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import docgen_reference
import docgen_templates
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files


@cache
def _gallery() -> dict[str, bytes]:
    return docgen_templates.render_gallery()


def on_files(files: Files, config: MkDocsConfig) -> Files:
    document = docgen_reference.openapi()
    pages = {
        "configuration.md": docgen_reference.configuration_page(),
        "plans.md": docgen_reference.plans_page(),
        "http-api/index.md": docgen_reference.http_page(document),
        "http-api/openapi.json": json.dumps(document, indent=2),
        "templates.md": docgen_templates.templates_page(),
        "benchmarks.md": docgen_reference.benchmarks_page(
            Path(config.config_file_path).parent / "bench"
        ),
    }
    for uri, content in pages.items():
        files.append(File.generated(config, uri, content=content))
    for name, png in _gallery().items():
        files.append(File.generated(config, f"gallery/{name}", content=png))
    return files
