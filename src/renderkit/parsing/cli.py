"""``renderkit parse FILE [--schema schema.json] [--hints "..."]`` (wired into cli.py)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from renderkit.core.media import media_type_of_path
from renderkit.parsing._models import PARSE_MIME_TYPES, ParseRequest
from renderkit.parsing._parse import parse
from renderkit.parsing.reading import ParseLimits, sniff_mime_type

__all__ = ["add_parse_command", "run_parse_command"]


def add_parse_command(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``parse`` sub-command to an ``argparse`` sub-parsers object."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "parse", help="extract structured JSON from a PDF or an image (offline rules)"
    )
    parser.add_argument("file", type=Path, help="the PDF, JPEG, PNG or WebP file")
    parser.add_argument("--schema", type=Path, help="a JSON Schema file of the fields to extract")
    parser.add_argument("--hints", help="plain-language guidance for the extractor")
    parser.add_argument("--mime-type", help="override the type guessed from the file")
    parser.add_argument("--provenance", action="store_true", help="include page and box per field")
    parser.add_argument("--max-pages", type=int, default=50)
    parser.add_argument("--max-mb", type=float, default=20.0)
    parser.add_argument("-o", "--output", type=Path, help="write the JSON here instead of stdout")
    return parser


async def run_parse_command(args: argparse.Namespace) -> int:
    """Run ``renderkit parse``; prints the result JSON and returns the exit status."""
    try:
        content = args.file.read_bytes()
    except OSError as exc:
        print(f"renderkit parse: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    schema = None
    if args.schema is not None:
        try:
            schema = json.loads(args.schema.read_text())
        except (OSError, ValueError) as exc:
            print(f"renderkit parse: --schema is not a readable JSON file: {exc}", file=sys.stderr)
            return 2
    named = media_type_of_path(args.file)
    mime = (
        args.mime_type or (named if named in PARSE_MIME_TYPES else None) or sniff_mime_type(content)
    )
    if mime is None:
        print("renderkit parse: unknown file type; pass --mime-type", file=sys.stderr)
        return 2
    # Invalid input (exit 2) and other library errors (exit 1) are reported by cli.main.
    request = ParseRequest.from_bytes(
        content, mime, schema=schema, hints=args.hints, include_provenance=args.provenance
    )
    limits = ParseLimits(max_pages=args.max_pages, max_bytes=int(args.max_mb * 1_000_000))
    result = await parse(request, limits=limits)
    text = json.dumps(result.to_dict(), indent=2, ensure_ascii=False)
    if args.output is not None:
        args.output.write_text(text + "\n")
    else:
        print(text)
    return 0
