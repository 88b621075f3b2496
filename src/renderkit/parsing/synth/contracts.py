"""Synthetic contracts: NDAs and service or supply agreements whose parties, term, effective date
and governing law are known by construction.

Every contract is a seeded function of ``(seed, index)``. The wording is written here from
general contract drafting patterns (nothing is taken from any labelled document set); the
names come from :mod:`.names`. What varies, each a seeded choice:

- the kind (mutual or one-way NDA, services, supply, consulting) and its title;
- the parties (two, sometimes three): companies with legal forms of several countries (Inc.,
  LLC, Ltd, GmbH, S.A., S.à r.l., B.V., AG, Pty Ltd...) or individuals, each with an optional
  description ("a Delaware corporation", "a company organised under the laws of ...") and a
  defined-term alias ("(hereinafter "Recipient")"); where the parties are named: a preamble
  "by and between", a numbered "between: (1) ... and (2) ...", or a letter (the parties only in
  defined terms and the signature blocks);
- the term: "for a period of two (2) years", "thirty-six (36) months from the Effective Date",
  "an initial term of ... renewing automatically", "shall terminate N years after", under a
  "Term" heading or inside another clause far from one; or no term ("until terminated", "expire
  on <date>");
- decoy durations: notice periods, survival periods, confidentiality obligations lasting longer
  than the agreement, payment terms, cure periods, non-solicitation periods;
- the effective date in several forms, with decoy dates (other agreements, signature dates);
  with ``other_dates`` (``synth_docs.py --other-dates``, a generator of its own so a seed's
  other choices stay as they were) also how the execution clause dates the agreement: "as of
  the day and year set forth below" with no date above (the signatures' date is the
  effective date), an undertaking signed below with dated signature lines and no execution
  clause (no effective date), an acceptance "ACCEPTED AND AGREED TO THIS 11th DAY OF ..."
  or a closing "Dated:" line (that date), "first above written" wordings of the clause, and
  the date a term ends ("shall remain in force until <date>") as a decoy.

Other companies are named too (a parent, affiliates in a list, a transaction's target, an
adviser, an officer's title "President of <party>"), affiliates sometimes with short names of
their own, and some signature blocks print no company: decoys for the parties. The truth's
``decoys`` lists every decoy duration, ``decoy_names`` every decoy company, ``layout.family``
the structure (how the parties are named and where the term sits), the family a ranker's folds
keep out together.
"""

from __future__ import annotations

import datetime as dt
import html
import random
from typing import Any

import attrs

from renderkit.parsing.synth import drafting as drafts
from renderkit.parsing.synth import names

__all__ = ["ContractLayout", "SynthContract", "contract_fragment", "make_contract"]

_UNITS = ("year", "month", "day", "week")

_NUMBER_WORDS = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen", "twenty",
)  # fmt: skip
_TENS = {20: "twenty", 30: "thirty", 40: "forty", 50: "fifty", 60: "sixty", 90: "ninety"}

# Legal forms across the lexicon languages, and how a description names each form's country.
_FORMS: tuple[tuple[str, str], ...] = (
    ("Inc.", "a Delaware corporation"),
    ("Inc.", "a Nevada corporation"),
    ("Corporation", "a New York corporation"),
    ("Corp.", "a California corporation"),
    ("LLC", "a Delaware limited liability company"),
    ("L.P.", "a Delaware limited partnership"),
    ("Ltd", "a company incorporated in England and Wales"),
    ("Limited", "a private limited company registered in England"),
    ("PLC", "a public limited company"),
    ("GmbH", "a company organised under the laws of Germany"),
    ("AG", "a stock corporation under the laws of Switzerland"),
    ("S.A.", "a sociedad anónima organised under the laws of Spain"),
    ("S.à r.l.", "a société à responsabilité limitée under the laws of Luxembourg"),
    ("B.V.", "a private company with limited liability under Dutch law"),
    ("S.r.l.", "a company organised under the laws of Italy"),
    ("Pty Ltd", "a company registered in New South Wales"),
    ("Lda.", "a company organised under the laws of Portugal"),
)
_TRADE = ("Holdings", "Technologies", "Systems", "Partners", "Pharmaceuticals", "Capital",
          "Industries", "Software", "Medical", "Energy", "Logistics", "Networks", "Labs",
          "Biosciences", "Group", "Resources")  # fmt: skip
