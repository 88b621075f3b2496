"""A receipt's header block: the lines above the till's number and date, and what they hold.

The plain header (name, registration number, two address lines, phone) is what the receipt
rules were written for; real slips are messier. Each document draws, from a generator of its
own (so that adding this left every other choice of a seed as it was), some of:

- a line before the name: a brand name above the legal name, a logo word, a branch or outlet
  name, the registration number, a "TAX INVOICE" title, or a row of symbols a printed logo
  leaves in OCR;
- the registration number in brackets or after a label;
- the name split over two lines (before its legal form, or in the middle);
- the address over two to four lines: the street cut at its comma, the post code on its own
  line, the town and the state apart; sometimes a label ("ADDRESS:") before its first line;
- contact and tax lines (phone, fax, e-mail, a tax registration number) after the address or
  between its lines;
- a store or outlet number line and a title after the address.

The truth's company and address are unchanged strings (the eval compares them after folding
case and collapsing every run of other characters to one space), so splitting a line changes
nothing in the label, only in what a reader has to join.
"""

from __future__ import annotations

import random
import re

import attrs

from renderkit.parsing.synth import names

__all__ = ["ReceiptHeader", "receipt_header"]

_TITLES = {
    "en": ("TAX INVOICE", "RECEIPT", "SIMPLIFIED TAX INVOICE", "CASH BILL"),
    "ms": ("INVOIS CUKAI", "RESIT", "TAX INVOICE", "CASH BILL"),
    "de": ("KASSENBON", "RECHNUNG", "QUITTUNG"),
    "fr": ("TICKET DE CAISSE", "FACTURE", "REÇU"),
}
_BRANCH = {
    "en": ("BRANCH", "OUTLET", "STORE"),
    "ms": ("CAWANGAN", "OUTLET", "BRANCH"),
    "de": ("FILIALE", "MARKT", "STORE"),
    "fr": ("MAGASIN", "AGENCE", "BOUTIQUE"),
}
_STORE = {
    "en": ("STORE NO", "OUTLET", "SHOP", "TILL"),
    "ms": ("KEDAI NO", "OUTLET", "STORE", "KAUNTER"),
    "de": ("FILIALE", "MARKT-NR", "KASSE"),
    "fr": ("MAGASIN N°", "CAISSE", "BOUTIQUE"),
}
_FAX = {"en": "FAX", "ms": "FAKS", "de": "FAX", "fr": "FAX"}
_TAX_ID = {
    "en": ("GST REG NO", "VAT NO", "TAX ID"),
    "ms": ("GST ID", "SST REG NO", "GST REG NO"),
    "de": ("USt-IdNr", "St.-Nr"),
    "fr": ("TVA", "SIRET"),
}
_REGISTRATION = {
    "en": ("CO. REG NO", "COMPANY NO", "REG NO"),
    "ms": ("CO. NO", "NO SYARIKAT", "CO. REG"),
    "de": ("HRB", "HR-NR"),
    "fr": ("RCS", "SIREN"),
}
_ADDRESS_LABEL = {
    "en": ("ADDRESS", "ADD", "HQ", "SITE"),
    "ms": ("ALAMAT", "ADDRESS", "HQ ADD"),
    "de": ("ANSCHRIFT", "ADRESSE"),
    "fr": ("ADRESSE", "SIÈGE"),
}
_NOISE = ("* * * * *", "=-=-=-=-=", "~~ ~~~ ~~", "#########", ". : . : . :")


@attrs.frozen(kw_only=True)
class ReceiptHeader:
    """The header's printed lines, top to bottom, and the parts a test or a ranker needs.

    Attributes:
        lines: every line of the header, unpadded.
        name_lines: the lines the company name was printed on.
        address_lines: the lines the address was printed on (in order; others may sit
            between them), the first after ``address_label`` when one is printed.
        address_label: a label printed before the address ("ADDRESS:"), or "".
        cues: the variations drawn ("logo", "split_name", "postcode_alone"...).
        decoys: printed strings that are neither the name nor the address.
    """

    lines: tuple[str, ...]
    name_lines: tuple[str, ...]
    address_lines: tuple[str, ...]
    address_label: str
    cues: tuple[str, ...]
    decoys: tuple[str, ...]


