"""Every duration of a contract that could be its term, and the facts a ranker scores it by.

A contract prints many durations: its own term, and notice periods, survival periods,
confidentiality obligations that outlast it, payment and cure periods. The rules take the
first duration after a phrase that makes the agreement the subject of one; here every
duration is a candidate, and the facts about it (the words of its sentence, the "Term"
heading above it, whether it runs from the effective date or after termination, its unit and
size, how often it is printed) let a learned model choose. :func:`term_features` is the one
place a candidate becomes numbers; training (``scripts/train_ranker.py --field term``) and
reading use it alike. The words are general drafting words, no document's.
"""

from __future__ import annotations

import math
import re

import attrs

__all__ = ["TERM_FEATURES", "TermCandidate", "term_candidates", "term_features"]

_UNITS = ("year", "month", "week", "day")

# A sentence starts after a full stop, a semicolon or a blank line (a clause's own start).
_SENTENCE_START = re.compile(r"(?:[.;:]\s+(?=[A-Z(\"“])|\n\s*\n)")
_SENTENCE_END = re.compile(r"\.(?:\s|$)|;")
# How far a sentence or a heading is looked for around a candidate.
_BEFORE = 320
_AFTER = 160
_HEADING = 600

# The words that make a sentence about the agreement's own duration, and those of the decoys.
_WORDS: dict[str, re.Pattern[str]] = {
    "agreement_subject": re.compile(
        r"\b(this|the)\s+(letter\s+)?agreement\b|\bterm\s+(of\s+this|hereof)", re.I
    ),
    "term_word": re.compile(r"\bterm\b", re.I),
    "ends_verb": re.compile(
        r"\b(terminat\w*|expir\w*|remain\s+in\s+(full\s+)?(force|effect)|continu\w*|"
        r"in\s+effect|be\s+effective|end)\b",
        re.I,
    ),
    "notice": re.compile(r"\bnotice\b", re.I),
    "survive": re.compile(r"\bsurviv", re.I),
    "obligation": re.compile(r"\bobligations?\b", re.I),
    "confidential": re.compile(r"\bconfidential", re.I),
    "payment": re.compile(r"\b(pay\w*|invoice\w*|fees?)\b", re.I),
    "cure": re.compile(r"\bcure\b|\bbreach", re.I),
    "disclosure": re.compile(r"\bdisclos", re.I),
    "solicit": re.compile(r"\bsolicit|\bemploy|\bhire\b", re.I),
    "renew": re.compile(r"\brenew", re.I),
    "until": re.compile(r"\buntil\b", re.I),
    "thereafter": re.compile(r"\bthereafter\b", re.I),
    "negation": re.compile(r"\b(not|neither|nor)\b", re.I),
    "party_agrees": re.compile(r"\b(agrees?|covenants?|undertakes?)\b", re.I),
    "employment": re.compile(r"\bemploy|\bengagement\b", re.I),
    "lookback": re.compile(r"\b(preceding|prior\s+to|before)\b", re.I),
    "during": re.compile(r"\bduring\b", re.I),
    "applies": re.compile(r"\b(appl(y|ies)|govern\w*|covers?)\b", re.I),
    "part_of_agreement": re.compile(
        r"\b(portions?|parts?|provisions?|sections?|covenants?|obligations?)\b[^.;]{0,40}"
        r"\bof\s+this\s+agreement\b",
        re.I,
    ),
}
# The agreement itself as the subject of an ending verb, before the candidate in its sentence.
_AGREEMENT_ENDS = re.compile(
    r"\b(this\s+(letter\s+)?agreement|the\s+term\s+(of\s+this\s+agreement|hereof))\s*"
    r"(,[^,]{0,80},\s*)?(is|shall|will)\b",
    re.I,
)
_HYPHENATED = re.compile(r"^\w+-\w+$")
_PERIOD_OF = re.compile(r"\b(period|term)\s+of\s*$", re.I)
_FOR = re.compile(r"\bfor\s*(a\s+)?$", re.I)
_WITHIN = re.compile(
    r"\b(within|upon|at\s+least|no\s+(less|later)\s+than|prior)\b[^.]{0,12}$", re.I
)
_INITIAL = re.compile(r"\binitial\b[^.]{0,20}$", re.I)
_FROM_START = re.compile(
    r"^[\s,]*(from|after|following|of|commencing|beginning)?\s*(on\s+)?(the\s+)?"
    r"(effective\s+date|date\s+(hereof|first|of\s+this)|execution)",
    re.I,
)
_AFTER_END = re.compile(
    r"^[\s,]*(after|following|from|beyond)\s+(the\s+|any\s+|its\s+)?"
    r"(termination|expiration|expiry|end|disclosure|receipt|mailing|notice|date\s+of\s+disclosure)",
    re.I,
)
_POSSESSIVE = re.compile(r"^[’']", re.I)
_HEADING_TERM = re.compile(r"(?:^|\n)\s*(?:\d+\.?\d*\.?\s*)?(?:Term|TERM)\b(?![ \t]+[a-z])")

