"""Measure extraction against gold annotations (``kg eval``).

The gold format is in :mod:`kg.gold`, the matching rule in :mod:`kg.matching`.
Predictors (kg itself, or plain KeyBERT as a baseline) turn papers into
:class:`Prediction` s, and :func:`score` counts them against the gold.

Precision, recall and F1 are micro-averaged: matches, predictions and gold
concepts are summed over papers first.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from kg.embed import load_model
from kg.errors import InputError
from kg.gold import GoldPaper, load_gold
from kg.matching import (
    HEAD_NOUNS,
    JACCARD,
    Predicted,
    align,
    match,
    normalise_term,
    same_concept,
    unique_gold,
)
from kg.model import Kind, Mention, Paper
from kg.text import clean

__all__ = [
    "GoldPaper",
    "Predicted",
    "Prediction",
    "Predictor",
    "KgPredictor",
    "KeyBERTBaseline",
    "Counts",
    "AreaAccuracy",
    "Report",
    # re-exported from kg.gold and kg.matching, where they live
    "HEAD_NOUNS",
    "JACCARD",
    "normalise_term",
    "same_concept",
    "align",
    "match",
    "load_gold",
    "area_labels",
    "score",
    "evaluate",
    "evaluate_papers",
    "evaluate_file",
    "format_report",
    "report_json",
]

FIGURES = ("method+problem", "method", "problem", "field", "keyword")
_BATCH = 64


# --- predictions -----------------------------------------------------------


@dataclass(frozen=True)
class Prediction:
    """What a system predicted for one paper.

    Attributes:
        methods, problems: Typed concepts (kg).
        phrases: Untyped concepts (a baseline that does not type).
        fields: Predicted fields, best first, as their labels.
        areas: Distinct gold-scheme areas (ICLR) the fields map to, best first.
    """

    methods: tuple[Predicted, ...] = ()
    problems: tuple[Predicted, ...] = ()
    phrases: tuple[Predicted, ...] = ()
    fields: tuple[Predicted, ...] = ()
    areas: tuple[str, ...] = ()

    @property
    def concepts(self) -> tuple[Predicted, ...]:
        """Methods, problems and phrases: the untyped view."""
        return self.methods + self.problems + self.phrases


class Predictor(Protocol):
    """A system under evaluation. ``typed`` is False when it has no kinds or fields."""

    name: str
    typed: bool

    def predict(self, papers: Sequence[Paper]) -> list[Prediction]: ...


def area_labels(taxonomy_path: str | Path | None = None) -> dict[str, str]:
    """``{IRI: prefLabel}`` of every target of a SKOS mapping in the taxonomy file.

    In the shipped ``ontology/fields.ttl`` these are the ICLR 2024 areas, whose
    prefLabels are the exact ``primary_area`` strings.
    """
    import rdflib
    from rdflib.namespace import SKOS
    from rdflib.util import guess_format

    from kg.fields import DEFAULT_TAXONOMY, MATCH_RELATIONS

    path = Path(DEFAULT_TAXONOMY if taxonomy_path is None else taxonomy_path)
    g = rdflib.Graph().parse(path, format=guess_format(str(path)) or "turtle")
    targets = {o for r in MATCH_RELATIONS for o in g.objects(None, getattr(SKOS, r))}
    out: dict[str, str] = {}
    for iri in targets:
        labels = sorted(
            g.objects(iri, SKOS.prefLabel),
            key=lambda v: (getattr(v, "language", None) not in (None, "en"), str(v)),
        )
        if labels:
            out[str(iri)] = str(labels[0])
    return out


class KgPredictor:
    """kg's extractor: methods, problems, fields and the areas the fields map to."""

    name = "kg"
    typed = True

    def __init__(self, extractor: Any, areas: Mapping[str, str] | None = None) -> None:
        self.extractor = extractor
        self.taxonomy = extractor.taxonomy
        self.areas = dict(area_labels() if areas is None else areas)

    def predict(self, papers: Sequence[Paper]) -> list[Prediction]:
        mentions = self.extractor.extract(papers)
        return [self.prediction(mentions[p.id]) for p in papers]

    def prediction(self, mentions: Sequence[Mention]) -> Prediction:
        """One paper's mentions as a :class:`Prediction`."""

        def concept(m: Mention) -> Predicted:
            return Predicted((m.text, m.expansion) if m.expansion else (m.text,))

        fields = [m for m in mentions if m.kind is Kind.FIELD]
        areas: list[str] = []
        for m in fields:
            # The strongest mapping only (closeMatch before broadMatch), as in bench/.
            for _rel, iri in self.taxonomy.effective_matches(m.text)[:1]:
                if iri in self.areas and self.areas[iri] not in areas:
                    areas.append(self.areas[iri])
        return Prediction(
            methods=tuple(concept(m) for m in mentions if m.kind is Kind.METHOD),
            problems=tuple(concept(m) for m in mentions if m.kind is Kind.PROBLEM),
            fields=tuple(self._field(m.text) for m in fields),
            areas=tuple(areas),
        )

    def _field(self, key: str) -> Predicted:
        f = self.taxonomy.by_key(key)
        return Predicted((f.label, *f.alt_labels))


