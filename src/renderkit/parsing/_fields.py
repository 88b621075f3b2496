"""What every rule returns (:class:`Found`), line cleaning, and the contract rules.

Each rule returns a :class:`Found`: the value, a rule confidence (how often the rule is right
when it fires, before OCR quality is taken into account) and the lines it read, for
provenance. Receipt rules live in :mod:`renderkit.parsing.receipt`, invoice rules in
:mod:`renderkit.parsing.invoice`.
"""

from __future__ import annotations

import re

import attrs

from renderkit.parsing._protocol import Line
from renderkit.parsing._values import find_dates
from renderkit.parsing.contract import defined_parties

__all__ = ["Found", "clean", "contract_fields"]


@attrs.frozen(kw_only=True)
class Found:
    """A value a rule found, how sure the rule is, and the lines it came from."""

    value: object
    confidence: float
    lines: tuple[Line, ...] = ()


# Characters OCR leaves at the ends of a line: rules, bullets, quotes, stray punctuation.
_JUNK_EDGES = " \t|:;.,_~—–-'\"“”‘’`*=+<>»«°^\\/{}[]!?"


def clean(text: str) -> str:
    """``text`` without OCR debris at its ends and with single spaces."""
    return re.sub(r"\s+", " ", text).strip(_JUNK_EDGES)


# ---------------------------------------------------------------- contracts

# Governing-law places: US states, Canadian provinces and common countries.
_PLACES = sorted(
    (
        "Alabama",
        "Alaska",
        "Arizona",
        "Arkansas",
        "California",
        "Colorado",
        "Connecticut",
        "Delaware",
        "Florida",
        "Georgia",
        "Hawaii",
        "Idaho",
        "Illinois",
        "Indiana",
        "Iowa",
        "Kansas",
        "Kentucky",
        "Louisiana",
        "Maine",
        "Maryland",
        "Massachusetts",
        "Michigan",
        "Minnesota",
        "Mississippi",
        "Missouri",
        "Montana",
        "Nebraska",
        "Nevada",
        "New Hampshire",
        "New Jersey",
        "New Mexico",
        "New York",
        "North Carolina",
        "North Dakota",
        "Ohio",
        "Oklahoma",
        "Oregon",
        "Pennsylvania",
        "Rhode Island",
        "South Carolina",
        "South Dakota",
        "Tennessee",
        "Texas",
        "Utah",
        "Vermont",
        "Virginia",
        "Washington",
        "West Virginia",
        "Wisconsin",
        "Wyoming",
        "District of Columbia",
        "England",
        "England and Wales",
        "Scotland",
        "Ireland",
        "Canada",
        "Ontario",
        "Quebec",
        "British Columbia",
        "Alberta",
        "Germany",
        "France",
        "Switzerland",
        "Netherlands",
        "Israel",
        "Singapore",
        "Hong Kong",
        "Japan",
        "China",
        "India",
        "Australia",
        "New South Wales",
        "Victoria",
        "Cayman Islands",
        "Bermuda",
        "Luxembourg",
        "Sweden",
        "Norway",
        "Denmark",
        "Italy",
        "Spain",
        "Mexico",
        "Brazil",
    ),
    key=len,
    reverse=True,
)
_PLACE = "|".join(re.escape(p) for p in _PLACES)
_GOVERNING = re.compile(
    rf"laws?\s+of\s+(?:the\s+)?(?:(?:State|Commonwealth|Province|Republic|Kingdom)\s+of\s+)?"
    rf"(?P<place>{_PLACE})\b",
    re.I,
)
_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "eighteen": 18, "twenty": 20, "twenty-four": 24,
    "thirty": 30, "thirty-six": 36, "sixty": 60, "ninety": 90,
}  # fmt: skip
_DURATION = re.compile(
    r"(?P<n>\d{1,3}|" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + r")"
    r"(?:\s*\(\d{1,3}\))?[\s-]*(?P<unit>years?|months?|weeks?|days?)\b",
    re.I,
)
_TERM_CUE = re.compile(
    r"(this\s+(?:letter\s+)?agreement|the\s+term\s+of\s+this|the\s+term\s+hereof|"
    r"obligations\s+(?:hereunder|under\s+this\s+agreement))[^.;]{0,80}?"
    r"(shall|will)\s+(terminate|expire|remain\s+in\s+(?:full\s+)?(?:force|effect)|continue|"
    r"be\s+in\s+effect|be\s+effective|survive|end)|\bterm\s+of\s+this\s+agreement\s+(?:shall|will)\s+be",
    re.I,
)
_PARTY_END = re.compile(
    r"\s*\(|,?\s+a\s+(?:[A-Z][a-z]+\s+)*(?:corporation|company|limited|partnership|"
    r"bank|banking|national|state|delaware|nevada)|,\s+an?\s+|,\s+(?:located|with|having|whose|"
    r"on\s+behalf|each|its|hereinafter|as\s+)|\s+d/?b/?a\b|\s+f/?k/?a\b|;|:|"
    # A full stop ends the name unless it closes an initial or an abbreviation.
    r"(?<!\b[A-Z])(?<!\bInc)(?<!\bCo)(?<!\bCorp)(?<!\bLtd)(?<!\bMr)(?<!\bMs)(?<!\bDr)"
    r"(?<!\bJr)(?<!\bSr)(?<!\bNo)(?<!\bSt)\.\s+(?=[A-Z])|,\s*$|,\s+(?:and|&)\s+|"
    r"(?:(?<=Inc\.)|(?<=LLC)|(?<=Ltd\.)|(?<=L\.P\.)|(?<=\bLP)|(?<=Corp\.)|(?<=Corporation)|"
    r"(?<=Company))\s+(?:and|&)\s+(?=[A-Z])",
)
_GENERIC_PARTY = re.compile(
    r"^(the\s+)?(undersigned|company|employee|executive|recipient|discloser|you|we|us|"
    r"receiving\s+party|disclosing\s+party|party|parties|each|both|corporation|consultant)\b",
    re.I,
)


