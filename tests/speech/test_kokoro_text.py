"""Text to Kokoro tokens: clause splitting, espeak-ng phonemes, chunks within the model's limit."""

from __future__ import annotations

import pytest

from renderkit.speech._kokoro_text import (
    KOKORO_VOCAB,
    MAX_TOKENS,
    Chunk,
    Clause,
    lead_in,
    pack_chunks,
    phonemize,
    plan_chunks,
    split_clauses,
    split_opening,
    to_tokens,
)

from . import needs_espeak
from ._wer import normalise, number_words, word_error_rate


def test_clauses_end_at_punctuation_followed_by_a_space_not_inside_numbers() -> None:
    clauses = split_clauses("Hello there, Mr. Smith. It costs 3.5 dollars — or 1,000 cents! Why?")
    assert [(c.text, c.mark, c.ends_sentence) for c in clauses] == [
        ("Hello there", ",", False),
        ("Mr. Smith", ".", True),
        ("It costs 3.5 dollars", "—", False),
        ("or 1,000 cents", "!", True),
        ("Why", "?", True),
    ]


def test_a_line_break_ends_a_sentence_and_an_unpunctuated_tail_is_kept() -> None:
    clauses = split_clauses("A heading\nThen the text... and more")
    assert [(c.text, c.mark, c.ends_sentence) for c in clauses] == [
        ("A heading", ".", True),
        ("Then the text", "…", True),
        ("and more", ".", True),
    ]


def test_pieces_with_nothing_to_speak_are_dropped() -> None:
    assert [c.text for c in split_clauses("Hi! ... -- ?!  Bye.")] == ["Hi", "Bye"]


def test_tokens_map_espeak_symbols_onto_kokoro_vocabulary() -> None:
    # espeak-ng writes a trilled r and "x" where Kokoro was trained on ɹ and k.
    assert to_tokens("rx") == [KOKORO_VOCAB["ɹ"], KOKORO_VOCAB["k"]]
    assert to_tokens("a#b") == [KOKORO_VOCAB["a"], KOKORO_VOCAB["b"]]


def test_every_sentence_is_one_chunk_ending_in_its_punctuation() -> None:
    clauses = [
        Clause(text="hi", mark=",", ends_sentence=False),
        Clause(text="you", mark=".", ends_sentence=True),
        Clause(text="go", mark="?", ends_sentence=True),
    ]
    chunks = pack_chunks(clauses, ["hˈaɪ", "jˈuː", "ɡˈoʊ"], language="en-us")
    assert [c.ends_sentence for c in chunks] == [True, True]
    assert chunks[0].tokens == tuple(to_tokens("hˈaɪ, jˈuː."))
    assert chunks[1].tokens[-1] == KOKORO_VOCAB["?"]


def test_long_sentences_are_cut_between_clauses_then_words_within_the_limit() -> None:
    clause = Clause(text="x", mark=",", ends_sentence=False)
    word = "tˈɛst"  # 5 tokens
    long_clause = " ".join([word] * 30)  # 179 tokens
    clauses = [clause] * 3 + [Clause(text="x", mark=".", ends_sentence=True)]
    chunks = pack_chunks(clauses, [long_clause] * 4, language="en-us", limit=200)
    assert len(chunks) == 4
    assert all(len(c.tokens) <= 200 for c in chunks)
    assert [c.ends_sentence for c in chunks] == [False, False, False, True]
    huge = pack_chunks([clause], [" ".join([word] * 200)], language="en-us", limit=MAX_TOKENS)
    assert len(huge) == 3
    assert all(len(c.tokens) <= MAX_TOKENS for c in huge)
    assert sum(c.tokens.count(KOKORO_VOCAB["t"]) for c in huge) == 400  # no word lost


def test_the_opening_is_cut_into_growing_pieces_between_clauses_then_words() -> None:
    word = tuple(to_tokens("tˈɛst"))  # 5 tokens
    space, comma, stop = KOKORO_VOCAB[" "], KOKORO_VOCAB[","], KOKORO_VOCAB["."]
    # A 6-word clause (35 tokens with its comma and space), then a 30-word clause.
    first = [*[t for _ in range(6) for t in (*word, space)][:-1], comma, space]
    second = [*[t for _ in range(30) for t in (*word, space)][:-1], stop]
    sentence = Chunk(tokens=(*first, *second), ends_sentence=True)
    after = Chunk(tokens=(*word, stop), ends_sentence=True)

    chunks = lead_in([sentence, after], limits=(40, 90))

    assert chunks[0].tokens == tuple(first[:-1])  # the whole first clause, at its comma
    assert len(chunks[1].tokens) <= 90
    assert chunks[1].tokens[-1] != space  # cut between words
    assert [c.ends_sentence for c in chunks] == [False, False, True, True]
    assert chunks[-1] == after  # past the limits, chunks are left whole
    spoken = [t for c in chunks for t in c.tokens if t != space]
    assert spoken == [t for c in (sentence, after) for t in c.tokens if t != space]


def test_the_opening_is_whole_sentences_up_to_the_first_end_past_its_length() -> None:
    clauses = split_clauses("One, two. " + "Three four five six seven. " * 20)
    assert split_opening(clauses, characters=5) == (clauses[:2], clauses[2:])  # "One," "two."
    assert split_opening(clauses, characters=30) == (clauses[:3], clauses[3:])  # next stop
    assert split_opening(clauses[:2], characters=1_000) == (clauses[:2], [])  # all of it


