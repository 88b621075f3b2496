"""Drafting conventions of real agreements the first contract factory lacked (issue #26, item 5).

``make_contract(..., drafting=True)`` (``synth_docs.py --kind contract --drafting``) draws one
of :data:`DRAFTING_STYLES` per contract from a generator of its own, so a seed's contracts
without the flag are unchanged. The wordings are general drafting patterns written here;
nothing is taken from any labelled document set:

- ``listed``: three parties in a preamble listed with commas after their defined terms
  ("by and among A ("X"), B ("Y") and C ("Z")");
- ``trade_name``: a trade or former name after a party's legal name ("doing business as",
  "d/b/a", "formerly known as");
- ``registered_office``: "a company incorporated in ... having its registered office at ..."
  or "whose registered office is at ..." after the legal name;
- ``residence``: an individual party "residing at ...";
- ``undertaking``: an employee undertaking addressed to "you": the company defined as a term,
  the employee named only where they sign for themselves (a conformed "/s/" signature);
- ``date_field``: a "Date:" field at the top instead of a dated preamble;
- ``effective_last``: the effective date only in the last paragraph ("This Agreement is
  effective as of ...");
- ``term_survive``: terms worded as "shall continue ... and survive for N years thereafter",
  "for a term of N years, renewed automatically", "begin on ... and end N months after ...",
  or with no start date ("shall remain in effect for a period of two years.");
- ``until_notice``: no term, the agreement lasting until terminated on N days' notice (a
  duration in the term's own sentence that is no term).
"""

from __future__ import annotations

import random

from renderkit.parsing.synth import names

__all__ = [
    "DRAFTING_STYLES",
    "END_EFFECTIVE",
    "SURVIVE_TERMS",
    "UNTIL_NOTICE",
    "office",
    "residence",
    "trade_name",
]

DRAFTING_STYLES = (
    "plain",
    "listed",
    "trade_name",
    "registered_office",
    "residence",
    "undertaking",
    "date_field",
    "effective_last",
    "term_survive",
    "until_notice",
)

_CITIES = ("Leeds", "Springfield", "Austin", "Dublin", "Rotterdam", "Denver", "Bristol", "Lyon")
_TRADES = ("Labs", "Studio", "Works", "Direct", "Online", "Solutions")

#: Terms of the agreement worded as real agreements word them; ``{d}`` the term, ``{w}`` the
#: term in words alone, ``{r}`` a renewal period.
SURVIVE_TERMS = (
    "This Agreement shall commence on the Effective Date and shall continue in effect and "
    "survive for {d} thereafter.",
    "This Agreement shall be effective as of the Effective Date and shall remain in effect for "
    "a term of {d}, and shall thereafter be renewed automatically for successive periods of {r} "
    "unless terminated.",
    "The term of this Agreement shall begin on the Effective Date and end {d} after the "
    "Effective Date.",
    "This Agreement shall be binding upon the parties for {d} from the Effective Date.",
    # Unanchored: no start date, no numeral beside the words.
    "This Agreement shall remain in effect for a period of {w}.",
    "This Agreement shall continue in force for {w}.",
)
#: An agreement with no term: in force until either party ends it on notice (``{d}``).
UNTIL_NOTICE = (
    "This Agreement shall continue in effect until terminated by either party upon {d} prior "
    "written notice to the other party.",
    "This Agreement shall remain in force until terminated by either party on not less than "
    "{d} written notice.",
)
#: The effective date given only at the end (``{date}``).
END_EFFECTIVE = (
    "This Agreement is effective as of {date}.",
    "This Agreement shall be effective as of {date}.",
)


def trade_name(rng: random.Random) -> str:
    """A trade or former name following a legal name (", doing business as Voramek Labs")."""
    other = f"{names.stem(rng)} {rng.choice(_TRADES)}"
    return rng.choice(
        (f", doing business as {other}", f" d/b/a {other}", f" (formerly known as {other})")
    )


def office(rng: random.Random) -> str:
    """A registered office after a legal name (a description starting "whose" takes no comma
    before it; the contract's ``_introduce`` prints it so)."""
    street = f"{rng.randint(1, 250)} {names.stem(rng, (1, 2))} Street, {rng.choice(_CITIES)}"
    if rng.random() < 0.5:
        return (
            f"a company incorporated in England and Wales having its registered office at {street}"
        )
    return f"whose registered office is at {street}"


def residence(rng: random.Random) -> str:
    """Where an individual party resides."""
    return (
        f"residing at {rng.randint(1, 250)} {names.stem(rng, (1, 2))} Street, {rng.choice(_CITIES)}"
    )
