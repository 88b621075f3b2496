"""The XRechnung 3.0 business rules (BR-DE) that need no code lists, as XPath checks.

KoSIT's official XRechnung Schematron ships in no package of the registries this project
installs from, so the rules that concern what an invoice must state are written here, for
both syntaxes. Checked: BR-DE-1, BR-DE-2, BR-DE-3, BR-DE-4, BR-DE-5, BR-DE-6, BR-DE-7,
BR-DE-8, BR-DE-9, BR-DE-15, BR-DE-21, BR-DE-23-a and the electronic addresses XRechnung 3.0
makes mandatory (BT-34, BT-49). Not checked: the rest of the BR-DE set (BR-DE-10 to -14
about delivery and tax representatives, -16 to -20 and -22, -24 to -31 about other payment
means, attachments and code list details) and KoSIT's CII/UBL extension rules; the EN 16931
core is checked by its official Schematron (see :mod:`._validate`).
"""

from __future__ import annotations

from collections.abc import Callable

from lxml import etree

__all__ = ["CHECKED_RULES", "xrechnung_failures"]

_NS = {
    "rsm": "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100",
    "ram": "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100",
    "cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
    "cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
}
_GUIDELINE = "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0"

# Each rule: (id, what it demands, CII path, UBL path): the path must find non-empty text or
# an element (paths are relative to the root; UBL's root is the Invoice).
_C_SELLER = (
    "rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeAgreement/ram:SellerTradeParty"
)
_C_BUYER = "rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeAgreement/ram:BuyerTradeParty"
_C_SETTLE = "rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeSettlement"
_U_SELLER = "cac:AccountingSupplierParty/cac:Party"
_U_BUYER = "cac:AccountingCustomerParty/cac:Party"
_RULES: tuple[tuple[str, str, str, str], ...] = (
    (
        "BR-DE-1",
        "payment instructions (BG-16) must be given",
        f"{_C_SETTLE}/ram:SpecifiedTradeSettlementPaymentMeans",
        "cac:PaymentMeans",
    ),
    (
        "BR-DE-2",
        "the seller contact (BG-6) must be given",
        f"{_C_SELLER}/ram:DefinedTradeContact",
        f"{_U_SELLER}/cac:Contact",
    ),
    (
        "BR-DE-3",
        "the seller city (BT-37) must be given",
        f"{_C_SELLER}/ram:PostalTradeAddress/ram:CityName",
        f"{_U_SELLER}/cac:PostalAddress/cbc:CityName",
    ),
    (
        "BR-DE-4",
        "the seller post code (BT-38) must be given",
        f"{_C_SELLER}/ram:PostalTradeAddress/ram:PostcodeCode",
        f"{_U_SELLER}/cac:PostalAddress/cbc:PostalZone",
    ),
    (
        "BR-DE-5",
        "the seller contact point (BT-41) must be given",
        f"{_C_SELLER}/ram:DefinedTradeContact/ram:PersonName",
        f"{_U_SELLER}/cac:Contact/cbc:Name",
    ),
    (
        "BR-DE-6",
        "the seller contact telephone (BT-42) must be given",
        f"{_C_SELLER}/ram:DefinedTradeContact/ram:TelephoneUniversalCommunication/ram:CompleteNumber",
        f"{_U_SELLER}/cac:Contact/cbc:Telephone",
    ),
    (
        "BR-DE-7",
        "the seller contact e-mail (BT-43) must be given",
        f"{_C_SELLER}/ram:DefinedTradeContact/ram:EmailURIUniversalCommunication/ram:URIID",
        f"{_U_SELLER}/cac:Contact/cbc:ElectronicMail",
    ),
    (
        "BR-DE-8",
        "the buyer city (BT-52) must be given",
        f"{_C_BUYER}/ram:PostalTradeAddress/ram:CityName",
        f"{_U_BUYER}/cac:PostalAddress/cbc:CityName",
    ),
    (
        "BR-DE-9",
        "the buyer post code (BT-53) must be given",
        f"{_C_BUYER}/ram:PostalTradeAddress/ram:PostcodeCode",
        f"{_U_BUYER}/cac:PostalAddress/cbc:PostalZone",
    ),
    (
        "BR-DE-15",
        "the buyer reference (BT-10) must be given",
        "rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeAgreement/ram:BuyerReference",
        "cbc:BuyerReference",
    ),
    (
        "XR-BT-34",
        "the seller electronic address (BT-34) must be given",
        f"{_C_SELLER}/ram:URIUniversalCommunication/ram:URIID",
        f"{_U_SELLER}/cbc:EndpointID",
    ),
    (
        "XR-BT-49",
        "the buyer electronic address (BT-49) must be given",
        f"{_C_BUYER}/ram:URIUniversalCommunication/ram:URIID",
        f"{_U_BUYER}/cbc:EndpointID",
    ),
)

#: The rule ids checked here.
CHECKED_RULES: tuple[str, ...] = (*(rule[0] for rule in _RULES), "BR-DE-21", "BR-DE-23-a")


def xrechnung_failures(root: etree._Element, *, syntax: str) -> list[str]:
    """The XRechnung rules ``root`` (CII or UBL, per ``syntax``) breaks, as ``ID: message``."""
    found: Callable[[str], list[str]] = lambda path: [  # noqa: E731
        t.strip() for t in root.xpath(f"{path}//text()", namespaces=_NS) if t.strip()
    ]
    failures = [
        f"{rule}: {message}"
        for rule, message, cii, ubl in _RULES
        if not found(cii if syntax == "cii" else ubl)
    ]
    guideline = (
        "rsm:ExchangedDocumentContext/ram:GuidelineSpecifiedDocumentContextParameter/ram:ID"
        if syntax == "cii"
        else "cbc:CustomizationID"
    )
    if found(guideline) != [_GUIDELINE]:
        failures.append(f"BR-DE-21: the specification identifier must be {_GUIDELINE}")
    codes = found(
        f"{_C_SETTLE}/ram:SpecifiedTradeSettlementPaymentMeans/ram:TypeCode"
        if syntax == "cii"
        else "cac:PaymentMeans/cbc:PaymentMeansCode"
    )
    iban = found(
        f"{_C_SETTLE}/ram:SpecifiedTradeSettlementPaymentMeans"
        "/ram:PayeePartyCreditorFinancialAccount/ram:IBANID"
        if syntax == "cii"
        else "cac:PaymentMeans/cac:PayeeFinancialAccount/cbc:ID"
    )
    if set(codes) & {"30", "58"} and not iban:
        failures.append("BR-DE-23-a: a credit transfer must name the payee account (BT-84)")
    return failures
