from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from renderkit import ProviderUnavailableError
from renderkit.cli import main
from renderkit.parsing import Extractor, Usage
from renderkit.parsing._models import ParseRequest
from renderkit.parsing.cli import add_parse_command, run_parse_command
from renderkit.parsing.pipeline import parse
from renderkit.testing._fake_extractor import FakeExtractor, RecordedExtraction

from ._documents import text_pdf

PDF = text_pdf([["ACME TRADING LTD", "INVOICE", "Date: 3 March 2024", "Total due: 24.00"]])


@pytest.mark.anyio
async def test_fake_extractor_answers_the_schema_from_its_data_and_records_calls() -> None:
    fake = FakeExtractor(
        {"total": 24.0, "other": 1}, document_type="invoice", usage=Usage(input_tokens=5)
    )
    assert isinstance(fake, Extractor)
    schema = {
        "type": "object",
        "properties": {"total": {"type": "number"}, "vendor": {"type": "string"}},
    }
    result = await parse(
        ParseRequest.from_bytes(PDF, "application/pdf", schema=schema, hints="h"), extractor=fake
    )
    assert result.data == {"total": 24.0, "vendor": None}
    assert result.document_type == "invoice"
    assert result.usage.input_tokens == 5
    assert result.extractor == "fake"
    (call,) = fake.calls
    assert isinstance(call, RecordedExtraction)
    assert call.hints == "h"
    assert "ACME" in call.document.text


@pytest.mark.anyio
async def test_fake_extractor_handler_can_inject_failures() -> None:
    def fail(call: RecordedExtraction) -> None:
        raise ProviderUnavailableError("down", provider="fake")

    with pytest.raises(ProviderUnavailableError):
        await parse(
            ParseRequest.from_bytes(PDF, "application/pdf"), extractor=FakeExtractor(handler=fail)
        )


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_parse_command(parser.add_subparsers(dest="command"))
    return parser.parse_args(["parse", *argv])


@pytest.mark.anyio
async def test_cli_parse_prints_the_result_as_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "invoice.pdf"
    path.write_bytes(PDF)
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"total": {"type": "number"}}}))
    assert (
        await run_parse_command(_args(str(path), "--schema", str(schema), "--hints", "totals")) == 0
    )
    body = json.loads(capsys.readouterr().out)
    assert body["data"] == {"total": 24.0}
    assert body["usage"] == {"input_tokens": 0, "output_tokens": 0}


def test_cli_parse_reports_a_bad_file_with_exit_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "broken.pdf"
    path.write_bytes(b"not a pdf at all")
    assert main(["parse", str(path)]) == 2
    assert "file" in capsys.readouterr().err


def test_cli_parse_with_dash_output_prints_the_same_json_as_without(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "invoice.pdf"
    path.write_bytes(PDF)
    assert main(["parse", str(path)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert main(["parse", str(path), "-o", "-"]) == 0
    assert json.loads(capsys.readouterr().out) == printed