def _keybert_backend(embedder: Any) -> Any:
    """A KeyBERT backend over a kg :class:`~kg.embed.Embedder` (the fake one in tests)."""
    from keybert.backend import BaseEmbedder

    class Backend(BaseEmbedder):  # type: ignore[misc]
        def embed(self, documents: list[str], verbose: bool = False) -> Any:
            return embedder.embed(list(documents))

    return Backend()


class KeyBERTBaseline:
    """Plain KeyBERT: 1-3-grams, English stop words, top 10, untyped."""

    name = "keybert"
    typed = False

    def __init__(self, model: Any, top_n: int = 10) -> None:
        """``model``: a SentenceTransformer, or any kg :class:`~kg.embed.Embedder`."""
        from keybert import KeyBERT
        from keybert.backend import BaseEmbedder
        from sentence_transformers import SentenceTransformer

        if not isinstance(model, (SentenceTransformer, BaseEmbedder)):
            # KeyBERT would take an unknown object for a model *name* and try the hub.
            model = _keybert_backend(model)
        self.keybert = KeyBERT(model=model)
        self.top_n = top_n

    def predict(self, papers: Sequence[Paper]) -> list[Prediction]:
        docs = [p.text for p in papers]
        if not docs:
            return []
        ranked = self.keybert.extract_keywords(
            docs, keyphrase_ngram_range=(1, 3), stop_words="english", top_n=self.top_n
        )
        if len(docs) == 1:  # KeyBERT unwraps a single document
            ranked = [ranked]
        return [Prediction(phrases=tuple(Predicted((k,)) for k, _ in r)) for r in ranked]


# --- scoring ---------------------------------------------------------------


@dataclass(frozen=True)
class Counts:
    """Micro-averaged counts of one figure."""

    papers: int = 0
    gold: int = 0
    predicted: int = 0
    matched: int = 0

    @property
    def precision(self) -> float:
        return self.matched / self.predicted if self.predicted else 0.0

    @property
    def recall(self) -> float:
        return self.matched / self.gold if self.gold else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def __add__(self, other: Counts) -> Counts:
        return Counts(
            self.papers + other.papers,
            self.gold + other.gold,
            self.predicted + other.predicted,
            self.matched + other.matched,
        )


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
        if typed and g.methods is not None:
            totals["method"] += _counts(pred.methods, g.methods)
        if typed and g.problems is not None:
            totals["problem"] += _counts(pred.problems, g.problems)
        if typed and g.fields is not None:
            totals["field"] += _counts(pred.fields, g.fields)
        if g.keywords is not None:
            totals["keyword"] += _counts(pred.concepts + pred.fields, g.keywords)
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


def evaluate_papers(
    gold: Sequence[GoldPaper],
    predictor: Predictor,
    progress: Callable[[str, int, int], None] | None = None,
    gold_path: str | Path = "",
) -> Report:
    """Run ``predictor`` on the gold papers' texts and score the result.

    Only the prediction time is in ``Report.seconds`` (not model loading).
    """
    papers = [
        Paper(id=f"gold-{i}", abstract=g.text, text=clean(g.text), title=g.title)
        for i, g in enumerate(gold)
    ]
    predictions: list[Prediction] = []
    start = time.perf_counter()
    for i in range(0, len(papers), _BATCH):
        predictions += predictor.predict(papers[i : i + _BATCH])
        if progress:
            progress(f"extracting ({predictor.name})", len(predictions), len(papers))
    seconds = time.perf_counter() - start
    report = score(predictions, gold, typed=predictor.typed, system=predictor.name)
    return replace(report, seconds=seconds, gold_path=str(gold_path))


