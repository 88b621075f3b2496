"""Regenerate the ad/tracker host list shipped in renderkit/browser/blocklists/.

    apt-get install webext-ublock-origin-chromium   # ships EasyList and EasyPrivacy
    python scripts/update_blocklist.py [LIST_DIR]

Takes the host-anchored network rules (``||example.com^``, optionally narrowed by resource
type or ``$third-party``) from EasyList and EasyPrivacy, drops exception and site-specific
rules, and writes one host per line: a plain
host is blocked everywhere, a host prefixed with ``3p:`` only as a third party.
EasyList is dual-licensed GPLv3 / CC BY-SA 3.0; the file header carries the attribution.
"""

from __future__ import annotations

import gzip
import re
import sys
from pathlib import Path

DEFAULT = Path("/usr/share/chromium/extensions/ublock-origin/assets/thirdparties/easylist")
OUT = Path(__file__).parents[1] / "src/renderkit/browser/blocklists/easylist-hosts.txt.gz"
RULE = re.compile(r"^\|\|([a-z0-9][a-z0-9.-]*\.[a-z]{2,})\^(?:\$([a-z,-]+))?$")
# Options that only narrow a rule by resource type keep it a host rule; anything else
# (domain=, ~negations, redirects, popup) needs a full filter engine and is skipped.
TYPE_OPTIONS = frozenset(
    [
        "script",
        "image",
        "xmlhttprequest",
        "subdocument",
        "stylesheet",
        "ping",
        "media",
        "object",
        "other",
        "font",
        "websocket",
        "third-party",
        "3p",
        "all",
        "document",
    ]
)


def main() -> None:
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    everywhere: set[str] = set()
    third_party: set[str] = set()
    versions = []
    for name in ("easylist.txt", "easyprivacy.txt"):
        text = (source / name).read_text(encoding="utf-8", errors="replace")
        version = re.search(r"^! Version: (.+)$", text, re.M)
        versions.append(f"{name} {version.group(1) if version else 'unversioned'}")
        for line in text.splitlines():
            match = RULE.match(line.strip())
            if not match:
                continue
            options = set(filter(None, (match.group(2) or "").split(",")))
            if not options <= TYPE_OPTIONS:
                continue
            third = bool(options & {"third-party", "3p"})
            (third_party if third else everywhere).add(match.group(1))
    third_party -= everywhere
    header = [
        "# Ad and tracker hosts extracted from EasyList and EasyPrivacy",
        "# (https://easylist.to, dual-licensed GPLv3 / CC BY-SA 3.0, (c) The EasyList authors).",
        f"# Sources: {', '.join(versions)}, as shipped by Debian's webext-ublock-origin-chromium.",
        "# Regenerate with scripts/update_blocklist.py. '3p:' = blocked as a third party only.",
    ]
    lines = header + sorted(everywhere) + [f"3p:{h}" for h in sorted(third_party)]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(OUT, "wt", encoding="utf-8", compresslevel=9) as out:
        out.write("\n".join(lines) + "\n")
    print(f"{OUT}: {len(everywhere)} hosts, {len(third_party)} third-party-only hosts")


if __name__ == "__main__":
    main()