_FIRST = ("Anna", "Marcus", "Helena", "David", "Priya", "Jonas", "Claire", "Tomas", "Elena",
          "Robert", "Sofia", "Martin", "Laura", "Peter")  # fmt: skip
_ALIASES = (
    ("Company", "Recipient"), ("Discloser", "Recipient"), ("Disclosing Party", "Receiving Party"),
    ("Client", "Provider"), ("Customer", "Supplier"), ("Company", "Consultant"),
    ("Buyer", "Seller"), ("Licensor", "Licensee"),
)  # fmt: skip
_PLACES = ("New York", "Delaware", "California", "Texas", "Massachusetts", "Illinois",
           "England and Wales", "Ontario", "Florida", "Washington", "Colorado",
           "Georgia")  # fmt: skip
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")  # fmt: skip

# The durations decoy clauses print.
_DECOY_DURATIONS = ((30, "day"), (10, "day"), (5, "year"), (7, "year"), (2, "year"), (60, "day"),
                    (12, "month"), (45, "day"), (3, "year"), (15, "day"))  # fmt: skip

#: How the parties are named: a preamble, a numbered list, or a letter (no preamble).
PARTY_STYLES = ("preamble", "numbered", "letter")
#: Where the term sits: under its own heading, inside another clause, or no term.
TERM_PLACES = ("heading", "buried", "none")


def _number_word(n: int) -> str:
    if n <= 20:
        return _NUMBER_WORDS[n]
    tens, unit = divmod(n, 10)
    word = _TENS[tens * 10]
    return f"{word}-{_NUMBER_WORDS[unit]}" if unit else word


def _count(n: int, unit: str, rng: random.Random) -> str:
    """``n unit(s)`` as contracts print it: words, words and digits, or digits."""
    plural = unit + ("s" if n != 1 else "")
    style = rng.random()
    if style < 0.5:
        return f"{_number_word(n)} ({n}) {plural}"
    if style < 0.75:
        return f"{_number_word(n)} {plural}"
    return f"{n} {plural}"


@attrs.frozen(kw_only=True)
class ContractParty:
    """One party: its full legal name, how the text describes it, its alias and signer."""

    name: str
    description: str | None
    alias: str
    individual: bool
    signer: str


@attrs.frozen(kw_only=True)
class ContractLayout:
    """The seeded structure of one contract (``family`` groups documents for folds)."""

    party_style: str
    term_place: str
    signature_columns: bool
    upper_signatures: bool
    photo: bool = False
    language: str = "en"

    @property
    def family(self) -> str:
        """How the parties are named and where the term sits."""
        return f"{self.party_style}/{self.term_place}"


@attrs.frozen(kw_only=True)
class SynthContract:
    """One contract: its paragraphs (heading, text) and what is true of it."""

    id: str
    kind: str
    title: str
    layout: ContractLayout
    parties: tuple[ContractParty, ...]
    effective: dt.date | None
    jurisdiction: str
    term: tuple[int, str] | None
    term_text: str | None
    decoys: tuple[str, ...]
    decoy_names: tuple[str, ...]
    paragraphs: tuple[tuple[str, str], ...]
    #: The drafting convention (:data:`.drafting.DRAFTING_STYLES`), "plain" without one.
    drafting: str = "plain"

    @property
    def expected(self) -> dict[str, Any]:
        """The labels in the eval set's normal forms (the dev set's contract fields)."""
        out: dict[str, Any] = {
            # The dev set's normal form spells "&" as "and" (its labels were normalised so).
            "party": [p.name.replace(" & ", " and ") for p in self.parties],
            "jurisdiction": self.jurisdiction,
        }
        if self.effective is not None:
            out["effective_date"] = self.effective.isoformat()
        if self.term is not None:
            n, unit = self.term
            out["term"] = f"{n} {unit}{'s' if n != 1 else ''}"
        return out

    def truth(self) -> dict[str, Any]:
        """The richer truth: values, the printed term clause, decoys and the layout."""
        return {
            "id": self.id,
            "kind": "contract",
            "expected": self.expected,
            "parties": [attrs.asdict(p) for p in self.parties],
            "term_text": self.term_text,
            "decoys": list(self.decoys),
            "decoy_names": list(self.decoy_names),
            "layout": {**attrs.asdict(self.layout), "family": self.layout.family},
            # Only sets made with drafting styles say so: other truths stay as they were.
            **({"drafting": self.drafting} if self.drafting != "plain" else {}),
        }


