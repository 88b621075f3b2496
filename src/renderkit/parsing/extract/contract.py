"""Contract fields: parties, effective date, governing-law jurisdiction and term.

Every rule reads the contract's text with general cues (the preamble's "between X and Y", a
name defined as a term, signature blocks, "dated as of", "governed by the laws of", "shall
terminate N years after"). The vocabulary they need (places, number words, generic party
words) lives in ``lexicons/contract.toml`` and the legal forms in ``lexicons/ids.toml``;
nothing here names a company or a document.
"""

from __future__ import annotations

import datetime
import functools
import re
import tomllib
from collections.abc import Iterable
from importlib import resources
from typing import Any

import attrs

from renderkit.parsing.extract.found import Found
from renderkit.parsing.extract.identifiers import forms_after_company, legal_forms
from renderkit.parsing.extract.values import find_dates
from renderkit.parsing.rank.contract import (
    PARTY_FEATURES,
    TERM_FEATURES,
    PartyCandidate,
    TermCandidate,
    party_features,
    term_candidates,
    term_features,
)
from renderkit.parsing.rank.model import Ranker, load_ranker

__all__ = ["contract_fields", "defined_parties", "party_candidates_of", "term_candidates_of"]

# How much of the document's start is read: definitions and the preamble come early.
_HEAD = 4000
# At most this many capitalised words before the legal form.
_NAME_WORDS = 6


@functools.cache
def _lexicon() -> dict[str, Any]:
    path = resources.files("renderkit.parsing.lexicons") / "contract.toml"
    return tomllib.loads(path.read_text(encoding="utf-8"))


@functools.cache
def _phrase(name: str, flags: int = 0) -> re.Pattern[str]:
    """One of the lexicon's ``[phrases]`` (its pieces joined), compiled with ``flags``."""
    return re.compile(_phrase_text(name), flags)


def _phrase_text(name: str) -> str:
    pieces: list[str] = _lexicon()["phrases"][name]
    return "".join(pieces)


@functools.cache
def _places() -> tuple[str, ...]:
    places: list[str] = _lexicon()["governing_law"]["places"]
    return tuple(sorted(places, key=len, reverse=True))


@functools.cache
def _number_words() -> dict[str, int]:
    """Written-out numbers from one to ninety-nine (``"twenty-four"`` -> 24)."""
    numbers: dict[str, Any] = _lexicon()["numbers"]
    units: dict[str, int] = numbers["units"]
    tens: dict[str, int] = numbers["tens"]
    words = {**units, **tens}
    for ten, t in tens.items():
        for unit, u in units.items():
            if u < 10:
                words[f"{ten}-{unit}"] = t + u
                words[f"{ten} {unit}"] = t + u
    return words


# ---------------------------------------------------------------- parties


@functools.cache
def _definition() -> re.Pattern[str]:
    # A legal name, an optional description ("a Delaware corporation"), the defined term.
    return re.compile(_legal_name().pattern + _phrase_text("defined_term"))


def _below_title(name: str) -> str:
    """A name without the title line it ran into ("CONFIDENTIALITY AGREEMENT\nAcme, Inc."):
    lines in capitals above a last line that is not are a heading, not the name's start."""
    lines = name.split("\n")
    if len(lines) > 1 and not lines[-1].isupper() and all(line.isupper() for line in lines[:-1]):
        return lines[-1]
    return name


def defined_parties(text: str) -> list[str]:
    """Company names defined as a term (``Name, Inc. (the "Company")``) near the start."""
    names: list[str] = []
    for match in _definition().finditer(text[:_HEAD]):
        name = _below_title(match.group("name"))
        name = re.sub(r"\s+", " ", name).strip(" ,")
        name = _phrase("name_filler").sub("", name)
        if len(name.split()) >= 2 and name not in names:
            names.append(name)
    # "Holders and Acme Corporation": a name that ends in another one ran into a phrase.
    names = [n for n in names if not any(o != n and n.endswith(" " + o) for o in names)]
    return names[:3]


@functools.cache
def _generic_party() -> re.Pattern[str]:
    words: list[str] = _lexicon()["parties"]["generic"]
    alternatives = "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in words)
    return re.compile(_phrase_text("generic_party").replace("{generic}", alternatives), re.I)


@functools.cache
def _abbreviations() -> tuple[str, ...]:
    # Matched at the end of a name, after a space.
    return tuple(" " + a for a in _lexicon()["parties"]["abbreviations"])


@functools.cache
def _connectors() -> frozenset[str]:
    return frozenset(_lexicon()["parties"]["connectors"])


def _party_name(text: str) -> str:
    name = re.sub(r"\s+", " ", text).strip(" ,;:.\"“”'")
    name = _phrase("article").sub("", name)
    name = _phrase("courtesy").sub("", name)
    name = name.replace("&", " and ").replace("  ", " ")
    if name.endswith(_abbreviations()):
        name += "."
    return re.sub(r"\s+", " ", name).strip()


