"""Encoding speech into the output formats, in-process with PyAV (FFmpeg's libraries).

Everything here is blocking and CPU-bound: callers run it in a worker thread. PyAV is an
optional dependency (``renderkit[audio]``), imported on first use.
"""

from __future__ import annotations

import contextlib
import io
from fractions import Fraction
from types import ModuleType
from typing import Any

import attrs

from .._audio_models import AUDIO_FORMATS, AudioEncoding
from .._errors import MissingDependencyError, ProviderError, RenderError
from ._protocol import SpeechAudio

__all__ = [
    "AudioInfo",
    "EncodedAudio",
    "PcmEncoder",
    "decode_pcm",
    "encode",
    "encode_pcm",
    "probe",
]

# LAME's "-q 7" ("fast, ok quality" in its manual) instead of its default 3: about 40 % less
# CPU per minute of audio, and no audible difference on speech, which espeak-ng limits to
# 11 kHz anyway. The bit rate is constant either way.
# Opus: constrained VBR keeps the average at the nominal 96 kbps while letting frames vary.
_CODEC_OPTIONS: dict[str, dict[str, str]] = {
    "libmp3lame": {"compression_level": "7"},
    "libopus": {"vbr": "constrained"},
}

# A provider's file is passed through only if its bit rate is this close to the nominal one.
_BIT_RATE_TOLERANCE = 0.1


@attrs.frozen(kw_only=True)
class AudioInfo:
    """Facts read back from an encoded file.

    Attributes:
        codec: the codec's canonical FFmpeg name (``mp3``, ``pcm_s16le``, ``opus``, ``aac``).
        container: the demuxer that read the file (``mp3``, ``wav``, ``ogg``, ``aac``).
        sample_rate: Hz.
        channels: channel count.
        duration_seconds: the file's playing time.
        bit_rate: the average bit rate of the whole file (size / duration).
    """

    codec: str
    container: str
    sample_rate: int
    channels: int
    duration_seconds: float
    bit_rate: int


@attrs.frozen(kw_only=True)
class EncodedAudio:
    """A file in one output format, with its measured facts."""

    content: bytes = attrs.field(repr=False)
    encoding: AudioEncoding
    info: AudioInfo


def _av() -> ModuleType:
    try:
        import av
    except ImportError as exc:
        msg = "encoding speech needs PyAV: pip install 'renderkit[audio]'"
        raise MissingDependencyError(msg) from exc
    return av


def _layout(channels: int) -> str:
    return "stereo" if channels == 2 else "mono"