#: The names of :func:`term_features`' values, in order (the model file repeats them).
TERM_FEATURES: tuple[str, ...] = (
    "rule_pick",
    *(f"unit_{u}" for u in _UNITS),
    "log_number",
    "in_parentheses",
    "position",
    "order",
    "mentions",
    *(f"sentence_{w}" for w in _WORDS),
    "period_of",
    "for_before",
    "within_before",
    "initial_before",
    "from_start",
    "after_end",
    "possessive",
    "heading_term",
    "agreement_ends",
    "hyphenated_period",
    "cue_window",
)


@attrs.frozen(kw_only=True)
class TermCandidate:
    """One printed duration: its normal form (``"2 years"``) and where it is in the text."""

    value: str
    start: int
    end: int


# A duration's unit: where the (slow, many-alternative) duration pattern is worth trying.
_UNIT = re.compile(r"(?:years?|months?|weeks?|days?)\b", re.I)
# How far before its unit a duration may start ("twenty-four (24) " and spaces).
_DURATION_REACH = 64


def _durations(text: str, duration: re.Pattern[str]) -> list[re.Match[str]]:
    """What ``duration.finditer(text)`` gives, tried only just before each unit word: the
    pattern starts with a hundred number words, and trying it at every character of a
    40-page contract cost about 50 ms."""
    found: list[re.Match[str]] = []
    last = 0
    for unit in _UNIT.finditer(text):
        start = max(last, unit.start() - _DURATION_REACH)
        match = duration.search(text, start, unit.end())
        while match is not None and match.end() < unit.end():
            # A duration ending at an earlier unit was taken (or refused) there already.
            match = duration.search(text, match.end(), unit.end())
        if match is not None:
            found.append(match)
            last = match.end()
    return found


def term_candidates(
    text: str, duration: re.Pattern[str], numbers: dict[str, int]
) -> list[TermCandidate]:
    """Every duration ``duration`` (the contract rules' pattern, its groups ``n`` and ``unit``)
    finds in ``text``, in order, with its normal form (``numbers``: written-out numbers)."""
    out: list[TermCandidate] = []
    for match in _durations(text, duration):
        raw = re.sub(r"[-\x02]\s*", "-", re.sub(r"\s+", " ", match.group("n").lower()))
        number = int(raw) if raw.isdigit() else numbers.get(raw)
        if number is None or number == 0:
            continue
        unit = match.group("unit").lower().rstrip("s")
        value = f"{number} {unit}{'s' if number != 1 else ''}"
        out.append(TermCandidate(value=value, start=match.start(), end=match.end()))
    return out


def _sentence(text: str, start: int, end: int) -> str:
    before = text[max(0, start - _BEFORE) : start]
    opening = 0
    for match in _SENTENCE_START.finditer(before):
        opening = match.end()
    after = text[end : end + _AFTER]
    closing = _SENTENCE_END.search(after)
    return before[opening:] + text[start:end] + (after[: closing.start()] if closing else after)


def term_features(
    text: str,
    candidates: list[TermCandidate],
    rule: TermCandidate | None,
    cue_windows: list[tuple[int, int]],
) -> list[list[float]]:
    """The features of each candidate (names in :data:`TERM_FEATURES`); ``rule``: the rules'
    pick, if any; ``cue_windows``: the spans the rules read a term in (after a phrase making
    the agreement the subject of an ending verb)."""
    counts: dict[str, int] = {}
    for c in candidates:
        counts[c.value] = counts.get(c.value, 0) + 1
    rows: list[list[float]] = []
    length = max(len(text), 1)
    for order, c in enumerate(candidates):
        sentence = _sentence(text, c.start, c.end)
        before = text[max(0, c.start - 40) : c.start]
        after = text[c.end : c.end + 80]
        number_text, unit = c.value.split(" ")
        unit = unit.rstrip("s")
        printed = text[c.start : c.end]
        heading_window = text[max(0, c.start - _HEADING) : c.start]
        row = [
            float(rule is not None and rule.start == c.start),
            *(float(unit == u) for u in _UNITS),
            math.log1p(int(number_text)),
            float("(" in printed),
            c.start / length,
            order / max(len(candidates) - 1, 1),
            math.log(counts[c.value]),
            *(float(bool(p.search(sentence))) for p in _WORDS.values()),
            float(bool(_PERIOD_OF.search(before))),
            float(bool(_FOR.search(before))),
            float(bool(_WITHIN.search(before))),
            float(bool(_INITIAL.search(before))),
            float(bool(_FROM_START.search(after))),
            float(bool(_AFTER_END.search(after))),
            float(bool(_POSSESSIVE.search(after))),
            float(bool(_HEADING_TERM.search(heading_window))),
            float(bool(_AGREEMENT_ENDS.search(sentence[: sentence.find(printed) + 1]))),
            float(bool(_HYPHENATED.match(printed.strip()))),
            float(any(a <= c.start < b for a, b in cue_windows)),
        ]
        rows.append(row)
    return rows


