"""The e-invoice formats an invoice can be written as, and the profiles each supports.

One table, read by the request's validation, the XML writers, the validators and the docs.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

__all__ = ["DEFAULT_PROFILE", "EINVOICE_FORMATS", "EInvoiceProfile", "profile_of"]


@attrs.frozen(kw_only=True)
class EInvoiceProfile:
    """One format-and-profile pair.

    Attributes:
        syntax: ``cii`` (UN/CEFACT Cross Industry Invoice D16B) or ``ubl`` (UBL 2.1 Invoice).
        guideline: the specification identifier written as BT-24.
        level: the Factur-X level whose XSD and Schematron check CII (``en16931``,
            ``extended``); UBL is checked against the EN 16931 UBL rules.
        xrechnung: whether the German XRechnung 3.0 rules (BR-DE) apply too.
        embedded: whether the result is a PDF/A-3 carrying the XML (Factur-X, ZUGFeRD) rather
            than the XML itself (XRechnung, UBL, unless ``einvoice_embed`` asks for the PDF).
    """

    syntax: str
    guideline: str
    level: str
    xrechnung: bool = False
    embedded: bool = True


_EN16931 = "urn:cen.eu:en16931:2017"
_EXTENDED = "urn:cen.eu:en16931:2017#conformant#urn:factur-x.eu:1p0:extended"
_XRECHNUNG = "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0"

#: Format -> profile name -> what it means. ZUGFeRD 2.x is Factur-X under another name (the
#: same XML, attachment name and XMP); its XRECHNUNG profile is XRechnung in CII embedded in
#: a PDF/A-3. ``xrechnung`` is written in CII syntax (the one drafthorse builds and
#: validates); ``ubl`` with profile ``xrechnung`` gives XRechnung in UBL syntax.
EINVOICE_FORMATS: Mapping[str, Mapping[str, EInvoiceProfile]] = {
    "factur-x": {
        "en16931": EInvoiceProfile(syntax="cii", guideline=_EN16931, level="en16931"),
        "extended": EInvoiceProfile(syntax="cii", guideline=_EXTENDED, level="extended"),
    },
    "zugferd": {
        "en16931": EInvoiceProfile(syntax="cii", guideline=_EN16931, level="en16931"),
        "extended": EInvoiceProfile(syntax="cii", guideline=_EXTENDED, level="extended"),
        "xrechnung": EInvoiceProfile(
            syntax="cii", guideline=_XRECHNUNG, level="en16931", xrechnung=True
        ),
    },
    "xrechnung": {
        "xrechnung": EInvoiceProfile(
            syntax="cii", guideline=_XRECHNUNG, level="en16931", xrechnung=True, embedded=False
        ),
    },
    "ubl": {
        "en16931": EInvoiceProfile(
            syntax="ubl", guideline=_EN16931, level="en16931", embedded=False
        ),
        "xrechnung": EInvoiceProfile(
            syntax="ubl", guideline=_XRECHNUNG, level="en16931", xrechnung=True, embedded=False
        ),
    },
}

#: The profile used when the request names none.
DEFAULT_PROFILE: Mapping[str, str] = {
    "factur-x": "en16931",
    "zugferd": "en16931",
    "xrechnung": "xrechnung",
    "ubl": "en16931",
}


def profile_of(einvoice: str, profile: str | None) -> EInvoiceProfile:
    """The profile ``profile`` (the format's default when None) of format ``einvoice``.

    Raises:
        KeyError: the format or the profile is unknown (the request's validation refuses
            both before this is reached).
    """
    return EINVOICE_FORMATS[einvoice][profile or DEFAULT_PROFILE[einvoice]]
