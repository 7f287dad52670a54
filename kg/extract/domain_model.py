"""Whether a paper is about AI and machine learning at all, so that the taxonomy applies.

The shipped taxonomy's areas are areas of machine learning, and an abstract on
something else (a telephone carrier's regulation, an adder circuit) is still
nearest to one of them. This model, a logistic regression on the paper's
embedding trained by ``bench/train_domain.py`` (which says on what), finds
such papers; :mod:`kg.extract.fields` gives them no field. It reads the
packaged model's vectors only, so it is used with that embedder alone.

    >>> m = DomainModel(np.array([1.0, -1.0]), 0.0, floor=0.5, model="toy")
    >>> m.inside(np.array([1.0, 0.0])), m.inside(np.array([0.0, 1.0]))
    (True, False)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy.special import expit

from kg.errors import ModelError
from kg.extract.weights import read_weights

__all__ = ["DEFAULT_DOMAIN_MODEL", "DomainModel", "load_domain_model"]

_TRAINER = "bench/train_domain.py"  # what writes the shipped weights
_RETRAIN = f"retrain it with {_TRAINER}"

DEFAULT_DOMAIN_MODEL = Path(__file__).resolve().parent / "models" / "domain_model.json"


@dataclass(frozen=True, eq=False)
class DomainModel:
    """A logistic regression on the paper embedding, and the floor below which a paper is
    not about machine learning.

    Attributes:
        weights, bias: The regression.
        floor: A paper less likely than this to be about machine learning gets no field.
        model: The key (:func:`~kg.extract.embed.model_identity`) of the embedder whose
            vectors it reads.
        info: Provenance: training data and out-of-fold figures.
    """

    weights: np.ndarray
    bias: float
    floor: float
    model: str
    info: dict[str, Any] | None = None

    def probability(self, doc: np.ndarray) -> np.ndarray:
        """How likely the paper (or each row) is about machine learning."""
        return np.asarray(expit(doc @ self.weights + self.bias))

    def inside(self, doc: np.ndarray) -> bool:
        """Whether one paper is at least :attr:`floor` likely about machine learning."""
        return bool(self.probability(doc) >= self.floor)

    def to_json(self) -> str:
        return json.dumps(
            {
                "weights": [float(f"{x:.6g}") for x in self.weights],
                "bias": float(f"{self.bias:.6g}"),
                "floor": self.floor,
                "model": self.model,
                "info": self.info or {},
            },
            separators=(",", ":"),
        )


def load_domain_model(path: str | Path | None = None) -> DomainModel:
    """Read a :class:`DomainModel` written by ``bench/train_domain.py``.

    Raises:
        ModelError: The file is missing or not a valid model.
    """
    path = Path(DEFAULT_DOMAIN_MODEL if path is None else path)
    data = read_weights(path, "the domain model", _TRAINER)
    try:
        model = DomainModel(
            weights=np.asarray(data["weights"], dtype=np.float32),
            bias=float(data["bias"]),
            floor=float(data["floor"]),
            model=str(data["model"]),
            info=dict(data.get("info") or {}),
        )
    except KeyError as exc:
        raise ModelError(f"{path}: the domain model lacks {exc}; {_RETRAIN}") from exc
    except (ValueError, TypeError) as exc:
        raise ModelError(
            f"{path}: the domain model has malformed weights ({exc}); {_RETRAIN}"
        ) from exc
    valid = (
        model.weights.ndim == 1
        and model.weights.size > 0
        and bool(np.isfinite(model.weights).all())
        and np.isfinite(model.bias)
        and 0.0 < model.floor < 1.0
    )
    if not valid:
        raise ModelError(f"{path}: the domain model's weights or floor are not valid; reinstall kg")
    return model
