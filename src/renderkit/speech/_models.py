"""Request and result models for speech synthesis (POST /api/audio semantics)."""

from __future__ import annotations

import base64
import re
from pathlib import Path
from typing import Any, ClassVar

import attrs

from renderkit.core import validators as v
from renderkit.core.converter import checked
from renderkit.core.errors import InvalidRequestError
from renderkit.core.filenames import suggested_filename
from renderkit.core.media import MEDIA_TYPES

__all__ = [
    "AUDIO_FORMATS",
    "AUDIO_MODELS",
    "DEFAULT_VOICE_ID",
    "MAX_SCRIPT_CHARACTERS",
    "AudioEncoding",
    "AudioRequest",
    "AudioResult",
]

#: The spec's default voice (an ElevenLabs premade voice id); every provider accepts it.
DEFAULT_VOICE_ID = "21m00Tcm4TlvDq8ikWAM"

#: Model ids of the interface. The local engine ignores the model but echoes it.
AUDIO_MODELS: tuple[str, ...] = (
    "eleven_multilingual_v2",
    "eleven_turbo_v2",
    "eleven_monolingual_v1",
)

MAX_SCRIPT_CHARACTERS = 5_000

#: Speaking rate assumed by :attr:`AudioRequest.estimated_seconds` (espeak-ng at 175 wpm and
#: ElevenLabs voices both land near 15-16 characters a second of English).
ESTIMATED_CHARACTERS_PER_SECOND = 15.0

# Voice ids travel in a URL path (ElevenLabs) and on a command line (espeak-ng): letters,
# digits and a few separators only, so neither can be steered by a crafted id.
VOICE_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,99}$"
_VOICE_ID = re.compile(VOICE_ID_PATTERN)


@attrs.frozen(kw_only=True)
class AudioEncoding:
    """How one output format is encoded (the snake_case dialect's encodings).

    Attributes:
        format: the request's name for it: ``mp3``, ``wav``, ``opus`` (also ``ogg``) or ``aac``.
        codec: the FFmpeg encoder used.
        container: the FFmpeg muxer used.
        sample_rate: output sample rate in Hz.
        bit_rate: nominal bit rate in bits per second (PCM: what the sample format implies).
        content_type: the file's MIME type.
        extension: the file name extension.
    """

    format: str
    codec: str
    container: str
    sample_rate: int
    bit_rate: int
    content_type: str
    extension: str
    #: Every format is mono: speech gains nothing from a second channel.
    channels: ClassVar[int] = 1


_OGG_OPUS = AudioEncoding(
    format="opus",
    codec="libopus",
    container="ogg",
    sample_rate=48_000,
    bit_rate=96_000,
    content_type=MEDIA_TYPES["opus"],
    extension="opus",
)

#: Output format -> encoding. AAC is written as ADTS (``.aac``, ``audio/aac``): it streams
#: from the first byte and needs no seekable output, unlike an MP4 (M4A) ``moov`` atom.
AUDIO_FORMATS: dict[str, AudioEncoding] = {
    "mp3": AudioEncoding(
        format="mp3",
        codec="libmp3lame",
        container="mp3",
        sample_rate=44_100,
        bit_rate=128_000,
        content_type=MEDIA_TYPES["mp3"],
        extension="mp3",
    ),
    "wav": AudioEncoding(
        format="wav",
        codec="pcm_s16le",
        container="wav",
        sample_rate=44_100,
        bit_rate=44_100 * 16,
        content_type=MEDIA_TYPES["wav"],
        extension="wav",
    ),
    "opus": _OGG_OPUS,
    # The same encoding under its container's name: ``-o talk.ogg`` writes it, so the API
    # takes the name too, and echoes whichever the caller used.
    "ogg": attrs.evolve(_OGG_OPUS, format="ogg", extension="ogg"),
    "aac": AudioEncoding(
        format="aac",
        codec="aac",
        container="adts",
        sample_rate=44_100,
        bit_rate=128_000,
        content_type=MEDIA_TYPES["aac"],
        extension="aac",
    ),
}


def _lower(value: object) -> object:
    return value.lower() if isinstance(value, str) else value


# Something a voice can say: a letter or a digit (Python's Unicode ``\w`` minus "_"). The same
# pattern is the schema's, so the schema and the validator accept exactly the same scripts.
SPEAKABLE_PATTERN = r"[^\W_]"
_SPEAKABLE = re.compile(SPEAKABLE_PATTERN)


def _script(inst: object, attribute: attrs.Attribute[Any], value: str) -> None:
    if not value.strip():
        raise InvalidRequestError.single("script", "must contain text")
    if not _SPEAKABLE.search(value):
        msg = "must contain something to speak: letters or digits, not only symbols or emoji"
        raise InvalidRequestError.single("script", msg)


def _voice_id(inst: object, attribute: attrs.Attribute[Any], value: str) -> None:
    if not _VOICE_ID.fullmatch(value):
        msg = (
            f"{value[:40]!r} is not a voice id (letters, digits and _ . + - only); list the "
            "valid ids with `renderkit audio --list-voices`"
        )
        raise InvalidRequestError.single("voice_id", msg)


