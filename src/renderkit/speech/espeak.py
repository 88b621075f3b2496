"""The offline speech provider: espeak-ng (``apt-get install espeak-ng``).

Each call runs the ``espeak-ng`` binary once, script on stdin and a WAV on stdout, streamed
to the encoder as it arrives; a process per call keeps the engine's global state out of the
server and lets a timeout kill a runaway synthesis. How the request's settings map onto the engine:

- ``speed`` 0.7-1.2 scales espeak-ng's default rate of 175 words per minute (122-210).
- ``stability`` sets the pitch range (intonation): 0.5 is the voice's normal range, 1 a
  narrow near-monotone (40 %), 0 a wide one (160 %).
- ``style`` widens that range by up to half again (capped at espeak-ng's maximum, 200 %),
  exaggerating the intonation.
- ``similarity`` and ``model`` have no counterpart in a formant synthesiser: accepted,
  echoed, no effect.

Voices: any espeak-ng language (``en-us``, ``en-gb``, ``de``, ``fr``, ``es``...), optionally
with a variant (``en-us+f3``, ``de+m2``), as :meth:`LocalSpeechProvider.list_voices` reports
for the installed engine; plus the ElevenLabs premade voice ids in :data:`PREMADE_VOICES`
(the spec's default ``21m00Tcm4TlvDq8ikWAM`` among them), mapped to similar espeak-ng voices.
"""

from __future__ import annotations

import contextlib
import logging
import re
import shutil
import subprocess
from collections.abc import Awaitable, Callable
from xml.sax.saxutils import escape

import anyio
import attrs
from anyio.abc import ByteReceiveStream, ByteSendStream

from renderkit.core.errors import (
    InvalidRequestError,
    MissingDependencyError,
    ProviderError,
    ProviderUnavailableError,
)
from renderkit.core.workers import usable_cpus
from renderkit.speech._models import AudioRequest
from renderkit.speech._protocol import PcmSink, SpeechAudio, Voice

__all__ = [
    "DEFAULT_WPM",
    "PREMADE_VOICES",
    "EspeakVoices",
    "LocalSpeechProvider",
    "WavStreamReader",
    "espeak_command",
    "parse_voice_list",
    "parse_wav",
]

logger = logging.getLogger(__name__)

#: espeak-ng's default speaking rate (words per minute) at ``speed`` 1.0.
DEFAULT_WPM = 175

#: ElevenLabs premade voice ids -> (espeak-ng voice, name). Accepted by the local provider so
#: a request written for ElevenLabs still speaks, in a voice of the same accent and gender.
PREMADE_VOICES: dict[str, tuple[str, str]] = {
    "21m00Tcm4TlvDq8ikWAM": ("en-us+f3", "Rachel (American, female)"),
    "EXAVITQu4vr4xnAl0jRd": ("en-us+f2", "Bella (American, female)"),
    "MF3mGyEYCl7XYWbV9V6O": ("en-us+f4", "Elli (American, female)"),
    "AZnzlk1XvdvUeBnXmlld": ("en-us+f5", "Domi (American, female)"),
    "pNInz6obpgDQGcFmaJgB": ("en-us+m3", "Adam (American, male)"),
    "ErXwobaYiN019PkySvjV": ("en-us+m1", "Antoni (American, male)"),
    "TxGEqnHWrfWFTfGW9XjX": ("en-us+m2", "Josh (American, male)"),
    "VR6AewLTigWG4xSOukaG": ("en-us+m7", "Arnold (American, male)"),
    "yoZ06aMxZJJ28mfd3POQ": ("en-us+m4", "Sam (American, male)"),
    "JBFqnCBsd6RMkjVDRZzb": ("en-gb+m3", "George (British, male)"),
}

_VOICES_HINT = "list the valid ids with `renderkit audio --list-voices` (see docs/speech.md)"
_RANGE_NORMAL = 100  # percent of the voice's own pitch range
_RANGE_MAX = 200  # espeak-ng caps the range at twice a voice's default (100 of 0-100)
_CHUNK_BYTES = 64 * 1024


def espeak_command(executable: str, request: AudioRequest, voice: str) -> tuple[list[str], bytes]:
    """The espeak-ng command line and stdin (SSML) for ``request`` spoken by ``voice``."""
    words_per_minute = round(DEFAULT_WPM * request.speed)
    pitch_range = (0.4 + 1.2 * (1 - request.stability)) * (1 + 0.5 * request.style) * 100
    percent = min(_RANGE_MAX, round(pitch_range))
    text = escape(request.script)
    if percent != _RANGE_NORMAL:
        text = f'<prosody range="{percent}%">{text}</prosody>'
    ssml = f"<speak>{text}</speak>"
    command = [
        executable,
        "--stdout",
        "--stdin",
        "-b",
        "1",  # UTF-8 input
        "-m",  # SSML: the script is escaped, so only our own markup is interpreted
        "-v",
        voice,
        "-s",
        str(words_per_minute),
    ]
    return command, ssml.encode()