def _looks_like_name(name: str) -> bool:
    words = name.split()
    if not words or len(words) > 10 or len(name) > 100 or _generic_party().match(name):
        return False
    if not name[0].isupper() or any(re.fullmatch(r"\d{3,}", w) for w in words):
        return False
    # A legal form may be spelt in lower case ("S.à r.l."): only the words before it must be
    # capitalised.
    form = _legal_form_end().search(name)
    if form is not None and form.end() == len(name) and form.start() > 0:
        words = name[: form.start()].split()
    connectors = _connectors()
    return all(w[0].isupper() or w[0].isdigit() or w in connectors or w[0] in "(&" for w in words)


# A list's number before a party's name: "(1)", "(b)", "(ii)" at the clause's start or after
# a separator.
_ENUMERATOR = re.compile(r"(^|[;:,]\s*|\band\s+)\(\s*(?:\d{1,2}|[a-z]|[ivx]{1,4})\s*\)\s*(?=[A-Z])")


@functools.cache
def _compound_places() -> re.Pattern[str]:
    """The lexicon's places with "and" in their name ("England and Wales")."""
    places = [p for p in _places() if " and " in p]
    return re.compile("|".join(re.escape(p).replace(r"\ ", r"\s+") for p in places), re.I)


# A full stop ending the parties' clause: a sentence or a numbered heading follows.
_CLAUSE_END = re.compile(r"\.\s+(?:[A-Z][a-z]|\d{1,2}\.\s)")
# A sentence's end inside what was read as a name ("between the parties. 4. Affiliates"): a
# lower-case word's full stop (a legal form's abbreviation is capitalised).
_SENTENCE_IN_NAME = re.compile(r"[a-z]{3,}" + _CLAUSE_END.pattern)
# After a party's defined term, a comma then a capitalised word: the next party of a list.
_LISTED_AFTER_TERM = re.compile(r"\)\s*,\s*(?:and\s+)?(?:the\s+)?(?=[A-Z])")


def _without_description(name: str) -> str:
    """A legal name cut after its legal form when what follows it is no part of a name (an
    address "of 4 Elm Road", a description in lower case): "Acme GmbH of Hauptstrasse 4,
    Berlin" is "Acme GmbH"."""
    for form in _legal_form_end().finditer(name):
        rest = name[form.end() :]
        if rest and re.match(r"(?:,\s*|\s+of\s+|\s+[a-z])", rest):
            return _party_name(name[: form.end()])
    return name


def _preamble_parties(text: str) -> Found | None:
    head = text[:3000]
    match = _phrase("preamble", re.I).search(head)
    if match is None:
        return None
    clause = head[match.end() : match.end() + 900]
    stop = _phrase("preamble_end").search(clause)
    if stop:
        clause = clause[: stop.start()]
    clause = clause.replace("\n", " ")
    # "BETWEEN: (1) Acme Ltd ...; and (2) ...": a list's numbers are no part of a name.
    clause = _ENUMERATOR.sub(r"\1", clause)
    # "a company incorporated in England and Wales": the "and" of a place is no next party.
    in_place = [(m.start(), m.end()) for m in _compound_places().finditer(clause)]
    names: list[str] = []
    pos = 0
    while pos < len(clause) and len(names) < 4:
        rest = clause[pos:]
        end = _phrase("party_end").search(rest)
        raw = rest[: end.start()] if end else rest[:120]
        name = _without_description(_party_name(raw))
        if _looks_like_name(name):
            names.append(name)
        if _SENTENCE_IN_NAME.search(rest[: len(raw) + 4]):
            # The clause ended before this "name": a generic "between the parties." is no
            # preamble, and what follows it names no party.
            break
        if end is not None and end.group("list"):
            pos += end.end()
            continue
        # Skip the description up to the next top-level "and" that starts a capitalised name.
        depth = 0
        nxt = None
        start = end.end() if end else len(rest)
        i = end.start() if end else len(rest)
        while i < len(rest):
            ch = rest[i]
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth = max(0, depth - 1)
                # 'among Acme Inc. ("Acme"), Beta LLC ("Beta") and ...': a comma after a
                # party's defined term lists the next party.
                listed = _LISTED_AFTER_TERM.match(rest, i) if depth == 0 else None
                if listed and i >= start - 8:
                    nxt = listed.end()
                    break
            elif depth == 0 and not any(s <= pos + i < e for s, e in in_place):
                # Matched in place, not on a slice, so the phrase sees the word before "and".
                m = _phrase("next_party").match(rest, i)
                if m and i >= start - 8:
                    nxt = m.end()
                    break
                # A sentence ends the clause, and so does a numbered heading after it.
                if rest[i] == "." and _CLAUSE_END.match(rest, i) and i > start:
                    break
            i += 1
        if nxt is None:
            break
        pos += nxt
    names = list(dict.fromkeys(names))
    if not names:
        return None
    return Found(value=names, confidence=0.75)


# At most this many capitalised lines above "By:" form the signer's name.
_BLOCK_LINES = 3


@functools.cache
def _forms() -> str:
    """The legal forms as a pattern, each one's dots optional; a company's form may be followed
    by a second ("Co., Ltd.", "Company, Inc."), which is part of the name."""

    def either(forms: Iterable[str]) -> str:
        ordered = sorted(forms, key=len, reverse=True)
        return "|".join(re.escape(f).replace(r"\.", r"\.?") for f in ordered)

    company = either(("Co.", "Company", "Corp.", "Corporation"))
    chained = rf"(?:{company}),?\s+(?:{either(forms_after_company())})(?![\w])"
    return rf"(?:{chained}|{either(legal_forms())})"