@checked
@attrs.frozen(kw_only=True)
class AudioRequest:
    """A request to turn a script into speech.

    Attributes:
        script: the text to speak: at most 5,000 characters, not only whitespace.
        voice_id: the speech provider's voice id (default ``21m00Tcm4TlvDq8ikWAM``, which
            every provider accepts). The local engine also takes espeak-ng voices such as
            ``en-us``, ``en-gb``, ``de``, ``fr`` or ``en-us+f3``, and, where the neural
            engine is installed, Kokoro voices such as ``af_heart`` or ``bm_george``; see
            ``renderkit audio --list-voices``.
        model: ``eleven_multilingual_v2`` (default), ``eleven_turbo_v2`` or
            ``eleven_monolingual_v1``. Echoed; the local engine has one model.
        format: ``mp3`` (default, 128 kbps 44.1 kHz), ``wav`` (16-bit PCM 44.1 kHz),
            ``opus`` (96 kbps 48 kHz, Ogg; ``ogg`` is the same encoding) or ``aac`` (128 kbps
            44.1 kHz, ADTS). All mono.
        stability: 0-1 (default 0.5); higher is steadier, lower more expressive.
        similarity: 0-1 (default 0.75); closeness to the original voice (alias
            similarity_boost).
        speed: 0.7-1.2 (default 1.0); speaking rate relative to the voice's normal rate.
        style: 0-1 (default 0); exaggerates the voice's style.
        cache: server only: false renders again instead of answering from the render cache
            (default true); the library ignores it.
    """

    __rk_aliases__: ClassVar[dict[str, str]] = {"similarity_boost": "similarity"}
    # Rules the validators enforce that the generated schema cannot state by itself.
    __rk_schema_extra__: ClassVar[dict[str, Any]] = {
        "allOf": [
            {
                "properties": {
                    "script": {"type": "string", "pattern": SPEAKABLE_PATTERN},
                    "voice_id": {"type": "string", "pattern": VOICE_ID_PATTERN},
                }
            }
        ]
    }

    script: str = attrs.field(validator=[v.max_length(MAX_SCRIPT_CHARACTERS), _script])
    voice_id: str = attrs.field(default=DEFAULT_VOICE_ID, validator=_voice_id)
    model: str = attrs.field(default="eleven_multilingual_v2", validator=v.choice(AUDIO_MODELS))
    format: str = attrs.field(default="mp3", converter=_lower, validator=v.choice(AUDIO_FORMATS))
    stability: float = attrs.field(default=0.5, validator=v.in_range(0, 1))
    similarity: float = attrs.field(default=0.75, validator=v.in_range(0, 1))
    speed: float = attrs.field(default=1.0, validator=v.in_range(0.7, 1.2))
    style: float = attrs.field(default=0.0, validator=v.in_range(0, 1))
    cache: bool = True

    @property
    def characters(self) -> int:
        """The number of characters synthesised (and billed)."""
        return len(self.script)

    @property
    def encoding(self) -> AudioEncoding:
        """How the requested format is encoded."""
        return AUDIO_FORMATS[self.format]

    @property
    def suggested_filename(self) -> str:
        """A readable name for the file: ``speech-<first words of the script>.mp3``."""
        first_words = " ".join(self.script.split()[:_FILENAME_WORDS])
        return suggested_filename("speech", first_words, self.encoding.extension)

    @property
    def estimated_seconds(self) -> float:
        """A rough duration before synthesis (15 characters a second at speed 1).

        For reserving quota only; results report the duration measured from the file.
        """
        return self.characters / (ESTIMATED_CHARACTERS_PER_SECOND * self.speed)


#: How many of the script's words name its file.
_FILENAME_WORDS = 6


@attrs.frozen(kw_only=True)
class AudioResult:
    """Synthesised speech.

    Attributes:
        content: the encoded file.
        format: ``mp3``, ``wav``, ``opus``, ``ogg`` or ``aac``, as requested.
        duration_seconds: the duration measured from the produced file.
        characters: characters synthesised (the script's length).
        voice_id: the voice as requested.
        model: the model as requested.
        sample_rate: sample rate of the file in Hz.
        channels: channel count of the file (1).
        provider: name of the speech provider that produced it (``local``, ``elevenlabs``).
        filename: a readable suggested file name (``speech-hello-there.mp3``), see
            :mod:`renderkit.core.filenames`.
        key, url: where the file was stored, when a storage backend was given.
    """

    content: bytes = attrs.field(repr=False)
    format: str
    duration_seconds: float
    characters: int
    voice_id: str
    model: str
    sample_rate: int
    channels: int = 1
    provider: str
    filename: str = attrs.field(
        default=attrs.Factory(
            lambda self: f"speech.{AUDIO_FORMATS[self.format].extension}", takes_self=True
        )
    )
    key: str | None = None
    url: str | None = None

    @property
    def encoding(self) -> AudioEncoding:
        """The encoding of ``format``."""
        return AUDIO_FORMATS[self.format]

    @property
    def content_type(self) -> str:
        """The MIME type of ``content``."""
        return self.encoding.content_type

    @property
    def extension(self) -> str:
        """The file name extension for ``content``."""
        return self.encoding.extension

    @property
    def size_bytes(self) -> int:
        """Size of the encoded file."""
        return len(self.content)

    @property
    def duration_est(self) -> float:
        """Variant B's name for :attr:`duration_seconds` (measured, not estimated)."""
        return self.duration_seconds

    @property
    def duration_est_sec(self) -> float:
        """The reference's name for :attr:`duration_seconds` (measured, not estimated)."""
        return self.duration_seconds

    @property
    def characters_used(self) -> int:
        """Variant A's name for :attr:`characters`."""
        return self.characters

    def save(self, path: str | Path) -> Path:
        """Write the file to ``path`` and return it."""
        path = Path(path)
        path.write_bytes(self.content)
        return path

    # Jupyter shows an inline player through this hook.
    def _repr_html_(self) -> str:
        encoded = base64.b64encode(self.content).decode()
        return (
            f'<audio controls preload="metadata" '
            f'src="data:{self.content_type};base64,{encoded}"></audio>'
        )
