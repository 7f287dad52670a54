"""Predictions against gold: micro-averaged counts per figure and ICLR area accuracy.

Precision, recall and F1 are micro-averaged: matches, predictions and gold
concepts are summed over papers first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from kg.evaluate import keyphrases
from kg.evaluate.counts import Counts
from kg.evaluate.gold import GoldPaper
from kg.evaluate.links import LinkFigures
from kg.evaluate.matching import Predicted, match, unique_gold
from kg.evaluate.predictors import Prediction

__all__ = [
    "FIGURES",
    "KEYPHRASE_CUTOFFS",
    "CONFIDENCE_LEVELS",
    "Counts",
    "AreaAccuracy",
    "Report",
    "score",
]

FIGURES = (
    "method+problem",
    "method",
    "problem",
    "field",
    "keyword",
    "keyphrase@5",
    "keyphrase@10",
    "candidate recall",
)
#: The cut-offs keyphrase benchmarks are reported at (F1@5, F1@10).
KEYPHRASE_CUTOFFS = (5, 10)
#: Confidence thresholds a user may pick: method+problem is also scored on the
#: links at or above each (``method+problem >=0.5``).
CONFIDENCE_LEVELS = (0.3, 0.5, 0.7)


@dataclass(frozen=True)
class AreaAccuracy:
    """Papers with a gold area, and how many have it first / among the first three."""

    papers: int = 0
    top1: int = 0
    top3: int = 0

    @property
    def top1_accuracy(self) -> float:
        return self.top1 / self.papers if self.papers else 0.0

    @property
    def top3_accuracy(self) -> float:
        return self.top3 / self.papers if self.papers else 0.0


@dataclass(frozen=True)
class Report:
    """Every figure of one evaluation run; ``figures`` holds only those that apply."""

    system: str
    papers: int
    figures: Mapping[str, Counts]
    areas: AreaAccuracy | None = None
    seconds: float = 0.0
    gold_path: str = ""
    notes: tuple[str, ...] = field(default=())
    links: tuple[LinkFigures, ...] = ()


def _counts(predictions: Sequence[Predicted], gold: Sequence[str]) -> Counts:
    n_gold = len(unique_gold(gold))
    return Counts(1, n_gold, len(predictions), match(predictions, gold))


def score(
    predictions: Sequence[Prediction],
    gold: Sequence[GoldPaper],
    *,
    typed: bool = True,
    system: str = "kg",
) -> Report:
    """Score predictions against gold, paper by paper (same order).

    Args:
        typed: False for a system without kinds or fields: only the untyped
            ``method+problem`` figure and keyword recall are computed.
    """
    if len(predictions) != len(gold):
        raise ValueError(f"{len(predictions)} predictions for {len(gold)} gold papers")
    totals = {name: Counts() for name in FIGURES}
    areas = AreaAccuracy()
    for pred, g in zip(predictions, gold, strict=True):
        if g.methods is not None and g.problems is not None:
            totals["method+problem"] += _counts(pred.concepts, g.methods + g.problems)
            for level in CONFIDENCE_LEVELS if pred.confidence else ():
                sure = [p for p, c in zip(pred.ranked, pred.confidence, strict=True) if c >= level]
                name = f"method+problem >={level}"
                totals[name] = totals.get(name, Counts()) + _counts(sure, g.methods + g.problems)
        if typed and g.methods is not None:
            totals["method"] += _counts(pred.methods, g.methods)
        if typed and g.problems is not None:
            totals["problem"] += _counts(pred.problems, g.problems)
        if typed and g.fields is not None:
            totals["field"] += _counts(pred.fields, g.fields)
        if g.keywords is not None:
            totals["keyword"] += _counts(pred.concepts + pred.fields, g.keywords)
        if g.keyphrases is not None:
            ranked = [p.text for p in pred.ranked]
            for k in KEYPHRASE_CUTOFFS:
                totals[f"keyphrase@{k}"] += keyphrases.at_k(ranked, g.keyphrases, k)
            if pred.candidates:
                text = f"{g.title}. {g.text}" if g.title else g.text
                totals["candidate recall"] += keyphrases.candidate_recall(
                    pred.candidates, g.keyphrases, text
                )
        elif pred.candidates and g.methods is not None and g.problems is not None:
            totals["candidate recall"] += keyphrases.lenient_candidate_recall(
                pred.candidates, g.methods + g.problems, g.text
            )
        if typed and g.area is not None:
            areas = AreaAccuracy(
                areas.papers + 1,
                areas.top1 + (pred.areas[:1] == (g.area,)),
                areas.top3 + (g.area in pred.areas[:3]),
            )
    notes = []
    if not typed:
        notes.append(
            f"{system} does not type its phrases: only the untyped method+problem figure and "
            "keyword recall apply; method, problem, field and area figures are not computed"
        )
    return Report(
        system=system,
        papers=len(gold),
        figures={name: c for name, c in totals.items() if c.papers},
        areas=areas if areas.papers else None,
        notes=tuple(notes),
    )
