"""Encoding speech into the output formats, in-process with PyAV (FFmpeg's libraries).

Everything here is blocking and CPU-bound: callers run it in a worker thread. PyAV is an
optional dependency (``renderkit[audio]``), imported on first use.
"""

from __future__ import annotations

import contextlib
import io
import sys
from array import array
from fractions import Fraction
from types import ModuleType
from typing import Any

import attrs

from renderkit.core.errors import ProviderError, RenderError
from renderkit.core.optional import require_module
from renderkit.speech._models import AUDIO_FORMATS, AudioEncoding
from renderkit.speech._protocol import SpeechAudio

__all__ = [
    "MP3_FRAME",
    "STREAMABLE_FORMATS",
    "AudioInfo",
    "EncodedAudio",
    "Mp3Part",
    "Mp3Splitter",
    "PcmEncoder",
    "decode_pcm",
    "encode",
    "encode_mp3_part",
    "encode_pcm",
    "join_mp3_parts",
    "probe",
]

# LAME's "-q 7" ("fast, ok quality" in its manual) instead of its default 3: about 40 % less
# CPU per minute of audio, and no audible difference on speech, which espeak-ng limits to
# 11 kHz anyway. The bit rate is constant either way. No bit reservoir: every MP3 frame then
# carries its own bits, so frames encoded by separate LAME instances can be spliced (see
# Mp3Splitter); at a constant 128 kbps for mono speech it measures the same (SNR within
# 0.1 dB) as with the reservoir.
# Opus: constrained VBR keeps the average at the nominal 96 kbps while letting frames vary.
_CODEC_OPTIONS: dict[str, dict[str, str]] = {
    "libmp3lame": {"compression_level": "7", "reservoir": "0"},
    "libopus": {"vbr": "constrained"},
}

# A streamed file is written front to back, never seeked: MP3 gets no Xing/Info header
# (its frame counts are only known at the end; a constant bit rate needs none), and Ogg
# closes a page every 100 ms instead of every second, so audio leaves as soon as it is made.
_STREAM_MUXER_OPTIONS: dict[str, dict[str, str]] = {
    "mp3": {"write_xing": "0"},
    "ogg": {"page_duration": "100000"},
}

#: Output formats :class:`PcmEncoder` can write as a stream (WAV's header holds the size).
STREAMABLE_FORMATS = ("mp3", "opus", "ogg", "aac")

# LAME's own low-pass for 128 kbps mono at 44.1 kHz is about 17 kHz.
_LAME_LOWPASS_HZ = 16_000


def _lame_cutoff(source_rate: int) -> int | None:
    """LAME's low-pass for a source sampled at ``source_rate``; None: LAME's own choice.

    A source sampled below 32 kHz holds nothing above its Nyquist frequency: telling LAME so
    spares it analysing empty bands (about 8 % of its time on espeak-ng's 22.05 kHz speech)
    and removes nothing that was there.
    """
    nyquist = source_rate // 2
    return nyquist if nyquist < _LAME_LOWPASS_HZ else None


def _codec_options(encoding: AudioEncoding, *, source_rate: int | None) -> dict[str, str]:
    """The encoder's options for audio first sampled at ``source_rate`` (None: unknown)."""
    options = dict(_CODEC_OPTIONS.get(encoding.codec, {}))
    if encoding.codec == "libmp3lame" and source_rate is not None:
        cutoff = _lame_cutoff(source_rate)
        if cutoff is not None:
            options["cutoff"] = str(cutoff)
    return options


#: Samples per MP3 (MPEG-1 Layer III) frame.
MP3_FRAME = 1152
# Frames a part encodes before its first kept frame and after its last: LAME's state (MDCT
# overlap, psychoacoustic look-ahead, about 1,600 samples) is then the same as in a single
# encoder's run at the kept frames, so the spliced stream decodes as one.
_WARMUP_FRAMES = 3
# A cut is placed at the quietest frame boundary within this distance of its target.
_CUT_SEARCH_SECONDS = 0.5

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
    return require_module("av", purpose="encoding speech", extra="audio")


