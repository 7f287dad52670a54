"""How likely a reader is to judge a kept method or problem link right.

The candidate classifier (:mod:`kg.extract.classify`) learns SciERC's sense
of method and problem; a researcher indexing a paper is stricter: a setting,
a training objective or a side remark is neither. This module gives each
kept link the features a model of that reader reads: the candidate's feature
row, the link's role, its confidence and its rank in the paper.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from scipy.special import expit

from kg.errors import ModelError
from kg.extract.classify import FEATURE_NAMES, HAND
from kg.extract.select import CandidateTable, Scored
from kg.extract.weights import read_weights
from kg.model import Mention, Role

__all__ = [
    "DEFAULT_READER",
    "EXTRA_FEATURES",
    "LINK_ROLES",
    "ReaderModel",
    "rescored",
    "link_features",
    "load_reader",
]

DEFAULT_READER = Path(__file__).resolve().parent / "models" / "reader_model.json"

LINK_ROLES = (Role.PROPOSES, Role.USES, Role.ADDRESSES)
# What a link adds to its candidate's feature row (:data:`kg.extract.classify.FEATURE_NAMES`).
EXTRA_FEATURES = (
    "confidence",
    "proposes",
    "uses",
    "addresses",
    "rank_share",
    "first",
    "links",
    "entity",
)
# The candidate features a link keeps: the hand features, not the phrase's vectors
# (with them the model fits the sample's topics: held-out AUC 0.63 against 0.66 without).
_NAMES = [*EXTRA_FEATURES, *FEATURE_NAMES[:HAND]]  # a link's features, in order


@dataclass(frozen=True)
class ReaderModel:
    """A logistic regression over a link's standardised features."""

    coef: np.ndarray
    intercept: float
    mean: np.ndarray
    scale: np.ndarray

    def probability(self, X: np.ndarray) -> np.ndarray:
        Z = (X.astype(np.float32) - self.mean) / self.scale
        return np.asarray(expit(Z @ self.coef + self.intercept))

    def to_json(self, trained_on: str) -> str:
        return json.dumps(
            {
                "features": _NAMES,
                "coef": np.round(self.coef, 6).tolist(),
                "intercept": round(self.intercept, 6),
                "mean": np.round(self.mean, 6).tolist(),
                "scale": np.round(self.scale, 6).tolist(),
                "trained_on": trained_on,
            },
            indent=0,
            sort_keys=True,
        )


def link_features(
    links: Sequence[tuple[Mention, int]], scored: Sequence[Scored], table: CandidateTable
) -> Iterator[tuple[dict[str, Any], np.ndarray, Mention]]:
    """Each method or problem link's row, feature vector and mention.

    ``links`` are :func:`kg.extract.select.select_links` of ``scored``: each
    mention with the row of ``scored`` (and of ``table``) it was made from.
    """
    kept = [(m, i) for m, i in links if m.role in LINK_ROLES]
    order = sorted(range(len(kept)), key=lambda k: -kept[k][0].score)
    rank_of = {k: rank for rank, k in enumerate(order)}
    for k, (m, i) in enumerate(kept):
        s = scored[i]
        rank = rank_of[k]
        extra = np.array(
            [
                m.score,
                *(float(m.role is r) for r in LINK_ROLES),
                rank / max(1, len(kept) - 1),
                float(rank == 0),
                len(kept) / 10,
                s.entity,
            ],
            dtype=np.float32,
        )
        row = {"text": m.text, "role": m.role.value, "score": m.score, "rank": rank}
        yield row, np.concatenate([extra, table.features[i, :HAND].astype(np.float32)]), m


def rescored(
    links: Sequence[tuple[Mention, int]],
    scored: Sequence[Scored],
    table: CandidateTable,
    model: ReaderModel,
) -> list[Mention]:
    """The mentions of ``links`` (:func:`link_features`), each method and problem link's
    confidence the model's probability that a reader judges it right (the classifier's
    kept as its salience).

    No link is dropped here: SciERC's annotators count as methods and problems
    many of the settings, objectives and baselines this reader rejects, so a
    floor on it costs SciERC F1 (docs/explanation/measuring.md). A user picks
    the precision they need by the confidence.
    """
    mentions = [m for m, _ in links]
    rows = list(link_features(links, scored, table))
    if not rows:
        return mentions
    p = model.probability(np.stack([vector for _, vector, _ in rows]))
    score = {id(m): round(float(pi), 4) for (_, _, m), pi in zip(rows, p, strict=True)}
    return [
        replace(m, score=score[id(m)], salience=m.score) if id(m) in score else m for m in mentions
    ]


def load_reader(path: str | Path = DEFAULT_READER) -> ReaderModel:
    """Read shipped weights; a missing or mismatched file is a :class:`ModelError`."""
    path = Path(path)
    data = read_weights(path, "the reader model", "bench/train_reader.py")
    if data.get("features") != _NAMES or len(data.get("coef", ())) != len(_NAMES):
        raise ModelError(
            f"{path} was trained for other features; retrain it with bench/train_reader.py"
        )
    return ReaderModel(
        coef=np.asarray(data["coef"], np.float32),
        intercept=float(data["intercept"]),
        mean=np.asarray(data["mean"], np.float32),
        scale=np.asarray(data["scale"], np.float32),
    )
