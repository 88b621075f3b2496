"""Reference pages generated from the code: server settings, plans and limits, the HTTP API.

Each function returns a page's Markdown; the MkDocs hook (``hooks.py``) adds it to the build,
so the pages cannot drift from the settings class, the plan table or the OpenAPI document.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import attrs
from docgen_markdown import code, fenced, fields_table, rst_to_markdown, table
from docgen_results import load_results, results_section

import renderkit
from renderkit.core.schema import field_descriptions
from renderkit_server import settings as settings_module
from renderkit_server.openapi import openapi_document
from renderkit_server.operations import OPERATIONS
from renderkit_server.quotas.plans import BURST_WINDOW_SECONDS, METRICS, default_plans


def openapi() -> dict[str, Any]:
    """The OpenAPI document exactly as the server serves it at ``/openapi.json``."""
    return openapi_document(OPERATIONS.values(), version=renderkit.__version__)


def _default(field: attrs.Attribute[Any]) -> str:
    if isinstance(field.default, attrs.Factory):  # type: ignore[arg-type]
        return code(field.default.factory())  # type: ignore[union-attr]
    default = field.default
    if default is None:
        return "unset"
    if isinstance(default, tuple):
        return code(list(default))
    return code(default if isinstance(default, int | float | str) else str(default))


def configuration_page() -> str:
    """Every field of ``Settings``: its variable, TOML key, type, default and description."""
    settings = settings_module.Settings
    descriptions = field_descriptions(settings)
    rows = []
    for field in attrs.fields(settings):
        variable = settings_module.ENV_VARIABLES.get(field.name)
        secret = " (secret: never logged)" if field.name in settings_module.SECRET_FIELDS else ""
        rows.append(
            (
                f"`{variable}`" if variable else "TOML only",
                f"`{field.name}`",
                f"`{field.type}`",
                _default(field),
                rst_to_markdown(descriptions.get(field.name, "")) + secret,
            )
        )
    return (
        "# Configuration reference\n\n"
        "The server (`renderkit serve`, `renderkit_server.create_app`) reads its settings from "
        "`RENDERKIT_*` environment variables and, when `RENDERKIT_CONFIG` names one, a TOML file "
        'holding the same settings in lower case (`data_dir = "/var/lib/renderkit"`) and a '
        "`[plans.<name>]` table per plan (see [Plans and limits](plans.md)). Environment "
        "variables win over the file. The library itself reads no environment: its functions "
        "take their configuration as arguments.\n\n"
        "Lists (`CORS_ORIGINS`, `ALLOW_NETWORKS`...) are comma-separated in a variable and "
        "arrays in TOML; booleans are `true`/`false` (or `1`/`0`, `yes`/`no`). A value that "
        "cannot be parsed stops the server at start, naming the variable.\n\n"
        "*Generated from `renderkit_server.settings.Settings`.*\n\n"
        + table(("variable", "TOML key", "type", "default", "description"), rows)
        + "\nDeployment-oriented guidance (which of these a production or multi-replica "
        "deployment sets) is in [Operations](operations.md) and [Deployment](deploy.md).\n"
    )


def _limit(value: int | None) -> str:
    return "unlimited" if value is None else f"{value:,}"


def _percent(value: int | None) -> str:
    return "all" if value is None else f"{value} %"


def plans_page() -> str:
    """The default plan table, the burst window and how to read a 429."""
    plans = default_plans()
    units = {
        "images": "images",
        "pdfs": "PDFs (pdf-gen; pdf-ops: 1, plus 1 per input it renders)",
        "audio_minutes": "minutes of audio",
        "audio_characters": "characters of speech",
        "screenshots": "screenshots",
        "parses": "parsed documents",
    }
    monthly = table(
        ("per calendar month (UTC)", *plans),
        [(units[m], *(_limit(getattr(p, m)) for p in plans.values())) for m in METRICS],
    )
    burst = table(
        ("limit", *plans),
        [
            (
                f"requests per {BURST_WINDOW_SECONDS} s window (all endpoints)",
                *(_limit(p.burst_per_minute) for p in plans.values()),
            ),
            (
                "browser renders running at once",
                *(
                    "any free slot" if p.browser_inflight is None else str(p.browser_inflight)
                    for p in plans.values()
                ),
            ),
            (
                "share of the browser slots all keys of the plan hold at once",
                *(_percent(p.browser_slot_share) for p in plans.values()),
            ),
            (
                "share of the browser wait queue all keys of the plan fill",
                *(_percent(p.browser_queue_share) for p in plans.values()),
            ),
            (
                "weight when renders of several plans wait",
                *(str(p.browser_weight) for p in plans.values()),
            ),
            (
                "seconds of timed-out renders per hour (failed-work budget)",
                *(
                    _limit(p.failed_work_seconds)
                    if p.failed_work_window == 3600 or p.failed_work_seconds is None
                    else f"{p.failed_work_seconds} per {p.failed_work_window} s"
                    for p in plans.values()
                ),
            ),
            (
                "asynchronous jobs queued or running at once (all of a key's lineage)",
                *(_limit(p.jobs_active) for p in plans.values()),
            ),
            (
                "jobs per batch",
                *(_limit(p.batch_size) for p in plans.values()),
            ),
        ],
    )
    # The meanings are the API reference's own (components.headers), written once.
    headers = table(
        ("header", "meaning"),
        [
            (f"`{name}`", spec["description"])
            for name, spec in openapi()["components"]["headers"].items()
        ],
    )
    codes = table(
        ("status and code", "what happened", "what to do"),
        [
            (
                "429 `RATE_LIMITED`",
                f"more requests in one {BURST_WINDOW_SECONDS} s window than the plan's burst "
                "limit (windows are aligned on the clock, shared by every replica)",
                "wait `Retry-After` seconds (at most a minute); spread requests out",
            ),
            (
                "429 `TOO_MANY_JOBS`",
                "the key lineage has as many jobs queued or running as its plan allows",
                "wait `Retry-After` seconds, or for some jobs to finish "
                "(see [Jobs and webhooks](jobs.md))",
            ),
            (
                "429 `RATE_LIMITED` on `/api/keys/*`",
                "too many keys issued to one client address, regenerations or key e-mails "
                "in an hour (see `KEY_ISSUE_PER_HOUR` and its neighbours in "
                "[Configuration](configuration.md))",
                "wait `Retry-After` seconds",
            ),
            (
                "429 `QUOTA_EXCEEDED`",
                "the month's quota of that metric is used up",
                "wait for `X-RateLimit-Reset` (the 1st of next month, UTC) or move to a larger "
                "plan",
            ),
            (
                "429 `TOO_MANY_IN_FLIGHT`",
                "the key already runs its plan's browser renders at once and has its queue full",
                "wait for a render to finish (`Retry-After: 1`); send fewer in parallel",
            ),
            (
                "429 `FAILED_WORK_EXHAUSTED`",
                "the key's calls timed out (never-ending custom HTML, pages that never load, "
                "OCR out of time) for its plan's failed-work budget of browser time this hour; "
                "those calls were free, but they held the browser",
                "fix the page, then wait `Retry-After` seconds (the end of the hour window)",
            ),
            (
                "503 `OVERLOADED`",
                "the server's shared browser pool or a worker pool is full (not your plan), "
                "or your plan's share of the browser queue is",
                "retry after `Retry-After`",
            ),
        ],
    )
    starter = plans["starter"]
    return (
        "# Plans and limits\n\n"
        "Every API key belongs to a plan. A plan limits each capability per calendar month "
        "(UTC), the requests per minute over all endpoints together (the burst limit) and the "
        "browser renders a key may run at once. Usage is counted per key lineage: a "
        "regenerated key keeps its predecessor's usage. A failed call costs nothing; an answer "
        "from the render cache costs no quota but counts towards the burst limit.\n\n"
        "*Generated from `renderkit_server.quotas.plans.default_plans()`; an operator may "
        "change any limit with a `[plans.<name>]` table in the configuration file, so a "
        "server you use may differ.*\n\n"
        "For example, in the file named by `RENDERKIT_CONFIG` (TOML has no null, so "
        '"unlimited" stands for no limit):\n\n'
        + fenced(
            "toml",
            "[plans.starter]\nimages = 100\nburst_per_minute = 5\n\n"
            '[plans.pro]\npdfs = "unlimited"',
        )
        + "\n## Monthly quotas\n\n"
        + monthly
        + "\n## Burst and concurrency\n\n"
        + burst
        + "\n"
        f"A self-service key is a `starter` key: {_limit(starter.burst_per_minute)} requests "
        f"a minute and {starter.browser_inflight} browser render at a time. Exploring the API "
        "by hand reaches that burst limit quickly; the 429 then says how long to wait.\n\n"
        "The browser is shared by plan, not only by key, since free keys cost nothing to "
        "mint: when renders of several plans wait, each plan is served in proportion to its "
        "weight, then its keys in turn; and all keys of a plan together hold at most the "
        "plan's share of the browser slots (rounded down, at least one), even while the "
        "rest of the browser is idle, so a render of another plan finds a free slot or is "
        "next. A call that times out is not charged, but its timeout (in seconds) is spent "
        "from the key's failed-work budget; once that is spent, the key's calls get 429 "
        "`FAILED_WORK_EXHAUSTED` until the hour window ends.\n\n"
        "## Reading a 429\n\n"
        "Errors are the envelope `{error, code, status}`; a 429 also carries `retry_at` (ISO "
        "8601) in the body.\n\n" + codes + "\n### Rate-limit headers\n\n" + headers + "\n"
        "For example, a successful image on a starter key, then the eleventh request "
        "within a minute (refused by the burst limit before the monthly quota is checked, so "
        "without `X-RateLimit-*`):\n\n"
        + fenced(
            "http",
            "HTTP/1.1 200 OK\n"
            "X-RateLimit-Limit: 5000\n"
            "X-RateLimit-Remaining: 4987\n"
            "X-RateLimit-Reset: 2026-12-01T00:00:00Z\n"
            'RateLimit-Policy: "burst_per_minute";q=10;w=60\n'
            'RateLimit: "burst_per_minute";r=9;t=42\n\n'
            "HTTP/1.1 429 Too Many Requests\n"
            "Retry-After: 37\n"
            'RateLimit-Policy: "burst_per_minute";q=10;w=60\n'
            'RateLimit: "burst_per_minute";r=0;t=37\n\n'
            '{"error": "burst limit of 10 requests per minute reached for plan '
            '\'starter\'", "code": "RATE_LIMITED", "status": 429, '
            '"retry_at": "2026-11-24T08:15:00Z"}',
        )
        + "\n`renderkit.Client` and `renderkit.AsyncClient` wait for `Retry-After` and retry "
        "429 and 503 answers by themselves.\n"
    )


def _resolve(document: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = document["components"]["schemas"][node["$ref"].rsplit("/", 1)[-1]]
    return node


def _curl(method: str, path: str, example: Any) -> str:
    auth = ' -H "Authorization: Bearer $KEY"'
    if example is None:
        return f"curl -s{auth} 'http://127.0.0.1:8000{path}'"
    body = json.dumps(example, ensure_ascii=False)
    return (
        f"curl -s -X {method.upper()} http://127.0.0.1:8000{path}{auth} \\\n"
        f"     -H 'content-type: application/json' \\\n     -d '{body}'"
    )


def http_page(document: dict[str, Any]) -> str:
    """One section per operation of the OpenAPI document, with schemas and examples."""
    parts = [
        "# HTTP API reference\n\n",
        rst_to_markdown(document["info"]["description"]) + "\n\n",
        "*Generated from the OpenAPI document the server serves at `/openapi.json` "
        "(download it: [openapi.json](openapi.json)); a running server also has a browsable "
        "reference at `/docs`.* Request and response fields are in the "
        "[schemas](#schemas) below; the templates' `data` fields, with previews, are on the "
        "[Templates](../templates.md) page.\n\n",
    ]
    for path, methods in document["paths"].items():
        for method, operation in methods.items():
            parts.append(f"## {operation['summary']}\n\n")
            parts.append(f"`{method.upper()} {path}` · operationId `{operation['operationId']}`")
            parts.append(" · no key needed\n\n" if not operation.get("security") else "\n\n")
            parts.append(rst_to_markdown(operation.get("description", "")) + "\n\n")
            for parameter in operation.get("parameters", ()):
                parts.append(
                    f"- `{parameter['name']}` ({parameter['in']}"
                    f"{', required' if parameter.get('required') else ''}): "
                    f"{rst_to_markdown(parameter.get('description', ''))}\n"
                )
            if operation.get("parameters"):
                parts.append("\n")
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            example = None
            if body:
                name = body["schema"].get("$ref", "").rsplit("/", 1)[-1]
                parts.append(f"Request body: [{name}](#{name.lower()}).\n\n")
                example = body.get("example")
            if body or "{" not in path:
                parts.append(fenced("sh", _curl(method, path, example)))
            responses = [
                (f"`{status}`", rst_to_markdown(answer.get("description", "")))
                for status, answer in operation["responses"].items()
            ]
            parts.append("\n" + table(("status", "meaning"), responses))
            success = operation["responses"].get("200", {}).get("content", {})
            for media, content in success.items():
                if "example" in content:
                    parts.append(f"\nExample answer (`{media}`):\n\n")
                    parts.append(fenced("json", json.dumps(content["example"], indent=2)))
            parts.append("\n")
    parts.append("## Schemas\n\n")
    for name, schema in document["components"]["schemas"].items():
        schema = _resolve(document, schema)
        parts.append(f"### {name}\n\n")
        if schema.get("description"):
            parts.append(rst_to_markdown(schema["description"]) + "\n\n")
        if schema.get("properties"):
            parts.append(fields_table(schema) + "\n")
    return "".join(parts)


#: Pages that discuss measured figures at length (page#anchor, what it shows).
_RECORDED_FIGURES = (
    ("speech.md#performance", "speech: 1,000 characters to MP3 vs the espeak-ng + lame pipeline"),
    ("parsing.md#benchmark", "parsing: a born-digital PDF and a receipt photo vs the CLI tools"),
    ("parsing.md#measuring", "parsing accuracy: per-source and per-field F1, calibration"),
    ("deploy.md#sizing-measured-here", "one replica vs a remote browser vs two replicas"),
    ("operations.md#soak", "20 clients for 5 minutes: latencies, memory, processes"),
    (
        "pdfa.md#what-the-print-step-costs",
        "PDFs: the 30-line invoice's print step, one change at a time, and against Typst",
    ),
    (
        "security.md#fair-use-one-key-or-one-plan-cannot-starve-the-others",
        "one key flooding the pool while another renders og-cards",
    ),
)


def benchmarks_page(bench_dir: Path) -> str:
    """The recorded figures (``bench/results.toml``) and every benchmark script under
    ``bench/`` with its own description and command."""
    rows = []
    for script in sorted(bench_dir.glob("*.py")):
        if script.name.startswith("_"):
            continue
        doc = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8"))) or ""
        summary, _, rest = doc.partition("\n")
        command = next((line.strip() for line in rest.splitlines() if "python " in line), "")
        summary = summary.removeprefix("Benchmark: ")
        rows.append((f"`bench/{script.name}`", rst_to_markdown(summary), f"`{command}`"))
    results = load_results(bench_dir / "results.toml", bench_dir)
    figures = "".join(f"- [{text}]({target})\n" for target, text in _RECORDED_FIGURES)
    return (
        "# Benchmarks\n\n"
        "Each benchmark times renderkit against a peer (the straightforward way to do the "
        "same job) in the same run, interleaved round by round so machine noise hits both "
        "alike, and reports medians and the ratio. Run them all with `nox -s bench`, or one "
        "with the command below. Figures depend on the machine and its load: each row says "
        "when, on what and with which command it was measured.\n\n"
        "## Recorded figures\n\n"
        "*Generated from `bench/results.toml`; a run adds its own rows with "
        "`--record bench/results.toml`. On 2 shared cores a busy machine (load average well "
        "above 2) slows both sides, rarely alike: compare rows of the same load.*\n\n"
        + results_section(results)
        + "\nDiscussed at length, with more figures:\n\n"
        + figures
        + "\n## The scripts\n\n"
        "*Generated from the scripts' own docstrings.*\n\n"
        + table(("script", "what it measures", "command"), rows)
    )
