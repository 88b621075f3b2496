"""Invented names: companies, people, streets, towns, post codes and phone numbers.

Everything is built from syllables and generic words written here, so no output names a real
company (a syllable stem like "Voramek" is checked against nothing, but it is not a word list
of businesses); nothing here was taken from any labelled document set.
"""

from __future__ import annotations

import random
import re

import attrs

__all__ = [
    "Address",
    "Party",
    "company_name",
    "legal_forms",
    "other_forms",
    "particle_name",
    "party",
    "phone",
    "stem",
    "with_other_form",
]

_ONSETS = ("b", "br", "d", "dr", "f", "g", "gr", "k", "kl", "l", "m", "n", "p", "pr", "r", "s",
           "st", "t", "tr", "v", "z", "h", "j", "sk", "pl")  # fmt: skip
_VOWELS = ("a", "e", "i", "o", "u", "ai", "ei", "ou", "ia", "eo")
_CODAS = ("", "", "n", "r", "l", "m", "s", "x", "k", "nd", "rt", "st")

#: Per country: legal forms, generic trade words, the street word, town endings.
_FLAVOURS: dict[str, dict[str, tuple[str, ...]]] = {
    "DE": {"forms": ("GmbH", "UG (haftungsbeschränkt)", "KG", "AG", "e.K.", "GmbH & Co. KG"),
           "trade": ("Technik", "Handel", "Werkstatt", "Logistik", "Bau", "Druck", "Systeme"),
           "street": ("straße", "weg", "allee", "gasse", "ring"),
           "town": ("burg", "hausen", "feld", "stadt", "dorf", "heim")},
    "AT": {"forms": ("GmbH", "KG", "OG"),
           "trade": ("Technik", "Handel", "Holzbau", "Küchen"),
           "street": ("gasse", "straße", "weg"),
           "town": ("kirchen", "berg", "au", "dorf")},
    "FR": {"forms": ("SARL", "SAS", "EURL", "SA"),
           "trade": ("Atelier", "Services", "Conseil", "Distribution", "Menuiserie", "Boulangerie"),
           "street": ("Rue des", "Avenue", "Boulevard", "Chemin de la", "Place"),
           "town": ("ville", "court", "mont", "lac", "bourg")},
    "BE": {"forms": ("SRL", "BV", "SA"),
           "trade": ("Services", "Bouwwerken", "Conseil"),
           "street": ("Rue", "straat", "laan"),
           "town": ("gem", "ville", "hout")},
    "ES": {"forms": ("S.L.", "S.A.", "S.L.U.", "S.Coop."),
           "trade": ("Servicios", "Distribuciones", "Talleres", "Suministros", "Consultores"),
           "street": ("Calle", "Avenida", "Paseo", "Plaza", "Camino"),
           "town": ("illa", "ares", "ejo", "osa", "al")},
    "IT": {"forms": ("S.r.l.", "S.p.A.", "S.n.c.", "S.a.s."),
           "trade": ("Forniture", "Servizi", "Costruzioni", "Tipografia", "Impianti"),
           "street": ("Via", "Viale", "Corso", "Piazza", "Vicolo"),
           "town": ("ano", "ello", "ina", "ese", "ico")},
    "NL": {"forms": ("B.V.", "V.O.F.", "N.V.", "Holding B.V."),
           "trade": ("Techniek", "Handel", "Installaties", "Advies", "Bouw"),
           "street": ("straat", "laan", "weg", "gracht", "plein"),
           "town": ("dam", "wijk", "dorp", "veen", "hoven")},
    "PT": {"forms": ("Lda.", "S.A.", "Unipessoal Lda."),
           "trade": ("Serviços", "Comércio", "Construções", "Distribuição", "Gráfica"),
           "street": ("Rua", "Avenida", "Travessa", "Largo", "Estrada"),
           "town": ("ães", "elo", "ira", "ado", "inho")},
    "GB": {"forms": ("Ltd", "Limited", "LLP", "& Sons Ltd", "plc"),
           "trade": ("Supplies", "Engineering", "Print", "Joinery", "Consulting", "Trading"),
           "street": ("Road", "Street", "Lane", "Close", "Avenue", "Way"),
           "town": ("ford", "ton", "bury", "ham", "wick", "field")},
    "US": {"forms": ("LLC", "Inc.", "Corp.", "Co."),
           "trade": ("Supply", "Services", "Design", "Logistics", "Labs", "Works"),
           "street": ("Street", "Avenue", "Boulevard", "Drive", "Road"),
           "town": ("ville", "port", "dale", "wood", "field")},
    "MY": {"forms": ("SDN BHD", "SDN. BHD.", "ENTERPRISE", "TRADING", "RESOURCES"),
           "trade": ("MINI MARKET", "KEDAI RUNCIT", "HARDWARE", "RESTORAN", "STATIONERY",
                     "BAKERY", "PHARMACY"),
           "street": ("JALAN", "LORONG", "PERSIARAN", "LEBUH"),
           "town": ("JAYA", "BARU", "INDAH", "UTAMA", "PERMAI")},
    "CH": {"forms": ("AG", "GmbH", "SA", "Sàrl"),
           "trade": ("Technik", "Handel", "Services", "Treuhand", "Holzbau"),
           "street": ("strasse", "weg", "gasse", "Rue de la", "Chemin des"),
           "town": ("wil", "ikon", "bach", "egg", "ens")},
    "IN": {"forms": ("Pvt. Ltd.", "Private Limited", "LLP", "Ltd.", "Enterprises", "Traders"),
           "trade": ("Industries", "Infotech", "Agencies", "Textiles", "Distributors"),
           "street": ("Road", "Marg", "Nagar", "Street", "Cross"),
           "town": ("pur", "abad", "nagar", "garh", "pet")},
    "AU": {"forms": ("Pty Ltd", "Pty. Ltd.", "Ltd"),
           "trade": ("Supplies", "Plumbing", "Electrical", "Trading", "Logistics"),
           "street": ("Street", "Road", "Parade", "Crescent", "Highway"),
           "town": ("ton", "dale", "ville", "vale", "field")},
    "CA": {"forms": ("Inc.", "Ltd.", "Corp.", "Ltée"),
           "trade": ("Supply", "Services", "Contracting", "Logistics", "Solutions"),
           "street": ("Street", "Avenue", "Road", "Boulevard", "Drive"),
           "town": ("ville", "ton", "wood", "brook", "field")},
}  # fmt: skip