def _company(rng: random.Random) -> tuple[str, str]:
    form, description = rng.choice(_FORMS)
    core = names.stem(rng)
    shape = rng.random()
    if shape < 0.45:
        name = f"{core} {rng.choice(_TRADE)}"
    elif shape < 0.6:
        name = f"{core} & {names.stem(rng, (1, 2))}"
    elif shape < 0.75:
        name = f"{core} {rng.choice(_TRADE)} {rng.choice(_TRADE)}"
    else:
        name = core
    comma = "," if form in ("Inc.", "Ltd", "LLC", "L.P.") and rng.random() < 0.5 else ""
    return f"{name}{comma} {form}", description


def _person(rng: random.Random) -> str:
    middle = f" {rng.choice('ABCDEFGHJKLMPRSTW')}." if rng.random() < 0.3 else ""
    return f"{rng.choice(_FIRST)}{middle} {names.stem(rng, (2, 3))}"


def _parties(rng: random.Random, count: int) -> tuple[ContractParty, ...]:
    aliases = rng.choice(_ALIASES)
    out = []
    for i in range(count):
        individual = i > 0 and rng.random() < 0.15
        if individual:
            name, description = _person(rng), "an individual"
        else:
            name, description = _company(rng)
        alias = aliases[i] if i < 2 else f"{aliases[1]} {i}"
        out.append(
            ContractParty(
                name=name,
                description=description if rng.random() < 0.7 else None,
                alias=alias,
                individual=individual,
                signer=name if individual else _person(rng),
            )
        )
    return tuple(out)


def _date(day: dt.date, rng: random.Random) -> str:
    form = rng.random()
    month = _MONTHS[day.month - 1]
    if form < 0.55:
        return f"{month} {day.day}, {day.year}"
    if form < 0.75:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(day.day % 10 if day.day not in (11, 12, 13) else 0)
        return f"the {day.day}{suffix or 'th'} day of {month}, {day.year}"
    if form < 0.9:
        return f"{day.day} {month} {day.year}"
    return f"{day.month:02d}/{day.day:02d}/{day.year}"


def _introduce(party: ContractParty, rng: random.Random, trade: str = "") -> str:
    # "Acme Limited whose registered office is at ...": some descriptions take no comma.
    joint = " " if (party.description or "").startswith("whose ") else ", "
    described = f"{trade}{joint}{party.description}" if party.description else trade
    if not party.individual and rng.random() < 0.3:
        described += f", with offices at {rng.randint(1, 999)} {names.stem(rng, (1, 2))} Street"
    hereinafter = rng.choice(("", "hereinafter ", "the ", "hereinafter referred to as "))
    return f'{party.name}{described} ({hereinafter}"{party.alias}")'