@functools.cache
def _legal_form_end() -> re.Pattern[str]:
    return re.compile(rf",?\s+{_forms()}(?![\w])", re.I)


def _title(name: str) -> str:
    """An upper-case name in title case, legal forms spelt as the lexicon spells them."""
    forms = {f.casefold(): f for f in legal_forms()}
    return " ".join(forms.get(w.casefold(), w.title() if w.isupper() else w) for w in name.split())


def _signature_parties(text: str) -> list[str]:
    """Company names printed above a signature's "By:" line, cut after their legal form."""
    lines = text.splitlines()
    names: list[str] = []
    for index, line in enumerate(lines):
        if not _phrase("signature", re.I).match(line):
            continue
        block: list[str] = []
        for above in reversed(lines[max(0, index - _BLOCK_LINES) : index]):
            # A company line in title case ("Acme Holdings, Inc.") right above "By:" is a name
            # as much as one in capitals.
            if not (_capitalised(above) or (not block and _titled_legal_name(above))):
                break
            block.insert(0, above.strip())
        joined = re.sub(r"\s+", " ", " ".join(block))
        form = _legal_form_end().search(joined)
        if form is None:
            continue
        # "ACCEPTED AND AGREED: NAME, INC.": a label before a colon is not part of the name.
        name = _party_name(_title(joined[: form.end()].rsplit(":", 1)[-1]))
        if len(name.split()) >= 2 and _looks_like_name(name):
            names.append(name)
    return names


def _titled_legal_name(line: str) -> bool:
    """Whether a line is a company's name in title case, ending in its legal form."""
    form = _legal_form_end().search(line.rstrip(" .,:"))
    return (
        form is not None
        and form.end() == len(line.rstrip(" .,:"))
        and _looks_like_name(_party_name(line))
    )


def _capitalised(line: str) -> bool:
    """Whether a line is printed as a name: upper-case letters, short lower-case words only."""
    words = line.split()
    if not words or not any(c.isupper() for c in line):
        return False
    # Lower-case words of up to three letters are connectors and "d/b/a".
    return all(
        not w[0].isalpha() or w[0].isupper() or (len(w) <= 5 and "/" in w) or len(w) <= 3
        for w in words
    ) and (sum(c.isupper() for c in line) >= sum(c.islower() for c in line))


def _party_key(name: str) -> str:
    return re.sub(r"[\W_]+", " ", name.replace("&", " and ")).upper().strip()


def _same_party(a: str, b: str) -> bool:
    return _party_key(a) == _party_key(b)


def _tail_of(a: str, b: str) -> bool:
    """Whether name ``a`` is the last words of name ``b``: a signature block that wraps a
    long name ("Acme Widget" / "Systems AG") read from its last line."""
    return _party_key(b).endswith(" " + _party_key(a))


def _names(found: Found | None) -> list[str]:
    """The names a parties rule found (its value is a list of names)."""
    value = found.value if found is not None else []
    return [str(name) for name in value] if isinstance(value, list) else []


@functools.cache
def _legal_name() -> re.Pattern[str]:
    """A name ending in a legal form anywhere (the definition's name without its term)."""
    word = _phrase_text("name_word")
    return re.compile(
        rf"(?P<name>(?:{word}\s+){{0,{_NAME_WORDS}}}?(?:[A-Z][\w&'’-]*,?\s+)?{_forms()})(?![\w])"
    )


def _legal_form_names(text: str) -> list[str]:
    names: list[str] = []
    for match in _legal_name().finditer(text[:_HEAD]):
        name = _party_name(_phrase("name_filler").sub("", match.group("name")))
        if len(name.split()) >= 2 and _looks_like_name(name) and name not in names:
            names.append(name)
    return names


def party_candidates_of(text: str) -> tuple[list[PartyCandidate], list[list[float]]]:
    """Every name a contract's party rules propose (the preamble, defined terms, signature
    blocks, names ending in a legal form), merged when they name the same party, and their
    features (what the party ranker scores; ``train_ranker.py --field party`` trains on it)."""
    preamble = _preamble_parties(text)
    found: list[tuple[str, str, int]] = [
        (str(name), "preamble", i) for i, name in enumerate(_names(preamble))
    ]
    found += [(name, "defined", -1) for name in defined_parties(text)]
    found += [(name, "signature", -1) for name in _signature_parties(text)]
    found += [(name, "legal_form", -1) for name in _legal_form_names(text)]
    candidates: list[PartyCandidate] = []
    for name, source, order in found:
        at = next((i for i, c in enumerate(candidates) if _same_party(c.name, name)), None)
        if at is None:
            candidates.append(
                PartyCandidate(name=name, sources=frozenset({source}), preamble_order=order)
            )
            continue
        c = candidates[at]
        candidates[at] = attrs.evolve(
            c,
            sources=c.sources | {source},
            preamble_order=c.preamble_order if c.preamble_order >= 0 else order,
        )
    # The rules as the ranker was trained on them: the opening party came later.
    chosen = _names(_parties(text, opening=False))
    features = party_features(
        text,
        candidates,
        legal_form=_legal_form_end(),
        places=frozenset(p.casefold() for p in _places()),
        rule=frozenset(
            i for i, c in enumerate(candidates) if any(_same_party(c.name, n) for n in chosen)
        ),
    )
    return candidates, features


