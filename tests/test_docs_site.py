"""The documentation site's generated pages state what the code does, and the built site
works offline.

The pages come from scripts/docgen (run by the MkDocs hook at build time); CI builds the
whole site with ``mkdocs build --strict`` (scripts/bootstrap.sh docs). Most tests check the
generated Markdown against the code it is generated from, without Chromium or MkDocs; the
offline test builds the site and loads it in Chromium with every other host blocked.
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import attrs
import pytest
from playwright.async_api import expect

import renderkit
from renderkit_server.openapi import OPERATION_IDS
from renderkit_server.settings import ENV_VARIABLES, Settings
from tests._offline import offline_tab, serve_directory

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


def _bench_module(name: str) -> ModuleType:
    folder = str(ROOT / "bench")
    sys.path.insert(0, folder)
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(folder)


@pytest.fixture(scope="module")
def results() -> ModuleType:
    return _docgen("docgen_results")


def test_every_recorded_figure_is_a_row_with_its_date_machine_and_command(
    docgen: ModuleType, results: ModuleType
) -> None:
    recorded = results.load_results(ROOT / "bench" / "results.toml", ROOT / "bench")
    page = docgen.benchmarks_page(ROOT / "bench")
    sections = page.split("\n### ")
    assert recorded
    for entry in recorded:
        machine = entry["machine"]
        [section] = [s for s in sections if s.startswith(f"`bench/{entry['benchmark']}`")]
        cells = (
            f"| {entry['case']}: **{entry['renderkit']:.4g} {entry['unit']}**",
            f"| {entry['date'].isoformat()}<br>",
            f"<br>{machine['cores']} cores, {machine['cpu']}, load {machine['load_average']}<br>",
            f"<br>`{entry['command']}` |",
        )
        rows = section.splitlines()
        assert [row for row in rows if all(cell in row for cell in cells)], entry
    # The headline claim's benchmark has a figure.
    assert any(entry["benchmark"] == "bench_image.py" for entry in recorded)


def test_a_run_recorded_by_a_bench_script_reads_back_as_a_well_formed_result(
    tmp_path: Path, results: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = _bench_module("_record")
    path = tmp_path / "results.toml"
    argv = ["bench/bench_image.py", "--rounds", "3", "--record", str(path)]
    monkeypatch.setattr(sys, "argv", argv)

    record.record(
        path,
        benchmark="bench_image.py",
        case="c",
        unit="ms",
        renderkit=1.5,
        peer="p",
        peer_median=3.0,
    )
    record.record(None, benchmark="bench_image.py", case="not written", unit="ms", renderkit=1)

    [entry] = results.load_results(path, ROOT / "bench")
    assert entry["command"] == "python bench/bench_image.py --rounds 3"
    assert entry["machine"]["cores"] >= 1 and entry["machine"]["load_average"]
    assert entry["ratio"] == 2.0
    assert results.comparison(entry) == "2.00x faster"


@pytest.mark.parametrize(
    ("change", "complaint"),
    [
        ({"date": None}, "missing date"),
        ({"peer_median": None}, "peer and peer_median go together"),
        ({"renderkit": '"fast"'}, "renderkit"),
        ({"benchmark": '"bench_nothing.py"'}, "no script"),
        ({"command": '"python bench/bench_pdf.py"'}, "does not run"),
        ({"colour": '"red"'}, "unknown field colour"),
        ({"ratio": "5.0"}, "does not follow from the medians"),
    ],
)
def test_a_malformed_result_fails_the_docs_build(
    tmp_path: Path, results: ModuleType, change: dict[str, str | None], complaint: str
) -> None:
    entry = {  # TOML literals: a well-formed result, then the one change
        "benchmark": '"bench_image.py"',
        "case": '"c"',
        "date": "2026-11-27",
        "command": '"python bench/bench_image.py"',
        "unit": '"ms"',
        "renderkit": "1.5",
        "peer": '"p"',
        "peer_median": "3.0",
    }
    for name, value in change.items():
        if value is None:
            del entry[name]
        else:
            entry[name] = value
    lines = [f"{name} = {value}" for name, value in entry.items()]
    machine = 'machine = { cores = 2, cpu = "x", load_average = "1.0" }'
    path = tmp_path / "results.toml"
    path.write_text("[[result]]\n" + "\n".join([*lines, machine]) + "\n")

    with pytest.raises(ValueError, match=complaint):
        results.load_results(path, ROOT / "bench")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The documentation site, built from this checkout as CI builds it."""
    out = tmp_path_factory.mktemp("site")
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", str(out)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        check=True,
        timeout=600,
    )
    return out


@pytest.fixture
def site_url(site: Path) -> Iterator[str]:
    with serve_directory(site) as url:
        yield url


@pytest.mark.browser
@pytest.mark.anyio
async def test_the_built_site_renders_in_local_fonts_with_every_other_host_blocked(
    site_url: str,
) -> None:
    async with offline_tab() as tab:
        for path, heading in (("/", "renderkit"), ("/benchmarks/", "Benchmarks")):
            await tab.page.goto(site_url + path, wait_until="load")

            h1 = tab.page.locator("article h1").first
            await expect(h1).to_contain_text(heading, timeout=30_000)
            await expect(h1).to_be_visible()
            # The fonts Chromium drew the heading with: installed ones, not web fonts.
            cdp = await tab.page.context.new_cdp_session(tab.page)
            await cdp.send("DOM.enable")
            await cdp.send("CSS.enable")
            document = await cdp.send("DOM.getDocument")
            node = await cdp.send(
                "DOM.querySelector",
                {"nodeId": document["root"]["nodeId"], "selector": "article h1"},
            )
            fonts = (await cdp.send("CSS.getPlatformFontsForNode", node))["fonts"]
            assert fonts, path
            assert not [font for font in fonts if font["isCustomFont"]], fonts
        assert tab.blocked == []


# What makes a browser fetch: a script, a style sheet or preconnect, a CSS import or url().
_EXTERNAL_FETCH = re.compile(
    r"<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)=[\"']?(?:https?:)?//"
    r"|@import\s+(?:url\()?[\"']?(?:https?:)?//"
    r"|url\([\"']?(?:https?:)?//"
)


@pytest.mark.browser
def test_no_page_or_style_sheet_of_the_built_site_loads_anything_from_another_host(
    site: Path,
) -> None:
    files = [*site.rglob("*.html"), *site.rglob("*.css")]
    assert len(files) > 20
    found = {
        str(path.relative_to(site)): match.group(0)
        for path in files
        if (match := _EXTERNAL_FETCH.search(path.read_text(encoding="utf-8")))
    }
    assert found == {}


def test_the_readme_speed_claim_quotes_a_recorded_og_card_figure(results: ModuleType) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    claim = readme.partition("\n## ")[0]  # the opening, before the first section
    ours, theirs = re.search(r"a median of ([\d,]+) ms against ([\d,]+) ms", claim).groups()

    assert "](bench/results.toml)" in claim
    recorded = results.load_results(ROOT / "bench" / "results.toml", ROOT / "bench")
    assert [
        entry
        for entry in recorded
        if entry["benchmark"] == "bench_image.py"
        and round(entry["renderkit"]) == int(ours.replace(",", ""))
        and round(entry["peer_median"]) == int(theirs.replace(",", ""))
    ], (ours, theirs)
