import pytest

from renderkit.parsing.fill.concepts import concept_for


@pytest.mark.parametrize(
    ("name", "field"),
    [
        ("rechnungsnummer", "number"),
        ("numero_facture", "number"),
        ("invoiceNumber", "number"),
        ("vendor", "company"),
        ("supplier", "company"),
        ("fornitore", "company"),
        ("amount_due", "total"),
        ("importe_total", "total"),
        ("seller_tax_id", "vat_id"),
        ("partita_iva", "vat_id"),
        ("dueDate", "due_date"),
        ("Fälligkeitsdatum", "due_date"),
        ("fecha_vencimiento", "due_date"),
        ("bill_to", "customer"),
        ("rabatt", "discount"),
        ("total_discount", "discount"),
        ("remise", "discount"),
    ],
)
def test_a_property_name_in_any_language_maps_to_its_field(name: str, field: str) -> None:
    assert concept_for(name) == field


def test_the_longest_phrase_wins_so_a_tax_id_is_not_a_tax_amount() -> None:
    assert concept_for("seller_tax_id") == "vat_id"
    assert concept_for("tax") == "tax"


def test_a_property_naming_an_unknown_field_maps_to_nothing() -> None:
    # A customer number is not the customer, a purchase order not the invoice number.
    assert concept_for("customer_number") is None
    assert concept_for("purchase_order") is None
    assert concept_for("favourite_colour") is None


def test_the_description_is_read_when_the_name_says_nothing() -> None:
    assert concept_for("field_7", description="who issued the invoice: the supplier") == "company"
    assert concept_for("x", title="Date d'échéance") == "due_date"
