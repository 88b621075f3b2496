"""Text to Kokoro tokens: clauses, espeak-ng phonemes, and chunks of at most 510 tokens.

Blocking (espeak-ng runs as a subprocess): callers run :func:`plan_chunks` in a thread.
Phonemes come from the ``espeak-ng`` program (``-q --ipa``, one clause per output line), which
keeps the GPL phonemizer packages out of the dependency tree.
"""

from __future__ import annotations

import re
import subprocess

import attrs

from renderkit.speech._models import SPEAKABLE_PATTERN

__all__ = [
    "KOKORO_VOCAB",
    "MAX_TOKENS",
    "Chunk",
    "Clause",
    "lead_in",
    "pack_chunks",
    "phonemize",
    "plan_chunks",
    "split_clauses",
    "split_opening",
    "to_tokens",
]

#: Most phoneme tokens one model call takes (the model's 512 positions less the two pads).
MAX_TOKENS = 510

#: Kokoro-82M v1.0's phoneme vocabulary (hexgrad's ``config.json``, as kokoro-onnx ships it).
KOKORO_VOCAB: dict[str, int] = {
    ";": 1, ":": 2, ",": 3, ".": 4, "!": 5, "?": 6, "—": 9, "…": 10, '"': 11, "(": 12,
    ")": 13, "“": 14, "”": 15, " ": 16, "\u0303": 17, "ʣ": 18, "ʥ": 19, "ʦ": 20, "ʨ": 21,
    "ᵝ": 22, "\uab67": 23, "A": 24, "I": 25, "O": 31, "Q": 33, "S": 35, "T": 36, "W": 39,
    "Y": 41, "ᵊ": 42, "a": 43, "b": 44, "c": 45, "d": 46, "e": 47, "f": 48, "h": 50, "i": 51,
    "j": 52, "k": 53, "l": 54, "m": 55, "n": 56, "o": 57, "p": 58, "q": 59, "r": 60, "s": 61,
    "t": 62, "u": 63, "v": 64, "w": 65, "x": 66, "y": 67, "z": 68, "ɑ": 69, "ɐ": 70, "ɒ": 71,
    "æ": 72, "β": 75, "ɔ": 76, "ɕ": 77, "ç": 78, "ɖ": 80, "ð": 81, "ʤ": 82, "ə": 83, "ɚ": 85,
    "ɛ": 86, "ɜ": 87, "ɟ": 90, "ɡ": 92, "ɥ": 99, "ɨ": 101, "ɪ": 102, "ʝ": 103, "ɯ": 110,
    "ɰ": 111, "ŋ": 112, "ɳ": 113, "ɲ": 114, "ɴ": 115, "ø": 116, "ɸ": 118, "θ": 119, "œ": 120,
    "ɹ": 123, "ɾ": 125, "ɻ": 126, "ʁ": 128, "ɽ": 129, "ʂ": 130, "ʃ": 131, "ʈ": 132, "ʧ": 133,
    "ʊ": 135, "ʋ": 136, "ʌ": 138, "ɣ": 139, "ɤ": 140, "χ": 142, "ʎ": 143, "ʒ": 147, "ʔ": 148,
    "ˈ": 156, "ˌ": 157, "ː": 158, "ʰ": 162, "ʲ": 164, "↓": 169, "→": 171, "↗": 172, "↘": 173,
    "ᵻ": 177,
}  # fmt: skip