@functools.cache
def _party_ranker() -> Ranker:
    return load_ranker("contract_party", PARTY_FEATURES)


# A name is a party when the model thinks it more likely than not; at most this many.
_PARTY_MIN_PROBABILITY = 0.5
_MAX_PARTIES = 4


def _ranked_parties(text: str) -> Found | None:
    """The names the learned ranker takes for parties, in the order the text names them, the
    least of their calibrated probabilities as the confidence; the rules' parties when it
    takes none."""
    candidates, features = party_candidates_of(text)
    ranker = _party_ranker()
    chosen = [
        (c, ranker.probability(ranker.score(f))) for c, f in zip(candidates, features, strict=True)
    ]
    chosen = [(c, p) for c, p in chosen if p >= _PARTY_MIN_PROBABILITY]
    if not chosen:
        return _parties(text)
    chosen = sorted(chosen, key=lambda cp: -cp[1])[:_MAX_PARTIES]
    names = [c.name for c, _ in sorted(chosen, key=lambda cp: candidates.index(cp[0]))]
    return Found(value=names, confidence=round(min(p for _, p in chosen), 4))


def _parties(text: str, *, opening: bool = True) -> Found | None:
    # A preamble names every party. Letters and undertakings have none: their parties are
    # the names defined as terms and the companies that sign.
    found = _preamble_parties(text)
    if found is not None:
        return found
    # Spelt as the preamble's names are ("&" as "and"). Recitals define affiliates and other
    # deals' parties ("a subsidiary of Acme Corp. (the "Parent")"): the names defined before
    # them, when there are any, are the parties.
    recitals = _phrase("recitals").search(text, 0, _HEAD)
    defined = defined_parties(text[: recitals.start()]) if recitals else []
    head = text[: recitals.start()] if recitals else text
    names = [_party_name(n) for n in defined or defined_parties(text)]
    for name in _defined_persons(head):
        if not any(_same_party(name, o) for o in names):
            names.append(name)
    for name in _signature_parties(text):
        if not any(_same_party(name, o) or _tail_of(name, o) for o in names):
            names.append(name)
    if names:
        return Found(value=_with_self_signer(names, text)[:4], confidence=0.6)
    found = _opening_party(text) if opening else None
    if found is None:
        return None
    return attrs.evolve(found, value=_with_self_signer(_names(found), text))


# A conformed signature ("/s/ Jo A. Roe"): the name up to the next one or the line's end.
_CONFORMED = re.compile(r"/s/\s*(?P<name>[^/\n]+?)\s*(?=/s/|$)", re.M)
# A person's name as a signature prints it: a first name or initial, up to two middle names or
# initials, a surname, an optional generational suffix.
_PERSON_NAME = re.compile(
    r"(?:[A-Z]\.\s*)?[A-Z][a-z]+(?:\s+(?:[A-Z]\.|[A-Z][a-z]+)){0,2}\s+[A-Z][a-z’'-]+"
    r"(?:,?\s+(?:Jr\.?|Sr\.?|II|III|IV))?"
)
# "By: /s/ ...": the signer signs for a company, not for themself; a witness, an attesting
# secretary or a notary signs for nobody.
_SIGNS_FOR = re.compile(r"\bBy\s*:\s*$", re.I)
_WITNESS = re.compile(r"\b(?:witness|attest|notary)", re.I)
_OFFICE_LINE = re.compile(r"\s*(?:Title|Its)\s*:", re.I)


def _self_signers(text: str) -> list[str]:
    """People who sign a contract for themselves: a conformed signature ("/s/ Jo Roe") not
    on a company's "By:" line (an employee's, an associate's, a consultant's acceptance)."""
    tail = text[max(0, len(text) - _TAIL) :]
    names: list[str] = []
    for match in _CONFORMED.finditer(tail):
        line_start = tail.rfind("\n", 0, match.start()) + 1
        if _SIGNS_FOR.search(tail[line_start : match.start()]):
            continue
        # The label may be on the line itself or the one above.
        label_start = tail.rfind("\n", 0, max(0, line_start - 1)) + 1
        if _WITNESS.search(tail[label_start : match.start()]):
            continue
        # "/s/ Jo Roe" over "Title: President": an officer signing for a company.
        below = tail[match.end() : match.end() + 120].split("\n")[1:4]
        if any(_OFFICE_LINE.match(line) for line in below):
            continue
        name = _party_name(match.group("name"))
        person = _PERSON_NAME.fullmatch(name) and not _legal_form_end().search(name)
        if person and name not in names:
            names.append(name)
    return names


def _with_self_signer(names: list[str], text: str) -> list[str]:
    """An agreement whose rules name one party has another: when a person signs it for
    themself (an undertaking, an offer the employee accepts), that person."""
    if len(names) != 1:
        return names
    others = [n for n in _self_signers(text) if not _same_party(n, names[0])]
    return [*names, *others[:1]]


@functools.cache
def _person_definition() -> re.Pattern[str]:
    roles: list[str] = _lexicon()["parties"]["person_roles"]
    alternatives = "|".join(re.escape(r).replace(r"\ ", r"\s+") for r in roles)
    return re.compile(_phrase_text("person_definition").replace("{role}", alternatives))