def _syllable(rng: random.Random) -> str:
    return rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS)


def stem(rng: random.Random, syllables: tuple[int, int] = (2, 3)) -> str:
    """An invented pronounceable word, capitalised ("Voramek")."""
    n = rng.randint(*syllables)
    return "".join(_syllable(rng) for _ in range(n)).capitalize()


def legal_forms(country: str) -> tuple[str, ...]:
    """The legal forms the factory gives companies of ``country``."""
    return _FLAVOURS[country]["forms"]


def company_name(country: str, rng: random.Random) -> str:
    """An invented company name with a legal form of ``country``."""
    flavour = _FLAVOURS[country]
    form = rng.choice(flavour["forms"])
    core = stem(rng)
    shape = rng.random()
    if shape < 0.35:
        name = f"{core} {rng.choice(flavour['trade'])}"
    elif shape < 0.55:
        name = f"{core} & {stem(rng, (1, 2))}"
    elif shape < 0.7:
        name = f"{rng.choice(flavour['trade'])} {core}"
    else:
        name = core
    name = f"{name} {form}"
    return name.upper() if country == "MY" else name


#: Per language: how names with small words in lower case are built; "{S}" is an invented
#: word, "{T}" a trade word of the country, "{s}" an invented word in lower case ("Au bon
#: moulin", "Haus am See", "Bakkerij van Dam", "Casa del Pane", "House of Tweed").
_PARTICLES = {
    "de": ("{T} am {S}", "{S} und {S}", "Haus am {S}", "{T} an der {S}"),
    "fr": ("Au bon {s}", "Le petit {s}", "La maison du {s}", "{T} de la {S}", "Aux délices de {S}"),
    "nl": ("{T} van {S}", "{S} en {S}", "Huis ter {S}", "{T} de {S}"),
    "es": ("{T} del {S}", "Casa de {S}", "{S} y {S}", "El rincón de {S}"),
    "it": ("{T} del {S}", "Casa di {S}", "{S} e {S}", "La bottega di {S}"),
    "pt": ("{T} do {S}", "Casa da {S}", "{S} e {S}", "Oficina de {S}"),
    "en": ("House of {S}", "{S} and {S}", "{T} of {S}", "The {s} works"),
}  # fmt: skip
_LANGUAGE = {"DE": "de", "AT": "de", "CH": "de", "FR": "fr", "BE": "fr", "NL": "nl", "ES": "es",
             "IT": "it", "PT": "pt"}  # fmt: skip


