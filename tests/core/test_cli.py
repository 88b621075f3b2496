"""What the sub-commands share: JSON arguments, file errors and the exit statuses."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from renderkit.core.cli import (
    EXIT_FAILED,
    EXIT_USAGE,
    CommandError,
    command,
    json_argument,
    read_json,
    read_text,
    run_command,
    write_output,
)
from renderkit.core.errors import InvalidRequestError, RenderError

ARGS = argparse.Namespace()


def test_json_arguments_are_inline_or_read_from_an_at_file(tmp_path: Path) -> None:
    data = tmp_path / "data.json"
    data.write_text(json.dumps({"title": "Café"}), encoding="utf-8")
    assert json_argument('{"a": 1}') == {"a": 1}
    assert json_argument(f"@{data}") == {"title": "Café"}


@pytest.mark.parametrize("value", ["{nope", "@/nonexistent/data.json"])
def test_bad_json_arguments_are_argparse_errors(value: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        json_argument(value)


def test_an_unreadable_at_file_is_reported_by_argparse_with_exit_2(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=json_argument)
    with pytest.raises(SystemExit) as exc:
        parser.parse_args(["--data", f"@{tmp_path / 'missing.json'}"])
    assert exc.value.code == EXIT_USAGE


def test_unreadable_inputs_are_usage_errors(tmp_path: Path) -> None:
    latin = tmp_path / "latin.txt"
    latin.write_bytes("café".encode("latin-1"))
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    for read, path in (
        (read_text, tmp_path / "missing.txt"),
        (read_text, latin),
        (read_json, broken),
    ):
        with pytest.raises(CommandError) as exc:
            read(path, what="input")
        assert exc.value.status == EXIT_USAGE
        assert str(path) in str(exc.value)


def test_an_unwritable_output_is_a_failure_not_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(CommandError) as exc:
        write_output(tmp_path / "no" / "such" / "dir" / "out.png", b"x")
    assert exc.value.status == EXIT_FAILED
    write_output(tmp_path / "out.txt", "text\n")
    assert (tmp_path / "out.txt").read_text(encoding="utf-8") == "text\n"


@pytest.mark.anyio
async def test_a_command_error_is_printed_with_the_command_name_and_becomes_the_status(
    capsys: pytest.CaptureFixture[str],
) -> None:
    @command("thing")
    async def run(args: argparse.Namespace) -> int:
        raise CommandError("give a file", status=EXIT_USAGE)

    assert await run(ARGS) == EXIT_USAGE
    assert capsys.readouterr().err.strip() == "renderkit thing: give a file"


def test_run_command_runs_sync_and_async_commands() -> None:
    async def later(args: argparse.Namespace) -> int:
        return 0

    assert run_command(lambda args: 3, ARGS) == 3
    assert run_command(later, ARGS) == 0


def test_library_errors_exit_2_when_the_request_is_invalid_else_1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    async def invalid(args: argparse.Namespace) -> int:
        raise InvalidRequestError.single("data.title", "is too long")

    async def failed(args: argparse.Namespace) -> int:
        raise RenderError("the browser crashed")

    assert run_command(invalid, ARGS) == EXIT_USAGE
    assert "renderkit: invalid request:" in capsys.readouterr().err
    assert run_command(failed, ARGS) == EXIT_FAILED
    assert capsys.readouterr().err.strip() == "renderkit: the browser crashed"