def _defined_persons(text: str) -> list[str]:
    """People a letter without a preamble names as a party by defining them as a party's role
    ('Anna Lind (the "Consultant")', 'Jo Roe (the "Recipient")'); a defined term that is no
    party's role (the "Parent", the "Target") names no party."""
    names: list[str] = []
    for match in _person_definition().finditer(text[:_HEAD]):
        name = _party_name(match.group("name"))
        if _looks_like_name(name) and _legal_form_end().search(name) is None:
            names.append(name)
    return names[:2]


# How much of a contract's start its opening is (an offer's or an undertaking's first lines).
_OPENING = 1500


def _opening_party(text: str) -> Found | None:
    """The company an agreement without a preamble, definitions or signing company names
    first ("Acme Corp. is pleased to offer you ...", "you have been offered employment with
    Acme Corp."): an employment undertaking or an offer names the employer before any
    affiliate. Only that one name: the other side is the unnamed employee or "you"."""
    names = _legal_form_names(text[:_OPENING])
    return Found(value=names[:1], confidence=0.4) if names else None


# ---------------------------------------------------------------- jurisdiction


@functools.cache
def _governing() -> re.Pattern[str]:
    # A place's words may break over lines ("the laws of England\nand Wales").
    place = "|".join(r"\s+".join(re.escape(w) for w in p.split()) for p in _places())
    return re.compile(_phrase_text("governing_law").replace("{place}", place), re.I)


def _jurisdiction(text: str) -> Found | None:
    best: tuple[int, str] | None = None
    for match in _governing().finditer(text):
        window = text[max(0, match.start() - 250) : match.end() + 50].lower()
        score = 2 if _phrase("governing_cue").search(window) else 0
        score += 1 if _phrase("state_of").search(match.group(0).lower()) else 0
        if _phrase("incorporation_cue").search(window[-330:-60]):
            score -= 2  # "a corporation incorporated under the laws of Canada"
        if best is None or score > best[0]:
            best = (score, match.group("place"))
    if best is None or best[0] < 1:
        return None
    place = " ".join(best[1].split())
    for known in _places():
        if known.lower() == place.lower():
            place = known
    return Found(value=place, confidence=0.85 if best[0] >= 2 else 0.6)


# ---------------------------------------------------------------- effective date


# "December 9\nth\n, 2014": a superscript ordinal extracted on a line of its own.
_SPLIT_ORDINAL = re.compile(r"(?<!\d)(\d{1,2})\s*\n\s*(st|nd|rd|th)\s*\n?\s*(?=,|\s)")
# How much of the end is read for signature blocks.
_TAIL = 4000
# A letter's date stands alone on one of its first lines.
_LETTER_LINES = 8


def _dates_joined(text: str) -> str:
    return _SPLIT_ORDINAL.sub(r"\1\2", text)


def _effective_date(text: str) -> Found | None:
    text = _dates_joined(text)
    found = _preamble_date(text) or _stated_date(text)
    if found is not None:
        return found
    # The execution clause says which date the signatures carry: "as of the date first written
    # above" is the date printed at the top (a letter's), so a signature block's date lines are
    # only the days the signers signed; "as of the date set forth below" is the signatures'.
    pointer = _execution_pointer(text)
    if pointer == "above":
        return _letter_date(text) or _signed_date(text, date_lines=False)
    if pointer == "below":
        return _signed_date(text, date_lines=True) or _letter_date(text)
    return _signed_date(text, date_lines=False) or _letter_date(text)


def _stated_date(text: str) -> Found | None:
    """The date an agreement states for itself outside its preamble: "This Agreement is
    effective as of June 3, 2010." (often its last paragraph) or an "Effective Date:" field."""
    # The phrase first, then a date just after it: reading every date of a long contract
    # costs more than the phrase's few matches.
    for cue in _phrase("stated_effective", re.I | re.M).finditer(text):
        following = text[cue.end() : cue.end() + 40]
        dates = find_dates(following, day_first=False)
        if dates and not following[: dates[0][1]].strip():
            return Found(value=dates[0][0].isoformat(), confidence=0.6)
    return None


def _execution_pointer(text: str) -> str | None:
    """Where the execution clause ("IN WITNESS WHEREOF, ... as of the date first written
    above") places the agreement's date: ``"above"``, ``"below"`` or None (no such clause)."""
    tail = text[max(0, len(text) - _TAIL) :]
    if _phrase("executed_below", re.I).search(tail):
        return "below"
    if _phrase("executed_above", re.I).search(tail):
        return "above"
    return None


def _signed_date(text: str, *, date_lines: bool) -> Found | None:
    """A date the end of the contract gives the agreement: "Dated: ...", "this 11th day of
    October, 2007", "on this ..." and, with ``date_lines``, a signature block's "Date:" line
    (which otherwise says only when its signer signed). Another agreement's date is none."""
    tail_start = max(0, len(text) - _TAIL)
    tail = text[tail_start:]
    for value, start, _ in find_dates(tail, day_first=False):
        line_start = tail.rfind("\n", 0, start) + 1
        before = tail[line_start:start]
        if _not_this_agreements(tail[max(0, start - 120) : start]):
            continue
        date_line = _phrase("date_line", re.I).search(before) is not None
        if date_line and not date_lines:
            continue
        if _phrase("dated", re.I).search(before) or _phrase("on_this", re.I).search(before):
            return Found(value=value.isoformat(), confidence=0.6)
        if not date_line and _phrase("day_of", re.I).match(tail[start:]):
            return Found(value=value.isoformat(), confidence=0.6)
    return None