def particle_name(country: str, rng: random.Random) -> str | None:
    """An invented company name holding small words in lower case, with a legal form of
    ``country`` ("Au bon voramek SARL", "Holzbau am Kestrel GmbH"); None for countries that
    print names in capitals."""
    if country == "MY":
        return None
    flavour = _FLAVOURS[country]
    shape = rng.choice(_PARTICLES[_LANGUAGE.get(country, "en")])

    def fill(slot: re.Match[str]) -> str:
        if slot.group(1) == "T":
            return rng.choice(flavour["trade"])
        word = stem(rng, (1, 2))
        return word if slot.group(1) == "S" else word.lower()

    return f"{re.sub(r'{([STs])}', fill, shape)} {rng.choice(flavour['forms'])}"


#: Per country: legal forms its companies also carry, less common than the flavour's and none
#: of them (from cleanco's terms by country), for ``--other-forms``.
_OTHER_FORMS = {
    "DE": ("GbR", "PartG mbB", "gGmbH", "OHG", "KGaA", "e.V."),
    "AT": ("e.U.", "GesbR", "GesmbH", "Ges.m.b.H.", "AG"),
    "CH": ("Sagl", "SAGL"),
    "FR": ("SASU", "SNC", "SCOP", "GIE", "S.A.R.L.", "S.A.S."),
    "BE": ("BVBA", "SPRL", "CVBA", "SCRL", "VZW", "ASBL", "NV"),
    "ES": ("S.A.U.", "S.L.L.", "S.L.N.E.", "SCCL", "SL"),
    "IT": ("S.r.l.s.", "Srls", "S.a.p.a.", "S.c.r.l.", "SpA"),
    "NL": ("C.V.", "NV", "BV"),
    "PT": ("SGPS", "CRL", "Lda"),
    "GB": ("Ltd.", "PLC"),
    "US": ("PLLC", "P.C.", "LLLP", "L.P.", "Corporation", "Incorporated", "L.L.C."),
    "IN": ("Pvt Ltd", "Pvt. Limited"),
    "AU": ("Pty Limited", "Pty. Limited"),
    "CA": ("ULC", "S.E.N.C.", "Limitée", "Corporation"),
}


def other_forms(country: str) -> tuple[str, ...]:
    """The less common legal forms of ``country`` (none for Malaysia)."""
    return _OTHER_FORMS.get(country, ())


def with_other_form(name: str, country: str, rng: random.Random) -> str:
    """``name`` with its legal form replaced by another its country uses (``--other-forms``);
    as it is where the country has none or ``name`` ends in none of the flavour's forms."""
    forms = sorted(_FLAVOURS[country]["forms"], key=len, reverse=True)
    form = next((f for f in forms if name.endswith(f" {f}")), None)
    if not other_forms(country) or form is None:
        return name
    return f"{name[: -len(form) - 1]} {rng.choice(other_forms(country))}"


@attrs.frozen(kw_only=True)
class Address:
    """A postal address as its printed lines, with the post code on its own."""

    lines: tuple[str, ...]
    postcode: str


@attrs.frozen(kw_only=True)
class Party:
    """A company: its name, address, phone and e-mail."""

    name: str
    address: Address
    phone: str
    email: str