def _wav_header(data: bytes) -> tuple[int, int, int] | None:
    """(sample rate, channels, offset of the samples), or None if more bytes are needed.

    Raises:
        ValueError: not a 16-bit PCM WAV.
    """
    if len(data) >= 12 and (data[:4] != b"RIFF" or data[8:12] != b"WAVE"):
        msg = "not a WAV file"
        raise ValueError(msg)
    offset = 12
    channels = rate = None
    while offset + 8 <= len(data):
        chunk_id = data[offset : offset + 4]
        size = int.from_bytes(data[offset + 4 : offset + 8], "little")
        body = offset + 8
        if chunk_id == b"data":
            if channels is None or rate is None:
                msg = "no format chunk before the samples"
                raise ValueError(msg)
            return rate, channels, body
        if chunk_id == b"fmt ":
            if body + 16 > len(data):
                return None
            fmt_code = int.from_bytes(data[body : body + 2], "little")
            channels = int.from_bytes(data[body + 2 : body + 4], "little")
            rate = int.from_bytes(data[body + 4 : body + 8], "little")
            bits = int.from_bytes(data[body + 14 : body + 16], "little")
            if fmt_code != 1 or bits != 16 or channels not in (1, 2):
                msg = "not 16-bit PCM"
                raise ValueError(msg)
        offset = body + size + (size & 1)
    return None


class WavStreamReader:
    """Turns the WAV espeak-ng writes to a pipe into PCM chunks, header first.

    Written to a pipe, the RIFF and data sizes are placeholders, so the samples are taken
    to the end of the stream rather than trusting them.
    """

    def __init__(self) -> None:
        self._head = b""
        self._format: tuple[int, int] | None = None
        #: PCM bytes returned so far.
        self.pcm_bytes = 0

    def feed(self, data: bytes) -> SpeechAudio | None:
        """The PCM in ``data`` (None while the header is incomplete or nothing is new).

        Raises:
            ValueError: the stream is not a 16-bit PCM WAV.
        """
        if self._format is None:
            self._head += data
            header = _wav_header(self._head)
            if header is None:
                return None
            rate, channels, offset = header
            self._format = (rate, channels)
            data, self._head = self._head[offset:], b""
        if not data:
            return None
        self.pcm_bytes += len(data)
        rate, channels = self._format
        return SpeechAudio(data=data, sample_rate=rate, channels=channels)


def parse_wav(data: bytes) -> SpeechAudio:
    """PCM from a whole WAV as espeak-ng streams it (placeholder sizes allowed).

    Raises:
        ValueError: not a 16-bit PCM WAV, or no samples chunk.
    """
    header = _wav_header(data)
    if header is None:
        msg = "no PCM data in the WAV"
        raise ValueError(msg)
    rate, channels, offset = header
    return SpeechAudio(data=data[offset:], sample_rate=rate, channels=channels)


@attrs.frozen(kw_only=True)
class EspeakVoices:
    """The voices of an installed espeak-ng.

    Attributes:
        languages: language tag (lower case) -> description, including the short
            alternative tags espeak-ng resolves (``en``, ``fr``).
        variants: variant name (lower case) -> (file name, description); ``f3``, ``m1``...
    """

    languages: dict[str, str]
    variants: dict[str, tuple[str, str]]

    def resolve(self, voice_id: str) -> str:
        """The espeak-ng voice for ``voice_id``.

        Raises:
            InvalidRequestError: on field ``voice_id`` for an id this engine lacks.
        """
        premade = PREMADE_VOICES.get(voice_id)
        if premade is not None:
            return premade[0]
        language, _, variant = voice_id.lower().partition("+")
        if language not in self.languages or (variant and variant not in self.variants):
            msg = f"unknown voice {voice_id[:40]!r} for the local engine; {_VOICES_HINT}"
            raise InvalidRequestError.single("voice_id", msg)
        return f"{language}+{self.variants[variant][0]}" if variant else language

    def voices(self) -> list[Voice]:
        """The accepted ids: premade ids, languages, then ``en-us+<variant>`` examples."""
        out = [
            Voice(voice_id=vid, name=name, language=voice.split("+")[0], description=voice)
            for vid, (voice, name) in PREMADE_VOICES.items()
        ]
        out += [
            Voice(voice_id=tag, name=name, language=tag) for tag, name in self.languages.items()
        ]
        out += [
            Voice(
                voice_id=f"en-us+{variant}",
                name=name,
                language="en-us",
                description=f"variant {variant}: combine with any language, e.g. de+{variant}",
            )
            for variant, (_, name) in self.variants.items()
        ]
        return out


