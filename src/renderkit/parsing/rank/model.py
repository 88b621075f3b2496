"""A candidate ranker shipped as data: logistic-regression weights and a Platt calibration.

The model file (``renderkit/parsing/models/<name>.json``) is written by
``scripts/train_ranker.py`` and holds the feature names, the standardisation, the weights, the
calibration map and how it was trained (command, seed, documents). Scoring is a dot product
and a logistic, so reading needs nothing beyond the standard library.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

import attrs

from renderkit.core.errors import ConfigurationError

__all__ = ["MODEL_VERSION", "Ranker", "load_ranker", "ranker_from_data"]

#: The model file format this code reads; a file of another version is refused.
MODEL_VERSION = 1


@attrs.frozen(kw_only=True)
class Ranker:
    """A trained candidate ranker.

    Attributes:
        name: the model's name (its file's stem).
        features: the feature names, in the order the weights follow.
        mean, scale: the standardisation of each feature.
        weights: the logistic-regression coefficients.
        intercept: its intercept.
        platt: ``(a, b)``: the calibrated probability is ``1 / (1 + exp(-(a * score + b)))``.
        training: how the model was trained (command, seed, documents).
    """

    name: str
    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    intercept: float
    platt: tuple[float, float]
    training: dict[str, Any] = attrs.field(factory=dict)

    def score(self, features: Sequence[float]) -> float:
        """The uncalibrated score (the logit) of one feature vector."""
        return self.intercept + sum(
            w * (x - m) / s
            for w, x, m, s in zip(self.weights, features, self.mean, self.scale, strict=True)
        )

    def probability(self, score: float) -> float:
        """The calibrated probability that a candidate with ``score`` is the right value."""
        a, b = self.platt
        z = a * score + b
        # Written so that neither branch overflows.
        if z >= 0:
            return 1.0 / (1.0 + math.exp(-z))
        e = math.exp(z)
        return e / (1.0 + e)


def load_ranker(name: str, expected_features: Sequence[str]) -> Ranker:
    """The ranker ``name`` shipped with renderkit (``renderkit/parsing/models/<name>.json``).

    Args:
        name: the model file's stem (``invoice_total``).
        expected_features: the features the caller computes; the file must name the same.

    Raises:
        ConfigurationError: the file is missing or unreadable, of another version, or its
            features differ.
    """
    path = resources.files("renderkit.parsing.models").joinpath(f"{name}.json")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        msg = f"ranker model {name!r} cannot be read: {exc}"
        raise ConfigurationError(msg) from exc
    return ranker_from_data(name, data, expected_features)


def ranker_from_data(
    name: str, data: Mapping[str, Any], expected_features: Sequence[str]
) -> Ranker:
    """The ranker a model file's parsed JSON ``data`` describes.

    Raises:
        ConfigurationError: ``data`` is of another version or names other features.
    """
    if data.get("version") != MODEL_VERSION:
        msg = f"ranker model {name!r} has version {data.get('version')!r}, not {MODEL_VERSION}"
        raise ConfigurationError(msg)
    if tuple(data.get("features", ())) != tuple(expected_features):
        msg = f"ranker model {name!r} was trained on other features"
        raise ConfigurationError(msg)
    return Ranker(
        name=name,
        features=tuple(data["features"]),
        mean=tuple(float(x) for x in data["mean"]),
        scale=tuple(float(x) for x in data["scale"]),
        weights=tuple(float(x) for x in data["weights"]),
        intercept=float(data["intercept"]),
        platt=(float(data["platt"][0]), float(data["platt"][1])),
        training=dict(data.get("training", {})),
    )
