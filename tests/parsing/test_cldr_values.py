"""Dates and amounts as each lexicon country prints them, from CLDR (babel) rather than from a
list of ours: a month name or a currency sign the lexicon lacks shows up here before it shows up
on a document."""

from __future__ import annotations

import datetime
from decimal import Decimal

import pytest
from babel.dates import format_date, get_month_names
from babel.numbers import format_currency, format_decimal

from renderkit.parsing.extract.numbers import detect_format, find_money
from renderkit.parsing.extract.values import find_currency, find_dates, parse_date

# The lexicon languages in the countries that print them differently, with each one's currency.
CURRENCIES = {
    "en_GB": "GBP", "en_US": "USD", "en_IN": "INR", "en_AU": "AUD", "en_CA": "CAD",
    "en_MY": "MYR", "de_DE": "EUR", "de_AT": "EUR", "de_CH": "CHF", "fr_FR": "EUR",
    "fr_BE": "EUR", "fr_CH": "CHF", "fr_CA": "CAD", "es_ES": "EUR", "es_MX": "MXN",
    "it_IT": "EUR", "it_CH": "CHF", "nl_NL": "EUR", "nl_BE": "EUR", "pt_PT": "EUR",
    "pt_BR": "BRL", "ms_MY": "MYR",
}  # fmt: skip
LOCALES = sorted(CURRENCIES)

# Every month, on days that could be a month too (1, 2) and on days that cannot (13, 28).
DAYS = [datetime.date(2024, month, day) for month in range(1, 13) for day in (1, 2, 13, 28)]


def _read(text: str, locale: str) -> datetime.date | None:
    found = find_dates(text, day_first=not locale.endswith("_US"))
    return found[0][0] if found else None


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("form", ["short", "medium", "long", "full"])
def test_every_date_cldr_prints_in_a_lexicon_country_is_read_back(locale: str, form: str) -> None:
    misread = {
        text: _read(text, locale)
        for day in DAYS
        if _read(text := format_date(day, form, locale=locale), locale) != day
    }
    assert misread == {}


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("width", ["abbreviated", "wide"])
@pytest.mark.parametrize("context", ["format", "stand-alone"])
def test_every_month_name_reads_between_a_day_and_a_four_digit_year(
    locale: str, width: str, context: str
) -> None:
    names = get_month_names(width, context=context, locale=locale)
    misread = {
        text: _read(text, locale)
        for month, name in names.items()
        if _read(text := f"13 {name} 2024", locale) != datetime.date(2024, month, 13)
    }
    assert misread == {}


def test_a_french_first_of_the_month_keeps_its_ordinal() -> None:
    assert parse_date("Paris, le 1er avril 2024") == "2024-04-01"
    assert parse_date("échéance : 1er juill. 2025") == "2025-07-01"


def test_austrian_and_malay_month_names_are_read() -> None:
    assert parse_date("Wien, am 3. Jänner 2025") == "2025-01-03"
    assert parse_date("Tarikh: 24 Disember 2024") == "2024-12-24"
    assert parse_date("Rechnungsdatum 7. Mär. 2024") == "2024-03-07"


def test_a_portuguese_abbreviation_reads_with_its_de() -> None:
    assert parse_date("Emitida em 5 de jan. de 2024") == "2024-01-05"
    assert parse_date("5 de nov. de 2024") == "2024-11-05"


def test_a_short_word_that_is_a_month_elsewhere_still_needs_a_four_digit_year() -> None:
    # "jan", "mar", "jun", "jul" and "nov" joined the local names for Portuguese; a local name
    # with a two-digit figure after it is a word and a number, not a date.
    assert find_dates("mar 24 cabins, jun 12 berths") == []


AMOUNTS = [Decimal(v) for v in ("1234567.89", "1500.00", "1234.50", "12.30", "0.99", "-45.10")]


def _printed(locale: str) -> list[tuple[Decimal, str]]:
    """Every amount as the country prints it: with its sign, its code, in accounting style
    (negatives in parentheses where the country does) and as a bare number."""
    code = CURRENCIES[locale]
    return [
        (value, text)
        for value in AMOUNTS
        for text in (
            format_currency(value, code, locale=locale),
            format_currency(value, code, locale=locale, format="\xa4\xa4 #,##0.00"),
            format_currency(value, code, locale=locale, format_type="accounting"),
            format_decimal(value, locale=locale, format="#,##0.00"),
        )
    ]


@pytest.mark.parametrize("locale", LOCALES)
def test_every_amount_cldr_prints_in_a_lexicon_country_is_read_back(locale: str) -> None:
    printed = _printed(locale)
    number_format = detect_format(text for _, text in printed)
    read = {text: [a.value for a in find_money(text, number_format)] for _, text in printed}
    misread = {text: read[text] for value, text in printed if read[text][:1] != [value]}
    assert misread == {}


# A "$" alone is the US dollar unless a tax number says otherwise: the other dollar countries
# are checked by their amounts only.
@pytest.mark.parametrize("locale", sorted(set(LOCALES) - {"en_AU", "en_CA", "fr_CA", "es_MX"}))
def test_every_currency_sign_a_lexicon_country_prints_is_known(locale: str) -> None:
    signs = {format_currency(Decimal("12.30"), CURRENCIES[locale], locale=locale)}
    assert {text: find_currency(text) for text in signs} == {
        text: CURRENCIES[locale] for text in signs
    }