def _split_name(name: str, rng: random.Random, cues: list[str]) -> list[str]:
    words = name.split()
    if len(words) < 2 or rng.random() >= 0.2:
        return [name]
    cues.append("split_name")
    # Before the legal form where it has one of two words or more, else in the middle.
    cut = max(1, len(words) - 2) if rng.random() < 0.5 else max(1, len(words) // 2)
    return [" ".join(words[:cut]), " ".join(words[cut:])]


def _split_address(address: names.Address, rng: random.Random, cues: list[str]) -> list[str]:
    street, town = address.lines[0], address.lines[-1]
    out: list[str] = []
    if "," in street and rng.random() < 0.4:
        head, tail = street.split(",", 1)
        out += [f"{head},", tail.strip()]
        cues.append("street_split")
    else:
        out.append(street)
    postcode = address.postcode
    rest = town.replace(postcode, "", 1).strip(" ,")
    if postcode in town and rest and rng.random() < 0.35:
        # The post code on its own line, where it is printed first or last.
        first = town.startswith(postcode)
        out += [postcode, rest] if first else [rest, postcode]
        cues.append("postcode_alone")
    elif "," in town and rng.random() < 0.4:
        head, tail = town.split(",", 1)
        out += [f"{head},", tail.strip()]
        cues.append("state_alone")
    else:
        out.append(town)
    return out


def receipt_header(
    *,
    doc_id: str,
    number: str,
    name: str,
    address: names.Address,
    phone: str,
    email: str,
    registration: str,
    language: str,
    country: str,
) -> ReceiptHeader:
    """The header of receipt ``doc_id`` (deterministic in ``doc_id`` and ``number``)."""
    rng = random.Random(f"renderkit-synth-receipt-header:{doc_id}:{number}")
    language = language if language in _TITLES else "en"
    cues: list[str] = []
    decoys: list[str] = []
    top: list[str] = []
    registration_line = (
        f"({registration})"
        if rng.random() < 0.75
        else f"{rng.choice(_REGISTRATION[language])}: {registration}"
    )
    registration_first = False
    draw = rng.random()
    if draw < 0.1 and len(name.split()) >= 2:
        # A brand or trade name printed above the legal name (the label is the legal name).
        brand = f"{names.stem(rng, (1, 2))} {names.stem(rng, (1, 2))}"
        top.append(brand.upper() if name.isupper() else brand)
        cues.append("brand")
    elif draw < 0.2:
        logo = re.sub(r"[^A-Za-z]", "", name.split()[0]).upper() or "SHOP"
        top.append(rng.choice((logo, f"~ {logo} ~", f"[{logo[:3]}]")))
        cues.append("logo")
    elif draw < 0.27:
        top.append(f"{rng.choice(_BRANCH[language])}: {names.stem(rng, (1, 2)).upper()}")
        cues.append("branch_first")
    elif draw < 0.34:
        top.append(registration_line)
        registration_first = True
        cues.append("registration_first")
    elif draw < 0.42:
        top.append(rng.choice(_TITLES[language]))
        cues.append("title_first")
    elif draw < 0.47:
        top.append(rng.choice(_NOISE))
        cues.append("noise")
    decoys += [t for t in top if t != registration_line]
    name_lines = _split_name(name, rng, cues)
    body = [*top, *name_lines]
    if not registration_first:
        body.append(registration_line)
    address_lines = _split_address(address, rng, cues)
    label = ""
    if rng.random() < 0.1:
        # A label before the address, which is not part of it.
        label = f"{rng.choice(_ADDRESS_LABEL[language])}:"
        address_lines[0] = f"{label} {address_lines[0]}"
        cues.append("address_label")
    contact = [f"TEL: {phone}"]
    if rng.random() < 0.3:
        contact.append(f"{_FAX[language]}: {names.phone(country, rng)}")
        cues.append("fax")
    if rng.random() < 0.2:
        contact.append(email.upper() if rng.random() < 0.5 else email)
        cues.append("email")
    if rng.random() < 0.25:
        digits = "".join(rng.choice("0123456789") for _ in range(12))
        contact.append(f"{rng.choice(_TAX_ID[language])}: {digits}")
        cues.append("tax_id")
    if len(address_lines) >= 2 and rng.random() < 0.15:
        # A contact line printed between the address's lines.
        at = rng.randint(1, len(address_lines) - 1)
        body += [*address_lines[:at], contact[0], *address_lines[at:], *contact[1:]]
        cues.append("contact_inside")
    else:
        body += [*address_lines, *contact]
    decoys += contact
    if rng.random() < 0.2:
        store = f"{rng.choice(_STORE[language])} {rng.randint(1, 999):03d}"
        body.append(store)
        decoys.append(store)
        cues.append("store")
    if "title_first" not in cues and rng.random() < 0.2:
        title = rng.choice(_TITLES[language])
        body.append(title)
        decoys.append(title)
        cues.append("title_after")
    return ReceiptHeader(
        lines=tuple(body),
        name_lines=tuple(name_lines),
        address_lines=tuple(address_lines),
        address_label=label,
        cues=tuple(cues),
        decoys=tuple(decoys),
    )