def words_of(clauses: list[Clause]) -> list[str]:
    return [word for clause in clauses for word in clause.text.split()]


def test_a_long_first_sentence_ends_the_opening_at_a_clause_break_within_its_most() -> None:
    clause = "the river runs past the mill and on towards the sea below the hill"  # 66
    clauses = split_clauses(", ".join([clause] * 12) + ".")  # one 816-character sentence

    head, rest = split_opening(clauses)

    assert 300 <= sum(len(c.text) + 2 for c in head) <= 600
    assert head[-1].mark == "," and not head[-1].ends_sentence
    assert [*head, *rest] == clauses


@pytest.mark.parametrize("size", [700, 1_000, 4_900])
def test_an_unpunctuated_script_is_cut_between_words_into_a_bounded_opening(size: int) -> None:
    script = " ".join(f"word{n}" for n in range(size))[:size].rsplit(" ", 1)[0]
    clauses = split_clauses(script)
    assert len(clauses) == 1

    head, rest = split_opening(clauses)

    assert len(head) == 1 and 300 <= len(head[0].text) <= 600
    assert (head[0].mark, head[0].ends_sentence) == ("", False)  # no pause it did not have
    assert (rest[0].mark, rest[0].ends_sentence) == (".", True)
    assert words_of(head) + words_of(rest) == script.split()  # nothing lost or repeated


def test_a_word_longer_than_the_opening_is_cut_inside_it() -> None:
    clauses = split_clauses("x" * 700 + " tail.")
    head, rest = split_opening(clauses)
    assert head[0].text == "x" * 598  # the opening's 600 less the clause's mark and space
    assert "".join(words_of(head) + words_of(rest)) == "x" * 700 + "tail"


@needs_espeak
def test_a_cut_opening_is_phonemized_as_the_same_words_without_an_added_pause() -> None:
    script = " ".join(["the garden gate was open and the dog ran out into the lane"] * 20)
    clauses = split_clauses(script)
    head, rest = split_opening(clauses)
    assert rest  # cut

    def plan(part: list[Clause]) -> list[Chunk]:
        said = phonemize(part, executable="espeak-ng", language="en-us")
        return pack_chunks(part, said, language="en-us")

    space = KOKORO_VOCAB[" "]
    whole = [t for c in plan(clauses) for t in c.tokens if t != space]
    opening, after = plan(head), plan(rest)
    assert opening[-1].ends_sentence is False  # a clause's pause at the cut, not a sentence's
    marks = {KOKORO_VOCAB[m] for m in ".,;:!?—…"}
    assert not marks & set(opening[-1].tokens)  # no punctuation made up at the cut
    cut = [t for c in (*opening, *after) for t in c.tokens if t != space]
    assert cut == whole  # every word's phonemes, once
    assert lead_in(opening)[0].tokens == lead_in(plan(clauses))[0].tokens


def test_a_short_first_sentence_is_not_cut() -> None:
    short = Chunk(tokens=tuple(to_tokens("hˈaɪ.")), ends_sentence=True)
    assert lead_in([short, short]) == [short, short]


@needs_espeak
def test_espeak_phonemizes_one_line_per_clause() -> None:
    clauses = split_clauses("Hello there, world. Is it twenty?")
    assert phonemize(clauses, executable="espeak-ng", language="en-us") == [
        "həlˈoʊ ðˈɛɹ",
        "wˈɜːld",
        "ɪz ɪt twˈɛnti",
    ]


@needs_espeak
def test_clauses_espeak_splits_differently_are_phonemized_one_by_one() -> None:
    # espeak-ng ends a clause after "Mr." where renderkit does not: the lines no longer pair
    # up with the clauses, so each clause is phonemized on its own instead.
    clauses = split_clauses("Call Mr. Smith now, please.")
    said = phonemize(clauses, executable="espeak-ng", language="en-us")
    assert len(said) == len(clauses) == 2
    assert "mˈɪstɚ smˈɪθ" in said[0]


def test_a_missing_space_after_an_exclamation_still_ends_the_sentence() -> None:
    assert [c.text for c in split_clauses("Wow!Great, yes.")] == ["Wow", "Great", "yes"]


@needs_espeak
def test_british_voices_get_british_phonemes() -> None:
    us = plan_chunks("A tomato.", executable="espeak-ng", language="en-us")
    gb = plan_chunks("A tomato.", executable="espeak-ng", language="en-gb")
    assert us != gb


@needs_espeak
def test_a_5000_character_script_fits_the_model_in_sentence_chunks() -> None:
    script = ("The quick brown fox jumps over the lazy dog, and then it runs far away. " * 70)[
        :5000
    ]
    chunks = plan_chunks(script, executable="espeak-ng", language="en-us")
    assert len(chunks) == 70
    assert all(0 < len(c.tokens) <= MAX_TOKENS for c in chunks)


@pytest.mark.parametrize(
    ("n", "words"),
    [(7, "seven"), (42, "forty two"), (300, "three hundred"), (2024, "two thousand twenty four")],
)
def test_numbers_are_spelt_out_for_scoring(n: int, words: str) -> None:
    assert number_words(n) == words


def test_word_error_rate_ignores_case_punctuation_and_number_spelling() -> None:
    assert normalise("It's 1,000 dogs -- and cats!") == ["it's", "one", "thousand", "dogs", "cats"]
    assert word_error_rate("The cat sat, on 2 mats.", "the cat sat on two mats") == 0.0
    assert word_error_rate("one two three four", "one too three") == 0.5