def _postcode(country: str, rng: random.Random) -> str:
    n = rng.randint
    if country in ("DE", "FR", "ES", "IT", "MY", "US"):
        return f"{n(10, 99)}{n(100, 999)}"
    if country in ("AT", "BE"):
        return str(n(1000, 9999))
    if country == "NL":
        return f"{n(1000, 9999)} {rng.choice('ABCDEFGHJKLMNPRSTVWXZ')}{rng.choice('ABCDEFGHJKLMN')}"
    if country == "PT":
        return f"{n(1000, 9999)}-{n(100, 999)}"
    if country in ("CH", "AU"):
        return str(n(1000, 9999))
    if country == "IN":
        return f"{n(110, 855)}{n(0, 999):03d}"
    if country == "CA":
        # A Canadian postal code: letter, digit, letter, space, digit, letter, digit.
        a, b, c = (rng.choice("ABCEGHJKLMNPRSTVXY") for _ in range(3))
        return f"{a}{n(0, 9)}{b} {n(0, 9)}{c}{n(0, 9)}"
    # GB: outward and inward codes of the usual shape.
    letters = "ABDEFGHJLNPQRSTUWXYZ"
    area = rng.choice(letters) + rng.choice(letters)
    return f"{area}{n(1, 20)} {n(1, 9)}{rng.choice(letters)}{rng.choice(letters)}"


def _street(country: str, rng: random.Random) -> str:
    word = rng.choice(_FLAVOURS[country]["street"])
    number = str(rng.randint(1, 240))
    name = stem(rng, (1, 2))
    if country in ("DE", "AT", "NL") or (country in ("BE", "CH") and word.islower()):
        return f"{name}{word} {number}"
    if country in ("GB", "US", "AU", "CA", "IN"):
        return f"{number} {name} {word}"
    if country == "FR":
        return f"{number} {word} {name}s"
    if country == "MY":
        return f"NO {number}, {word} {name.upper()} {rng.randint(1, 12)}"
    return f"{word} {name}, {number}"


def party(country: str, rng: random.Random) -> Party:
    """An invented company of ``country``, with address, phone and e-mail."""
    name = company_name(country, rng)
    postcode = _postcode(country, rng)
    town = stem(rng, (1, 2)) + rng.choice(_FLAVOURS[country]["town"]).lower()
    town = town.upper() if country == "MY" else town.capitalize()
    if country in ("GB", "US"):
        town_line = f"{town} {postcode}"
    elif country == "AU":
        town_line = f"{town.upper()} {rng.choice(('NSW', 'VIC', 'QLD', 'WA', 'SA'))} {postcode}"
    elif country == "CA":
        town_line = f"{town}, {rng.choice(('ON', 'BC', 'AB', 'QC', 'MB'))} {postcode}"
    elif country == "IN":
        town_line = f"{town} - {postcode}, {rng.choice(('Maharashtra', 'Karnataka', 'Gujarat'))}"
    elif country == "MY":
        town_line = f"{postcode} {town}, {rng.choice(('SELANGOR', 'JOHOR', 'PERAK', 'KEDAH'))}"
    else:
        town_line = f"{postcode} {town}"
    lines = (_street(country, rng), town_line)
    domain = "".join(c for c in name.split()[0].lower() if c.isalpha()) or "mail"
    tld = {"GB": "co.uk", "US": "com", "MY": "com.my", "AU": "com.au", "IN": "co.in"}.get(
        country, country.lower()
    )
    return Party(
        name=name,
        address=Address(lines=lines, postcode=postcode),
        phone=phone(country, rng),
        email=f"{rng.choice(('info', 'office', 'billing', 'contact'))}@{domain}.{tld}",
    )


_DIAL = {"DE": "49", "AT": "43", "FR": "33", "BE": "32", "ES": "34", "IT": "39", "NL": "31",
         "PT": "351", "GB": "44", "US": "1", "MY": "60", "CH": "41", "IN": "91", "AU": "61",
         "CA": "1"}  # fmt: skip


def phone(country: str, rng: random.Random) -> str:
    """A phone number in one of the ways ``country``'s documents print them."""
    digits = "".join(rng.choice("0123456789") for _ in range(8))
    if country == "MY":
        return f"0{rng.randint(3, 9)}-{digits[:4]} {digits[4:]}"
    if country in ("US", "CA"):
        return f"({rng.randint(201, 989)}) {digits[:3]}-{digits[3:7]}"
    if country == "IN":
        return f"+91 {rng.randint(70, 99)}{digits[:3]} {digits[3:8]}"
    if rng.random() < 0.5:
        return f"+{_DIAL[country]} {rng.randint(10, 99)} {digits[:4]} {digits[4:]}"
    return f"0{rng.randint(10, 99)} {digits[:3]} {digits[3:]}"
