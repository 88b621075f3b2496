"""The receipt rules' patterns, built on first use from the lexicons.

The words come from ``lexicons/receipt.toml`` (the labels tills print) and the regional word
lists (``lexicons/regions/*.toml``: legal forms, trade and street words, local labels); this
module only gives them their shape. Nothing is read or compiled at import:
:func:`receipt_patterns` builds everything once, on the first receipt.
"""

from __future__ import annotations

import functools
import re
import tomllib
from importlib import resources

import attrs

from renderkit.parsing.extract.identifiers import legal_forms
from renderkit.parsing.lexicons.regions import RegionWords, region_words

__all__ = ["ReceiptPatterns", "dotted_pattern", "form_pattern", "receipt_patterns"]

# Letters and digits OCR prints for one another in legal-form abbreviations ("S0N 8HD").
_LOOKALIKE = {"S": "S5", "D": "DO0L", "B": "B8E", "O": "O0D", "I": "I1L", "L": "L1I"}


def form_pattern(text: str, *, fuzzy: bool) -> str:
    """A pattern for a legal form or label: dots and commas optional, spaces any spacing."""
    out = ""
    for char in text:
        if char == " ":
            out += r"\W{0,2}\s*"
        elif char in ".,":
            out += re.escape(char) + "?"
        elif fuzzy and char.upper() in _LOOKALIKE:
            out += f"[{_LOOKALIKE[char.upper()]}]"
        else:
            out += re.escape(char)
    return out


def dotted_pattern(form: str) -> str:
    """A pattern for an abbreviated legal form with its inner dots printed ("V.O.F."), each
    letter read as it or a lookalike ("V.0.F."): with the dots a misread letter cannot make a
    word of a name one ("S.R.I." is "S.R.L.", "SRI" is not)."""
    inner = "".join(
        f"[{_LOOKALIKE.get(c.upper(), re.escape(c))}]" if c.isalpha() else re.escape(c)
        for c in form.removesuffix(".")
    )
    return inner + r"\.?" if form.endswith(".") else inner  # the last dot is often lost


def _forms(forms: tuple[str, ...], *, fuzzy: bool = False) -> str:
    ordered = sorted(set(forms), key=lambda f: (-len(f), f))
    return "|".join(form_pattern(f, fuzzy=fuzzy) for f in ordered) or "(?!)"


def _o_forms(regional: tuple[str, ...]) -> tuple[str, ...]:
    """The legal forms, regional or not, that open with an O, without it ("G" for "OG")."""
    return tuple({f[1:] for f in (*regional, *legal_forms()) if f[:1].upper() == "O" and f[1:]})


def _other_forms(regional: tuple[str, ...]) -> tuple[str, ...]:
    # Written in the identifiers lexicon once; the regional lists hold them in capitals.
    known = {f.upper() for f in regional}
    return tuple(f for f in legal_forms() if f.upper() not in known)


def _extra(words: tuple[str, ...]) -> str:
    # Regional words appended to an alternation of general ones.
    return "".join("|" + form_pattern(w, fuzzy=False) for w in words)


@attrs.frozen(kw_only=True)
class ReceiptPatterns:
    """Every pattern the receipt rules match, and the regional words they read directly.

    Each pattern is described where its words are listed, in ``lexicons/receipt.toml``.
    """

    words: RegionWords
    slashed_forms: tuple[str, ...]
    dotted_forms: tuple[str, ...]
    continuation: frozenset[str]
    legal_suffix: re.Pattern[str]
    other_form_end: re.Pattern[str]
    zero_form_end: re.Pattern[str]
    business_word: re.Pattern[str]
    header_stop: re.Pattern[str]
    contact: re.Pattern[str]
    registration: re.Pattern[str]
    registration_label: re.Pattern[str]
    trailing_registration: re.Pattern[str]
    id_line: re.Pattern[str]
    not_id_line: re.Pattern[str]
    address_label: re.Pattern[str]
    address_word: re.Pattern[str]
    compound_street: re.Pattern[str]
    postcode: re.Pattern[str]
    floor_ordinal: re.Pattern[str]
    greeting: re.Pattern[str]
    region: re.Pattern[str]
    not_total: re.Pattern[str]
    total_word: re.Pattern[str]
    cash: re.Pattern[str]
    change: re.Pattern[str]
    owed: re.Pattern[str]
    balance: re.Pattern[str]
    subtotal: re.Pattern[str]
    tax: re.Pattern[str]
    tax_line: re.Pattern[str]
    number_label: re.Pattern[str]
    till_heads: re.Pattern[str]
    rounding: re.Pattern[str]


