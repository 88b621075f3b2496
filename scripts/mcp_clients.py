"""Drive /api/mcp with the real Node clients: the MCP Inspector CLI and the conformance suite.

Starts `renderkit serve` on a free 127.0.0.1 port (its own data directory, a local web page
for the screenshot tool), installs Node 22, `@modelcontextprotocol/inspector` and
`@modelcontextprotocol/conformance` under .tools/ when missing (from the npm registry; npm
itself comes from apt-get when absent), then runs:

- Inspector CLI: tools/list in the legacy, auto and modern protocol eras (every tool
  listed), tools/list --strict, tools/call of every tool with a key (each must succeed)
  and without one (exit 5, a tool error), and the produced files are downloaded;
- conformance: the server scenarios that apply to a server with its own tools
  (server-initialize, ping, tools-list, server-session-lifecycle, dns-rebinding-protection,
  server-sse-multiple-streams; server-stateless and caching for 2026-07-28) at every revision
  they exist in, failing on anything but the checks listed in
  scripts/conformance-expected-failures.yml (they need the suite's own tools).

Usage: python scripts/mcp_clients.py   (exit status 0 when every check passed)
Run by `nox -s mcp-clients` and by .ci/run.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / ".tools"
NODE_PACKAGES = {
    "node22": "node@22",
    "inspector": "@modelcontextprotocol/inspector@2.12.0",
    "conformance": "@modelcontextprotocol/conformance@0.2.0-alpha.12",
}
ADMIN = "mcp-clients-admin-token-0123456789"
SCENARIOS = {
    "server-initialize": ["2025-06-18", "2025-11-25"],
    "ping": ["2025-06-18", "2025-11-25"],
    "tools-list": ["2025-06-18", "2025-11-25", "2026-07-28"],
    "server-session-lifecycle": ["2025-03-26", "2025-06-18", "2025-11-25"],
    "dns-rebinding-protection": ["2025-11-25", "2026-07-28"],
    "server-sse-multiple-streams": ["2025-11-25", "2026-07-28"],
    "server-stateless": ["2026-07-28"],
    "caching": ["2026-07-28"],
}
# Checks that need the suite's own diagnostic tools, prompts or resources (see the file).
EXPECTED_FAILURES = ROOT / "scripts" / "conformance-expected-failures.yml"
PAGE = b"<!doctype html><title>MCP page</title><body style='background:#123456'><h1>Hello</h1>"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _ensure_node_tools() -> dict[str, Path]:
    if shutil.which("npm") is None:
        sudo = [] if os.geteuid() == 0 else ["sudo"]
        subprocess.run([*sudo, "apt-get", "update", "-qq"], check=True)
        subprocess.run(
            [*sudo, "apt-get", "install", "-y", "-qq", "--no-install-recommends", "npm"],
            check=True,
            env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
        )
    for folder, package in NODE_PACKAGES.items():
        target = TOOLS / folder
        if not (target / "node_modules").exists():
            target.mkdir(parents=True, exist_ok=True)
            subprocess.run(
                ["npm", "install", "--no-save", "--no-audit", "--no-fund", "-q", package],
                cwd=target,
                check=True,
            )
    bins = {name: TOOLS / name / "node_modules" / ".bin" for name in NODE_PACKAGES}
    return {
        "node_bin": bins["node22"],
        "inspector": bins["inspector"] / "mcp-inspector",
        "conformance": bins["conformance"] / "conformance",
    }


def _serve_page() -> tuple[ThreadingHTTPServer, str]:
    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(PAGE)))
            self.end_headers()
            self.wfile.write(PAGE)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def _http(url: str, body: dict | None = None, headers: dict | None = None) -> bytes:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        url, data=data, headers={"Content-Type": "application/json", **(headers or {})}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.read()


class Checks:
    def __init__(self) -> None:
        self.results: list[tuple[str, bool, str]] = []

    def add(self, name: str, ok: bool, detail: str = "") -> None:
        self.results.append((name, ok, detail))
        print(f"{'PASS' if ok else 'FAIL'}  {name}  {detail}", flush=True)

    @property
    def ok(self) -> bool:
        return all(ok for _, ok, _ in self.results)


def _inspector(
    tools: dict[str, Path], env: dict[str, str], url: str, *args: str
) -> subprocess.CompletedProcess[str]:
    command = [str(tools["inspector"]), "--cli", url, *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=180)


def main() -> int:
    tools = _ensure_node_tools()
    env = {
        **os.environ,
        "PATH": f"{tools['node_bin']}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(TOOLS / "inspector-home"),  # the Inspector writes ~/.mcp-inspector
        "NO_COLOR": "1",
    }
    checks = Checks()
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    url = f"{base}/api/mcp"
    page_server, page_url = _serve_page()
    with tempfile.TemporaryDirectory() as data_dir:
        server_env = {
            **os.environ,
            "RENDERKIT_DATA_DIR": data_dir,
            "RENDERKIT_ADMIN_TOKEN": ADMIN,
            "RENDERKIT_ALLOW_PRIVATE_URLS": "1",  # the screenshot page is on 127.0.0.1
        }
        renderkit = Path(sys.executable).parent / "renderkit"
        server = subprocess.Popen(
            [str(renderkit), "serve", "--host", "127.0.0.1", "--port", str(port)],
            env=server_env,
            stdout=subprocess.DEVNULL,
            stderr=open(Path(data_dir) / "server.log", "w"),  # noqa: SIM115 - closed with the dir
        )
        try:
            for _ in range(300):
                try:
                    _http(f"{base}/api/health")
                    break
                except OSError:
                    time.sleep(0.1)
            key = json.loads(
                _http(
                    f"{base}/api/keys/generate",
                    {"email": "inspector@example.com", "plan": "pro"},
                    {"Authorization": f"Bearer {ADMIN}"},
                )
            )["key"]
            _run_inspector(checks, tools, env, url, key, page_url)
            _run_conformance(checks, tools, env, url)
        finally:
            server.terminate()
            server.wait(30)
            page_server.shutdown()
    failed = [name for name, ok, _ in checks.results if not ok]
    print(f"\n{len(checks.results) - len(failed)}/{len(checks.results)} checks passed")
    return 0 if not failed else 1


#: Every tool the endpoint lists: the production operations and the PDF page operations.
_TOOLS = (
    "generate_image",
    "generate_pdf",
    "generate_audio",
    "take_screenshot",
    "read_url",
    "parse_document",
    "edit_pdf",
    "read_document",
)
#: The tools answering text first (the Markdown, then the rest as JSON): what each reads.
_READING = {"read_url": "Hello", "read_document": "INV-9"}


def _run_inspector(
    checks: Checks, tools: dict[str, Path], env: dict[str, str], url: str, key: str, page_url: str
) -> None:
    for era in ("legacy", "auto", "modern"):
        listed = _inspector(tools, env, url, "--protocol-era", era, "--method", "tools/list")
        names = []
        if listed.returncode == 0:
            names = [tool["name"] for tool in json.loads(listed.stdout)["tools"]]
        checks.add(
            f"inspector tools/list ({era})",
            sorted(names) == sorted(_TOOLS),
            ", ".join(names) or listed.stderr[-300:],
        )
    strict = _inspector(tools, env, url, "--method", "tools/list", "--strict")
    verdict = [line for line in strict.stdout.splitlines() if " errors, " in line]
    checks.add(
        "inspector tools/list --strict (portability: no errors)",
        strict.returncode == 0,
        verdict[-1] if verdict else strict.stderr[-300:],
    )
    # A born-digital PDF to parse: made by the service itself.
    sample_pdf = _http(
        url.replace("/api/mcp", "/api/pdf-gen"),
        {"template": "custom", "html": "<h1>Invoice INV-9</h1><p>Total EUR 12.00</p>"},
        {"X-SVC-Key": key},
    )
    pdf_url = json.loads(sample_pdf)["url"]
    with urllib.request.urlopen(pdf_url, timeout=60) as response:
        pdf_b64 = base64.b64encode(response.read()).decode()
    calls = {
        "generate_image": {
            "template": "og-card",
            "data": {"title": "Hello from the Inspector"},
            "scale": 1,
        },
        "generate_pdf": {"template": "custom", "html": "<h1>Inspector</h1>"},
        "generate_audio": {"script": "Hello from the MCP Inspector.", "format": "wav"},
        "take_screenshot": {"url": page_url},
        "read_url": {"url": page_url},
        "parse_document": {"file": pdf_b64, "mimeType": "application/pdf"},
        "edit_pdf": {"files": [{"file": pdf_b64}], "watermark": {"text": "INSPECTED"}},
        "read_document": {"file": pdf_b64, "mimeType": "application/pdf"},
    }
    for era in ("legacy", "auto", "modern"):
        for tool, arguments in calls.items():
            if era != "legacy" and tool not in ("generate_image", "parse_document", *_READING):
                continue
            result = _inspector(
                tools,
                env,
                url,
                "--protocol-era",
                era,
                "--method",
                "tools/call",
                "--tool-name",
                tool,
                "--tool-args-json",
                json.dumps(arguments),
                "--header",
                f"X-SVC-Key: {key}",
                "--format",
                "json",
            )
            detail = result.stderr[-300:]
            ok = result.returncode == 0
            if ok:
                body = json.loads(result.stdout)
                body = body.get("result", body)
                ok = body.get("isError") is False
                links = [
                    b["uri"] for b in body.get("content", []) if b.get("type") == "resource_link"
                ]
                for link in links:
                    with urllib.request.urlopen(link, timeout=60) as response:
                        ok = ok and len(response.read()) > 0
                blocks = len(body.get("content", []))
                detail = f"{blocks} content blocks, {len(links)} link(s) downloaded"
                if tool == "generate_image":
                    # Images come as a small JPEG preview by default, the file behind the link.
                    images = [b for b in body.get("content", []) if b.get("type") == "image"]
                    ok = ok and [b.get("mimeType") for b in images] == ["image/jpeg"]
                    detail += f", preview {[b.get('mimeType') for b in images]}"
                if tool in _READING:
                    # The text itself comes first, not JSON around it.
                    first = (body.get("content") or [{}])[0]
                    text = str(first.get("text", ""))
                    ok = ok and _READING[tool] in text and not text.startswith("{")
                    detail += f", first block {text[:40]!r}"
            checks.add(f"inspector tools/call {tool} ({era})", ok, detail)
    no_key = _inspector(
        tools,
        env,
        url,
        "--method",
        "tools/call",
        "--tool-name",
        "generate_image",
        "--tool-args-json",
        json.dumps(calls["generate_image"]),
    )
    checks.add(
        "inspector tools/call without a key is a tool error (exit 5)",
        no_key.returncode == 5,
        f"exit {no_key.returncode}",
    )


def _run_conformance(checks: Checks, tools: dict[str, Path], env: dict[str, str], url: str) -> None:
    for scenario, versions in SCENARIOS.items():
        for version in versions:
            run = subprocess.run(
                [
                    str(tools["conformance"]),
                    "server",
                    "--url",
                    url,
                    "--scenario",
                    scenario,
                    "--spec-version",
                    version,
                    "--expected-failures",
                    str(EXPECTED_FAILURES),
                ],
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
            )
            summary = next(
                (line for line in run.stdout.splitlines() if line.startswith("Passed:")),
                run.stdout[-200:] + run.stderr[-200:],
            )
            checks.add(
                f"conformance {scenario} @ {version}",
                run.returncode == 0,
                summary.strip(),
            )


if __name__ == "__main__":
    sys.exit(main())