_TERM_WORDINGS = (
    "This Agreement shall remain in effect for a period of {d} from the Effective Date.",
    "The term of this Agreement shall be {d}, commencing on the Effective Date.",
    "This Agreement shall commence on the Effective Date and continue for {d}, unless earlier "
    "terminated in accordance with this Section.",
    "This Agreement shall terminate {d} after the Effective Date.",
    "Unless terminated earlier as provided herein, this Agreement will expire {d} from the "
    "date hereof.",
    "This Agreement shall have an initial term of {d} and shall thereafter renew automatically "
    "for successive periods of {r} unless either party gives notice of non-renewal.",
    "The parties agree that this Agreement will be in effect for {d} following the Effective Date.",
    "This Agreement and the obligations of the parties hereunder shall continue for {d} from "
    "the date first written above.",
    "This Agreement shall terminate, and none of its provisions shall have any further effect, "
    "{d} from the date of this Agreement, unless terminated earlier by either party.",
    "The term of this Agreement is {d}.",
    "This Agreement expires on the earlier of (a) {d} from the date hereof and (b) the closing "
    "of a transaction between the parties.",
)
_NO_TERM = (
    "This Agreement shall remain in effect until terminated by either party.",
    "This Agreement shall continue in full force and effect until terminated by mutual written "
    "agreement of the parties.",
    "This Agreement shall expire on {date}.",
)
_DECOYS = (
    "Either party may terminate this Agreement at any time upon {d} prior written notice to "
    "the other party.",
    "The obligations of confidentiality set out in Sections 2 and 3 shall survive any "
    "termination or expiration of this Agreement for a period of {d}.",
    "The Recipient's obligations with respect to Confidential Information shall continue for "
    "{d} from the date of its disclosure.",
    "The Customer shall pay each undisputed invoice within {d} of its receipt.",
    "If a party breaches this Agreement and fails to cure such breach within {d} after written "
    "notice thereof, the other party may terminate this Agreement.",
    "During the term and for {d} thereafter, neither party shall solicit for employment any "
    "employee of the other party.",
    "Upon request, the Recipient shall return or destroy all Confidential Information within {d}.",
    "Notices shall be deemed received {d} after mailing by certified mail.",
    # Covenants whose subject is a party, not the agreement, measured from the agreement's date.
    "Each party agrees that, for a period of {d} from the date of this Agreement, neither it nor "
    "its affiliates will solicit for employment any employee of the other party.",
    "For {d} after the Effective Date, the Recipient will not, without the prior written "
    "consent of the Discloser, acquire any securities of the Discloser.",
    "During the {h} period following the end of the Consultant's engagement, the Consultant "
    "shall not engage in any business competing with the Company.",
    '"Restricted Period" means the {h} period following the date on which the employment of '
    "the Employee ends for any reason.",
    "The Recipient shall not use any information received during the {d} preceding the "
    "Effective Date.",
    "This Agreement governs disclosures made within {d} after the Effective Date.",
    "The Employee will not, during employment and for {d} thereafter, work for a competitor.",
    # The agreement as subject, but bounding only a part of it or what it covers.
    "This Agreement shall apply to all information disclosed during the {d} following the "
    "Effective Date.",
    "The confidentiality provisions of this Agreement shall apply only to information "
    "disclosed within {d} after the Effective Date.",
    "If the engagement ends without cause, the non-competition covenant of this Agreement "
    "shall end after {d}.",
    "If the Company terminates the engagement without cause, it shall continue to pay the fees "
    "for {d}.",
)
_FILLER = (
    (
        "Definitions",
        '"Confidential Information" means all non-public information disclosed by '
        "one party to the other, whether orally or in writing, that is designated as confidential "
        "or that reasonably should be understood to be confidential.",
    ),
    (
        "Use of Information",
        "The Recipient shall use the Confidential Information solely for the "
        "purpose of evaluating a possible business relationship between the parties and shall "
        "protect it with at least the degree of care it uses for its own information.",
    ),
    (
        "Services",
        "The Provider shall perform the services described in each statement of work "
        "in a professional and workmanlike manner, in accordance with generally accepted industry "
        "standards.",
    ),
    (
        "Exclusions",
        "Confidential Information does not include information that is or becomes "
        "publicly available through no fault of the Recipient, or that was rightfully known to "
        "the Recipient before disclosure.",
    ),
    (
        "No License",
        "Nothing in this Agreement grants either party any right or license under "
        "any patent, copyright or other intellectual property right of the other party.",
    ),
    (
        "Remedies",
        "Each party acknowledges that a breach of this Agreement may cause irreparable "
        "harm for which monetary damages would be an inadequate remedy.",
    ),
    (
        "Assignment",
        "Neither party may assign this Agreement without the prior written consent of "
        "the other party, which shall not be unreasonably withheld.",
    ),
)


#: How the agreement is dated with ``other_dates``: as before (a date at the top and "as of
#: the date first written above"), the clause reworded ("first above written"), the date set
#: forth below beside the signatures, an undertaking signed below without an execution clause
#: (no effective date), an acceptance "this Nth day of" below, a closing "Dated:" line.
DATING_STYLES = ("top", "top_reworded", "below", "undertaking", "acceptance", "dated_line")

_WITNESS_ABOVE = (
    "IN WITNESS WHEREOF, the parties have executed this Agreement as of the date first "
    "written above."
)
_WITNESS_ABOVE_REWORDED = (
    "IN WITNESS WHEREOF, the parties hereto have executed this Agreement as of the day and "
    "year first above written.",
    "IN WITNESS WHEREOF, the undersigned have executed this Agreement as of the date set forth "
    "in the first paragraph.",
)
_WITNESS_BELOW = (
    "IN WITNESS WHEREOF, the parties have executed this Agreement as of the day and year set "
    "forth below.",
    "IN WITNESS WHEREOF, the parties have signed this Agreement on the dates set forth below.",
    "This Agreement is entered into as of the date written below.",
)
_UNDERTAKING = (
    "Please sign below to indicate your agreement to these terms.",
    "Please sign and return one copy of this Agreement.",
)
# Openings with no date: the top of an agreement dated elsewhere.
_UNDATED_OPENINGS = (
    'This {t} (this "Agreement") is made and entered into by and between {p}.',
    'This {t} (the "Agreement") is entered into by and between {p}.',
    "This {t} is made between {p}.",
)
_OPENINGS = (
    'This {t} (this "Agreement") is made and entered into as of {date} (the '
    '"Effective Date") by and between {p}.',
    'This {t} (the "Agreement") is entered into effective {date} by and between {p}.',
    "This {t} is dated {date} and is made between {p}.",
)