class PcmEncoder:
    """Encode 16-bit interleaved PCM into ``encoding`` chunk by chunk (resampled, mono).

    Feed chunks as a provider produces them, then call :meth:`finish` for the file. Calls
    block (run them in a worker thread) and must not overlap; any thread may make them.

    Raises:
        RenderError: FFmpeg could not set up the encoder.
        MissingDependencyError: PyAV is not installed.
    """

    def __init__(self, encoding: AudioEncoding, *, sample_rate: int, channels: int) -> None:
        av = _av()
        self.encoding = encoding
        self.sample_rate = sample_rate
        self.channels = channels
        #: True once a chunk contained a non-zero sample.
        self.audible = False
        self._av = av
        self._frame_bytes = 2 * channels
        self._pending = b""
        self._samples = 0
        self._closed = False
        self._out = io.BytesIO()
        try:
            self._container: Any = av.open(self._out, "w", format=encoding.container)
            self._stream: Any = self._container.add_stream(
                encoding.codec,
                rate=encoding.sample_rate,
                layout=_layout(encoding.channels),
                options=_CODEC_OPTIONS.get(encoding.codec, {}),
            )
            context = self._stream.codec_context
            if encoding.codec != "pcm_s16le":
                context.bit_rate = encoding.bit_rate
            context.open()
            # Encoders with a fixed frame size (MP3 1152, AAC 1024, Opus 960) get exactly that.
            self._resampler = av.AudioResampler(
                format=context.format.name,
                layout=_layout(encoding.channels),
                rate=encoding.sample_rate,
                frame_size=context.frame_size or None,
            )
        except av.error.FFmpegError as exc:
            msg = f"could not set up the {encoding.format} encoder"
            raise RenderError(msg) from exc

    def feed(self, pcm: bytes) -> None:
        """Encode a chunk; it need not end on a sample boundary.

        Raises:
            RenderError: FFmpeg failed.
        """
        self._check_open()
        data = self._pending + pcm if self._pending else pcm
        usable = len(data) - len(data) % self._frame_bytes
        self._pending = data[usable:]
        if not self.audible and data[:usable].strip(b"\0"):
            self.audible = True
        # At most one second per frame keeps the resampler's buffers small.
        step = self.sample_rate * self._frame_bytes
        for offset in range(0, usable, step):
            self._encode(data[offset : min(offset + step, usable)])

    def _encode(self, part: bytes) -> None:
        av = self._av
        samples = len(part) // self._frame_bytes
        frame = av.AudioFrame(format="s16", layout=_layout(self.channels), samples=samples)
        frame.planes[0].update(part)
        frame.sample_rate = self.sample_rate
        frame.pts = self._samples
        frame.time_base = Fraction(1, self.sample_rate)
        self._samples += samples
        try:
            for resampled in self._resampler.resample(frame):
                self._container.mux(self._stream.encode(resampled))
        except av.error.FFmpegError as exc:
            self.close()
            msg = f"could not encode the speech as {self.encoding.format}"
            raise RenderError(msg) from exc

    def finish(self) -> bytes:
        """Flush the encoder and return the whole file.

        Raises:
            RenderError: FFmpeg failed.
        """
        self._check_open()
        av = self._av
        try:
            for resampled in self._resampler.resample(None):
                self._container.mux(self._stream.encode(resampled))
            self._container.mux(self._stream.encode(None))
            self._closed = True
            self._container.close()
        except av.error.FFmpegError as exc:
            self.close()
            msg = f"could not encode the speech as {self.encoding.format}"
            raise RenderError(msg) from exc
        return self._out.getvalue()

    def close(self) -> None:
        """Abandon the file and free the encoder (after a failure); idempotent."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(self._av.error.FFmpegError, ValueError):
            self._container.close()

    def _check_open(self) -> None:
        if self._closed:
            msg = "the encoder is closed"
            raise RuntimeError(msg)


def encode_pcm(pcm: bytes, *, sample_rate: int, channels: int, encoding: AudioEncoding) -> bytes:
    """Encode signed 16-bit interleaved PCM into ``encoding`` (resampled, downmixed to mono).

    Raises:
        RenderError: FFmpeg could not encode the audio.
        MissingDependencyError: PyAV is not installed.
    """
    encoder = PcmEncoder(encoding, sample_rate=sample_rate, channels=channels)
    encoder.feed(pcm)
    return encoder.finish()


def decode_pcm(content: bytes, *, provider: str) -> SpeechAudio:
    """Decode an audio file into signed 16-bit interleaved PCM at its own rate.

    Raises:
        ProviderError: the file is not audio FFmpeg can read.
        MissingDependencyError: PyAV is not installed.
    """
    av = _av()
    chunks: list[bytes] = []
    try:
        with av.open(io.BytesIO(content)) as container:
            stream = container.streams.audio[0]
            channels = min(stream.codec_context.channels, 2)
            rate = stream.codec_context.sample_rate
            resampler = av.AudioResampler(format="s16", layout=_layout(channels), rate=rate)
            for frame in container.decode(stream):
                for out in resampler.resample(frame):
                    chunks.append(bytes(out.planes[0])[: out.samples * 2 * channels])
            for out in resampler.resample(None):
                chunks.append(bytes(out.planes[0])[: out.samples * 2 * channels])
    except (av.error.FFmpegError, IndexError) as exc:
        msg = "the speech provider returned audio that cannot be decoded"
        raise ProviderError(msg, provider=provider) from exc
    return SpeechAudio(data=b"".join(chunks), encoding="pcm", sample_rate=rate, channels=channels)


def probe(content: bytes) -> AudioInfo:
    """Read codec, sample rate, channels and the playing time of an encoded file.

    The duration is the container's own (MP3 Xing/Info frame counts with the encoder delay
    removed, the WAV data size, Ogg granule positions); for headerless streams (ADTS) it is
    the sum of the packets' durations. Nothing is decoded, so this is fast.

    Raises:
        ValueError: the content is not a readable audio file.
        MissingDependencyError: PyAV is not installed.
    """
    av = _av()
    try:
        with av.open(io.BytesIO(content)) as container:
            stream = container.streams.audio[0]
            context = stream.codec_context
            demuxer = container.format.name.split(",")[0]
            if container.duration is not None and demuxer != "aac":
                duration = container.duration / av.time_base
            else:
                ticks = sum(p.duration or 0 for p in container.demux(stream))
                duration = float(ticks * stream.time_base)
            info = AudioInfo(
                codec=context.codec.canonical_name,
                container=demuxer,
                sample_rate=context.sample_rate,
                channels=context.channels,
                duration_seconds=duration,
                bit_rate=round(len(content) * 8 / duration) if duration > 0 else 0,
            )
    except (av.error.FFmpegError, IndexError) as exc:
        msg = "not a readable audio file"
        raise ValueError(msg) from exc
    return info


def _matches(info: AudioInfo, encoding: AudioEncoding) -> bool:
    return (
        info.codec == _av().Codec(encoding.codec, "w").canonical_name
        and info.sample_rate == encoding.sample_rate
        and info.channels <= 2
        and abs(info.bit_rate - encoding.bit_rate) <= encoding.bit_rate * _BIT_RATE_TOLERANCE
    )


def encode(audio: SpeechAudio, output_format: str, *, provider: str) -> EncodedAudio:
    """Turn a provider's audio into ``output_format``, measuring the result.

    PCM is encoded; a file already in the requested encoding is kept as is; any other file
    is decoded and re-encoded.

    Raises:
        ProviderError: the provider returned no audio, or audio that cannot be decoded.
        RenderError: encoding failed.
        MissingDependencyError: PyAV is not installed.
    """
    encoding = AUDIO_FORMATS[output_format]
    if audio.encoding != "pcm":
        try:
            info = probe(audio.data)
        except ValueError as exc:
            msg = "the speech provider returned audio that cannot be decoded"
            raise ProviderError(msg, provider=provider) from exc
        if audio.encoding == output_format and _matches(info, encoding):
            return EncodedAudio(content=audio.data, encoding=encoding, info=info)
        audio = decode_pcm(audio.data, provider=provider)
    if not audio.data.strip(b"\0"):
        msg = "the speech provider returned no audible audio"
        raise ProviderError(msg, provider=provider)
    content = encode_pcm(
        audio.data, sample_rate=audio.sample_rate, channels=audio.channels, encoding=encoding
    )
    return EncodedAudio(content=content, encoding=encoding, info=probe(content))
