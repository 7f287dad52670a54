"""A learned ranking of a taxonomy's broad areas, combined with the zero-shot one.

Zero-shot scoring (:mod:`kg.extract.fields`) compares a paper with each field's
definition. It knows nothing about how researchers actually file papers: that
a diffusion paper on images is "generative models" rather than "computer
vision", or how common each area is. This model learns that from labelled
papers (``bench/train_fields.py``, trained on ICLR 2024 papers whose primary
areas were mapped to kg's areas) and ships as plain JSON weights in
``kg/extract/models/``.

It is a product of three experts over the broad areas, each a log-softmax:
a logistic regression on the paper's MiniLM embedding, a logistic regression
on the zero-shot field scores, and the zero-shot area scores themselves. The
sum is divided by a temperature fitted on held-out papers so that the
resulting probabilities are calibrated (a paper's top area at 0.6 is right
about 60% of the time). Inference is three matrix products.

Example, with a toy two-area model::

    >>> m = AreaModel(("a", "b"), np.zeros((2, 2)), np.zeros(2), np.zeros((2, 1)),
    ...               np.zeros(2), zero_shot_temperature=1.0, temperature=1.0)
    >>> m.probabilities(np.zeros(2), np.zeros(1), np.array([1.0, 0.0])).round(3).tolist()
    [0.731, 0.269]
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy.special import log_softmax, softmax

from kg.errors import ModelError
from kg.extract.weights import read_weights

__all__ = ["AreaModel", "DEFAULT_AREA_MODEL", "load_area_model"]

_TRAINER = "bench/train_fields.py"  # what writes the shipped weights
_RETRAIN = f"retrain it with {_TRAINER}"

DEFAULT_AREA_MODEL = Path(__file__).resolve().parent / "models" / "area_model.json"


@dataclass(frozen=True, eq=False)
class AreaModel:
    """Weights of the learned area ranking.

    Attributes:
        areas: Keys of the broad areas, in the order of the weight rows; the
            model applies only to a taxonomy with exactly these areas.
        doc_weights, doc_bias: Logistic regression on the paper embedding.
        raw_weights, raw_bias: Logistic regression on the zero-shot raw scores
            of every field of the taxonomy (areas and topics, taxonomy order).
        zero_shot_temperature: Softmax temperature of the zero-shot area scores.
        temperature: Divides the summed log-probabilities (calibration).
        info: Provenance: training data, date, cross-validated figures.
    """

    areas: tuple[str, ...]
    doc_weights: np.ndarray
    doc_bias: np.ndarray
    raw_weights: np.ndarray
    raw_bias: np.ndarray
    zero_shot_temperature: float
    temperature: float
    info: dict[str, Any] | None = None

    def log_scores(self, doc: np.ndarray, raw: np.ndarray, area_raw: np.ndarray) -> np.ndarray:
        """Summed expert log-probabilities, before calibration (rows: papers)."""
        return (
            log_softmax(doc @ self.doc_weights.T + self.doc_bias, axis=-1)
            + log_softmax(raw @ self.raw_weights.T + self.raw_bias, axis=-1)
            + log_softmax(area_raw / self.zero_shot_temperature, axis=-1)
        )

    def probabilities(self, doc: np.ndarray, raw: np.ndarray, area_raw: np.ndarray) -> np.ndarray:
        """Calibrated probability of each area, for one paper or a batch."""
        return np.asarray(softmax(self.log_scores(doc, raw, area_raw) / self.temperature, axis=-1))

    def to_json(self) -> str:
        """The model as JSON (floats rounded to 6 significant digits)."""

        def rows(a: np.ndarray) -> Any:
            return [[float(f"{x:.6g}") for x in r] for r in a] if a.ndim == 2 else rows(a[None])[0]

        return json.dumps(
            {
                "areas": list(self.areas),
                "doc_weights": rows(self.doc_weights),
                "doc_bias": rows(self.doc_bias),
                "raw_weights": rows(self.raw_weights),
                "raw_bias": rows(self.raw_bias),
                "zero_shot_temperature": self.zero_shot_temperature,
                "temperature": self.temperature,
                "info": self.info or {},
            },
            indent=None,
            separators=(",", ":"),
        )


def load_area_model(path: str | Path | None = None) -> AreaModel:
    """Read an :class:`AreaModel` written by ``bench/train_fields.py``.

    Raises:
        ModelError: The file is missing or not a valid model.
    """
    path = Path(DEFAULT_AREA_MODEL if path is None else path)
    data = read_weights(path, "the area model", _TRAINER)
    try:
        areas = tuple(str(a) for a in data["areas"])
        model = AreaModel(
            areas=areas,
            doc_weights=np.asarray(data["doc_weights"], dtype=np.float32),
            doc_bias=np.asarray(data["doc_bias"], dtype=np.float32),
            raw_weights=np.asarray(data["raw_weights"], dtype=np.float32),
            raw_bias=np.asarray(data["raw_bias"], dtype=np.float32),
            zero_shot_temperature=float(data["zero_shot_temperature"]),
            temperature=float(data["temperature"]),
            info=dict(data.get("info") or {}),
        )
    except KeyError as exc:
        raise ModelError(f"{path}: the area model lacks {exc}; {_RETRAIN}") from exc
    except (ValueError, TypeError) as exc:
        raise ModelError(
            f"{path}: the area model has malformed weights ({exc}); {_RETRAIN}"
        ) from exc
    n = len(areas)
    shapes_ok = (
        model.doc_weights.ndim == 2
        and model.doc_weights.shape[0] == n
        and model.doc_bias.shape == (n,)
        and model.raw_weights.ndim == 2
        and model.raw_weights.shape[0] == n
        and model.raw_bias.shape == (n,)
        and model.temperature > 0
        and model.zero_shot_temperature > 0
    )
    if not shapes_ok:
        raise ModelError(f"{path}: the area model's weights have inconsistent shapes")
    return model
