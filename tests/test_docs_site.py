"""The documentation site's generated pages state what the code does.

The pages come from scripts/docgen (run by the MkDocs hook at build time); CI builds the
whole site with ``mkdocs build --strict`` (scripts/bootstrap.sh docs). These tests check the
generated Markdown against the code it is generated from, without Chromium or MkDocs.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

import attrs
import pytest

import renderkit
from renderkit_server.openapi import OPERATION_IDS
from renderkit_server.settings import ENV_VARIABLES, Settings

ROOT = Path(__file__).resolve().parents[1]


def _docgen(name: str) -> ModuleType:
    # The generator modules import each other by name, as MkDocs loads them from their folder.
    folder = str(ROOT / "scripts" / "docgen")
    sys.path.insert(0, folder)
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(folder)


@pytest.fixture(scope="module")
def docgen() -> ModuleType:
    return _docgen("docgen_reference")


@pytest.fixture(scope="module")
def templates() -> ModuleType:
    return _docgen("docgen_templates")


def test_configuration_page_has_every_setting_with_its_variable(docgen: ModuleType) -> None:
    page = docgen.configuration_page()
    for field in attrs.fields(Settings):
        assert f"| `{field.name}` |" in page, field.name
    for variable in ENV_VARIABLES.values():
        assert f"`{variable}`" in page, variable
    assert "| `RENDERKIT_BROWSER_SLOTS` | `browser_slots` | `int` | `2` |" in page


def test_plans_page_states_the_starter_burst_limit_and_the_429_codes(
    docgen: ModuleType,
) -> None:
    page = docgen.plans_page()
    assert "| requests per 60 s window (all endpoints) | 10 | 60 | 120 | unlimited |" in page
    assert "| images | 5,000 | 25,000 | 100,000 | unlimited |" in page
    for code in ("RATE_LIMITED", "QUOTA_EXCEEDED", "TOO_MANY_IN_FLIGHT", "Retry-After"):
        assert code in page
    assert "FAILED_WORK_EXHAUSTED" in page
    assert "| share of the browser slots all keys of the plan hold at once | 34 % | all |" in page


def test_http_page_has_a_section_per_operation_of_the_openapi_document(
    docgen: ModuleType,
) -> None:
    page = docgen.http_page(docgen.openapi())
    for operation_id in OPERATION_IDS.values():
        assert f"operationId `{operation_id}`" in page, operation_id
    assert "### PdfRequest" in page


def test_templates_page_documents_pdf_fields_and_shows_every_preview(
    templates: ModuleType,
) -> None:
    page = templates.templates_page()
    for field in ("invoice_number", "due_date", "line_items", "sections", "bullets"):
        assert f"| `{field}` |" in page, field
    for template in renderkit.IMAGE_TEMPLATES:
        assert f"(gallery/image-{template.name}.png)" in page
    for name in set(renderkit.PDF_TEMPLATES.values()):
        assert f"(gallery/pdf-{name}.png)" in page


def test_benchmarks_page_lists_every_bench_script_with_its_command(docgen: ModuleType) -> None:
    page = docgen.benchmarks_page(ROOT / "bench")
    for script in (ROOT / "bench").glob("bench_*.py"):
        assert f"`bench/{script.name}`" in page
        assert f"`python bench/{script.name}" in page
