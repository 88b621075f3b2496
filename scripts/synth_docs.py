"""Render synthetic invoices or receipts with their labels, in the eval set's layout.

Usage::

    python scripts/synth_docs.py --kind invoice --count 100 --seed 1 --out /tmp/synth
    python scripts/synth_docs.py --kind receipt --count 100 --seed 1 --out /tmp/synth --photos
    python scripts/synth_docs.py --kind contract --count 100 --seed 9001 --out /tmp/contracts
    python scripts/eval_parse.py /tmp/synth --json /tmp/synth-figures.json

Each run writes one source folder (``synth-invoices``, ``synth-receipts`` or
``synth-contracts``) under ``--out``, adds it to ``index.json`` and puts the scorer beside it,
so runs of several kinds into one folder make one set. The same ``--seed`` gives the same
documents and labels. See ``renderkit.parsing.synth`` for what varies. The dev set is never read.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import anyio

from renderkit.browser import DEFAULT_CHROMIUM, BrowserConfig, ChromiumPool
from renderkit.parsing.synth import build_set

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """Every command-line option, in one place."""
    parser = argparse.ArgumentParser(
        prog="python scripts/synth_docs.py", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--kind", choices=("invoice", "receipt", "contract"), required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", required=True, help="the set's folder (created)")
    parser.add_argument("--photos", action="store_true", help="photo-like variants")
    parser.add_argument(
        "--other-dates",
        action="store_true",
        help="invoices also print order, period, delivery, reference and print-stamp dates; "
        "contracts are also dated below their signatures, by an acceptance or a 'Dated:' line, "
        "or not at all",
    )
    parser.add_argument(
        "--hard-issuers",
        action="store_true",
        help="invoices print trade names, slogans or the buyer's block atop the letterhead",
    )
    parser.add_argument(
        "--every-locale",
        action="store_true",
        help="receipts not from Malaysia come from any locale (four-figure post codes...)",
    )
    parser.add_argument(
        "--drafting",
        action="store_true",
        help="contracts also follow real agreements' drafting conventions: parties listed after "
        "defined terms, trade names, registered offices, residences, employee undertakings "
        "signed below, 'Date:' fields, dates in the last paragraph, survival-worded and "
        "until-terminated terms",
    )
    parser.add_argument(
        "--letters",
        action="store_true",
        help="invoices are mostly laid out as business letters: the seller's one-line return "
        "address over the buyer's window address, and the seller's details in columns at the "
        "page's foot",
    )
    parser.add_argument(
        "--tax-rates",
        action="store_true",
        help="invoices sell at two or three tax rates where their locale has them: a tax row "
        "per rate, half of them with a row of their sum",
    )
    parser.add_argument(
        "--logo-names",
        action="store_true",
        help="invoices often print the seller's name only inside the logo image: a text layer "
        "holds it only in the seller's block, return address or footer",
    )
    parser.add_argument(
        "--far-locales",
        action="store_true",
        help="invoices mostly come from Switzerland, India, Australia or Canada: apostrophe "
        "and lakh groupings, local currency signs, tax names and tax numbers (UID, GSTIN, ABN, "
        "GST/HST), and taxes split in two (CGST and SGST, GST and PST)",
    )
    parser.add_argument(
        "--line-taxes",
        action="store_true",
        help="invoices with one tax rate often print each line's tax in the item table: a "
        "rate column, a tax column, a gross column",
    )
    parser.add_argument(
        "--other-numbers",
        action="store_true",
        help="invoices print other numbers beside their own, before it too: customer, "
        "delivery note, contract, tax or company registration, page",
    )
    parser.add_argument(
        "--spaced-type",
        action="store_true",
        help="invoices set their title, their labels or every line in letter-spaced type, "
        "or type their title with a space between its letters",
    )
    parser.add_argument(
        "--pdf-writers",
        action="store_true",
        help="half the invoice PDFs are rewritten as other generators write theirs: pages "
        "turned and turned back by /Rotate, landscape text sideways on a portrait page, a "
        "stray /Rotate, fonts without their ToUnicode maps",
    )
    parser.add_argument("--chromium", default=DEFAULT_CHROMIUM, help="the browser to use")
    parser.add_argument("--slots", type=int, default=2, help="pages rendered at once")
    return parser


async def _main(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    config = BrowserConfig(executable_path=args.chromium, slots=args.slots, render_timeout=60)
    async with ChromiumPool(config) as browser:
        built = await build_set(
            args.kind,
            args.count,
            args.seed,
            Path(args.out),
            browser=browser,
            photos=args.photos,
            other_dates=args.other_dates,
            hard_issuers=args.hard_issuers,
            every_locale=args.every_locale,
            drafting=args.drafting,
            letters=args.letters,
            tax_rates=args.tax_rates,
            logo_names=args.logo_names,
            far_locales=args.far_locales,
            line_taxes=args.line_taxes,
            other_numbers=args.other_numbers,
            spaced_type=args.spaced_type,
            pdf_writers=args.pdf_writers,
            concurrency=args.slots * 2,
        )
    seconds = time.perf_counter() - started
    print(f"{len(built.documents)} {args.kind}s in {built.folder} ({seconds:.1f} s)")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    return anyio.run(_main, build_parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