def _ordinal(day: int) -> str:
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(day % 10 if day not in (11, 12, 13) else 0)
    return f"{day}{suffix or 'th'}"


def make_contract(
    index: int, seed: int, *, other_dates: bool = False, drafting: bool = False
) -> SynthContract:
    """The ``index``-th contract of the set made with ``seed`` (deterministic); with
    ``other_dates``, the ways an agreement is dated of :data:`DATING_STYLES` too (the same
    contract otherwise: their choices come from a generator of their own); with ``drafting``,
    one of the drafting conventions of :data:`.drafting.DRAFTING_STYLES` (from a generator of
    its own too)."""
    rng = random.Random(f"renderkit-synth:{seed}:contract:{index}")
    dating_rng = random.Random(f"renderkit-synth-dating:{seed}:contract:{index}")
    draft = random.Random(f"renderkit-synth-drafting:{seed}:contract:{index}")
    dating = dating_rng.choice(DATING_STYLES) if other_dates else "top"
    style = draft.choice(drafts.DRAFTING_STYLES) if drafting else "plain"
    # Styles dated below print no date at the top.
    top_date = dating in ("top", "top_reworded")
    layout = ContractLayout(
        party_style=rng.choices(PARTY_STYLES, weights=(6, 2, 2))[0],
        term_place=rng.choices(TERM_PLACES, weights=(4, 3, 3))[0],
        signature_columns=rng.random() < 0.4,
        upper_signatures=rng.random() < 0.5,
    )
    kind = rng.choice(("mutual NDA", "NDA", "services", "supply", "consulting"))
    title = {
        "mutual NDA": "MUTUAL NON-DISCLOSURE AGREEMENT",
        "NDA": rng.choice(("CONFIDENTIALITY AGREEMENT", "NON-DISCLOSURE AGREEMENT")),
        "services": "MASTER SERVICES AGREEMENT",
        "supply": "SUPPLY AGREEMENT",
        "consulting": "CONSULTING AGREEMENT",
    }[kind]
    parties = _parties(rng, 3 if rng.random() < 0.1 else 2)
    effective = dt.date(2001, 1, 1) + dt.timedelta(days=rng.randrange(22 * 365))
    has_date = layout.party_style != "letter" or rng.random() < 0.5
    jurisdiction = rng.choice(_PLACES)
    paragraphs: list[tuple[str, str]] = []
    layout, parties, style = _drafted(layout, parties, style, draft, top_date=top_date)
    # A letter made a preamble by its drafting style prints its date there.
    has_date = has_date or layout.party_style in ("preamble", "numbered")
    trades = {0: drafts.trade_name(draft)} if style == "trade_name" else {}
    # The agreement dated by a "Date:" field or its last paragraph prints no date above.
    dated_above = top_date and style not in ("date_field", "effective_last")

    # The parties.
    date_text = _date(effective, rng)
    if style == "date_field":
        paragraphs.append(("", f"Date: {date_text}"))
    if layout.party_style == "preamble":
        intro = [_introduce(p, rng, trades.get(i, "")) for i, p in enumerate(parties)]
        if style == "listed":
            joined = ", ".join(intro[:-1]) + " and " + intro[-1]
        else:
            joined = intro[0] + "".join(
                (", and " if i == len(intro) - 1 and len(intro) > 2 else " and ") + t
                for i, t in enumerate(intro[1:], 1)
            )
        which = rng.randrange(len(_OPENINGS))
        opening = (_OPENINGS if dated_above else _UNDATED_OPENINGS)[which]
        paragraphs.append(("", opening.format(t=title.title(), date=date_text, p=joined)))
    elif layout.party_style == "numbered":
        made = f" on {date_text}" if dated_above else ""
        paragraphs.append(("", f"THIS {title} is made{made}"))
        paragraphs.append(("", "BETWEEN:"))
        for i, p in enumerate(parties, 1):
            end = "; and" if i < len(parties) else "."
            paragraphs.append(("", f"({i}) {_introduce(p, rng, trades.get(i - 1, ''))}{end}"))
    elif layout.party_style == "undertaking":
        if has_date and top_date:
            paragraphs.append(("", date_text))
        company, employee = parties
        if draft.random() < 0.5:
            paragraphs.append(("", f"Dear {employee.name.split()[0]}:"))
        paragraphs.append(
            (
                "",
                f'As an employee of {company.name} (the "Company"), you will have access to '
                "confidential information of the Company. In consideration of your employment, "
                "you agree as follows.",
            )
        )
    else:
        if has_date:
            printed = date_text if rng.random() < 0.5 else _date(effective, rng)
            if top_date:
                paragraphs.append(("", printed))
        person = _person(rng)
        paragraphs.append(("", f"Dear {person.split()[0]} {person.split()[-1]}:"))
        first, second = parties[0], parties[1]
        paragraphs.append(
            (
                "",
                f"In connection with the evaluation of a possible transaction, {first.name} "
                f'(the "{first.alias}") is prepared to make available to {second.name} '
                f'(the "{second.alias}") certain information. This letter agreement sets out the '
                "terms on which that information is provided.",
            )
        )
    other_date = effective - dt.timedelta(days=rng.randrange(30, 2000))
    if rng.random() < 0.4:
        paragraphs.append(
            (
                "RECITALS",
                f"WHEREAS, the parties are parties to a master agreement dated "
                f"{_date(other_date, rng)}; and WHEREAS, the parties wish to exchange certain "
                "confidential information;",
            )
        )
    # Other companies the contract names (a parent, affiliates, a transaction's target, an
    # adviser): decoys for the parties, drawn from a generator of their own.
    other = random.Random(f"renderkit-synth-names:{seed}:contract:{index}")
    decoy_names: list[str] = []
    decoy_clauses: list[tuple[str, str]] = []
    first, second = parties[0], parties[1]
    for shape in other.sample(range(4), other.randint(0, 3)):
        name = _company(other)[0]
        decoy_names.append(name)
        if shape == 0:
            paragraphs.append(
                (
                    "",
                    f"WHEREAS, the {first.alias} is a wholly owned subsidiary of {name} (the "
                    '"Parent");',
                )
            )
        elif shape == 1:
            more = [_company(other)[0] for _ in range(other.randint(1, 3))]
            decoy_names += more
            # Affiliates are often given short names of their own ('Norrel LLC ("NL")').
            shown = [
                f'{n} ("{"".join(w[0] for w in n.split()[:2]).upper()}")'
                if other.random() < 0.5
                else n
                for n in [name, *more]
            ]
            listed = ", ".join(shown[:-1]) + f" and {shown[-1]}"
            decoy_clauses.append(
                (
                    "Affiliates",
                    f"The obligations of the {second.alias} extend to its affiliates, including "
                    f"{listed}.",
                )
            )
        elif shape == 2:
            paragraphs.append(
                (
                    "",
                    "WHEREAS, the parties are considering a possible transaction involving "
                    f'{name} (the "Target");',
                )
            )
        else:
            decoy_clauses.append(
                (
                    "Advisers",
                    f"The {first.alias} has engaged {name} as its financial adviser in "
                    "connection with the matters contemplated hereby.",
                )
            )

    # Clauses: fillers, decoys and the term, shuffled.
    n, unit = rng.choice(
        ((1, "year"), (2, "year"), (3, "year"), (5, "year"), (4, "year"), (18, "month"),
         (24, "month"), (36, "month"), (12, "month"), (6, "month"), (10, "year"), (90, "day"))
    )  # fmt: skip
    term: tuple[int, str] | None = (n, unit)
    if layout.term_place == "none":
        term = None
        expiry = _date(effective + dt.timedelta(days=rng.randrange(300, 2000)), rng)
        term_text = rng.choice(_NO_TERM).format(date=expiry)
    else:
        renew_n, renew_unit = rng.choice(((1, "year"), (12, "month"), (6, "month")))
        term_text = rng.choice(_TERM_WORDINGS).format(
            d=_count(n, unit, rng), r=_count(renew_n, renew_unit, rng)
        )
        if style == "term_survive":
            term_text = draft.choice(drafts.SURVIVE_TERMS).format(
                d=_count(n, unit, draft),
                w=f"{_number_word(n)} {unit}{'s' if n != 1 else ''}",
                r=_count(renew_n, renew_unit, draft),
            )
        elif style == "until_notice":
            term = None
            notice = _count(draft.choice((10, 30, 60, 90)), "day", draft)
            term_text = draft.choice(drafts.UNTIL_NOTICE).format(d=notice)
    decoys: list[str] = []
    clauses: list[tuple[str, str]] = []
    for template in rng.sample(_DECOYS, rng.randint(1, 6)):
        dn, du = rng.choice(_DECOY_DURATIONS)
        hyphenated = f"{_number_word(dn)}-{du}"
        text = template.format(d=_count(dn, du, rng), h=hyphenated)
        decoys.append(text)
        clauses.append((rng.choice(("Termination", "Survival", "Miscellaneous", "Obligations",
                                    "Payment", "General")), text))  # fmt: skip
    clauses += rng.sample(_FILLER, rng.randint(2, 5))
    rng.shuffle(clauses)
    for clause in decoy_clauses:
        clauses.insert(other.randrange(len(clauses) + 1), clause)
    if layout.term_place == "buried" and clauses:
        # Inside another clause, far from any "Term" heading.
        at = rng.randrange(len(clauses))
        heading, text = clauses[at]
        clauses[at] = (heading, f"{text} {term_text}")
    else:
        clauses.insert(rng.randrange(len(clauses) + 1), ("Term", term_text))
    clauses.append(
        (
            "Governing Law",
            f"This Agreement shall be governed by and construed in accordance with the laws of "
            f"{'the State of ' if jurisdiction not in ('England and Wales', 'Ontario') else ''}"
            f"{jurisdiction}, without regard to its conflict of laws principles.",
        )
    )
    for number, (heading, text) in enumerate(clauses, 1):
        paragraphs.append((f"{number}. {heading}" if heading else "", text))
    signed = effective + dt.timedelta(days=rng.randrange(0, 20))
    # The date the agreement is given, and the line that gives it.
    accepted = signed + dt.timedelta(days=dating_rng.randrange(0, 10))
    closing = {
        "top": _WITNESS_ABOVE,
        "top_reworded": dating_rng.choice(_WITNESS_ABOVE_REWORDED),
        "below": dating_rng.choice(_WITNESS_BELOW),
        "undertaking": dating_rng.choice(_UNDERTAKING),
        "acceptance": dating_rng.choice(_UNDERTAKING),
        "dated_line": "",
    }[dating]
    if style == "effective_last":
        # Dated only at the end, so the execution clause points nowhere.
        paragraphs.append(("", draft.choice(drafts.END_EFFECTIVE).format(date=date_text)))
        closing = "IN WITNESS WHEREOF, the parties have executed this Agreement."
    if closing:
        paragraphs.append(("", closing))
    if other_dates and term is None and dating_rng.random() < 0.5:
        # The day a term ends: a date that is no effective date.
        ends = effective + dt.timedelta(days=dating_rng.randrange(300, 2000))
        text = f"This Agreement shall remain in force until {_date(ends, dating_rng)}."
        paragraphs.insert(len(paragraphs) - (1 if closing else 0), ("", text))
    # Some signature blocks print no company name (only the signer), so a party may be named
    # in the preamble alone.
    named_blocks = other.random() >= 0.3
    for p in parties:
        name = p.name.upper() if layout.upper_signatures and not p.individual else p.name
        if style == "undertaking":
            # Conformed signatures, as filed copies print them: the company's officer signs
            # "By:", the employee signs for themself under a label.
            if p.individual:
                label = draft.choice(("EMPLOYEE:", "ACCEPTED AND AGREED:", "ACKNOWLEDGED:"))
                block = f"{label}\n/s/ {p.name}\n{p.name}"
            else:
                block = f"{name}\nBy: /s/ {p.signer}\nName: {p.signer}\nTitle: President"
            block += f"\nDate: {_date(signed, draft)}"
            paragraphs.append(("SIGNATURE", block))
            continue
        block = "" if p.individual or not named_blocks else f"{name}\n"
        block += f"By: ______________\nName: {p.signer}\n"
        if not p.individual:
            role = rng.choice(("President", "Chief Executive Officer", "Director"))
            block += f"Title: {role}{f' of {p.name}' if other.random() < 0.3 else ''}\n"
        block += f"Date: {_date(signed, rng)}"
        paragraphs.append(("SIGNATURE", block))
    if dating == "acceptance":
        month = _MONTHS[accepted.month - 1]
        day = _ordinal(accepted.day)
        line = f"ACCEPTED AND AGREED TO THIS {day} DAY OF {month}, {accepted.year}."
        paragraphs.insert(len(paragraphs) - 1, ("", line))
    elif dating == "dated_line":
        paragraphs.append(("", f"Dated: {_date(accepted, dating_rng)}"))
    given = {"top": effective, "top_reworded": effective, "below": signed, "undertaking": None}
    effective_truth = given.get(dating, accepted) if has_date or not top_date else None
    if style == "effective_last":
        effective_truth = effective
    return SynthContract(
        id=f"synth-contract-{index:04d}",
        kind=kind,
        title=title,
        layout=layout,
        parties=parties,
        effective=effective_truth,
        jurisdiction=jurisdiction,
        term=term,
        term_text=term_text,
        decoys=tuple(decoys),
        decoy_names=tuple(decoy_names),
        paragraphs=tuple(paragraphs),
        drafting=style,
    )