def _layout(channels: int) -> str:
    return "stereo" if channels == 2 else "mono"


class _Pieces:
    """A write-only, unseekable file: the muxer writes a stream, front to back."""

    def __init__(self) -> None:
        self.pieces: list[bytes] = []

    def write(self, data: bytes) -> int:
        self.pieces.append(bytes(data))
        return len(data)

    def take(self) -> bytes:
        data = b"".join(self.pieces)
        self.pieces.clear()
        return data


class PcmEncoder:
    """Encode 16-bit interleaved PCM into ``encoding`` chunk by chunk (resampled, mono).

    Feed chunks as a provider produces them, then call :meth:`finish` for the file. Calls
    block (run them in a worker thread) and must not overlap; any thread may make them.

    With ``stream=True`` the file is written front to back (one encoder for the whole
    stream, so the pieces concatenate into one valid file): :meth:`take` returns the bytes
    written since the last call, and :meth:`finish` the rest. Only
    :data:`STREAMABLE_FORMATS` can be streamed.

    Raises:
        RenderError: FFmpeg could not set up the encoder.
        MissingDependencyError: PyAV is not installed.
    """

    def __init__(
        self, encoding: AudioEncoding, *, sample_rate: int, channels: int, stream: bool = False
    ) -> None:
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
        self._out: io.BytesIO | _Pieces = _Pieces() if stream else io.BytesIO()
        #: Seconds of audio fed so far.
        self.duration_seconds = 0.0
        muxer = _STREAM_MUXER_OPTIONS.get(encoding.container, {}) if stream else {}
        try:
            self._container: Any = av.open(self._out, "w", format=encoding.container, options=muxer)
            self._stream: Any = self._container.add_stream(
                encoding.codec,
                rate=encoding.sample_rate,
                layout=_layout(encoding.channels),
                options=_codec_options(encoding, source_rate=sample_rate),
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
        self.duration_seconds = self._samples / self.sample_rate
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
        return self._out.take() if isinstance(self._out, _Pieces) else self._out.getvalue()

    def take(self) -> bytes:
        """The bytes of a stream written since the last call (b"" if none yet)."""
        if not isinstance(self._out, _Pieces):
            msg = "take() needs an encoder made with stream=True"
            raise RuntimeError(msg)
        return self._out.take()

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


@attrs.frozen(kw_only=True)
class Mp3Part:
    """A stretch of the audio for one LAME encoder (see :class:`Mp3Splitter`).

    Attributes:
        index: position of the part in the file (0 first).
        pcm: signed 16-bit mono samples at 44.1 kHz: the part's own frames plus the warm-up
            frames before (``skip`` of them) and after.
        skip: leading frames to drop from the encoder's output.
        keep: frames to keep after those; None for the last part (everything, flushed).
        source_rate: the sample rate the speech was produced at (it sets LAME's low-pass).
    """

    index: int
    pcm: bytes = attrs.field(repr=False)
    skip: int
    keep: int | None
    source_rate: int | None = None


class Mp3Splitter:
    """Cut a PCM stream into parts that separate LAME encoders can encode at the same time.

    The input (16-bit interleaved, any rate, mono or stereo) is resampled to mono 44.1 kHz
    here, once, so every cut falls exactly on the frame grid a single encoder would use. A
    cut is made about every ``part_seconds``, at the quietest frame boundary near that
    target (a pause between words), and each part overlaps its neighbours by a few warm-up
    frames that its encoder produces and :func:`encode_mp3_part` drops. With the bit
    reservoir off, the kept frames are what one encoder would have written: joined by
    :func:`join_mp3_parts` they decode to one continuous stream, sample for sample as long
    as the input.

    Calls block (run them in a worker thread) and must not overlap.

    Raises:
        RenderError: FFmpeg could not resample the audio.
        MissingDependencyError: PyAV is not installed.
    """

    def __init__(self, *, sample_rate: int, channels: int, part_seconds: float | None) -> None:
        av = _av()
        self.sample_rate = sample_rate
        self.channels = channels
        #: True once the input contained a non-zero sample.
        self.audible = False
        self._av = av
        self._frame_bytes = 2 * channels
        self._rate = AUDIO_FORMATS["mp3"].sample_rate
        #: Samples per part (a multiple of MP3_FRAME); None: one part, no cuts.
        self._part = (
            None
            if part_seconds is None
            else max(1, round(part_seconds * self._rate / MP3_FRAME)) * MP3_FRAME
        )
        self._search = round(_CUT_SEARCH_SECONDS * self._rate / MP3_FRAME) * MP3_FRAME
        self._resampler = av.AudioResampler(format="s16", layout="mono", rate=self._rate)
        self._pending = b""
        self._in_samples = 0
        self._buffer = bytearray()  # 44.1 kHz mono samples from absolute sample ``_base`` on
        self._base = 0
        self._start = 0  # first sample of the next part (a multiple of MP3_FRAME)
        self._index = 0

    @property
    def _end(self) -> int:
        return self._base + len(self._buffer) // 2

    def feed(self, pcm: bytes) -> list[Mp3Part]:
        """Take a chunk (it need not end on a sample boundary); return the parts now complete.

        Raises:
            RenderError: FFmpeg failed.
        """
        data = self._pending + pcm if self._pending else pcm
        usable = len(data) - len(data) % self._frame_bytes
        self._pending = data[usable:]
        if not usable:
            return []
        if not self.audible and data[:usable].strip(b"\0"):
            self.audible = True
        av = self._av
        samples = usable // self._frame_bytes
        frame = av.AudioFrame(format="s16", layout=_layout(self.channels), samples=samples)
        frame.planes[0].update(data[:usable] if usable < len(data) else data)
        frame.sample_rate = self.sample_rate
        frame.pts = self._in_samples
        frame.time_base = Fraction(1, self.sample_rate)
        self._in_samples += samples
        self._resample(frame)
        parts: list[Mp3Part] = []
        if self._part is None:
            return parts
        while self._end >= self._start + self._part + self._search + _WARMUP_FRAMES * MP3_FRAME:
            parts.append(self._cut(self._quietest_boundary(self._start + self._part)))
        return parts

    def finish(self) -> Mp3Part:
        """The last part: the rest of the audio, to be encoded to the end.

        Raises:
            RenderError: FFmpeg failed.
        """
        self._resample(None)
        skip = _WARMUP_FRAMES if self._index else 0
        first = self._start - skip * MP3_FRAME
        pcm = bytes(self._buffer[(first - self._base) * 2 :])
        self._buffer = bytearray()
        self._base = self._end
        return Mp3Part(
            index=self._index, pcm=pcm, skip=skip, keep=None, source_rate=self.sample_rate
        )

    def _resample(self, frame: Any) -> None:
        try:
            for out in self._resampler.resample(frame):
                self._buffer += bytes(out.planes[0])[: out.samples * 2]
        except self._av.error.FFmpegError as exc:
            msg = "could not resample the speech"
            raise RenderError(msg) from exc

    def _quietest_boundary(self, target: int) -> int:
        """The frame boundary near ``target`` with the least peak level around it."""
        granule = MP3_FRAME // 2
        low = max(self._start + MP3_FRAME, target - self._search)
        high = target + self._search
        samples = array(
            "h",
            self._buffer[
                (low - granule * 2 - self._base) * 2 : (high + granule * 2 - self._base) * 2
            ],
        )
        if sys.byteorder == "big":
            samples.byteswap()
        # Peak level of each granule (half frame); a boundary is judged by the two granules
        # either side of it, the stretch a join would touch.
        peaks = [
            max(max(block, default=0), -min(block, default=0))
            for block in (samples[i : i + granule] for i in range(0, len(samples), granule))
        ]

        def level(boundary: int) -> int:
            first = (boundary - low) // granule  # the granule starting one frame earlier
            return max(peaks[first : first + 4])

        candidates = range(low, high + 1, MP3_FRAME)
        return min(candidates, key=lambda b: (level(b), abs(b - target)))

    def _cut(self, boundary: int) -> Mp3Part:
        skip = _WARMUP_FRAMES if self._index else 0
        first = self._start - skip * MP3_FRAME
        last = boundary + _WARMUP_FRAMES * MP3_FRAME
        pcm = bytes(self._buffer[(first - self._base) * 2 : (last - self._base) * 2])
        part = Mp3Part(
            index=self._index,
            pcm=pcm,
            skip=skip,
            keep=(boundary - self._start) // MP3_FRAME,
            source_rate=self.sample_rate,
        )
        # Keep what the next part needs: its warm-up frames before the boundary.
        drop = boundary - _WARMUP_FRAMES * MP3_FRAME - self._base
        del self._buffer[: drop * 2]
        self._base += drop
        self._start = boundary
        self._index += 1
        return part


def _mp3_context(encoding: AudioEncoding, context: Any, *, source_rate: int | None = None) -> None:
    context.sample_rate = encoding.sample_rate
    context.layout = _layout(encoding.channels)
    context.format = "s16p"  # mono: the same bytes as the splitter's s16, nothing to convert
    context.bit_rate = encoding.bit_rate
    context.time_base = Fraction(1, encoding.sample_rate)
    context.options = _codec_options(encoding, source_rate=source_rate)


def encode_mp3_part(part: Mp3Part) -> list[Any]:
    """Encode one part with its own LAME encoder; the packets (MP3 frames) it keeps.

    Blocking, and mostly outside the GIL: parts encode in parallel in worker threads.

    Raises:
        RenderError: FFmpeg failed.
        MissingDependencyError: PyAV is not installed.
    """
    av = _av()
    encoding = AUDIO_FORMATS["mp3"]
    packets: list[Any] = []
    try:
        context: Any = av.CodecContext.create(encoding.codec, "w")
        _mp3_context(encoding, context, source_rate=part.source_rate)
        context.open()
        if part.pcm:
            frame = av.AudioFrame(format="s16p", layout="mono", samples=len(part.pcm) // 2)
            frame.planes[0].update(part.pcm)
            frame.sample_rate = encoding.sample_rate
            frame.pts = 0
            frame.time_base = Fraction(1, encoding.sample_rate)
            # PyAV cuts the part into LAME's 1,152-sample frames itself, in compiled code.
            packets.extend(context.encode(frame))
        packets.extend(context.encode(None))
    except av.error.FFmpegError as exc:
        msg = "could not encode the speech as mp3"
        raise RenderError(msg) from exc
    end = None if part.keep is None else part.skip + part.keep
    return packets[part.skip : end]


def join_mp3_parts(parts: list[list[Any]]) -> bytes:
    """Mux the parts' packets, in order, into one MP3 file with one Xing/Info header.

    The header counts every frame and carries the first part's encoder delay and the last
    part's padding, so the file's duration is that of the audio encoded.

    Raises:
        RenderError: FFmpeg failed.
        MissingDependencyError: PyAV is not installed.
    """
    av = _av()
    encoding = AUDIO_FORMATS["mp3"]
    out = io.BytesIO()
    try:
        with av.open(out, "w", format=encoding.container) as container:
            stream: Any = container.add_stream(
                encoding.codec, rate=encoding.sample_rate, layout=_layout(encoding.channels)
            )
            _mp3_context(encoding, stream.codec_context)
            stream.codec_context.open()  # sets the encoder delay the header records
            origin = next((p.pts for packets in parts for p in packets), 0) or 0
            index = 0
            for packets in parts:
                for packet in packets:
                    packet.pts = packet.dts = origin + index * MP3_FRAME
                    packet.stream = stream
                    container.mux(packet)
                    index += 1
    except av.error.FFmpegError as exc:
        msg = "could not encode the speech as mp3"
        raise RenderError(msg) from exc
    return out.getvalue()


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