# A labelled date field at the top of an agreement ("Date: March 3, 2011", "Effective Date:").
_TOP_DATE_FIELD = re.compile(r"^\s*(?:Effective\s+)?Dated?\s*:\s*$", re.I)


def _letter_date(text: str) -> Found | None:
    """A letter's date on a line of its own among its first lines, or a form's "Date:" field
    there (a field at the top dates the agreement; a signer's "Date:" line is at its end)."""
    for line in text.splitlines()[:_LETTER_LINES]:
        dates = find_dates(line, day_first=False)
        if len(dates) != 1:
            continue
        before, after = line[: dates[0][1]], line[dates[0][2] :]
        if after.strip(" ,.") == "" and (not before.strip() or _TOP_DATE_FIELD.match(before)):
            return Found(value=dates[0][0].isoformat(), confidence=0.6)
    return None


def _not_this_agreements(before: str) -> bool:
    """Whether the words before a date make it no date of this agreement's making: another
    agreement's ("a master agreement dated ..."), or the day it ends ("This Agreement shall
    expire on ...")."""
    return (
        _phrase("other_agreement", re.I).search(before) is not None
        or _phrase("ends_on", re.I).search(before) is not None
    )


def _preamble_date(text: str) -> Found | None:
    head = text[:2500]
    for value, start, _ in find_dates(head, day_first=False):
        before = head[max(0, start - 120) : start].lower()
        if not _phrase("effective_cue").search(before) or _not_this_agreements(before):
            continue
        # A short agreement's signature blocks fall inside the head: a signer's "Date:" line
        # is no preamble, whatever cue a date above it left in reach.
        if _phrase("date_line", re.I).search(before[before.rfind("\n") + 1 :]):
            continue
        return Found(value=value.isoformat(), confidence=0.8)
    return None


# ---------------------------------------------------------------- term


@functools.cache
def _duration() -> re.Pattern[str]:
    words = "|".join(
        # "twenty-\nfour": a PDF line may break after the hyphen of a written-out number,
        # which PDFium's text layer gives as U+0002 when the browser hyphenated there.
        re.escape(w).replace(r"\ ", r"\s+").replace(r"\-", "[-\x02]\\s*")
        for w in sorted(_number_words(), key=len, reverse=True)
    )
    return re.compile(_phrase_text("duration").replace("{number}", words), re.I)


def _cue_windows(text: str) -> list[tuple[int, int]]:
    """The spans a term is read in: from a phrase making the agreement the subject of an
    ending verb to the end of its sentence (at most 200 characters after the phrase)."""
    return [(cue.start(), cue.start() + len(_cue_window(text, cue))) for cue in _term_cues(text)]


def _term_cues(text: str) -> list[re.Match[str]]:
    return list(_phrase("term_cue", re.I).finditer(text))


# A proviso after the agreement's ending ("...; provided that the obligations of
# confidentiality shall survive for three (3) years") bounds something else.
_PROVISO = re.compile(r"[;,]\s*(?:provided|except|save)\b", re.I)


def _cue_window(text: str, cue: re.Match[str]) -> str:
    """The text a term is read in after a term cue: up to 200 characters past it, to the end
    of its sentence or the start of a proviso."""
    window = text[cue.start() : cue.end() + 200]
    window = re.split(r"(?<=[a-z)])\.\s+[A-Z]", window)[0]
    proviso = _PROVISO.search(window, cue.end() - cue.start())
    return window[: proviso.start()] if proviso else window


def _no_term_duration(text: str, start: int, end: int) -> bool:
    """Whether the duration at ``text[start:end]`` is, by the words around it, no term even in
    the term's sentence: a renewal period ("renewed for successive periods of one (1) year")
    or a notice period ("until terminated upon thirty (30) days' written notice")."""
    after = text[end : end + 40]
    return _renewal_period(text, start) or _phrase("notice_after", re.I).match(after) is not None


def _renewal_period(text: str, start: int) -> bool:
    """Whether the duration starting at ``start`` is a renewal period."""
    before = text[max(0, start - 80) : start]
    return _phrase("renewal_before", re.I).search(before) is not None


def _term_pick(text: str) -> TermCandidate | None:
    """The rules' term: the first duration after a phrase making the agreement its subject
    that is no renewal or notice period."""
    for cue in _term_cues(text):
        window = _cue_window(text, cue)
        duration = next(
            (
                d
                for d in _duration().finditer(window)
                if not _no_term_duration(text, cue.start() + d.start(), cue.start() + d.end())
            ),
            None,
        )
        if duration is None:
            continue
        raw = re.sub(r"[-\x02]\s*", "-", re.sub(r"\s+", " ", duration.group("n").lower()))
        number = int(raw) if raw.isdigit() else _number_words()[raw]
        unit = duration.group("unit").lower().rstrip("s")
        start = cue.start() + duration.start()
        return TermCandidate(
            value=f"{number} {unit}{'s' if number != 1 else ''}",
            start=start,
            end=cue.start() + duration.end(),
        )
    return None