_SPACE = KOKORO_VOCAB[" "]
# A clause ends at punctuation followed by a space (so "3.5", "1,000" and "e.g." inside a word
# stay whole), at a dash, or at a line break (a heading or list item is its own sentence).
_BREAK = re.compile(
    r"(?P<stop>[.!?…]+)[\"'”’)\]]*(?=\s|$)"
    r"|(?P<pause>[,;:])[\"'”’)\]]*(?=\s|$)"
    r"|\s*(?P<dash>[—–]|\s-\s)\s*"
    r"|\s*(?P<line>\n)\s*"
)
_SPEAKABLE = re.compile(SPEAKABLE_PATTERN)  # what a voice can say, as the request checks it
# A full stop after these is part of the word, not the end of a sentence.
_ABBREVIATIONS = frozenset(
    {"mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "mt", "vs", "etc", "eg", "ie", "no"}
    | {"inc", "ltd", "co", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept"}
    | {"oct", "nov", "dec"}
)


@attrs.frozen(kw_only=True)
class Clause:
    """A piece of text between two breaks.

    Attributes:
        text: the words, without the punctuation that ended them.
        mark: the punctuation token that ends it (``.`` ``!`` ``?`` ``…`` ``,`` ``;`` ``:`` ``—``),
            or ``""`` for the head of a clause cut between words (see :func:`split_opening`).
        ends_sentence: the break was a full stop (or a line break), not a pause.
    """

    text: str
    mark: str
    ends_sentence: bool


@attrs.frozen(kw_only=True)
class Chunk:
    """One model call's worth of speech.

    Attributes:
        tokens: phoneme ids, at most :data:`MAX_TOKENS`, without the padding.
        ends_sentence: it ends a sentence (a longer pause follows) rather than a clause.
    """

    tokens: tuple[int, ...]
    ends_sentence: bool


def split_clauses(text: str) -> list[Clause]:
    """The clauses of ``text``, in order; pieces with nothing to speak are dropped."""
    # "Wow!Great": espeak-ng would say "exclamation"; a missing space is a typo, not a word.
    text = re.sub(r"([!?;])(?=[^\W\d_])", r"\1 ", text)
    clauses: list[Clause] = []
    position = 0
    for match in _BREAK.finditer(text):
        piece = text[position : match.start()]
        words = piece.split()
        last = words[-1].replace(".", "").lower() if words else ""
        if match["stop"] == "." and last in _ABBREVIATIONS:
            continue
        position = match.end()
        if match["stop"]:
            stop = match["stop"]
            mark = "…" if stop.startswith("..") or "…" in stop else stop[-1]
            clause = Clause(text=piece.strip(), mark=mark, ends_sentence=True)
        elif match["pause"]:
            clause = Clause(text=piece.strip(), mark=match["pause"], ends_sentence=False)
        elif match["dash"]:
            clause = Clause(text=piece.strip(), mark="—", ends_sentence=False)
        else:
            clause = Clause(text=piece.strip(), mark=".", ends_sentence=True)
        if _SPEAKABLE.search(clause.text):
            clauses.append(clause)
        elif clause.ends_sentence and clauses and not clauses[-1].ends_sentence:
            clauses[-1] = attrs.evolve(clauses[-1], mark=clause.mark, ends_sentence=True)
    rest = text[position:].strip()
    if _SPEAKABLE.search(rest):
        clauses.append(Clause(text=rest, mark=".", ends_sentence=True))
    return clauses


def _espeak(executable: str, language: str, text: str) -> list[str]:
    done = subprocess.run(
        [executable, "-q", "-v", language, "--ipa", "-b", "1", "--stdin"],
        input=text.encode(),
        capture_output=True,
        timeout=60,
        check=True,
    )
    return [line.strip() for line in done.stdout.decode().splitlines() if line.strip()]


def _espeak_mark(mark: str) -> str:
    if not mark:
        return ""  # a clause cut between words: always the last line of its run
    return mark if mark in ".!?,;:" else ","


def phonemize(clauses: list[Clause], *, executable: str, language: str) -> list[str]:
    """IPA phonemes of each clause (``""`` for a clause espeak-ng says nothing for).

    One espeak-ng run for the whole text, one clause per line, each ended by its own
    punctuation so espeak-ng ends a clause there too. Should espeak-ng split the text
    differently (an abbreviation it knows, say), each clause is phonemized on its own.

    Raises:
        OSError: espeak-ng could not be started.
        subprocess.CalledProcessError, subprocess.TimeoutExpired: espeak-ng failed.
    """
    if not clauses:
        return []
    text = "\n".join(f"{c.text}{_espeak_mark(c.mark)}" for c in clauses)
    lines = _espeak(executable, language, text)
    if len(lines) == len(clauses):
        return lines
    return [" ".join(_espeak(executable, language, c.text)) for c in clauses]


def to_tokens(phonemes: str, *, language: str = "en-us") -> list[int]:
    """Kokoro token ids for espeak-ng phonemes (symbols outside the vocabulary dropped)."""
    # espeak-ng's symbols that Kokoro's training data spelt differently.
    text = phonemes.replace("r", "ɹ").replace("x", "k").replace("ɬ", "l").replace("ʲ", "j")
    if language == "en-us":
        text = re.sub(r"(?<=nˈaɪn)ti(?!ː)", "di", text)  # "ninety" is flapped in American
    return [KOKORO_VOCAB[symbol] for symbol in text if symbol in KOKORO_VOCAB]


def _split_long(tokens: list[int], limit: int) -> list[list[int]]:
    """Cut a clause longer than ``limit`` at word boundaries (mid-word only if one is longer)."""
    pieces: list[list[int]] = []
    current: list[int] = []
    word: list[int] = []
    for token in [*tokens, _SPACE]:
        if token != _SPACE:
            word.append(token)
            continue
        while len(word) > limit:
            if current:
                pieces.append(current)
                current = []
            pieces.append(word[:limit])
            word = word[limit:]
        if current and len(current) + 1 + len(word) > limit:
            pieces.append(current)
            current = []
        if word:
            current = [*current, _SPACE, *word] if current else word
        word = []
    if current:
        pieces.append(current)
    return pieces


def pack_chunks(
    clauses: list[Clause], phonemes: list[str], *, language: str, limit: int = MAX_TOKENS
) -> list[Chunk]:
    """One chunk per sentence; a sentence over ``limit`` tokens is cut between clauses
    (and a clause over it between words)."""
    chunks: list[Chunk] = []
    current: list[int] = []

    def close(*, ends_sentence: bool) -> None:
        nonlocal current
        while current and current[-1] == _SPACE:
            current.pop()
        if current:
            chunks.append(Chunk(tokens=tuple(current), ends_sentence=ends_sentence))
        current = []

    for clause, said in zip(clauses, phonemes, strict=True):
        tokens = to_tokens(said, language=language)
        if not tokens:
            continue
        tokens += [KOKORO_VOCAB[clause.mark], _SPACE] if clause.mark else [_SPACE]
        if len(current) + len(tokens) > limit:
            close(ends_sentence=False)
        if len(tokens) > limit:
            *whole, tokens = _split_long(tokens, limit)
            for piece in whole:
                current = piece
                close(ends_sentence=False)
        current += tokens
        if clause.ends_sentence:
            close(ends_sentence=True)
    # Clauses ending mid-sentence (an opening cut short): the pause after is a clause's.
    close(ends_sentence=not clauses or clauses[-1].ends_sentence)
    return chunks


#: Token limits of the opening pieces (then whole sentences): a first model call short enough
#: to answer within a second on an idle machine, then pieces that grow while the ones before
#: them play (40 tokens speak for about 2.5 s), so a listener hears no gap.
LEAD_IN_LIMITS: tuple[int, ...] = (40, 90, 200)

_CLAUSE_MARKS = frozenset(KOKORO_VOCAB[mark] for mark in ",;:—")


def _head(tokens: tuple[int, ...], limit: int) -> int:
    """Where to cut ``tokens`` so the head holds at most ``limit``: after the last clause
    mark that keeps the head over half the limit, else at the last space, else at the limit."""
    words = [i for i in range(1, limit + 1) if tokens[i] == _SPACE]
    clauses = [i for i in words if tokens[i - 1] in _CLAUSE_MARKS and i > limit // 2]
    if clauses:
        return clauses[-1]
    return words[-1] if words else limit


def lead_in(chunks: list[Chunk], limits: tuple[int, ...] = LEAD_IN_LIMITS) -> list[Chunk]:
    """Cut the opening of ``chunks`` into pieces within ``limits`` (one limit per piece, in
    order), between clauses where one falls in the second half of the limit, else between
    words; the chunks after the last limit are left whole."""
    out: list[Chunk] = []
    rest = list(chunks)
    for limit in limits:
        if not rest:
            break
        chunk = rest.pop(0)
        if len(chunk.tokens) <= limit:
            out.append(chunk)
            continue
        cut = _head(chunk.tokens, limit)
        head = chunk.tokens[:cut]
        while head and head[-1] == _SPACE:
            head = head[:-1]
        tail = chunk.tokens[cut:]
        while tail and tail[0] == _SPACE:
            tail = tail[1:]
        out.append(Chunk(tokens=head, ends_sentence=False))
        if tail:
            rest.insert(0, Chunk(tokens=tail, ends_sentence=chunk.ends_sentence))
    return [*out, *rest]


#: Characters of the opening phonemized on their own, ahead of the rest (about the tokens the
#: lead-in limits cover), so the first model call never waits for a long script's phonemes.
OPENING_CHARACTERS = 300

#: Most characters of an opening: a longer first sentence is cut between clauses, and a
#: clause that would take it past this between words (espeak-ng takes about 0.4 s of CPU over
#: 3,000 characters without a break, more than the first model call itself).
OPENING_MOST_CHARACTERS = 2 * OPENING_CHARACTERS


def split_opening(
    clauses: list[Clause],
    characters: int = OPENING_CHARACTERS,
    most: int = OPENING_MOST_CHARACTERS,
) -> tuple[list[Clause], list[Clause]]:
    """The opening of ``clauses`` and the rest.

    The opening is whole sentences up to the first sentence end at or after ``characters``
    characters (all of them for a shorter script), but never over ``most``: it then ends at
    the last clause break within ``most`` once ``characters`` are reached, else inside the
    clause that crosses ``most``, at its last space before (that clause's head gets no
    punctuation, its tail starts the rest).
    """
    seen = 0
    for index, clause in enumerate(clauses):
        size = len(clause.text) + 2
        if seen + size > most:
            if seen >= characters:
                return clauses[:index], clauses[index:]
            head, tail = _cut_words(clause.text, most - seen - 2)
            if head:
                cut = Clause(text=head, mark="", ends_sentence=False)
                rest = attrs.evolve(clause, text=tail)
                return [*clauses[:index], cut], [rest, *clauses[index + 1 :]]
            return clauses[:index], clauses[index:]
        seen += size
        if clause.ends_sentence and seen >= characters:
            return clauses[: index + 1], clauses[index + 1 :]
    return clauses, []


def _cut_words(text: str, most: int) -> tuple[str, str]:
    """``text`` cut at its last space within ``most`` characters (at ``most`` if it has none
    there, as for one very long word); both halves stripped."""
    space = text.rfind(" ", 0, most + 1)
    cut = space if space > 0 else most
    return text[:cut].rstrip(), text[cut:].lstrip()


def plan_chunks(text: str, *, executable: str, language: str) -> list[Chunk]:
    """``text`` as the model calls that speak it, in order.

    Raises what :func:`phonemize` raises.
    """
    clauses = split_clauses(text)
    phonemes = phonemize(clauses, executable=executable, language=language)
    return pack_chunks(clauses, phonemes, language=language)