_OTHER = re.compile(r"\((\S+) \d+\)")


def _rows(listing: str) -> list[tuple[str, str, str, list[str], bool]]:
    """(language, name, file, other languages, clean) per row of an espeak-ng voice list.

    ``clean`` is False when the trailing column is not a list of "(tag priority)" pairs,
    which means the file name contained a space.
    """
    rows = []
    for line in listing.splitlines()[1:]:
        tokens = line.split()
        if len(tokens) < 5 or not tokens[0].isdigit():
            continue
        rest = " ".join(tokens[5:])
        others = _OTHER.findall(rest)
        clean = _OTHER.sub("", rest).strip() == ""
        rows.append((tokens[1], tokens[3].replace("_", " "), tokens[4], others, clean))
    return rows


def parse_voice_list(languages: str, variants: str) -> EspeakVoices:
    """Parse the output of ``espeak-ng --voices`` and ``espeak-ng --voices=variant``.

    MBROLA voices (files under ``mb/``) are left out: they need separately installed data.
    Variants whose file name is not a valid voice id (it contains a space) are left out.
    """
    langs: dict[str, str] = {}
    for language, name, file, others, _ in _rows(languages):
        if language == "variant" or file.startswith("mb/"):
            continue
        langs.setdefault(language.lower(), name)
        for other in others:
            langs.setdefault(other.lower(), name)
    found: dict[str, tuple[str, str]] = {}
    for _, name, file, _, clean in _rows(variants):
        variant = file.removeprefix("!v/")
        if clean and variant != file and re.fullmatch(r"[A-Za-z0-9_.-]+", variant):
            found.setdefault(variant.lower(), (variant, name))
    return EspeakVoices(languages=dict(sorted(langs.items())), variants=dict(sorted(found.items())))