def _term(text: str, *, end_date: bool = False) -> Found | None:
    pick = _term_pick(text)
    if pick is None:
        return _undated_term(text, end_date=end_date)
    return Found(value=pick.value, confidence=0.55)


def _undated_term(text: str, *, end_date: bool) -> Found | None:
    """A term the agreement-as-subject phrases do not give: a duration or an anniversary of
    the obligations under a "Term" heading, until an anniversary, else (``end_date``) until an
    end date."""
    found = _section_term(text) or _anniversary_term(text)
    if found is None and end_date:
        return _end_date_term(text)
    return found


@functools.cache
def _anniversary() -> re.Pattern[str]:
    ordinals: dict[str, int] = _lexicon()["numbers"]["ordinals"]
    words = "|".join(sorted(ordinals, key=len, reverse=True))
    return re.compile(_phrase_text("anniversary").replace("{ordinal}", words), re.I)


def _anniversary_term(text: str) -> Found | None:
    """A term with no duration printed: the agreement lasting until the Nth anniversary of its
    start, read where the rules read a term (after a phrase making the agreement the subject
    of an ending verb), as N years."""
    ordinals: dict[str, int] = _lexicon()["numbers"]["ordinals"]
    for start, end in _cue_windows(text):
        match = _anniversary().search(text, start, end)
        if match is None:
            continue
        raw = match.group("n").lower()
        years = int(raw[:-2]) if raw[:-2].isdigit() else ordinals[raw]
        return Found(value=f"{years} year{'s' if years != 1 else ''}", confidence=0.55)
    return None


# How far a "Term" section is read when no next heading ends it.
_SECTION = 1200


def _section_windows(text: str) -> list[tuple[int, int]]:
    """The sentences of a "Term" section (a numbered heading "5. Term", "Section 5. Term.",
    "Duration") that say how long the obligations of this Agreement last ("the obligations set
    forth in this Agreement shall continue until ..."): under that heading they are the
    agreement's term; elsewhere the same words bound only the obligations (a survival
    clause)."""
    spans = []
    for heading in _phrase("term_heading", re.I | re.M).finditer(text):
        nxt = _phrase("next_heading", re.M).search(text, heading.end(), heading.end() + _SECTION)
        section_end = nxt.start() if nxt else min(len(text), heading.end() + _SECTION)
        for cue in _phrase("section_term_cue", re.I).finditer(text, heading.end(), section_end):
            window = text[cue.start() : min(section_end, cue.end() + 200)]
            window = re.split(r"(?<=[a-z)])\.\s+[A-Z]", window)[0]
            spans.append((cue.start(), cue.start() + len(window)))
    return spans


def _section_term(text: str) -> Found | None:
    """A duration, else an anniversary, in a "Term" section's sentence on how long the
    obligations of this Agreement last (:func:`_section_windows`)."""
    ordinals: dict[str, int] = _lexicon()["numbers"]["ordinals"]
    for start, end in _section_windows(text):
        duration = _duration().search(text, start, end)
        if duration is not None:
            raw = re.sub(r"[-\x02]\s*", "-", re.sub(r"\s+", " ", duration.group("n").lower()))
            number = int(raw) if raw.isdigit() else _number_words()[raw]
            unit = duration.group("unit").lower().rstrip("s")
            return Found(value=f"{number} {unit}{'s' if number != 1 else ''}", confidence=0.55)
        match = _anniversary().search(text, start, end)
        if match is not None:
            raw = match.group("n").lower()
            years = int(raw[:-2]) if raw[:-2].isdigit() else ordinals[raw]
            return Found(value=f"{years} year{'s' if years != 1 else ''}", confidence=0.55)
    return None


# A term sentence is read this far before and after its cue (an end date may come first:
# "... until March 5, 2013, whereupon this Agreement shall terminate").
_END_DATE_BEFORE = 600
_END_DATE_AFTER = 400
_SENTENCE_BREAK = re.compile(r"(?<=[a-z)])\.\s+(?=[A-Z])|\n\s*\n")


def _term_sentence(text: str, start: int, end: int) -> tuple[int, int]:
    """The span of the sentence holding ``text[start:end]``, bounded either side."""
    lo = max(0, start - _END_DATE_BEFORE)
    breaks = list(_SENTENCE_BREAK.finditer(text, lo, start))
    first = breaks[-1].end() if breaks else lo
    after = _SENTENCE_BREAK.search(text, end, end + _END_DATE_AFTER)
    return first, after.start() if after else min(len(text), end + _END_DATE_AFTER)


def _end_date_term(text: str) -> Found | None:
    """A term given only as the date the agreement ends ("shall remain in effect until
    December 31, 2015"): the span from the effective date to that date, both days counted
    (an agreement in force "until" a date is in force on it), in whole years or months when
    it is one, else in days. Read only in a sentence where the agreement is the subject of an
    ending verb, as the rules read a duration, and only a date after the effective date."""
    effective = _effective_date(text)
    if effective is None:
        return None
    begin = datetime.date.fromisoformat(str(effective.value))
    joined = _dates_joined(text)
    for cue in _phrase("term_cue", re.I).finditer(joined):
        first, last = _term_sentence(joined, cue.start(), cue.end())
        for value, _, _ in find_dates(joined[first:last], day_first=False):
            if value > begin:
                return Found(value=_span_of(begin, value), confidence=0.45)
    return None


