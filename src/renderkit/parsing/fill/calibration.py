"""Calibrated field confidence: the local rules' raw figure mapped to how often it is right.

The rules report, per field, how often they are right when they fire (tuned by hand, see
:mod:`~renderkit.parsing.fill.confidence`). ``scripts/calibrate_confidence.py`` measures that
on synthetic documents only (never the dev set) and fits, per document kind and field, an
isotonic step map from the raw confidence to the share of values that were right. The maps
ship as ``renderkit/parsing/models/calibration.json`` with the command and seeds that made
them; reading and applying them needs nothing beyond the standard library.

A field's confidence is only ever lowered to its map's figure, never raised (:func:`lowered`).
A step map is non-decreasing, so a value the rules trusted more never ends up below one they
trusted less; a field without a map (too few synthetic samples, or a schema name the
synthetic sets do not use) keeps its raw confidence. Only confidences change, never values.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any

import attrs

from renderkit.core.errors import ConfigurationError

__all__ = [
    "CALIBRATION_VERSION",
    "Calibration",
    "StepMap",
    "calibration_from_data",
    "load_calibration",
    "lowered",
]

#: The calibration file format this code reads; a file of another version is refused.
CALIBRATION_VERSION = 1


@attrs.frozen(kw_only=True)
class StepMap:
    """A non-decreasing step function: ``values[i]`` from ``thresholds[i]`` up to the next one.

    Attributes:
        thresholds: the raw confidences where a step starts, increasing.
        values: the calibrated confidence of each step, non-decreasing.
    """

    thresholds: tuple[float, ...]
    values: tuple[float, ...]

    def __attrs_post_init__(self) -> None:
        if not self.thresholds or len(self.thresholds) != len(self.values):
            msg = "a step map needs as many thresholds as values, and at least one"
            raise ConfigurationError(msg)
        pairs = zip(self.thresholds, self.thresholds[1:], strict=False)
        if any(b <= a for a, b in pairs):
            raise ConfigurationError("a step map's thresholds must increase")
        steps = zip(self.values, self.values[1:], strict=False)
        if any(b < a for a, b in steps) or not all(0.0 <= v <= 1.0 for v in self.values):
            raise ConfigurationError("a step map's values must be in [0, 1] and not decrease")

    def __call__(self, raw: float) -> float:
        """The calibrated confidence of ``raw`` (below the first threshold: the first step)."""
        i = bisect.bisect_right(self.thresholds, raw) - 1
        return self.values[max(i, 0)]


@attrs.frozen(kw_only=True)
class Calibration:
    """Per document kind and field, the step map of the local rules' confidence.

    Attributes:
        maps: ``{kind: {field: StepMap}}``.
        training: how the maps were fitted (command, seeds, documents, out-of-fold figures).
    """

    maps: Mapping[str, Mapping[str, StepMap]]
    training: Mapping[str, Any] = attrs.field(factory=dict)

    def apply(self, kind: str, confidences: Mapping[str, float]) -> dict[str, float]:
        """``confidences`` with every field that has a map for ``kind`` calibrated."""
        maps = self.maps.get(kind, {})
        return {
            name: lowered(maps[name], raw) if name in maps else raw
            for name, raw in confidences.items()
        }


def lowered(step_map: StepMap, raw: float) -> float:
    """``raw`` lowered to the share right the synthetic documents showed, never raised.

    Synthetic documents are cleaner than real ones, so their share right is an upper bound on a
    real document's: where the rules claim more, the claim comes down; where the synthetic
    share is higher than the rules' figure, it is not evidence enough to raise it (raising
    made the synthetic validation set's high band less accurate, see docs/parsing.md). The
    minimum of two non-decreasing functions is non-decreasing, so this stays monotone.
    """
    return min(raw, step_map(raw))


def calibration_from_data(data: Mapping[str, Any]) -> Calibration:
    """A :class:`Calibration` from the file's parsed JSON.

    Raises:
        ConfigurationError: another version, or a malformed or non-monotone map.
    """
    if data.get("version") != CALIBRATION_VERSION:
        msg = f"calibration file version {data.get('version')!r}, expected {CALIBRATION_VERSION}"
        raise ConfigurationError(msg)
    try:
        maps = {
            kind: {
                field: StepMap(
                    thresholds=tuple(float(x) for x in entry["thresholds"]),
                    values=tuple(float(y) for y in entry["values"]),
                )
                for field, entry in fields.items()
            }
            for kind, fields in data["maps"].items()
        }
    except (KeyError, TypeError, ValueError) as exc:
        msg = f"malformed calibration file: {exc}"
        raise ConfigurationError(msg) from exc
    return Calibration(maps=maps, training=dict(data.get("training", {})))


@cache
def load_calibration() -> Calibration:
    """The calibration shipped with renderkit (``renderkit/parsing/models/calibration.json``).

    Raises:
        ConfigurationError: the file is missing, unreadable or malformed.
    """
    path = resources.files("renderkit.parsing.models").joinpath("calibration.json")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        msg = f"cannot read the confidence calibration: {exc}"
        raise ConfigurationError(msg) from exc
    return calibration_from_data(data)
