"""The browser flags every rendering command shares, and the browser they configure.

Here rather than in :mod:`renderkit.core.cli` so that the shared plumbing imports no
capability or backend package: the commands that render import this module themselves.
"""

from __future__ import annotations

import argparse

from renderkit.browser._config import DEFAULT_CHROMIUM, BrowserConfig

__all__ = ["add_browser_arguments", "browser_config"]


def add_browser_arguments(parser: argparse.ArgumentParser) -> None:
    """``--chromium``, ``--cdp-url`` and ``--allow-private-network``, for commands that render."""
    parser.add_argument("--chromium", default=DEFAULT_CHROMIUM, help="Chromium executable")
    parser.add_argument("--cdp-url", help="use a running browser over CDP instead")
    parser.add_argument(
        "--allow-private-network",
        action="store_true",
        help="let pages load from private/loopback addresses (development only)",
    )


def browser_config(args: argparse.Namespace) -> BrowserConfig:
    """The one-slot browser a command renders with, from :func:`add_browser_arguments`."""
    return BrowserConfig(
        executable_path=args.chromium,
        cdp_url=args.cdp_url,
        allow_private_network=args.allow_private_network,
        slots=1,
    )