def _months_on(day: datetime.date, months: int) -> datetime.date:
    """``day`` moved ``months`` calendar months on (the 31st becomes a shorter month's last)."""
    year, month = divmod(day.month - 1 + months, 12)
    year += day.year
    month += 1
    following = datetime.date(year + month // 12, month % 12 + 1, 1)
    last = (following - datetime.timedelta(days=1)).day
    return datetime.date(year, month, min(day.day, last))


def _span_of(begin: datetime.date, end: datetime.date) -> str:
    """How long an agreement in force from ``begin`` until ``end`` lasts, as a term value:
    ``"2 years"`` when ``end`` is an anniversary of ``begin`` or the day before one,
    ``"6 months"`` likewise for a monthly date, else the days counting both ends."""
    last_day = datetime.timedelta(days=1)
    for unit, step in (("year", 12), ("month", 1)):
        for count in range(1, 100 if step == 12 else 1200):
            on = _months_on(begin, count * step)
            if on - last_day > end:
                break
            if end in (on, on - last_day):
                return f"{count} {unit}{'s' if count != 1 else ''}"
    days = (end - begin).days + 1
    return f"{days} day{'s' if days != 1 else ''}"


def term_candidates_of(text: str) -> tuple[list[TermCandidate], list[list[float]]]:
    """Every duration of a contract's text and its features (what the term ranker scores;
    ``scripts/train_ranker.py --field term`` trains on the same)."""
    text = _dates_joined(text)
    candidates = term_candidates(text, _duration(), _number_words())
    features = term_features(text, candidates, _term_pick(text), _cue_windows(text))
    # A renewal or notice period is outside what the term rules accept even in the term's
    # sentence: the model learns (and scores) it as any other duration there is.
    cue = TERM_FEATURES.index("cue_window")
    for candidate, row in zip(candidates, features, strict=True):
        if _no_term_duration(text, candidate.start, candidate.end):
            row[cue] = 0.0
    return candidates, features


@functools.cache
def _term_ranker() -> Ranker:
    return load_ranker("contract_term", TERM_FEATURES)


# A ranked term is given only when the model thinks it more likely right than not: many
# contracts print durations (notice, survival, payment) and no term of their own.
_TERM_MIN_PROBABILITY = 0.5


def _ranked_term(text: str, *, end_date: bool = False) -> Found | None:
    """The duration the learned ranker picks, its calibrated probability as the confidence."""
    candidates, features = term_candidates_of(text)
    # A hard constraint, as the rules': only a duration in a sentence where the agreement is
    # the subject of an ending verb can be its term; the model chooses among those.
    cue = TERM_FEATURES.index("cue_window")
    joined = _dates_joined(text)
    allowed = [
        i
        for i, f in enumerate(features)
        if f[cue] and not _no_term_duration(joined, candidates[i].start, candidates[i].end)
    ]
    if not allowed:
        return _undated_term(text, end_date=end_date)
    ranker = _term_ranker()
    scores = {i: ranker.score(features[i]) for i in allowed}
    best = max(allowed, key=lambda i: scores[i])
    probability = ranker.probability(scores[best])
    if probability < _TERM_MIN_PROBABILITY:
        # "an initial term of two (2) years, renewed for successive periods of one (1) year":
        # the model, which saw few such sentences, doubts the initial term once the renewal is
        # ruled out; the rules' pick, which skips renewal and notice periods, is the term.
        windows = _cue_windows(joined)
        renewal = any(
            _renewal_period(joined, c.start) and any(a <= c.start < b for a, b in windows)
            for c in candidates
        )
        pick = _term_pick(joined)
        if renewal and pick is not None and pick.value == candidates[best].value:
            return Found(value=pick.value, confidence=0.55)
        return _undated_term(text, end_date=end_date)
    return Found(value=candidates[best].value, confidence=round(probability, 4))


def contract_fields(
    text: str,
    *,
    ranker: bool = False,
    party_ranker: bool = False,
    end_date: bool = False,
    opening_party: bool = True,
) -> dict[str, Found]:
    """Parties, effective date, governing-law jurisdiction and term of a contract.

    ``ranker``: the term is the duration the learned ranker picks (:func:`_ranked_term`)
    instead of the rules' first duration after a term phrase. ``party_ranker``: the parties
    are the names the party ranker takes (:func:`_ranked_parties`). ``end_date``: a contract
    printing no duration for its term but the date it ends has the span from its effective
    date to that date for a term (:func:`_end_date_term`). ``opening_party``: an agreement
    whose rules find no party has the company its opening names (:func:`_opening_party`);
    False for a document that is not known to be an agreement (a resume's first company is
    an employer it names, not a party).
    """
    term = _ranked_term if ranker else _term
    found: dict[str, Found] = {}
    for name, rule in (
        (
            "parties",
            _ranked_parties if party_ranker else functools.partial(_parties, opening=opening_party),
        ),
        ("effective_date", _effective_date),
        ("jurisdiction", _jurisdiction),
        ("term", functools.partial(term, end_date=end_date)),
    ):
        value = rule(text)
        if value is not None:
            found[name] = value
    return found
