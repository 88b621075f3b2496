"""``renderkit audio``: the sub-command as the lead wires it into renderkit.cli."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from renderkit import InvalidRequestError
from renderkit.core.cli import CommandError
from renderkit.speech.cli import add_audio_command, run_audio_command

from . import decode, needs_espeak, needs_kokoro

pytestmark = pytest.mark.anyio


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="renderkit")
    add_audio_command(parser.add_subparsers(dest="command", required=True))
    return parser.parse_args(["audio", *argv])


@needs_espeak
async def test_audio_writes_an_mp3_named_by_the_output(tmp_path: Path, capsys) -> None:
    out = tmp_path / "hello.mp3"
    assert await run_audio_command(parse("Hello there", "-o", str(out))) == 0
    decoded = decode(out.read_bytes())
    assert (decoded.container, decoded.sample_rate) == ("mp3", 44_100)
    captured = capsys.readouterr()
    assert "hello.mp3" in captured.err
    assert captured.out == ""


@needs_espeak
@pytest.mark.parametrize(
    ("name", "container"), [("a.wav", "wav"), ("a.ogg", "ogg"), ("a.aac", "aac")]
)
async def test_format_follows_the_extension(tmp_path: Path, name: str, container: str) -> None:
    out = tmp_path / name
    assert await run_audio_command(parse("Hi", "-o", str(out), "--voice", "en-gb")) == 0
    assert decode(out.read_bytes()).container == container


@needs_espeak
async def test_script_can_come_from_a_file_with_explicit_format(tmp_path: Path) -> None:
    script = tmp_path / "script.txt"
    script.write_text("Guten Tag", encoding="utf-8")
    out = tmp_path / "speech.bin"
    args = parse("-f", str(script), "-o", str(out), "--format", "wav", "--voice", "de")
    assert await run_audio_command(args) == 0
    assert decode(out.read_bytes()).container == "wav"


@needs_espeak
async def test_list_voices_prints_ids(capsys) -> None:
    assert await run_audio_command(parse("--list-voices")) == 0
    ids = {line.split()[0] for line in capsys.readouterr().out.splitlines()}
    assert {"21m00Tcm4TlvDq8ikWAM", "en-us", "en-gb", "de", "en-us+f3"} <= ids


@needs_espeak
async def test_unknown_voice_raises_for_the_cli_to_report(tmp_path: Path) -> None:
    with pytest.raises(InvalidRequestError):
        await run_audio_command(parse("Hi", "-o", str(tmp_path / "x.mp3"), "--voice", "xx"))


async def test_missing_script_or_output_exits_2(tmp_path: Path) -> None:
    assert await run_audio_command(parse("-o", str(tmp_path / "x.mp3"))) == 2
    assert await run_audio_command(parse("Hi")) == 2


async def test_elevenlabs_without_a_key_exits_2(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("ELEVENLABS_API_KEY", raising=False)
    args = parse("Hi", "-o", str(tmp_path / "x.mp3"), "--provider", "elevenlabs")
    assert await run_audio_command(args) == 2


async def test_unreadable_script_file_exits_2(tmp_path: Path) -> None:
    args = parse("-f", str(tmp_path / "missing.txt"), "-o", str(tmp_path / "x.mp3"))
    assert await run_audio_command(args) == 2


@needs_espeak
async def test_an_unwritable_output_exits_1(capsys) -> None:
    # /dev/full exists but refuses every write (ENOSPC): the work was done, the write failed.
    args = parse("Hi", "-o", "/dev/full", "--format", "wav")
    assert await run_audio_command(args) == 1
    assert "renderkit audio: -o: cannot write /dev/full: No space left" in capsys.readouterr().err


def test_an_output_in_a_missing_directory_is_refused_while_parsing(tmp_path: Path) -> None:
    missing = tmp_path / "missing-dir"
    with pytest.raises(CommandError, match=f"^-o: no such directory: {missing}$") as exc:
        parse("Hi", "-o", str(missing / "x.mp3"))
    assert exc.value.status == 2


@needs_espeak
async def test_dash_output_writes_the_audio_to_stdout(capsysbinary) -> None:
    assert await run_audio_command(parse("Hi", "-o", "-", "--format", "wav")) == 0
    captured = capsysbinary.readouterr()
    assert decode(captured.out).container == "wav"
    assert b"- " in captured.err


async def test_an_extension_that_contradicts_format_exits_2(tmp_path: Path, capsys) -> None:
    args = parse("Hi", "-o", str(tmp_path / "a.wav"), "--format", "mp3")
    assert await run_audio_command(args) == 2
    err = capsys.readouterr().err
    assert "--format mp3 conflicts with -o" in err
    assert "names wav" in err
    assert not (tmp_path / "a.wav").exists()


def test_usage_shows_output_as_required(capsys) -> None:
    with pytest.raises(SystemExit):
        parse("--help")
    out = capsys.readouterr().out
    assert "(SCRIPT | -f FILE) -o FILE" in out
    assert "[-o" not in out


@needs_espeak
@needs_kokoro
async def test_list_voices_offers_the_kokoro_voices_with_language_and_gender(capsys) -> None:
    assert await run_audio_command(parse("--list-voices")) == 0
    out = capsys.readouterr().out
    assert "en-us+f3" in out  # espeak-ng's, the default engine, still there
    assert "bm_george" in out and "British English" in out


async def test_a_kokoro_voice_where_kokoro_is_not_installed_is_a_usage_error(
    tmp_path: Path,
) -> None:
    args = parse("Hi", "-o", str(tmp_path / "a.wav"), "--voice", "af_heart")
    args.kokoro_dir = tmp_path / "empty"
    with pytest.raises(InvalidRequestError) as exc:
        await run_audio_command(args)
    assert [e.field for e in exc.value.errors] == ["voice_id"]
