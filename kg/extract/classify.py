"""A small learned classifier that decides which candidates are methods or problems.

The rules in :mod:`kg.extract.candidates` find phrases and cues; whether a phrase is a
concept a researcher would annotate, and of which kind, is learned: a
multinomial logistic regression over the phrase's MiniLM embedding, its
KeyBERT relevance and the rule cues. It was trained on the SciERC training
split (Method and Task entities; ``bench/train_classifier.py``) and ships as
plain JSON weights in ``kg/extract/models/`` (no pickle), so inference is a
dot product and a softmax.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.special import softmax

from kg.errors import ModelError
from kg.extract.candidates import Candidate
from kg.extract.embed import EMBEDDING_DIM
from kg.lexicon import METHOD_HEADS, PROBLEM_HEADS, head, looks_like_name
from kg.model import Kind

__all__ = [
    "CLASSES",
    "FEATURE_NAMES",
    "CandidateClassifier",
    "features",
    "occurrences",
    "load_classifier",
    "DEFAULT_CLASSIFIER",
]

CLASSES = ("none", "method", "problem")
DEFAULT_CLASSIFIER = Path(__file__).resolve().parent / "models" / "candidate_classifier.json"
_HAND_FEATURES = (
    "relevance",
    "relevance_share",
    "relevance_rank",
    "cue_method",
    "cue_problem",
    "proposed",
    "name",
    "acronym_defined",
    "words_1",
    "words_2",
    "words_3",
    "words_4",
    "first_sentence",
    "position",
    "occurrences",
    "head_method",
    "head_problem",
    "capitalised",
)
FEATURE_NAMES = _HAND_FEATURES + tuple(f"e{i}" for i in range(EMBEDDING_DIM))


def features(
    cands: Sequence[Candidate],
    relevance: Sequence[float],
    vectors: np.ndarray,
    text: str,
    n_sentences: int,
) -> np.ndarray:
    """One row per candidate: hand features, then the phrase embedding.

    Args:
        cands: A paper's candidates.
        relevance: KeyBERT similarity of each candidate to the abstract.
        vectors: Unit-norm embedding of each candidate (acronyms: their expansion).
        text: The paper's cleaned text (for occurrence counts).
        n_sentences: How many sentences the paper has.
    """
    n = len(cands)
    if n == 0:
        return np.zeros((0, len(FEATURE_NAMES)), np.float32)
    rel = np.asarray(relevance, np.float32)
    top = float(rel.max()) if rel.size and rel.max() > 0 else 1.0
    order = np.argsort(-rel, kind="stable")
    rank = np.empty(n, np.float32)
    rank[order] = np.arange(n, dtype=np.float32) / max(1, n - 1)
    low = text.lower()
    rows = []
    for i, c in enumerate(cands):
        words = c.text.split()
        count = occurrences(c.text.lower(), low)
        h = head(c.expansion or c.text)
        rows.append(
            [
                rel[i],
                rel[i] / top,
                rank[i],
                float(c.cue is Kind.METHOD),
                float(c.cue is Kind.PROBLEM),
                float(c.proposed),
                float(any(looks_like_name(w) for w in words)),
                float(c.expansion is not None),
                *(float(len(words) == k) for k in (1, 2, 3)),
                float(len(words) >= 4),
                float(c.sentence == 0),
                max(0, c.sentence) / max(1, n_sentences - 1),
                math.log1p(count),
                float(h in METHOD_HEADS),
                float(h in PROBLEM_HEADS),
                float(c.text[:1].isupper()),
            ]
        )
    return np.hstack([np.asarray(rows, np.float32), vectors.astype(np.float32)])


def occurrences(phrase: str, text: str) -> int:
    """How often ``phrase`` occurs in ``text`` as whole words, without overlaps.

    What ``re.findall(rf"(?<!\\w){re.escape(phrase)}(?!\\w)", text)`` counts,
    without compiling a pattern for each of a paper's hundreds of candidates.
    """
    if not phrase:
        return 0
    count, start, n = 0, 0, len(phrase)
    while (i := text.find(phrase, start)) >= 0:
        if (i == 0 or not _word_char(text[i - 1])) and (
            i + n == len(text) or not _word_char(text[i + n])
        ):
            count += 1
            start = i + n
        else:
            start = i + 1
    return count


def _word_char(c: str) -> bool:
    return c.isalnum() or c == "_"  # what re's \w matches in a str pattern


@dataclass(frozen=True)
class CandidateClassifier:
    """Weights of the multinomial logistic regression and its decision thresholds.

    Attributes:
        coef: ``(len(CLASSES), len(FEATURE_NAMES))``.
        intercept: ``(len(CLASSES),)``.
        mean, scale: Standardisation of the hand features (embeddings are used as is).
        thresholds: Minimum probability for a candidate to count, per kind.
        trained_on: What the weights were learned from (shown in the README).
    """

    coef: np.ndarray
    intercept: np.ndarray
    mean: np.ndarray
    scale: np.ndarray
    thresholds: dict[str, float]
    trained_on: str

    def probabilities(self, X: np.ndarray) -> np.ndarray:
        """Class probabilities, columns in :data:`CLASSES` order."""
        X = X.copy()
        k = len(_HAND_FEATURES)
        X[:, :k] = (X[:, :k] - self.mean) / self.scale
        return np.asarray(softmax(X @ self.coef.T + self.intercept, axis=1))

    def to_json(self) -> str:
        return json.dumps(
            {
                "classes": list(CLASSES),
                "features": list(FEATURE_NAMES),
                "coef": np.round(self.coef, 6).tolist(),
                "intercept": np.round(self.intercept, 6).tolist(),
                "mean": np.round(self.mean, 6).tolist(),
                "scale": np.round(self.scale, 6).tolist(),
                "thresholds": self.thresholds,
                "trained_on": self.trained_on,
            },
            indent=0,
            sort_keys=True,
        )


def load_classifier(path: str | Path = DEFAULT_CLASSIFIER) -> CandidateClassifier:
    """Read shipped weights; a missing or mismatched file is a :class:`ModelError`."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelError(
            f"cannot read the candidate classifier {path}: {exc}; "
            "reinstall kg or retrain it with bench/train_classifier.py"
        ) from exc
    if (
        tuple(data.get("classes", ())) != CLASSES
        or tuple(data.get("features", ())) != FEATURE_NAMES
    ):
        raise ModelError(
            f"{path} was trained for other features or classes; retrain it with "
            "bench/train_classifier.py"
        )
    return CandidateClassifier(
        coef=np.asarray(data["coef"], np.float32),
        intercept=np.asarray(data["intercept"], np.float32),
        mean=np.asarray(data["mean"], np.float32),
        scale=np.asarray(data["scale"], np.float32),
        thresholds={k: float(v) for k, v in data["thresholds"].items()},
        trained_on=str(data["trained_on"]),
    )
