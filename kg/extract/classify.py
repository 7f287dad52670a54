"""A small learned model that decides which candidates are concepts, and of which kind.

The rules in :mod:`kg.extract.candidates` find phrases and cues; whether a
phrase is a concept a researcher would list as a keyword of the paper, and
whether it is a method or a problem, is learned. Two models read the same
features (hand features, the phrase's MiniLM embedding, and its vector in
context: its tokens' vectors pooled where the abstract writes it,
:func:`kg.extract.pooling.in_context`, which tells "we propose X" from "X is
hard"):

- *concept*, a logistic regression: is the phrase a keyphrase of its paper?
  Trained on SciERC train (Method and Task entities), Inspec train (indexer
  keyphrases) and the reader's index (a strict researcher's methods and problems);
- *kind*, a network with one hidden layer of ReLUs: a method, a problem, or
  another kind of term (a property, quantity, dataset or setting, which is
  neither)? Trained on SciERC's entities (Method, Task; Metric, Material and
  OtherScientificTerm as the third kind) and the reader's index.

So ``P(method) = P(concept) * P(method | entity)``, and a phrase that is a
keyphrase but names a property or a dataset is neither method nor problem.
How much the third kind counts against the other two (``other_weight``, 1 as
trained, 0 not at all) is chosen by cross-validation with the thresholds. The hand features include
how common the phrase's words are in general English (``wordfreq``), so that
specificity does not depend only on the papers being built, and how annotators
typed phrases with the same head word (:mod:`kg.extract.head_prior`). Both are trained
by ``bench/train_classifier.py`` and ship as plain JSON weights in
``kg/extract/models/`` (no pickle), so inference is a few matrix products.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from scipy.special import expit, softmax

from kg.errors import ModelError
from kg.extract.candidates import Candidate
from kg.extract.embed import EMBEDDING_DIM
from kg.extract.head_prior import PRIOR_FEATURES, HeadPrior, load_head_prior
from kg.extract.phrases import DETERMINERS, is_adverb, spans
from kg.extract.weights import read_weights
from kg.lexicon import (
    METHOD_HEADS,
    NOMINAL_ING,
    PROBLEM_HEADS,
    WEAK_MODIFIERS,
    head,
    looks_like_name,
    singular,
    zipf,
)
from kg.model import Kind

__all__ = [
    "CLASSES",
    "FEATURE_NAMES",
    "HAND",
    "CandidateClassifier",
    "Layer",
    "features",
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
    "loose",
    "zipf_min",
    "zipf_max",
    "zipf_head",
    "weak_start",
    "participle",
    "digits",
    "inside_others",
    "holds_others",
    "ing_first",
    "plural_inside",
    "verb_before",
    "determiner_after",
    *PRIOR_FEATURES,
)
FEATURE_NAMES = (
    _HAND_FEATURES
    + tuple(f"e{i}" for i in range(EMBEDDING_DIM))  # the phrase on its own
    + tuple(f"c{i}" for i in range(EMBEDDING_DIM))  # the phrase where the abstract writes it
)
HAND = len(_HAND_FEATURES)  # the standardised columns: the hand features come first


def features(
    cands: Sequence[Candidate],
    relevance: Sequence[float],
    vectors: np.ndarray,
    context: np.ndarray,
    text: str,
    n_sentences: int,
    prior: HeadPrior | None = None,
) -> np.ndarray:
    """One row per candidate: hand features, the phrase embedding, its vector in context.

    Args:
        cands: A paper's candidates.
        relevance: KeyBERT similarity of each candidate to the abstract.
        vectors: Unit-norm embedding of each candidate (acronyms: their expansion).
        context: Unit-norm vector of each candidate where the paper writes it
            (:func:`kg.extract.pooling.in_context`; zero where it does not).
        text: The paper's cleaned text (for occurrence counts).
        n_sentences: How many sentences the paper has.
        prior: The head-word kind counts; default the shipped table (training
            passes counts that leave out the abstract's own annotations).
    """
    prior = prior or load_head_prior()
    n = len(cands)
    if n == 0:
        return np.zeros((0, len(FEATURE_NAMES)), np.float32)
    rel = np.asarray(relevance, np.float32)
    top = float(rel.max()) if rel.size and rel.max() > 0 else 1.0
    order = np.argsort(-rel, kind="stable")
    rank = np.empty(n, np.float32)
    rank[order] = np.arange(n, dtype=np.float32) / max(1, n - 1)
    low = text.lower()
    padded = [f" {c.text.lower()} " for c in cands]
    rows = []
    for i, c in enumerate(cands):
        words = c.text.split()
        before, after = _neighbours(c.text.lower(), low)
        count = len(before)  # its occurrences
        h = head(c.expansion or c.text)
        freqs = [zipf(w) for w in words] or [0.0]
        inside = sum(padded[i] in other for j, other in enumerate(padded) if j != i)
        holds = sum(other in padded[i] for j, other in enumerate(padded) if j != i)
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
                float(c.loose),
                min(freqs),
                max(freqs),
                zipf(words[-1]) if words else 0.0,
                float(bool(words) and words[0].lower() in WEAK_MODIFIERS),
                float(any(w.lower().endswith(("ing", "ed")) for w in words)),
                float(any(ch.isdigit() for ch in c.text)),
                math.log1p(inside),
                math.log1p(holds),
                float(
                    len(words) > 1
                    and words[0].islower()
                    and words[0].endswith("ing")
                    and words[0] not in NOMINAL_ING
                ),
                float(any(w.islower() and singular(w) != w for w in words[:-1])),
                _share(before, _verb_position),
                _share(after, _DETERMINERS.__contains__),
                *prior.features(h),
            ]
        )
    return np.hstack(
        [np.asarray(rows, np.float32), vectors.astype(np.float32), context.astype(np.float32)]
    )


# Words after which a lower-case word is often a verb: "can hide X", "to propagate backward"
# (not always: "applied to X"; the classifier weighs how often).
_VERB_MARKERS = frozenset("to can cannot could may might must shall should will would not".split())
# Words no noun phrase runs on to: a phrase right before one ends in a verb or
# participle ("agent controls a browser", "algorithm satisfying the bounds").
_DETERMINERS = DETERMINERS | {"his", "her"}
_WORD_BEFORE = re.compile(r"([\w-]+) +\Z")
_WORD_AFTER = re.compile(r" +([\w-]+)")


def _neighbours(phrase: str, text: str) -> tuple[list[str], list[str]]:
    """The word right before and right after each whole-word occurrence of ``phrase`` in
    ``text`` (one each per occurrence): "" where punctuation or either end of the text comes
    between."""
    before, after = [], []
    for i, j in spans(phrase, text):
        left = _WORD_BEFORE.search(text, max(0, i - 40), i)
        right = _WORD_AFTER.match(text, j, j + 40)
        before.append(left.group(1) if left else "")
        after.append(right.group(1) if right else "")
    return before, after


def _verb_position(word: str) -> bool:
    return word in _VERB_MARKERS or is_adverb(word)


def _share(words: list[str], test: Callable[[str], bool]) -> float:
    """The share of ``words`` that pass ``test`` (0 for none)."""
    return sum(map(test, words)) / len(words) if words else 0.0


@dataclass(frozen=True)
class Layer:
    """One affine layer: ``X @ weights + bias``."""

    weights: np.ndarray  # (inputs, outputs)
    bias: np.ndarray  # (outputs,)

    def __call__(self, X: np.ndarray) -> np.ndarray:
        return np.asarray(X @ self.weights + self.bias)

    def to_dict(self) -> dict[str, Any]:
        # Rounded as float64: a float32 rounded to 6 places still prints 17 digits.
        return {
            "weights": np.round(self.weights.astype(np.float64), 6).tolist(),
            "bias": np.round(self.bias.astype(np.float64), 6).tolist(),
        }

    @classmethod
    def of(cls, weights: Any, bias: Any) -> Layer:
        """A float32 layer; ValueError unless it maps inputs to outputs."""
        w, b = np.asarray(weights, np.float32), np.asarray(bias, np.float32)
        if w.ndim != 2 or b.shape != w.shape[1:]:
            raise ValueError(f"a layer of weights {w.shape} and bias {b.shape}")
        return cls(w, b)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Layer:
        """A layer from its JSON form (:meth:`to_dict`)."""
        return cls.of(data["weights"], data["bias"])


@dataclass(frozen=True)
class CandidateClassifier:
    """The concept and kind models over a candidate's features, and the decision thresholds.

    Attributes:
        concept: A logistic regression: one output, the log-odds that the
            candidate is a concept of its paper.
        kind: The kind model's layers, ReLUs between them: three outputs, the
            scores of method, problem and another kind of term (one layer is a
            softmax regression; two are a network with one hidden layer).
        mean, scale: Standardisation of the hand features (vectors are used as is).
        thresholds: Minimum probability for a candidate to count, per kind.
        trained_on: What the weights were learned from (docs/explanation/extraction.md).
        other_weight: How much the kind model's third kind (neither method nor
            problem) counts against the other two.
    """

    concept: Layer
    kind: tuple[Layer, ...]
    mean: np.ndarray
    scale: np.ndarray
    thresholds: dict[str, float]
    trained_on: str
    other_weight: float = 1.0

    def standardised(self, X: np.ndarray) -> np.ndarray:
        """``X`` with its hand features standardised, as both models read it."""
        X = X.copy()
        X[:, :HAND] = (X[:, :HAND] - self.mean) / self.scale
        return X

    def kind_scores(self, Xs: np.ndarray) -> np.ndarray:
        """The kind model's scores (method, problem, another kind) of standardised rows."""
        z = Xs
        for i, layer in enumerate(self.kind):
            z = layer(z if i == 0 else np.maximum(z, 0.0))
        return z

    def probabilities(self, X: np.ndarray) -> np.ndarray:
        """Class probabilities, columns in :data:`CLASSES` order."""
        Xs = self.standardised(X)
        concept = expit(self.concept(Xs)[:, 0])
        kind = softmax(self.kind_scores(Xs), axis=1) * np.array([1.0, 1.0, self.other_weight])
        kind /= kind.sum(axis=1, keepdims=True)
        method, problem = concept * kind[:, 0], concept * kind[:, 1]
        return np.stack([1.0 - method - problem, method, problem], axis=1)

    def with_thresholds(
        self, thresholds: dict[str, float], other_weight: float, trained_on: str | None = None
    ) -> CandidateClassifier:
        """The same models under other decision thresholds (and what they were learned
        from, when given)."""
        return replace(
            self,
            thresholds=thresholds,
            other_weight=other_weight,
            trained_on=self.trained_on if trained_on is None else trained_on,
        )

    def to_json(self) -> str:
        return json.dumps(
            {
                "classes": list(CLASSES),
                "features": list(FEATURE_NAMES),
                "concept": self.concept.to_dict(),
                "kind": [layer.to_dict() for layer in self.kind],
                "mean": np.round(self.mean, 6).tolist(),
                "scale": np.round(self.scale, 6).tolist(),
                "thresholds": self.thresholds,
                "trained_on": self.trained_on,
                "other_weight": self.other_weight,
            },
            indent=0,
            sort_keys=True,
        )