def evaluate(
    path: str | Path,
    extractor: Any,
    limit: int | None = None,
    *,
    areas: Mapping[str, str] | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> Report:
    """Evaluate a :class:`kg.extract.Extractor` on a gold file.

    Args:
        areas: ``{IRI: label}`` of the areas fields map to; by default read
            from the shipped taxonomy (:func:`area_labels`).
    """
    return evaluate_papers(load_gold(path, limit), KgPredictor(extractor, areas), progress, path)


def evaluate_file(
    path: str | Path,
    *,
    baseline: str | None = None,
    taxonomy_path: str | Path | None = None,
    limit: int | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> Report:
    """What ``kg eval`` does: read the gold first, then load the model and score.

    Args:
        baseline: ``"keybert"`` for plain KeyBERT instead of kg.
        taxonomy_path: Field taxonomy for kg (and its area labels).
    """
    gold = load_gold(path, limit)
    if progress:
        progress("loading model", 0, 1)
    model = load_model()
    predictor: Predictor
    if baseline == "keybert":
        # The SentenceTransformer itself, as a plain KeyBERT user would pass it.
        predictor = KeyBERTBaseline(getattr(model, "model", model))
    elif baseline is None:
        from kg.extract import Extractor
        from kg.fields import load_taxonomy

        extractor = Extractor(model, load_taxonomy(taxonomy_path))
        predictor = KgPredictor(extractor, area_labels(taxonomy_path))
    else:
        raise InputError(f"unknown baseline {baseline!r}; the one baseline is 'keybert'")
    report = evaluate_papers(gold, predictor, progress, path)
    if isinstance(predictor, KgPredictor):
        note = _training_data_note(path, predictor.extractor.field_scorer.area_model)
        if note:
            report = replace(report, notes=(*report.notes, note))
    return report


def _training_data_note(path: str | Path, area_model: Any) -> str | None:
    """A warning when the gold file is the one kg's area model was trained on."""
    info = getattr(area_model, "info", None) or {}
    digest = info.get("trained_on_sha256")
    if not digest or hashlib.sha256(Path(path).read_bytes()).hexdigest() != digest:
        return None
    return (
        f"kg's area model was trained on this file ({info.get('script', 'bench/')}), so the "
        "area accuracy above is in-sample; on papers it did not see (5-fold cross-validation) "
        f"it scored top-1 {info.get('cv_top1')}, top-3 {info.get('cv_top3')} over its ranking"
    )


# --- output ----------------------------------------------------------------


def format_report(report: Report) -> str:
    """A plain-text table of the report."""
    rate = report.papers / report.seconds if report.seconds else 0.0
    lines = [
        f"kg eval {report.gold_path}: {report.papers} papers, system {report.system}, "
        f"extraction {report.seconds:.1f} s ({rate:.2f} papers/s)",
        "",
        f"{'figure':16} {'papers':>6} {'gold':>6} {'pred':>6} {'match':>6} "
        f"{'P':>6} {'R':>6} {'F1':>6}",
    ]
    for name, c in report.figures.items():
        if name == "keyword":
            continue
        lines.append(
            f"{name:16} {c.papers:6d} {c.gold:6d} {c.predicted:6d} {c.matched:6d} "
            f"{c.precision:6.3f} {c.recall:6.3f} {c.f1:6.3f}"
        )
    if "keyword" in report.figures:
        c = report.figures["keyword"]
        lines.append(
            f"{'keyword recall':16} {c.papers:6d} {c.gold:6d} {c.predicted:6d} {c.matched:6d} "
            f"{'':>6} {c.recall:6.3f}"
        )
    if report.areas is not None:
        a = report.areas
        lines += [
            "",
            f"area accuracy    {a.papers} papers: top-1 {a.top1_accuracy:.3f} ({a.top1}), "
            f"top-3 {a.top3_accuracy:.3f} ({a.top3})",
        ]
    lines += [f"note: {n}" for n in report.notes]
    return "\n".join(lines) + "\n"


def report_json(report: Report) -> str:
    """The report as JSON, with precision, recall, F1 and accuracies filled in."""
    data: dict[str, Any] = {
        "gold": report.gold_path,
        "system": report.system,
        "papers": report.papers,
        "seconds": round(report.seconds, 3),
        "papers_per_second": round(report.papers / report.seconds, 3) if report.seconds else None,
        "figures": {
            name: {
                "papers": c.papers,
                "gold": c.gold,
                "predicted": c.predicted,
                "matched": c.matched,
                "precision": round(c.precision, 4),
                "recall": round(c.recall, 4),
                "f1": round(c.f1, 4),
            }
            for name, c in report.figures.items()
        },
        "areas": None
        if report.areas is None
        else {
            "papers": report.areas.papers,
            "top1": report.areas.top1,
            "top3": report.areas.top3,
            "top1_accuracy": round(report.areas.top1_accuracy, 4),
            "top3_accuracy": round(report.areas.top3_accuracy, 4),
        },
        "notes": list(report.notes),
    }
    return json.dumps(data, indent=2) + "\n"
