"""UN/CEFACT Cross Industry Invoice: Factur-X, ZUGFeRD 2.x and XRechnung (CII D16B), and
ZUGFeRD 1.0 (``CrossIndustryDocument``), which names the same parts slightly differently.

Every lookup lists the D16B path first and the ZUGFeRD 1.0 path second.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from renderkit.parsing.einvoice._common import iban, iso_date, unit_price
from renderkit.parsing.einvoice._model import EInvoice, EInvoiceLine, amount, quantity
from renderkit.parsing.einvoice._xml import (
    children,
    first,
    in_currency,
    local_name,
    namespace,
    postal_address,
    text,
)

__all__ = ["is_cii", "read_cii"]

_ROOTS = ("CrossIndustryInvoice", "CrossIndustryDocument")


def is_cii(root: ET.Element) -> bool:
    """Whether ``root`` is a CII invoice (D16B or ZUGFeRD 1.0)."""
    return local_name(root) in _ROOTS and "CrossIndustry" in namespace(root)


def read_cii(root: ET.Element) -> EInvoice:
    """The invoice fields of a CII document (absent ones are None)."""
    document = first(root, "ExchangedDocument", "HeaderExchangedDocument")
    trade = first(root, "SupplyChainTradeTransaction", "SpecifiedSupplyChainTradeTransaction")
    agreement = first(
        trade, "ApplicableHeaderTradeAgreement", "ApplicableSupplyChainTradeAgreement"
    )
    settlement = first(
        trade, "ApplicableHeaderTradeSettlement", "ApplicableSupplyChainTradeSettlement"
    )
    seller = first(agreement, "SellerTradeParty")
    summation = first(
        settlement,
        "SpecifiedTradeSettlementHeaderMonetarySummation",
        "SpecifiedTradeSettlementMonetarySummation",
    )
    currency = text(settlement, "InvoiceCurrencyCode")
    return EInvoice(
        syntax="cii",
        issuer=text(seller, "Name"),
        invoice_number=text(document, "ID"),
        date=_date(first(document, "IssueDateTime/DateTimeString")),
        # BT-9 is the first payment terms' due date; later terms are instalments.
        due_date=_date(
            first(settlement, "SpecifiedTradePaymentTerms/DueDateDateTime/DateTimeString")
        ),
        total=amount(text(summation, "GrandTotalAmount")),
        subtotal=amount(text(summation, "TaxBasisTotalAmount")),
        tax=amount(in_currency(children(summation, "TaxTotalAmount"), currency)),
        currency=currency,
        vat_id=text(seller, "SpecifiedTaxRegistration/ID[@schemeID='VA']"),
        iban=iban(
            text(
                settlement,
                "SpecifiedTradeSettlementPaymentMeans/PayeePartyCreditorFinancialAccount/IBANID",
            )
        ),
        customer=text(first(agreement, "BuyerTradeParty"), "Name"),
        address=_address(first(seller, "PostalTradeAddress")),
        line_items=tuple(
            _line(item) for item in children(trade, "IncludedSupplyChainTradeLineItem")
        ),
    )


def _date(element: ET.Element | None) -> str | None:
    return None if element is None else iso_date(text(element), element.get("format"))


def _address(element: ET.Element | None) -> str | None:
    return postal_address(
        element,
        lines=("LineOne", "LineTwo", "LineThree"),
        postcode="PostcodeCode",
        city="CityName",
        country="CountryID",
    )


def _line(item: ET.Element) -> EInvoiceLine:
    price = first(
        item,
        "SpecifiedLineTradeAgreement/NetPriceProductTradePrice",
        "SpecifiedSupplyChainTradeAgreement/NetPriceProductTradePrice",
    )
    return EInvoiceLine(
        description=text(item, "SpecifiedTradeProduct/Name", "SpecifiedTradeProduct/Description"),
        quantity=quantity(
            text(
                item,
                "SpecifiedLineTradeDelivery/BilledQuantity",
                "SpecifiedSupplyChainTradeDelivery/BilledQuantity",
            )
        ),
        unit_price=unit_price(text(price, "ChargeAmount"), text(price, "BasisQuantity")),
        amount=amount(
            text(
                item,
                "SpecifiedLineTradeSettlement/SpecifiedTradeSettlementLineMonetarySummation"
                "/LineTotalAmount",
                "SpecifiedSupplyChainTradeSettlement/SpecifiedTradeSettlementMonetarySummation"
                "/LineTotalAmount",
            )
        ),
    )