# ---------------------------------------------------------------- parties

#: Where a party candidate was found: the preamble clause, a name defined as a term, a
#: signature block, or any name ending in a legal form in the contract's first pages.
PARTY_SOURCES = ("preamble", "defined", "signature", "legal_form")

# How a party is introduced right after its name: a description or a defined-term alias.
_DESCRIBED = re.compile(r"^\s*,?\s*(an?\s+[a-z]|organi[sz]ed|incorporated|with\s+(its\s+)?offices)")
_ALIAS = re.compile(
    r"^[^()]{0,160}?\(\s*(the\s+|hereinafter\s+(referred\s+to\s+as\s+)?)?[\"“]", re.I
)
_ROLE_WORDS = re.compile(
    r"\b(recipient|discloser|disclosing|receiving|company|client|customer|supplier|provider|"
    r"consultant|buyer|seller|licensor|licensee|employee|executive|party)\b",
    re.I,
)
_ADDRESS_BEFORE = re.compile(r"\b(at|in|of)\s+(\d+\s+)?$", re.I)
# What comes before a company that is named but not a party: its relation to a party.
_RELATION_BEFORE = re.compile(
    r"\b(subsidiar\w*|affiliates?|parent|including|such\s+as|advis\w+|engaged|involving|"
    r"transaction|merger|acquisition|of)\b[^.;]{0,40}$",
    re.I,
)
_CONNECTOR_INSIDE = re.compile(r"\s(of|and)\s", re.I)
# Other candidates named within this many characters: a list of affiliates.
_NEIGHBOURHOOD = 200

#: The names of :func:`party_features`' values, in order (the model file repeats them).
PARTY_FEATURES: tuple[str, ...] = (
    *(f"from_{s}" for s in PARTY_SOURCES),
    "sources",
    "legal_form",
    "words",
    "single_word",
    "person_like",
    "upper_case",
    "has_digit",
    "log_mentions",
    "first_position",
    "head_position",
    "described_after",
    "alias_after",
    "role_word_near",
    "in_signature_tail",
    "address_before",
    "place_word",
    "preamble_order",
    "rule_pick",
    "relation_before",
    "connector_inside",
    "neighbours",
)


@attrs.frozen(kw_only=True)
class PartyCandidate:
    """One name that may be a party, and which mechanisms proposed it (``sources``; the
    preamble's order of it in ``preamble_order``, -1 when not from the preamble)."""

    name: str
    sources: frozenset[str]
    preamble_order: int = -1


def party_features(
    text: str,
    candidates: list[PartyCandidate],
    *,
    legal_form: re.Pattern[str],
    places: frozenset[str],
    rule: frozenset[int],
) -> list[list[float]]:
    """The features of each candidate (names in :data:`PARTY_FEATURES`); ``legal_form``
    matches a name ending in a legal form, ``places`` are the lexicon's places (casefolded),
    ``rule`` the indexes of the candidates the rules chose."""
    length = max(len(text), 1)
    folded = text.casefold()
    tail = folded[-4000:]
    rows: list[list[float]] = []
    firsts: list[int] = []
    found: list[list[re.Match[str]]] = []
    for c in candidates:
        # A name is found again with its spaces as the text has them (line breaks included).
        pattern = re.compile(r"\s+".join(re.escape(w) for w in c.name.casefold().split()))
        matches = list(pattern.finditer(folded))
        found.append(matches)
        firsts.append(matches[0].start() if matches else length)
    for index, c in enumerate(candidates):
        key = c.name.casefold()
        matches = found[index]
        first = firsts[index]
        after = text[matches[0].end() : matches[0].end() + 200] if matches else ""
        before = text[max(0, first - 12) : first]
        context = text[max(0, first - 80) : first]
        neighbours = sum(
            1 for i, f in enumerate(firsts) if i != index and abs(f - first) <= _NEIGHBOURHOOD
        )
        words = c.name.split()
        person = (
            2 <= len(words) <= 4
            and not legal_form.search(c.name)
            and all(w[:1].isupper() for w in words)
        )
        rows.append(
            [
                *(float(s in c.sources) for s in PARTY_SOURCES),
                float(len(c.sources)),
                float(bool(legal_form.search(c.name))),
                float(len(words)),
                float(len(words) == 1),
                float(person),
                float(c.name.isupper()),
                float(any(ch.isdigit() for ch in c.name)),
                math.log1p(len(matches)),
                first / length,
                float(first < 3000),
                float(bool(_DESCRIBED.search(after))),
                float(bool(_ALIAS.search(after))),
                float(bool(_ROLE_WORDS.search(after[:160]))),
                float(key in tail),
                float(bool(_ADDRESS_BEFORE.search(before))),
                float(key in places),
                float(c.preamble_order),
                float(index in rule),
                float(bool(_RELATION_BEFORE.search(context))),
                float(bool(_CONNECTOR_INSIDE.search(c.name))),
                float(neighbours),
            ]
        )
    return rows
