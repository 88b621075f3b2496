"""Regional receipt vocabulary: legal forms, trade and street words, tax names, payment labels.

One TOML file per region (``my.toml`` for Malaysia, ``intl.toml`` for words shared by
English-speaking regions); every file in this folder is loaded and merged, since a receipt's
region is not known in advance. General code builds its patterns from these lists and names no
regional word itself; supporting a new region means adding a file.
"""

from __future__ import annotations

import functools
import tomllib
from importlib import resources

import attrs

__all__ = ["RegionWords", "region_words"]


@attrs.frozen(kw_only=True)
class RegionWords:
    """The merged word lists of every region file (each list is explained in ``my.toml``, and
    ``street_suffixes``, which only continental Europe's streets have, in ``eu.toml``)."""

    legal_forms: tuple[str, ...]
    legal_pairs: tuple[tuple[str, ...], ...]
    trade_words: tuple[str, ...]
    street_words: tuple[str, ...]
    street_suffixes: tuple[str, ...]
    place_words: tuple[str, ...]
    regions: tuple[str, ...]
    tax_names: tuple[str, ...]
    registration_labels: tuple[str, ...]
    total_labels: tuple[str, ...]
    cash_labels: tuple[str, ...]
    change_labels: tuple[str, ...]
    address_labels: tuple[str, ...]
    greetings: tuple[str, ...]


@functools.cache
def region_words() -> RegionWords:
    """Every region file in this folder, merged (duplicates dropped, file order kept)."""
    merged: dict[str, list[object]] = {a.name: [] for a in attrs.fields(RegionWords)}
    folder = resources.files(__package__)
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".toml"):
            continue
        data = tomllib.loads(entry.read_text(encoding="utf-8"))
        for name, values in data.items():
            if name not in merged:
                msg = f"{entry.name}: unknown list {name!r}"
                raise ValueError(msg)
            for value in values:
                item = tuple(value) if isinstance(value, list) else value
                if item not in merged[name]:
                    merged[name].append(item)
    return RegionWords(**{name: tuple(values) for name, values in merged.items()})  # type: ignore[arg-type]
