"""What the sub-commands share: JSON arguments, file errors and the exit statuses."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from renderkit.core.cli import (
    EXIT_BROKEN_PIPE,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    CommandError,
    command,
    json_argument,
    output_format,
    output_path,
    read_json,
    read_text,
    run_command,
    run_parser,
    write_output,
)
from renderkit.core.errors import BlockedUrlError, InvalidRequestError, RenderError

ARGS = argparse.Namespace()


def test_json_arguments_are_inline_or_read_from_an_at_file(tmp_path: Path) -> None:
    data = tmp_path / "data.json"
    data.write_text(json.dumps({"title": "Café"}), encoding="utf-8")
    assert json_argument('{"a": 1}') == {"a": 1}
    assert json_argument(f"@{data}") == {"title": "Café"}


def test_malformed_inline_json_is_an_argparse_error() -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        json_argument("{nope")


def test_a_missing_at_file_is_one_line_naming_the_flag_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=json_argument)
    missing = tmp_path / "missing.json"
    assert run_parser(parser, ["--data", f"@{missing}"]) == EXIT_USAGE
    assert capsys.readouterr().err == f"renderkit: --data: no such file: {missing}\n"


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
    with pytest.raises(CommandError, match=r"^-o: cannot write /dev/full: No space") as exc:
        write_output(Path("/dev/full"), b"x")
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


def test_an_output_whose_directory_is_missing_is_a_usage_error(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "dir"
    with pytest.raises(CommandError, match=f"^-o: no such directory: {missing}$") as exc:
        output_path(str(missing / "x.png"))
    assert exc.value.status == EXIT_USAGE
    with pytest.raises(CommandError, match="is a directory"):
        output_path(str(tmp_path))
    assert output_path("-") == Path("-")


def test_dash_writes_bytes_and_text_to_standard_output(
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    write_output(Path("-"), b"\x89PNG\r\n")
    write_output(Path("-"), "café\n")
    assert capsysbinary.readouterr().out == b"\x89PNG\r\n" + "café\n".encode()


@pytest.mark.parametrize(
    ("output", "chosen", "expected"),
    [
        ("pic.jpg", None, "jpeg"),
        ("pic.JPEG", None, "jpeg"),
        ("pic.webp", None, "webp"),
        ("pic", None, "png"),
        ("pic.bin", "webp", "webp"),
        ("-", None, "png"),
        ("-", "jpeg", "jpeg"),
        ("pic.jpg", "jpeg", "jpeg"),
    ],
)
def test_the_format_is_chosen_or_else_named_by_the_extension(
    output: str, chosen: str | None, expected: str
) -> None:
    formats = ("png", "jpeg", "webp")
    assert output_format(Path(output), chosen, formats, default="png") == expected


def test_an_extension_contradicting_the_format_is_an_error_naming_both() -> None:
    with pytest.raises(
        CommandError, match=r"^--format png conflicts with -o pic\.jpg, which names jpeg$"
    ):
        output_format(Path("pic.jpg"), "png", ("png", "jpeg"), default="png")
    with pytest.raises(CommandError, match="names pdf; this command writes png, jpeg") as exc:
        output_format(Path("pic.pdf"), None, ("png", "jpeg"), default="png")
    assert exc.value.status == EXIT_USAGE


def test_an_extension_naming_no_format_is_refused_unless_the_format_is_chosen() -> None:
    with pytest.raises(
        CommandError, match=r"^-o pic\.gif names no format; this command writes png, jpeg$"
    ) as exc:
        output_format(Path("pic.gif"), None, ("png", "jpeg"), default="png")
    assert exc.value.status == EXIT_USAGE


def test_a_private_address_refusal_names_the_flag_that_allows_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    async def refused(args: argparse.Namespace) -> int:
        raise BlockedUrlError(
            "private addresses are not allowed", url="http://127.0.0.1/", private=True
        )

    status = run_command(refused, argparse.Namespace(allow_private_network=False))
    assert status == EXIT_USAGE
    assert "pass --allow-private-network" in capsys.readouterr().err


def test_a_closed_stdout_ends_quietly_with_141() -> None:
    # A real pipe whose reader is gone, as with `renderkit audio --list-voices | head`.
    import subprocess
    import sys

    code = (
        "import sys, argparse\n"
        "from renderkit.core.cli import run_parser\n"
        "parser = argparse.ArgumentParser()\n"
        "parser.set_defaults(run=lambda args: print('x' * 200_000) or 0)\n"
        "sys.exit(run_parser(parser, []))\n"
    )
    with subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()
        stderr = process.stderr.read()
        status = process.wait(timeout=60)
    assert status == EXIT_BROKEN_PIPE
    assert stderr == b""


def test_ctrl_c_ends_quietly_with_130() -> None:
    import signal
    import subprocess
    import sys

    code = (
        "import sys, time, argparse\n"
        "from renderkit.core.cli import run_parser\n"
        "def wait(args):\n"
        "    print('ready', file=sys.stderr, flush=True)\n"
        "    time.sleep(60)\n"
        "    return 0\n"
        "parser = argparse.ArgumentParser()\n"
        "parser.set_defaults(run=wait)\n"
        "sys.exit(run_parser(parser, []))\n"
    )
    with subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE) as process:
        assert process.stderr is not None
        assert process.stderr.readline() == b"ready\n"
        process.send_signal(signal.SIGINT)
        stderr = process.stderr.read()
        status = process.wait(timeout=60)
    assert status == EXIT_INTERRUPTED
    assert stderr == b"renderkit: interrupted\n"