def _receipt_words() -> dict[str, list[str]]:
    path = resources.files("renderkit.parsing.lexicons") / "receipt.toml"
    data: dict[str, list[str]] = tomllib.loads(path.read_text(encoding="utf-8"))
    return data


@functools.cache
def receipt_patterns() -> ReceiptPatterns:
    """The receipt rules' patterns, built from the lexicons on the first call."""
    words = region_words()
    listed = _receipt_words()
    regional = {
        "{tax_names}": _forms(words.tax_names),
        "{registration_labels}": _forms(words.registration_labels),
    }

    def alt(name: str) -> str:
        # The list's entries as one alternation, regional lists put in for their names.
        joined = "|".join(listed[name])
        for slot, pattern in regional.items():
            joined = joined.replace(slot, pattern)
        return joined

    def after_none_of(name: str, then: str = "") -> str:
        return "".join(f"(?<!{entry}{then})" for entry in listed[name])

    pair_firsts = tuple(pair[0] for pair in words.legal_pairs)
    pairs = tuple(" ".join(pair) for pair in words.legal_pairs)
    slashed = tuple(f for f in words.legal_forms if "/" in f)
    single = tuple(f for f in words.legal_forms if f not in pair_firsts + slashed)
    firsts = {w.upper() for f in words.legal_forms for w in f.split()[:1]}
    # Forms of three letters or more, each followed by a dot ("V.O.F.", "S.L.U.").
    dotted = tuple(f for f in words.legal_forms if re.fullmatch(r"(?:[A-Z]\.){3,}", f))
    tax = alt("tax")
    # A street name of one compound word ("Lindenstraße"): letters, then a street's ending.
    compound = rf"\b[^\W\d_]{{2,}}(?:{_forms(words.street_suffixes)})"
    return ReceiptPatterns(
        words=words,
        slashed_forms=slashed,
        dotted_forms=dotted,
        continuation=frozenset(listed["continuation"]) | firsts | {f"{w}." for w in firsts},
        legal_suffix=re.compile(
            rf"\b({_forms(pairs, fuzzy=True)}|(?:{_forms(pair_firsts, fuzzy=True)})\.?(?=\s*$)|"
            rf"{_forms(slashed, fuzzy=True)}|{_forms(single)}|"
            rf"{'|'.join(dotted_pattern(f) for f in dotted) or '(?!)'})(?=\W|$)",
            re.I,
        ),
        # The lexicons' other legal forms ("OG", "KG", "Co."), which the regions' lists leave
        # out (a bare "KG" is also a Malay village), only where one ends its line: a seller's
        # name from elsewhere, tried after every regional form (``header_company``).
        other_form_end=re.compile(
            rf"(?<![^\W_])({_forms(_other_forms(words.legal_forms))})\W*$", re.I
        ),
        # A legal form opening with an O that OCR read as a zero, ending its line ("Acme 0G",
        # "Acme 0HG"); group 1 is the form after its O.
        zero_form_end=re.compile(
            rf"(?<![\w.,])0({_forms(_o_forms(words.legal_forms))})(?=\W*$)", re.I
        ),
        business_word=re.compile(rf"\b({_forms(words.trade_words)})\b", re.I),
        header_stop=re.compile(rf"\b({alt('header_stop')})\b", re.I),
        contact=re.compile(rf"\b({alt('contact')})\b", re.I),
        registration=re.compile(
            rf"\(?\s*(?:(?:{alt('company')})\.?\s*(?:{alt('registration')})\.?\s*"
            rf"(?:{alt('number_word')}\.?)?\s*:?\s*|"
            rf"(?:{regional['{registration_labels}']})\s*:?\s*)?\d{{3,}}[-\s]?[A-Z]?\s*\)?$",
            re.I,
        ),
        registration_label=re.compile(rf"\b({alt('registration_label')})\b", re.I),
        trailing_registration=re.compile(
            rf"\s*\(?\s*(?:{alt('registration_short')}\.?\s*:?\s*)?\d{{4,}}[-\s]?[A-Z]?\s*\)?\s*$",
            re.I,
        ),
        id_line=re.compile(
            rf"\b({alt('id_owner')})\b[^:]{{0,20}}?\b({alt('id_word')})\b|"
            rf"\b({regional['{tax_names}']})\b\W{{0,3}}\w{{0,4}}\W{{0,3}}\d{{6,}}",
            re.I,
        ),
        not_id_line=re.compile(rf"\b({alt('not_id_line')})\b", re.I),
        address_label=re.compile(
            rf"(?<!\w){after_none_of('other_address', ' ')}"
            rf"({alt('address_label')}{_extra(words.address_labels)})\s*[:.]\s*(?=\S)",
            re.I,
        ),
        # A street word, or a compound street name ("Lindenstraße", "Kerkstraat"), which OCR
        # may have run into its house number ("Goethegasse12").
        address_word=re.compile(
            rf"\b({_forms(words.street_words)})(?=\W|$)|{compound}(?=\W|\d|$)", re.I
        ),
        # A compound street name run into its house number ("Goethegasse12"): up to the number.
        compound_street=re.compile(rf"{compound}(?=\d{{1,4}}[a-z]?\b)", re.I),
        # A post code: 5 digits before a town name ("47100 Puchong") or after a state at the end
        # of a line ("Austin, TX 78701"), not a lot or house number ("Lot 12345,"); or a UK one.
        postcode=re.compile(
            rf"(?<![\d#]){after_none_of('house_number')}\d{{5}}(?:-\d{{4}})?(?!\d)"
            r"(?=\s*,?\s*[A-Za-z]{2}|\W*$)|(?-i:\b[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2}\b)",
            re.I,
        ),
        floor_ordinal=re.compile(rf"\b[B8](RD|rd)(?=\W{{0,2}}\s*({alt('floor')})\b)", re.I),
        greeting=re.compile(rf"^\W*({_forms(words.greetings)})\W*$", re.I),
        region=re.compile(rf"^({_forms(words.regions)})\b", re.I),
        not_total=re.compile(alt("not_total"), re.I),
        total_word=re.compile(alt("total") + _extra(words.total_labels), re.I),
        cash=re.compile(rf"^\W*({alt('cash')}{_extra(words.cash_labels)})\b", re.I),
        change=re.compile(rf"\b({alt('change')}{_extra(words.change_labels)})\b", re.I),
        owed=re.compile(alt("owed"), re.I),
        balance=re.compile(rf"\b({alt('balance')})\b", re.I),
        subtotal=re.compile(alt("subtotal"), re.I),
        tax=re.compile(rf"\b({tax})\b", re.I),
        tax_line=re.compile(rf"^\W*({tax})\b", re.I),
        number_label=re.compile(
            rf"\b({alt('number_owner')})\s*(?:{alt('number_mark')})?\s*[:#.;]?\s*"
            r"(?P<value>[A-Z0-9][A-Z0-9/_-]{2,})",
            re.I,
        ),
        till_heads=re.compile(rf"^\W*({alt('till_heads')})\b", re.I),
        rounding=re.compile(rf"\b{alt('rounding')}\b.*\d[.,]\d{{2}}", re.I),
    )