def load_classifier(path: str | Path = DEFAULT_CLASSIFIER) -> CandidateClassifier:
    """Read shipped weights; a missing or mismatched file is a :class:`ModelError`."""
    path = Path(path)
    data = read_weights(path, "the candidate classifier", "bench/train_classifier.py")
    n = len(FEATURE_NAMES)
    try:
        concept = Layer.from_dict(data["concept"])
        kind = tuple(Layer.from_dict(layer) for layer in data["kind"])
        mean = np.asarray(data["mean"], np.float32)
        scale = np.asarray(data["scale"], np.float32)
        thresholds = {str(k): float(v) for k, v in data["thresholds"].items()}
        shapes = [layer.weights.shape for layer in (concept, *kind)]
        fits = (
            len(shapes) >= 2
            and shapes[0] == (n, 1)
            and shapes[1][0] == n
            and all(a[1] == b[0] for a, b in itertools.pairwise(shapes[1:]))
            and shapes[-1][1] == 3
            and mean.shape == scale.shape == (HAND,)
        )
    except (KeyError, TypeError, ValueError, AttributeError):
        fits = False
    if (
        not fits
        or tuple(data.get("classes", ())) != CLASSES
        or tuple(data.get("features", ())) != FEATURE_NAMES
    ):
        raise ModelError(
            f"{path} was trained for other features or classes; retrain it with "
            "bench/train_classifier.py"
        )
    return CandidateClassifier(
        concept=concept,
        kind=kind,
        mean=mean,
        scale=scale,
        thresholds=thresholds,
        trained_on=str(data["trained_on"]),
        other_weight=float(data.get("other_weight", 1.0)),
    )