def _party_name(text: str) -> str:
    name = re.sub(r"\s+", " ", text).strip(" ,;:.\"“”'")
    name = re.sub(r"^(?:the|The)\s+", "", name)
    name = name.replace("&", " and ").replace("  ", " ")
    if name.endswith((" Inc", " Corp", " Ltd", " Co")):
        name += "."
    return re.sub(r"\s+", " ", name).strip()


_CONNECTORS = {"of", "and", "the", "de", "du", "von", "van", "der", "la", "le", "y", "for", "in"}


def _looks_like_name(name: str) -> bool:
    words = name.split()
    if not words or len(words) > 10 or len(name) > 100 or _GENERIC_PARTY.match(name):
        return False
    if not name[0].isupper() or any(re.fullmatch(r"\d{3,}", w) for w in words):
        return False
    return all(w[0].isupper() or w[0].isdigit() or w in _CONNECTORS or w[0] in "(&" for w in words)


def _parties(text: str) -> Found | None:
    head = text[:3000]
    match = re.search(r"\b(?:by\s+and\s+)?(?:between|among)\s*:?\s+", head, re.I)
    if match is None:
        return None
    clause = head[match.end() : match.end() + 900]
    stop = re.search(r"\b(WHEREAS|RECITALS|Background|W\s?I\s?T\s?N\s?E\s?S\s?S)|\n\s*\n", clause)
    if stop:
        clause = clause[: stop.start()]
    clause = clause.replace("\n", " ")
    names: list[str] = []
    pos = 0
    while pos < len(clause) and len(names) < 4:
        rest = clause[pos:]
        end = _PARTY_END.search(rest)
        raw = rest[: end.start()] if end else rest[:120]
        name = _party_name(raw)
        if _looks_like_name(name):
            names.append(name)
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
            elif depth == 0:
                m = re.match(r",?\s*(?:and|&)\s+(?:the\s+)?(?=[A-Z])", rest[i:])
                if m and i >= start - 8:
                    nxt = i + m.end()
                    break
                if rest[i] == "." and re.match(r"\.\s+[A-Z][a-z]", rest[i:]) and i > start:
                    break
            i += 1
        if nxt is None:
            break
        pos += nxt
    names = list(dict.fromkeys(names))
    if not names:
        return None
    return Found(value=names, confidence=0.75)


def _jurisdiction(text: str) -> Found | None:
    best: tuple[int, str] | None = None
    for match in _GOVERNING.finditer(text):
        window = text[max(0, match.start() - 250) : match.end() + 50].lower()
        score = 2 if re.search(r"govern|constru|interpret", window) else 0
        score += 1 if "state of" in match.group(0).lower() else 0
        if re.search(r"organi[sz]ed|incorporated|existing|formed", window[-330:-60]):
            score -= 2  # "a corporation incorporated under the laws of Canada"
        if best is None or score > best[0]:
            best = (score, match.group("place"))
    if best is None or best[0] < 1:
        return None
    place = best[1]
    for known in _PLACES:
        if known.lower() == place.lower():
            place = known
    return Found(value=place, confidence=0.85 if best[0] >= 2 else 0.6)


def _effective_date(text: str) -> Found | None:
    head = text[:2500]
    for value, start, _ in find_dates(head, day_first=False):
        before = head[max(0, start - 120) : start].lower()
        if re.search(
            r"(as\s+of|dated|effective|made\s+(?:on|this)|entered\s+into\s+(?:on|this)|"
            r"this\s+\d{0,2}\w*\s*day\s+of|executed\s+on|day\s+of)[^.;]{0,60}$",
            before,
        ):
            return Found(value=value.isoformat(), confidence=0.8)
    return None


def _term(text: str) -> Found | None:
    for cue in _TERM_CUE.finditer(text):
        window = text[cue.start() : cue.end() + 200]
        window = re.split(r"(?<=[a-z)])\.\s+[A-Z]", window)[0]
        duration = _DURATION.search(window)
        if duration is None:
            continue
        raw = duration.group("n").lower()
        number = int(raw) if raw.isdigit() else _NUMBER_WORDS[raw]
        unit = duration.group("unit").lower().rstrip("s")
        return Found(value=f"{number} {unit}{'s' if number != 1 else ''}", confidence=0.55)
    return None


def contract_fields(text: str) -> dict[str, Found]:
    """Parties, effective date, governing-law jurisdiction and term of a contract."""
    found: dict[str, Found] = {}
    for name, rule in (
        ("parties", _parties),
        ("effective_date", _effective_date),
        ("jurisdiction", _jurisdiction),
        ("term", _term),
    ):
        value = rule(text)
        if value is not None:
            found[name] = value
    if "parties" not in found:
        defined = defined_parties(text)
        if defined:
            found["parties"] = Found(value=defined, confidence=0.6)
    return found
