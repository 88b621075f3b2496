"""Amounts in a locale's currency pattern, written without babel's per-number lookups.

babel's ``NumberPattern.apply`` looks the locale's decimal and group symbols up again for
every number (through its locale data, about a third of each call); a 30-line invoice
formats some 65 amounts. :class:`AmountStyle` looks them up once per locale and currency
and then writes what ``apply`` writes for the plain currency patterns every locale has
(``tests/pdf/test_locale.py`` compares the two over every label language and more, currencies
of 0, 2 and 3 digits, signs, rounding and exact amounts). Any other pattern (a scale, an
exponent, significant digits, quoted text, ``¤¤``, an apostrophe for a symbol) is left to
babel: :meth:`AmountStyle.of` gives None.
"""

from __future__ import annotations

from decimal import Decimal

import attrs
from babel import Locale
from babel.numbers import (
    NumberPattern,
    get_decimal_precision,
    get_decimal_quantum,
    get_decimal_symbol,
    get_group_symbol,
)

__all__ = ["AmountStyle"]


@attrs.frozen(kw_only=True)
class AmountStyle:
    """A currency pattern of one locale, its symbols and its currency's minor digits."""

    prefix: tuple[str, str]
    suffix: tuple[str, str]
    min_int: int
    grouping: tuple[int, int]
    digits: int
    decimal: str
    group: str

    @classmethod
    def of(cls, pattern: NumberPattern, locale: Locale, digits: int) -> AmountStyle | None:
        """The style of ``pattern`` (its currency symbol already in place), or None when
        babel must write it."""
        affixes = (*pattern.prefix, *pattern.suffix)
        if (
            pattern.scale
            or pattern.exp_prec
            or "@" in pattern.pattern
            or not pattern.number_pattern
            or any("'" in affix or "¤¤" in affix for affix in affixes)
        ):
            return None
        decimal = get_decimal_symbol(locale, numbering_system="latn")
        group = get_group_symbol(locale, numbering_system="latn")
        if "'" in decimal + group:
            # babel strips quoted text from the whole result, digits included: de_CH's
            # 1'234'567 comes out as 1234567. Its quirk stays its own.
            return None
        return cls(
            prefix=(pattern.prefix[0], pattern.prefix[1]),
            suffix=(pattern.suffix[0], pattern.suffix[1]),
            min_int=pattern.int_prec[0],
            grouping=(pattern.grouping[0], pattern.grouping[1]),
            digits=digits,
            decimal=decimal,
            group=group,
        )

    def write(self, number: Decimal, *, exact: bool) -> str:
        """``number`` as ``pattern.apply(number, locale, currency=...,
        decimal_quantization=not exact)`` writes it (a finite number)."""
        negative = int(number.is_signed())
        value = abs(number).normalize()
        most = max(self.digits, get_decimal_precision(value)) if exact else self.digits
        whole, _, fraction = f"{value.quantize(get_decimal_quantum(most)):f}".partition(".")
        return "".join(
            (
                self.prefix[negative],
                self._integer(whole),
                self._fraction(fraction or "0", most),
                self.suffix[negative],
            )
        )

    def _integer(self, digits: str) -> str:
        if len(digits) < self.min_int:
            digits = "0" * (self.min_int - len(digits)) + digits
        size = self.grouping[0]
        grouped = ""
        while len(digits) > size:
            grouped = self.group + digits[-size:] + grouped
            digits = digits[:-size]
            size = self.grouping[1]
        return digits + grouped

    def _fraction(self, digits: str, most: int) -> str:
        least = self.digits
        if len(digits) < least:
            digits += "0" * (least - len(digits))
        if most == 0 or (least == 0 and int(digits) == 0):
            return ""
        while len(digits) > least and digits[-1] == "0":
            digits = digits[:-1]
        return self.decimal + digits
