"""Benchmark: documents as Markdown, renderkit vs MarkItDown and pymupdf4llm in the same run.

    python bench/bench_markdown.py [--dev /work/shared/eval/parse-dev] [--generated 6]
        [--scans 10] [--json FILE] [--record FILE]

Quality and seconds per document, for each tool on the same files:

- born-digital PDFs: token recall against ``pdftotext`` (poppler): the share of the words
  pdftotext finds (counted with their repeats) that the Markdown has too. Target >= 0.99 for
  renderkit. Also the body recall: the same against pdftotext's text without the running
  headers, footers and page numbers (found on pdftotext's side, :func:`body_text`), which a
  Markdown reader is asked to drop. The files: the contracts and PDF invoices of the dev set (``--dev``, read from
  that path, evaluation only, nothing copied), and invoices and reports renderkit renders here;
- renderkit's invoices: the share of line items whose row comes back as a Markdown table row
  cell for cell (description, quantity, unit price, amount). Target 1.0;
- two-column pages (CSS columns, numbered sentences): whether the sentences come back in
  order, each column read before the next. Target: every page;
- scans (the dev set's receipt photos, with ``--scans`` of them): word recall against the
  OCR ground truth shipped with them.

MarkItDown (0.1.9, its PDF converter: pdfminer) and pymupdf4llm are the ``bench`` extra
(``pip install -e '.[bench]'``); a tool that is not installed is left out and said so.
Neither reads images without an LLM or an OCR set-up, so the scans are renderkit's alone
(their scores for the peers are reported as not run).
"""

from __future__ import annotations

import argparse
import base64
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _record import add_record_option, record

from renderkit import parse, render_pdf
from renderkit.browser import BrowserConfig, ChromiumPool

_WORDS = ("harbour", "ledger", "quarterly", "north", "review", "budget", "survey", "venture")
_ITEMS = (
    "Brand strategy workshop",
    "Cloud migration review",
    "Annual hosting licence",
    "Onsite training day",
    "Copywriting retainer",
    "Analytics dashboard",
)

Tool = Callable[[Path], str]


def tokens(text: str) -> Counter[str]:
    """Words, lower case, counted with their repeats (Markdown syntax is not a word)."""
    return Counter(re.findall(r"\w+", text.lower()))


def recall(reference: str, answer: str) -> float:
    """The share of ``reference``'s words (with repeats) ``answer`` has too."""
    want, got = tokens(reference), tokens(answer)
    total = sum(want.values())
    return sum(min(n, got[w]) for w, n in want.items()) / total if total else 1.0


