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
import attrs

from renderkit.browser import DEFAULT_CHROMIUM, BrowserConfig, ChromiumPool
from renderkit.parsing.synth import Variations, build_set
from renderkit.parsing.synth.variations import help_of

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
    for field in attrs.fields(Variations):
        flag = "--" + field.name.replace("_", "-")
        parser.add_argument(flag, action="store_true", help=help_of(field))
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
            variations=Variations(
                **{f.name: getattr(args, f.name) for f in attrs.fields(Variations)}
            ),
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
