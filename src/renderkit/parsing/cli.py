"""``renderkit parse FILE [--schema schema.json] [--hints "..."]``: structured JSON from a file."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from renderkit.core.cli import (
    CommandError,
    command,
    output_path,
    read_bytes,
    read_json,
    write_output,
)
from renderkit.core.media import media_type_of_path
from renderkit.parsing._models import PARSE_MIME_TYPES, ParseRequest
from renderkit.parsing.pipeline import parse
from renderkit.parsing.readers.document import ParseLimits, sniff_mime_type

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
    parser.add_argument(
        "-o", "--output", type=output_path, help="write the JSON here (default: standard output)"
    )
    parser.set_defaults(run=run_parse_command)
    return parser


def _mime_type(args: argparse.Namespace, content: bytes) -> str:
    if args.mime_type:
        return str(args.mime_type)
    named = media_type_of_path(args.file)
    mime = named if named in PARSE_MIME_TYPES else sniff_mime_type(content)
    if mime is None:
        msg = "unknown file type; pass --mime-type"
        raise CommandError(msg)
    return mime


@command("parse")
async def run_parse_command(args: argparse.Namespace) -> int:
    """Run ``renderkit parse``; prints the result JSON and returns the exit status.

    Raises:
        InvalidRequestError: the file or a field is invalid (the caller reports it, exit 2).
        RenderkitError: reading the document failed.
    """
    content = read_bytes(args.file, what="FILE")
    schema = None if args.schema is None else read_json(args.schema, what="--schema")
    request = ParseRequest.from_bytes(
        content,
        _mime_type(args, content),
        schema=schema,
        hints=args.hints,
        include_provenance=args.provenance,
    )
    limits = ParseLimits(max_pages=args.max_pages, max_bytes=int(args.max_mb * 1_000_000))
    result = await parse(request, limits=limits)
    text = json.dumps(result.to_dict(), indent=2, ensure_ascii=False)
    if args.output is not None:
        write_output(args.output, text + "\n")
    else:
        print(text)
    return 0
