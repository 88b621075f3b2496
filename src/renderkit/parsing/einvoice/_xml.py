"""Reading untrusted XML safely, and finding elements whatever their namespace prefix."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import defusedxml
import defusedxml.ElementTree

from renderkit.parsing.einvoice._common import one_line

__all__ = [
    "MAX_XML_BYTES",
    "XmlRefusedError",
    "children",
    "first",
    "in_currency",
    "local_name",
    "namespace",
    "parse_xml",
    "postal_address",
    "text",
]

#: An embedded invoice XML larger than this is not read (real ones are a few hundred kB).
MAX_XML_BYTES = 4_000_000


class XmlRefusedError(ValueError):
    """The XML is too large, not well-formed, or declares a DTD or entities."""


def parse_xml(data: bytes) -> ET.Element:
    """The root element of ``data``, parsed without DTDs, entities or external references.

    Raises:
        XmlRefusedError: ``data`` is too large, malformed, or declares a DTD or entities
            (billion laughs, XXE).
    """
    if len(data) > MAX_XML_BYTES:
        msg = f"is larger than {MAX_XML_BYTES:,} bytes"
        raise XmlRefusedError(msg)
    try:
        # forbid_dtd: no invoice syntax uses a DTD, and refusing it stops every entity trick
        # before expansion starts.
        return defusedxml.ElementTree.fromstring(data, forbid_dtd=True)
    except defusedxml.DefusedXmlException:
        msg = "declares a DTD or entities, which are refused"
        raise XmlRefusedError(msg) from None
    except ET.ParseError:
        msg = "is not well-formed XML"
        raise XmlRefusedError(msg) from None


def local_name(element: ET.Element) -> str:
    """The tag without its namespace (``{urn:...}Invoice`` -> ``Invoice``)."""
    return element.tag.rsplit("}", 1)[-1]


def namespace(element: ET.Element) -> str:
    """The namespace URI of the tag ("" when it has none)."""
    return element.tag[1:].split("}", 1)[0] if element.tag.startswith("{") else ""


def _any_ns(path: str) -> str:
    # "A/B[@x='y']" -> "{*}A/{*}B[@x='y']": the syntaxes use varying prefixes and versions.
    return "/".join(
        step if step in (".", "..") or step.startswith("{") else "{*}" + step
        for step in path.split("/")
    )


def first(element: ET.Element | None, *paths: str) -> ET.Element | None:
    """The first element found along any of ``paths`` (namespace-agnostic), else None."""
    if element is None:
        return None
    for path in paths:
        found = element.find(_any_ns(path))
        if found is not None:
            return found
    return None


def children(element: ET.Element | None, path: str) -> list[ET.Element]:
    """Every element along ``path`` (namespace-agnostic)."""
    return [] if element is None else element.findall(_any_ns(path))


def text(element: ET.Element | None, *paths: str) -> str | None:
    """The whitespace-collapsed text of the first element found along ``paths``, else None.

    With no paths, the text of ``element`` itself.
    """
    found = first(element, *paths) if paths else element
    if found is None or found.text is None:
        return None
    value = re.sub(r"\s+", " ", found.text).strip()
    return value or None


def in_currency(amounts: list[ET.Element], currency: str | None) -> str | None:
    """The amount given in ``currency`` (or without a currency), else the first one.

    Both syntaxes may state the tax total twice: in the invoice currency and in the tax or
    accounting currency; the one to report is the invoice currency's.
    """
    for element in amounts:
        if element.get("currencyID") in (None, currency):
            return text(element)
    return text(amounts[0]) if amounts else None


def postal_address(
    element: ET.Element | None, *, lines: tuple[str, ...], postcode: str, city: str, country: str
) -> str | None:
    """An address element on one line: street lines, postcode and city, country code.

    Each syntax names the parts differently; the order they are written in is the same.
    """
    if element is None:
        return None
    place = " ".join(p for p in (text(element, postcode), text(element, city)) if p) or None
    return one_line([*(text(element, line) for line in lines), place, text(element, country)])