def _drafted(
    layout: ContractLayout,
    parties: tuple[ContractParty, ...],
    style: str,
    rng: random.Random,
    *,
    top_date: bool,
) -> tuple[ContractLayout, tuple[ContractParty, ...], str]:
    """The layout and parties a drafting style needs (``style`` becomes ``"plain"`` where it
    cannot apply: a date field or a last paragraph only where the agreement is dated above)."""
    if style in ("date_field", "effective_last") and (
        not top_date or layout.party_style not in ("preamble", "numbered")
    ):
        return layout, parties, "plain"
    if style == "listed":
        if len(parties) < 3:
            name, description = _company(rng)
            third = ContractParty(
                name=name,
                description=description,
                alias=f"{parties[1].alias} 2",
                individual=False,
                signer=_person(rng),
            )
            parties = (*parties, third)
        return attrs.evolve(layout, party_style="preamble"), parties, style
    if style == "registered_office":
        offices = []
        for p in parties:
            if not p.individual:
                p = attrs.evolve(p, description=drafts.office(rng))
            offices.append(p)
        return layout, tuple(offices), style
    if style == "trade_name" and parties[0].individual:
        return layout, parties, "plain"
    if style in ("residence", "undertaking"):
        person = _person(rng)
        alias = "Employee" if style == "undertaking" else parties[1].alias
        lives = drafts.residence(rng) if style == "residence" else None
        individual = ContractParty(
            name=person, description=lives, alias=alias, individual=True, signer=person
        )
        if style == "undertaking":
            return attrs.evolve(layout, party_style="undertaking"), (parties[0], individual), style
        return layout, (parties[0], individual, *parties[2:]), style
    return layout, parties, style


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def contract_fragment(contract: SynthContract) -> str:
    """The contract as an HTML fragment (its own ``<style>`` first) for a warm page's body."""
    rng = random.Random(f"html:{contract.id}")
    font = rng.choice(("'DejaVu Serif'", "'Noto Serif'", "'DejaVu Sans'", "Inter"))
    size = rng.choice((12, 13, 14))
    style = (
        f"<style>body{{margin:0}}.c{{font-family:{font};font-size:{size}px;line-height:1.45;"
        "padding:48px 64px;color:#111}.c h1{font-size:18px;text-align:center}"
        ".c h2{font-size:inherit;margin:14px 0 4px}.sig{display:flex;gap:48px;margin-top:24px}"
        ".sig div{flex:1;white-space:pre-line}.stack div{white-space:pre-line;margin-top:24px}"
        "</style>"
    )
    body = [f"<h1>{_e(contract.title)}</h1>"]
    signatures = []
    for heading, text in contract.paragraphs:
        if heading == "SIGNATURE":
            signatures.append(f"<div>{_e(text)}</div>")
            continue
        if heading:
            body.append(f"<h2>{_e(heading)}</h2>")
        body.append(f"<p>{_e(text)}</p>")
    kind = "sig" if contract.layout.signature_columns else "stack"
    body.append(f"<section class='{kind}'>{''.join(signatures)}</section>")
    return f"{style}<div class='c'>{''.join(body)}</div>"