class LocalSpeechProvider:
    """Offline speech with espeak-ng.

    Args:
        executable: the espeak-ng binary (a name on ``PATH`` or a path).
        timeout: seconds one synthesis may take before the process is killed.
        max_concurrency: espeak-ng processes running at once; more calls wait their turn.
            Defaults to the CPUs this process may run on (its affinity mask).
    """

    name = "local"
    #: Characters said per second of one CPU (see :mod:`renderkit.speech.budget`): measured
    #: at about 16,000 a second for English (a 4,900-character script in 0.11 s, process
    #: start included); 1,000 leaves headroom for scripts espeak-ng spells out letter by
    #: letter and for a busy machine.
    cpu_characters_per_second: float = 1_000.0

    def __init__(
        self,
        executable: str = "espeak-ng",
        *,
        timeout: float = 60.0,
        max_concurrency: int | None = None,
    ) -> None:
        self.executable = executable
        self.timeout = timeout
        self._limit = anyio.CapacityLimiter(max_concurrency or usable_cpus())
        self._voices: EspeakVoices | None = None

    def __repr__(self) -> str:
        return f"LocalSpeechProvider(executable={self.executable!r}, timeout={self.timeout})"

    def _binary(self) -> str:
        path = shutil.which(self.executable)
        if path is None:
            msg = "the local speech engine needs espeak-ng: apt-get install espeak-ng"
            raise MissingDependencyError(msg)
        return path

    async def _run(
        self,
        command: list[str],
        stdin: bytes | None,
        on_stdout: Callable[[bytes], Awaitable[None]] | None = None,
    ) -> bytes:
        try:
            async with self._limit:
                with anyio.fail_after(self.timeout):
                    returncode, stdout, stderr = await _run_process(command, stdin, on_stdout)
        except TimeoutError:
            msg = f"espeak-ng did not finish within {self.timeout:g} s"
            raise ProviderUnavailableError(msg, provider=self.name) from None
        except OSError as exc:
            msg = "espeak-ng could not be started"
            raise ProviderUnavailableError(msg, provider=self.name) from exc
        said = stderr[:500].decode(errors="replace").strip()
        if returncode != 0:
            logger.warning("espeak-ng failed (status %s): %s", returncode, said)
            msg = f"espeak-ng failed (exit status {returncode})"
            raise ProviderError(msg, provider=self.name)
        if said:
            logger.debug("espeak-ng: %s", said)
        return stdout

    async def voices(self) -> EspeakVoices:
        """The installed engine's languages and variants (read once, then cached).

        Raises:
            MissingDependencyError: espeak-ng is not installed.
            ProviderError: espeak-ng could not list its voices.
        """
        if self._voices is None:
            binary = self._binary()
            languages = await self._run([binary, "--voices"], None)
            variants = await self._run([binary, "--voices=variant"], None)
            self._voices = parse_voice_list(
                languages.decode(errors="replace"), variants.decode(errors="replace")
            )
        return self._voices

    async def list_voices(self) -> list[Voice]:
        """Premade ids, every installed language, and each variant (on ``en-us``).

        Raises:
            MissingDependencyError: espeak-ng is not installed.
            ProviderError: espeak-ng could not list its voices.
        """
        return (await self.voices()).voices()

    async def synthesize(self, request: AudioRequest) -> SpeechAudio:
        """Speak the script; returns mono 16-bit PCM at espeak-ng's 22,050 Hz.

        Raises:
            InvalidRequestError: ``voice_id`` is not a voice of this engine.
            ProviderError: espeak-ng failed or produced no audio.
            ProviderUnavailableError: espeak-ng timed out or could not be started.
            MissingDependencyError: espeak-ng is not installed.
        """
        chunks: list[SpeechAudio] = []

        async def collect(chunk: SpeechAudio) -> None:
            chunks.append(chunk)

        await self.stream_pcm(request, collect)
        data = b"".join(chunk.data for chunk in chunks)
        return attrs.evolve(chunks[0], data=data)

    async def stream_pcm(self, request: AudioRequest, sink: PcmSink) -> None:
        """Speak the script, handing PCM to ``sink`` while espeak-ng is still writing it.

        Raises what :meth:`synthesize` raises.
        """
        voice = (await self.voices()).resolve(request.voice_id)
        command, stdin = espeak_command(self._binary(), request, voice)
        reader = WavStreamReader()
        batch: list[SpeechAudio] = []
        batched = 0

        async def flush() -> None:
            nonlocal batched
            if batch:
                await sink(attrs.evolve(batch[0], data=b"".join(a.data for a in batch)))
                batch.clear()
                batched = 0

        async def on_stdout(data: bytes) -> None:
            nonlocal batched
            try:
                audio = reader.feed(data)
            except ValueError as exc:
                msg = "espeak-ng produced no audio"
                raise ProviderError(msg, provider=self.name) from exc
            if audio is not None:
                # espeak-ng writes 4 KiB at a time; hand over ~1.5 s of audio per chunk.
                batch.append(audio)
                batched += len(audio.data)
                if batched >= _CHUNK_BYTES:
                    await flush()

        await self._run(command, stdin, on_stdout)
        await flush()
        if reader.pcm_bytes == 0:
            msg = "espeak-ng produced no audio"
            raise ProviderError(msg, provider=self.name)

    async def aclose(self) -> None:
        """Nothing to release: each call's process has exited."""


async def _run_process(
    command: list[str],
    stdin: bytes | None,
    on_stdout: Callable[[bytes], Awaitable[None]] | None,
) -> tuple[int, bytes, bytes]:
    """Run ``command`` feeding ``stdin``; (exit status, stdout, stderr).

    With ``on_stdout``, output is handed over as it arrives (and not returned). Unlike
    ``anyio.run_process``, a process that exits without reading its input is not an error
    here: its exit status and output tell what happened. Cancelling kills the process.
    """
    output: dict[str, bytes] = {"stdout": b"", "stderr": b""}

    async def feed(stream: ByteSendStream) -> None:
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            async with stream:
                await stream.send(stdin or b"")

    async def drain(name: str, stream: ByteReceiveStream) -> None:
        chunks = [chunk async for chunk in stream]
        output[name] = b"".join(chunks)

    async def forward(stream: ByteReceiveStream) -> None:
        assert on_stdout is not None
        async for chunk in stream:
            await on_stdout(chunk)

    # Shielded: a cancellation landing while the process is being set up would lose the
    # Process object after the child had started, leaving it running unkilled.
    with anyio.CancelScope(shield=True):
        process = await anyio.open_process(
            command, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL
        )
    async with process:
        try:
            async with anyio.create_task_group() as tasks:
                if process.stdin is not None:
                    tasks.start_soon(feed, process.stdin)
                assert process.stdout is not None and process.stderr is not None
                if on_stdout is None:
                    tasks.start_soon(drain, "stdout", process.stdout)
                else:
                    tasks.start_soon(forward, process.stdout)
                tasks.start_soon(drain, "stderr", process.stderr)
        except BaseExceptionGroup as group:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            # One failing task (e.g. on_stdout raising) cancels the others: report it alone.
            if len(group.exceptions) == 1:
                raise group.exceptions[0] from None
            raise
        returncode = await process.wait()
    return returncode, output["stdout"], output["stderr"]