def body_text(reference: str) -> str:
    """``reference`` (pdftotext's, pages split by form feeds) without its running headers and
    footers, found on the reference's side alone: among the first and last two lines of each
    page, those that come back, digits aside, on at least half the pages (two at least), and
    lone page numbers. A Markdown reader is asked to drop them; this is the text it must keep.
    """
    pages = [
        [line.strip() for line in page.splitlines() if line.strip()]
        for page in reference.split("\f")
    ]
    pages = [p for p in pages if p]

    def key(line: str) -> str:
        return re.sub(r"\d+", "#", line.lower())

    edges = [{key(line) for line in page[:2] + page[-2:]} for page in pages]
    seen = Counter(k for keys in edges for k in keys)
    needed = max(2, (len(pages) + 1) // 2)
    kept = []
    for page, keys in zip(pages, edges, strict=True):
        for index, line in enumerate(page):
            edge = index < 2 or index >= len(page) - 2
            running = key(line) in keys and seen[key(line)] >= needed and len(pages) > 1
            if edge and (running or re.fullmatch(r"\W*(page\s*)?\d{1,4}\W*", line, re.I)):
                continue
            kept.append(line)
    return "\n".join(kept)


def table_rows(markdown: str) -> list[list[str]]:
    """The rows of every Markdown table (separator rows left out)."""
    rows = []
    for line in markdown.splitlines():
        line = line.strip()
        if line.startswith("|") and not re.fullmatch(r"\|(\s*:?-{3,}:?\s*\|)+", line):
            rows.append([c.strip().replace("<br>", " ") for c in line.strip("|").split("|")])
    return rows


def pdftotext(path: Path) -> str:
    return subprocess.run(
        ["pdftotext", str(path), "-"], capture_output=True, check=True, text=True
    ).stdout


# --- the tools -------------------------------------------------------------------------------


def renderkit_tool(path: Path) -> str:
    mime = "application/pdf" if path.suffix == ".pdf" else "image/jpeg"
    file = base64.b64encode(path.read_bytes()).decode()

    async def run() -> str:
        result = await parse({"file": file, "mimeType": mime, "output": "markdown"})
        assert result.markdown is not None
        return result.markdown.markdown

    return anyio.run(run)


def peers() -> dict[str, Tool]:
    """The peers that are installed."""
    found: dict[str, Tool] = {}
    try:
        from markitdown import MarkItDown

        converter = MarkItDown()
        found["markitdown"] = lambda path: converter.convert(str(path)).text_content
    except ImportError:
        print("markitdown is not installed: left out (pip install -e '.[bench]')")
    try:
        import pymupdf4llm

        found["pymupdf4llm"] = lambda path: pymupdf4llm.to_markdown(str(path))
    except ImportError:
        print("pymupdf4llm is not installed: left out (pip install -e '.[bench]')")
    return found


# --- documents renderkit renders -------------------------------------------------------------


def _invoice(n: int) -> tuple[dict[str, Any], list[list[str]]]:
    items = []
    rows = []
    for i in range(2 + n % 4):
        quantity = (i + 1) * (1.5 if (n + i) % 3 == 0 else 1)
        price = 40.0 + 37.25 * ((n * 7 + i * 3) % 11)
        items.append(
            {
                "description": _ITEMS[(n + i) % len(_ITEMS)],
                "quantity": quantity,
                "unit_price": price,
            }
        )
        rows.append(
            [
                _ITEMS[(n + i) % len(_ITEMS)],
                f"{quantity:g}",
                f"${price:,.2f}",
                f"${quantity * price:,.2f}",
            ]
        )
    request = {
        "template": "invoice",
        "data": {
            "company_name": f"{_WORDS[n % 8].title()} Studio Ltd",
            "company_address": f"{n + 3} Quay Street\nBristol BS1 {n}DJ",
            "client_name": f"{_WORDS[(n + 3) % 8].title()} Labs",
            "invoice_number": f"INV-{1000 + n}",
            "invoice_date": "2026-03-01",
            "due_date": "2026-03-31",
            "currency": "USD",
            "line_items": items,
            "notes": "Payment within thirty days of the invoice date, by bank transfer.",
        },
    }
    return request, rows


def _report(n: int) -> dict[str, Any]:
    sentence = (
        f"The {_WORDS[n % 8]} team reviewed the figures of section {{s}} and agreed "
        "that the regional offices should consolidate their reporting. "
    )
    sections = [
        {
            "heading": f"Section {s}",
            "body": "\n\n".join([sentence.format(s=s) * 4] * (2 + s)),
            "bullets": [f"Point {s}.{b}" for b in range(1, 3)],
        }
        for s in range(1, 4 + n % 3)
    ]
    return {
        "template": "report",
        "data": {"title": f"Report {n}", "author": "Finance", "sections": sections},
    }


def _two_columns(n: int) -> str:
    sentences = " ".join(f"Sentence s{i:03d} of the study." for i in range(1, 120 + 20 * n))
    return (
        "<style>body{font:10.5pt serif;margin:0}.cols{column-count:2;column-gap:2.5em}</style>"
        f"<h1>Study {n} in two columns</h1><div class=cols><p>{sentences}</p></div>"
    )


def in_order(markdown: str) -> bool:
    """Whether the numbered sentences come back complete and in order."""
    found = [int(x) for x in re.findall(r"\bs(\d{3})\b", markdown)]
    return bool(found) and found == sorted(found) and len(found) == len(set(found))


async def _render_all(folder: Path, count: int) -> dict[str, list[Any]]:
    made: dict[str, list[Any]] = {"invoices": [], "reports": [], "columns": []}
    async with ChromiumPool(BrowserConfig(slots=1)) as pool:
        for n in range(count):
            request, rows = _invoice(n)
            path = folder / f"invoice-{n}.pdf"
            path.write_bytes((await render_pdf(request, browser=pool)).content)
            made["invoices"].append((path, rows))
            path = folder / f"report-{n}.pdf"
            path.write_bytes((await render_pdf(_report(n), browser=pool)).content)
            made["reports"].append(path)
            path = folder / f"columns-{n}.pdf"
            html = {"template": "custom", "html": _two_columns(n)}
            path.write_bytes((await render_pdf(html, browser=pool)).content)
            made["columns"].append(path)
    return made


# --- the run ---------------------------------------------------------------------------------


def _timed(tool: Tool, path: Path) -> tuple[str, float]:
    start = time.perf_counter()
    try:
        text = tool(path)
    except Exception as exc:  # a peer failing on a file scores 0 on it
        print(f"  {path.name}: {type(exc).__name__}: {exc}")
        text = ""
    return text, time.perf_counter() - start


def _sroie_truth(dev: Path, image: Path) -> str:
    csv = dev / "sroie" / "ocr_gt" / f"{image.stem}.csv"
    return "\n".join(line.split(",", 8)[-1] for line in csv.read_text().splitlines() if line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dev", type=Path, help="the parse-dev set (read in place)")
    parser.add_argument("--generated", type=int, default=6, help="renderkit documents per kind")
    parser.add_argument("--scans", type=int, default=10, help="dev receipts read by OCR")
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    add_record_option(parser)
    args = parser.parse_args()

    tools: dict[str, Tool] = {"renderkit": renderkit_tool, **peers()}
    with tempfile.TemporaryDirectory() as tmp:
        made = anyio.run(_render_all, Path(tmp), args.generated)
        sets: dict[str, list[Path]] = {
            "renderkit invoices": [p for p, _ in made["invoices"]],
            "renderkit reports": made["reports"],
            "two-column pages": made["columns"],
        }
        if args.dev:
            sets["dev contracts"] = sorted((args.dev / "kleister-nda" / "docs").glob("*.pdf"))
            sets["dev invoices (PDF)"] = sorted((args.dev / "invoices" / "docs").glob("*.pdf"))
        figures: dict[str, dict[str, dict[str, float]]] = {}
        for name, paths in sets.items():
            figures[name] = {}
            references = {p: pdftotext(p) for p in paths}
            for tool_name, tool in tools.items():
                scores, bodies, seconds, orders = [], [], [], []
                for path in paths:
                    text, took = _timed(tool, path)
                    print(f"  {name} / {tool_name} / {path.name}: {took:.2f} s", flush=True)
                    scores.append(recall(references[path], text))
                    bodies.append(recall(body_text(references[path]), text))
                    seconds.append(took)
                    orders.append(in_order(text))
                entry = {
                    "recall_mean": statistics.fmean(scores),
                    "recall_min": min(scores),
                    "body_recall_mean": statistics.fmean(bodies),
                    "body_recall_min": min(bodies),
                    "seconds_median": statistics.median(seconds),
                }
                if name == "two-column pages":
                    entry["in_order"] = sum(orders) / len(orders)
                if name == "renderkit invoices":
                    hits = total = 0
                    for path, rows in made["invoices"]:
                        got = table_rows(tool(path))
                        hits += sum(row in got for row in rows)
                        total += len(rows)
                    entry["line_items_exact"] = hits / total
                figures[name][tool_name] = entry
        if args.dev and args.scans:
            receipts = sorted((args.dev / "sroie" / "docs").glob("*.jpg"))[: args.scans]
            scores, seconds = [], []
            for path in receipts:
                text, took = _timed(renderkit_tool, path)
                scores.append(recall(_sroie_truth(args.dev, path), text))
                seconds.append(took)
            figures[f"dev receipt scans ({len(receipts)})"] = {
                "renderkit": {
                    "word_recall_mean": statistics.fmean(scores),
                    "word_recall_min": min(scores),
                    "seconds_median": statistics.median(seconds),
                }
            }

    for name, by_tool in figures.items():
        print(f"\n{name}")
        for tool_name, entry in by_tool.items():
            cells = ", ".join(f"{k} {v:.3f}" for k, v in entry.items())
            print(f"  {tool_name:12} {cells}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    for name, by_tool in figures.items():
        ours = by_tool["renderkit"]
        quality = next(k for k in ours if k.startswith(("recall", "word_recall")))
        peer = next((p for p in by_tool if p != "renderkit"), None)
        record(
            args.record,
            benchmark="bench_markdown.py",
            case=f"markdown, {name}, seconds per document",
            unit="s",
            renderkit=ours["seconds_median"],
            peer=peer,
            peer_median=by_tool[peer]["seconds_median"] if peer else None,
            notes=", ".join(
                f"{tool} {quality.split('_')[0]} {entry.get(quality, 0):.3f}"
                for tool, entry in by_tool.items()
            ),
        )


if __name__ == "__main__":
    main()
