"""Intelligibility as a number: transcribe speech with pocketsphinx, score the word error rate."""

from __future__ import annotations

import io
import re

import av

_ONES = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def number_words(n: int) -> str:
    """English words for 0 <= n < 1,000,000 ("2024" -> "two thousand twenty four")."""
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + ("" if n % 10 == 0 else " " + _ONES[n % 10])
    if n < 1000:
        rest = "" if n % 100 == 0 else " " + number_words(n % 100)
        return _ONES[n // 100] + " hundred" + rest
    rest = "" if n % 1000 == 0 else " " + number_words(n % 1000)
    return number_words(n // 1000) + " thousand" + rest


def normalise(text: str) -> list[str]:
    """Lower-case words: digits spelt out, punctuation and "and" dropped (speakers differ
    on "one hundred and five"), hyphens and apostrophes kept inside words."""
    text = re.sub(r"(?<=\d),(?=\d{3})", "", text.lower())
    text = re.sub(r"\d+", lambda m: " " + number_words(int(m.group())) + " ", text)
    words = re.findall(r"[a-z]+(?:'[a-z]+)?", text.replace("-", " "))
    return [w for w in words if w != "and"]


def word_error_rate(reference: str, hypothesis: str) -> float:
    """Word-level Levenshtein distance over the reference's length, after :func:`normalise`."""
    ref, hyp = normalise(reference), normalise(hypothesis)
    previous = list(range(len(hyp) + 1))
    for i, word in enumerate(ref, 1):
        current = [i]
        for j, said in enumerate(hyp, 1):
            current.append(
                min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (word != said))
            )
        previous = current
    return previous[-1] / max(1, len(ref))


def pcm_16k(content: bytes) -> bytes:
    """Any audio file as 16 kHz mono 16-bit PCM (what pocketsphinx's model expects)."""
    out = []
    with av.open(io.BytesIO(content)) as container:
        resampler = av.AudioResampler(format="s16", layout="mono", rate=16_000)
        for frame in container.decode(container.streams.audio[0]):
            out += [bytes(f.planes[0])[: f.samples * 2] for f in resampler.resample(frame)]
        out += [bytes(f.planes[0])[: f.samples * 2] for f in resampler.resample(None)]
    return b"".join(out)


def transcribe(content: bytes) -> str:
    """pocketsphinx's US English transcript of an audio file (its model ships in the wheel)."""
    from pocketsphinx import Decoder

    decoder = Decoder(samprate=16_000, loglevel="FATAL")
    decoder.start_utt()
    decoder.process_raw(pcm_16k(content), full_utt=True)
    decoder.end_utt()
    hypothesis = decoder.hyp()
    return hypothesis.hypstr if hypothesis is not None else ""
